"""Columnar ingestion for the tECS engine: files, dicts, DataFrames and Arrow tables read in batches as columns,
so that an :class:`~cer_theory.core.events.Event` is built only for the events an output reports.

CORE (seed 001, *CORE: a Complex Event Recognition Engine*, §4.4) evaluates each event's predicates once into a
bit vector; nothing else of the event is read except the window's time key and the PARTITION BY values. This
module computes those three per batch, column-wise: bit vectors with
:func:`cer_theory.core.predicates.vectorized.bitmasks`, time keys and partition keys from the columns. The engine
runs Algorithm 1 on them (``Engine._process_columns``); a reported match builds its events from the batch.

**Exactness** (docs/decisions.md D87). A batch goes through the columns only when every row is one the row
readers (:func:`cer_theory.core.events.iter_file`, :meth:`Event.from_dict`) would accept with the same values
and, for a file, the declaration (given or inferred) accepts. Each check is column-wise (the ``type`` column is
non-empty strings, attribute names are identifiers, every column has one scalar kind per row, no NaN, no number
that a float may have rounded, one row per non-blank line, …). At the first batch that fails one, reading falls
back to the row path for the rest of the input — the very readers and checks the ``Event`` path uses — so a bad
row deep inside a batch raises exactly the ``Event`` path's error (source, line, field), after the matches of
the rows before it, and nothing is dropped. A file whose attribute changes kind between event types (legal, but
not one Arrow column) is read the row way from there on: correct, at the row path's speed.

**Declarations** (docs/decisions.md D88). Without ``--declare`` the schema is inferred in the same single pass:
each (type, attribute) takes the kind it first has, and a later different kind is an error with the message of
:meth:`cer_theory.formalisms.ceql.declarations.Schema.infer`, raised when that row is reached (the matches
before it are already out); the file is read once.
"""

from __future__ import annotations

import csv
import io
import json
import re
from itertools import chain, repeat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import TYPE_KEY, Event, iter_file, row_json_text
from cer_theory.core.predicates.ast import Predicate, kind
from cer_theory.core.predicates.vectorized import BOOL, MISSING, NUM, STR, Batch, Column, bitmasks
from cer_theory.formalisms.ceql.declarations import KIND_NAMES, Schema

BATCH_ROWS = 8192
"""Rows per batch for in-memory inputs (dicts, DataFrames, Tables) and Parquet."""

BATCH_BYTES = 1 << 20
"""Bytes per batch of a JSON Lines or CSV file (≈ 10k stock events), cut at a line end."""

_EXACT = 2.0 ** 53
"""Floats at or beyond this magnitude may be rounded integers: such a JSON column is read the row way."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KIND_OF_CODE = {NUM: "num", STR: "str", BOOL: "bool"}
_INT_RE = r"^[+-]?[0-9]+$"
_NUM_RE = r"^[+-]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][+-]?[0-9]+)?$"
"""The CSV cell grammar of :func:`cer_theory.core.events._csv_value` for ASCII cells (a non-ASCII cell that may be
a number sends its batch the row way, where Python's Unicode digits apply; docs/decisions.md D150)."""


class Fallback(Exception):
    """This batch cannot go through the columns exactly; the row path takes over from its first row."""


# ---------------------------------------------------------------------------------------------- one batch


class Rows:
    """One batch of events as columns: ``types`` (object array), ``kinds`` (attribute → the kind code of each
    row: MISSING, NUM, STR or BOOL, enough for the declaration checks), ``column(name)`` (the vectorized
    :class:`~cer_theory.core.predicates.vectorized.Column`, built on first use: only the attributes predicates
    read), ``values(name)`` (exact Python values, None where absent) and ``event(k)`` (the k-th row as an Event,
    built on demand: only for reported matches). ``first`` is the global position of row 0 (set when the engine
    reads the batch); ``lines`` the source line of each row (None: line = position, as for in-memory inputs)."""

    __slots__ = ("types", "kinds", "_column", "_columns", "_values", "_event", "first", "lines", "_events", "_text")

    def __init__(self, types: np.ndarray, kinds: dict[str, np.ndarray], column: Callable[[str], Column],
                 values: Callable[[str], list], event: Callable[[int], Event], lines: np.ndarray | None = None
                 ) -> None:
        self.types, self.kinds, self._column, self._values, self._event = types, kinds, column, values, event
        self._text: Callable[[int], str] | None = getattr(event, "text", None)  # (ColumnEvents.text)
        self._columns: dict[str, Column] = {}
        self.first = 0
        self.lines = lines
        self._events: dict[int, Event] = {}

    def __len__(self) -> int:
        return len(self.types)

    def column(self, name: str) -> Column:
        found = self._columns.get(name)
        if found is None:
            found = self._columns[name] = self._column(name) if name in self.kinds else _absent(len(self.types))
        return found

    def values(self, name: str) -> list:
        return self._values(name) if name in self.kinds else [None] * len(self.types)

    def event(self, k: int) -> Event:
        found = self._events.get(k)
        if found is None:
            found = self._events[k] = self._event(k)
        return found

    def text(self, k: int) -> str:
        """``self.event(k).to_json_text()``, without building the Event when the batch can write the row's JSON
        from its columns (:meth:`ColumnEvents.text`; the output writers, docs/decisions.md D155)."""
        text = self._text
        return text(k) if text is not None else self.event(k).to_json_text()

    def line(self, k: int) -> int:
        return self.first + k if self.lines is None else int(self.lines[k])

    def batch(self) -> Batch:
        """The vectorized evaluator's view (a missing attribute is an all-absent column)."""
        return Batch(self.types, self.column, self.event)


def _absent(n: int) -> Column:
    return Column(np.zeros(n, dtype=np.int8), np.zeros(n), np.zeros(n), np.full(n, "", dtype=object),
                  np.zeros(n, dtype=bool))


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
        masks = bitmasks(list(predicates), rows.batch()) if predicates else [0] * n
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


# ---------------------------------------------------------------------------------------------- Arrow columns


def arrow_column(array: pa.Array | pa.ChunkedArray, *, nan_missing: bool) -> Column:
    """A vectorized Column from an Arrow column of one scalar type. NaN is an absent value if ``nan_missing``
    (DataFrames), else the batch falls back (the row path rejects NaN). Other Arrow types fall back."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    t, n = array.type, len(array)
    if pa.types.is_dictionary(t):
        array = array.cast(t.value_type)
        t = array.type
    valid = (np.ones(n, dtype=bool) if array.null_count == 0
             else np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool))
    kinds = np.zeros(n, dtype=np.int8)
    num, err = np.zeros(n), np.zeros(n)
    text, flag = np.full(n, "", dtype=object), np.zeros(n, dtype=bool)
    if pa.types.is_null(t):
        return Column(kinds, num, err, text, flag)
    if pa.types.is_integer(t):
        ints = array.fill_null(0).to_numpy()
        num = ints.astype(np.float64)
        err = np.where(np.abs(num) < _EXACT, 0.0, np.abs(num) * 2.0 ** -52)  # the int64 is exact; its float not
        kinds[valid] = NUM
    elif pa.types.is_floating(t):
        num = array.fill_null(0.0).to_numpy().astype(np.float64)
        nan = np.isnan(num) & valid
        if nan.any():
            if not nan_missing:
                raise Fallback("NaN")
            valid &= ~nan
            num = np.where(nan, 0.0, num)
        kinds[valid] = NUM
    elif pa.types.is_boolean(t):
        flag = np.asarray(array.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)
        kinds[valid] = BOOL
    elif pa.types.is_string(t) or pa.types.is_large_string(t):
        text = _object_strings(array.fill_null(""))
        kinds[valid] = STR
    else:
        raise Fallback(f"a {t} column")
    return Column(kinds, num, err, text, flag)


def _types(table: pa.Table) -> np.ndarray:
    """The ``type`` column, which must be non-empty strings on every row (else the row path's error)."""
    if TYPE_KEY not in table.column_names:
        raise Fallback("no type column")
    col = table.column(TYPE_KEY)
    if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)) or col.null_count:
        raise Fallback("type column")
    if len(col) and pc.any(pc.equal(pc.utf8_length(col), 0)).as_py():
        raise Fallback("empty type")
    return _object_strings(col)


def _object_strings(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A string column as an object array of Python strings (through ``to_pylist``: several times faster than
    pyarrow's ``to_numpy`` for strings)."""
    out = np.empty(len(array), dtype=object)
    out[:] = array.to_pylist()
    return out


def _names(names: Iterable[str]) -> list[str]:
    out = [n for n in names if n != TYPE_KEY]
    if any(not isinstance(n, str) or not _NAME.match(n) for n in out) or len(set(out)) != len(out):
        raise Fallback("attribute names")
    return out


def arrow_kinds(array: pa.Array | pa.ChunkedArray, *, nan_missing: bool, exact: bool = False) -> np.ndarray:
    """The kind code of each row of an Arrow column (cheap: validity and type, values only for floats), with the
    checks that send a batch the row way: a type that is not one scalar kind, NaN (unless ``nan_missing``), a
    float that may be a rounded integer (JSON), an integral float whose Python value must be ``exact`` (a JSON 1
    in a float column reads back as 1.0: partition values)."""
    t = array.type
    n = len(array)
    if pa.types.is_null(t):
        return np.zeros(n, dtype=np.int8)
    valid = (np.ones(n, dtype=bool) if array.null_count == 0
             else np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool))
    if pa.types.is_integer(t):
        code = NUM
    elif pa.types.is_floating(t):
        num = np.asarray((array.fill_null(0.0) if array.null_count else array).to_numpy(zero_copy_only=False),
                         dtype=np.float64)
        nan = np.isnan(num) & valid
        if nan.any():
            if not nan_missing:
                raise Fallback("NaN")
            valid = valid & ~nan
        if not nan_missing and (np.abs(num[valid]) >= _EXACT).any():
            raise Fallback("a float that may be a rounded integer")
        if exact and (np.floor(num[valid]) == num[valid]).any():
            raise Fallback("an integral float partition value")
        code = NUM
    elif pa.types.is_boolean(t):
        code = BOOL
    elif pa.types.is_string(t) or pa.types.is_large_string(t) or (
            pa.types.is_dictionary(t) and (pa.types.is_string(t.value_type) or pa.types.is_large_string(t.value_type))):
        code = STR
    else:
        raise Fallback(f"a {t} column")
    return np.where(valid, code, MISSING).astype(np.int8)


def table_rows(table: pa.Table, *, nan_missing: bool, event: Callable[[int], Event] | None = None,
               exact_partition: Sequence[str] = (), lines: np.ndarray | None = None,
               source_event: Callable[[int], Event] | None = None) -> Rows:
    """A :class:`Rows` over an Arrow table whose every column is one scalar type. ``exact_partition``: attributes
    whose Python values must be those of the source (see :func:`arrow_kinds`). ``event``: how row k becomes an
    Event; by default from the columns (:class:`ColumnEvents`), and then ``source_event`` (JSON) builds the rows
    holding an integral float, which the source may have written as an integer."""
    types = _types(table)
    kinds = {name: arrow_kinds(table.column(name), nan_missing=nan_missing, exact=name in exact_partition)
             for name in _names(table.column_names)}

    def column(name: str) -> Column:
        return arrow_column(table.column(name), nan_missing=nan_missing)

    def values(name: str) -> list:
        array = table.column(name)
        if pa.types.is_float16(array.type):  # (its to_pylist gives numpy scalars)
            array = array.cast(pa.float64())
        out = array.to_pylist()
        if nan_missing:
            out = [None if v != v else v for v in out]  # NaN: absent (v != v only for NaN)
        return out

    if event is None:
        event = ColumnEvents(types, list(kinds), values,
                             None if source_event is None else lambda: _integral_float_rows(table), source_event)
    return Rows(types, kinds, column, values, event, lines)


class ColumnEvents:
    """Row k of a columnar batch as an Event, built from the batch's columns: each column is converted to Python
    values once, at the batch's first reported row (a batch that reports one match usually reports many), and the
    row's Event gathers its non-null cells — the values the row readers give (docs/decisions.md D87: the batch's
    columns passed the exactness checks), without parsing the row's source again. ``source``: rows (a bool
    array, computed with the columns) whose Event comes from ``source_event`` instead."""

    __slots__ = ("types", "names", "values", "source", "source_event", "_columns", "_from_source", "_text")

    def __init__(self, types: np.ndarray, names: list[str], values: Callable[[str], list],
                 source: Callable[[], np.ndarray] | None = None,
                 source_event: Callable[[int], Event] | None = None) -> None:
        self.types, self.names, self.values = types, sorted(names), values  # (in an Event's own order)
        self.source, self.source_event = source, source_event
        self._columns: list[tuple[str, list]] | None = None
        self._from_source: list[bool] | None = None
        self._text: Callable[[int], str] | None = None

    def __call__(self, k: int) -> Event:
        columns = self._columns
        if columns is None:
            columns = self._converted()
        if self._from_source is not None and self._from_source[k]:
            return self.source_event(k)  # type: ignore[misc]
        return Event.trusted(self.types[k], {name: v for name, cells in columns if (v := cells[k]) is not None},
                             ordered=True)

    def text(self, k: int) -> str:
        """Row k's ``Event.to_json_text()``, written from the same cells without building the Event."""
        text = self._text
        if text is None:
            text = self._text = self._row_text()
        return text(k)

    def _row_text(self) -> Callable[[int], str]:
        columns = self._columns if self._columns is not None else self._converted()
        types = self.types.tolist() if isinstance(self.types, np.ndarray) else self.types  # (list: faster [k])
        cells = row_json_text(tuple(self.names))(types, *(c for _, c in columns))
        source, from_source = self.source_event, self._from_source
        if from_source is None or not any(from_source):
            return cells

        def text(k: int) -> str:
            return source(k).to_json_text() if from_source[k] else cells(k)  # type: ignore[misc]
        return text

    def _converted(self) -> list[tuple[str, list]]:
        columns = self._columns = [(name, self.values(name)) for name in self.names]
        if self.source is not None:
            self._from_source = self.source().tolist()
        return columns


def _integral_float_rows(table: pa.Table) -> np.ndarray:
    """The rows with an integral value in a float column: JSON's ``1`` in a column Arrow reads as doubles (it
    also holds a ``1.5``) is ``1.0`` in the column but ``1`` for the row reader, and prints differently."""
    out = np.zeros(table.num_rows, dtype=bool)
    for array in table.columns:
        if pa.types.is_floating(array.type):
            num = np.asarray(array.fill_null(0.5).to_numpy(zero_copy_only=False), dtype=np.float64)
            out |= np.floor(num) == num
    return out


# ---------------------------------------------------------------------------------------------- in-memory inputs


def frame_batches(data: Any, first_line: int, *, validate: bool = False) -> Iterator[Rows | Iterator[Event]]:
    """Batches of a pandas DataFrame, a pyarrow Table/RecordBatch or an iterable of dicts/Events: a :class:`Rows`
    when the batch is columnar, else the batch's Events built lazily by :meth:`Event.from_dict` (the row path: its
    errors, line = global position as for ``Engine.process_event``). ``validate``: dicts always the row way.
    ``first_line`` is the position of the first row."""
    module = type(data).__module__
    if module.startswith("pandas"):
        try:  # the whole frame at once (Arrow's conversion is column-wise), else chunk by chunk
            whole = pa.Table.from_pandas(data, preserve_index=False)
        except (pa.ArrowException, TypeError, ValueError):
            whole = None
        for start in range(0, len(data), BATCH_ROWS):
            if whole is not None:
                yield _table_batch(whole.slice(start, BATCH_ROWS), first_line + start)
            else:
                yield _frame_rows(data.iloc[start:start + BATCH_ROWS], first_line + start)
        return
    if module.startswith("pyarrow"):
        table = pa.Table.from_batches([data]) if isinstance(data, pa.RecordBatch) else data
        for start in range(0, table.num_rows, BATCH_ROWS):
            yield _table_batch(table.slice(start, BATCH_ROWS), first_line + start)
        return
    batch: list = []
    position = first_line
    for item in data:
        batch.append(item)
        if len(batch) == BATCH_ROWS:
            yield _dict_batch(batch, position, validate)
            position += len(batch)
            batch = []
    if batch:
        yield _dict_batch(batch, position, validate)


def _row_dict(row: Mapping[str, Any]) -> dict:
    """A DataFrame/Table row as ``Event.from_dict`` input: None, NaN and NA cells are absent, numpy scalars are
    Python values."""
    out = {}
    for k, v in row.items():
        if v is None or (isinstance(v, float) and v != v) or type(v).__name__ in ("NAType", "NaTType"):
            continue
        out[str(k)] = v.item() if hasattr(v, "item") else v
    return out


def _table_batch(table: pa.Table, first: int) -> Rows | Iterator[Event]:
    try:  # (NaN and None cells: absent attributes, in the columns as in _row_dict)
        return table_rows(table, nan_missing=True)
    except Fallback:
        return (Event.from_dict(_row_dict(r), line=first + k) for k, r in enumerate(table.to_pylist()))


def _frame_rows(chunk: Any, first: int) -> Rows | Iterator[Event]:
    try:
        table = pa.Table.from_pandas(chunk, preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError):
        return (Event.from_dict(_row_dict(r), line=first + k) for k, r in enumerate(chunk.to_dict("records")))
    return _table_batch(table, first)


def _dict_batch(batch: list, first: int, validate: bool) -> Rows | Iterator[Event]:
    """Dicts, checked cheaply per batch (:func:`_clean_dicts`); a batch that fails, or any batch with
    ``validate``, goes the row way (its exact errors)."""
    if validate or not _clean_dicts(batch):
        return _as_events(batch, first)
    return DictRows(batch)


_SCALARS = frozenset((int, float, str, bool, type(None)))


def _clean_dicts(batch: list) -> bool:
    """Whether :meth:`Event.from_dict` accepts every dict of ``batch`` as it is, checked per batch rather than per
    value, with C-level iteration: plain dicts; a non-empty string type on every dict; scalar value classes
    only; identifier keys; no NaN among the values of a key that holds floats."""
    if set(map(type, batch)) != {dict}:
        return False
    types = list(map(dict.get, batch, repeat(TYPE_KEY)))
    if set(map(type, types)) != {str} or "" in types:
        return False
    classes = set(map(type, chain.from_iterable(map(dict.values, batch))))
    if not classes <= _SCALARS:
        return False
    names = set(chain.from_iterable(batch))
    names.discard(TYPE_KEY)
    if any(n.__class__ is not str or not _NAME.match(n) for n in names):
        return False
    if float in classes:
        for name in names:
            column = list(map(dict.get, batch, repeat(name)))
            if float in set(map(type, column)) and any(map(_is_nan, column)):
                return False
    return True


def _is_nan(v: object) -> bool:
    return v != v  # only NaN differs from itself among scalars


class DictRows(Rows):
    """A batch of checked dicts: bit vectors from the mask compiled for dicts (seed 001 §4.4, read in place),
    keys and output events from the dicts themselves (exact values)."""

    __slots__ = ("dicts",)

    def __init__(self, dicts: list[dict]) -> None:
        self.dicts = dicts
        self.first = 0
        self.lines = None
        self._events = {}

    def __len__(self) -> int:
        return len(self.dicts)

    def values(self, name: str) -> list:
        return [d.get(name) for d in self.dicts]

    def event(self, k: int) -> Event:
        found = self._events.get(k)
        if found is None:
            d = self.dicts[k]  # checked by _clean_dicts: only None values to leave out
            found = self._events[k] = Event.trusted(d[TYPE_KEY], {a: v for a, v in d.items()
                                                                  if v is not None and a != TYPE_KEY})
        return found

    def text(self, k: int) -> str:
        return self.event(k).to_json_text()


def _as_events(batch: list, first: int) -> Iterator[Event]:
    """The row path of a batch, lazily: an error is raised when its row is reached, after the matches before it."""
    return (e if isinstance(e, Event) else Event.from_dict(e, line=first + k) for k, e in enumerate(batch))


# ---------------------------------------------------------------------------------------------- files


def file_format(path: str | Path, fmt: str | None = None) -> str:
    """``jsonl``, ``csv`` or ``parquet``: given, else from the extension (``.csv``, ``.parquet``/``.pq``, anything
    else JSON Lines, as :func:`cer_theory.core.events.iter_file`)."""
    if fmt:
        return fmt
    suffix = Path(path).suffix.lower()
    return "csv" if suffix == ".csv" else "parquet" if suffix in (".parquet", ".pq") else "jsonl"


def iter_parquet(path: str | Path) -> Iterator[tuple[int, Event]]:
    """The row reader of a Parquet file: ``(row number from 1, Event)``; each row through :meth:`Event.from_dict`
    (null cells are absent attributes), errors name the file, the row and the field."""
    name = str(path)
    try:
        source = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise StreamFormatError(f"not a readable Parquet file ({exc})", source=name) from None
    no = 0
    for batch in source.iter_batches(batch_size=BATCH_ROWS):
        for row in batch.to_pylist():
            no += 1
            yield no, Event.from_dict(row, source=name, line=no)


def iter_rows(path: str | Path, fmt: str) -> Iterator[tuple[int, Event]]:
    """The row path of a file: the ``Event`` readers of :mod:`cer_theory.core.events` (Parquet: :func:`iter_parquet`)."""
    return iter_parquet(path) if fmt == "parquet" else iter_file(path)


def _line_index(data: bytes, first_line: int, blank_bytes: bytes) -> np.ndarray:
    """The line number of each non-blank line of ``data`` (lines cut at ``\\n``; a line is blank when all its
    bytes are in ``blank_bytes``). Only the lines that are empty or start with such a byte are inspected."""
    arr = np.frombuffer(data, dtype=np.uint8)
    starts, ends = _cut(data)
    head = np.zeros(len(starts), dtype=np.int16) - 1  # -1: an empty line
    filled = ends > starts
    head[filled] = arr[starts[filled]]
    blank_byte = np.zeros(257, dtype=bool)
    blank_byte[list(blank_bytes) + [-1]] = True
    blank = np.zeros(len(starts), dtype=bool)
    for i in np.flatnonzero(blank_byte[head]).tolist():
        blank[i] = not data[starts[i]:ends[i]].strip(blank_bytes)
    return first_line + np.flatnonzero(~blank)


_JSON_BLANK = b" \t\r\x0b\x0c\x1c\x1d\x1e\x1f\n"
"""Bytes that make a line blank for the JSON Lines row reader (``str.strip``'s ASCII whitespace)."""


def _cut(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    arr = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(arr == 10)
    if not len(ends) or ends[-1] != len(arr) - 1:
        ends = np.append(ends, len(arr))
    return np.concatenate(([0], ends[:-1] + 1)), ends


def _blocks(path: Path, skip_header: bool) -> Iterator[tuple[bytes, int, bytes]]:
    """``(block, first line number, header line)`` of about BATCH_BYTES, each cut after a newline."""
    with path.open("rb") as f:
        header = f.readline() if skip_header else b""
        line = 2 if skip_header else 1
        carry = b""
        while True:
            chunk = f.read(BATCH_BYTES)
            if not chunk:
                if carry:
                    yield carry, line, header
                return
            data = carry + chunk
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                carry = data
                continue
            block, carry = data[:cut], data[cut:]
            yield block, line, header
            line += block.count(b"\n")


def _plain_newlines(block: bytes) -> bool:
    """No carriage return except in ``\\r\\n`` (a lone ``\\r`` ends a line for the row readers, not for Arrow)."""
    return block.count(b"\r") == block.count(b"\r\n")


def _jsonl_rows(block: bytes, line: int, source: str, partition: Sequence[str]) -> Rows:
    if line == 1 and block.startswith(b"\xef\xbb\xbf"):
        raise Fallback("byte order mark")
    if not _plain_newlines(block):
        raise Fallback("carriage return")
    _require_utf8(block)
    lines = _line_index(block, line, _JSON_BLANK)
    try:
        table = pa_json.read_json(io.BytesIO(block), read_options=pa_json.ReadOptions(use_threads=False,
                                                                                      block_size=len(block) + 1))
    except (pa.ArrowException, UnicodeDecodeError, ValueError):
        raise Fallback("Arrow cannot read the batch") from None
    if table.num_rows != len(lines):
        raise Fallback("not one object per line")
    starts, ends = _cut(block)
    index = lines - line  # the k-th row is physical line index[k] of the block

    def from_line(k: int) -> Event:  # (a row with an integral float: its line says whether it was 1 or 1.0)
        i = int(index[k])
        text = block[starts[i]:ends[i]].decode("utf-8")
        return Event.from_dict(json.loads(text), source=source, line=int(lines[k]))

    return table_rows(table, nan_missing=False, exact_partition=partition, lines=lines, source_event=from_line)


def _require_utf8(block: bytes) -> None:
    """Arrow lets bytes that are not UTF-8 through in places; the row readers name the line and column of the
    first bad byte, so such a batch goes their way (one fast pass, skipped for ASCII)."""
    if not block.isascii():
        try:
            block.decode("utf-8")
        except UnicodeDecodeError:
            raise Fallback("not UTF-8") from None


def _csv_rows(block: bytes, line: int, header_line: bytes, source: str) -> Rows:
    """One CSV block as columns (docs/decisions.md D150): Arrow reads every cell as text (an empty cell, quoted or
    not, is null: the row reader's absent value); :func:`_csv_typed` then gives each column the one Arrow type
    whose values are exactly :func:`cer_theory.core.events._csv_value`'s, and a column that mixes kinds goes
    through the cell grammar (:func:`_csv_column`)."""
    if (b"\r" in block and not _plain_newlines(block)) or not _plain_newlines(header_line):
        raise Fallback("carriage return")
    _require_utf8(block)
    if b'"' in block:
        _no_quoted_line_break(block)
    if header_line.startswith(b"\xef\xbb\xbf"):
        header_line = header_line[3:]  # (the row reader drops a byte order mark too)
    if header_line.count(b'"') % 2:
        raise Fallback("a quoted line break in the header")
    try:
        header = next(csv.reader([header_line.decode("utf-8").rstrip("\r\n")]))
    except (UnicodeDecodeError, StopIteration):
        raise Fallback("header") from None
    header = [h.strip() for h in header]
    if TYPE_KEY not in header or len(set(header)) != len(header):
        raise Fallback("header")
    lines = _line_index(block.replace(b"\r\n", b"\n") if b"\r" in block else block, line, b"\r\n")
    try:
        table = pa_csv.read_csv(
            io.BytesIO(block),
            read_options=pa_csv.ReadOptions(column_names=header, use_threads=False, block_size=len(block) + 1),
            convert_options=pa_csv.ConvertOptions(column_types={h: pa.string() for h in header}, null_values=[""],
                                                  strings_can_be_null=True, quoted_strings_can_be_null=True))
    except (pa.ArrowException, UnicodeDecodeError, ValueError):
        raise Fallback("Arrow cannot read the batch") from None
    if table.num_rows != len(lines):
        raise Fallback("not one record per line")
    types = _types(table)  # (non-empty strings: an empty cell is null here)
    typed: dict[str, pa.Array] = {}
    mixed: dict[str, tuple[Column, Callable[[], list]]] = {}
    for h in _names(header):
        cells = table.column(h).combine_chunks()
        array = _csv_typed(cells)
        if array is None:
            mixed[h] = _csv_column(cells)
        else:
            typed[h] = array
    kinds = {h: arrow_kinds(typed[h], nan_missing=False) if h in typed else mixed[h][0].kinds
             for h in header if h in typed or h in mixed}

    def column(name: str) -> Column:
        return arrow_column(typed[name], nan_missing=False) if name in typed else mixed[name][0]

    def values(name: str) -> list:
        return typed[name].to_pylist() if name in typed else mixed[name][1]()

    # an output row's Event from the columns as read here: _csv_value's values, column-wise
    event = ColumnEvents(types, list(kinds), values)
    return Rows(types, kinds, column, values, event, lines)


def _no_quoted_line_break(block: bytes) -> None:
    """Quotes as both readers read them, else the row way. A quoted cell holding a line break makes one record of
    two lines (the row reader numbers records by their first line): a line break is inside quotes when an odd
    number of quotes precede it. And each line holding a quote must be :data:`_QUOTED_LINE`: cells quoted whole
    (``""`` inside for a quote) or holding no quote. Outside that grammar the readers part: Python's csv module
    (strict, as the row reader uses it) rejects ``"a"b`` where Arrow reads ``ab``, and it keeps quotes inside an
    unquoted cell as text."""
    arr = np.frombuffer(block, dtype=np.uint8)
    quotes = np.flatnonzero(arr == 34)
    newlines = np.flatnonzero(arr == 10)
    if (np.searchsorted(quotes, newlines) % 2).any():
        raise Fallback("a quoted line break")
    starts, ends = _cut(block)
    offsets = np.append(starts, len(block)).astype(np.int32)  # each line with its line end
    lines = pa.StringArray.from_buffers(len(starts), pa.py_buffer(offsets.tobytes()), pa.py_buffer(block))
    quoted = lines.take(pa.array(np.unique(np.searchsorted(ends, quotes))))  # the lines holding a quote
    if not pc.all(pc.match_substring_regex(quoted, _QUOTED_LINE)).as_py():
        raise Fallback("a quote outside a whole quoted cell")


_CELL = r'(?:"(?:[^"]|"")*"|[^",\r\n]*)'
_QUOTED_LINE = rf"^{_CELL}(?:,{_CELL})*\r?\n?$"
"""A CSV line whose quotes Arrow and Python's csv module read alike: each cell quoted whole or quote-free."""


def _byte_set(chars: bytes) -> np.ndarray:
    table = np.zeros(256, dtype=bool)
    table[list(chars)] = True
    return table


_INT_BYTES = _byte_set(b"0123456789-")
"""The bytes of a column given to Arrow's int64 cast. On them its grammar is ``-?[0-9]+`` (it rejects ``+1``),
within :data:`_INT_RE`; unchecked it would also read ``0x10`` as 16, which the row reader keeps as text."""
_FLOAT_BYTES = _byte_set(b"0123456789+-.eE")
"""The bytes of a column given to Arrow's float64 cast. On them its grammar is :data:`_NUM_RE` and its value
Python's ``float`` (both correctly rounded); no ``nan``, ``inf``, hexadecimal or blank can pass."""
_NUMBER_START = _byte_set(b"+-.0123456789" + bytes(range(0x80, 0x100)))
"""The first bytes of a cell :func:`cer_theory.core.events._csv_value` may read as a number: a sign, a point, an
ASCII digit, or the lead byte of a non-ASCII character (which may be a Unicode digit). Any other cell is a string
unless it is ``true`` or ``false``."""


def _csv_typed(cells: pa.Array) -> pa.Array | None:
    """A CSV column of text cells (null: empty) as one Arrow array of int64, float64, bool or string whose every
    value is the row reader's (:func:`cer_theory.core.events._csv_value`), or None when the column mixes kinds
    (or an integer in it needs its text): then :func:`_csv_column` reads it cell by cell. Only the bytes are
    inspected before a cast, so a cast is tried only where it succeeds (a failed Arrow cast costs a full pass)."""
    n = len(cells)
    if cells.null_count == n:
        return cells
    filled = cells.fill_null("") if cells.null_count else cells
    offsets = np.frombuffer(filled.buffers()[1], dtype=np.int32, count=n + 1, offset=4 * filled.offset)
    data = np.frombuffer(filled.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]]
    if _INT_BYTES[data].all():
        try:
            return pc.cast(cells, pa.int64())
        except pa.ArrowException:
            return None  # ("-", "1-2", beyond int64: the cell grammar decides)
    if _FLOAT_BYTES[data].all():
        try:
            nums = pc.cast(cells, pa.float64())
        except pa.ArrowException:
            return None  # ("1e", ".", "1.2.3": strings among numbers)
        v = np.asarray(nums.fill_null(0.5).to_numpy(zero_copy_only=False), dtype=np.float64)
        if not np.isfinite(v).all() or (np.abs(v) >= _EXACT).any():
            return None  # (1e999 or a float that may stand for a long integer: the cell grammar's care)
        integral = np.floor(v) == v
        if integral.any() and pc.any(pc.match_substring_regex(pc.filter(cells, pa.array(integral)), _INT_RE)).as_py():
            return None  # an integer among decimals ("2" with "2.5"): an int for the row reader, not 2.0
        return nums
    lengths = np.diff(offsets)
    present = lengths > 0
    first = data[offsets[:-1][present] - offsets[0]]
    if _NUMBER_START[first].any():
        return None
    maybe_bool = ((first == ord("t")) & (lengths[present] == 4)) | ((first == ord("f")) & (lengths[present] == 5))
    if not maybe_bool.any():
        return cells
    bools = int(pc.sum(pc.is_in(cells, value_set=pa.array(["true", "false"]))).as_py() or 0)
    if bools == 0:
        return cells
    return pc.equal(cells, "true") if bools == n - cells.null_count else None


def _ascii_numbers(cells: pa.Array) -> bool:
    """Whether every cell that may be a number (by its first byte, :data:`_NUMBER_START`) is ASCII: the cell
    grammar's regexes read ASCII digits only, Python's ``\\d`` any Unicode digit. Other non-ASCII cells are
    strings for both."""
    if pc.all(pc.string_is_ascii(cells)).as_py():
        return True
    offsets = np.frombuffer(cells.buffers()[1], dtype=np.int32, count=len(cells) + 1, offset=4 * cells.offset)
    data = np.frombuffer(cells.buffers()[2], dtype=np.uint8)
    present = np.flatnonzero(offsets[1:] > offsets[:-1])
    maybe = present[_NUMBER_START[data[offsets[present]]]]
    return len(maybe) == 0 or pc.all(pc.string_is_ascii(cells.take(pa.array(maybe)))).as_py()


def _csv_column(cells: pa.Array) -> tuple[Column, Callable[[], list]]:
    """A CSV column of text cells (null: empty) that mixes kinds, read as the row reader reads each cell: empty →
    absent, an integer or decimal → a number, ``true``/``false`` → a boolean, anything else a string."""
    n = len(cells)
    cells = cells.fill_null("")
    if cells.buffers()[2] is not None and not _ascii_numbers(cells):
        raise Fallback("a non-ASCII cell that may be a number")  # (Python's \d: Unicode digits, the row way)
    empty = np.asarray(pc.equal(pc.utf8_length(cells), 0).to_numpy(zero_copy_only=False), dtype=bool)
    is_int = np.asarray(pc.match_substring_regex(cells, _INT_RE).to_numpy(zero_copy_only=False), dtype=bool)
    is_num = is_int | np.asarray(pc.match_substring_regex(cells, _NUM_RE).to_numpy(zero_copy_only=False), dtype=bool)
    is_true = np.asarray(pc.equal(cells, "true").to_numpy(zero_copy_only=False), dtype=bool)
    is_bool = is_true | np.asarray(pc.equal(cells, "false").to_numpy(zero_copy_only=False), dtype=bool)
    kinds = np.where(empty, MISSING, np.where(is_num, NUM, np.where(is_bool, BOOL, STR))).astype(np.int8)
    zero = pa.scalar("0")
    num = np.zeros(n)
    ints = np.zeros(n, dtype=np.int64)
    if is_num.any():
        num_text = pc.if_else(pa.array(is_num), cells, zero)
        try:
            num = np.asarray(pc.cast(num_text, pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
            if is_int.any():
                int_text = pc.replace_substring_regex(pc.if_else(pa.array(is_int), cells, zero), r"^\+", "")
                ints = np.asarray(pc.cast(int_text, pa.int64()).to_numpy(zero_copy_only=False))
        except pa.ArrowException:
            raise Fallback("an integer beyond int64") from None  # (a Python int: the row way)
        num = np.where(is_int, ints.astype(np.float64), num)
    # an int64 at or beyond 2**53 is exact, its float not: the error bound arrow_column gives it
    err = np.where(is_int & (np.abs(num) >= _EXACT), np.abs(num) * 2.0 ** -52, 0.0)
    text = _object_strings(cells)
    strings = kinds == STR
    column = Column(kinds, num, err, np.where(strings, text, ""), is_true)

    def values() -> list:
        out = np.full(n, None, dtype=object)
        out[is_num & ~is_int] = num[is_num & ~is_int].tolist()
        idx = np.flatnonzero(is_int)
        out[idx] = ints[idx].tolist()
        out[strings] = text[strings]
        out[is_bool] = is_true[is_bool].tolist()
        return out.tolist()

    return column, values


def _parquet_batches(path: Path) -> Iterator[tuple[pa.Table, int]]:
    source = pq.ParquetFile(path)
    line = 1
    for batch in source.iter_batches(batch_size=BATCH_ROWS):
        yield pa.Table.from_batches([batch]), line
        line += batch.num_rows


def _parquet_rows(table: pa.Table, line: int, source: str) -> Rows:
    return table_rows(table, nan_missing=False, lines=np.arange(line, line + table.num_rows))


def file_batches(path: str | Path, fmt: str, *, partition: Sequence[str] = (), prefetch: bool = True
                 ) -> Iterator[Rows | Fallback]:
    """The batches of a file as :class:`Rows`, read with Arrow; at the first batch that is not exactly columnar
    a :class:`Fallback` (and nothing more: the caller reads the rest the row way). With ``prefetch`` the next
    block is parsed in a thread while the caller works on this one (Arrow releases the GIL)."""
    path = Path(path)
    if not path.exists():
        raise StreamFormatError("no such file", source=str(path))
    source = str(path)
    if fmt == "parquet":
        try:
            batches: Iterator = ((t, ln) for t, ln in _parquet_batches(path))
            make: Callable = lambda item: _parquet_rows(item[0], item[1], source)  # noqa: E731
        except (OSError, pa.ArrowException):
            yield Fallback("not readable by Arrow")
            return
    elif fmt == "csv":
        batches = _blocks(path, skip_header=True)
        make = lambda item: _csv_rows(item[0], item[1], item[2], source)  # noqa: E731
    else:
        batches = _blocks(path, skip_header=False)
        make = lambda item: _jsonl_rows(item[0], item[1], source, partition)  # noqa: E731

    def build(item: Any) -> Rows | Fallback:
        try:
            return make(item)
        except Fallback as why:
            return why
        except UnicodeDecodeError:  # Arrow accepts bytes that are not UTF-8 in a key; the row readers name them
            return Fallback("not UTF-8")

    try:
        if not prefetch:
            for item in batches:
                rows = build(item)
                yield rows
                if isinstance(rows, Fallback):
                    return
            return
        with ThreadPoolExecutor(max_workers=1) as pool:
            pending = None
            for item in batches:
                future = pool.submit(build, item)
                if pending is not None:
                    rows = pending.result()
                    yield rows
                    if isinstance(rows, Fallback):
                        return
                pending = future
            if pending is not None:
                yield pending.result()
    except (OSError, pa.ArrowException):
        yield Fallback("not readable by Arrow")


# ---------------------------------------------------------------------------------------------- declarations


class SchemaCheck:
    """A declaration (given, or inferred in the same pass) checked batch by batch, column-wise, or event by event
    on the row path — with the messages of :class:`~cer_theory.formalisms.ceql.declarations.Schema`."""

    def __init__(self, schema: Schema | None, source: str) -> None:
        self.declared = schema is not None
        self.schema = schema if schema is not None else Schema()
        self.source = source

    def batch(self, rows: Rows) -> None:
        """Raise :class:`Fallback` if some row of ``rows`` breaks the declaration (the row path then names it);
        else record the kinds it infers, with the line each was first seen on."""
        kinds = self.schema.kinds
        pending: list[tuple[str, str, str, int]] = []
        for t in set(rows.types.tolist()):
            sel = rows.types == t
            declared = kinds.get(t)
            if declared is None and self.declared:
                raise Fallback("undeclared type")
            for name, codes_all in rows.kinds.items():
                codes = codes_all[sel]
                present = sorted(set(np.unique(codes).tolist()) - {MISSING})
                if not present:
                    continue
                if len(present) > 1:
                    raise Fallback("two kinds")
                k = _KIND_OF_CODE[present[0]]
                seen = None if declared is None else declared.get(name, "absent")
                if self.declared:
                    if seen == "absent" or (seen is not None and seen != k):
                        raise Fallback("declaration")
                elif seen is None or seen == "absent":
                    first = int(np.flatnonzero(sel & (codes_all == present[0]))[0])
                    pending.append((t, name, k, rows.line(first)))
                elif seen != k:
                    raise Fallback("kind change")
        for t, name, k, line in pending:
            kinds.setdefault(t, {})[name] = k
            self.schema._first_seen[(t, name)] = line

    def event(self, line: int, event: Event) -> Event:
        """The row path's check of one event (:meth:`Schema.check`, or :meth:`Schema.infer` incrementally)."""
        if self.declared:
            for checked in self.schema.check(((line, event),), source=self.source):
                return checked
        attrs = self.schema.kinds.setdefault(event.type, {})
        for name, value in event.attributes.items():
            k = kind(value)
            seen = attrs.setdefault(name, k)
            if seen != k:
                first = self.schema._first_seen[(event.type, name)]
                raise StreamFormatError(f"{event.type}.{name} is {KIND_NAMES[k]} here but {KIND_NAMES[seen]} "
                                        f"at line {first}", source=self.source, line=line, field=name)
            self.schema._first_seen.setdefault((event.type, name), line)
        return event


def file_matches(engine: Any, path: str | Path, fmt: str | None = None, schema: Schema | None = None, *,
                 progress: Callable[[int], None] | None = None) -> Iterator[Any]:
    """The matches of ``engine`` (an :class:`~cer_theory.engines.core.Engine`) over a JSON Lines, CSV or Parquet
    file checked against ``schema`` (None: inferred in the same pass): batches through the columns while they
    are exactly columnar, then the row path (see the module docstring). The file is read once. ``progress`` is
    called with the events read so far after each columnar batch."""
    fmt = file_format(path, fmt)
    check = SchemaCheck(schema, str(path))
    done = 0
    for rows in file_batches(path, fmt, partition=engine.partition_attributes):
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


__all__ = ["BATCH_BYTES", "BATCH_ROWS", "DictRows", "ColumnEvents", "Fallback", "Rows", "SchemaCheck", "arrow_column", "file_batches",
           "file_events", "file_format", "file_matches", "frame_batches", "iter_parquet", "iter_rows", "column_keys", "partition_keys", "table_rows"]
