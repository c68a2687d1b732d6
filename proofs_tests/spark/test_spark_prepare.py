"""The prepare phase of `cer_theory.spark.run` (docs/decisions.md D142, D143): positions of a Parquet input from
its footers (no Spark job), and one pass that checks the rows, counts them per key and finds the runs the
out-of-order rule (D30, D129) needs. Each shortcut is compared with the path it replaces or with the definition,
and the number of Spark jobs is counted."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.spark import BadRowsError, read_events, run
from cer_theory.spark.batch import _counts
from cer_theory.spark.positions import file_index, metadata_index, stream_positions
from cer_theory.spark.validate import check_rows, summarize_rows
from cer_theory.testing.oracles import late_rows

pytestmark = pytest.mark.spark


def _write_parquet(folder: Path, rows: list[dict], cuts: list[int], row_group: int) -> None:
    """``rows`` cut into files part-0, part-1, … (their path order is the stream order)."""
    schema = pa.schema([("type", pa.string()), ("i", pa.int64()), ("k", pa.int64()), ("t", pa.int64())])
    for n, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(rows)])):
        pq.write_table(pa.Table.from_pylist(rows[a:b], schema=schema), folder / f"part-{n}.parquet",
                       row_group_size=row_group)


class _SmallSplits:
    """Spark reads each file in several splits (and several files in one), as on a big input."""

    def __init__(self, spark) -> None:
        self.spark = spark

    def __enter__(self) -> None:
        self.old = {k: self.spark.conf.get(k) for k in ("spark.sql.files.maxPartitionBytes",
                                                        "spark.sql.files.openCostInBytes")}
        self.spark.conf.set("spark.sql.files.maxPartitionBytes", "1500")
        self.spark.conf.set("spark.sql.files.openCostInBytes", "0")

    def __exit__(self, *exc: object) -> None:
        for k, v in self.old.items():
            self.spark.conf.set(k, v)


def test_parquet_positions_from_the_footers_equal_the_counting_path(spark, tmp_path):
    """Three files (one of a single row), several row groups each, read in several splits."""
    rng = random.Random(3)
    n = 130
    rows = [{"type": "A", "i": i, "k": rng.randint(0, 3), "t": i} for i in range(n)]
    folder = tmp_path
    _write_parquet(folder, rows, [50, 51], row_group=7)
    with _SmallSplits(spark):
        df = read_events(spark, str(folder))
        fast = metadata_index(df, "p")
        assert fast is not None, "a plain Parquet scan takes its positions from the footers"
        by_footers = dict(fast.select("i", "p").collect())
        by_counting = dict(file_index(df, "p").select("i", "p").collect())
        assert by_footers == by_counting == {i: i for i in range(n)}
        kept = df.filter("k != 0")  # some rows gone: the footers no longer count the rows, a job does
        assert metadata_index(kept, "p") is None
        survivors = [r["i"] for r in rows if r["k"] != 0]
        assert dict(stream_positions(kept, None, "p").select("i", "p").collect()) == \
            {i: p for p, i in enumerate(survivors)}  # dense: the filtered stream's own positions


def test_positions_of_a_filtered_json_input_are_dense(spark, tmp_path):
    """A filter after ``read_events`` leaves gaps in a split's ids; the positions are still 0, 1, 2, … of the
    rows that remain, in file order (JSON Lines read in several splits)."""
    rng = random.Random(5)
    rows = [{"type": "A", "i": i, "k": rng.randint(0, 2), "t": i} for i in range(90)]
    for n, (a, b) in enumerate([(0, 40), (40, 90)]):
        (tmp_path / f"part-{n}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows[a:b]))
    with _SmallSplits(spark):
        kept = read_events(spark, str(tmp_path), format="json").filter("k != 0")
        survivors = [r["i"] for r in rows if r["k"] != 0]
        assert dict(stream_positions(kept, None, "p").select("i", "p").collect()) == \
            {i: p for p, i in enumerate(survivors)}


@settings(max_examples=2, deadline=None)  # each example is a few Spark jobs
@given(seed=st.integers(0, 2**16), files=st.integers(1, 3))
def test_late_rows_in_parquet_splits_are_the_definitions(spark, tmp_path_factory, seed, files):
    """Rule 4 over Parquet files read in many splits: the runs come from the one summary pass, and the late
    rows (none, or some inside a run, or some at a run's start) are those of the running maximum."""
    rng = random.Random(seed)
    stamps: list[int] = []
    for _ in range(rng.randint(5, 80)):
        stamps.append(max(0, (stamps[-1] if stamps else 0) + rng.choice((0, 1, 2, 2, 3, -4))))
    rows = [{"type": "A", "i": i, "k": i % 3, "t": t} for i, t in enumerate(stamps)]
    folder = tmp_path_factory.mktemp("late_pq")
    cuts = sorted(rng.sample(range(1, len(rows)), min(files - 1, len(rows) - 1)))
    _write_parquet(folder, rows, cuts, row_group=rng.choice((4, 9)))
    with _SmallSplits(spark):
        result = run(spark, read_events(spark, str(folder)), "SELECT * WHERE A ; A WITHIN 2 [t]",
                     on_bad_rows="report", with_events=False)
        late = sorted(r.position for r in result.rejected.collect())
    assert late == late_rows(stamps), (stamps, cuts)
    assert (result.rows, result.bad_rows) == (len(stamps), len(late))
    result.close()


def test_the_summary_counts_are_the_aggregates_counts(spark):
    """Rows, bad rows, rows in no partition and good events per key from the one pass = the groupBy aggregate,
    with NULL and NaN keys; above ``max_keys`` keys the sizes are not collected."""
    rng = random.Random(5)
    events = [{"type": rng.choice(["A", "A", "B", "C"]), "x": rng.choice([1.0, 2.5, float("nan"), None]),
               "t": i} for i in range(300)]
    df = spark.createDataFrame([(e["type"], e["x"], e["t"]) for e in events],
                               "type string, x double, t long").repartition(3)
    rows = stream_positions(df, None, "__row")
    checked = check_rows(rows, attributes=["x", "t"], kinds={"A": {"x": "num", "t": "num"},
                                                             "B": {"x": "num", "t": "num"}},
                         time_attribute="t", partition_attributes=["x"])
    expected = _counts(checked, ["x"])
    previous = spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "16")  # many batches per partition
    try:
        summary = summarize_rows(checked, "t", ["x"], max_keys=10)
        capped = summarize_rows(checked, "t", ["x"], max_keys=2)
    finally:
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", previous)
    assert (summary.total, summary.bad, summary.unpartitioned) == expected[:3]
    assert summary.bad == sum(e["type"] == "C" for e in events) > 0 and summary.unpartitioned > 0

    def canonical(sizes: dict) -> Counter:
        return Counter({tuple("nan" if v != v else v for v in key): n for key, n in sizes.items()})

    assert expected[3] is not None and summary.sizes is not None
    assert canonical(summary.sizes) == canonical(expected[3]) and len(summary.sizes) == 3  # 1.0, 2.5, NaN
    assert capped.sizes is None and (capped.total, capped.bad) == expected[:2]


def _job_count(spark, action) -> int:
    """Spark jobs started by ``action`` (counted by the status tracker under a job group of our own)."""
    context = spark.sparkContext
    group = f"count-{random.random()}"
    context.setJobGroup(group, "counting the jobs of run()")
    try:
        action()
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    return len(context.statusTracker().getJobIdsForGroup(group))


def test_prepare_is_one_spark_job_on_parquet_in_stream_order(spark, tmp_path):
    """Positions from the footers, then one pass (checks, counts, runs); no cache is filled. JSON Lines needs
    more jobs: its positions are counted (and cached, as the counted splits must be read again)."""
    rows = [{"type": "AB"[i % 2], "i": i, "k": i % 3, "t": i // 3} for i in range(400)]
    _write_parquet(tmp_path, rows, [150, 300], row_group=50)
    (tmp_path / "json").mkdir()
    (tmp_path / "json" / "s.jsonl").write_text("".join(
        f'{{"type": "{r["type"]}", "i": {r["i"]}, "k": {r["k"]}, "t": {r["t"]}}}\n' for r in rows))
    query = "SELECT * WHERE A ; B PARTITION BY [k] WITHIN 3 [t]"
    results = []
    jobs = []
    for source in (str(tmp_path), str(tmp_path / "json")):
        df = read_events(spark, source)
        jobs.append(_job_count(spark, lambda: results.append(run(spark, df, query, with_events=False))))
        assert results[-1].rows == 400
    assert jobs[0] == 1 < jobs[1], jobs
    assert len(results[0].cached) == 0 and len(results[1].cached) == 1
    expected = sorted(tuple(r.positions) for r in results[1].matches.collect())
    assert sorted(tuple(r.positions) for r in results[0].matches.collect()) == expected and expected


def test_a_late_row_deep_in_parquet_fails_naming_its_position_and_field(spark, tmp_path, capsys):
    """Deep in the third file, inside a row group: the error names the input row and the field, from the API
    and from the command line (exit 2)."""
    from cer_theory.cli import main

    rows = [{"type": "AB"[i % 2], "i": i, "k": i % 4, "t": i} for i in range(900)]
    rows[777]["t"] = 700  # below 776
    _write_parquet(tmp_path, rows, [300, 600], row_group=64)
    query = "SELECT * WHERE A ; B PARTITION BY [k] WITHIN 3 [t]"
    with _SmallSplits(spark), pytest.raises(BadRowsError) as caught:
        run(spark, read_events(spark, str(tmp_path)), query)
    assert caught.value.total == 1 and caught.value.shown[0][:2] == (777, "t")
    code = main(["spark", "--progress", "0", "--query", query, "--input", str(tmp_path), "--output",
                 str(tmp_path.parent / f"{tmp_path.name}-out")])
    err = capsys.readouterr().err
    assert code == 2 and "position 777, field 't'" in err and "Traceback" not in err
