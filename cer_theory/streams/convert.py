"""In-memory inputs as batches: a list of dicts cut into :class:`~cer_theory.streams.batch.DictRows` (checked
per batch, docs/decisions.md D89), or, for a batch that cannot be read exactly, its Events built lazily by
:meth:`~cer_theory.core.events.Event.from_dict` with the Event path's errors; a pandas DataFrame or a pyarrow Table
goes to :mod:`cer_theory.streams.frames`, which is loaded only then: dicts never load Arrow (D280).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import chain, islice, repeat
from math import isnan
from typing import Any

from cer_theory.core.events import TYPE_KEY, Event
from cer_theory.streams.batch import DictRows, Rows

BATCH_ROWS = 8192
"""The default rows per batch of an in-memory input (and of a Parquet file)."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def is_table(data: Any) -> bool:
    """Whether ``data`` is a pandas DataFrame or a pyarrow Table/RecordBatch (recognised by its module: pandas and
    Arrow are not imported to ask)."""
    return type(data).__module__.startswith(("pandas", "pyarrow"))


def frame_batches(data: Any, first_line: int, *, validate: bool = False, rows: int = BATCH_ROWS,
                  check: Callable[[list], dict[str, list] | None] | None = None) -> Iterator[Rows | Iterator[Event]]:
    """Batches of a pandas DataFrame, a pyarrow Table/RecordBatch or an iterable of dicts/Events: a :class:`Rows`
    when the batch is columnar, else the batch's Events built lazily by :meth:`Event.from_dict` (the row path: its
    errors, line = global position as for ``Engine.process_event``). ``validate``: dicts always the row way.
    ``first_line`` is the position of the first row; ``rows`` the most rows per batch; ``check``: the compiled
    form of :func:`clean_columns` (docs/decisions.md D452), None for the readable one."""
    if is_table(data):
        from cer_theory.streams.frames import table_batches  # (Arrow, for a table only: D174, D280)

        yield from table_batches(data, first_line, rows)
        return
    items = iter(data)
    position = first_line
    while batch := list(islice(items, rows)):  # (C-level: no Python step per item)
        yield _dict_batch(batch, position, validate, check or clean_columns)
        position += len(batch)


def _dict_batch(batch: list, first: int, validate: bool, check: Callable[[list], dict[str, list] | None]
                ) -> Rows | Iterator[Event]:
    """Dicts, checked cheaply per batch (``check``: :func:`clean_columns`); a batch that fails, or any batch with
    ``validate``, goes the row way (its exact errors)."""
    columns = None if validate else check(batch)
    if columns is None:
        return _as_events(batch, first)
    return DictRows(batch, columns)


_SCALARS = frozenset((int, float, str, bool, type(None)))
_NUMBERS = frozenset((int, float, bool))
_NAN = float("nan")


def clean_columns(batch: list) -> dict[str, list] | None:
    """The columns of ``batch`` (each name → its value in every dict, None where a dict lacks it) when
    :meth:`Event.from_dict` accepts every dict as it is, else None: plain dicts; identifier names; a non-empty
    string type on every dict; scalar value classes only; no NaN. Checked per batch and per name rather than per
    value, with C-level passes; the columns are those :meth:`DictRows.values` reads (the window key, PARTITION
    BY), gathered once. A sparse batch (few of its names in each dict) is checked over its values instead and
    only its type column is gathered: a column per name would hold rows × names values (the square of the batch
    for a name per dict), against the memory bound."""
    if set(map(type, batch)) != {dict}:
        return None
    names = set(chain.from_iterable(batch))
    if TYPE_KEY not in names or any(n.__class__ is not str or not _NAME.match(n) for n in names if n != TYPE_KEY):
        return None
    if len(names) * len(batch) > _SPARSE * sum(map(len, batch)):
        if not _clean(list(chain.from_iterable(map(dict.values, batch)))):
            return None
        columns = {TYPE_KEY: list(map(dict.get, batch, repeat(TYPE_KEY)))}
    else:
        columns = {}
        for name in names:
            column = list(map(dict.get, batch, repeat(name)))
            if not _clean(column):
                return None
            columns[name] = column
    types = columns[TYPE_KEY]
    if set(map(type, types)) != {str} or "" in types:
        return None
    return columns


_SPARSE = 2
"""A batch whose names × dicts exceed this many times its values is sparse (:func:`clean_columns`)."""


def _clean(values: list) -> bool:
    """Whether ``values`` are scalars, none of them NaN."""
    classes = set(map(type, values))
    return classes <= _SCALARS and not (float in classes and _holds_nan(values, classes))


def _holds_nan(column: list, classes: set[type]) -> bool:
    """Whether a column holding floats holds a NaN. A column of numbers only is summed in C first: a NaN makes
    the sum NaN, and so do infinities of both signs (given or reached by overflow), which are then looked at
    value by value, as is a column whose sum cannot be a float (an integer beyond the float range: OverflowError)."""
    if classes <= _NUMBERS:
        try:
            total = sum(column)
        except OverflowError:
            total = _NAN
        if total == total:
            return False
    # (a NaN is a float: float.__instancecheck__ and isnan keep the pass in C)
    return any(map(isnan, filter(float.__instancecheck__, column)))


def _as_events(batch: list, first: int) -> Iterator[Event]:
    """The row path of a batch, lazily: an error is raised when its row is reached, after the matches before it."""
    return (e if isinstance(e, Event) else Event.from_dict(e, line=first + k) for k, e in enumerate(batch))


def as_rows(data: Any) -> Rows:
    """The whole of ``data`` — Events, a pandas DataFrame or a pyarrow Table (a :class:`Rows` as it is) — as one
    batch, for the vectorized predicate evaluator (:func:`cer_theory.core.predicates.vectorized.bitmasks`). A
    frame or table that is not exactly columnar is read row by row (None, NaN and NA cells are absent)."""
    if isinstance(data, Rows):
        return data
    if is_table(data):
        from cer_theory.streams.frames import table_as_rows  # (Arrow, for a table only: D174, D280)

        data = table_as_rows(data)
        if isinstance(data, Rows):
            return data
    return Rows.from_events(data)


__all__ = ["BATCH_ROWS", "as_rows", "frame_batches", "is_table"]
