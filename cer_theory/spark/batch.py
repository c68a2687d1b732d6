"""CEQL over a Spark DataFrame, in batch: :func:`run_query` and :func:`run`.

The complex events are exactly those of the single-process engine (``cer_theory.engines.core.Engine``) over the same
stream; :mod:`cer_theory.spark.plan` says how the work is spread and why that preserves the output. Output schema
(one row per complex event):

=============  ================================  ==========================================================
``query_id``   string                            the ``query_id`` given, else ``q`` + 8 hex digits of the query
*attributes*   the input's types                 the PARTITION BY attributes' values (partitioned queries)
``start``      long                              CORE's interval ``[start, end]`` in stream positions
``end``        long
``positions``  array<long>                       the matched events' positions (sorted)
``events``     array<struct<input columns>>      the matched events' rows, in position order (``with_events``)
*aliases*      long (COUNT) or double            the values of SELECT's aggregates (queries with aggregates)
=============  ================================  ==========================================================

Stream positions are 0-based rows of the input, in the order of :mod:`cer_theory.spark.positions`, the same as
``cer-theory run`` reports for the same file. Rows that do not match the declaration follow ``on_bad_rows``
(:mod:`cer_theory.spark.validate` lists the rules): ``"fail"`` (default) raises :class:`BadRowsError` naming
the first rows, their fields and what is wrong; ``"report"`` leaves them out of the stream, so the output is the
engine's on the remaining events (positions still the input's rows), and :attr:`SparkRun.rejected` lists them.
Either way nothing is dropped silently.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cer_theory.core.errors import CerError
from cer_theory.formalisms.ceql.ast import Query, StreamDeclaration
from cer_theory.formalisms.ceql.declarations import schema_of
from cer_theory.formalisms.ceql.parser import parse, parse_declarations
from cer_theory.formalisms.ceql.printer import format
from cer_theory.spark.plan import POSITION_ATTRIBUTE, Plan, plan_query
from cer_theory.spark.positions import FILE_COLUMNS, dense_index, stream_positions, with_file_order
from cer_theory.spark.layout import MAX_COUNTED_KEYS, balance, routing_values, task_count
from cer_theory.spark.tasks import TaskSpec, aggregate_columns, run_task
from cer_theory.spark.validate import (UNPARTITIONED, check_rows, late_rows_possible, mark_out_of_order,
                                      normalize_columns, summarize_rows)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

REJECTED_SCHEMA = "position long, field string, error string, fatal boolean, row string"
"""The side output: the input row, the offending field and the reason; ``fatal`` is false for the rows that
are only notes (a NULL PARTITION BY attribute: in no partition, as in the single-process engine)."""
ON_BAD_ROWS = ("fail", "report")
SHOWN_BAD_ROWS = 20
EVENTS_PER_SLICE = 20_000
"""Default slice length in time slicing, before the cap of two slices per core."""


class BadRowsError(CerError, ValueError):
    """Rows that do not match the declaration, under ``on_bad_rows="fail"``: the first ones, with field and
    reason, and how many there are in all."""

    def __init__(self, total: int, shown: Sequence[tuple[int, str, str]]) -> None:
        self.total, self.shown = total, list(shown)
        lines = [f"  position {p}, field {f!r}: {e}" for p, f, e in shown]
        more = f"\n  … and {total - len(shown)} more" if total > len(shown) else ""
        super().__init__(f"{total} row(s) do not match the stream declaration (on_bad_rows='report' lists "
                         f"them in a side output instead):\n" + "\n".join(lines) + more)


@dataclass
class SparkRun:
    """The outcome of :func:`run`: the complex events, the rejected rows, the plan, and counts."""

    matches: DataFrame
    rejected: DataFrame
    plan: Plan
    query_id: str
    rows: int
    bad_rows: int
    unpartitioned: int
    tasks: int
    cached: list = field(default_factory=list, repr=False)
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds per phase of :func:`run` (each phase's Spark jobs carry the description ``cer_theory: <phase>``
    in Spark's UI)."""

    def close(self) -> None:
        """Release the cached copies of the stream (using the matches afterwards recomputes them)."""
        for frame in self.cached:
            frame.unpersist()
        self.cached.clear()


def query_id_of(query: Query) -> str:
    """``q`` + 8 hex digits of the query's text; a strict window (``--windows core``), which CEQL cannot write,
    is hashed as its inclusive text plus a mark."""
    window = query.within
    if window is not None and window.strict:
        text = format(dataclasses.replace(query, within=dataclasses.replace(window, strict=False))) + " -- strict"
    else:
        text = format(query)
    return "q" + hashlib.sha1(text.encode()).hexdigest()[:8]


def read_events(spark: SparkSession, path: str, *, format: str | None = None, multiline: bool = False) -> DataFrame:
    """Events from CSV (header with a ``type`` column), JSON Lines or Parquet (by extension, or ``format``),
    keeping the file order for the positions (CSV and JSON: types inferred from the data). ``multiline``: a
    quoted CSV cell may hold newlines (the files are then read whole, not split). A JSON line that does not parse
    is kept in the column :data:`CORRUPT_COLUMN` and rejected as such."""
    fmt = input_format(path, format)
    options = dict(READ_OPTIONS[fmt])
    if multiline and fmt == "csv":
        options["multiLine"] = "true"
    try:
        return with_file_order(spark.read.options(**options).format(fmt).load(path))
    except Exception as exc:  # noqa: BLE001 - Spark's AnalysisException and Py4J errors: say what, not where
        raise CerError(f"Spark cannot read {path}: {_first_line(exc)}") from None


CORRUPT_COLUMN = "_corrupt_record"
"""Where Spark's JSON reader keeps a line that does not parse (its default ``columnNameOfCorruptRecord``)."""


def _first_line(exc: Exception) -> str:
    text = str(getattr(exc, "desc", None) or exc).strip()
    return text.splitlines()[0] if text else exc.__class__.__name__


READ_OPTIONS: dict[str, dict[str, str]] = {"csv": {"header": "true", "inferSchema": "true", "escape": '"'},
                                           "json": {},
                                           "parquet": {}}
"""Spark reader options per input format (CSV: a header row, column types inferred from the data)."""


def input_format(path: str, format: str | None = None) -> str:
    """The Spark format of an input: ``format`` if given, else from the extension; json, csv or parquet."""
    fmt = (format or format_of(path)).lower()
    fmt = "json" if fmt in ("jsonl", "ndjson") else fmt
    if fmt not in READ_OPTIONS:
        raise CerError(f"unknown input format {fmt!r} for {path}: use one of {', '.join(READ_OPTIONS)}")
    return fmt


def format_of(path: str) -> str:
    """csv, json or parquet from a file's extension (a directory: from its first data file's)."""
    import pathlib

    p = pathlib.Path(path)
    if p.is_dir():
        names = sorted(f.suffix for f in p.iterdir() if f.is_file() and not f.name.startswith(("_", ".")))
        if not names:
            raise CerError(f"{path}: no input files")
        suffix = names[0]
    else:
        suffix = p.suffix
    return {".csv": "csv", ".json": "json", ".jsonl": "json", ".ndjson": "json", ".parquet": "parquet"}.get(
        suffix.lower(), suffix.lstrip(".") or "json")


def declaration_kinds(declaration: str | Sequence[StreamDeclaration] | None) -> dict | None:
    """Event type → attribute → kind from ``CREATE STREAM`` text or parsed declarations (None: none given)."""
    if declaration is None:
        return None
    decls = parse_declarations(declaration) if isinstance(declaration, str) else declaration
    return schema_of(decls).kinds


def run(spark: SparkSession, df: DataFrame, query: Query | str, *,
        declaration: str | Sequence[StreamDeclaration] | None = None, order_by: Sequence[str] | None = None,
        on_bad_rows: str = "fail", slices: int | None = None, with_events: bool = True,
        query_id: str | None = None) -> SparkRun:
    """Evaluate ``query`` over the events of ``df`` (a ``type`` column, one column per attribute)."""
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import to_arrow_schema

    if on_bad_rows not in ON_BAD_ROWS:
        raise ValueError(f"on_bad_rows must be one of {ON_BAD_ROWS}, not {on_bad_rows!r}")
    if isinstance(query, str):
        query = parse(query)
    columns = [c for c in df.columns if c not in FILE_COLUMNS]  # (the reader's own columns are no one's concern)
    if not columns:
        raise CerError("the input holds no events (no columns: an empty file?)")
    if "type" not in columns:
        raise CerError(f"the events need a 'type' column (columns: {', '.join(columns)})")
    plan = plan_query(query)
    missing = [a for a in plan.partition_attributes if a not in columns]
    if missing:
        raise CerError(f"PARTITION BY {', '.join(missing)}: no such column (columns: {', '.join(columns)})")
    qid = query_id or query_id_of(query)
    attributes = [c for c in df.columns if c not in ("type", CORRUPT_COLUMN) and c not in FILE_COLUMNS]
    time_attribute = plan.window_attribute if plan.window_attribute != POSITION_ATTRIBUTE else None
    df = normalize_columns(df, attributes)
    cached: list = []
    timings: dict[str, float] = {}
    with phase(spark, timings, "positions"):
        rows = stream_positions(df, order_by, "__row", cached)
    # Not cached here: the evaluation reads the input again, which costs less than filling a cache with every
    # column of the stream (docs/decisions.md D143). The positions are reproducible: Parquet's row indexes, or
    # cached by stream_positions (counted splits, a sort, a DataFrame's own order).
    checked = check_rows(rows, attributes=attributes, kinds=declaration_kinds(declaration),
                         time_attribute=time_attribute, partition_attributes=plan.partition_attributes,
                         corrupt_column=CORRUPT_COLUMN if CORRUPT_COLUMN in df.columns else None)
    keys = plan.partition_attributes if plan.mode == "partitioned" else ()
    with phase(spark, timings, "checks and counts"):
        summary = summarize_rows(checked, time_attribute, keys, MAX_COUNTED_KEYS)
    total, bad, unpartitioned, sizes = summary.total, summary.bad, summary.unpartitioned, summary.sizes
    before = late_rows_possible(summary) if time_attribute is not None else None
    if before is not None:
        assert time_attribute is not None
        with phase(spark, timings, "out-of-order"):
            marked = mark_out_of_order(checked, time_attribute, before)
        if marked is not checked:  # late rows are bad rows too: count again (rare; the join's result is kept)
            checked = marked.persist()
            cached.append(checked)
            with phase(spark, timings, "counts"):
                total, bad, unpartitioned, sizes = _counts(checked, keys)
    if bad and on_bad_rows == "fail":
        with phase(spark, timings, "bad rows"):
            shown = (checked.filter("__error IS NOT NULL").orderBy("__row").limit(SHOWN_BAD_ROWS)
                     .select("__row", "__field", "__error").collect())
        raise BadRowsError(bad, [(r[0], r[1], r[2]) for r in shown])
    rejected = _rejected(checked)
    stream = checked.filter("__error IS NULL")
    with phase(spark, timings, "positions of the good rows"):
        stream = (stream.withColumn("__pos", stream["__row"]) if not bad
                  else dense_index(stream, ["__row"], "__pos", cached))
    events = stream.filter("NOT __unpartitioned").select("__pos", "__row", "type", *attributes)
    aggregates = aggregate_columns(query)
    clash = {a for a, _ in aggregates} & {"query_id", "start", "end", "positions", "events",
                                          *plan.partition_attributes}
    if clash:
        raise CerError(f"aggregate alias {', '.join(sorted(clash))} is also an output column; rename it")
    with phase(spark, timings, "layout"):
        tasks_input, spec, tasks = _distribute(spark, plan, events, attributes, total - bad - unpartitioned,
                                               slices, sizes)
    schema = _output_schema(events, plan, aggregates, attributes, with_events)
    spec = dataclasses.replace(spec, partition=plan.partition_attributes, schema=to_arrow_schema(schema),
                               event_fields=("type", *attributes) if with_events else None)
    raw = tasks_input.mapInArrow(functools.partial(run_task, spec), schema)
    columns = ["query_id", *plan.partition_attributes, "start", "end", "positions",
               *(["events"] if with_events else []), *(a for a, _ in aggregates)]
    matches = raw.withColumn("query_id", F.lit(qid)).select(*columns)
    return SparkRun(matches, rejected, plan, qid, total, bad, unpartitioned, tasks, cached, timings)


def _counts(checked: DataFrame, keys: Sequence[str]) -> tuple[int, int, int, dict | None]:
    """Rows, bad rows, rows in no partition, and the good events per partition key (None: no keys, or more
    than :data:`~cer_theory.spark.layout.MAX_COUNTED_KEYS`), in one aggregate where the keys are few."""
    from pyspark.sql import functions as F

    measures = [F.count("*").alias("n"), F.count("__error").alias("bad"),
                F.count(F.when(F.col("__unpartitioned"), 1)).alias("unpartitioned")]
    if keys:
        rows = checked.groupBy(*keys).agg(*measures).limit(MAX_COUNTED_KEYS + 1).collect()
        if len(rows) <= MAX_COUNTED_KEYS:
            sizes = {tuple(r[k] for k in keys): r["n"] - r["bad"] - r["unpartitioned"] for r in rows}
            return (sum(r["n"] for r in rows), sum(r["bad"] for r in rows),
                    sum(r["unpartitioned"] for r in rows), {k: v for k, v in sizes.items() if v > 0})
    counts = checked.agg(*measures).first()
    assert counts is not None
    return int(counts["n"]), int(counts["bad"]), int(counts["unpartitioned"]), None


def _output_schema(events: DataFrame, plan: Plan, aggregates: Sequence[tuple[str, str]], attributes: list[str],
                   with_events: bool) -> StructType:
    """The tasks' output: the module docstring's columns but ``query_id`` (the partition columns and the rows of
    ``events`` as checked: cast to their declared kinds)."""
    from pyspark.sql import types as T

    fields = [T.StructField("start", T.LongType()), T.StructField("end", T.LongType()),
              T.StructField("positions", T.ArrayType(T.LongType()))]
    fields += [T.StructField(a, events.schema[a].dataType) for a in plan.partition_attributes]
    if with_events:
        row = T.StructType([T.StructField(c, events.schema[c].dataType) for c in ("type", *attributes)])
        fields.append(T.StructField("events", T.ArrayType(row)))
    fields += [T.StructField(a, T.LongType() if kind == "long" else T.DoubleType()) for a, kind in aggregates]
    return T.StructType(fields)


@contextlib.contextmanager
def phase(spark: SparkSession, timings: dict[str, float], name: str) -> Iterator[None]:
    """Time a phase into ``timings`` and label its Spark jobs ``cer_theory: <name>`` (the job description
    Spark's UI and status tracker show), restoring the caller's own description afterwards."""
    context = spark.sparkContext
    previous = context.getLocalProperty("spark.job.description")
    context.setJobDescription(f"cer_theory: {name}")
    start = time.perf_counter()
    try:
        yield
    finally:
        timings[name] = timings.get(name, 0.0) + time.perf_counter() - start
        context.setLocalProperty("spark.job.description", previous)  # type: ignore[arg-type]


def run_query(spark: SparkSession, df: DataFrame, query: Query | str, **options: Any) -> DataFrame:
    """The complex events of ``query`` over ``df`` as a DataFrame (schema in the module docstring); options as
    for :func:`run`."""
    return run(spark, df, query, **options).matches


def _distribute(spark: SparkSession, plan: Plan, events: DataFrame, attributes: list[str], count: int,
                slices: int | None, sizes: dict | None = None) -> tuple[DataFrame, TaskSpec, int]:
    """Events laid out for the plan's tasks, sorted by (slice, position) within each task. ``sizes``: the good
    events per partition key, when counted (:mod:`cer_theory.spark.layout` places the keys)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    columns = ("type", *attributes, POSITION_ATTRIBUTE) if plan.window_attribute == POSITION_ATTRIBUTE \
        else ("type", *attributes)
    cores = spark.sparkContext.defaultParallelism
    if plan.mode == "partitioned":
        keys = list(plan.partition_attributes)
        if sizes is None:
            n = slices or task_count(None, cores)
            laid = events.withColumn("__slice", F.lit(0)).repartition(n, *keys)
            return laid.sortWithinPartitions("__pos"), TaskSpec(plan.task_query, columns), n
        n = slices or task_count(len(sizes), cores)
        route = routing_values(n)
        placed = balance(sizes, n)
        table = spark.createDataFrame([(*key, route[t]) for key, t in placed.items()],
                                      events.select(*keys).schema.add("__task", T.IntegerType()))
        laid = (events.join(F.broadcast(table), keys).withColumn("__slice", F.lit(0))
                .repartition(n, "__task"))
        return laid.sortWithinPartitions("__pos"), TaskSpec(plan.task_query, columns), n
    if plan.mode == "single":
        laid = events.withColumn("__slice", F.lit(0)).repartition(1)
        return laid.sortWithinPartitions("__pos"), TaskSpec(plan.task_query, columns), 1
    n = slices or max(1, min(2 * cores, math.ceil(count / EVENTS_PER_SLICE)))
    length = max(1, math.ceil(max(count, 1) / n))
    window = plan.task_query.within
    assert window is not None
    key = F.col(plan.window_attribute)  # type: ignore[arg-type]
    if plan.window_attribute == POSITION_ATTRIBUTE:
        starts = [s * length for s in range(n)]
    else:
        found = dict(events.filter(F.col("__pos") % length == 0)
                     .select((F.col("__pos") / length).cast("long"), key).collect())
        starts = [found.get(s, math.inf) for s in range(n)]
    own = F.floor(F.col("__pos") / length).cast("int")
    # The last slice whose first key is within the window after this event: it reads the event as history.
    finite = [s for s in starts if s != math.inf]
    keys_sql = "array(" + ", ".join(repr(float(s)) for s in finite) + ")"
    reach = F.expr(f"size(filter({keys_sql}, k -> k <= {plan.window_attribute} + {float(window.size)!r})) - 1")
    route = "array(" + ", ".join(str(v) for v in routing_values(n)) + ")"  # slice s → task s (layout.py)
    laid = (events.withColumn("__slice", F.explode(F.sequence(own, F.greatest(own, reach.cast("int")))))
            .withColumn("__task", F.expr(f"element_at({route}, __slice + 1)"))
            .repartition(n, "__task").sortWithinPartitions("__slice", "__pos"))
    return laid, TaskSpec(plan.task_query, columns, tuple(s * length for s in range(n))), n


def _rejected(checked: DataFrame) -> DataFrame:
    from pyspark.sql import functions as F

    flagged = checked.filter("__error IS NOT NULL OR __unpartitioned")
    fatal = F.col("__error").isNotNull()
    return flagged.select(
        F.col("__row").alias("position"),
        F.when(fatal, F.col("__field")).otherwise(F.lit(None)).alias("field"),
        F.when(fatal, F.col("__error")).otherwise(F.lit(UNPARTITIONED)).alias("error"),
        fatal.alias("fatal"),
        F.col("__given").alias("row"))
