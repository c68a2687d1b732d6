"""The data model shared by every formalism: events, streams, complex events and valuations.

Seed 000, §4: a stream is a sequence of tuples ``t0 t1 …``, positions are 0-based, a
complex event is a finite set of positions and a valuation maps variables to finite sets of positions.
As seed 000 §4 (footnote 1) suggests, every event carries an explicit type tag (docs/decisions.md D1), so
``tuples(R) = {t | t.type = R}``.
"""

from __future__ import annotations

import codecs
import csv
import json
import math
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Union, overload

from cer_theory.core.errors import StreamFormatError

Value = Union[bool, int, float, str]
"""Attribute values: numbers, strings and booleans. Values of different kinds never compare (see predicates)."""

TYPE_KEY = "type"
"""The reserved key that holds the event type in JSON Lines, CSV and predicates (``X.type``)."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_json_string = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]  # (what json.dumps uses)


def _check_value(name: str, value: object, *, source: str | None, line: int | None) -> Value:
    if isinstance(value, _HugeInt):
        raise _huge_int(len(value.lstrip("-")), source=source, line=line, field=name)
    if isinstance(value, bool) or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            raise StreamFormatError("NaN is not a comparable value", source=source, line=line, field=name)
        return value
    raise StreamFormatError(f"expected a number, string or boolean, got {type(value).__name__}",
                            source=source, line=line, field=name)


class Event:
    """An immutable, hashable event: a type (relation name) and a map of attribute values.

    >>> e = Event("H", id=2, hum=25)
    >>> e.type, e["hum"], e.get("tmp")
    ('H', 25, None)
    """

    __slots__ = ("type", "_values", "_hash")
    type: str
    _values: dict[str, Value]  # the attributes in name order: read-only by convention (``attributes`` is a view)
    _hash: int

    def __init__(self, type: str, attributes: Mapping[str, Value] | None = None, /, **kwargs: Value) -> None:
        if not isinstance(type, str) or not type:
            raise StreamFormatError("the event type must be a non-empty string", field=TYPE_KEY)
        attrs: dict[str, Value] = {}
        for name, value in {**(attributes or {}), **kwargs}.items():
            if not isinstance(name, str) or not _NAME.match(name) or name == TYPE_KEY:
                raise StreamFormatError("attribute names are identifiers other than 'type'", field=str(name))
            attrs[name] = _check_value(name, value, source=None, line=None)
        self._fill(type, attrs)

    def _fill(self, type: str, attrs: Mapping[str, Value], ordered: bool = False) -> None:
        object.__setattr__(self, "type", type)
        values = attrs if ordered else dict(sorted(attrs.items()))  # type: ignore[assignment]
        object.__setattr__(self, "_values", values)
        # The hash is computed on first use: most events (a columnar batch's reported rows) are never hashed.

    @classmethod
    def trusted(cls, type: str, attributes: Mapping[str, Value], *, ordered: bool = False) -> Event:
        """The Event of values already checked as ``__init__`` checks them (a non-empty type, identifier names
        other than ``type``, scalar values, no NaN, no None): the columnar path checks a whole batch at once
        (docs/decisions.md D89), so its reported rows are built without checking each value again. ``ordered``:
        ``attributes`` is a fresh dict already in name order, kept as it is."""
        event = object.__new__(cls)
        event._fill(type, attributes, ordered)
        return event

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Event is immutable")

    @property
    def attributes(self) -> Mapping[str, Value]:
        return MappingProxyType(self._values)

    def get(self, name: str) -> Value | None:
        """The value of attribute ``name`` (``"type"`` gives the type); ``None`` when the event lacks it."""
        return self.type if name == TYPE_KEY else self._values.get(name)

    def __getitem__(self, name: str) -> Value:
        value = self.get(name)
        if value is None:
            raise KeyError(name)
        return value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        # Compare kinds too: True == 1 in Python, but a boolean and a number are different values here.
        return self.type == other.type and _typed(self._values) == _typed(other._values)

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            h = hash((self.type, tuple(self._values.items())))
            object.__setattr__(self, "_hash", h)
            return h

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"{self.type}({inner})"

    def to_dict(self) -> dict[str, Value]:
        """The JSON form: ``{"type": ..., attr: value, ...}``."""
        return {TYPE_KEY: self.type, **self._values}

    def to_json_text(self) -> str:
        """``json.dumps(self.to_dict())``, byte for byte (:func:`event_json_text`)."""
        return event_json_text(self.type, self._values.items())

    @classmethod
    def from_dict(cls, data: Mapping[str, object], *, source: str | None = None,
                  line: int | None = None) -> Event:
        """Build an event from a JSON-like object; errors name the source, line and field."""
        if not isinstance(data, Mapping):
            raise StreamFormatError(f"expected an object, got {type(data).__name__}", source=source, line=line)
        if TYPE_KEY not in data:
            raise StreamFormatError("missing the event type", source=source, line=line, field=TYPE_KEY)
        etype = data[TYPE_KEY]
        if not isinstance(etype, str) or not etype:
            raise StreamFormatError("the event type must be a non-empty string", source=source, line=line,
                                    field=TYPE_KEY)
        attrs: dict[str, Value] = {}
        for name, value in data.items():
            if name == TYPE_KEY or value is None:  # null means "attribute absent" (docs/decisions.md)
                continue
            if not isinstance(name, str) or not _NAME.match(name):
                raise StreamFormatError("attribute names must be identifiers", source=source, line=line,
                                        field=str(name))
            attrs[name] = _check_value(name, value, source=source, line=line)
        return cls(etype, attrs)


def json_value_text(value: Value) -> str:
    """``json.dumps(value)`` for an attribute value, byte for byte and faster (docs/decisions.md D155): strings
    escaped to ASCII, ``int.__repr__``, ``float.__repr__`` (json's own, for finite floats), ``true``/``false``."""
    c = value.__class__
    if c is str:
        return _json_string(value)
    if c is int:
        return int.__repr__(value)
    if c is float and value - value == 0.0:  # (finite: json writes infinities as Infinity)
        return float.__repr__(value)
    if c is bool:
        return "true" if value else "false"
    return json.dumps(value)


def event_json_text(type: str, values: Iterable[tuple[str, Value]]) -> str:
    """The JSON text of the event of type ``type`` with the attributes ``values`` (name, value pairs in name
    order, identifier names): ``json.dumps(Event(type, dict(values)).to_dict())`` byte for byte, without the
    Event — the output writers make one per reported event (docs/decisions.md D155)."""
    parts = ['{"type": ', _json_string(type)]
    for name, v in values:
        parts += (', "', name, '": ', json_value_text(v))  # (names are identifiers: nothing to escape)
    parts.append("}")
    return "".join(parts)


@lru_cache(maxsize=256)
def row_json_text(names: tuple[str, ...]) -> Callable[..., Callable[[int], str]]:
    """For columns named ``names`` (identifiers, in name order): ``make(types, *cells)`` gives ``text(k)``, the
    :func:`event_json_text` of row k (type ``types[k]``, attribute ``names[i]`` = ``cells[i][k]``, absent where
    None), as one generated function: no pairs list and no loop per row, about four times as fast as
    :func:`event_json_text` on a columnar batch's reported rows (docs/decisions.md D155)."""
    for name in names:
        if not _NAME.match(name) or name == TYPE_KEY:
            raise ValueError(f"not an attribute name: {name!r}")
    cells = [f"c{i}" for i in range(len(names))]
    body = ["    def text(k):", "        out = '{\"type\": ' + js(types[k])"]
    for i, name in enumerate(names):
        body += [f"        v = c{i}[k]", "        if v is not None:", "            c = v.__class__",
                 f"            out += ', \"{name}\": ' + (js(v) if c is str else ir(v) if c is int else fr(v) "
                 "if c is float and v - v == 0.0 else jv(v))"]  # (json_value_text inlined)
    body.append("        return out + '}'")
    source = "\n".join([f"def make(types, {', '.join(cells + [''])}js=js, jv=jv, ir=ir, fr=fr):", *body,
                         "    return text"])
    namespace: dict = {"js": _json_string, "jv": json_value_text, "ir": int.__repr__, "fr": float.__repr__}
    exec(compile(source, f"<row_json_text {' '.join(names)}>", "exec"), namespace)  # noqa: S102 (names checked)
    return namespace["make"]


def _typed(attrs: Mapping[str, Value]) -> tuple[tuple[str, type, Value], ...]:
    return tuple((k, type(v), v) for k, v in attrs.items())


def _csv_value(text: str) -> Value:
    """CSV cells: integers and decimals become numbers, ``true``/``false`` booleans, anything else a string."""
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", text):
        return float(text)
    if text in ("true", "false"):
        return text == "true"
    return text


class Stream(Sequence[Event]):
    """A finite stream prefix ``S = t0 t1 … t_{n}``: an immutable sequence of events, positions 0-based."""

    __slots__ = ("_events",)

    def __init__(self, events: Iterable[Event] = ()) -> None:
        evs = tuple(events)
        for i, e in enumerate(evs):
            if not isinstance(e, Event):
                raise StreamFormatError(f"position {i}: expected an Event, got {type(e).__name__}")
        self._events = evs

    @overload
    def __getitem__(self, i: int) -> Event: ...
    @overload
    def __getitem__(self, i: slice) -> Stream: ...
    def __getitem__(self, i: int | slice) -> Event | Stream:
        if isinstance(i, slice):
            return Stream(self._events[i])
        return self._events[i]

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self._events)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and self._events == other._events

    def __hash__(self) -> int:
        return hash(self._events)

    def __add__(self, other: Stream) -> Stream:
        return Stream(self._events + tuple(other))

    def __repr__(self) -> str:
        return f"Stream([{', '.join(map(repr, self._events))}])"

    def types(self) -> str:
        """The stream's types as one string, e.g. ``"R T R"``."""
        return " ".join(e.type for e in self._events)

    @classmethod
    def from_types(cls, text: str) -> Stream:
        """A stream of attribute-less events from their types: ``Stream.from_types("R T R")``."""
        return cls(Event(t) for t in text.split())

    @classmethod
    def from_dicts(cls, rows: Iterable[Mapping[str, object]], *, source: str | None = None) -> Stream:
        return cls(Event.from_dict(r, source=source, line=i) for i, r in enumerate(rows, 1))

    @classmethod
    def from_jsonl(cls, source: str | Path | Iterable[str]) -> Stream:
        """Read JSON Lines: one object per line with a ``"type"`` key; blank lines are skipped."""
        return cls(e for _, e in iter_jsonl(source))

    @classmethod
    def from_csv(cls, source: str | Path | Iterable[str]) -> Stream:
        """Read CSV with a header and a ``type`` column. An empty cell means the attribute is absent."""
        return cls(e for _, e in iter_csv(source))

    @classmethod
    def load(cls, path: str | Path) -> Stream:
        """Read a stream file: ``.csv`` as CSV, anything else (``.jsonl``, ``.json``, ``.ndjson``) as JSON Lines."""
        return cls(e for _, e in iter_file(path))

    def to_jsonl(self) -> str:
        return "".join(json.dumps(e.to_dict()) + "\n" for e in self._events)


STDIN = "-"
"""The stream name that means standard input (``--stream -``)."""

FORMATS = ("csv", "jsonl")
"""The stream file formats: CSV with a header, and JSON Lines."""

MAX_INT_DIGITS = 4300
"""Python's limit on the digits of an integer read from text (``sys.get_int_max_str_digits``): longer integers
are rejected with their line and field rather than read as something else."""

MAX_CSV_CELL = csv.field_size_limit()
"""The longest CSV cell, in characters (the csv module's limit, 128 KiB)."""


class _HugeInt(str):
    """A JSON integer literal longer than :data:`MAX_INT_DIGITS`, kept as text so the error can name its field."""


def _parse_int(text: str) -> int | _HugeInt:
    return _HugeInt(text) if len(text.lstrip("-")) > MAX_INT_DIGITS else int(text)


def _huge_int(digits: int, *, source: str | None, line: int | None, field: str) -> StreamFormatError:
    return StreamFormatError(f"an integer of {digits:,} digits, more than the {MAX_INT_DIGITS:,} that can be read; "
                             f"give it as a string", source=source, line=line, field=field)


def iter_jsonl(source: str | Path | Iterable[str]) -> Iterator[tuple[int, Event]]:
    """``(line number, event)`` for each non-blank line of JSON Lines, read lazily; errors name line and field."""
    name, lines = _lines(source)
    for no, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            data = json.loads(text, parse_int=_parse_int)
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
        raise _huge_int(len(text.lstrip("+-")), source=source, line=line, field=field)
    return _csv_value(text)


def stream_format(path: str | Path, format: str | None = None) -> str:
    """``csv`` or ``jsonl``: ``format`` if given, else ``.csv`` files are CSV and anything else (standard input
    included) JSON Lines."""
    fmt = (format or ("csv" if Path(path).suffix.lower() == ".csv" else "jsonl")).lower()
    fmt = "jsonl" if fmt in ("json", "ndjson") else fmt
    if fmt not in FORMATS:
        raise StreamFormatError(f"unknown stream format {fmt!r}: use csv or jsonl", source=str(path))
    return fmt


def iter_file(path: str | Path, format: str | None = None) -> Iterator[tuple[int, Event]]:
    """Stream a file's events lazily (``-``: standard input): CSV or JSON Lines as :func:`stream_format` says."""
    if str(path) != STDIN and not Path(path).exists():
        raise StreamFormatError("no such file", source=str(path))
    fmt = stream_format(path, format)
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
        with open(self.name, "rb") as f:
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


class ComplexEvent(frozenset):
    """A complex event: a finite, possibly empty set of stream positions (seed 000, §4)."""

    __slots__ = ()

    @property
    def positions(self) -> tuple[int, ...]:
        return tuple(sorted(self))

    @property
    def start(self) -> int | None:
        return min(self) if self else None

    @property
    def end(self) -> int | None:
        return max(self) if self else None

    def events(self, stream: Sequence[Event]) -> list[Event]:
        """The ordered subsequence ``S[C]`` of seed 000 §8."""
        return [stream[i] for i in self.positions]

    def __repr__(self) -> str:
        return "{" + ",".join(map(str, self.positions)) + "}"


class Valuation(Mapping[str, frozenset]):
    """A valuation μ: variables → finite sets of positions (seed 000, §4); variables absent map to ∅.

    Immutable and hashable; empty entries are dropped so that equal valuations compare equal.
    """

    __slots__ = ("_map", "_hash")

    def __init__(self, mapping: Mapping[str, Iterable[int]] | Iterable[tuple[str, Iterable[int]]] = ()) -> None:
        items = mapping.items() if isinstance(mapping, Mapping) else mapping
        m = {}
        for var, pos in items:
            fs = frozenset(pos)
            if fs:
                m[var] = fs
        self._map = m
        self._hash = hash(frozenset(m.items()))

    @classmethod
    def single(cls, var: str, positions: Iterable[int]) -> Valuation:
        """``A ↦ C``."""
        return cls({var: positions})

    def __getitem__(self, var: str) -> frozenset:
        return self._map.get(var, frozenset())

    def __contains__(self, var: object) -> bool:
        return var in self._map

    def __iter__(self) -> Iterator[str]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._map)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Valuation):
            return self._hash == other._hash and self._map == other._map
        return NotImplemented

    def __hash__(self) -> int:
        return self._hash

    def support(self) -> ComplexEvent:
        """``sup(μ) = ⋃_A μ(A)``."""
        return ComplexEvent(frozenset().union(*self._map.values()))

    def union(self, other: Valuation) -> Valuation:
        """``(μ1 ∪ μ2)(A) = μ1(A) ∪ μ2(A)``."""
        m = dict(self._map)
        for var, pos in other._map.items():
            m[var] = m[var] | pos if var in m else pos
        return Valuation(m)

    def assign(self, var: str, positions: Iterable[int]) -> Valuation:
        """``μ[A ↦ C]``."""
        m = dict(self._map)
        m[var] = frozenset(positions)
        return Valuation(m)

    def restrict(self, variables: Iterable[str]) -> Valuation:
        """``μ|_L``: variables outside L map to ∅."""
        keep = set(variables)
        return Valuation({v: p for v, p in self._map.items() if v in keep})

    def shift(self, k: int) -> Valuation:
        """``μ^{+k}``: every position moved by k."""
        return Valuation({v: [p + k for p in ps] for v, ps in self._map.items()})

    def to_json(self) -> dict[str, list[int]]:
        return {v: sorted(self._map[v]) for v in sorted(self._map)}

    def sort_key(self) -> tuple:
        return tuple((v, tuple(sorted(self._map[v]))) for v in sorted(self._map))

    def __repr__(self) -> str:
        body = ", ".join(f"{v}↦{{{','.join(map(str, ps))}}}" for v, ps in self.sort_key())
        return "{" + body + "}"


@dataclass(frozen=True, slots=True, order=True)
class CoreComplexEvent:
    """A complex event of seed 001 (CORE, §2): ``C = ([i, j], D)`` with ``i ≤ j`` and ``D ⊆ {i..j}``. Unlike
    seed 000, the interval is part of the output, so equal data with different starts are different complex
    events, and under projection ``i`` need not be in D. Positions are global stream positions, sorted."""

    start: int
    end: int
    positions: tuple[int, ...] = field(default=())

    def to_json(self, stream: Sequence[Event] | None = None) -> dict:
        out: dict = {"start": self.start, "end": self.end, "positions": list(self.positions)}
        if stream is not None:
            out["events"] = [stream[p].to_dict() for p in self.positions]
        return out

    def __repr__(self) -> str:
        return f"([{self.start},{self.end}], {{{','.join(map(str, self.positions))}}})"
