"""CSV cells through the columns (cer_theory/streams/blocks.py, docs/decisions.md D150): Arrow reads each
column as text and casts it to one type; whatever the cells — signs, leading zeros, exponents, integers among
decimals, integers beyond int64 or 2**53, ``nan``/``inf`` text, blanks around numbers, hexadecimal, Unicode
digits, booleans and near-booleans, empty and quoted cells, quotes inside or after a cell, CRLF, a byte order
mark, blank lines, a quoted line break — the events, their kinds and printed values ("1" vs "1.0"), the bit vectors and the errors (source, line,
field) are exactly the row reader's (:func:`cer_theory.core.events.iter_csv`). Batches are made tiny so that
columns change type from batch to batch and odd cells land deep inside one."""

from __future__ import annotations

import contextlib
import json
import math
import tempfile
from fractions import Fraction
from pathlib import Path

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cer_theory.core.errors import CerError
from cer_theory.core.events import Event
from cer_theory.engines.core import Engine
from cer_theory.engines.core.run import file_events, file_matches
from cer_theory.streams import csv_block
from cer_theory.streams.batch import Fallback
from cer_theory.streams.blocks import file_batches, iter_rows
from cer_theory.streams.schema_check import SchemaCheck
from cer_theory.core.predicates.ast import kind
from cer_theory.core.predicates.vectorized import BOOL, MISSING, NUM, STR
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.testing.batches import small
from cer_theory.testing.outcomes import printed

KINDS: dict[str, list[str]] = {  # cells by the kind the row reader gives them
    "number": ["0", "1", "-1", "+1", "007", "-0", "42", "9007199254740993", "9223372036854775807",
               "-9223372036854775808", "1.0", "2.5", "-0.0", "1.", ".5", "+.5e-3", "1e3", "1E3", "24.0", "1e-400",
               "1e999", "1e20", "9007199254740993.0", "-7"],
    "boolean": ["true", "false"],
    "string": [" 1", "1 ", "nan", "inf", "-inf", "NaN", "True", "tree", "fals", "0x10", "1_0", "Z\u00fcrich",
               "\u00e9", "-", "+", ".", "e5", "1e", "abc", "a b", "a,b", "INTC"],
}
ROW_WAY = ["9223372036854775808", "-9223372036854775809", "12345678901234567890", "\u0661\u0662",
           "\u0663.\u0665", "-\u0661"]
"""Numbers only Python reads (beyond int64, Unicode digits): their batch and the rest go the row way."""
QUERIES = [parse(q) for q in (
    "SELECT * FROM S WHERE (R OR T) AS a",
    "SELECT * FROM S WHERE (R OR T) AS a FILTER a[x > 1.5 OR y = 'abc']",
    "SELECT * FROM S WHERE (R OR T) AS a FILTER a[x = true OR y <= 9007199254740992]",
    "SELECT * FROM S WHERE R AS a ; T AS b FILTER a[x = 1] WITHIN 3 EVENTS",
)]


KIND_CODE = {"num": NUM, "str": STR, "bool": BOOL}




def _quoted(cell: str) -> str:
    return '"' + cell.replace('"', '""') + '"'


@st.composite
def column_cells(draw: st.DrawFn) -> list[str]:
    """The few cells one column holds: mostly of one kind for the row reader (so that the inferred declaration
    holds and values get compared), now and then of two kinds or with a number only Python reads."""
    kinds = draw(st.lists(st.sampled_from(sorted(KINDS)), min_size=1, max_size=1 if draw(st.integers(0, 5)) else 2))
    cells = draw(st.lists(st.sampled_from([c for k in kinds for c in KINDS[k]]), min_size=1, max_size=3, unique=True))
    if draw(st.integers(0, 9)) == 0:
        cells.append(draw(st.sampled_from(ROW_WAY)))
    return cells + [""]


@st.composite
def csv_files(draw: st.DrawFn) -> bytes:
    """A CSV stream of R/T events with columns ``x`` and ``y`` (each drawn from a few cells: :func:`column_cells`),
    empty and quoted cells, a ``time`` column, CRLF or LF, and maybe a byte order mark, a blank line, a cell
    spanning two lines or quotes that are not a whole quoted cell."""
    pools = [draw(column_cells()) for _ in range(2)]
    lines = []
    for k in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from(["R", "T"]))
        cells = [_quoted(kind) if draw(st.integers(0, 6)) == 0 else kind]
        for pool in pools:
            cell = draw(st.sampled_from(pool))
            cells.append(_quoted(cell) if "," in cell or draw(st.integers(0, 3)) == 0 else cell)
        cells.append(str(k))
        lines.append(",".join(cells))
    extra = draw(st.sampled_from([None, None, None, "bom", "blank", "line break", "quote", "quote"]))
    at = draw(st.integers(0, len(lines) - 1))
    if extra == "quote":  # quotes the csv module and Arrow read differently, or alike but not whole-cell
        odd = draw(st.sampled_from(['"a"b', 'a""b', ' "a"', '"a" ', 'a"b"', '"1"2', '""""', '"a""b"']))
        kind, _, rest = lines[at].partition(",")
        lines[at] = ",".join([kind, odd, rest.split(",", 1)[1] if '"' not in rest else "0,0"])
    elif extra == "blank":
        lines.insert(at, "")
    elif extra == "line break":
        lines[at] = lines[at].replace(",", ',"two\nlines",', 1).rsplit(",", 1)[0]
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(["type,x,y,time", *lines]) + eol
    return (b"\xef\xbb\xbf" if extra == "bom" else b"") + text.encode("utf-8")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(csv_files(), st.sampled_from(QUERIES), st.sampled_from([60, 150, 1 << 20]))
def test_csv_cells_through_the_columns_are_the_row_readers_values(data, q, block):
    """Every CSV cell the columns read (Arrow's casts, the cell grammar for mixed columns) gives the event,
    kind, printed value and bit vector of :func:`cer_theory.core.events._csv_value`, and a bad cell or record
    the row reader's error after the same matches."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.csv"
        path.write_bytes(data)
        want = printed(Engine(q).process(file_events(path, "csv", SchemaCheck(None, str(path)), 0)))
        got = printed(file_matches(Engine(q), path, "csv", None, limits=small(8192, block)))
    assert got == want, (str(q), data)


def _typed(value: object) -> tuple[str, object]:
    return type(value).__name__, value


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(csv_files(), st.sampled_from([60, 150, 1 << 20]))
def test_csv_batches_hold_the_row_readers_lines_values_and_columns(data, block):
    """Each row of each columnar CSV batch is the row reader's record of the same position: its line, its Event
    (type, attributes, Python classes: 1 is not 1.0), the values of every column, and the vectorized columns the
    predicates read — kind, text, flag, and a number within its error bound of the exact value (docs/decisions.md
    D150). A record the row reader rejects is never in a columnar batch."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.csv"
        path.write_bytes(data)
        want: list[tuple[int, Event]] = []
        with contextlib.suppress(CerError):
            want.extend(iter_rows(path, "csv"))
        position = 0
        for rows in file_batches(path, "csv", limits=small(8192, block)):
            if isinstance(rows, Fallback):
                break
            assert position + len(rows) <= len(want), ("a rejected record read by the columns", data)
            for name in rows.kinds:
                column, values = rows.column(name), rows.values(name)
                for k in range(len(rows)):
                    value = want[position + k][1].get(name)
                    assert _typed(values[k]) == _typed(value), (name, k, data)
                    assert column.kinds[k] == (MISSING if value is None else KIND_CODE[kind(value)]), (name, k, data)
                    if isinstance(value, str):
                        assert column.text[k] == value, (name, k, data)
                    elif isinstance(value, bool):
                        assert column.flag[k] == value, (name, k, data)
                    elif isinstance(value, float) and math.isinf(value):  # (1e999: inf for both)
                        assert column.num[k] == value, (name, k, data)
                    elif value is not None:
                        assert abs(Fraction(column.num[k]) - Fraction(value)) <= column.err[k], (name, k, data)
            for k in range(len(rows)):
                line, event = want[position + k]
                assert rows.line(k) == line, (k, data)
                got = rows.event(k)
                assert (got.type, [_typed(v) for v in got.attributes.items()]) == \
                    (event.type, [_typed(v) for v in event.attributes.items()]), (k, data)
            position += len(rows)


def test_columns_of_one_kind_stay_columnar_and_typed(tmp_path):
    """Integers (signs, leading zeros, beyond 2**53), decimals (integral ones written "24.0", exponents),
    booleans, strings (non-ASCII ones too) and empty or quoted cells, with CRLF line ends, are read through the
    columns in every batch (no fall back to the row path), each column as one Arrow type."""
    rows = ["type,i,f,b,s,e"]
    for k in range(400):
        rows.append(",".join(["BUY" if k % 3 else '"SELL"', ["-1", "007", "9007199254740993", ""][k % 4],
                              ["24.0", "2.5e-3", "", '"1.5"'][k % 4], ["true", "false", ""][k % 3],
                              ["ORCL", "Z\u00fcrich", "", '"a,b"'][k % 4], ""]))
    path = tmp_path / "s.csv"
    path.write_bytes(("\r\n".join(rows) + "\r\n").encode("utf-8"))
    batches = 0
    for batch in file_batches(path, "csv", limits=small(8192, 2000)):
        assert not isinstance(batch, Fallback), batch
        batches += 1
    assert batches > 3
    q = QUERIES[0]
    want = printed(Engine(q).process(file_events(path, "csv", SchemaCheck(None, str(path)), 0)))
    assert printed(file_matches(Engine(q), path, "csv", None, limits=small(8192, 2000))) == want


def test_typed_columns_are_cast_once_to_their_arrow_type():
    """The column types Arrow's casts give (the cell grammar is left for columns that mix kinds): int64 for
    integers (not "+1", which Arrow's int64 cast rejects, nor "0x10", which it would read as 16), float64 for
    decimals with no integer among them, bool for true/false, string for cells no number or boolean starts."""
    def typed(cells: list[str | None]) -> pa.DataType | None:
        array = csv_block._csv_typed(pa.array(cells, pa.string()))
        return None if array is None else array.type

    assert typed(["1", "-2", None, "007"]) == pa.int64()
    assert typed(["1.5", "24.0", None, "1e3"]) == pa.float64()
    assert typed(["true", None, "false"]) == pa.bool_()
    assert typed(["ORCL", "Z\u00fcrich", None, "True", "nan", " 1", "a,b"]) == pa.string()
    assert typed([None, None]) == pa.string()
    for mixed in (["1", "+1"], ["1.5", "2"], ["0x10"], ["1", "a"], ["true", "tree"], ["\u0661"], ["1e999"],
                  ["9223372036854775808"], ["-"]):
        assert typed(mixed) is None, mixed


def test_an_integer_beyond_2_53_in_a_mixed_column_compares_exactly(tmp_path):
    """9007199254740993 (2**53 + 1) is 9007199254740992.0 as a float: in a column that also holds strings (the
    cell grammar's path), ``y <= 9007199254740992`` must still be false for it and true for 9007199254740992, as
    for the row reader's Python ints."""
    path = tmp_path / "s.csv"
    path.write_text("type,x,y,time\nR,,9007199254740993,0\nT,,abc,1\nR,,9007199254740992,2\n", encoding="utf-8")
    q = QUERIES[2]
    want = printed(Engine(q).process(file_events(path, "csv", SchemaCheck(None, str(path)), 0)))
    got = printed(file_matches(Engine(q), path, "csv", None))
    assert got == want
    assert [json.loads(m)["positions"] for m in got[0]] == [[2]]
