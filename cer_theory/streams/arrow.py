"""Arrow columns as the batch's columns (:class:`~cer_theory.streams.batch.Rows`), exactly: a column goes
through only when every row is one the row readers (:mod:`cer_theory.streams.rows`,
:meth:`~cer_theory.core.events.Event.from_dict`) would accept with the same values — the ``type`` column non-empty
strings, attribute names identifiers, one scalar kind per column, no NaN, no number that a float may have rounded
(docs/decisions.md D87). Anything else raises :class:`~cer_theory.streams.batch.Fallback`: the row path takes
over at that batch.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cer_theory.core.events import TYPE_KEY, Event
from cer_theory.core.predicates.vectorized import BOOL, MISSING, NUM, STR, Column
from cer_theory.streams.batch import ColumnEvents, Fallback, Rows

EXACT = 2.0 ** 53
"""Floats at or beyond this magnitude may be rounded integers: such a JSON column is read the row way."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


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
        err = np.where(np.abs(num) < EXACT, 0.0, np.abs(num) * 2.0 ** -52)  # the int64 is exact; its float not
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
        text = object_strings(array.fill_null(""))
        kinds[valid] = STR
    else:
        raise Fallback(f"a {t} column")
    return Column(kinds, num, err, text, flag)


def types_column(table: pa.Table) -> np.ndarray:
    """The ``type`` column, which must be non-empty strings on every row (else the row path's error)."""
    if TYPE_KEY not in table.column_names:
        raise Fallback("no type column")
    col = table.column(TYPE_KEY)
    if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)) or col.null_count:
        raise Fallback("type column")
    if len(col) and pc.any(pc.equal(pc.utf8_length(col), 0)).as_py():
        raise Fallback("empty type")
    return object_strings(col)


def object_strings(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A string column as an object array of Python strings (through ``to_pylist``: several times faster than
    pyarrow's ``to_numpy`` for strings). A column of few distinct strings (event types, names: judged on its
    first :data:`SAMPLE` rows) converts each distinct string once, through Arrow's dictionary encoding: half the
    time of ``to_pylist`` on the stock stream's columns, the same strings (docs/decisions.md D453)."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if not array.null_count and len(array) > SAMPLE and len(pc.unique(array.slice(0, SAMPLE))) <= SAMPLE // 8:
        encoded = array.dictionary_encode()
        distinct = np.empty(len(encoded.dictionary), dtype=object)
        distinct[:] = encoded.dictionary.to_pylist()
        return distinct[encoded.indices.to_numpy()]
    out = np.empty(len(array), dtype=object)
    out[:] = array.to_pylist()
    return out


SAMPLE = 512
"""Rows of a string column looked at to judge whether it has few distinct strings (:func:`object_strings`)."""


def attribute_names(names: Iterable[str]) -> list[str]:
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
        if not nan_missing and (np.abs(num[valid]) >= EXACT).any():
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
    types = types_column(table)
    kinds = {name: arrow_kinds(table.column(name), nan_missing=nan_missing, exact=name in exact_partition)
             for name in attribute_names(table.column_names)}

    def column(name: str) -> Column:
        return arrow_column(table.column(name), nan_missing=nan_missing)

    def values(name: str) -> list:
        array = table.column(name)
        t = array.type
        if pa.types.is_float16(t):  # (its to_pylist gives numpy scalars)
            array = array.cast(pa.float64())
        if (pa.types.is_integer(t) or pa.types.is_floating(t)) and not array.null_count:
            numbers = array.to_numpy()  # (the same Python ints and floats as to_pylist, several times faster)
            if not (nan_missing and pa.types.is_floating(t) and np.isnan(numbers).any()):
                return numbers.tolist()
            out = numbers.tolist()
        elif (pa.types.is_string(t) or pa.types.is_large_string(t)) and not array.null_count:
            out = object_strings(array).tolist()
        else:
            out = array.to_pylist()
        if nan_missing and pa.types.is_floating(t):
            out = [None if v != v else v for v in out]  # NaN: absent (v != v only for NaN)
        return out

    if event is None:
        event = ColumnEvents(types, list(kinds), values,
                             None if source_event is None else lambda: _integral_float_rows(table), source_event)
    return Rows(types, kinds, column, values, event, lines)


def _integral_float_rows(table: pa.Table) -> np.ndarray:
    """The rows with an integral value in a float column: JSON's ``1`` in a column Arrow reads as doubles (it
    also holds a ``1.5``) is ``1.0`` in the column but ``1`` for the row reader, and prints differently."""
    out = np.zeros(table.num_rows, dtype=bool)
    for array in table.columns:
        if pa.types.is_floating(array.type):
            num = np.asarray(array.fill_null(0.5).to_numpy(zero_copy_only=False), dtype=np.float64)
            out |= np.floor(num) == num
    return out


__all__ = ["EXACT", "arrow_column", "arrow_kinds", "attribute_names", "object_strings", "table_rows", "types_column"]
