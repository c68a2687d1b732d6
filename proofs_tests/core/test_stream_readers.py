"""The stream readers on real-world bad input (issue 16, items 4, 6, 13): CSV through the csv module, anything
ambiguous rejected with its line, other encodings, huge integers, long cells and deep JSON named, never a
traceback and never data lost silently."""

from __future__ import annotations

import pytest

from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import Event
from cer_theory.streams.rows import iter_file


def _load(tmp_path, name: str, data: bytes) -> list[tuple[int, Event]]:
    path = tmp_path / name
    path.write_bytes(data)
    return list(iter_file(path))


def test_csv_quoted_newlines_commas_and_quotes_are_kept_and_lines_are_the_records_first(tmp_path) -> None:
    rows = _load(tmp_path, "s.csv", b'type,x\nR,"a\nb"\nT,"1,2"\nU,"say ""hi"""\n')
    assert rows == [(2, Event("R", x="a\nb")), (4, Event("T", x="1,2")), (5, Event("U", x='say "hi"'))]


@pytest.mark.parametrize("data,message", [
    (b'type,x\nR,"abc\nT,2\n', r"line 2: unterminated quoted cell"),
    (b"type,x,x\nR,1,2\n", r"line 1, field 'x': the header names column 'x' twice"),
    (b"type,x\nR,1,2\n", r"line 2: expected 2 cells, found 3 \(more than the header"),
    (b"type,x\nR\n", r"line 2: expected 2 cells, found 1 \(fewer"),
    (b'type,x\nR,"a"b\n', r"line 2: a quote inside"),
])
def test_ambiguous_csv_is_rejected_naming_the_line(tmp_path, data: bytes, message: str) -> None:
    with pytest.raises(StreamFormatError, match=message):
        _load(tmp_path, "s.csv", data)


def test_a_utf8_byte_order_mark_is_dropped(tmp_path) -> None:
    assert _load(tmp_path, "s.csv", b"\xef\xbb\xbftype,x\nR,1\n") == [(2, Event("R", x=1))]
    assert _load(tmp_path, "s.jsonl", b'\xef\xbb\xbf{"type": "R"}\n') == [(1, Event("R"))]


@pytest.mark.parametrize("name,data,message", [
    ("s.jsonl", '{"type": "R", "x": "café"}\n'.encode("latin-1"), r"line 1: not UTF-8 text: byte 0xe9 at column 24"),
    ("s.csv", "type,x\nR,café\n".encode("latin-1"), r"line 2: not UTF-8 text: byte 0xe9"),
    ("s.jsonl", '{"type": "R"}\n'.encode("utf-16"), r"line 1: the stream is UTF-16"),
    ("s.jsonl", b'{"type": "R"}\n\x89PNG\r\n\x1a\n\x00\x00', r"line 2: not UTF-8 text"),
    ("s.jsonl", b'{"type": "R", "x": ' + b"9" * 5000 + b"}\n", r"line 1, field 'x': an integer of 5,000 digits"),
    ("s.csv", b"type,x\nR,-" + b"9" * 4301 + b"\n", r"line 2, field 'x': an integer of 4,301 digits"),
    ("s.csv", b"type,x\nR," + b"a" * 200_000 + b"\n", r"line 2: a cell longer than 131,072 characters"),
    ("s.jsonl", b'{"type": "R"}\n{"type": "R", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
     r"line 2, field 'x': a value nested more than 32 levels deep"),
    ("s.jsonl", b'{"type": "R", "x": [[1]]}\n', r"line 1, field 'x': expected a number, string or boolean"),
])
def test_bad_bytes_numbers_cells_and_nesting_name_the_line(tmp_path, name: str, data: bytes, message: str) -> None:
    with pytest.raises(StreamFormatError, match=message):
        _load(tmp_path, name, data)


def test_integers_up_to_the_limit_are_read_exactly(tmp_path) -> None:
    big = "9" * 4300
    assert _load(tmp_path, "s.jsonl", f'{{"type": "R", "x": {big}}}\n'.encode())[0][1]["x"] == int(big)
