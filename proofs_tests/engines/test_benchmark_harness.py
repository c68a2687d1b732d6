"""Smoke tests of benchmarks/ (the CORE paper, §5): the stream generator, the query suite, the naive peer and the harness.

The benchmark itself is not a test (it takes minutes to hours); these check that what it measures is well defined:
the stream is reproducible, every suite query is valid CEQL with the typos of docs/errata.md corrected, the naive peer
computes the same complex events as the automaton-side reference, and one end-to-end run of the harness writes
a well-formed report in which the engine and the naive peer agree.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import re
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/ is a top-level folder, not installed

from benchmarks.stock import DECLARATION, SCHEMA, STOCKS, TICK_MS, stock_stream  # noqa: E402
from benchmarks.suite import DEFAULT_QUERIES, SUITE, WINDOW_SWEEP, sequence_query  # noqa: E402


def _have(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


needs_ceql = pytest.mark.skipif(not _have("cer_theory.formalisms.ceql.parser"),
                                reason="cer_theory.formalisms.ceql.parser (the CEQL parser) is not there yet")
needs_engine = pytest.mark.skipif(not (_have("cer_theory.engines.core.engine")
                                       and _have("cer_theory.formalisms.ceql.compile")),
                                  reason="the engine (cer_theory.engines.core.engine) or the CEQL compiler is missing")


# ---------------------------------------------------------------------------------------------- the stream


def test_stock_stream_is_deterministic_per_seed() -> None:
    a = list(stock_stream(3000, seed=7))
    assert a == list(stock_stream(3000, seed=7))
    assert a != list(stock_stream(3000, seed=8))
    assert list(stock_stream(1000, seed=7)) == a[:1000]  # a prefix does not depend on n


def test_stock_stream_has_the_paper_schema_and_rates() -> None:
    events = list(stock_stream(20_000, seed=1))
    names = {name for name, _ in STOCKS}
    for k, e in enumerate(events):
        assert set(e) == {"type", *SCHEMA} and e["type"] in ("BUY", "SELL") and e["name"] in names
        assert e["id"] == k and e["volume"] % 100 == 0 and 100 <= e["volume"] <= 5000
        assert isinstance(e["price"], float) and e["price"] > 0
    times = [e["stock_time"] for e in events]
    assert all(a <= b for a, b in itertools.pairwise(times)), "window keys must not decrease (docs/decisions.md D30)"
    rate = len(events) / (times[-1] / 1000)  # events per second of stock_time
    assert 8 < rate < 13, rate  # ≈100 events in the suite's window T = 10 s
    assert {e["name"] for e in events} == names and {e["type"] for e in events} == {"BUY", "SELL"}
    assert any(e["volume"] == 4000 for e in events)  # Q7 filters on it


def test_no_two_events_are_exactly_a_suite_window_apart() -> None:
    """The 7 ms tick makes the inclusive (paper) and strict (CORE's code) windows select the same CEs."""
    times = {e["stock_time"] for e in stock_stream(30_000, seed=2)}
    assert all(t % TICK_MS == 0 for t in times)
    windows = {10000 * m for m in (1, 2, 3, 4)} | {30000}
    assert not any(t + w in times for t in times for w in windows)


def test_stock_stream_is_lazy() -> None:
    first = list(itertools.islice(stock_stream(10**12, seed=0), 5))  # would never finish if materialized
    assert [e["id"] for e in first] == [0, 1, 2, 3, 4]


def test_declaration_names_every_attribute() -> None:
    for event_type in ("BUY", "SELL"):
        assert re.search(rf"EVENT {event_type} \{{ id:int, name:string, volume:int, price:double, "
                         rf"stock_time:int \}}", DECLARATION)


# ---------------------------------------------------------------------------------------------- the suite


def test_suite_follows_the_spec_generator_with_typos_fixed() -> None:
    assert set(DEFAULT_QUERIES) <= set(SUITE) and set(WINDOW_SWEEP) <= set(SUITE)
    p3 = SUITE["P3"].text
    assert p3 == ("SELECT * FROM S WHERE (SELL as T1; BUY as T2; BUY as T3) FILTER T1[name = 'INTC'] AND "
                  "T2[name = 'RIMM'] AND T3[name = 'QQQ'] WITHIN 10000 [stock_time]")
    assert "T3[name = 'QQQ']" in SUITE["P12'"].text and "'000'" not in SUITE["P12'"].text  # S12′ typo
    assert ":" not in SUITE["P24'"].text  # S24′ typo
    for name, q in SUITE.items():
        assert "stock time" not in q.text and q.note
        if q.group in ("P'", "sweep"):
            assert q.text.count("NE[name = 'NotExists']") == 1
    for m, name in enumerate(WINDOW_SWEEP, 1):
        assert SUITE[name].text == sequence_query(3, no_output=True, mult=m)
        assert f"WITHIN {10000 * m} [stock_time]" in SUITE[name].text


@needs_ceql
def test_suite_queries_all_parse_and_compile() -> None:
    from cer_theory.formalisms.ceql.parser import parse, parse_declarations

    (decl,) = parse_declarations(DECLARATION)
    assert set(decl.events) == {"BUY", "SELL"}
    for name, q in SUITE.items():
        query = parse(q.text)
        assert query.within is not None and query.within.attribute == "stock_time", name
        assert query.strategy == "ALL" and query.select is None
        assert (query.partition_by, query.consume) == (((("volume",),), "ANY") if name in ("Q3", "Q6")
                                                        else ((), None)), name
    if _have("cer_theory.formalisms.ceql.compile"):
        from cer_theory.formalisms.ceql.compile import compile_automaton

        for name in ("P3", "P12'", "Q4", "Q7"):
            assert len(compile_automaton(parse(SUITE[name].text)).initial) == 1


# ---------------------------------------------------------------------------------------------- the naive peer

PEER_QUERIES = [
    SUITE["P3"].text,
    SUITE["Q4"].text,  # disjunction
    "SELECT * FROM S WHERE (SELL as a; BUY+ as b; SELL as c) FILTER a[name = 'INTC'] AND b[name = 'INTC'] "
    "AND c[name = 'INTC'] WITHIN 4000 [stock_time]",  # iteration
    "SELECT * FROM S WHERE (SELL as a; BUY as b) FILTER a[price > 20.0] PARTITION BY [name] "
    "WITHIN 3000 [stock_time] CONSUME BY ANY",
    "SELECT * FROM S WHERE (SELL as a; BUY as b) FILTER a[price > 20.0] PARTITION BY [name] "
    "WITHIN 3000 [stock_time] CONSUME BY PARTITION",
    "SELECT * FROM S WHERE (SELL; BUY as b; SELL) FILTER b[name = 'MSFT'] WITHIN 20 EVENTS",
]


@needs_engine
@pytest.mark.parametrize("text", PEER_QUERIES,
                         ids=["P3", "Q4", "iteration", "consume-any", "consume-partition", "events-window"])
def test_naive_peer_matches_the_automaton_reference(text: str) -> None:
    """The naive peer's explicit runs give the CEs of the CORE paper's ⟦A⟧^ε with the reference's clause handling."""
    from benchmarks.naive import naive_evaluate
    from cer_theory.formalisms.ceql.compile import evaluate_compiled
    from cer_theory.core.events import Event
    from cer_theory.formalisms.ceql.parser import parse

    query = parse(text)
    for seed in (1, 2):
        raw = list(stock_stream(220, seed=seed, mean_gap_ms=40))
        expected = evaluate_compiled(query, [Event.from_dict(e) for e in raw])
        got = naive_evaluate(query, raw)
        assert len(got) == len(set(got)), "the naive peer reported a CE twice"
        by_end: dict[int, set] = {}
        for ce in got:
            by_end.setdefault(ce.end, set()).add(ce)
        assert {j: frozenset(s) for j, s in by_end.items()} == {j: s for j, s in enumerate(expected) if s}


@needs_engine
def test_naive_peer_matches_the_ceql_semantics_on_p3() -> None:
    from benchmarks.naive import naive_evaluate
    from cer_theory.core.events import Event
    from cer_theory.formalisms.ceql.semantics import evaluate
    from cer_theory.formalisms.ceql.parser import parse

    raw = list(stock_stream(90, seed=4, mean_gap_ms=20))
    expected = set().union(*evaluate(parse(SUITE["P3"].text), [Event.from_dict(e) for e in raw]))
    assert expected and set(naive_evaluate(SUITE["P3"].text, raw)) == expected


# ---------------------------------------------------------------------------------------------- the harness


@needs_engine
def test_harness_end_to_end_ours_and_naive_agree(tmp_path) -> None:
    from benchmarks.run import main

    out = tmp_path / "results.json"
    assert main(["--events", "2000", "--runs", "1", "--queries", "P3", "--engines", "ours,naive",
                 "--out", str(out), "--profile", "none"]) == 0
    report = json.loads(out.read_text())
    assert set(report) >= {"meta", "queries", "results", "targets", "outputs_agree"}
    assert report["meta"]["events"] == 2000 and report["queries"]["P3"]["text"] == SUITE["P3"].text
    row = report["results"]["P3"]
    for engine in ("ours", "naive"):
        s = row[engine]
        assert "error" not in s, s
        assert s["events"] == 2000 and not s["stopped_early"] and s["outputs_consistent"]
        assert s["events_per_s"] > 0 and math.isfinite(s["events_per_s"])
        assert s["peak_rss_mb"] >= s["baseline_rss_mb"] > 0 and s["rss_growth_curve"][-1][0] == 2000
    assert row["ours"]["outputs"] == row["naive"]["outputs"] > 0
    assert report["outputs_agree"]["P3"].startswith("same output count")
    assert all(t["met"] in (True, False, None) for t in report["targets"])
    md = out.with_suffix(".md").read_text()
    assert "| P3 | 2,000 |" in md and "## Targets" in md


# ---------------------------------------------------------------------------------------------- timing fairness

FAKE_PYCER = Path(__file__).resolve().parents[1] / "conformance" / "fake_pycer"
COST = 2e-5
"""Seconds per event the fake engines take (a known cost: 0.2 s on 10,000 events)."""


@pytest.fixture
def slow_sampling(monkeypatch):
    """Sampling the RSS takes 100 ms (a pause of the harness, not engine work: it must never be timed). With
    20 samples that is 2 s, far above the slack the tests allow a loaded machine (0.8 s)."""
    import benchmarks.worker as worker

    true_rss = worker.rss_mb

    def slow() -> float:
        time.sleep(0.1)
        return true_rss()

    monkeypatch.setattr(worker, "rss_mb", slow)
    return worker


def _config(engine: str, events: int = 10_000) -> dict:
    return {"engine": engine, "query": "P3", "text": SUITE["P3"].text, "events": events, "seed": 0,
            "chunk": 500, "sample_every": 500, "time_budget": None, "input": "native"}


def test_pycer_is_timed_on_one_send_events_without_the_harness_pauses(slow_sampling, monkeypatch) -> None:
    """A fake pycer whose evaluation takes COST per event in a background thread, as CORE's server does: its
    measured time is that cost, not that cost plus 20 RSS samples of 100 ms (the old chunked feed counted such
    pauses against pycer while subtracting ours')."""
    monkeypatch.syspath_prepend(str(FAKE_PYCER))
    monkeypatch.setenv("FAKE_PYCER", "cost")
    monkeypatch.setenv("FAKE_PYCER_COST", str(COST))
    monkeypatch.delitem(sys.modules, "pycer", raising=False)
    result = slow_sampling._pycer_run(_config("pycer"))
    known = COST * 10_000
    assert result["events"] == 10_000 and result["outputs"] == 0
    assert known * 0.95 <= result["seconds"] < known + 0.8, result


def test_ours_is_timed_without_the_harness_pauses_alike(slow_sampling) -> None:
    """The same known cost read through the Feed, as ours and naive read the stream: the pauses (making,
    converting and sampling the chunks) are subtracted, so both engines are timed on their work alone."""
    def evaluate(feed) -> int:
        count = 0
        for piece in feed.chunks():
            time.sleep(COST * len(piece))
            count += len(piece)
        return count

    source = stock_stream(10_000, 0)
    result = slow_sampling._measure(_config("ours"), source, None, 0.0, {}, evaluate)
    known = COST * 10_000
    assert result["events"] == 10_000 and result["paused_seconds"] >= 2.0  # the 20 slow samples happened
    assert known * 0.95 <= result["seconds"] < known + 0.8, result


def test_pycer_run_refuses_output_that_is_not_complex_events(monkeypatch) -> None:
    """A query CORE refuses answers "Exception: Invalid argument": never a count of one complex event."""
    import benchmarks.worker as worker

    monkeypatch.syspath_prepend(str(FAKE_PYCER))
    monkeypatch.setenv("FAKE_PYCER", "")
    monkeypatch.delitem(sys.modules, "pycer", raising=False)
    config = {**_config("pycer", 50), "text": "SELECT * FROM S WHERE BUY FILTER BUY[name IN {'MSFT'}]"}
    with pytest.raises(SystemExit, match="not a complex event: 'Exception: Invalid argument'"):
        worker._pycer_run(config)


# ---------------------------------------------------------------------------------------------- paired runs


@needs_engine
def test_paired_runs_time_both_checkouts_on_the_same_stream(tmp_path) -> None:
    from benchmarks import paired
    from cer_theory.engines.core import Engine

    repo = Path(__file__).resolve().parents[2]
    out = tmp_path / "paired.json"
    assert paired.main(["--baseline", str(repo), "--events", "3000", "--runs", "2", "--queries", "P3",
                        "--paths", "Arrow,Event", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    expected = sum(1 for _ in Engine(SUITE["P3"].text).process(list(stock_stream(3000, 0))))
    assert expected > 0
    for path in ("Arrow", "Event"):
        found = report["results"]["P3"][path]
        assert found["outputs"] == expected
        assert found["packages"]["candidate"] == found["packages"]["baseline"] == [
            str(repo / "cer_theory" / "__init__.py")]
    assert "| P3 | Arrow |" in out.with_suffix(".md").read_text()


@needs_engine
def test_paired_runs_import_each_checkout_in_its_own_children(tmp_path) -> None:
    """Run as a command (no cer_theory in the parent): each side's children import their own checkout."""
    import shutil
    import subprocess

    repo = Path(__file__).resolve().parents[2]
    other = tmp_path / "other"
    shutil.copytree(repo / "cer_theory", other / "cer_theory", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "paired.json"
    done = subprocess.run([sys.executable, "-m", "benchmarks.paired", "--baseline", str(other), "--events", "2000",
                           "--runs", "1", "--queries", "P3", "--paths", "dicts", "--out", str(out)],
                          cwd=repo, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    found = json.loads(out.read_text())["results"]["P3"]["dicts"]
    assert found["packages"] == {"candidate": [str(repo / "cer_theory" / "__init__.py")],
                                 "baseline": [str(other / "cer_theory" / "__init__.py")]}
    assert found["outputs"] > 0


def test_paired_runs_refuse_what_cannot_be_compared(tmp_path, capsys) -> None:
    from benchmarks import paired

    assert paired.main(["--baseline", str(tmp_path), "--out", str(tmp_path / "x.json")]) == 2
    assert "no cer_theory package there" in capsys.readouterr().err
    repo = str(Path(__file__).resolve().parents[2])
    assert paired.main(["--baseline", repo, "--runs", "0", "--out", str(tmp_path / "x.json")]) == 2
    assert "at least 1" in capsys.readouterr().err
    assert paired.main(["--baseline", repo, "--out", str(tmp_path / "x.md")]) == 2
    assert "is a .json file" in capsys.readouterr().err
    run = {"seconds": 1.0, "cpu_seconds": 1.0, "outputs": 5, "package": "x"}
    with pytest.raises(paired.Refused, match="disagree"):
        paired.compare({"candidate": [run], "baseline": [{**run, "outputs": 4}]}, 10, ("candidate", "baseline"))
    with pytest.raises(paired.Refused, match="baseline: ValueError"):
        paired.compare({"candidate": [run], "baseline": [{"error": "ValueError: boom"}]}, 10,
                       ("candidate", "baseline"))


@needs_engine
def test_paired_runs_refuse_a_checkout_that_is_not_the_one_imported(tmp_path, capsys) -> None:
    """A child that would time another copy of the package than the one named is an error, not a rate (here
    the test process has imported this checkout already, so a second one cannot be loaded into its children)."""
    from benchmarks import paired

    other = tmp_path / "other"
    (other / "cer_theory").mkdir(parents=True)
    (other / "cer_theory" / "__init__.py").write_text("")
    assert paired.main(["--baseline", str(other), "--events", "500", "--runs", "1", "--queries", "P3",
                        "--paths", "dicts", "--out", str(tmp_path / "x.json")]) == 1
    assert "not the checkout" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_paired_runs_give_the_median_of_the_per_pair_cpu_ratios() -> None:
    from benchmarks import paired

    a = [{"seconds": 2.0, "cpu_seconds": c, "outputs": 1, "package": "x"} for c in (1.0, 1.0, 4.0)]
    b = [{"seconds": 1.0, "cpu_seconds": c, "outputs": 1, "package": "x"} for c in (2.0, 1.0, 2.0)]
    found = paired.compare({"candidate": a, "baseline": b}, 10, ("candidate", "baseline"))
    assert found["ratio"]["median"] == 0.5  # wall: every pair 1 s against 2 s
    assert found["cpu_ratio"] == {"median": 1.0, "min": 0.5, "max": 2.0}  # CPU: 2/1, 1/1, 2/4 (rates invert)


# ---------------------------------------------------------------------------------------------- acceptance


def _ingest_report(events: int, rates: dict[str, dict[str, float]], load: float) -> dict:
    results = {q: {p: {"events_per_s": r, "cpu_events_per_s": r, "peak_rss_mb": None, "outputs": [0], "errors": []}
                   for p, r in paths.items()} for q, paths in rates.items()}
    return {"meta": {"command": "x", "date": "d", "events": events, "runs": 1, "pycer": "p",
                     "load_before": [load], "load_after": [load]}, "results": results}


def test_acceptance_states_each_target_met_or_missed_at_its_length() -> None:
    """Issue 39's targets: the engine at 2× pycer; `run` at 1× pycer below 1M events and 1.5× from 1M; dicts at
    0.9× the Event path; DataFrame and Arrow at 1×. A figure on either side of each bound."""
    from benchmarks import acceptance

    rates = {"P3": {"pycer": 100.0, "Event": 200.0, "run jsonl": 120.0, "run csv": 99.0, "dicts": 179.0,
                    "DataFrame": 200.0, "Arrow": 150.0}}
    small = {(t["path"], t["met"]) for t in acceptance.checked(_ingest_report(300_000, rates, 0.5))}
    assert small == {("Event", True), ("run jsonl", True), ("run csv", False), ("dicts", False),
                     ("DataFrame", True), ("Arrow", False)}
    large = {(t["path"], t["met"]) for t in acceptance.checked(_ingest_report(3_000_000, rates, 0.5))}
    assert ("run jsonl", False) in large  # 1.2× pycer: enough at 300k, not from 1M on


def test_acceptance_marks_figures_from_a_loaded_machine() -> None:
    from benchmarks import acceptance

    at = _ingest_report(300_000, {"P3": {"pycer": 100.0, "Event": 250.0}}, 4.0)
    report = {"meta": {"command": "c", "date": "d", "commit": "abc", "load_before": [4.0], "load_after": [4.0],
                       "loaded": True},
              "lengths": {"300000": {**at, "targets": acceptance.checked(at)}},
              "start_up": {"seconds": 0.3, "runs": [0.3], "imports_seconds": 0.2, "target": 0.2, "met": False}}
    text = acceptance.render(report)
    assert "**Taken on a loaded machine**" in text
    assert "| P3 | Event | pycer | 2.50 | ≥ 2.0: met |" in text
    assert "≤ 0.2 s: MISSED" in text
    report["meta"]["loaded"] = False
    assert "loaded machine" not in acceptance.render(report)
