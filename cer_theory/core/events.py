"""The data model shared by every formalism: events, streams, complex events and valuations.

The CEL paper, §4: a stream is a sequence of tuples ``t0 t1 …``, positions are 0-based, a
complex event is a finite set of positions and a valuation maps variables to finite sets of positions.
As the CEL paper §4 (footnote 1) suggests, every event carries an explicit type tag (docs/decisions.md D1), so
``tuples(R) = {t | t.type = R}``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Union, overload

from cer_theory.core.errors import StreamFormatError, wrong_kind

Value = Union[bool, int, float, str]
"""Attribute values: numbers, strings and booleans. Values of different kinds never compare (see predicates)."""

TYPE_KEY = "type"
"""The reserved key that holds the event type in JSON Lines, CSV and predicates (``X.type``)."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_json_string: Callable[[str], str] = json.encoder.encode_basestring_ascii  # (what json.dumps uses)


def _check_value(name: str, value: object, *, source: str | None, line: int | None) -> Value:
    if isinstance(value, HugeInt):
        raise huge_int_error(len(value.lstrip("-")), source=source, line=line, field=name)
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
        if attributes is not None and not isinstance(attributes, Mapping):
            raise wrong_kind("Event", "its attributes as a mapping from names to values", attributes)
        attrs: dict[str, Value] = {}
        for name, value in {**(attributes or {}), **kwargs}.items():
            if not isinstance(name, str) or not _NAME.match(name) or name == TYPE_KEY:
                raise StreamFormatError("attribute names are identifiers other than 'type'", field=str(name))
            attrs[name] = _check_value(name, value, source=None, line=None)
        self._fill(type, attrs)

    def _fill(self, type: str, attrs: Mapping[str, Value], ordered: bool = False) -> None:
        object.__setattr__(self, "type", type)
        values = attrs if ordered else dict(sorted(attrs.items()))
        object.__setattr__(self, "_values", values)
        # The hash is computed on first use: most events (a columnar batch's reported rows) are never hashed.

    @classmethod
    def trusted(cls, type: str, attributes: Mapping[str, Value], *, ordered: bool = False) -> Event:
        """The Event of values already checked as ``__init__`` checks them (a non-empty type, identifier names
        other than ``type``, scalar values, no NaN, no None): the columnar path checks a whole batch at once
        (docs/decisions.md D89), so its reported rows are built without checking each value again. ``ordered``:
        ``attributes`` is a fresh dict already in name order, kept as it is."""
        event = _new(cls)  # (the slots set through their descriptors: no __init__, no _fill call per event)
        _set_type(event, type)
        _set_values(event, attributes if ordered else dict(sorted(attributes.items())))
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


_new = object.__new__
_set_type, _set_values = Event.type.__set__, Event._values.__set__  # type: ignore[attr-defined,misc]
"""The slots of an Event set directly, bypassing the refusing ``__setattr__`` (:meth:`Event.trusted`)."""


def json_value_text(value: Value) -> str:
    """``json.dumps(value)`` for an attribute value, byte for byte and faster (docs/decisions.md D155): strings
    escaped to ASCII, ``int.__repr__``, ``float.__repr__`` (json's own, for finite floats), ``true``/``false``."""
    # Exact class tests, not isinstance: bool is an int, and this runs once per reported value. mypy does not
    # narrow on ``__class__ is``, hence the ignores.
    c = value.__class__
    if c is str:
        return _json_string(value)  # type: ignore[arg-type]
    if c is int:
        return int.__repr__(value)
    if c is float and value - value == 0.0:  # type: ignore[operator]  # (finite: json writes infinities as Infinity)
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
    :func:`event_json_text` on a columnar batch's reported rows (docs/decisions.md D155); a row with every cell
    present is one f-string (D457)."""
    for name in names:
        if not _NAME.match(name) or name == TYPE_KEY:
            raise ValueError(f"not an attribute name: {name!r}")
    cells = [f"c{i}" for i in range(len(names))]

    def value(v: str, c: str) -> str:  # (json_value_text inlined)
        return f"(js({v}) if ({c} := {v}.__class__) is str else ir({v}) if {c} is int else fr({v}) " \
               f"if {c} is float and {v} - {v} == 0.0 else jv({v}))"

    # a row with every cell present (the usual row) is one f-string; a row with absent cells appends the others
    whole = "".join(f', "{name}": {{{value(f"v{i}", "c")}}}' for i, name in enumerate(names))
    body = ["    def text(k):", *(f"        v{i} = c{i}[k]" for i in range(len(names))),
            f"        if {' and '.join([f'v{i} is not None' for i in range(len(names))] + ['True'])}:",
            f"            return f'{{{{\"type\": {{js(types[k])}}{whole}}}}}'",
            "        out = '{\"type\": ' + js(types[k])"]
    for i, name in enumerate(names):
        body += [f"        if v{i} is not None:", f"            out += ', \"{name}\": ' + {value(f'v{i}', 'c')}"]
    body.append("        return out + '}'")
    source = "\n".join([f"def make(types, {', '.join(cells + [''])}js=js, jv=jv, ir=ir, fr=fr):", *body,
                         "    return text"])
    namespace: dict[str, Any] = {"js": _json_string, "jv": json_value_text, "ir": int.__repr__, "fr": float.__repr__}
    exec(compile(source, f"<row_json_text {' '.join(names)}>", "exec"), namespace)  # noqa: S102 (names checked)
    make: Callable[..., Callable[[int], str]] = namespace["make"]
    return make


def _typed(attrs: Mapping[str, Value]) -> tuple[tuple[str, type, Value], ...]:
    return tuple((k, type(v), v) for k, v in attrs.items())


class Stream(Sequence[Event]):
    """A finite stream prefix ``S = t0 t1 … t_{n}``: an immutable sequence of events, positions 0-based."""

    __slots__ = ("_events",)

    def __init__(self, events: Iterable[Event] = ()) -> None:
        try:
            evs = tuple(events)
        except TypeError:
            if isinstance(events, Iterable):
                raise
            raise wrong_kind("Stream", "an iterable of Events", events) from None
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

    def to_jsonl(self) -> str:
        return "".join(json.dumps(e.to_dict()) + "\n" for e in self._events)


MAX_INT_DIGITS = 4300
"""Python's limit on the digits of an integer read from text (``sys.get_int_max_str_digits``): longer integers
are rejected with their line and field rather than read as something else. The one bound of every reader: streams,
JSON files (``core.textfiles.loads_json``) and the numbers of every formula and query (``core.parsing.number``)."""


class HugeInt(str):
    """An integer literal longer than :data:`MAX_INT_DIGITS`, kept as text by a reader so that the error can name
    its field (:func:`huge_int_error`)."""


def huge_int_error(digits: int, *, source: str | None, line: int | None, field: str) -> StreamFormatError:
    """The error for an integer of ``digits`` digits, longer than can be read."""
    return StreamFormatError(f"an integer of {digits:,} digits, more than the {MAX_INT_DIGITS:,} that can be read; "
                             f"give it as a string", source=source, line=line, field=field)


class ComplexEvent(frozenset[int]):
    """A complex event: a finite, possibly empty set of stream positions (the CEL paper, §4)."""

    __slots__ = ()

    def __new__(cls, positions: Iterable[int] = ()) -> ComplexEvent:
        try:
            return super().__new__(cls, positions)
        except TypeError:
            raise wrong_kind("ComplexEvent", "an iterable of stream positions", positions) from None

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
        """The ordered subsequence ``S[C]`` of the CEL paper §8."""
        return [stream[i] for i in self.positions]

    def __repr__(self) -> str:
        return "{" + ",".join(map(str, self.positions)) + "}"


class Valuation(Mapping[str, frozenset[int]]):
    """A valuation μ: variables → finite sets of positions (the CEL paper, §4); variables absent map to ∅.

    Immutable and hashable; empty entries are dropped so that equal valuations compare equal.
    """

    __slots__ = ("_map", "_hash")

    def __init__(self, mapping: Mapping[str, Iterable[int]] | Iterable[tuple[str, Iterable[int]]] = ()) -> None:
        items = mapping.items() if isinstance(mapping, Mapping) else mapping
        m = {}
        try:
            for var, pos in items:
                fs = frozenset(pos)
                if fs:
                    m[var] = fs
        except (TypeError, ValueError):
            raise wrong_kind("Valuation", "a mapping from variables to iterables of positions", mapping) from None
        self._map = m
        self._hash = hash(frozenset(m.items()))

    @classmethod
    def single(cls, var: str, positions: Iterable[int]) -> Valuation:
        """``A ↦ C``."""
        return cls({var: positions})

    def __getitem__(self, var: str) -> frozenset[int]:
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

    def sort_key(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        return tuple((v, tuple(sorted(self._map[v]))) for v in sorted(self._map))

    def __repr__(self) -> str:
        body = ", ".join(f"{v}↦{{{','.join(map(str, ps))}}}" for v, ps in self.sort_key())
        return "{" + body + "}"


@dataclass(frozen=True, slots=True, order=True)
class CoreComplexEvent:
    """A complex event of the CORE paper (CORE, §2): ``C = ([i, j], D)`` with ``i ≤ j`` and ``D ⊆ {i..j}``. Unlike
    the CEL paper, the interval is part of the output, so equal data with different starts are different complex
    events, and under projection ``i`` need not be in D. Positions are global stream positions, sorted."""

    start: int
    end: int
    positions: tuple[int, ...] = field(default=())

    def to_json(self, stream: Sequence[Event] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"start": self.start, "end": self.end, "positions": list(self.positions)}
        if stream is not None:
            out["events"] = [stream[p].to_dict() for p in self.positions]
        return out

    def __repr__(self) -> str:
        return f"([{self.start},{self.end}], {{{','.join(map(str, self.positions))}}})"
