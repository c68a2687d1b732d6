"""Running the tECS engine over batches of columns: what the engine reads of each row of a
:class:`~cer_theory.streams.batch.Rows` (bit vectors, window keys, partition keys), and a file's matches read
through the block readers of :mod:`cer_theory.streams.blocks` while they are exactly columnar, then the row path.

CORE (seed 001, *CORE: a Complex Event Recognition Engine*, §4.4) evaluates each event's predicates once into a
bit vector; nothing else of the event is read except the window's time key and the PARTITION BY values. They are
computed per batch, column-wise: bit vectors with :func:`cer_theory.core.predicates.vectorized.bitmasks`, time
keys and partition keys from the columns (docs/decisions.md D87–D89).

**Exactness** (docs/decisions.md D87). At the first batch the block readers cannot read exactly, or that breaks
the declaration, reading falls back to the row path for the rest of the input — the very readers and checks the
``Event`` path uses — so a bad row deep inside a batch raises exactly the ``Event`` path's error (source, line,
field), after the matches of the rows before it, and nothing is dropped.

**Declarations** (docs/decisions.md D88). Without one the schema is inferred in the same single pass
(:class:`~cer_theory.streams.schema.SchemaCheck`); the file is read once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import TYPE_KEY, Event
from cer_theory.core.predicates.ast import Predicate, kind
from cer_theory.core.predicates.vectorized import bitmasks
from cer_theory.streams.batch import DictRows, Fallback, Rows
from cer_theory.streams.blocks import ReadLimits, file_batches, iter_rows
from cer_theory.streams.rows import stream_format
from cer_theory.streams.schema import Schema, SchemaCheck


def column_keys(rows: Rows, predicates: Sequence[Predicate], time_attribute: str | None,
                partition_attributes: Sequence[str], dict_mask: Callable[[dict], int] | None = None
                ) -> tuple[list[int], list | None, list[list] | None]:
    """What the engine reads of each row: its bit vector over ``predicates`` (seed 001 §4.4), its window key
    value (None without a time window) and the values of the PARTITION BY attributes (one list per attribute,
    None where absent; None without PARTITION BY). ``dict_mask``: the mask compiled for dicts
    (:func:`cer_theory.core.predicates.masks.compile_mask`), for :class:`DictRows`."""
    n = len(rows)
    if isinstance(rows, DictRows):
        masks = [dict_mask(d) for d in rows.dicts] if dict_mask is not None and predicates else [0] * n
    else:
        masks = bitmasks(list(predicates), rows) if predicates else [0] * n
    times = None if time_attribute is None else _key_values(rows, time_attribute)
    parts = [_key_values(rows, a) for a in partition_attributes] if partition_attributes else None
    return masks, times, parts


def partition_keys(parts: list[list]) -> list[tuple | None]:
    """Per row, the engine's partition key ``((kind, value), …)`` (1 and 1.0 share one; 1 and True do not), or
    None when a listed attribute is absent: the row is in no partition (docs/decisions.md D22)."""
    return [None if None in vs else tuple([(kind(v), v) for v in vs]) for vs in zip(*parts)]


def _key_values(rows: Rows, name: str) -> list:
    if name == TYPE_KEY and not isinstance(rows, DictRows):
        return rows.types.tolist()
    return rows.values(name)


def file_matches(engine: Any, path: str | Path, fmt: str | None = None, schema: Schema | None = None, *,
                 progress: Callable[[int], None] | None = None, limits: ReadLimits = ReadLimits()) -> Iterator[Any]:
    """The matches of ``engine`` (an :class:`~cer_theory.engines.core.Engine`) over a JSON Lines, CSV or Parquet
    file checked against ``schema`` (None: inferred in the same pass): batches through the columns while they
    are exactly columnar, then the row path (see the module docstring). The file is read once. ``progress`` is
    called with the events read so far after each columnar batch; ``limits``: how the file is read."""
    fmt = stream_format(path, fmt)
    check = SchemaCheck(schema, str(path))
    done = 0
    for rows in file_batches(path, fmt, partition=engine.partition_attributes, limits=limits):
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


def file_events(path: str | Path, fmt: str, check: SchemaCheck, skip: int,
                lines: dict[int, int] | None = None) -> Iterator[Event]:
    """The row path from the ``skip``-th event on: the row readers, each event checked against the declaration.
    ``lines`` (when given) keeps the file line of the event at the latest position, for error messages."""
    rows = iter_rows(path, fmt)
    for _ in range(skip):
        if next(rows, None) is None:
            return
    for position, (line, event) in enumerate(rows, skip):
        if lines is not None:
            lines.clear()
            lines[position] = line
        yield check.event(line, event)


__all__ = ["column_keys", "file_events", "file_matches", "in_file_terms", "partition_keys"]
