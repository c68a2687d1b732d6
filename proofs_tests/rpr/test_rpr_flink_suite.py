"""The benchmark's MATCH_RECOGNIZE queries (benchmarks/flink_suite.py) run by Apache Flink through the benchmark's
own harness (benchmarks/worker.py: the stock stream written as its CSV file, one table environment for every
job) give exactly the matches of the reference semantics of row pattern recognition: so the Flink peer's counts
are those of the queries the suite states, and its semantics notes are about the queries, not about Flink.

CI installs ``cer_theory[flink]`` for this file (``.ci/run``); without PyFlink or Java it is skipped."""

from __future__ import annotations

import sys
from collections import Counter
from functools import partial
from pathlib import Path

import pytest

pytest.importorskip("pyflink")

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/ is a top-level folder, not installed

from benchmarks.flink_reference import rpr_events, rpr_spans, stock_rows  # noqa: E402
from benchmarks.flink_suite import RPR_SUITE, flink_select  # noqa: E402
from benchmarks.worker import FlinkTables, write_stock_csv  # noqa: E402
from cer_theory.conformance.flink import missing_requirements  # noqa: E402

if missing_requirements() is not None:  # pragma: no cover - pyflink without java
    pytest.skip(missing_requirements(), allow_module_level=True)

SEED, START, EVENTS = 0, 26_250, 500
"""Five hundred events (≈50 s) from the middle of the stream, where every query of the suite has a match."""


@pytest.fixture(scope="module")
def flink_spans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Counter]:
    """Every suite query's matches as Flink gives them, (first_id, last_id) as a multiset: one environment, one
    job per query, over one file."""
    folder = write_stock_csv(str(tmp_path_factory.mktemp("stock")), stock_rows(START, EVENTS, SEED))
    tables = FlinkTables()
    # ONE ROW PER MATCH: the partition columns, then the measures first_id and last_id
    return {name: Counter(row[-2:] for row in tables.rows(partial(flink_select, q), folder))
            for name, q in RPR_SUITE.items()}


@pytest.mark.parametrize("name", list(RPR_SUITE))
def test_flink_gives_the_reference_matches_of_the_suite_query(flink_spans: dict[str, Counter], name: str) -> None:
    expected = rpr_spans(name, rpr_events(stock_rows(START, EVENTS, SEED)))
    got = flink_spans[name]
    assert got == expected, (f"{name}: only Flink {sorted((got - expected).elements())}, only the reference "
                             f"{sorted((expected - got).elements())}")
    if not name.endswith("'"):
        assert expected, f"{name} has no match on {EVENTS} events: the comparison would be empty"
