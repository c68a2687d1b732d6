"""The Flink peer of the benchmark (benchmarks/flink_suite.py, the ``flink`` engine of benchmarks/run.py and
benchmarks/worker.py), without Flink: PyFlink's table API is faked (``fake_pyflink``) with known costs, so what
each clock covers, which counts are compared, and how a failing job is reported can be checked on any machine.
Flink itself runs the suite's queries in ``proofs_tests/rpr/test_rpr_flink_suite.py``."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/ is a top-level folder, not installed

from benchmarks.flink_reference import rpr_events, rpr_spans, stock_rows  # noqa: E402
from benchmarks.flink_suite import ONE_PER_START, RPR_SUITE, flink_select  # noqa: E402
from benchmarks.suite import SUITE  # noqa: E402
from cer_theory.core.events import Event  # noqa: E402
from cer_theory.engines.core.engine import Engine  # noqa: E402
from cer_theory.formalisms.rpr import format, parse  # noqa: E402
from cer_theory.formalisms.rpr.ast import Skip, variables  # noqa: E402

FAKE_PYFLINK = Path(__file__).resolve().parent / "fake_pyflink"

JVM, COLD, FIXED, PER_ROW, N = 1.0, 0.8, 0.6, 1e-4, 6_000
"""The fake's costs in seconds (environment, the first job's extra, a job, a row of a job's file) and the stream
length: the stream job is 1.2 s, of which 0.6 s is the stream's."""
SLACK = 0.5
"""What a loaded machine may add to a sleep; smaller than each cost the clocks must tell apart."""


@pytest.fixture
def fake_pyflink(monkeypatch: pytest.MonkeyPatch) -> Iterator[type]:
    """PyFlink faked in this process with the known costs; yields the fake's ``TableEnvironment`` class."""
    monkeypatch.syspath_prepend(str(FAKE_PYFLINK))
    for name in ("pyflink", "pyflink.table"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    for name, value in (("FAKE_PYFLINK_JVM", JVM), ("FAKE_PYFLINK_COLD", COLD), ("FAKE_PYFLINK_FIXED", FIXED),
                        ("FAKE_PYFLINK_PER_ROW", PER_ROW)):
        monkeypatch.setenv(name, str(value))
    monkeypatch.delenv("FAKE_PYFLINK", raising=False)
    from pyflink.table import TableEnvironment

    TableEnvironment.statements.clear()
    yield TableEnvironment
    for name in ("pyflink", "pyflink.table"):
        sys.modules.pop(name, None)


def _config(query: str = "P3", events: int = N) -> dict:
    return {"engine": "flink", "query": query, "text": RPR_SUITE[query].clause, "events": events, "seed": 0,
            "chunk": 2_000, "sample_every": 2_000, "time_budget": None, "profile": None, "input": "native"}


# ---------------------------------------------------------------------------------------------- the clocks


def test_flink_clocks_separate_the_jvm_start_the_fixed_cost_and_the_stream(fake_pyflink: type) -> None:
    """The JVM start is measured apart and counted in no rate; the first (cold) job is measured apart too; the
    fixed cost of a job is the median of warm one-event jobs, with their spread; ``seconds`` is the whole job's
    time minus it (the stream's own cost); ``events_per_s_with_setup`` counts the fixed cost back in."""
    from benchmarks.worker import _flink_run

    result = _flink_run(_config())
    info = result["info"]
    assert JVM <= info["jvm_start_seconds"] < JVM + SLACK
    assert FIXED <= result["setup_seconds"] < FIXED + SLACK < FIXED + COLD  # a warm job's, not the cold one's
    assert result["setup_seconds"] == pytest.approx(info["fixed_job_seconds"], abs=1e-3)
    assert FIXED + COLD <= info["first_job_seconds"]
    assert 0 <= info["fixed_job_spread_seconds"] < SLACK
    stream = PER_ROW * N
    assert 0.8 * stream <= result["seconds"] < stream + SLACK, result  # the fixed cost is out, once
    assert FIXED + stream <= info["job_seconds"] < FIXED + stream + SLACK
    assert result["events"] == N
    assert result["events_per_s"] == pytest.approx(N / result["seconds"], rel=1e-3)
    with_setup = N / (result["seconds"] + result["setup_seconds"])
    assert result["events_per_s_with_setup"] == pytest.approx(with_setup, rel=1e-3)
    assert result["events_per_s_with_setup"] < result["events_per_s"]
    # the JVM start (1.0 s) is in neither rate: with it, N / rate would exceed FIXED + stream + SLACK
    assert N / result["events_per_s_with_setup"] < FIXED + stream + SLACK
    assert result["cpu_seconds"] is None and result["peak_growth_mb"] is None  # the JVM's are not measured
    assert result["peak_rss_mb"] is None and result["baseline_rss_mb"] is None  # unknown, not 0 MiB
    assert result["outputs"] == N // 10  # the fake's one row per ten


def test_flink_runs_the_suites_statement_on_one_event_cold_then_warm_then_on_the_stream(fake_pyflink: type) -> None:
    from benchmarks.worker import WARM_JOBS, _flink_run

    _flink_run(_config("Q3"))  # (N events: the stream job 0.6 s longer than a one-event job, whatever the load)
    selects = [s for s in fake_pyflink.statements if s.startswith("SELECT")]
    tables = [s.split()[3] for s in selects]
    jobs = 1 + WARM_JOBS + 1
    assert selects == [flink_select(RPR_SUITE["Q3"], t) for t in tables] and len(set(tables)) == jobs
    creates = [s for s in fake_pyflink.statements if s.startswith("CREATE TABLE")]
    folders = [c.split("'path' = '")[1].split("'")[0] for c in creates]
    assert [os.path.basename(f) for f in folders] == ["one"] * (1 + WARM_JOBS) + ["stream"]
    assert sum(s.startswith("DROP TABLE") for s in fake_pyflink.statements) == jobs  # each job's table dropped


# ---------------------------------------------------------------------------------------------- errors


def test_a_failing_flink_job_raises_out_of_the_worker(fake_pyflink: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """The job over the stream fails after the fixed-cost jobs succeeded: the worker must not turn it into a
    count (of zero or of anything); it raises, and the run's process exits with the error."""
    from benchmarks.worker import _flink_run
    from pyflink.table import Py4JJavaError

    monkeypatch.setenv("FAKE_PYFLINK", "fail")
    with pytest.raises(Py4JJavaError, match="fake failure of the job"):
        _flink_run(_config(events=200))


def _fake_flink_venv(tmp_path: Path) -> Path:
    """A stand-in for ``.venv-flink``: an interpreter that finds the fake PyFlink first and an ``apache-flink``
    distribution (for the harness's version probe)."""
    dist = tmp_path / "site" / "apache_flink-0.0.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: apache-flink\nVersion: 0.0.0\n")
    python = tmp_path / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{FAKE_PYFLINK}:{dist.parent}${{PYTHONPATH:+:$PYTHONPATH}}" '
                      f'exec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    return python.parent.parent


def _run_harness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> tuple[dict, str]:
    import benchmarks.run as run

    venv = tmp_path / "venv" if (tmp_path / "venv").exists() else _fake_flink_venv(tmp_path)
    real_which = run.shutil.which
    monkeypatch.setattr(run.shutil, "which", lambda cmd, *a, **k: "/usr/bin/java" if cmd == "java"
                        else real_which(cmd, *a, **k))
    out = tmp_path / f"{name}.json"
    assert run.main(["--events", "600", "--runs", "1", "--queries", "P3,P3'", "--engines", "ours,flink",
                     "--flink-venv", str(venv), "--out", str(out), "--profile", "none", "--timeout", "120"]) == 0
    return json.loads(out.read_text()), out.with_suffix(".md").read_text()


def test_the_harness_reports_a_failing_flink_job_as_an_engine_error(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the real worker processes: Flink's failure is the run's error, shown as failed, and no count of
    Flink's enters the comparison."""
    monkeypatch.setenv("FAKE_PYFLINK", "fail")
    report, md = _run_harness(tmp_path, monkeypatch, "fail")
    assert report["meta"]["flink"].startswith("apache-flink 0.0.0")
    for q in ("P3", "P3'"):
        flink = report["results"][q]["flink"]
        assert "fake failure of the job" in flink["error"] and "outputs" not in flink, flink
        assert "flink" not in report["outputs_agree"].get(q, ""), report["outputs_agree"]
        assert f"| {q} | 600 |" in md
    assert md.count("| failed | – | – |") == 2


def test_the_harness_compares_flinks_counts_only_where_the_semantics_coincide(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """P3 (one match per start row against every combination): Flink's count is reported apart with the reason;
    P3′ (no output under either semantics): compared, and a difference is called one."""
    monkeypatch.setenv("FAKE_PYFLINK_EVERY", "10")  # 60 rows on 600 events, where P3′ has none
    monkeypatch.setenv("FAKE_PYFLINK_PER_ROW", "5e-4")  # the stream job takes 0.3 s more than a one-event job
    report, md = _run_harness(tmp_path, monkeypatch, "ok")
    agree = report["outputs_agree"]
    assert agree["P3"] == f"nothing to compare; flink 60 not compared: {ONE_PER_START}"
    assert report["results"]["P3"]["ours"]["outputs"] > 60  # P3 has output on 600 events
    assert agree["P3'"] == "DIFFERENT output counts: ours 0, flink 60"
    assert report["results"]["P3"]["flink"]["setup_seconds"] is not None
    assert "## Flink: fixed costs, rates with setup counted, semantics" in md


# ---------------------------------------------------------------------------------------------- the suite


def test_every_suite_query_parses_as_a_row_pattern() -> None:
    """Each MATCH_RECOGNIZE clause is in the fragment of the reference semantics (cer_theory.formalisms.rpr),
    prints back to itself, and keeps its CEQL query's window, partition and steps."""

    assert set(RPR_SUITE) == {"P3", "P6", "P9", "P12", "P3'", "P6'", "P9'", "P12'", "Q1", "Q2", "Q3", "Q4", "Q5",
                              "Q6", "Q7"}
    for name, q in RPR_SUITE.items():
        query = parse(q.clause)
        assert parse(format(query)) == query, name
        ceql = SUITE[name].text
        (window_ms,) = re.findall(r"WITHIN (\d+) \[stock_time\]", ceql)
        assert query.order_by == "ts" and query.within * 1000 == int(window_ms), name
        consuming = "CONSUME BY ANY" in ceql
        assert consuming == (name in ("Q3", "Q6"))
        assert query.partition_by == (("volume",) if consuming else ()), name
        assert query.skip == Skip("PAST LAST ROW" if consuming else "TO NEXT ROW"), name
        steps = [v for v in variables(query.pattern) if not re.fullmatch(r"G\d+", v)]
        assert len(steps) == len(set(steps)) == len(re.findall(r"\bas \w+", ceql)), name
        assert flink_select(q, "t") == f"SELECT * FROM t {q.clause}".replace("type = ", "`type` = ")
    subtype = dataclasses.replace(RPR_SUITE["P3"], clause=RPR_SUITE["P3"].clause.replace("type = ", "subtype = "))
    assert "`" not in flink_select(subtype, "t")  # only the column named type is quoted


START_ROW_QUERIES = [name for name, q in RPR_SUITE.items() if "the start rows agree" in q.semantics]
SLICES = ((0, 0, 700), (1, 0, 700), (0, 26_250, 500))
"""(seed, first event, events): the stream's first 70 s for two seeds, and a slice where prices have moved off
their levels (the price-filtered queries match there)."""


@pytest.mark.parametrize("name", START_ROW_QUERIES)
def test_the_match_recognize_form_starts_where_ceql_has_a_complex_event(name: str) -> None:
    """The suite's claim beside these rows: a row starts a match of the MATCH_RECOGNIZE form exactly when it is
    the first event of some complex event of the CEQL query, with one match per start row (so Flink's count is at
    most ours). Checked on :data:`SLICES` of the stock stream."""
    found = 0
    for seed, start, n in SLICES:
        events = rpr_events(stock_rows(start, n, seed))
        spans = rpr_spans(name, events)
        ces = list(Engine(SUITE[name].text).process(events))
        starts = {events[min(m.positions)]["id"] for m in ces}
        assert set(s for s, _ in spans) == starts, (name, seed, start)
        assert all(c == 1 for c in Counter(s for s, _ in spans).values())
        assert sum(spans.values()) <= len(ces)
        found += len(spans)
    assert found, name  # the claim is not checked on empty outputs only


class _TablesFasterOnTheStream:
    """A job over one event takes 0.3 s, the job over the stream 0.1 s: as a short stream does when the fixed
    cost varies more than the stream costs."""

    def rows(self, select: Callable[[str], str], folder: str) -> list[tuple]:
        time.sleep(0.3 if os.path.basename(folder) == "one" else 0.1)
        return []


def test_a_stream_cheaper_than_the_fixed_costs_noise_is_refused_not_rated() -> None:
    """A stream job no longer than the one-event job has no measurable cost of its own: the run fails with the
    reason, where the subtraction would have reported 10¹² events/s."""
    from benchmarks.worker import _flink_run

    with pytest.raises(SystemExit, match="within the fixed cost's noise"):
        _flink_run(_config(events=200), open_tables=_TablesFasterOnTheStream)


def test_the_partial_match_model_branches_at_each_accepted_row_and_drops_a_completed_start() -> None:
    """P3 (SELL INTC, BUY RIMM, BUY QQQ) on four rows: the start keeps one branch, each RIMM doubles the branches
    that may take it, the QQQ completes a match and SKIP TO NEXT ROW drops the start's partial matches."""
    from benchmarks.flink_reference import live_partial_matches

    rows = [("SELL", "INTC"), ("BUY", "RIMM"), ("BUY", "RIMM"), ("BUY", "QQQ")]
    events = rpr_events([{"type": t, "id": k, "name": n, "volume": 100, "price": 1.0, "stock_time": 1000 * k}
                         for k, (t, n) in enumerate(rows)])
    assert live_partial_matches("P3", events) == [1, 2, 3, 0]
    # a third RIMM 20 s later, past the 10 s window: the start and its branches are dropped (a model without
    # the window would keep 4); a late QQQ would not tell, since completing drops the start as well
    late = [*events[:3], Event.from_dict({**events[2].to_dict(), "id": 3, "stock_time": 20_000, "ts": 20.0})]
    assert live_partial_matches("P3", late) == [1, 2, 3, 0]
    assert live_partial_matches("P3", [*events[:3], Event.from_dict({**late[3].to_dict(), "stock_time": 3_000,
                                                                      "ts": 3.0})]) == [1, 2, 3, 4]
    assert sum(rpr_spans("P3", late).values()) == 0


def _run(events: int, outputs: int) -> dict:
    return {"events": events, "stopped_early": False, "events_per_s": 1000.0, "outputs": outputs,
            "rss_growth_curve": [], "peak_growth_mb": None, "peak_rss_mb": 1.0, "baseline_rss_mb": 1.0}


def test_a_count_over_flinks_capped_stream_is_not_compared() -> None:
    """P12′ has no output under either semantics, but Flink reads only its cap of the stream: its count is
    reported apart, with the length it read, never compared with the whole stream's."""
    from benchmarks.run import _record

    cap = RPR_SUITE["P12'"].max_events
    assert cap is not None and cap < 30_000
    report: dict = {"results": {}, "outputs_agree": {}}
    _record(report, "P12'", 30_000, {"ours": [_run(30_000, 0)], "pycer": [_run(30_000, 0)],
                                     "flink": [_run(cap, 0)]}, ["ours", "pycer", "flink"], {})
    assert report["outputs_agree"]["P12'"] == (f"same output count: ours 0, pycer 0; flink 0 not compared: on its "
                                               f"first {cap:,} events (Flink's cap)")
    _record(report, "P3'", 3_000, {"ours": [_run(3_000, 0)], "flink": [_run(3_000, 5)]}, ["ours", "flink"], {})
    assert report["outputs_agree"]["P3'"] == "DIFFERENT output counts: ours 0, flink 5"


# ---------------------------------------------------------------------------------------------- the report


def test_merge_keeps_other_queries_and_other_engines_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--merge`` adds to a report: the queries not run again stay, and so do the results of the engines not run
    again for a query run again over the same stream; an engine run again replaces its own result only."""
    import benchmarks.run as run

    calls: list[tuple[str, str]] = []

    def worker(python: str, config: dict, *, timeout: float) -> dict:
        calls.append((config["engine"], config["query"]))
        rate = {"ours": 2000.0, "naive": 500.0}[config["engine"]] + len(calls)
        return {**_run(config["events"], 7), "events_per_s": rate}

    monkeypatch.setattr(run, "run_worker", worker)
    out = tmp_path / "r.json"
    common = ["--events", "300", "--runs", "1", "--profile", "none", "--out", str(out)]
    assert run.main([*common, "--queries", "P3,P3'", "--engines", "ours"]) == 0
    first = json.loads(out.read_text())["results"]
    assert run.main([*common, "--queries", "P3", "--engines", "naive", "--merge"]) == 0
    report = json.loads(out.read_text())
    assert set(report["results"]) == {"P3", "P3'"}
    assert report["results"]["P3'"] == first["P3'"]
    assert report["results"]["P3"]["ours"] == first["P3"]["ours"]
    assert report["results"]["P3"]["naive"]["events_per_s"] == 503.0
    assert report["meta"]["engines"] == ["ours", "naive"]
    assert report["outputs_agree"]["P3"] == "same output count: ours 7, naive 7"
    md = out.with_suffix(".md").read_text()
    assert "| P3 | 300 |" in md and "| P3' | 300 |" in md and "ours/naive" in md
    # the same query over another length: the earlier engines' results for it are dropped, not mixed in
    assert run.main(["--events", "200", *common[2:], "--queries", "P3", "--engines", "naive", "--merge"]) == 0
    report = json.loads(out.read_text())
    assert "ours" not in report["results"]["P3"] and report["results"]["P3'"] == first["P3'"]


def test_the_table_marks_a_capped_engine_and_a_rate_within_the_fixed_costs_noise() -> None:
    """A Flink run over its cap's prefix gets ``†`` and no ratio; a rate whose stream share is within a few spreads
    of the fixed cost gets ``~``; a full-length, clear one gets neither and its ratio."""
    from benchmarks.run import NOISE_SPREADS, render_markdown

    def flink(events: int, job: float, fixed: float, spread: float) -> dict:
        info = {"job_seconds": job, "fixed_job_seconds": fixed, "fixed_job_spread_seconds": spread}
        return {**_run(events, 3), "events_per_s": 100.0, "peak_growth_mb": None, "info": info}

    noisy_job = 1.0 + NOISE_SPREADS * 0.1 - 0.01  # a stream share just under NOISE_SPREADS spreads
    results = {"P9": {"events": 30_000, "ours": _run(30_000, 9), "flink": flink(4_000, 20.0, 1.0, 0.1)},
               "Q3": {"events": 30_000, "ours": _run(30_000, 9), "flink": flink(30_000, noisy_job, 1.0, 0.1)},
               "P3": {"events": 30_000, "ours": _run(30_000, 9), "flink": flink(30_000, 20.0, 1.0, 0.1)}}
    meta = {"command": "c", "date": "d", "machine": {}, "load_before": [0], "load_after": [0], "seed": 0,
            "events": 30_000, "runs": 1, "protocol": "p", "engines": ["ours", "flink"], "flink": "f"}
    md = render_markdown({"meta": meta, "results": results, "targets": [], "outputs_agree": {}, "profiles": {}})
    table = md.split("## Targets")[0]  # the main table, not the Flink section
    rows = {line.split(" | ")[0][2:]: line.split(" | ") for line in table.splitlines() if line.startswith("| P")
            or line.startswith("| Q")}
    assert rows["P9"][5] == "0.1 k†" and rows["P9"][6] == "3†" and rows["P9"][-1] == "– |"
    assert rows["Q3"][5] == "0.1 k~" and rows["Q3"][-1] == "10.00× |"
    assert rows["P3"][5] == "0.1 k" and rows["P3"][-1] == "10.00× |"
