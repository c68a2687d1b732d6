"""The Spark pipeline gives exactly the single-process engine's complex events (issue: CEQL over DataFrames).

Every test compares :func:`cer_theory.spark.run` with :class:`cer_theory.engines.core.Engine` on the same stream (the
engine is itself checked against the reference CEQL semantics in test_engine.py), for the three plans:
partitioned (one engine per key), sliced (window-overlapping slices) and single, plus the file order of
positions, the slice boundaries, and the bad-row policy.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.engines.core import Engine
from cer_theory.streams.rows import iter_file
from cer_theory.spark import BadRowsError, plan_query, read_events, run
from cer_theory.testing.harness import report

pytestmark = pytest.mark.spark

TYPES = ("A", "B", "C")


def frame(spark, events: list[dict]):
    """The events as a DataFrame in stream order (one column per attribute, NULL where absent)."""
    import pandas as pd

    columns = ["type", "k", "x", "t"]
    rows = pd.DataFrame([{c: e.get(c) for c in columns} for e in events], columns=columns)
    return spark.createDataFrame(rows.astype({"k": "Int64", "x": "Int64", "t": "Int64"}),
                                 "type string, k long, x long, t long")


def engine_output(query: str, events: list[dict]) -> Counter:
    return Counter((m.start, m.end, m.positions) for m in Engine(query).process(events))


def spark_output(result) -> Counter:
    rows = result.matches.select("start", "end", "positions").collect()
    return Counter((r.start, r.end, tuple(r.positions)) for r in rows)


@st.composite
def streams(draw, max_length: int = 120) -> list[dict]:
    """Events of types A, B, C with a partition attribute k (sometimes NULL), a value x and a clock t."""
    n = draw(st.integers(10, max_length))
    rng = random.Random(draw(st.integers(0, 2**32)))
    clock, out = 0, []
    for _ in range(n):
        clock += rng.choice((0, 1, 1, 2, 5))
        e = {"type": rng.choice(TYPES), "x": rng.randint(0, 9), "t": clock}
        if rng.random() > 0.05:
            e["k"] = rng.randint(0, 3)
        out.append(e)
    return out


PATTERNS = ("(A ; B)", "(A ; B+ ; C)", "(A AS a ; (B OR C) AS b)", "(A : B)", "(A ; B ; C) FILTER A[x > 4]",
            "((A ; C) OR (B ; C)) FILTER C[x <= 5]", "(A+ AS a ; C) FILTER a[x >= 3]")
WINDOWS = ("WITHIN 6 EVENTS", "WITHIN 4 [t]", "WITHIN 10 EVENTS")


@st.composite
def partitioned_queries(draw) -> str:
    tail = draw(st.sampled_from(("", "CONSUME BY PARTITION", "LIMIT 2")))
    pattern = draw(st.sampled_from(PATTERNS))
    strategy = draw(st.sampled_from(("", "", "NEXT ", "MAX ")))
    # Without a window, Kleene plus has exponentially many matches: only the plain patterns go unwindowed.
    window = draw(st.sampled_from(WINDOWS + (() if "+" in pattern else ("",))))
    return f"SELECT {strategy}* FROM S WHERE {pattern} PARTITION BY [k] {window} {tail}"


@st.composite
def windowed_queries(draw) -> str:
    strategy = draw(st.sampled_from(("", "ANY ", "STRICT ")))
    return (f"SELECT {strategy}* FROM S WHERE {draw(st.sampled_from(PATTERNS))} "
            f"{draw(st.sampled_from(WINDOWS))}")


@settings(max_examples=6)
@given(query=partitioned_queries(), events=streams())
def test_partitioned_plan_equals_the_engine(spark, query, events):
    result = run(spark, frame(spark, events), query)
    assert result.plan.mode == "partitioned"
    expected, actual = engine_output(query, events), spark_output(result)
    assert actual == expected, report(query, events, expected, actual, reference="engine", candidate="Spark",
                                      position=lambda ce: ce[1])
    assert result.unpartitioned == sum(1 for e in events if e.get("k") is None)


@settings(max_examples=6)
@given(query=windowed_queries(), events=streams(), slices=st.integers(2, 7))
def test_sliced_plan_equals_the_engine(spark, query, events, slices):
    result = run(spark, frame(spark, events), query, slices=slices, with_events=False)
    assert result.plan.mode == "sliced" and result.tasks == slices
    expected, actual = engine_output(query, events), spark_output(result)
    assert actual == expected, report(query, events, expected, actual, reference="engine", candidate="Spark",
                                      position=lambda ce: ce[1])


@pytest.mark.parametrize("query, reason", [
    ("SELECT * FROM S WHERE (A ; B ; C) FILTER B[x > 6]", "no PARTITION BY and no WITHIN"),
    ("SELECT * FROM S WHERE (A ; B) WITHIN 5 EVENTS CONSUME BY ANY", "CONSUME BY ANY"),
    ("SELECT * FROM S WHERE (A ; B) WITHIN 5 EVENTS LIMIT 1", "LIMIT"),
    ("SELECT LAST * FROM S WHERE (A ; B) WITHIN 5 EVENTS", "LAST compares"),
    ("SELECT * FROM S WHERE (A ; B) PARTITION BY [k] WITHIN 5 EVENTS CONSUME BY ANY", "CONSUME BY ANY"),
])
def test_single_plan_equals_the_engine_and_says_why(spark, query, reason):
    events = _fixed_stream(80, seed=3)
    result = run(spark, frame(spark, events), query)
    assert result.plan.mode == "single" and reason in result.plan.reason and result.tasks == 1
    assert spark_output(result) == engine_output(query, events)


def _fixed_stream(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    return [{"type": rng.choice(TYPES), "k": rng.randint(0, 2), "x": rng.randint(0, 9), "t": i // 2}
            for i in range(n)]


def test_matches_across_slice_boundaries_are_found_exactly_once(spark):
    events = _fixed_stream(400, seed=11)
    query = "SELECT * FROM S WHERE (A ; B+ ; C) WITHIN 12 EVENTS"
    slices = 8
    result = run(spark, frame(spark, events), query, slices=slices, with_events=False)
    actual, expected = spark_output(result), engine_output(query, events)
    assert actual == expected and max(actual.values()) == 1
    length = -(-len(events) // slices)
    boundaries = range(length, len(events), length)
    spanning = [m for m in actual if any(m[0] < b <= m[1] for b in boundaries)]
    assert len(spanning) > 50  # the overlap is exercised, not avoided


def test_time_slices_read_the_window_before_them(spark):
    # Bursts of equal timestamps: a slice's history is measured in time, not in events.
    rng = random.Random(5)
    events = [{"type": rng.choice(TYPES), "k": 0, "x": rng.randint(0, 9), "t": (i // 25) * 3} for i in range(500)]
    query = "SELECT * FROM S WHERE (A ; B ; C) WITHIN 4 [t]"
    result = run(spark, frame(spark, events), query, slices=9, with_events=False)
    assert spark_output(result) == engine_output(query, events)


def test_output_schema_partition_key_and_matched_rows(spark):
    events = _fixed_stream(60, seed=1)
    query = "SELECT * FROM S WHERE (A ; B) FILTER A[x > 2] PARTITION BY [k] WITHIN 8 EVENTS"
    result = run(spark, frame(spark, events), query, query_id="pairs")
    schema = {f.name: f.dataType.simpleString() for f in result.matches.schema.fields}
    assert list(schema) == ["query_id", "k", "start", "end", "positions", "events"]
    assert schema["positions"] == "array<bigint>" and schema["start"] == "bigint"
    assert schema["events"] == "array<struct<type:string,k:bigint,x:bigint,t:bigint>>"
    rows = result.matches.collect()
    assert rows and {r.query_id for r in rows} == {"pairs"}
    for r in rows:
        assert [e.asDict() for e in r.events] == [events[p] for p in r.positions]
        assert r.k == events[r.end]["k"]


def test_positions_follow_the_files_like_cer_theory_run(spark, tmp_path):
    rng = random.Random(2)
    folder = tmp_path / "events"
    folder.mkdir()
    everything = []
    for name in ("part-b.jsonl", "part-a.jsonl", "part-c.jsonl"):  # read in path order: a, b, c
        events = [{"type": rng.choice(TYPES), "x": rng.randint(0, 9), "t": 0} for _ in range(300)]
        (folder / name).write_text("".join(json.dumps(e) + "\n" for e in events))
    for name in sorted(p.name for p in folder.iterdir()):
        everything.extend(e.to_dict() for e in iter_file(str(folder / name)) for e in [e[1]])
    query = "SELECT * FROM S WHERE (A ; B ; C) FILTER B[x > 5] WITHIN 9 EVENTS"
    previous = spark.conf.get("spark.sql.files.maxPartitionBytes")
    spark.conf.set("spark.sql.files.maxPartitionBytes", "2048")  # many splits per file
    try:
        df = read_events(spark, str(folder))
        assert df.rdd.getNumPartitions() > 3
        result = run(spark, df, query, slices=4)
    finally:
        spark.conf.set("spark.sql.files.maxPartitionBytes", previous)
    assert spark_output(result) == engine_output(query, everything)


def test_plan_modes():
    assert plan_query_mode("SELECT * FROM S WHERE A PARTITION BY [k]") == "partitioned"
    assert plan_query_mode("SELECT * FROM S WHERE A WITHIN 3 EVENTS") == "sliced"
    assert plan_query_mode("SELECT * FROM S WHERE A") == "single"


def plan_query_mode(text: str) -> str:
    from cer_theory.formalisms.ceql.parser import parse

    return plan_query(parse(text)).mode


DECLARATION = "CREATE STREAM S { EVENT A { k:int, x:double, t:int }, EVENT B { k:int, x:double, t:int } }"


def bad_stream_frame(spark):
    import pandas as pd

    rows = [
        {"type": "A", "k": "1", "x": "3.5", "t": "0"},   # 0 fine (strings cast to the declared numbers)
        {"type": None, "k": "1", "x": "1", "t": "1"},    # 1 missing type
        {"type": "Z", "k": "1", "x": "1", "t": "1"},     # 2 undeclared type
        {"type": "B", "k": "1", "x": "lots", "t": "2"},  # 3 x is not a number
        {"type": "B", "k": None, "x": "2", "t": "2"},    # 4 NULL partition key: a note, in no partition
        {"type": "A", "k": "2", "x": "4", "t": "3"},     # 5 fine
        {"type": "B", "k": "1", "x": "5", "t": "1"},     # 6 out of order (t = 1 after t = 3)
        {"type": "B", "k": "1", "x": "6", "t": None},    # 7 the window needs t
        {"type": "B", "k": "2", "x": "6", "t": "4"},     # 8 fine
        {"type": "B", "k": "1", "x": "7", "t": "5"},     # 9 fine
    ]
    return spark.createDataFrame(pd.DataFrame(rows), "type string, k string, x string, t string")


QUERY = "SELECT * FROM S WHERE (A ; B) PARTITION BY [k] WITHIN 10 [t]"


def test_bad_rows_fail_by_default_naming_position_field_and_reason(spark):
    with pytest.raises(BadRowsError) as info:
        run(spark, bad_stream_frame(spark), QUERY, declaration=DECLARATION)
    message = str(info.value)
    assert info.value.total == 5
    for expected in ("position 1, field 'type': missing event type", "position 2, field 'type': event type Z",
                     "position 3, field 'x': B.x is declared a number, got lots", "position 6, field 't'",
                     "position 7, field 't'"):
        assert expected in message
    assert "position 4" not in message  # a NULL partition key is not an error (the CORE paper §2.2; D22)


def test_bad_rows_reported_in_a_side_output_and_the_rest_evaluated(spark):
    result = run(spark, bad_stream_frame(spark), QUERY, declaration=DECLARATION, on_bad_rows="report")
    rejected = {r.position: r for r in result.rejected.collect()}
    assert sorted(rejected) == [1, 2, 3, 4, 6, 7]
    assert [p for p, r in sorted(rejected.items()) if r.fatal] == [1, 2, 3, 6, 7]
    assert rejected[3].field == "x" and json.loads(rejected[3].row)["x"] == "lots"
    assert "no partition" in rejected[4].error and not rejected[4].fatal
    assert result.bad_rows == 5 and result.unpartitioned == 1 and result.rows == 10
    # The engine on the accepted events, positions mapped back to the input rows.
    kept = [0, 4, 5, 8, 9]
    typed = [{"type": "A", "k": 1, "x": 3.5, "t": 0}, {"type": "B", "x": 2.0, "t": 2},
             {"type": "A", "k": 2, "x": 4.0, "t": 3}, {"type": "B", "k": 2, "x": 6.0, "t": 4},
             {"type": "B", "k": 1, "x": 7.0, "t": 5}]
    expected = Counter((kept[m.start], kept[m.end], tuple(kept[p] for p in m.positions))
                       for m in Engine(QUERY).process(typed))
    assert spark_output(result) == expected == Counter({(0, 9, (0, 9)): 1, (5, 8, (5, 8)): 1})


def test_undeclared_attribute_and_wrong_kind_are_rejected(spark):
    import pandas as pd

    rows = pd.DataFrame([{"type": "A", "k": 1, "x": 1.0, "t": 0, "extra": None},
                         {"type": "A", "k": 1, "x": 1.0, "t": 1, "extra": "here"}])
    df = spark.createDataFrame(rows, "type string, k long, x double, t long, extra string")
    with pytest.raises(BadRowsError, match="position 1, field 'extra': A declares no attribute 'extra'"):
        run(spark, df, "SELECT * FROM S WHERE A", declaration=DECLARATION)
    strings = "CREATE STREAM S { EVENT A { k:string, x:double, t:int } }"
    with pytest.raises(BadRowsError, match="A.k is declared a string, got 1"):
        run(spark, df.drop("extra"), "SELECT * FROM S WHERE A", declaration=strings)
