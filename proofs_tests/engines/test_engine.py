"""The CORE engine (the CORE paper §4, Theorems 2–3, App. B): Algorithm 1 over the tECS.

Oracles E1 (exact trace of T, Algorithm 2's output order, windows ε = 6..3), E3, E4, E6, E7 (the CORE paper's worked
examples, Figs. 1, 3, 4, 6 and Examples 1–3, and our own); then
differential properties: the evaluator against brute-force any-start runs (``any_start_run``) on random CEAs
with position and time windows (tECS invariants checked after every event in debug mode), and the engine
against the CEQL reference semantics (``formalisms.ceql.semantics.evaluate``) on random patterns with windows,
PARTITION BY, CONSUME BY, selection strategies and LIMIT. Last, every path into the engine against the readable
per-event step ``Engine._step``: the one fast loop over Events and dicts, over columnar batches of dicts,
DataFrames and Arrow tables, over JSON Lines, CSV and Parquet files through ``run_stream`` (in tiny batches, and
small files by the row readers), and ``process_event``.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cer_theory.automata.determinize.step import signature_key
from cer_theory.automata.cea import CEA
from cer_theory.formalisms.ceql.compile import any_start_run, compile_pattern
from cer_theory.engines.core import Engine, Evaluator, Match, evaluate_query
from cer_theory.automata.determinize.bitmask import Determinizer
from cer_theory.core.predicates.masks import compile_mask
from cer_theory.engines.core.evaluator import last_admitted
from cer_theory.core.events import CoreComplexEvent
from cer_theory.core.windows import Window
from cer_theory.core.errors import SizeBudgetExceeded, StreamFormatError
from cer_theory.core.events import Event, Stream
from cer_theory.core.predicates.ast import TRUE, And, On, Or, Predicate, cmp, conj, is_type
from cer_theory.formalisms.ceql.semantics import evaluate, limit_conforms
from cer_theory.testing.outcomes import outcome
from cer_theory.testing.batches import process_in_batches, small
from cer_theory.streams.blocks import iter_parquet
from cer_theory.engines.core.run import in_file_terms, run_stream
from cer_theory.streams.schema import Schema as DeclaredSchema
from cer_theory.streams.rows import iter_file
from cer_theory.formalisms.cel.ast import Atom, Disj, Filter, Formula, In, Plus, Seq
from cer_theory.formalisms.ceql.ast import Query
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.testing.strategies.automata import random_ceas
from cer_theory.testing.harness import report
from cer_theory.testing.strategies.cel import unary_bodies, visible_variables
from cer_theory.testing.strategies.predicates import events as predicate_events
from cer_theory.testing.strategies.predicates import unary_predicates
from cer_theory.testing.strategies import ceql
from cer_theory.testing.strategies import Schema, streams

MATCHING = Schema(types=("R", "T", "U"))
"""Streams without the never-matched type V, so that most generated queries have outputs."""


def ce(i: int, j: int, *positions: int) -> CoreComplexEvent:
    return CoreComplexEvent(i, j, tuple(positions))


def nonempty(outputs) -> dict[int, frozenset]:
    return {j: frozenset(out) for j, out in enumerate(outputs) if out}


# ---------------------------------------------------------------------------------------------- E1

E1_STREAM = Stream([Event("SELL", name="MSFT", price=101), Event("SELL", name="MSFT", price=102),
                    Event("SELL", name="INTC", price=80), Event("BUY", name="AMZN", price=1900),
                    Event("SELL", name="AMZN", price=1920), Event("SELL", name="INTC", price=81),
                    Event("SELL", name="AMZN", price=1950)])
E1_QUERY = ("SELECT * FROM Stock WHERE SELL as msft; SELL as intel; SELL as amzn FILTER msft[name = 'MSFT'] AND "
            "msft[price > 100] AND intel[name = 'INTC'] AND amzn[name = 'AMZN'] AND amzn[price < 2000]")


def e1_cea() -> CEA:
    """E1's hand CEA (the CORE paper Fig. 3, for Q1 of Fig. 1): q1 -[SELL,MSFT,>100]/•-> q2 ⟲TRUE/∘, q2 -[SELL,INTC]/•-> q3
    ⟲TRUE/∘, q3 -[SELL,AMZN,<2000]/•-> q4; already I/O-deterministic."""
    sell = is_type("SELL")
    return CEA(["q1", "q2", "q3", "q4"], [
        ("q1", conj(sell, cmp("name", "=", "MSFT"), cmp("price", ">", 100)), {"msft"}, "q2"),
        ("q2", TRUE, set(), "q2"),
        ("q2", conj(sell, cmp("name", "=", "INTC")), {"intel"}, "q3"),
        ("q3", TRUE, set(), "q3"),
        ("q3", conj(sell, cmp("name", "=", "AMZN"), cmp("price", "<", 2000)), {"amzn"}, "q4")], ["q1"], ["q4"])


def test_oracle_e1_trace_of_t_and_algorithm_2_order():
    """E1 (the CORE paper Examples 1–3, Figs. 4 and 6): T after each position (ordered keys, entries as node(max)), and the
    outputs in Algorithm 2's left-first order; O2 = extend(U(O1, O0), 2) makes the tECS 1-bounded (Example 2)."""
    ev = Evaluator(e1_cea(), debug=True)
    q2 = ({"q2"}, ["O1(1)", "O0(0)"])
    expected_trace = [
        [({"q2"}, ["O0(0)"])],
        [q2],
        [({"q3"}, ["O2(1)"]), q2],
        [({"q3"}, ["O2(1)"]), q2],
        [({"q4"}, ["O4(1)"]), ({"q3"}, ["O2(1)"]), q2],
        [({"q3"}, ["O2(1)", "O5(1)"]), q2],
        [({"q4"}, ["O6(1)"]), ({"q3"}, ["O2(1)", "O5(1)"]), q2],
    ]
    outputs = []
    for j, event in enumerate(E1_STREAM):
        outputs.append(ev.process(event))
        assert [(set(states), entries) for states, entries in ev.describe_table()] == expected_trace[j], j
    assert outputs[4] == [ce(1, 4, 1, 2, 4), ce(0, 4, 0, 2, 4)]
    assert outputs[6] == [ce(1, 6, 1, 2, 6), ce(0, 6, 0, 2, 6), ce(1, 6, 1, 5, 6), ce(0, 6, 0, 5, 6)]
    assert [j for j, out in enumerate(outputs) if out] == [4, 6]
    # O6 = extend(merge([O2, O5]), 6) = extend(U(O2, O5), 6) and O2 = extend(U(O1, O0), 2): 1-bounded (Example 2).
    tecs = ev.tecs
    (o6,) = ev.table[next(p for p in ev.table if ev.det.final[p])]
    u = tecs.next(o6)
    assert tecs.kind(u) == "union" and tecs.describe(tecs.left(u)) == "O2(1)"
    assert tecs.describe(tecs.right(u)) == "O5(1)" and tecs.kind(tecs.next(tecs.left(u))) == "union"
    assert max(tecs.odepth(n) for n in range(tecs.base, tecs.next_id)) == 1


E1_J4 = [ce(1, 4, 1, 2, 4), ce(0, 4, 0, 2, 4)]
E1_J6 = [ce(1, 6, 1, 2, 6), ce(0, 6, 0, 2, 6), ce(1, 6, 1, 5, 6), ce(0, 6, 0, 5, 6)]


@pytest.mark.parametrize("eps, expected", [
    (None, {4: E1_J4, 6: E1_J6}),
    (6, {4: E1_J4, 6: E1_J6}),
    (5, {4: E1_J4, 6: [ce(1, 6, 1, 2, 6), ce(1, 6, 1, 5, 6)]}),
    (4, {4: E1_J4}),
    (3, {4: [ce(1, 4, 1, 2, 4)]}),
])
def test_oracle_e1_windows_in_algorithm_2_order(eps, expected):
    """E1 with ε = 6..3 (inclusive, on positions): the hand CEA and the compiled query agree, in order."""
    window = None if eps is None else Window("events", eps)
    hand = Evaluator(e1_cea(), window, debug=True)
    assert {j: out for j, e in enumerate(E1_STREAM) if (out := hand.process(e))} == expected
    query = E1_QUERY + ("" if eps is None else f" WITHIN {eps} EVENTS")
    matches = list(Engine(query, debug=True).process(E1_STREAM))
    got: dict[int, list] = {}
    for m in matches:
        got.setdefault(m.end, []).append(m.complex_event)
    assert got == expected


def test_e1_matches_carry_their_events():
    m = next(iter(Engine(E1_QUERY).process(E1_STREAM)))
    assert isinstance(m, Match) and m.complex_event == ce(1, 4, 1, 2, 4) and m.partition is None
    assert m.events == (E1_STREAM[1], E1_STREAM[2], E1_STREAM[4])
    assert m.to_json()["events"][0] == {"type": "SELL", "name": "MSFT", "price": 102}


# ---------------------------------------------------------------------------------------------- E3, E4, E6, E7


def run_query(text: str, stream: Stream, **changes) -> dict[int, frozenset]:
    q = parse(text)
    if changes:
        q = replace(q, **changes)
    engine_out = evaluate_query(q, stream, debug=True)
    assert engine_out == evaluate(q, stream), report(text, stream, evaluate(q, stream), engine_out,
                                                     candidate="engine")
    return nonempty(engine_out)


def test_oracle_e3_kleene_skip_till_any_match():
    """E3 (our example of skip-till-any-match, the CORE paper §2.1): A;B+;C on A B B C gives {0,1,3}, {0,2,3}, {0,1,2,3} on
    [0,3]; with k B's 2^k − 1 outputs."""
    q = "SELECT * FROM S WHERE A ; B+ ; C"
    assert run_query(q, Stream.from_types("A B B C")) == {3: {ce(0, 3, 0, 1, 3), ce(0, 3, 0, 2, 3),
                                                               ce(0, 3, 0, 1, 2, 3)}}
    assert run_query(q, Stream.from_types("A B X B C")) == {4: {ce(0, 4, 0, 1, 4), ce(0, 4, 0, 3, 4),
                                                                 ce(0, 4, 0, 1, 3, 4)}}
    assert len(run_query(q, Stream.from_types("A B B B B C"))[5]) == 15


def test_oracle_e3_update_stays_constant_while_outputs_double():
    """E3's claim: 2^k − 1 outputs for k B's, yet the nodes created per event do not grow with k."""
    ev = Evaluator(compile_pattern(parse("SELECT * FROM S WHERE A ; B+ ; C").pattern), instrument=True,
                   keep_per_event=True)
    for e in Stream.from_types("A " + "B " * 12):
        ev.process(e)
    assert len(ev.process(Event("C"))) == 2**12 - 1
    created = [c for c, _live, _active in ev.stats.per_event]
    assert max(created[3:]) == max(created[3:7])  # flat from the third B on
    assert ev.stats.enumeration.worst_ratio <= 4


def test_oracle_e4_duplicates_collapse_but_intervals_differ():
    q = "SELECT c FROM S WHERE A ; B ; C AS c"
    assert run_query(q, Stream.from_types("A B B C")) == {3: {ce(0, 3, 3)}}
    assert run_query(q, Stream.from_types("A A B C")) == {3: {ce(1, 3, 3), ce(0, 3, 3)}}
    out = list(Engine(q).process(Stream.from_types("A B B C")))
    assert len(out) == 1  # one CE, although two runs (through either B) produce it


def test_oracle_e6_window_boundary_inclusive_and_strict():
    s = Stream.from_types("A X B")
    assert run_query("SELECT * FROM S WHERE A ; B WITHIN 2 EVENTS", s) == {2: {ce(0, 2, 0, 2)}}
    assert run_query("SELECT * FROM S WHERE A ; B WITHIN 1 EVENTS", s) == {}
    assert run_query("SELECT * FROM S WHERE A ; B", s, within=Window("events", 2, strict=True)) == {}
    assert run_query("SELECT * FROM S WHERE A ; B", s, within=Window("events", 3, strict=True)) == {
        2: {ce(0, 2, 0, 2)}}


def test_oracle_e7_precedence():
    s = Stream.from_types("A C B")
    assert run_query("SELECT * FROM S WHERE A ; B OR C", s) == {1: {ce(1, 1, 1)}, 2: {ce(0, 2, 0, 2)}}
    assert run_query("SELECT * FROM S WHERE A ; (B OR C)", s) == {1: {ce(0, 1, 0, 1)}, 2: {ce(0, 2, 0, 2)}}


def test_oracle_e8_consume_by_any():
    out = run_query(E1_QUERY + " CONSUME BY ANY", E1_STREAM)
    assert out == {4: set(E1_J4)}


def test_oracle_e2_partition_by_and_time_window():
    """E2, Q2 of the CORE paper Fig. 1 on our stream (global positions, WITHIN 60 s on a ``time`` attribute)."""
    stream = Stream([Event("BUY", name="MSFT", volume=100, time=0), Event("SELL", name="INTC", volume=100, time=10),
                     Event("SELL", name="MSFT", volume=100, time=20), Event("BUY", name="MSFT", volume=200, time=30),
                     Event("BUY", name="MSFT", volume=100, time=75), Event("SELL", name="INTC", volume=100, time=80)])
    q = "SELECT b FROM S WHERE (BUY OR SELL) AS s ; (BUY OR SELL) AS b PARTITION BY [name], [volume]"
    assert run_query(q, stream, within=Window("time", 60, "time")) == {2: {ce(0, 2, 2)}, 4: {ce(2, 4, 4)}}
    assert run_query(q, stream) == {2: {ce(0, 2, 2)}, 4: {ce(2, 4, 4), ce(0, 4, 4)}, 5: {ce(1, 5, 5)}}
    engine = Engine(replace(parse(q), within=Window("time", 60, "time")))
    parts = {m.partition for m in engine.process(stream)}
    assert parts == {("MSFT", 100)}


# ---------------------------------------------------------------------------------------------- engine behaviour


def test_partition_by_null_goes_to_no_partition_and_is_counted():
    q = "SELECT * FROM S WHERE R ; T PARTITION BY [x]"
    stream = Stream([Event("R", x=1), Event("R"), Event("T"), Event("T", x=1), Event("R", x=True),
                     Event("T", x=1.0)])
    engine = Engine(q)
    got = [m.complex_event for m in engine.process(stream)]
    assert sorted(got) == [ce(0, 3, 0, 3), ce(0, 5, 0, 5)]  # 1 = 1.0, but True is another partition
    assert engine.unpartitioned == 2
    assert evaluate_query(q, stream) == evaluate(parse(q), stream)


def test_idle_partitions_expire_with_the_window():
    """Unbounded partition keys (docs/decisions.md D22, D27): with a window, an evaluator leaves once its last event
    is out of the window, so the live evaluators stay bounded by the keys seen within the window."""
    engine = Engine("SELECT * FROM S WHERE R ; T PARTITION BY [k] WITHIN 20 EVENTS")
    outs = 0
    for k in range(3000):
        outs += len(engine.process_event(Event("R", k=k)))
        assert engine.partitions <= 22
    assert outs == 0 and engine.partitions_created == 3000
    assert engine.retained_events <= 21


def test_consume_by_partition_only_resets_the_reporting_partition():
    q = "SELECT * FROM S WHERE R ; T PARTITION BY [x] CONSUME BY PARTITION"
    stream = Stream([Event("R", x=1), Event("R", x=2), Event("T", x=1), Event("T", x=1), Event("T", x=2)])
    assert run_query(q, stream) == {2: {ce(0, 2, 0, 2)}, 4: {ce(1, 4, 1, 4)}}
    q_any = q.replace("CONSUME BY PARTITION", "CONSUME BY ANY")
    assert run_query(q_any, stream) == {2: {ce(0, 2, 0, 2)}}


def test_limit_caps_each_position_in_algorithm_2_order():
    text = E1_QUERY + " LIMIT 1"
    got = [m.complex_event for m in Engine(text).process(E1_STREAM)]
    assert got == [E1_J4[0], E1_J6[0]]
    q = parse(text)
    assert limit_conforms(evaluate(q, E1_STREAM), evaluate_query(q, E1_STREAM), 1)


def test_max_strategy_oracle_e9():
    """E9 (tentative): MAX keeps the set-inclusion-maximal data among the CEs ending at the same position."""
    q = ("SELECT MAX * FROM S WHERE (BUY OR SELL) AS low ; (BUY OR SELL)+ AS mid ; (BUY OR SELL) AS high "
         "FILTER low[price < 100] AND mid[price >= 100] AND mid[price <= 2000] AND high[price > 2000]")
    stream = Stream([Event("BUY", price=p) for p in (50, 150, 60, 300, 2500)])
    assert run_query(q, stream) == {4: {ce(0, 4, 0, 1, 3, 4), ce(2, 4, 2, 3, 4)}}


def test_time_windows_need_non_decreasing_timestamps():
    engine = Engine("SELECT * FROM S WHERE R ; T WITHIN 5 [time]")
    list(engine.process([Event("R", time=3), Event("T", time=3)]))
    with pytest.raises(StreamFormatError, match="decreases"):
        list(engine.process([Event("T", time=2)]))
    for text in ("SELECT * FROM S WHERE R ; T PARTITION BY [k] WITHIN 5 [time]",   # the keyed loop
                 "SELECT MAX * FROM S WHERE R ; T PARTITION BY [k] WITHIN 5 [time]"):  # event by event
        with pytest.raises(StreamFormatError, match="decreases") as raised:
            list(Engine(text).process([Event("R", k=1, time=3), Event("T", k=2, time=2)]))
        assert raised.value.line == 1 and raised.value.field == "time"
    with pytest.raises(StreamFormatError, match="decreases"):
        ev = Evaluator(compile_pattern(Seq(Atom("R"), Atom("T"))), Window("time", 5, "time"))
        ev.process(Event("R", time=3))
        ev.process(Event("R", time=1))


def test_engine_accepts_dicts_and_continues_positions_across_calls():
    engine = Engine("SELECT * FROM S WHERE R ; T")
    assert list(engine.process([{"type": "R", "x": 1}])) == []
    (m,) = engine.process([{"type": "T"}])
    assert m.complex_event == ce(0, 1, 0, 1) and m.events == (Event("R", x=1), Event("T"))
    with pytest.raises(TypeError):
        list(engine.process(Event("R")))


def test_engine_accepts_a_pandas_dataframe():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"type": ["SELL", "SELL", "SELL", "BUY", "SELL", "SELL", "SELL"],
                       "name": ["MSFT", "MSFT", "INTC", "AMZN", "AMZN", "INTC", "AMZN"],
                       "price": [101, 102, 80, 1900, 1920, 81, 1950.0]})
    got = [m.complex_event for m in Engine(E1_QUERY).process(df)]
    assert got == E1_J4 + E1_J6


def test_engine_accepts_a_pyarrow_table():
    pa = pytest.importorskip("pyarrow")
    table = pa.table({"type": ["R", "X", "T"], "x": [1, None, 2]})
    (m,) = Engine("SELECT * FROM S WHERE R ; T").process(table)
    assert m.complex_event == ce(0, 2, 0, 2) and m.events[0] == Event("R", x=1)


def test_process_batch_equals_process():
    cea = compile_pattern(parse(E1_QUERY).pattern)
    batch = list(Evaluator(cea, Window("events", 5)).process_batch(list(E1_STREAM)))
    ev = Evaluator(cea, Window("events", 5))
    assert batch == [c for e in E1_STREAM for c in ev.process(e)] == E1_J4 + [ce(1, 6, 1, 2, 6), ce(1, 6, 1, 5, 6)]


def test_bounded_successor_cache_gives_the_same_outputs():
    """The det-cache bound (the cache of the CORE paper §4.4, bounded by us): clearing the cache on overflow only costs
    recomputation."""
    det = Determinizer(e1_cea(), cache_limit=2)
    ev = Evaluator(determinizer=det, window=Window("events", 5))
    assert [c for e in E1_STREAM for c in ev.process(e)] == E1_J4 + [ce(1, 6, 1, 2, 6), ce(1, 6, 1, 5, 6)]
    assert det.evictions > 0


def test_budget_bounds_the_lazy_determinization():
    cea = compile_pattern(parse("SELECT * FROM S WHERE (R OR T)+ ; R ; (R OR T) ; (R OR T)").pattern)
    ev = Evaluator(cea, budget=3)
    with pytest.raises(SizeBudgetExceeded):
        for e in Stream.from_types("R T R R T R T T R R"):
            ev.process(e)


# ---------------------------------------------------------------------------------------------- bit vectors


@settings(max_examples=150)
@given(st.lists(unary_predicates(), min_size=1, max_size=4), st.lists(predicate_events(), min_size=1, max_size=5))
def test_compiled_bit_vectors_equal_the_predicate_semantics(preds, events):
    """The generated mask function (shared atoms evaluated once, §4.4) equals ``p(e)`` bit by bit."""
    fn = compile_mask(preds)
    for e in events:
        assert fn(e) == sum(1 << k for k, p in enumerate(preds) if p(e)), (fn.source, e)


# ---------------------------------------------------------------------------------------------- Theorem 3


windows = st.one_of(st.none(), st.builds(Window, st.just("events"), st.integers(0, 5), st.none(), st.booleans()))


def run_evaluator(ev: Evaluator, stream) -> list[list[CoreComplexEvent]]:
    return [ev.process(e) for e in stream]


def assert_same(expected, actual, what: str, stream) -> None:
    for out in actual:
        assert len(out) == len(set(out)), f"duplicate outputs {out}\n{what}"
    assert [frozenset(a) for a in actual] == list(expected), report(what, stream, expected, actual,
                                                                    reference="any-start runs", candidate="evaluator")


@settings(max_examples=300)
@given(random_ceas(max_states=4), streams(max_length=9), windows, st.sampled_from([1024, 0]))
def test_theorem_3_evaluator_equals_any_start_runs(cea, stream, window, compact_min):
    """Algorithm 1 + 2 output exactly ⟦A⟧^ε_j(S) (runs from any start), once each, at every j, with every tECS
    invariant of the CORE paper §4.1–4.2 and App. B.3 checked after each event (debug) and compaction forced
    (compact_min=0)."""
    ev = Evaluator(cea, window, debug=True, compact_min=compact_min)
    assert_same(any_start_run(cea, stream, window), run_evaluator(ev, stream),
                f"{cea.describe()}\nwindow={window}", stream)
    assert ev.stats.enumeration.worst_ratio <= 4 and ev.stats.enumeration.tail == 0


def windowed_runs(cea: CEA, stream, size: int) -> list[frozenset[CoreComplexEvent]]:
    """Brute-force any-start runs cut at the window (``WITHIN size EVENTS``, inclusive): ``any_start_run`` with a
    window, but each run stops after ``size`` more events, so long streams stay cheap."""
    out: list[set[CoreComplexEvent]] = [set() for _ in stream]
    for i in range(len(stream)):
        config = {(q, frozenset()) for q in cea.initial}
        for j in range(i, min(len(stream), i + size + 1)):
            config = {(t.target, m | {j} if t.labels else m) for q, m in config for t in cea.out(q)
                      if t.predicate(stream[j])}
            out[j].update(CoreComplexEvent(i, j, tuple(sorted(m))) for q, m in config if q in cea.final)
    return [frozenset(s) for s in out]


@settings(max_examples=120)
@given(random_ceas(max_states=5, min_transitions=5, max_transitions=12),
       streams(MATCHING, min_length=10, max_length=40), st.integers(1, 4))
def test_theorem_3_on_longer_streams_with_compaction(cea, stream, size):
    """Longer streams, where union gadgets of case (c/d) meet and compaction (forced at every opportunity)
    drops expired prefixes between events: still exactly the any-start runs inside the window."""
    window = Window("events", size)
    expected = windowed_runs(cea, stream, size)
    assert expected[:6] == any_start_run(cea, stream[:6], window)
    ev = Evaluator(cea, window, debug=True, compact_min=0)
    assert_same(expected, run_evaluator(ev, stream), f"{cea.describe()}\n{window}", stream)


@st.composite
def timed_streams(draw, max_length: int = 9, schema: Schema = MATCHING) -> Stream:
    s = draw(streams(schema, max_length=max_length))
    steps = draw(st.lists(st.sampled_from([0, 0, 1, 2, 3]), min_size=len(s), max_size=len(s)))
    out, t = [], 0
    for e, d in zip(s, steps):
        t += d
        out.append(Event(e.type, {**e.attributes, "ts": t}))
    return Stream(out)


@settings(max_examples=200)
@given(random_ceas(max_states=4), timed_streams(), st.integers(0, 5), st.booleans())
def test_theorem_3_with_time_windows_and_timestamp_ties(cea, stream, size, strict):
    """Time windows on a non-decreasing attribute (ties included) prune exactly like position windows."""
    window = Window("time", size, "ts", strict)
    ev = Evaluator(cea, window, debug=True, compact_min=0)
    assert_same(any_start_run(cea, stream, window), run_evaluator(ev, stream), f"{cea.describe()}\n{window}", stream)


@settings(max_examples=200)
@given(random_ceas(max_states=4), timed_streams(max_length=12), st.integers(0, 5), st.booleans(),
       st.sampled_from(["time", "events", None]))
def test_quiet_events_skipped_without_debug_give_the_same_outputs_and_counts(cea, stream, size, strict, kind):
    """Without debug, events that change nothing are answered without the update (``Evaluator.advance``); in
    debug mode each such claim is checked against the full update instead. Both give the any-start runs, and
    the same counts (events, det-cache lookups, nodes created, outputs)."""
    window = None if kind is None else Window(kind, size, "ts" if kind == "time" else None, strict)
    fast, checked = Evaluator(cea, window), Evaluator(cea, window, debug=True)
    expected = any_start_run(cea, stream, window)
    assert_same(expected, run_evaluator(fast, stream), f"{cea.describe()}\n{window}", stream)
    assert_same(expected, run_evaluator(checked, stream), f"{cea.describe()}\n{window}", stream)
    counts = lambda ev: (ev.stats.events, ev.stats.lookups, ev.stats.nodes_created, ev.stats.outputs)  # noqa: E731
    assert counts(fast) == counts(checked)


@given(st.one_of(st.integers(-10**6, 10**6), st.floats(-1e9, 1e9), st.sampled_from([2**53 - 1, 2**53 + 1, 10**20])),
       st.one_of(st.integers(0, 10**4), st.floats(0, 1e4), st.sampled_from([0.1, 1 / 3, 5e-324])), st.booleans(),
       st.lists(st.one_of(st.integers(-10**6, 2 * 10**6), st.floats(-1e9, 2e9)), max_size=8))
def test_last_admitted_is_a_sound_window_horizon(start, size, strict, keys):
    """``key <= last_admitted(window, start)`` implies ``window.admits(start, key)``, for int and float keys (the
    quiet-event shortcut relies on it to know that no bottom node leaves the window)."""
    window = Window("time", size, "ts", strict)
    t = last_admitted(window, start)
    for key in [*keys, t, math.floor(t) if abs(t) < 1e300 else t]:
        if key <= t:
            assert window.admits(start, key), (start, size, strict, t, key)


# ---------------------------------------------------------------------------------------------- the engine


RELATIONS = ("R", "T", "U")


@st.composite
def patterns(draw, depth: int = 3) -> Formula:
    """CEQL patterns over R/T/U: AS, FILTER var[x…] (AND/OR of blocks), OR, ';', '+'."""
    kinds = ["atom", "atom", "seq", "seq", "plus", "as", "filter", "or"]
    k = "atom" if depth <= 0 else draw(st.sampled_from(kinds))
    if k == "atom":
        return Atom(draw(st.sampled_from(RELATIONS)))
    sub = lambda: draw(patterns(depth - 1))  # noqa: E731
    if k == "seq":
        return Seq(sub(), sub())
    if k == "or":
        return Disj(sub(), sub())
    if k == "plus":
        return Plus(sub())
    body = sub()
    if k == "as":
        return In(body, draw(st.sampled_from(("A", "B"))))
    pool = st.sampled_from(sorted(visible_variables(body) | {"A"}))

    def block() -> Predicate:
        return On(draw(pool), draw(unary_bodies(RELATIONS, ("x",), (0, 1, 2, 3))))

    shape = draw(st.sampled_from(["one", "one", "and", "or"]))
    return Filter(body, block() if shape == "one" else (And if shape == "and" else Or)((block(), block())))


@st.composite
def queries(draw) -> Query:
    pattern = draw(patterns())
    names = sorted(visible_variables(pattern) | {"A"})
    select = draw(st.one_of(st.none(), st.lists(st.sampled_from(names), unique=True, max_size=2).map(tuple)))
    within = draw(st.one_of(st.none(), st.builds(Window, st.just("events"), st.integers(0, 4), st.none(),
                                                 st.booleans()),
                            st.builds(Window, st.just("time"), st.integers(0, 4), st.just("ts"), st.booleans())))
    return Query(pattern=pattern, select=select, within=within,
                 strategy=draw(st.sampled_from(["ALL", "ALL", "ANY", "STRICT", "NEXT", "LAST", "MAX"])),
                 partition_by=draw(st.sampled_from([(), (), (("x",),)])),
                 consume=draw(st.sampled_from([None, None, "ANY", "PARTITION", "NONE"])))


@settings(max_examples=250)
@given(queries(), timed_streams(max_length=8))
def test_engine_equals_ceql_reference_semantics(q, stream):
    """Engine == ``formalisms.ceql.semantics.evaluate`` (Fig. 2 + the clause readings of the CORE paper §2.2 and
    docs/decisions.md D20–D22): windows on
    positions and time, PARTITION BY (global positions, NULL → no partition), CONSUME BY, strategies."""
    expected = evaluate(q, stream)
    actual = evaluate_query(q, stream, debug=True)
    assert actual == expected, report(q, stream, expected, actual, candidate="engine")


@settings(max_examples=150)
@given(queries(), timed_streams(max_length=10))
def test_engine_without_debug_equals_ceql_reference_semantics(q, stream):
    """The same without debug mode: the engine's own loop and the evaluators' quiet-event shortcut are on."""
    assert evaluate_query(q, stream) == evaluate(q, stream), report(q, stream, evaluate(q, stream),
                                                                    evaluate_query(q, stream), candidate="engine")


@settings(max_examples=100)
@given(queries(), timed_streams(max_length=8), st.integers(1, 3))
def test_engine_limit_reports_min_n_of_the_reference(q, stream, n):
    """LIMIT n: at each position min(n, |reference|) distinct CEs, all of them reference CEs."""
    q = replace(q, limit=n, consume=None)
    assert limit_conforms(evaluate(q, stream), evaluate_query(q, stream), n)


@settings(max_examples=60)
@given(queries(), timed_streams(max_length=8))
def test_engine_on_a_dataframe_equals_the_engine_on_events(q, stream):
    """The frame path (vectorized bit vectors, keys from columns, events built on demand) reports the same CEs
    as the Event path; missing cells are absent attributes."""
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame([e.to_dict() for e in stream])
    frame = [m.complex_event for m in Engine(q).process(df)]
    assert frame == [m.complex_event for m in Engine(q).process(stream)]


@settings(max_examples=300)
@given(queries(), timed_streams(max_length=10), st.sampled_from(["NEXT", "LAST", "MAX"]))
def test_engine_selection_strategies_through_the_determinization(q, stream, strategy):
    """NEXT, LAST and MAX run as Algorithm 1 over A⁺_SEL (the CEL paper Thm 7.2 on the one-start CEA, D27): the same
    CEs as the reference, which compares the CEs of every start before the window (D20), with every tECS
    invariant checked after every event."""
    q = replace(q, strategy=strategy)
    expected = evaluate(q, stream)
    actual = evaluate_query(q, stream, debug=True)
    assert actual == expected, report(q, stream, expected, actual, candidate="engine")


# ---------------------------------------------------------------------------------------------- one step, many paths
# The engine has one readable per-event step (``Engine._step``) and one fast loop that inlines it
# (``engines/core/loop.py``), fed by a cursor over Events and dicts read one at a time or over the rows of a
# columnar batch (dicts, DataFrames, Arrow tables, files); ``process_event`` reads one event with the step. Each
# path is compared with the step itself, driven event by event with bit vectors by the predicates' definition, on
# generated queries and streams (also streams that break the window's rules): the same matches in the same order
# with the same events and partition keys, the same error, the same bookkeeping.

BOOKKEEPING = ("position", "unpartitioned", "partitions", "partitions_created", "partitions_discarded",
               "retained_events")
"""What the engine counts besides its matches; every path must leave the same."""


def one_step(engine: Engine, stream: Iterable[Event]) -> Iterator[Match]:
    """The reference: ``Engine._step`` on each event, bit vectors by the definition of the predicates."""
    attr, attrs = engine.plan.time_attribute, engine.partition_attributes
    for e in stream:
        yield from engine._step(e, signature_key([p(e) for p in engine.det.predicates]), None if attr is None else e.get(attr),
                                [e.get(a) for a in attrs] if attrs else None)


def bookkeeping(engine: Engine) -> dict[str, int]:
    return {a: getattr(engine, a) for a in BOOKKEEPING}


def chunks(engine: Engine, stream: list[Event]) -> Iterator[Match]:
    """``process`` called twice: positions, keys and partitions continue across calls."""
    half = len(stream) // 2
    yield from engine.process(stream[:half])
    yield from engine.process(stream[half:])


def dataframe(engine: Engine, stream: list[Event]) -> Iterator[Match]:
    pd = pytest.importorskip("pandas")
    return engine.process(pd.DataFrame([e.to_dict() for e in stream]))


PATHS: dict[str, Callable[[Engine, list[Event]], Iterable[Match]]] = {
    "process, Events": lambda engine, stream: engine.process(stream),
    "process, dicts": lambda engine, stream: engine.process([e.to_dict() for e in stream]),
    "process, in two calls": chunks,
    "process_event": lambda engine, stream: (m for e in stream for m in engine.process_event(e)),
}


SKIPPING_PATHS = ("process, dicts",)
"""Paths that go through the columnar batches, where inert rows are skipped in bulk (D120): under PARTITION BY a
skipped row touches no partition, so only the partition counters may differ (the matches may not)."""

PARTITION_COUNTERS = ("partitions", "partitions_created", "partitions_discarded")


def comparable(engine: Engine, name: str) -> dict[str, int]:
    kept = bookkeeping(engine)
    if (name in SKIPPING_PATHS or name == "DataFrame") and engine.partition_attributes:
        for a in PARTITION_COUNTERS:
            kept.pop(a)
    return kept


def assert_paths_equal_the_step(q: Query, stream: list[Event]) -> None:
    reference = Engine(q)
    want = outcome(one_step(reference, stream))
    for name, path in PATHS.items():
        engine = Engine(q)
        assert outcome(path(engine, stream)) == want, (name, str(q), stream)
        assert comparable(engine, name) == comparable(reference, name), (name, str(q), stream)
    engine = Engine(q)
    inexact = outcome(one_step(Engine(q), stream), exact=False)
    assert outcome(dataframe(engine, stream), exact=False) == inexact, ("DataFrame", str(q), stream)
    if want[1] is None:
        assert comparable(engine, "DataFrame") == comparable(reference, "DataFrame"), ("DataFrame", str(q), stream)
    assert_arrow_and_files_equal_the_step(q, stream)


def step_on_file(engine: Engine, path: Path, fmt: str) -> Iterator[Match]:
    """The reference over a file: its row reader, the schema learnt as the events come, errors in file terms."""
    rows = iter_parquet(path) if fmt == "parquet" else iter_file(path, fmt)
    line = None

    def events() -> Iterator[Event]:
        nonlocal line
        for line, event in DeclaredSchema.inferring(rows, source=str(path)):
            yield event

    try:
        yield from one_step(engine, events())
    except StreamFormatError as exc:
        raise in_file_terms(exc, lambda _position: line, str(path)) from None


def _cell(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return "" if v is None else str(v)


def write_file(path: Path, stream: list[Event], fmt: str) -> bool:
    """The stream as a file of ``fmt``; False when Arrow cannot type a column (no such Parquet file exists)."""
    dicts = [e.to_dict() for e in stream]
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(d) + "\n" for d in dicts), encoding="utf-8")
    elif fmt == "csv":
        header = list(dict.fromkeys(k for d in dicts for k in d)) or ["type"]
        lines = [",".join(header)] + [",".join(_cell(d.get(h)) for h in header) for d in dicts]
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    else:
        table = arrow_table(stream) if stream else pa.table({"type": pa.array([], pa.string())})
        if table is None:
            return False
        pq.write_table(table, path)
    return True


def arrow_table(stream: list[Event]) -> pa.Table | None:
    """The stream as an Arrow table with every key of every event, or None if Arrow cannot type a column."""
    if not stream:
        return None
    try:
        return pa.Table.from_struct_array(pa.array([e.to_dict() for e in stream]))
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return None


def assert_arrow_and_files_equal_the_step(q: Query, stream: list[Event]) -> None:
    """The columnar paths in tiny batches: an Arrow table, and JSON Lines, CSV and Parquet files through
    ``run_stream`` — through the columns, and (JSON Lines, CSV) by the row readers — each against the step on
    the events as the file's row reader reads them."""
    table = arrow_table(stream)
    if table is not None:  # (a column of ints and floats holds floats: events by type, errors by class)
        reference, engine = Engine(q), Engine(q)
        inexact = outcome(one_step(reference, stream), exact=False)
        assert outcome(process_in_batches(engine, table, 3), exact=False) == inexact, ("Arrow table", str(q), stream)
        if inexact[1] is None:
            assert comparable(engine, "DataFrame") == comparable(reference, "DataFrame"), ("Arrow", str(q))
    with tempfile.TemporaryDirectory() as folder:
        for fmt in ("jsonl", "csv", "parquet"):
            path = Path(folder) / f"s.{fmt}"
            if not write_file(path, stream, fmt):
                continue
            reference = Engine(q)
            want = outcome(step_on_file(reference, path, fmt))
            for columnar_from in ((0,) if fmt == "parquet" else (0, 1 << 30)):  # the columns; the row readers
                engine = Engine(q)
                got = outcome(run_stream(q, path, engine=engine, columnar_from=columnar_from, limits=small(3, 48)))
                where = (f"{fmt} file", "columns" if columnar_from == 0 else "rows", q, path.read_bytes())
                assert got == want, where
                if want[1] is None:
                    assert comparable(engine, "DataFrame") == comparable(reference, "DataFrame"), where


# ---------------------------------------------------------------------------------------------- streams

# ---------------------------------------------------------------------------------------------- the properties


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ceql.queries(max_leaves=4), ceql.engine_streams())
def test_engine_fast_paths_equal_the_one_step_on_the_whole_grammar(q, stream):
    """On CORE's whole query grammar (every strategy, FROM, PARTITION BY groups, position, time and attribute
    windows, CONSUME BY, LIMIT): every path reports what ``Engine._step`` reports, fails where it fails, and
    leaves the same counts."""
    assert_paths_equal_the_step(q, stream)


@settings(max_examples=150, deadline=None)
@given(queries(), timed_streams(max_length=10))
def test_engine_fast_paths_equal_the_one_step_on_match_dense_queries(q, stream):
    """The same on queries over R/T/U, whose streams have many matches, partitions and consumptions."""
    assert_paths_equal_the_step(q, list(stream))


def test_the_fast_loop_is_what_process_runs():
    """``process`` takes the fast loop exactly where no strategy history and no ``type`` key is involved (so the
    properties above test the loop that runs), and the one step otherwise."""
    base = "SELECT * FROM S WHERE R ; T"
    assert Engine(base).plan.fast
    assert Engine(base + " PARTITION BY [x] WITHIN 3 [ts]").plan.fast
    assert not Engine("SELECT NEXT * FROM S WHERE R ; T").plan.fast
    assert not Engine(base + " PARTITION BY [type]").plan.fast


def test_partitions_expire_least_recently_used_first_on_every_path():
    """An evaluator moves to the back of the expiry order whenever it reads an event (docs/decisions.md D27), so a
    partition read at every event never shields an idle one from expiring: B (last read at 1) leaves at 4, A stays."""
    q = parse("SELECT * FROM S WHERE R ; T PARTITION BY [x] WITHIN 2 EVENTS")
    stream = [Event("R", x=1), Event("R", x=2), Event("R", x=1), Event("R", x=1), Event("R", x=1)]
    assert_paths_equal_the_step(q, stream)
    engine = Engine(q)
    assert list(engine.process(stream)) == []
    assert [key for key, _ in engine.evaluators()] == [(1,)]
    assert (engine.partitions_created, engine.partitions_discarded) == (2, 1)
