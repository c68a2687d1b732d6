"""A block of a CSV file as columns (docs/decisions.md D150): Arrow reads every cell as text, and each column
gets the one Arrow type whose values are exactly the row reader's (:func:`cer_theory.streams.rows.csv_value`), or
goes through the cell grammar when it mixes kinds. Whatever Arrow and Python's csv module would read differently
(quotes, line breaks in cells, non-ASCII digits) sends the block the row way (:class:`~cer_theory.streams.batch.Fallback`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from cer_theory.core.events import TYPE_KEY
from cer_theory.core.predicates.vectorized import BOOL, MISSING, NUM, STR, Column
from cer_theory.streams.arrow import EXACT, arrow_column, arrow_kinds, attribute_names, object_strings, types_column
from cer_theory.streams.batch import ColumnEvents, Fallback, Rows
from cer_theory.streams.lines import cut, line_index, plain_newlines, require_utf8

_INT_RE = r"^[+-]?[0-9]+$"
_NUM_RE = r"^[+-]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][+-]?[0-9]+)?$"
"""The CSV cell grammar of :func:`cer_theory.streams.rows.csv_value` for ASCII cells (a non-ASCII cell that may be
a number sends its batch the row way, where Python's Unicode digits apply; docs/decisions.md D150)."""


def csv_rows(block: bytes, line: int, header_line: bytes, source: str) -> Rows:
    """One CSV block as columns (docs/decisions.md D150): Arrow reads every cell as text (an empty cell, quoted or
    not, is null: the row reader's absent value); :func:`_csv_typed` then gives each column the one Arrow type
    whose values are exactly :func:`cer_theory.streams.rows.csv_value`'s, and a column that mixes kinds goes
    through the cell grammar (:func:`_csv_column`)."""
    if not plain_newlines(block) or not plain_newlines(header_line):
        raise Fallback("carriage return")
    require_utf8(block)
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
    lines = line_index(block.replace(b"\r\n", b"\n") if b"\r" in block else block, line, b"\r\n")
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
    types = types_column(table)  # (non-empty strings: an empty cell is null here)
    typed: dict[str, pa.Array] = {}
    mixed: dict[str, tuple[Column, Callable[[], list]]] = {}
    for h in attribute_names(header):
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
    starts, ends = cut(block)
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
"""The first bytes of a cell :func:`cer_theory.streams.rows.csv_value` may read as a number: a sign, a point, an
ASCII digit, or the lead byte of a non-ASCII character (which may be a Unicode digit). Any other cell is a string
unless it is ``true`` or ``false``."""


def _csv_typed(cells: pa.Array) -> pa.Array | None:
    """A CSV column of text cells (null: empty) as one Arrow array of int64, float64, bool or string whose every
    value is the row reader's (:func:`cer_theory.streams.rows.csv_value`), or None when the column mixes kinds
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
        if not np.isfinite(v).all() or (np.abs(v) >= EXACT).any():
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
    err = np.where(is_int & (np.abs(num) >= EXACT), np.abs(num) * 2.0 ** -52, 0.0)
    text = object_strings(cells)
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


__all__ = ["csv_rows"]
