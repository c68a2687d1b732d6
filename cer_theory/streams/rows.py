"""The row readers: a JSON Lines or CSV file (or standard input) read lazily, one
:class:`~cer_theory.core.events.Event` per line or record, each error naming the source, the line and the field.

These are the readable reference of every input path: the block readers (:mod:`cer_theory.streams.blocks`) must
give the same events, and fall back to these readers at the first batch they cannot read exactly (docs/decisions.md
D87). The stream of the CEL paper (§4) is a sequence of typed tuples; every event carries its type under the key
``type`` (docs/decisions.md D1).
"""

from __future__ import annotations

import codecs
import csv
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from cer_theory.core.errors import StreamFormatError, wrong_kind
from cer_theory.core.events import MAX_INT_DIGITS, TYPE_KEY, Event, HugeInt, Stream, Value, huge_int_error

def csv_value(text: str) -> Value:
    """CSV cells: integers and decimals become numbers, ``true``/``false`` booleans, anything else a string."""
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", text):
        return float(text)
    if text in ("true", "false"):
        return text == "true"
    return text



STDIN = "-"
"""The stream name that means standard input (``--stream -``)."""

FORMATS = ("csv", "jsonl", "parquet")
"""The stream file formats: CSV with a header, JSON Lines and Parquet (read by
:func:`cer_theory.streams.blocks.iter_rows`; the text readers here read the first two)."""

MAX_CSV_CELL = csv.field_size_limit()
"""The longest CSV cell, in characters (the csv module's limit, 128 KiB)."""


def _parse_int(text: str) -> int | HugeInt:
    return HugeInt(text) if len(text.lstrip("-")) > MAX_INT_DIGITS else int(text)


class _DuplicateKey(Exception):
    """A JSON object names one key twice (raised inside ``json.loads``, turned into the line's error)."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """``json.loads``'s object hook: the object, refusing a key given twice (json itself keeps the last value
    silently, where CSV refuses a duplicated column: both refuse it, naming the line and the key)."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return data


MAX_JSON_DEPTH = 32
"""How deeply a line of JSON Lines may nest arrays and objects before any JSON parser sees it (docs/robustness.md).
An event is one object of scalar values (depth 1), so anything deeper is an error anyway; the bound is checked
first, by :func:`nested_too_deeply`, because a C parser given 100,000 nested brackets may exhaust its stack and
kill the process (Arrow's JSON reader does: exit 139, no message) where the error should be one line."""

_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
"""A JSON string (skipped whole: brackets inside it do not nest) or one bracket."""


def nested_too_deeply(text: str) -> str | None:
    """None when the JSON text ``text`` nests at most :data:`MAX_JSON_DEPTH` levels; else the top-level key whose
    value goes deeper (``""`` when it is not inside one). Cheap: a line with no more opening brackets than the
    bound is passed on counting them (C speed), and a deeper one is scanned only up to the bound."""
    if text.count("{") + text.count("[") <= MAX_JSON_DEPTH:
        return None
    depth, key = 0, '""'
    for m in _BRACKETS.finditer(text):
        token = m.group()
        if token[0] == '"':
            if depth == 1:
                key = token  # the last string at the top level before a value opens is that value's key
        elif token in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                try:
                    return str(json.loads(key))
                except ValueError:
                    return key[1:-1]
        else:
            depth -= 1
    return None


def too_deep_error(key: str, *, source: str | None, line: int) -> StreamFormatError:
    """The one-line error of a line nested past :data:`MAX_JSON_DEPTH`, naming its key."""
    return StreamFormatError(f"a value nested more than {MAX_JSON_DEPTH} levels deep (arrays and objects inside one "
                             f"another); attribute values are numbers, strings or booleans", source=source, line=line,
                             field=key or None)


def iter_jsonl(source: str | Path | Iterable[str]) -> Iterator[tuple[int, Event]]:
    """``(line number, event)`` for each non-blank line of JSON Lines, read lazily; errors name line and field. A
    line nested past :data:`MAX_JSON_DEPTH` is refused before it is parsed."""
    name, lines = _lines(source)
    for no, text in enumerate(lines, 1):
        if not text.strip():
            continue
        deep = nested_too_deeply(text)
        if deep is not None:
            raise too_deep_error(deep, source=name, line=no)
        try:
            data = json.loads(text, parse_int=_parse_int)
            if data.__class__ is dict and text.count('":') != len(data):  # (one `":` per key: else look closer)
                data = json.loads(text, parse_int=_parse_int, object_pairs_hook=_unique_keys)
        except _DuplicateKey as exc:
            raise StreamFormatError(f"the object gives key {exc.args[0]!r} twice", source=name, line=no,
                                    field=str(exc.args[0])) from None
        except json.JSONDecodeError as exc:
            raise StreamFormatError(f"invalid JSON: {exc.msg} (column {exc.colno})", source=name,
                                    line=no) from None
        except RecursionError:
            raise StreamFormatError("malformed event: JSON nested too deeply (attribute values are numbers, "
                                    "strings or booleans)", source=name, line=no) from None
        yield no, Event.from_dict(data, source=name, line=no)


def iter_csv(source: str | Path | Iterable[str]) -> Iterator[tuple[int, Event]]:
    """``(line number, event)`` for each record of a CSV file with a ``type`` column, read lazily.

    The csv module reads the records, so a quoted cell may hold commas, quotes (``""``) and newlines; the line
    number is the record's first line (the header is line 1). What could be read in two ways is an error naming
    the line: an unterminated quote, a stray quote, a duplicated column, a record with more or fewer cells than
    the header."""
    name, lines = _lines(source)
    reader = csv.reader(lines, strict=True)
    start = 1

    def records() -> Iterator[tuple[int, list[str]]]:
        nonlocal start
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise StreamFormatError(_csv_problem(str(exc)), source=name, line=start) from None
            yield start, row
            start = reader.line_num + 1

    rows = records()
    first = next(rows, None)
    if first is None:
        raise StreamFormatError("empty CSV file: expected a header with a 'type' column", source=name, line=1)
    header = [h.strip() for h in first[1]]
    seen: set[str] = set()
    for h in header:
        if h in seen:
            raise StreamFormatError(f"the header names column {h!r} twice", source=name, line=1, field=h)
        seen.add(h)
    if TYPE_KEY not in header:
        raise StreamFormatError("the header has no 'type' column", source=name, line=1, field=TYPE_KEY)
    for no, row in rows:
        if not row:
            continue
        if len(row) != len(header):
            more = "more" if len(row) > len(header) else "fewer"
            raise StreamFormatError(f"expected {len(header)} cells, found {len(row)} ({more} than the header; a "
                                    f"cell holding a comma must be quoted)", source=name, line=no)
        data = {h: (None if cell == "" else (cell if h == TYPE_KEY else _csv_cell(cell, name, no, h)))
                for h, cell in zip(header, row)}
        yield no, Event.from_dict(data, source=name, line=no)


def _csv_problem(message: str) -> str:
    """The csv module's complaint in the stream's terms."""
    if "unexpected end of data" in message:
        return "unterminated quoted cell (a quote opened here is never closed)"
    if "field larger than field limit" in message:
        return f"a cell longer than {MAX_CSV_CELL:,} characters"
    if "expected after" in message:
        return f"a quote inside an unquoted or closed cell ({message}; write a quote inside quotes as \"\")"
    return f"malformed CSV: {message}"


def _csv_cell(text: str, source: str | None, line: int, field: str) -> Value:
    if re.fullmatch(r"[+-]?\d+", text) and len(text.lstrip("+-")) > MAX_INT_DIGITS:
        raise huge_int_error(len(text.lstrip("+-")), source=source, line=line, field=field)
    return csv_value(text)


def stream_format(path: str | Path, format: str | None = None) -> str:
    """``csv``, ``jsonl`` or ``parquet``: ``format`` if given (``json`` and ``ndjson`` mean JSON Lines), else from
    the extension: ``.csv`` is CSV, ``.parquet``/``.pq`` Parquet, anything else (standard input included) JSON
    Lines. The one format detection of every reader."""
    if format:
        fmt = format.lower()
    else:
        suffix = Path(path).suffix.lower()
        fmt = "csv" if suffix == ".csv" else "parquet" if suffix in (".parquet", ".pq") else "jsonl"
    fmt = "jsonl" if fmt in ("json", "ndjson") else fmt
    if fmt not in FORMATS:
        raise StreamFormatError(f"unknown stream format {fmt!r}: use csv, jsonl or parquet", source=str(path))
    return fmt


def iter_file(path: str | Path, format: str | None = None) -> Iterator[tuple[int, Event]]:
    """Stream a file's events lazily (``-``: standard input): CSV or JSON Lines as :func:`stream_format` says."""
    if str(path) != STDIN and not Path(path).exists():
        raise StreamFormatError("no such file", source=str(path))
    if Path(path).is_dir():
        raise StreamFormatError("a folder, not a stream file", source=str(path))
    fmt = stream_format(path, format)
    if fmt == "parquet":
        raise StreamFormatError("Parquet is read by cer_theory.streams.blocks.iter_rows", source=str(path))
    lines = _Lines(str(path))
    return iter_csv(lines) if fmt == "csv" else iter_jsonl(lines)


def rereadable(path: str | Path) -> bool:
    """Whether the stream can be read twice (a regular file, not standard input, a pipe or a FIFO)."""
    return str(path) != STDIN and Path(path).is_file()


class _Lines:
    """The decoded lines of a file or standard input, read lazily, with its name for errors (an iterable that
    :func:`_lines` recognises)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __iter__(self) -> Iterator[str]:
        if self.name == STDIN:
            yield from _decode(sys.stdin.buffer, "<stdin>")
            return
        try:
            f = open(self.name, "rb")
        except OSError as e:  # no permission, a folder: one line naming the file
            raise StreamFormatError(f"cannot read ({e.strerror or e})", source=self.name) from None
        with f:
            yield from _decode(f, self.name)


def _decode(raw: Iterable[bytes], name: str) -> Iterator[str]:
    """Lines with their endings, decoded as UTF-8 (a leading byte order mark dropped); other encodings are an
    error naming the line, the column and the byte."""
    for no, chunk in enumerate(raw, 1):
        if no == 1:
            if chunk.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
                raise StreamFormatError("the stream is UTF-16 (it starts with a UTF-16 byte order mark): streams "
                                        "are UTF-8 (convert it, e.g. iconv -f utf-16 -t utf-8)", source=name, line=1)
            if chunk.startswith(codecs.BOM_UTF8):
                chunk = chunk[len(codecs.BOM_UTF8):]
        try:
            yield chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            column = len(chunk[:exc.start].decode("utf-8", errors="replace")) + 1
            raise StreamFormatError(f"not UTF-8 text: byte 0x{chunk[exc.start]:02x} at column {column} (streams are "
                                    f"UTF-8; convert other encodings, e.g. iconv -f latin1 -t utf-8)", source=name,
                                    line=no) from None


def _lines(source: str | Path | Iterable[str]) -> tuple[str | None, Iterable[str]]:
    if isinstance(source, _Lines):
        return ("<stdin>" if source.name == STDIN else source.name), source
    if isinstance(source, Path) or (isinstance(source, str) and "\n" not in source and Path(source).exists()):
        return str(source), _Lines(str(source))
    if isinstance(source, str):
        text = source[1:] if source.startswith("\ufeff") else source
        return None, text.splitlines(keepends=True)
    return None, source


def load(path: str | Path, format: str | None = None) -> Stream:
    """A whole stream file as a :class:`~cer_theory.core.events.Stream` (``.csv`` as CSV, anything else as JSON
    Lines; ``-``: standard input)."""
    if isinstance(path, (bytes, bytearray)) or not isinstance(path, (str, os.PathLike)):
        raise wrong_kind("load", "a stream file's path (str or Path; '-': standard input)", path)
    if format is not None and not isinstance(format, str):
        raise wrong_kind("load", "format=None or one of csv, jsonl, parquet", format)
    return Stream(e for _, e in iter_file(path, format))


def read_jsonl(source: str | Path | Iterable[str]) -> Stream:
    """A stream from JSON Lines (text, a path or lines): one object per line with a ``"type"`` key; blank lines
    are skipped."""
    return Stream(e for _, e in iter_jsonl(source))


def read_csv(source: str | Path | Iterable[str]) -> Stream:
    """A stream from CSV (text, a path or lines) with a header and a ``type`` column; an empty cell means the
    attribute is absent."""
    return Stream(e for _, e in iter_csv(source))


__all__ = ["FORMATS", "MAX_CSV_CELL", "MAX_JSON_DEPTH", "nested_too_deeply", "too_deep_error", "STDIN", "iter_csv", "iter_file", "iter_jsonl", "load", "read_csv",
           "read_jsonl", "rereadable", "stream_format"]
