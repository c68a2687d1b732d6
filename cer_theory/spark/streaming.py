"""CEQL over a Structured Streaming source: one replaying engine per PARTITION BY key, exactly once.

The stream carries its positions
    In a stream there is no global row order to number the events by (files arrive in any grouping, micro-batches
    are shuffled), so each event carries its **stream position**: an integer column (``position`` by default),
    increasing along the stream. Positions are what the output reports and what ``WITHIN n EVENTS`` counts
    (gaps count too: a rejected row keeps its position, unlike the batch pipeline, which renumbers the accepted
    rows). File sources are read in modification-time order, so later files must hold later positions.

Keys and state (docs/decisions.md D29, D32)
    The events are grouped by the PARTITION BY values (one constant key without PARTITION BY) and each key's
    state is a **replay buffer**: the key's events still inside the window of its latest event, its last
    position and timestamp, and, with CONSUME BY, the position after its last reported complex event. Each
    micro-batch sorts a key's new events by position, runs a fresh :class:`~cer_theory.engines.core.Engine` over
    buffer + new events and keeps the matches that end at a new event. A match ending at *j* lies in the window
    before *j* and, without LIMIT or NEXT/LAST/MAX, depends only on those events (the argument of the batch
    "sliced" plan, :mod:`cer_theory.spark.plan`); with CONSUME BY the engine forgets every partial match at a
    report, so the replay starts after the last report. Hence the output is the single-process engine's.
    Rejected (:class:`~cer_theory.core.errors.UnsupportedError`, with the reason): no WITHIN (the state would grow
    with the stream), NEXT/LAST/MAX (they compare a match with matches starting before the window), LIMIT (it
    keeps the first n of an enumeration order that depends on the events before the window), and CONSUME BY ANY
    with PARTITION BY (a report in one key resets the others).

Event time and expiry
    A key's state expires (``GroupStateTimeout.EventTimeTimeout``) once the watermark passes its latest event
    time + the window, so idle keys do not accumulate. Event time is the window attribute read as **seconds
    since the epoch** (a duration window reads seconds already), or the position as seconds for an EVENTS
    window; ``lateness`` (the watermark delay) is in the same unit. Spark drops the rows behind the watermark
    before a stateful operator; here none is dropped: an event that is behind the watermark and finds no state
    for its key (it may have expired) is rejected with that reason.

Nothing is dropped silently
    The side output (``<output>/rejected``, schema ``position, field, error, fatal, row`` as in batch) lists
    the rows that break the declaration (:mod:`cer_theory.spark.validate`), rows without a position, events
    whose position is not after their key's last one (late or duplicated), timestamps that decrease within a
    key, events behind the watermark without state, and, as non-fatal notes, the rows with a NULL PARTITION BY
    value (in no partition).

Exactly once
    Each micro-batch is written by ``foreachBatch`` to ``<output>/matches/batch=<id>`` and
    ``<output>/rejected/batch=<id>`` in overwrite mode. A batch that Spark re-executes after a restart (its
    offsets logged, its commit not) sees the same input and the same state version and so rewrites the same
    rows in the same place: restarts neither lose nor duplicate complex events. :func:`read_stream_output`
    reads them back, with the batch pipeline's schema.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cer_theory.core.durations import seconds
from cer_theory.core.errors import CerError, UnsupportedError
from cer_theory.engines.core import Engine
from cer_theory.formalisms.ceql.ast import Query, StreamDeclaration
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.formalisms.ceql.semantics import partition_attributes
from cer_theory.spark.batch import READ_OPTIONS, REJECTED_SCHEMA, declaration_kinds, input_format, query_id_of
from cer_theory.spark.plan import POSITION_ATTRIBUTE, task_query
from cer_theory.spark.validate import UNPARTITIONED, check_rows, normalize_columns, spark_kind

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming import StreamingQuery
    from pyspark.sql.types import StructType

POSITION_COLUMN = "position"
STATE_SCHEMA = "last_pos long, last_key double, resume long, buffer string"
"""Per key: its last position and window key (timestamp, or position for EVENTS windows), the first position
a replay may use (after the last reported match), and the buffered events as JSON ``[[pos, type, attrs…], …]``."""
META = "_meta.json"
"""``<output>/_meta.json``: the output format and schemas, for :func:`read_stream_output`."""
FORMATS = ("json", "parquet")
MAX_SECONDS = 9.0e12
"""Event times are clamped to ±this many seconds (about year 287,000: Spark's timestamps end near 294,000)."""
_WATERMARK_KEY = "spark.watermarkDelayMs"  # Spark's column metadata marking the event-time column


# --------------------------------------------------------------------------------------------- the query


def check_streamable(query: Query) -> Query:
    """The query each key's engine runs (EVENTS windows over ``__pos``), or :class:`UnsupportedError` saying
    why the query cannot run incrementally with state bounded by its window."""
    parts = query.partition_by
    consume = (query.consume or "NONE").upper()
    strategy = (query.strategy or "ALL").upper()
    if query.within is None:
        raise UnsupportedError("streaming needs a WITHIN window: without one a match may span the whole stream, "
                               "so each key's state would grow with the stream")
    if strategy in ("NEXT", "LAST", "MAX"):
        raise UnsupportedError(f"SELECT {strategy} cannot stream: it compares each match with matches that start "
                               f"before the window, which the window-bounded state no longer holds")
    if query.limit is not None:
        raise UnsupportedError("LIMIT cannot stream: it keeps the first n matches of the engine's enumeration "
                               "order, which depends on events before the window that the state no longer holds")
    if parts and consume == "ANY":
        raise UnsupportedError("CONSUME BY ANY with PARTITION BY cannot stream: a match in one key resets every "
                               "other key, so keys are not independent (use CONSUME BY PARTITION)")
    return task_query(query)


@dataclass(frozen=True)
class KeySpec:
    """What the state function needs: the query it runs, the event columns (``type`` + attributes, in the
    buffer's order) with their kinds (``long``, ``double``, ``str``, ``bool``), the window key column
    (a timestamp attribute or ``__pos``), and the name of the position column."""

    query: Query
    columns: tuple[str, ...]
    kinds: tuple[str, ...]
    window_key: str
    position_column: str = POSITION_COLUMN
    partition_attributes: tuple[str, ...] = ()

    @property
    def consume(self) -> bool:
        return (self.query.consume or "NONE").upper() != "NONE"


# --------------------------------------------------------------------------------------------- one key


def _convert(kind: str, value: Any) -> Any:
    """A pandas cell as the JSON value of its Spark column (Arrow turns integers with NULLs into floats)."""
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if kind == "long":
        return int(value)
    if kind == "double":
        return float(value)
    if kind == "bool":
        return bool(value)
    return str(value)


def _row_json(names: Sequence[str], values: Sequence[Any]) -> str:
    """A row as Spark's ``to_json`` writes it: NULL fields left out."""
    return json.dumps({n: v for n, v in zip(names, values) if v is not None}, separators=(",", ":"))


@dataclass
class KeyState:
    """The state of one key (see :data:`STATE_SCHEMA`); ``buffer`` rows are ``[pos, type, attrs…]``."""

    last_pos: int
    last_key: float
    resume: int
    buffer: list[list[Any]]

    def to_tuple(self) -> tuple:
        return (self.last_pos, float(self.last_key), self.resume, json.dumps(self.buffer, separators=(",", ":")))

    @classmethod
    def from_tuple(cls, value: Sequence[Any]) -> KeyState:
        return cls(int(value[0]), float(value[1]), int(value[2]), json.loads(value[3]))


def advance(spec: KeySpec, state: KeyState | None, rows: Sequence[Mapping[str, Any]],
            watermark_ms: int = 0) -> tuple[KeyState | None, list[dict], list[dict]]:
    """One micro-batch of one key: ``rows`` (dicts with the position column, ``type``, the attributes, and
    ``__error``/``__field``/``__unpartitioned`` from the row checks). Returns the new state, the matches ending
    at the new events (``start``, ``end``, ``positions``, ``events`` as JSON) and the rejected rows
    (:data:`~cer_theory.spark.batch.REJECTED_SCHEMA`)."""
    pcol = spec.position_column
    names = [pcol, *spec.columns]
    rejected: list[dict] = []
    good: list[list[Any]] = []

    def reject(values: list[Any], field: str | None, error: str, fatal: bool = True, raw: Any = None) -> None:
        rejected.append({"position": values[0], "field": field, "error": error, "fatal": fatal,
                         "row": raw if isinstance(raw, str) else _row_json(names, values)})

    for row in rows:
        values = [_convert("long", row.get(pcol)) if _integral(row.get(pcol)) else None,
                  *(_convert(k, row.get(c)) for c, k in zip(spec.columns, spec.kinds))]
        if row.get("__error") is not None:
            reject(values, row.get("__field"), str(row["__error"]), raw=row.get("__raw"))
        elif bool(row.get("__unpartitioned")):
            reject(values, None, UNPARTITIONED, fatal=False, raw=row.get("__raw"))
        else:
            good.append(values)
    good.sort(key=lambda v: (v[0], json.dumps(v[1:], sort_keys=True)))  # deterministic when re-executed
    key_index = None if spec.window_key == POSITION_ATTRIBUTE else 1 + spec.columns.index(spec.window_key)
    fresh = state is None
    last_pos = None if state is None else state.last_pos
    last_key = None if state is None else state.last_key
    new: list[list[Any]] = []
    for values in good:
        pos = values[0]
        key = float(pos if key_index is None else values[key_index])
        what = "position" if key_index is None else spec.window_key
        if last_pos is not None and pos <= last_pos:
            reject(values, pcol, f"position {pos} is not after {last_pos}, the last position processed for this "
                                 f"key: a key's events must arrive in position order (a late or duplicated event)")
        elif last_key is not None and key < last_key:
            reject(values, spec.window_key, f"{what} = {_num(key)} is earlier than {_num(last_key)}, the timestamp "
                                            f"of an earlier event of this key: the window needs non-decreasing "
                                            f"timestamps in stream order (docs/decisions.md D30)")
        elif fresh and watermark_ms > 0 and key * 1000 < watermark_ms:
            reject(values, pcol if key_index is None else spec.window_key,
                   f"{what} = {_num(key)} is behind the watermark ({_num(watermark_ms / 1000)} s) and its key has "
                   f"no state (it may have expired): raise the lateness to accept events this late")
        else:
            new.append(values)
            last_pos, last_key = pos, key
    if not new:
        return state, [], rejected
    assert last_pos is not None and last_key is not None
    resume = 0 if state is None else state.resume
    replay = [v for v in (state.buffer if state else []) if v[0] >= resume] + new
    matches, resume = _replay(spec, replay, len(replay) - len(new), resume)
    window = spec.query.within
    assert window is not None
    kept = [v for v in replay if v[0] >= resume and window.admits(_key(v, key_index), last_key)]
    return KeyState(last_pos, last_key, resume, kept), matches, rejected


def _replay(spec: KeySpec, replay: list[list[Any]], first_new: int, resume: int) -> tuple[list[dict], int]:
    """A fresh engine over ``replay``; the matches ending at ``replay[first_new:]`` and the new resume point."""
    import pandas as pd

    frame = pd.DataFrame([v[1:] for v in replay], columns=list(spec.columns))
    if spec.window_key == POSITION_ATTRIBUTE:
        frame[POSITION_ATTRIBUTE] = [v[0] for v in replay]
    out = []
    for match in Engine(spec.query).process(frame):
        if match.end < first_new:
            continue  # an old match, seen again in the replay (it was reported in its own batch)
        out.append({"start": replay[match.start][0], "end": replay[match.end][0],
                    "positions": [replay[p][0] for p in match.positions],
                    "events": "[" + ",".join(_row_json(spec.columns, replay[p][1:]) for p in match.positions)
                              + "]"})
        if spec.consume:
            resume = replay[match.end][0] + 1  # the engine forgot every partial match: replay after it
    return out, resume


def _key(values: list[Any], key_index: int | None) -> float:
    return float(values[0] if key_index is None else values[key_index])


def _integral(value: Any) -> bool:
    try:
        return value is not None and not isinstance(value, (bool, str)) and float(value) == int(value)
    except (TypeError, ValueError, OverflowError):
        return False


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def timeout_ms(spec: KeySpec, state: KeyState, watermark_ms: int) -> int:
    """When the key's state may go: once the watermark passes its latest event time + the window, any event
    the key can still accept (at or after the watermark) is outside the window of every buffered event."""
    window = spec.query.within
    assert window is not None
    end = min(state.last_key + window.size, MAX_SECONDS)
    return max(math.ceil(end * 1000) + 1, watermark_ms, 1)


# --------------------------------------------------------------------------------------------- Spark


def _state_function(spec: KeySpec, output_columns: Sequence[str], key: tuple, pdfs: Iterator[pd.DataFrame],
                    state: Any) -> Iterator[pd.DataFrame]:
    """``applyInPandasWithState`` body: :func:`advance` on the key's new rows, the state kept or expired."""
    import pandas as pd

    if state.hasTimedOut:
        state.remove()  # the watermark passed the window of the key's latest event
        return
    frames = [p for p in pdfs if len(p)]
    if not frames:
        return
    rows = pd.concat(frames, ignore_index=True).to_dict("records")
    old = KeyState.from_tuple(state.get) if state.exists else None
    watermark = state.getCurrentWatermarkMs()
    new, matches, rejected = advance(spec, old, rows, watermark)
    if new is not None:
        if new is not old:
            state.update(new.to_tuple())
        state.setTimeoutTimestamp(timeout_ms(spec, new, watermark))  # reset at every call (GroupState)
    parts = dict(zip(spec.partition_attributes, key)) if spec.partition_attributes else {}
    out = [{"kind": "match", **parts, **m} for m in matches] + [{"kind": "rejected", **r} for r in rejected]
    if out:  # object columns: None stays NULL (NaN would not convert to a long or an array)
        yield pd.DataFrame([[r.get(c) for c in output_columns] for r in out], columns=list(output_columns),
                           dtype=object)


def _kind_of(data_type: Any) -> str:
    """The column kind a replay buffer stores: bool, long, double or str (numbers keep integrality)."""
    from pyspark.sql import types as T

    kind = spark_kind(data_type)
    if kind == "num":
        return "long" if isinstance(data_type, T.IntegralType) else "double"
    return kind if kind == "bool" else "str"


def read_stream(spark: SparkSession, path: str, *, format: str | None = None, schema: StructType | str | None = None,
                max_files_per_trigger: int | None = None) -> DataFrame:
    """A streaming DataFrame over the event files in the directory ``path`` (JSON Lines, CSV with a header, or
    Parquet; by extension unless ``format``). A file source needs a schema: without ``schema`` it is inferred
    from a batch read of the files present now (so at least one must be there)."""
    fmt = input_format(path, format)
    if schema is None:
        try:
            schema = spark.read.options(**READ_OPTIONS[fmt]).format(fmt).load(path).schema
        except Exception as e:  # noqa: BLE001 - Spark raises several kinds for an empty or missing directory
            raise CerError(f"{path}: cannot infer the stream's schema from the files present ({e.__class__.__name__}"
                           f"); add a file or pass schema=") from None
    stream = spark.readStream.schema(schema).format(fmt)
    if fmt == "csv":
        stream = stream.option("header", "true")
    if max_files_per_trigger is not None:
        stream = stream.option("maxFilesPerTrigger", int(max_files_per_trigger))
    return stream.load(path)


def _prepare(source: DataFrame, query: Query, declaration: str | Sequence[StreamDeclaration] | None,
             position_column: str, lateness: str | float) -> tuple[DataFrame, KeySpec]:
    """The checked, watermarked events and the key spec."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    runs = check_streamable(query)
    parts = partition_attributes(query.partition_by)
    if "type" not in source.columns:
        raise CerError(f"the events need a 'type' column (columns: {', '.join(source.columns)})")
    if position_column not in source.columns:
        raise CerError(f"the events need a stream position column {position_column!r} (an increasing integer: a "
                       f"stream has no global order to number them by); columns: {', '.join(source.columns)}")
    if not isinstance(source.schema[position_column].dataType, T.NumericType):
        raise CerError(f"the position column {position_column!r} must be an integer, not "
                       f"{source.schema[position_column].dataType.simpleString()}")
    attributes = [c for c in source.columns if c not in ("type", position_column)]
    missing = [p for p in parts if p not in attributes]
    if missing:
        raise CerError(f"PARTITION BY {', '.join(missing)}: no such column (columns: {', '.join(source.columns)})")
    window = runs.within
    assert window is not None
    window_key = POSITION_ATTRIBUTE if window.attribute == POSITION_ATTRIBUTE else (window.attribute or "time")
    df = normalize_columns(source, attributes)
    df = df.withColumn("__raw", F.to_json(F.struct("type", *attributes, position_column)))  # before the casts
    checked = check_rows(df, attributes=attributes, kinds=declaration_kinds(declaration),
                         time_attribute=None if window_key == POSITION_ATTRIBUTE else window_key,
                         partition_attributes=parts)
    pos = F.col(position_column)
    bad_position = pos.isNull() | (pos.cast("double") != F.floor(pos).cast("double"))
    message = F.format_string(f"the stream position {position_column!r} is missing or not an integer "
                              f"(got %s)", pos.cast("string"))
    checked = (checked
               .withColumn("__field", F.when(bad_position, F.lit(position_column)).otherwise(F.col("__field")))
               .withColumn("__error", F.when(bad_position, message).otherwise(F.col("__error")))
               .withColumn("__unpartitioned", F.col("__unpartitioned") & ~bad_position))
    good = F.col("__error").isNull() & ~F.col("__unpartitioned")
    checked = checked.withColumn("__raw", F.when(~good, F.col("__raw")))  # only reported rows need it
    seconds = pos if window_key == POSITION_ATTRIBUTE else F.col(window_key)
    # Clamped into Spark's timestamp range (a cast that overflows fails under ANSI SQL): beyond it the
    # watermark stops advancing, which only keeps state longer.
    seconds = F.least(F.greatest(seconds.cast("double"), F.lit(-MAX_SECONDS)), F.lit(MAX_SECONDS))
    checked = checked.withColumn("__evtime", F.when(good, F.timestamp_micros((seconds * 1e6).cast("long"))))
    delay_ms = _delay_ms(lateness)
    watermarked = checked.withWatermark("__evtime", f"{delay_ms} milliseconds")
    # Spark drops the rows behind the watermark before a stateful operator; nulling the marked column (keeping
    # its marker) turns that off, so :func:`advance` sees those rows and reports them instead.
    visible = watermarked.withColumn("__evtime", F.lit(None).cast("timestamp")
                                     .alias("__evtime", metadata={_WATERMARK_KEY: delay_ms}))
    kinds = tuple(_kind_of(checked.schema[c].dataType) for c in ("type", *attributes))
    spec = KeySpec(runs, ("type", *attributes), kinds, window_key, position_column, parts)
    return visible, spec


def _delay_ms(lateness: str | float) -> int:
    """The watermark delay in whole milliseconds: a duration of :mod:`cer_theory.core.durations` (``2``, ``"500
    ms"``, ``"1 minute 30 seconds"``), the one grammar of ``run --lateness`` and ``CREATE QUARANTINE``."""
    return int(seconds(lateness, "lateness") * 1000)


def _output_schema(checked: DataFrame, spec: KeySpec) -> StructType:
    """The state function's rows: matches and rejected rows in one schema, told apart by ``kind``."""
    from pyspark.sql import types as T

    parts = [T.StructField(p, checked.schema[p].dataType) for p in spec.partition_attributes]
    fields = [T.StructField("kind", T.StringType()), *parts,
              T.StructField("start", T.LongType()), T.StructField("end", T.LongType()),
              T.StructField("positions", T.ArrayType(T.LongType())), T.StructField("events", T.StringType()),
              T.StructField("position", T.LongType()), T.StructField("field", T.StringType()),
              T.StructField("error", T.StringType()), T.StructField("fatal", T.BooleanType()),
              T.StructField("row", T.StringType())]
    return T.StructType(fields)


def _events_type(checked: DataFrame, spec: KeySpec) -> Any:
    from pyspark.sql import types as T

    return T.ArrayType(T.StructType([T.StructField(c, checked.schema[c].dataType) for c in spec.columns]))


def start_stream(spark: SparkSession, source: DataFrame, query: Query | str, *, output: str, checkpoint: str,
                 format: str = "json", declaration: str | Sequence[StreamDeclaration] | None = None,
                 lateness: str | float = "0 seconds", trigger: Mapping[str, Any] | None = None,
                 query_id: str | None = None, position_column: str = POSITION_COLUMN,
                 on_batch: Callable[[int, int, int], None] | None = None,
                 partitions: int | None = None) -> StreamingQuery:
    """Start ``query`` over the streaming DataFrame ``source`` (``type``, attributes, ``position_column``);
    matches go to ``<output>/matches``, rejected rows to ``<output>/rejected`` (``format``: json or parquet),
    state and progress to ``checkpoint``. ``trigger``: the keyword of ``DataStreamWriter.trigger``, e.g.
    ``{"availableNow": True}``; ``on_batch(batch_id, matches, rejected)`` runs after each micro-batch.
    ``partitions``: the state's partitions for a new checkpoint (default ``spark.sql.shuffle.partitions``; 1
    without PARTITION BY, which has one key); a restart keeps the checkpoint's."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
    from pyspark.sql.streaming.state import GroupStateTimeout

    if format not in FORMATS:
        raise CerError(f"unknown output format {format!r}: use one of {', '.join(FORMATS)}")
    if isinstance(query, str):
        query = parse(query)
    qid = query_id or query_id_of(query)
    checked, spec = _prepare(source, query, declaration, position_column, lateness)
    schema = _output_schema(checked, spec)
    keys = list(spec.partition_attributes) or ["__all"]  # no PARTITION BY: one key
    inputs = ["type", *spec.columns[1:], position_column, "__error", "__field", "__unpartitioned", "__raw",
              "__evtime"]
    grouped = checked.withColumn("__all", F.lit(0)).select(*dict.fromkeys(inputs + keys)).groupBy(*keys)
    func = functools.partial(_state_function, spec, schema.fieldNames())
    out = grouped.applyInPandasWithState(func, schema, STATE_SCHEMA, "append", GroupStateTimeout.EventTimeTimeout)
    partition_fields = [T.StructField(p, checked.schema[p].dataType) for p in spec.partition_attributes]
    sink = _Sink(output, format, qid, partition_fields, _events_type(checked, spec), on_batch)
    sink.write_meta(spark)
    writer = out.writeStream.foreachBatch(sink).option("checkpointLocation", checkpoint)
    if trigger:
        writer = writer.trigger(**dict(trigger))
    if partitions is None and not spec.partition_attributes:
        partitions = 1
    if partitions is None:
        return writer.start()
    # The query copies the session's settings when it starts; the partition count is then fixed in the
    # checkpoint, so the setting is only lent to the start.
    conf, name = spark.conf, "spark.sql.shuffle.partitions"
    before = conf.get(name)
    conf.set(name, str(int(partitions)))
    try:
        return writer.start()
    finally:
        conf.set(name, before)


class _Sink:
    """``foreachBatch``: each micro-batch's matches and rejected rows, written idempotently under its id."""

    def __init__(self, output: str, format: str, query_id: str, partition_fields: Sequence[Any],
                 events_type: Any, on_batch: Callable[[int, int, int], None] | None) -> None:
        self.output, self.format, self.query_id = output.rstrip("/"), format, query_id
        self.partition_fields, self.events_type, self.on_batch = list(partition_fields), events_type, on_batch

    def matches_schema(self) -> StructType:
        from pyspark.sql import types as T

        return T.StructType([T.StructField("query_id", T.StringType()), *self.partition_fields,
                             T.StructField("start", T.LongType()), T.StructField("end", T.LongType()),
                             T.StructField("positions", T.ArrayType(T.LongType())),
                             T.StructField("events", self.events_type)])

    def write_meta(self, spark: SparkSession) -> None:
        """``<output>/_meta.json`` (rewritten at every start: the same query writes the same)."""
        meta = {"format": self.format, "query_id": self.query_id, "matches": self.matches_schema().json(),
                "rejected": REJECTED_SCHEMA}
        _write_text(spark, f"{self.output}/{META}", json.dumps(meta))

    def __call__(self, batch: DataFrame, batch_id: int) -> None:
        from pyspark.sql import functions as F

        batch = batch.persist()  # the stateful plan must run once: both outputs and the counts read it
        try:
            counts = {r["kind"]: r["n"] for r in batch.groupBy("kind").agg(F.count("*").alias("n")).collect()}
            matches = batch.filter(F.col("kind") == "match").select(
                F.lit(self.query_id).alias("query_id"), *[F.col(f.name) for f in self.partition_fields],
                "start", "end", "positions", F.from_json("events", self.events_type).alias("events"))
            rejected = batch.filter(F.col("kind") == "rejected").select("position", "field", "error", "fatal",
                                                                          "row")
            for name, df in (("matches", matches), ("rejected", rejected)):
                df.write.mode("overwrite").format(self.format).save(f"{self.output}/{name}/batch={batch_id}")
        finally:
            batch.unpersist()
        if self.on_batch is not None:
            self.on_batch(batch_id, counts.get("match", 0), counts.get("rejected", 0))


def _file_system(spark: SparkSession, path: str) -> tuple[Any, Any]:
    """Hadoop's file system for ``path`` (any scheme Spark reads: local, hdfs, s3a, …) and the path, so small
    files are written without a Spark job."""
    jvm = spark.sparkContext._jvm
    hpath = jvm.org.apache.hadoop.fs.Path(path)
    return hpath.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), hpath


def _write_text(spark: SparkSession, path: str, text: str) -> None:
    fs, hpath = _file_system(spark, path)
    stream = fs.create(hpath, True)
    try:
        stream.write(bytearray(text.encode()))
    finally:
        stream.close()


def _read_text(spark: SparkSession, path: str) -> str | None:
    fs, hpath = _file_system(spark, path)
    if not fs.exists(hpath):
        return None
    jvm = spark.sparkContext._jvm
    stream = fs.open(hpath)
    try:
        return str(jvm.org.apache.commons.io.IOUtils.toString(stream, "UTF-8"))
    finally:
        stream.close()


def read_stream_output(spark: SparkSession, output: str, *, rejected: bool = False,
                       with_batch: bool = False) -> DataFrame:
    """The complex events written by a streaming run (``rejected=True``: the rejected rows), with the batch
    pipeline's schema (``with_batch``: plus the micro-batch id that wrote each row)."""
    output = output.rstrip("/")
    text = _read_text(spark, f"{output}/{META}")
    if text is None:
        raise CerError(f"{output}: no streaming output here (no {META})")
    meta = json.loads(text)
    from pyspark.sql import types as T

    name = "rejected" if rejected else "matches"
    schema = T._parse_datatype_string(meta["rejected"]) if rejected else T.StructType.fromJson(
        json.loads(meta["matches"]))
    path = f"{output}/{name}"
    try:
        df = spark.read.schema(schema).format(meta["format"]).option("basePath", path).load(path)
    except Exception:  # noqa: BLE001 - no micro-batch written yet
        return spark.createDataFrame([], schema)
    return df if with_batch else df.drop("batch")


def stream_job(spark: SparkSession, input_path: str, query: Query | str, *, output: str, checkpoint: str,
               format: str = "json", declaration: str | Sequence[StreamDeclaration] | None = None,
               follow: bool = False, progress: Callable[[str], None] | None = None,
               input_format: str | None = None, lateness: str | float = "0 seconds",
               max_files_per_trigger: int | None = None, position_column: str = POSITION_COLUMN,
               query_id: str | None = None) -> dict[str, int]:
    """``cer-theory spark --stream``: the event files of ``input_path`` as a stream, from where ``checkpoint``
    left off: every file present (``trigger(availableNow=True)``), or, with ``follow``, new files as they come
    until interrupted. Returns ``{"batches", "matches", "rejected"}`` of this run and ``"keys"``, the keys held
    in state at the end (idle keys expire: see the module docstring); ``progress(message)`` after each
    micro-batch. A query that fails is reported as a :class:`CerError` with Spark's reason."""
    from pyspark.errors import StreamingQueryException

    counts = {"batches": 0, "matches": 0, "rejected": 0, "keys": 0}

    def on_batch(batch_id: int, matches: int, rejected: int) -> None:
        counts["batches"] += 1
        counts["matches"] += matches
        counts["rejected"] += rejected
        if progress is not None:
            progress(f"micro-batch {batch_id}: {matches} complex event(s), {rejected} rejected row(s)")

    source = read_stream(spark, input_path, format=input_format, max_files_per_trigger=max_files_per_trigger)
    running = start_stream(spark, source, query, output=output, checkpoint=checkpoint, format=format,
                           declaration=declaration, lateness=lateness,
                           trigger=None if follow else {"availableNow": True}, query_id=query_id,
                           position_column=position_column, on_batch=on_batch)
    try:
        running.awaitTermination()
    except KeyboardInterrupt:
        running.stop()
    except StreamingQueryException as e:
        raise CerError(f"the streaming query failed: {_reason(e)}") from None
    last = running.lastProgress or {}
    counts["keys"] = sum(int(op.get("numRowsTotal", 0)) for op in last.get("stateOperators", []))
    return counts


def _reason(error: Exception) -> str:
    """The first line of Spark's message, without the JVM stack."""
    text = str(getattr(error, "desc", None) or error)
    return text.strip().splitlines()[0] if text.strip() else error.__class__.__name__
