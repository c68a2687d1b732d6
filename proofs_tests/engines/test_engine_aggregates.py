"""The engine with aggregates (Algorithm 1 over letters, cer_theory.engines.core.labelled; docs/decisions.md D77–D78)
against the CEQL reference semantics with the ACEL paper's Agg (cer_theory.formalisms.ceql.semantics), plus counting
tests: the plain path is untouched, HAVING enumerates what it drops, nodes per event stay bounded."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings

from cer_theory.core import aggregates
from cer_theory.core.aggregates import NULL, Aggregator, register_aggregator
from cer_theory.core.errors import AggregateError, UnsupportedError
from cer_theory.core.events import Event
from cer_theory.engines.core.engine import AggregatedMatch, Engine, evaluate_query
from cer_theory.engines.core.evaluator import Determinizer, Evaluator
from cer_theory.engines.core.compiled import evaluator_class
from cer_theory.engines.core import labelled
from cer_theory.engines.core.labelled import LabelledDeterminizer, LabelledEvaluator
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.formalisms.ceql.semantics import evaluate, limit_conforms
from cer_theory.testing.harness import report
from cer_theory.testing.strategies.ceql import (evaluable_aggregated_queries, overlapping_aggregated_queries,
                                                overlapping_streams, timed_streams)


def _by_position(engine: Engine, stream) -> list[list[AggregatedMatch]]:
    out: list[list] = [[] for _ in stream]
    for m in engine.process(stream):
        out[m.end].append(m)
    return out


# ---------------------------------------------------------------------------------------------- differential


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(evaluable_aggregated_queries(), timed_streams(max_length=8))
def test_engine_aggregates_equal_the_reference_semantics(q, stream):
    """Engine = reference on generated queries with aggregates (SUM/MIN/MAX/COUNT/AVG/RANGE over ``x``, absent on
    some events: NULL) and HAVING, with windows, PARTITION BY, CONSUME BY, ALL/ANY, tECS invariants checked after
    every event: the records ``(CE, values)`` per end position are the same sets."""
    expected = evaluate(q, stream)
    actual = evaluate_query(q, stream, debug=True)
    assert actual == expected, report(q, stream, expected, actual, candidate="engine")


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(evaluable_aggregated_queries(), timed_streams(max_length=10))
def test_engine_aggregates_without_debug_and_with_limit(q, stream):
    """The same without debug (quiet events skipped); LIMIT n reports min(n, |reference|) distinct records,
    all of them reference records, counted after HAVING."""
    expected = evaluate(q, stream)
    assert evaluate_query(q, stream) == expected, report(q, stream, expected, evaluate_query(q, stream),
                                                         candidate="engine")
    limited = replace(q, limit=2, consume=None)
    assert limit_conforms(evaluate(limited, stream), evaluate_query(limited, stream), 2)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(evaluable_aggregated_queries(), timed_streams(max_length=10))
def test_engine_aggregates_fast_loop_equals_the_one_step(q, stream):
    """The fast loop of ``Engine.process`` folds aggregates exactly as ``Engine._step`` does (same records,
    same HAVING, duplicate and enumeration counts)."""
    fast_engine, stepped = Engine(q), Engine(q)
    assert fast_engine.plan.fast
    fast = [(m.complex_event, m.aggregates, m.partition) for m in fast_engine.process(stream)]
    slow = [(m.complex_event, m.aggregates, m.partition) for e in stream for m in stepped.process_event(e)]
    assert fast == slow
    assert ((fast_engine.enumerated, fast_engine.having_dropped, fast_engine.duplicates_dropped)
            == (stepped.enumerated, stepped.having_dropped, stepped.duplicates_dropped))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(evaluable_aggregated_queries(), timed_streams(max_length=8))
def test_engine_aggregates_on_a_dataframe_equal_the_engine_on_events(q, stream):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame([e.to_dict() for e in stream])
    frame = [(m.complex_event, m.aggregates) for m in Engine(q).process(df)]
    assert frame == [(m.complex_event, m.aggregates) for m in Engine(q).process(stream)]


# ---------------------------------------------------------------------------------------------- oracles, errors

STOCK = ("SELECT s1, SUM(b.volume) AS vol, MAX(b.price) AS top, COUNT(b) AS n FROM S "
         "WHERE (SELL AS s1 ; BUY+ AS b ; SELL AS s2) WITHIN 5 SECONDS")
STREAM = [Event("SELL", price=1, volume=1, time=0), Event("BUY", price=5, volume=10, time=1),
          Event("BUY", price=7, volume=20, time=2), Event("SELL", price=1, volume=1, time=3)]


def test_stock_query_json_lines():
    lines = sorted(json.dumps(m.to_json(), sort_keys=True) for m in Engine(STOCK).process(STREAM))
    assert [json.loads(x)["aggregates"] for x in lines] == [{"n": 1, "top": 5, "vol": 10},
                                                            {"n": 1, "top": 7, "vol": 20},
                                                            {"n": 2, "top": 7, "vol": 30}]
    assert all(json.loads(x)["positions"] == [0] for x in lines)


def test_json_writes_null_and_infinite_identities():
    (m,) = Engine("SELECT *, MAX(b.x) AS m, AVG(b.x) AS a, SUM(a.x) AS s WHERE A AS a OR B AS b").process(
        [Event("A")])
    assert m.to_json()["aggregates"] == {"m": "-inf", "a": None, "s": None}


def test_the_sum_of_strings_stops_the_engine_with_the_position():
    with pytest.raises(AggregateError, match=r"SUM\(b.x\) AS s: sum needs numbers; got 'ten' .* position 2"):
        list(Engine("SELECT SUM(b.x) AS s WHERE A ; B AS b").process([Event("A"), Event("C"), Event("B", x="ten")]))


def test_cli_run_prints_aggregates_and_exits_2_on_a_type_error(tmp_path):
    stream = tmp_path / "s.jsonl"
    stream.write_text("".join(json.dumps({**e.to_dict()}) + "\n" for e in STREAM))
    run = [sys.executable, "-m", "cer_theory.cli", "run", "--query", STOCK + " HAVING n >= 2", "--stream", str(stream)]
    done = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    assert json.loads(line)["aggregates"] == {"vol": 30, "top": 7, "n": 2}
    stream.write_text(json.dumps({"type": "SELL", "time": 0}) + "\n" + json.dumps({"type": "BUY", "time": 1,
                                                                                   "volume": "x"}) + "\n"
                      + json.dumps({"type": "SELL", "time": 2}) + "\n")
    done = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "sum needs numbers" in done.stderr and "position 1" in done.stderr
    assert "Traceback" not in done.stderr


def test_strategies_other_than_all_and_any_are_refused_with_aggregates():
    with pytest.raises(UnsupportedError, match="ALL and ANY"):
        Engine("SELECT NEXT *, SUM(b.x) AS s WHERE B AS b")


# ---------------------------------------------------------------------------------------------- counting


def _stock_stream(n: int) -> list[Event]:
    out = []
    for k in range(n):
        out.append(Event("SELL" if k % 5 == 0 else "BUY", price=k % 7, volume=k % 11, time=k))
    return out


def _counted(engine: Engine, stream: list[Event]) -> tuple[int, list, list]:
    """Run ``engine`` over ``stream``, keeping every evaluator it creates: (outputs, evaluators, matches)."""
    made: list[Evaluator] = []
    create = engine._new_evaluator

    def keep() -> Evaluator:
        made.append(create())
        return made[-1]

    engine._new_evaluator = keep  # type: ignore[method-assign]
    got = list(engine.process(stream))
    return len(got), made, got


def test_a_query_without_aggregates_runs_the_plain_path_unchanged():
    """No aggregates: the plain determinizer and evaluator (the fast loop only checks, on events with output,
    whether to fold aggregates). With aggregates over variables
    SELECT marks anyway, each marked position has one letter, so Algorithm 1 creates exactly the same nodes and
    reports the same number of matches."""
    pattern = "WHERE SELL ; BUY+ AS b ; SELL WITHIN 6 EVENTS"
    plain = Engine("SELECT * " + pattern)
    assert type(plain.det) is Determinizer and plain.plan.fast
    n_plain, plain_evaluators, _ = _counted(plain, _stock_stream(300))
    assert {type(ev) for ev in plain_evaluators} == {evaluator_class(debug=False, instrument=False)}  # (D422)
    aggregated = Engine("SELECT *, SUM(b.volume) AS v " + pattern)
    assert type(aggregated.det) is LabelledDeterminizer
    n_agg, agg_evaluators, _ = _counted(aggregated, _stock_stream(300))
    assert {type(ev) for ev in agg_evaluators} == {LabelledEvaluator}
    assert n_agg == n_plain > 0
    assert (sum(ev.stats.nodes_created for ev in agg_evaluators)
            == sum(ev.stats.nodes_created for ev in plain_evaluators))


def test_having_enumerates_the_matches_it_drops():
    """HAVING runs after enumeration (D78): every enumerated match is reported, dropped by HAVING, or a
    duplicate; a HAVING that holds nowhere still enumerates every match."""
    stream = _stock_stream(400)
    base = "SELECT s1, SUM(b.volume) AS vol, COUNT(b) AS n WHERE SELL AS s1 ; BUY+ AS b ; SELL WITHIN 6 EVENTS"
    everything = Engine(base)
    reported = len(list(everything.process(stream)))
    assert everything.enumerated == reported + everything.duplicates_dropped > 0
    nothing = Engine(base + " HAVING n < 0")
    assert list(nothing.process(stream)) == []
    assert nothing.enumerated == everything.enumerated == nothing.having_dropped + nothing.duplicates_dropped
    some = Engine(base + " HAVING vol > 20")
    kept = len(list(some.process(stream)))
    assert 0 < kept < reported and some.enumerated == kept + some.having_dropped + some.duplicates_dropped


def test_nodes_per_event_stay_bounded_by_the_letters():
    """Algorithm 1 over letters creates O(1) nodes per event (the CORE paper Theorem 3, one extend per letter): the
    worst event creates as many nodes on 2000 events as on 100, and live nodes stay bounded by the window."""
    q = "SELECT s1, SUM(b.volume) AS vol, MAX(b.price) AS top WHERE SELL AS s1 ; BUY+ AS b ; SELL WITHIN 8 EVENTS"
    worst, live = [], []
    for n in (100, 2000):
        _, made, _ = _counted(Engine(q), _stock_stream(n))
        worst.append(max(ev.stats.max_nodes_per_event for ev in made))
        live.append(max(ev.stats.max_live_nodes for ev in made))
    assert worst[0] == worst[1] > 0
    assert live[1] <= live[0] + 1024  # the compaction slack (evaluator.COMPACT_MIN)


def test_the_generated_decoder_takes_the_exact_step_off_the_fast_path(monkeypatch):
    """Strings under MAX/MIN, a registered aggregate and a mixed bag go through the kernel's step (D77): the
    engine equals the reference, and a number met after a string under MAX is the kernel's error."""
    monkeypatch.setattr(aggregates, "_REGISTRY", dict(aggregates._REGISTRY))
    register_aggregator(Aggregator("product_engine", lambda a, b: a * b, 1, lambda v: v, lambda v: v, "(ℤ, ×, 1)"))
    q = parse("SELECT *, MAX(b.name) AS hi, MIN(b.name) AS lo, PRODUCT_ENGINE(b.x) AS p, SUM(b.x) AS s "
              "WHERE A ; B+ AS b")
    stream = [Event("A"), Event("B", name="kk", x=2), Event("B", name="b", x=3), Event("B", name="z")]
    assert evaluate_query(q, stream) == evaluate(q, stream)
    records = {v for s in evaluate(q, stream) for _, v in s}
    assert (("hi", "kk"), ("lo", "b"), ("p", 6), ("s", 5)) in records
    assert (("hi", "z"), ("lo", "b"), ("p", NULL), ("s", NULL)) in records
    with pytest.raises(AggregateError, match=r"MAX\(b.name\) AS m: max cannot combine 'a' .* position 2"):
        list(Engine("SELECT MAX(b.name) AS m WHERE A ; B+ AS b").process(
            [Event("A"), Event("B", name="a"), Event("B", name=3)]))


def test_the_match_writer_writes_aggregates_in_every_format(tmp_path):
    """`cer-theory run`'s writer (engines/core/output.py) gives a query's aggregates in every output format: in
    JSON Lines byte for byte ``json.dumps(match.to_json())``, in CSV and Parquet as a JSON column."""
    import csv
    import io

    import pyarrow.parquet as pq

    from cer_theory.engines.core.output import MatchWriter

    matches = list(Engine(STOCK).process(STREAM))
    assert matches and all(isinstance(m, AggregatedMatch) for m in matches)
    text = io.StringIO()
    writer = MatchWriter(text, "jsonl")
    for m in matches:
        writer.write(m)
    writer.close()
    assert text.getvalue() == "".join(json.dumps(m.to_json()) + "\n" for m in matches)
    expected = [json.dumps(m.to_json()["aggregates"]) for m in matches]
    for fmt in ("csv", "parquet"):
        out = tmp_path / f"out.{fmt}"
        writer = MatchWriter(str(out), fmt)
        for m in matches:
            writer.write(m)
        writer.close()
        got = ([r["aggregates"] for r in csv.DictReader(out.open(encoding="utf-8", newline=""))] if fmt == "csv"
               else pq.read_table(out).column("aggregates").to_pylist())
        assert got == expected, fmt


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(evaluable_aggregated_queries(), timed_streams(max_length=10))
def test_the_update_over_letters_finds_the_complex_events_of_the_plain_update(q, stream):
    """The two update loops of Algorithm 1 (``Evaluator._update``, one •-successor per det-state, and
    ``LabelledEvaluator._update``, one per letter; docs/decisions.md D283) agree: without HAVING, the complex
    events of the records over letters are, position by position, those of the same query without aggregates."""
    q = replace(q, having=None, limit=None, select=None)  # (SELECT *: every position of a CE, not a projection)
    plain = replace(q, aggregates=())
    by_letters = [frozenset(ce for ce, _ in records) for records in evaluate_query(q, stream)]
    expected = evaluate_query(plain, stream)
    assert by_letters == expected, report(plain, stream, expected, by_letters, candidate="letters")


# ---------------------------------------------------------------------------------------------- several letters


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(overlapping_aggregated_queries(), overlapping_streams())
def test_the_update_over_letters_equals_the_reference_when_det_states_have_several_letters(q, stream):
    """Algorithm 1 over letters (``LabelledEvaluator._update``, docs/decisions.md D283) = the reference semantics on
    queries whose variables overlap: a det-state with several marking letters on one event must extend its
    merged union-list once per letter, and a union-list of several entries handed on by ∘ must keep them all.
    Records ``(CE, values)`` per end position, on the fast loop (quiet events skipped)."""
    expected = evaluate(q, stream)
    actual = evaluate_query(q, stream)
    assert actual == expected, report(q, stream, expected, actual, candidate="engine")


def _rewritten_update(*edits: tuple[str, str, int], **names: object) -> Callable:
    """``LabelledEvaluator._update`` compiled from its own source with each edit ``(old, new, count)`` made: ``old``
    must occur exactly ``count`` times (so a rewrite of the loop fails here instead of planting nothing). ``names``
    are added to the module's globals for the new text to call."""
    source = textwrap.dedent(inspect.getsource(LabelledEvaluator._update))
    for old, new, count in edits:
        assert source.count(old) == count, f"{old!r} occurs {source.count(old)} times in _update, not {count}"
        source = source.replace(old, new)
    scope = {**vars(labelled), **names}
    exec(compile(source, "<LabelledEvaluator._update, rewritten>", "exec"), scope)
    return scope["_update"]  # type: ignore[return-value]


def test_overlapping_queries_give_det_states_several_letters_and_long_union_lists(monkeypatch):
    """The strategy does what it is for, counted by a probe compiled into a copy of the loop: in 120 examples drawn
    as the test above draws them, a det-state (of T or the initial one) has two or more marking letters on one
    event in at least a fifth (53 of 120 when written), and a union-list of two or more entries goes to a new
    ∘-successor in at least a quarter (63 of 120). Quiet events skip the update, so only real updates count."""
    seen = {"letters": 0, "union-list": 0}
    hits: set[str] = set()

    def letters(marks: tuple) -> None:
        if len(marks) >= 2:
            hits.add("letters")

    def handed_on(ul: list[int]) -> None:
        if len(ul) >= 2:
            hits.add("union-list")

    probed = _rewritten_update(("marks, qs = pair", "marks, qs = pair; _letters(marks)", 2),
                               ("new[qs] = ul\n", "new[qs] = ul; _handed_on(ul)\n", 1),
                               _letters=letters, _handed_on=handed_on)
    monkeypatch.setattr(LabelledEvaluator, "_update", probed)
    examples = 0

    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(overlapping_aggregated_queries(), overlapping_streams())
    def count(q, stream):
        nonlocal examples
        hits.clear()
        evaluate_query(q, stream)
        examples += 1
        for k in hits:
            seen[k] += 1

    count()
    assert examples == 120
    assert seen["letters"] >= examples // 5 and seen["union-list"] >= examples // 4, seen


FAULTS = {
    "only the first letter": ("for code, qm in marks:", "for code, qm in marks[:1]:", 2),
    "only the head of a union-list": ("new[qs] = ul\n", "new[qs] = ul[:1]\n", 1),
}
"""Faults planted in the update over letters (docs/decisions.md D283): a det-state's •-moves cut to the first
letter (at the initial det-state and in T), and a new ∘-successor given only the head of the union-list."""


@pytest.mark.parametrize("fault", FAULTS)
def test_planted_faults_in_the_update_over_letters_are_caught(fault, monkeypatch):
    """The property above can fail: each planted fault makes it fail with the report (query, stream, first
    differing position)."""
    monkeypatch.setattr(LabelledEvaluator, "_update", _rewritten_update(FAULTS[fault]))
    with pytest.raises(AssertionError) as info:
        test_the_update_over_letters_equals_the_reference_when_det_states_have_several_letters()
    assert "only in semantics:" in str(info.value)
