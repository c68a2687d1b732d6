"""Smoke tests of the Spark benchmark harness (``benchmarks/spark_bench.py``); the benchmark itself is not a test.

They check what the harness measures is well defined: the Parquet stream is the generator's stream in order, the
report's comparisons (speed-ups, agreement of output counts) are computed from the right rows, and one end-to-end
run on 2,000 events in a subprocess writes a report whose Spark output count is the single-process engine's,
computed here independently. Timings are never asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # benchmarks/ is a top-level folder, not installed

from benchmarks.spark_bench import (  # noqa: E402
    _queries, agreement, config_name, ratios, render_markdown, render_profile, stream_parquet)
from benchmarks.stock import stock_stream  # noqa: E402


def test_stream_parquet_is_the_generator_stream_in_order_and_cached(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    path = stream_parquet(1500, seed=3, cache_dir=tmp_path)
    assert pq.read_table(path).to_pylist() == list(stock_stream(1500, seed=3))
    mtime = path.stat().st_mtime_ns
    assert stream_parquet(1500, seed=3, cache_dir=tmp_path) == path and path.stat().st_mtime_ns == mtime
    assert stream_parquet(1500, seed=4, cache_dir=tmp_path) != path


def test_queries_plan_as_their_names_say() -> None:
    from cer_theory.spark.plan import plan_query
    from cer_theory.formalisms.ceql.parser import parse

    for name, q in _queries().items():
        assert plan_query(parse(q.text)).mode == name


def _summary(rate: float, outputs: int | list) -> dict:
    return {"events": 1000, "events_per_s": rate, "outputs": outputs, "job_s": 1000 / rate}


def test_ratios_and_agreement_use_the_right_rows() -> None:
    masters, outputs = ["local[1]", "local[2]"], ["events", "positions"]
    res = {"engine": _summary(400.0, 7),
           "configs": {config_name("local[1]", "events"): _summary(100.0, 7),
                       config_name("local[2]", "events"): _summary(150.0, 7),
                       config_name("local[1]", "positions"): _summary(200.0, 7),
                       config_name("local[2]", "positions"): _summary(500.0, 7)}}
    lines = ratios(res, masters, outputs)
    assert "events: local[2] / local[1] = 1.50×" in lines
    assert "positions: local[2] / local[1] = 2.50×" in lines
    assert "positions: local[2] / single process = 1.25×" in lines
    assert "events: local[1] / single process = 0.25×" in lines
    same, text = agreement({"single process": res["engine"], **res["configs"]})
    assert same and text.startswith("same output count")
    res["configs"][config_name("local[2]", "events")] = _summary(150.0, 8)
    same, text = agreement({"single process": res["engine"], **res["configs"]})
    assert not same and "DIFFERENT" in text and "local[2] events 8" in text
    # Runs of one configuration that disagree among themselves are a disagreement too.
    same, _ = agreement({"a": _summary(1.0, 7), "b": _summary(1.0, [7, 8])})
    assert not same


@pytest.mark.spark
def test_harness_end_to_end_on_2000_events(tmp_path: Path) -> None:
    from conftest import _spark_available, require

    require(_spark_available(), "pyspark with Java 17")
    from cer_theory.engines.core import Engine

    n = 2000
    out = tmp_path / "results_spark.json"
    env = {**os.environ, "PYTHONPATH": str(REPO), "CER_BENCH_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.spark_bench", "--events", str(n), "--runs", "1", "--masters", "local[1]",
         "--queries", "partitioned", "--outputs", "events", "--no-warmup", "--out", str(out)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    report = json.loads(out.read_text())
    res = report["results"]["partitioned"]
    expected = sum(1 for _ in Engine(_queries()["partitioned"].text).process(stock_stream(n, 0)))
    assert expected > 0
    spark = res["configs"][config_name("local[1]", "events")]
    assert "error" not in spark, spark.get("error")
    assert spark["outputs"] == expected and res["engine"]["outputs"] == expected and res["agree"]
    assert spark["events"] == n and spark["plan"].startswith("partitioned") and spark["tasks"] >= 1
    for key in ("job_s", "prepare_s", "evaluate_s", "startup_s", "jvm_peak_rss_mb", "tree_peak_pss_mb"):
        assert spark[key] > 0, key
    md = out.with_suffix(".md").read_text()
    assert _queries()["partitioned"].text in md and "local[1] events" in md
    assert render_markdown(report) == md


def test_ratios_without_the_fixed_cost_and_the_profile_tables() -> None:
    """The fixed cost of a job is taken off the job time for the second set of ratios; the profile lists run()'s
    phases and the Spark jobs of the median run."""
    slow = {**_summary(100.0, 7), "events": 1000, "job_s": 10.0, "fixed_s": 5.0}
    fast = {**_summary(200.0, 7), "events": 1000, "job_s": 5.0, "fixed_s": 3.0,
            "prepare_s": 1.5, "phases": {"positions": 0.25, "checks and counts": 1.0},
            "spark_jobs": [{"job": 3, "description": "cer_theory: checks and counts", "s": 1.0, "tasks": 2,
                            "executor_s": 1.8, "jvm_cpu_s": 0.5, "name": "collect at x.py:1"}]}
    res = {"engine": _summary(400.0, 7), "configs": {config_name("local[1]", "events"): slow,
                                                     config_name("local[2]", "events"): fast}}
    lines = ratios(res, ["local[1]", "local[2]"], ["events"])
    assert "events: local[2] / local[1] = 2.00×" in lines
    assert "events: local[2] / local[1] without the fixed cost = 2.50×" in lines  # 500/s over 200/s
    assert "events: local[2] / single process without the fixed cost = 1.25×" in lines
    profile = "\n".join(render_profile(res))
    assert "**local[2] events**: prepare 1.50 s = positions 0.25 s, checks and counts 1.00 s" in profile
    assert "| 3 | cer_theory: checks and counts | 1.00 | 2 | 1.80 | 0.50 | collect |" in profile
    assert "local[1] events" not in profile  # no phases recorded: nothing to show
