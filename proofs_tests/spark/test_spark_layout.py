"""Partition sizing and key placement (docs/decisions.md D128): as many tasks as cores but never more than keys,
the keys balanced over the tasks by the driver, and routed exactly where it says (Spark's Murmur3 hash reproduced)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.spark import run
from cer_theory.spark.layout import balance, routing_values, spark_hash_int, task_count
from cer_theory.testing.oracles import late_rows


def test_task_count_is_the_cores_but_never_more_than_the_keys():
    assert task_count(10, 2) == 2
    assert task_count(3, 8) == 3
    assert task_count(0, 4) == 1
    assert task_count(None, 4) == 8  # too many keys to count: hashed, two tasks per core


@given(sizes=st.dictionaries(st.integers(0, 50), st.integers(1, 1000), min_size=1, max_size=40),
       n=st.integers(1, 8))
def test_balance_is_within_one_key_of_the_mean(sizes, n):
    """The LPT rule: each task gets keys, and no task exceeds the mean load by more than its largest key."""
    placed = balance(sizes, n)
    assert set(placed) == set(sizes) and set(placed.values()) <= set(range(n))
    load = [0] * n
    for key, t in placed.items():
        load[t] += sizes[key]
    assert max(load) <= sum(sizes.values()) / n + max(sizes.values()), (sizes, n, load)


@pytest.mark.spark
def test_spark_hash_int_is_sparks_hash(spark):
    from pyspark.sql import functions as F

    rng = random.Random(5)
    values = [0, 1, -1, 2**31 - 1, -(2**31), *(rng.randint(-(2**31), 2**31 - 1) for _ in range(200))]
    frame = spark.createDataFrame([(v,) for v in values], "v int")
    got = {r.v: r.h for r in frame.select("v", F.hash("v").alias("h")).collect()}
    assert {v: spark_hash_int(v) for v in values} == got


@pytest.mark.spark
def test_routing_values_land_on_their_partition(spark):
    from pyspark.sql import functions as F

    for n in (1, 2, 3, 7):
        route = routing_values(n)
        frame = spark.createDataFrame([(t, v) for t, v in enumerate(route)], "t int, v int")
        landed = {r.t: r.p for r in frame.repartition(n, "v").select("t", F.spark_partition_id().alias("p"))
                  .collect()}
        assert landed == {t: t for t in range(n)}


@pytest.mark.spark
def test_ten_keys_run_as_one_task_per_core_each_with_work(spark):
    """The session has 4 default-parallelism slots: 10 keys → 4 tasks, each with matches."""
    import pandas as pd
    from pyspark.sql import functions as F

    rng = random.Random(2)
    events = [{"type": rng.choice("AB"), "k": i % 10, "x": rng.randint(0, 9)} for i in range(400)]
    df = spark.createDataFrame(pd.DataFrame(events), "type string, k long, x long")
    result = run(spark, df, "SELECT * FROM S WHERE (A ; B) FILTER A[x > 5] PARTITION BY [k] WITHIN 40 EVENTS",
                 with_events=False)
    cores = spark.sparkContext.defaultParallelism
    assert result.tasks == min(10, cores)
    per_task = result.matches.groupBy(F.spark_partition_id()).count().collect()
    assert len(per_task) == result.tasks


@pytest.mark.spark
@settings(max_examples=4)  # each example is three Spark runs
@given(seed=st.integers(0, 2**16), files=st.integers(1, 4))
def test_out_of_order_rows_across_files_and_partitions_are_the_definitions(spark, tmp_path_factory, seed, files):
    """The late rows are found in place, run by run (a file split or a Spark partition), with the largest
    timestamp of the runs before: the same rows as the running maximum over the whole stream."""
    import json

    import pandas as pd

    from cer_theory.spark import read_events

    rng = random.Random(seed)
    stamps = []
    for _ in range(rng.randint(5, 60)):
        stamps.append(max(0, (stamps[-1] if stamps else 0) + rng.choice((0, 1, 2, -3))))
    folder = tmp_path_factory.mktemp("late")
    cuts = sorted(rng.sample(range(1, len(stamps)), min(files - 1, len(stamps) - 1)))
    for i, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(stamps)])):
        (folder / f"part-{i}.jsonl").write_text("".join(json.dumps({"type": "A", "t": t}) + "\n"
                                                        for t in stamps[a:b]))
    expected = late_rows(stamps)
    frame = spark.createDataFrame(pd.DataFrame({"type": "A", "t": stamps, "i": range(len(stamps))}),
                                  "type string, t long, i long")  # its own order: partition after partition
    for df, order_by in ((read_events(spark, str(folder)), None), (frame, None),
                         (frame.repartition(3, "t"), ["i"])):
        result = run(spark, df, "SELECT * WHERE A ; A WITHIN 2 [t]", on_bad_rows="report", with_events=False,
                     order_by=order_by)
        late = sorted(r.position for r in result.rejected.collect())
        assert late == expected, (stamps, cuts, late, expected)
        result.close()
