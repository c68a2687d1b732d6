"""Checking the rows of a DataFrame against the query's stream declaration, in parallel (Spark SQL expressions).

A row is **rejected**, with the field and the reason, when (first reason wins):

0. it is not a JSON object at all (Spark's corrupt-record column holds the line): "invalid JSON";
1. its ``type`` is missing; or its type is not declared;
2. an attribute it carries is not declared for its type, or has a value of the wrong kind (a declared number
   that is not one, a declared string given as a number, …);
3. the query has a time window and its timestamp attribute is missing or not a number;
4. its timestamp is smaller than the timestamp of an earlier accepted row (out of order: the window needs
   non-decreasing timestamps in stream order, docs/decisions.md D30).

These are the events ``cer-theory run`` stops at with an error. A row whose PARTITION BY attribute is NULL is not
an error: it belongs to no partition (the CORE paper §2.2; docs/decisions.md D22), exactly as in the single-process engine;
it is reported too, as a note. Without a declaration, the kinds are those of the DataFrame's columns (Spark's schema
inference), and only rules 1 (missing type), 3 and 4 apply.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from cer_theory.core.errors import CerError

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

KIND_NAMES = {"num": "a number", "str": "a string", "bool": "a boolean"}
UNPARTITIONED = "NULL PARTITION BY attribute: the event belongs to no partition (the CORE paper §2.2)"
_LATE_SCHEMA = pa.schema([("__row", pa.int64()), ("__previous", pa.float64())])


class DeclarationError(CerError, ValueError):
    """A declaration or a DataFrame schema that cannot be checked row by row (says which column and why)."""


def spark_kind(data_type: object) -> str | None:
    """The predicate kind of a Spark column type: num, str, bool; None for a type events cannot carry."""
    from pyspark.sql import types as T

    if isinstance(data_type, T.BooleanType):
        return "bool"
    if isinstance(data_type, T.NumericType):
        return "num"
    if isinstance(data_type, T.StringType):
        return "str"
    return None


def normalize_columns(df: DataFrame, attributes: Sequence[str]) -> DataFrame:
    """Timestamps and dates become seconds since the epoch (the engine's windows need numbers); any other
    column type events cannot carry (struct, array, map, binary) is an error naming the column."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    for name in attributes:
        data_type = df.schema[name].dataType
        if isinstance(data_type, (T.TimestampType, T.TimestampNTZType)):
            df = df.withColumn(name, F.unix_micros(F.col(name).cast("timestamp")) / 1e6)
        elif isinstance(data_type, T.DateType):
            df = df.withColumn(name, F.unix_date(F.col(name)).cast("double") * 86400.0)
        elif spark_kind(data_type) is None and not isinstance(data_type, T.NullType):
            raise DeclarationError(f"column {name!r} has type {data_type.simpleString()}: event attributes are "
                                   f"numbers, strings or booleans")
    return df


def declared_kinds(kinds: Mapping[str, Mapping[str, str | None]]) -> dict[str, str | None]:
    """Attribute → its one declared kind across event types (a Spark column has one type)."""
    out: dict[str, str | None] = {}
    seen: dict[str, str] = {}
    for etype, attrs in kinds.items():
        for name, k in attrs.items():
            if k is None:
                continue
            if name in out and out[name] != k:
                raise DeclarationError(f"attribute {name!r} is declared {KIND_NAMES[k]} for {etype} but "
                                       f"{KIND_NAMES[out[name]]} for {seen[name]}; one column has one type")
            out[name], seen[name] = k, etype
    return out


def _cast(column: Column, spark_k: str | None, declared: str | None) -> tuple[Column, Column | None]:
    """The column as its declared kind, and the condition (on a non-null value) that it is not one."""
    from pyspark.sql import functions as F

    if declared is None or declared == spark_k:
        return column, None
    if declared == "num" and spark_k == "str":
        cast = F.expr(f"try_cast({_sql(column)} AS DOUBLE)")
        return cast, cast.isNull()
    if declared == "bool" and spark_k == "str":
        cast = F.expr(f"try_cast({_sql(column)} AS BOOLEAN)")
        return cast, cast.isNull()
    return column, F.lit(True)  # a number or boolean where a string is declared, …: never the declared kind


def _sql(column: Column) -> str:
    return str(column._jc.toString())  # a bare column reference, e.g. `price`


def check_rows(df: DataFrame, *, attributes: Sequence[str], kinds: Mapping[str, Mapping[str, str | None]] | None,
               time_attribute: str | None, partition_attributes: Sequence[str],
               corrupt_column: str | None = None) -> DataFrame:
    """``df`` (with a ``__row`` column) plus ``__error``/``__field`` (NULL on a good row),
    ``__unpartitioned`` and ``__given`` (a reported row as given, in JSON); attribute columns cast to their
    declared kinds. Rule 4 is :func:`mark_out_of_order`."""
    from pyspark.sql import functions as F

    def bad(cond: Column, field: str, message: Column) -> Column:
        return F.when(cond, F.struct(F.lit(field).alias("field"), message.alias("error")))

    etype = F.col("type")
    checks: list[Column] = []
    if corrupt_column is not None:
        corrupt = F.col(corrupt_column)
        checks.append(bad(corrupt.isNotNull(), "row",
                          F.format_string("invalid JSON: %s", F.substring(corrupt, 1, 200))))
    checks.append(bad(etype.isNull(), "type", F.lit("missing event type")))
    casts: dict[str, Column] = {}
    if kinds is not None:
        declared = sorted(kinds)
        checks.append(bad(~etype.isin(declared), "type",
                          F.format_string(f"event type %s is not declared (declared: {', '.join(declared)})",
                                          etype)))
        unified = declared_kinds(kinds)
        for name in attributes:
            value = F.col(name)
            spark_k = spark_kind(df.schema[name].dataType)
            cast, wrong = _cast(value, spark_k, unified.get(name))
            if cast is not value:
                casts[name] = cast
            undeclared = [t for t in declared if name not in kinds[t]]
            if undeclared:
                checks.append(bad(value.isNotNull() & etype.isin(undeclared), name,
                                  F.format_string(f"%s declares no attribute {name!r}", etype)))
            if wrong is not None:
                expected = KIND_NAMES[unified[name]]  # type: ignore[index]
                checks.append(bad(value.isNotNull() & wrong, name,
                                  F.format_string(f"%s.{name} is declared {expected}, got %s", etype,
                                                  value.cast("string"))))
    unpartitioned = F.lit(False)
    for name in partition_attributes:
        unpartitioned = unpartitioned | F.col(name).isNull()
    if time_attribute is not None:
        if time_attribute not in df.columns:
            raise DeclarationError(f"the window's timestamp attribute {time_attribute!r} is not a column "
                                   f"(columns: {', '.join(df.columns)})")
        stamp = casts.get(time_attribute, F.col(time_attribute))
        numeric = spark_kind(df.schema[time_attribute].dataType) == "num" or time_attribute in casts
        missing = stamp.isNull() if numeric else F.lit(True)
        checks.append(bad(~unpartitioned & missing, time_attribute,
                          F.lit(f"the window needs a numeric {time_attribute!r} on every event")))
    verdict = F.coalesce(*checks) if len(checks) > 1 else checks[0]
    # The verdict reads the values as given: after the casts, a value that is not a number would be NULL.
    out = (df.withColumn("__verdict", verdict)
           .withColumn("__error", F.col("__verdict.error"))
           .withColumn("__field", F.col("__verdict.field"))
           .withColumn("__unpartitioned", F.col("__error").isNull() & unpartitioned)
           .withColumn("__given", F.when(F.col("__error").isNotNull() | F.col("__unpartitioned"),
                                         F.col(corrupt_column) if corrupt_column is not None else F.lit(None))
                       .otherwise(F.lit(None)))
           .withColumn("__given", F.when(F.col("__error").isNotNull() | F.col("__unpartitioned"),
                                         F.coalesce(F.col("__given"), F.to_json(F.struct("type", *attributes)))))
           .drop("__verdict"))
    return out.withColumns(casts) if casts else out


@dataclass
class RowSummary:
    """What one pass over the checked rows tells the driver (:func:`summarize_rows`): rows, bad rows, rows in no
    partition, the good events per partition key (None: no keys asked, or more than ``max_keys``), and the
    runs of consecutive positions with their timestamps (:func:`late_rows_possible` reads them)."""

    total: int
    bad: int
    unpartitioned: int
    sizes: dict | None
    runs: list[tuple[int, float, float, bool]]
    """(first row, largest and smallest timestamp (NaN: none), whether a row of the run is below an earlier
    one of the same run), sorted by first row."""


def _narrow(df: DataFrame, time_attribute: str | None, keys: Sequence[str]) -> DataFrame:
    """The columns the passes read: ``__row``, the timestamp of a row rule 4 applies to (an accepted,
    partitioned row; else NULL), whether the row is bad, whether it is in no partition, the keys."""
    from pyspark.sql import functions as F

    eligible = F.col("__error").isNull() & ~F.col("__unpartitioned")
    stamp = F.when(eligible, F.col(time_attribute).cast("double")) if time_attribute is not None \
        else F.lit(None).cast("double")
    return df.select("__row", stamp.alias("__stamp"), F.col("__error").isNotNull().alias("__bad"),
                     F.col("__unpartitioned"), *[F.col(k).alias(f"__k{i}") for i, k in enumerate(keys)])


def summarize_rows(df: DataFrame, time_attribute: str | None, keys: Sequence[str], max_keys: int) -> RowSummary:
    """One Spark job over a checked DataFrame (:func:`check_rows`), in place (no shuffle): each Spark partition
    reports its runs (first row, largest and smallest timestamp, disorder inside the run) and its counts of
    rows, bad rows, rows in no partition and good events per key (at most ``max_keys`` keys per partition).
    This replaces a counting aggregate and the first pass of the out-of-order check (docs/decisions.md D143);
    the rows are checked by the same job, since the counts read the verdicts."""
    from pyspark.sql import types as T
    from pyspark.sql.pandas.types import to_arrow_schema

    narrow = _narrow(df, time_attribute, keys)
    key_fields = [T.StructField(f"__k{i}", narrow.schema[f"__k{i}"].dataType) for i in range(len(keys))]
    schema = T.StructType([T.StructField("kind", T.ByteType()), T.StructField("first", T.LongType()),
                           T.StructField("m", T.DoubleType()), T.StructField("lo", T.DoubleType()),
                           T.StructField("disorder", T.BooleanType()), T.StructField("n", T.LongType()),
                           T.StructField("bad", T.LongType()), T.StructField("unpart", T.LongType()),
                           *key_fields])
    body = functools.partial(partition_summary, to_arrow_schema(schema), len(keys), max_keys)
    rows = narrow.mapInArrow(body, schema).collect()
    total = bad = unpartitioned = 0
    sizes: dict | None = {} if keys else None
    runs = []
    for r in rows:
        if r["kind"] == _RUN:
            runs.append((r["first"], r["m"], r["lo"], r["disorder"]))
        elif r["kind"] == _TOTALS:
            total, bad, unpartitioned = total + r["n"], bad + r["bad"], unpartitioned + r["unpart"]
        elif r["kind"] == _TOO_MANY_KEYS:
            sizes = None
        elif sizes is not None:
            key = tuple(_canonical(r[f"__k{i}"]) for i in range(len(keys)))
            sizes[key] = sizes.get(key, 0) + r["n"] - r["bad"] - r["unpart"]
    if sizes is not None:
        sizes = {k: v for k, v in sizes.items() if v > 0} if len(sizes) <= max_keys else None
    return RowSummary(total, bad, unpartitioned, sizes, sorted(runs))


_NAN = float("nan")


def _canonical(value: object) -> object:
    """One NaN object for every NaN key, so that the driver's dict merges them as Spark's grouping does."""
    return _NAN if isinstance(value, float) and value != value else value


_RUN, _TOTALS, _KEY, _TOO_MANY_KEYS = 0, 1, 2, 3


def partition_summary(schema: pa.Schema, nkeys: int, max_keys: int,
                      batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` body of :func:`summarize_rows`: one output batch per Spark partition."""
    import pyarrow.compute as pc

    firsts: list[int] = []
    highs: list[float] = []
    lows: list[float] = []
    disorder: list[bool] = []
    high = -np.inf  # the running maximum inside the current run
    n = bad = unpart = 0
    key_names = [f"__k{i}" for i in range(nkeys)]
    counted: pa.Table | None = None
    too_many = False

    def batches_seen() -> Iterator[pa.RecordBatch]:
        nonlocal n, bad, unpart, counted, too_many
        for batch in batches:
            flags = [batch.column(i).cast(pa.int64()) for i in (2, 3)]
            n += batch.num_rows
            bad += int(pc.sum(flags[0]).as_py() or 0)
            unpart += int(pc.sum(flags[1]).as_py() or 0)
            if nkeys and not too_many and batch.num_rows:
                table = pa.table([np.ones(batch.num_rows, dtype=np.int64), *flags,
                                  *(batch.column(4 + i) for i in range(nkeys))], names=[*_COUNTS, *key_names])
                counted = _key_counts(table if counted is None else pa.concat_tables([counted, table]), key_names)
                if counted.num_rows > max_keys:
                    too_many, counted = True, None
            yield batch

    for first, starts, _, stamps in _runs(batches_seen()):
        present = ~np.isnan(stamps)  # (NaN: a row rule 4 does not apply to, never late)
        filled = np.where(present, stamps, -np.inf)
        if starts:
            high = -np.inf
        prefix = np.maximum.accumulate(np.concatenate(([high], filled)))
        inside = bool((present & (filled < prefix[:-1])).any())  # a row below an earlier one of the same run
        high = float(prefix[-1])
        top, low = (float(filled.max()), float(stamps[present].min())) if present.any() else (_NAN, _NAN)
        if starts:
            firsts.append(first)
            highs.append(top)
            lows.append(low)
            disorder.append(inside)
        else:
            highs[-1] = float(np.fmax(highs[-1], top))
            lows[-1] = float(np.fmin(lows[-1], low))
            disorder[-1] = disorder[-1] or inside
    runs = len(firsts)
    columns: dict[str, list] = {
        "kind": [_RUN] * runs + [_TOTALS], "first": [*firsts, None], "m": [*highs, None], "lo": [*lows, None],
        "disorder": [*disorder, None], "n": [None] * runs + [n], "bad": [None] * runs + [bad],
        "unpart": [None] * runs + [unpart], **{k: [None] * (runs + 1) for k in key_names}}
    if too_many:
        for name, values in columns.items():
            values.append(_TOO_MANY_KEYS if name == "kind" else None)
    elif counted is not None:
        size = counted.num_rows
        columns["kind"] += [_KEY] * size
        for name in ("first", "m", "lo", "disorder"):
            columns[name] += [None] * size
        for name, source in zip(("n", "bad", "unpart"), _COUNTS):
            columns[name] += counted.column(source).to_pylist()
        for name in key_names:
            columns[name] += counted.column(name).to_pylist()
    yield pa.RecordBatch.from_pydict(columns, schema=schema)


_COUNTS = ("__n", "__bad", "__unpartitioned")


def _key_counts(table: pa.Table, key_names: list[str]) -> pa.Table:
    """Rows, bad rows and rows in no partition per key of ``table`` (itself such counts, or rows with 1s)."""
    out = table.group_by(key_names).aggregate([(c, "sum") for c in _COUNTS])
    out = out.rename_columns([c.removesuffix("_sum") if c.startswith(_COUNTS) else c for c in out.column_names])
    return out.select([*_COUNTS, *key_names])  # the input's column order, so that the next batch's rows append


def late_rows_possible(summary: RowSummary) -> dict[int, float | None] | None:
    """The largest timestamp before each run (by its first row), or None when no row can be late: every run is
    in order inside and its smallest timestamp is not below the largest one before it."""
    before: dict[int, float | None] = {}
    running: float | None = None
    possible = False
    for first, m, lo, inside in summary.runs:
        before[first] = running
        possible = possible or inside or (running is not None and lo == lo and lo < running)
        if m == m:
            running = m if running is None else max(running, m)
    return before if possible else None


def mark_out_of_order(df: DataFrame, time_attribute: str, before: Mapping[int, float | None]) -> DataFrame:
    """Rule 4 on a checked DataFrame: an accepted, partitioned row whose timestamp is below the largest one of
    the accepted rows before it. Each Spark partition holds runs of consecutive positions in increasing order
    (:mod:`cer_theory.spark.positions` numbers rows where they are); ``before`` is the largest timestamp before
    each run (by its first row), from :func:`summarize_rows` and :func:`late_rows_possible`. This pass finds
    the late rows (:func:`late_rows`): in place, no shuffle, no sort (docs/decisions.md D129, D143). If there
    are none ``df`` is returned as it is; else they are joined back. It must see the partitions and rows the
    summary saw: the positions are reproducible (:mod:`cer_theory.spark.positions`)."""
    from pyspark.sql import functions as F

    given = [c for c in df.columns if not c.startswith("__")]
    narrow = _narrow(df, time_attribute, ()).select("__row", "__stamp")
    late = narrow.mapInArrow(functools.partial(late_rows, before), "__row long, __previous double").persist()
    if not late.count():
        late.unpersist()
        return df
    previous = F.col("__previous")
    message = F.format_string(f"{time_attribute} = %s is earlier than %s, the timestamp of an earlier event: "
                              f"the window needs non-decreasing timestamps in stream order (docs/decisions.md D30)",
                              F.col(time_attribute).cast("string"), previous.cast("string"))
    late_row = previous.isNotNull()
    return (df.join(late, "__row", "left")
            .withColumn("__field", F.when(late_row, F.lit(time_attribute)).otherwise(F.col("__field")))
            .withColumn("__error", F.when(late_row, message).otherwise(F.col("__error")))
            .withColumn("__given", F.when(late_row, F.to_json(F.struct(*given))).otherwise(F.col("__given")))
            .drop("__previous"))


def _runs(batches: Iterator[pa.RecordBatch]) -> Iterator[tuple[int, bool, np.ndarray, np.ndarray]]:
    """The pieces of runs in a partition's ``(__row, __stamp)`` batches: (first row of the run, whether the
    piece starts the run, rows, timestamps with NaN for NULL). A run continues across batches."""
    last: int | None = None
    first = 0
    for batch in batches:
        rows = batch.column(0).to_numpy()
        if not len(rows):
            continue
        stamps = np.asarray(batch.column(1).to_numpy(zero_copy_only=False), dtype=np.float64)  # NULL → NaN
        cuts = [0, *(np.flatnonzero(rows[1:] != rows[:-1] + 1) + 1).tolist(), len(rows)]
        for a, b in zip(cuts, cuts[1:]):
            starts = not (a == 0 and last is not None and int(rows[0]) == last + 1)
            if starts:
                first = int(rows[a])
            yield first, starts, rows[a:b], stamps[a:b]
        last = int(rows[-1])


def late_rows(before: Mapping[int, float | None], batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` body: the late rows with the largest earlier timestamp; the running maximum of a run
    starts at the largest timestamp before it (``before``, by the run's first row)."""
    high = -np.inf
    for first, starts, rows, values in _runs(batches):
        if starts:
            prior = before[first]
            high = -np.inf if prior is None else prior
        filled = np.where(np.isnan(values), -np.inf, values)
        # The largest timestamp strictly before each row: the prefix maxima shifted by one.
        prefix = np.maximum.accumulate(np.concatenate(([high], filled)))
        earlier = prefix[:-1]
        late = ~np.isnan(values) & (values < earlier)
        high = float(prefix[-1])
        if late.any():
            yield pa.RecordBatch.from_pydict({"__row": rows[late], "__previous": earlier[late]},
                                             schema=_LATE_SCHEMA)
