"""``cer-theory spark`` with aggregates: the aggregate columns (docs/decisions.md D79) hold exactly the engine's values,
in the partitioned and the sliced plan."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from cer_theory.core.aggregates import NULL
from cer_theory.core.errors import CerError
from cer_theory.engines.core import Engine
from cer_theory.spark import run

pytestmark = pytest.mark.spark


def _frame(spark, events: list[dict]):
    import pandas as pd

    columns = ["type", "k", "x", "t"]
    rows = pd.DataFrame([{c: e.get(c) for c in columns} for e in events], columns=columns)
    return spark.createDataFrame(rows.astype({"k": "Int64", "x": "Int64", "t": "Int64"}),
                                 "type string, k long, x long, t long")


def _events(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        e = {"type": rng.choice("ABC"), "k": rng.randint(0, 2), "t": i // 2}
        if rng.random() > 0.1:
            e["x"] = rng.randint(0, 9)  # sometimes absent: NULL
        out.append(e)
    return out


def _spark_value(v):
    return None if v is NULL else float(v) if isinstance(v, float) and math.isinf(v) else v


@pytest.mark.parametrize("query, slices", [
    ("SELECT a, SUM(b.x) AS s, MAX(b.x) AS m, COUNT(b) AS n, AVG(b.x) AS av FROM S "
     "WHERE A AS a ; B+ AS b ; C PARTITION BY [k] WITHIN 8 EVENTS HAVING n >= 1", None),
    ("SELECT *, MIN(b.x) AS lo, RANGE(b.x) AS r FROM S WHERE A ; (B OR C AS b) WITHIN 6 EVENTS", 3),
])
def test_spark_aggregate_columns_equal_the_engine(spark, query, slices):
    events = _events(150, seed=5)
    result = run(spark, _frame(spark, events), query, slices=slices, with_events=False)
    aliases = [a.alias for a in result.plan.task_query.aggregates]
    rows = result.matches.collect()
    actual = Counter((r.start, r.end, tuple(r.positions), tuple(r[a] for a in aliases)) for r in rows)
    expected = Counter((m.start, m.end, m.positions, tuple(_spark_value(v) for _, v in m.aggregates))
                       for m in Engine(query).process(events))
    assert actual == expected and sum(expected.values()) > 0


def test_an_alias_that_is_an_output_column_is_refused(spark):
    with pytest.raises(CerError, match="also an output column"):
        run(spark, _frame(spark, _events(10, seed=1)), "SELECT *, COUNT(b) AS start FROM S WHERE A ; B AS b "
                                                       "WITHIN 3 EVENTS")
