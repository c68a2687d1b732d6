"""One way to run a CEQL query over a stream (the CORE paper, *CORE: a Complex Event Recognition Engine*, §2.2 and §4):
:func:`run_stream` takes the query and the source — a JSON Lines, CSV or Parquet file, standard input, or events
in memory (Events, dicts, a DataFrame, an Arrow table) — and returns a :class:`Run`: the matches as they are
found, and afterwards what the run counted. ``cer-theory run``, Spark's ``--check``, the conformance harness and
the notebooks all go through it (docs/decisions.md D171).

What it decides, so that no caller has to:

* **How the source is read.** A regular file in time order goes by batches through the columns, falling back to
  the row readers at the first batch that is not exactly columnar (docs/decisions.md D87), and is read once; a
  JSON Lines or CSV file smaller than ``columnar_from`` bytes is read by the row readers in the same single pass
  (loading numpy and Arrow would cost more than the columns save, D174). Standard input, a pipe, or a stream
  with an allowed lateness is read one event at a time through the row readers, checked against the
  declarations (given, or inferred as the events arrive).
* **Re-ordering.** With a lateness (``lateness``, else a declared ``CREATE QUARANTINE``'s), events are re-ordered
  by the window's timestamp (else ``time_attribute``, else ``time``) and the late ones go to ``late_sink``: a file
  written aside and renamed into place when the run ends (:class:`LateEvents`).
* **Errors in file terms.** An engine error names the event by its stream position; the run restates it with
  the file and the event's line (docs/decisions.md D105).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from cer_theory.core.durations import seconds
from cer_theory.core.errors import CerError, StreamFormatError
from cer_theory.core.events import Event
from cer_theory.engines.core.engine import Engine
from cer_theory.engines.core.matches import Match
from cer_theory.formalisms.ceql.ast import DEFAULT_TIME_ATTRIBUTE, Query, StreamDeclaration
from cer_theory.formalisms.ceql.declarations import declared_lateness, schema_of
from cer_theory.streams.reorder import reorder
from cer_theory.streams.rows import STDIN, iter_file, rereadable, stream_format
from cer_theory.streams.schema import Schema
from cer_theory.streams.paths import late_path
from cer_theory.streams.writers import OutputFile

if TYPE_CHECKING:  # (numpy and Arrow are loaded with the first batch, D174)
    from cer_theory.streams.blocks import ReadLimits
    from cer_theory.streams.schema_check import SchemaCheck

COLUMNAR_FROM = 1 << 16
"""Bytes from which a JSON Lines or CSV file goes through the columns (below, loading numpy and Arrow costs more
than the columns save: D174)."""

Progress = Callable[[int], None]
"""``progress(events_read_so_far)``: called after each batch, or each event on the row path."""


class MatchSink(Protocol):
    """Where a run writes its matches (:class:`~cer_theory.engines.core.output.MatchWriter` is one)."""

    count: int

    def attach(self, engine: Engine) -> None: ...

    def write(self, match: Match) -> None: ...

    def close(self) -> None: ...

    def discard(self) -> None: ...


class LateEvents:
    """The side output of a run with a lateness: each event too late to re-order, as a JSON line ``{"line",
    "watermark", "event"}`` in ``path``, counted. Written aside (an :class:`~cer_theory.streams.writers.OutputFile`,
    opened at the first late event) and renamed into place by :meth:`close`; :meth:`discard` drops it, so an
    interrupted or failed run leaves no half file under the name (docs/decisions.md D161)."""

    def __init__(self, path: str | Path) -> None:
        self.path, self.count = str(path), 0
        self._file: OutputFile | None = None

    def __call__(self, line: int, event: Event, watermark: float) -> None:
        if self._file is None:
            self._file = OutputFile(self.path, "jsonl")
        self.count += 1
        self._file.write(json.dumps({"line": line, "watermark": watermark, "event": event.to_dict()}) + "\n")

    def close(self) -> None:
        if self._file is not None:
            self._file.commit()
            self._file = None

    def discard(self) -> None:
        if self._file is not None:
            self._file.discard()
            self._file = None


class Run:
    """A query running over a source: iterate it for the matches (each as soon as its last event is read), then
    read what it counted. Built by :func:`run_stream`."""

    def __init__(self, engine: Engine, matches: Iterator[Match], late: LateEvents | None,
                 lateness: float | None) -> None:
        self.engine, self.late, self.lateness = engine, late, lateness
        self._matches = matches
        self.written = 0

    def __iter__(self) -> Iterator[Match]:
        try:
            yield from self._matches
        except BaseException:  # (an error, Ctrl-C, SIGTERM: no late-events file is replaced by a part)
            if self.late is not None:
                self.late.discard()
            raise
        if self.late is not None:
            self.late.close()

    @property
    def events(self) -> int:
        """Events read so far (the engine's next position)."""
        return self.engine.position

    @property
    def unpartitioned(self) -> int:
        """Events with a NULL PARTITION BY attribute: in no partition (the CORE paper §2.2)."""
        return self.engine.unpartitioned

    @property
    def late_count(self) -> int:
        return 0 if self.late is None else self.late.count


def run_stream(query: Query | str, source: str | Path | Iterable | object, *, input_format: str | None = None,
               declarations: Sequence = (), lateness: str | float | None = None,
               late_sink: str | Path | LateEvents | None = None, time_attribute: str | None = None,
               writer: MatchSink | None = None, progress: Progress | None = None, engine: Engine | None = None,
               columnar_from: int = COLUMNAR_FROM, limits: ReadLimits | None = None) -> Run:
    """Run ``query`` over ``source`` (a file path, ``"-"`` for standard input, or events in memory).

    ``declarations`` are CEQL ``CREATE STREAM`` / ``CREATE QUARANTINE`` declarations (the schema is inferred from
    the data without a ``CREATE STREAM``); ``lateness`` is a duration (:mod:`cer_theory.core.durations`) and wins
    over a declared QUARANTINE; ``late_sink`` is where the late events go (default ``SOURCE.late.jsonl``).
    With ``writer`` the run is drained into it (the engine hands its CEs straight to the writer, docs/decisions.md
    D155) and the returned :class:`Run` is finished; without, the Run yields the matches lazily. ``engine``: an
    Engine of ``query`` to run (default: a new one); ``columnar_from``: the size from which a file goes through
    the columns; ``limits``: how the block readers read the file (default: ``ReadLimits()``, docs/decisions.md
    D166). With ``writer``, the writer is closed when the run ends and discarded when it fails or is
    interrupted (D161)."""
    engine = engine if engine is not None else Engine(query)
    allowed = seconds(lateness, "lateness") if lateness is not None else declared_lateness(list(declarations))
    if writer is not None:
        writer.attach(engine)
    late = None
    if isinstance(source, (str, Path)):
        path = str(source)
        if allowed is None and rereadable(path) and _columnar(path, input_format, columnar_from):
            matches = file_matches(engine, path, input_format, _declared_schema(declarations), progress=progress,
                                   limits=limits)
        elif allowed is None and rereadable(path):  # one pass, the schema learnt as the events come, as above
            matches = _row_matches(engine, _learnt_events(path, input_format, declarations), path, progress)
        else:
            pairs = _checked_events(path, input_format, declarations)
            if allowed is not None:
                late = _late_sink(late_sink, path)
                pairs = reorder(pairs, attribute=reorder_key(engine.query, time_attribute), lateness=allowed,
                                on_late=late, source=_name(path))
            matches = _row_matches(engine, pairs, _name(path), progress)
    elif allowed is not None:
        late = _late_sink(late_sink, None)
        pairs = reorder(((k, _event(e, k)) for k, e in enumerate(_iterable(source))),
                        attribute=reorder_key(engine.query, time_attribute), lateness=allowed, on_late=late)
        matches = _row_matches(engine, pairs, None, progress)
    else:
        matches = engine.process(source)  # type: ignore[arg-type]
    run = Run(engine, matches, late, allowed)
    if writer is not None:
        try:
            for match in run:
                writer.write(match)
                run.written += 1
        except BaseException:  # (an error, Ctrl-C, SIGTERM: no output file is replaced by a part)
            writer.discard()
            raise
        writer.close()
    return run


def reorder_key(query: Query, time_attribute: str | None = None) -> str:
    """The attribute events are re-ordered by: the window's timestamp, else ``time_attribute``, else ``time``."""
    window = query.within
    if window is not None and window.kind != "events":
        return window.attribute or DEFAULT_TIME_ATTRIBUTE
    return time_attribute or DEFAULT_TIME_ATTRIBUTE


def _late_sink(sink: str | Path | LateEvents | None, path: str | None) -> LateEvents:
    if isinstance(sink, LateEvents):
        return sink
    target = late_path(path, sink)
    if path not in (None, STDIN) and Path(target).resolve() == Path(path).resolve():  # type: ignore[arg-type]
        raise CerError(f"the late events' file {target} is the input stream")
    return LateEvents(target)


def _event(item: object, line: int) -> Event:
    return item if isinstance(item, Event) else Event.from_dict(item, line=line)  # type: ignore[arg-type]


def _iterable(source: object) -> Iterable:
    module = type(source).__module__
    if module.startswith("pandas"):
        return source.to_dict("records")  # type: ignore[attr-defined]
    if module.startswith("pyarrow"):
        return source.to_pylist()  # type: ignore[attr-defined]
    return source  # type: ignore[return-value]


def _name(path: str) -> str:
    return "<stdin>" if path == STDIN else path


def _declared_schema(declarations: Sequence) -> Schema | None:
    """The declared schema, or None: the columnar path infers it in its one pass over the file."""
    if any(isinstance(d, StreamDeclaration) for d in declarations):
        return schema_of(declarations)
    return None


def _columnar(path: str, fmt: str | None, columnar_from: int) -> bool:
    """Whether a file in time order goes through the columns: Parquet always, else from ``columnar_from`` bytes."""
    if fmt == "parquet" or Path(path).suffix.lower() in (".parquet", ".pq"):
        return True
    return os.path.getsize(path) >= columnar_from


def _learnt_events(path: str, fmt: str | None, declarations: Sequence) -> Iterator[tuple[int, Event]]:
    """``(line, event)`` of a file read once, checked against the declarations or against the schema learnt as
    the events come (an attribute that changes kind fails where it does, after the matches before it: the
    columnar path's reading, D88)."""
    events = iter_file(path, stream_format(path, fmt))
    if any(isinstance(d, StreamDeclaration) for d in declarations):
        return schema_of(declarations).check_lines(events, source=path)
    return Schema.inferring(events, source=path)


def _checked_events(path: str, fmt: str | None, declarations: Sequence) -> Iterator[tuple[int, Event]]:
    """``(line, event)`` of the stream, checked against the declarations, or the schema the data declares: read
    twice from a file (nothing is output from a bad file), learnt as the events arrive from a pipe."""
    if fmt == "parquet" or path.lower().endswith(".parquet"):
        raise CerError(f"{path}: Parquet is read from a regular file, in time order (no lateness)")
    if any(isinstance(d, StreamDeclaration) for d in declarations):
        return schema_of(declarations).check_lines(iter_file(path, fmt), source=path)
    if not rereadable(path):
        return Schema.inferring(iter_file(path, fmt), source=_name(path))
    schema = Schema.infer(iter_file(path, fmt), source=path)
    return schema.check_lines(iter_file(path, fmt), source=path)


def _row_matches(engine: Engine, pairs: Iterator[tuple[int, Event]], source: str | None,
                 progress: Progress | None) -> Iterator[Match]:
    """The engine over ``(line, event)`` pairs one at a time; an engine error names the line of the event."""
    line: int | None = None

    def events() -> Iterator[Event]:
        nonlocal line
        for k, (line, event) in enumerate(pairs, 1):
            yield event
            if progress is not None:
                progress(k)

    try:
        yield from engine.process(events())
    except StreamFormatError as exc:
        if source is None:
            raise
        raise in_file_terms(exc, lambda _position: line, source) from None


def file_matches(engine: Engine, path: str | Path, fmt: str | None = None, schema: Schema | None = None, *,
                 progress: Progress | None = None, limits: ReadLimits | None = None) -> Iterator[Match]:
    """The matches of ``engine`` over a JSON Lines, CSV or Parquet file checked against ``schema`` (None: inferred
    in the same pass): batches through the columns while they are exactly columnar, then the row path from the
    first batch that is not (docs/decisions.md D87). The file is read once. ``progress`` is called with the
    events read so far after each columnar batch; ``limits``: how the file is read (docs/decisions.md D166)."""
    from cer_theory.streams.batch import Fallback  # numpy and Arrow come with the first batch (D174)
    from cer_theory.streams.blocks import ReadLimits, file_batches
    from cer_theory.streams.schema_check import SchemaCheck

    fmt = stream_format(path, fmt)
    check = SchemaCheck(schema, str(path))
    done = 0
    for rows in file_batches(path, fmt, partition=engine.partition_attributes,
                            limits=limits if limits is not None else ReadLimits()):
        if isinstance(rows, Fallback):
            break
        try:
            check.batch(rows)
        except Fallback:
            break
        try:
            yield from engine.process_batch(rows)
        except StreamFormatError as exc:
            raise in_file_terms(exc, lambda p: None if p is None else rows.line(p - rows.first), str(path)) from None
        done += len(rows)
        if progress is not None:
            progress(done)
    else:
        return
    lines: dict[int, int] = {}
    try:
        yield from engine.process(file_events(path, fmt, check, done, lines))
    except StreamFormatError as exc:
        raise in_file_terms(exc, lines.get, str(path)) from None


def file_events(path: str | Path, fmt: str, check: SchemaCheck, skip: int,
                lines: dict[int, int] | None = None) -> Iterator[Event]:
    """The row path from the ``skip``-th event on: the row readers, each event checked against the declaration.
    ``lines`` (when given) keeps the file line of the event at the latest position, for error messages."""
    from cer_theory.streams.blocks import iter_rows  # (D174)

    rows = iter_rows(path, fmt)
    for _ in range(skip):
        if next(rows, None) is None:
            return
    for position, (line, event) in enumerate(rows, skip):
        if lines is not None:
            lines.clear()
            lines[position] = line
        yield check.event(line, event)


def in_file_terms(exc: StreamFormatError, line_of: Callable[[int | None], int | None], source: str
                  ) -> StreamFormatError:
    """An engine error, which names the event by its 0-based stream position, restated with the file and the
    event's line in it (``line_of(position)``; docs/decisions.md D105); errors of the readers already name both."""
    if exc.source is not None:
        return exc
    message = str(exc)
    if exc.line is not None or exc.field is not None:
        message = message.split(": ", 1)[1]
    return StreamFormatError(message, source=source, line=line_of(exc.line), field=exc.field)


__all__ = ["COLUMNAR_FROM", "LateEvents", "MatchSink", "Progress", "Run", "file_events", "file_matches", "in_file_terms",
           "late_path", "reorder_key", "run_stream"]
