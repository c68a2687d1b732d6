"""The conformance protocol: a *case* (stream declarations, a CEQL query, a finite stream) goes to an engine, which
answers with its complex events as ``(start, end, positions)`` (the CORE paper, *CORE*, §2: a complex event is
``C = ([i, j], D)``, an interval and the positions of its data), positions counted from 0 in the stream.

On the wire (the ``command`` adapter, docs/conformance.md) a case is one JSON object per line::

    {"id": 3, "declarations": "CREATE STREAM S { EVENT R { x:int, s:string, time:int } }",
     "schema": {"S": {"R": {"x": "int", "s": "string", "time": "int"}}},
     "query": "SELECT * FROM S WHERE R ; R WITHIN 2 EVENTS",
     "events": [{"type": "R", "x": 1, "s": "ab", "time": 0}, ...]}

and the engine answers one line per case, in order::

    {"id": 3, "complex_events": [{"start": 0, "end": 1, "positions": [0, 1]}, ...]}
    {"id": 3, "refused": "why"}                    (the engine does not accept this query)
    {"id": 3, "error": "what went wrong"}          (the engine failed on this case)

``schema`` repeats the declarations as JSON so an engine need not parse ``CREATE STREAM``. Complex events may be
listed in any order; a complex event reported twice counts twice (outputs are compared as multisets).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from cer_theory.core.errors import CerError
from cer_theory.core.events import CoreComplexEvent, Event, Stream
from cer_theory.core.wording import plural
from cer_theory.formalisms.ceql.ast import Query, StreamDeclaration
from cer_theory.formalisms.ceql.parser import parse, parse_declarations
from cer_theory.formalisms.ceql.printer import format_declaration

ComplexEvent = tuple[int, int, tuple[int, ...]]
"""``(start, end, positions)``: CORE's ``([start, end], D)`` with D as sorted positions."""


class ConformanceError(CerError, ValueError):
    """Bad input to the conformance harness: an unknown engine or dialect, a missing interpreter, a corpus
    that cannot be read."""


class EngineFailure(Exception):
    """The engine under test failed on a case (it crashed, answered garbage, wrote on stderr, or reported an
    error): a finding about the engine, recorded as an *engine error*, never as an answer and never as a failure
    of the harness."""


class EngineRefusal(EngineFailure):
    """The engine says it does not accept the case's query (a ``refused`` answer, an engine's own "unsupported"
    error, CORE's "Failed to process client request."): recorded in its own class, *refused*, since the engine
    gave no answer, right or wrong."""


@dataclass(frozen=True)
class Case:
    """One conformance case: the stream declarations, the query text and the events (global positions 0..n-1).

    ``name`` says where the case came from (``generated #17``, a corpus file)."""

    declarations: tuple[StreamDeclaration, ...]
    query: str
    events: tuple[Event, ...]
    name: str = ""
    parsed: Query | None = field(default=None, compare=False, repr=False)

    @classmethod
    def make(cls, declarations: str | Iterable[StreamDeclaration], query: str | Query,
             events: Iterable[Event | Mapping[str, Any]], name: str = "") -> Case:
        decls = tuple(parse_declarations(declarations) if isinstance(declarations, str) else declarations)
        ast = parse(query) if isinstance(query, str) else query
        evs = tuple(e if isinstance(e, Event) else Event.from_dict(e, line=k) for k, e in enumerate(events))
        return cls(decls, query if isinstance(query, str) else str(query), evs, name, ast)

    @property
    def ast(self) -> Query:
        """The parsed query (parsed on first use when the case was built without it)."""
        return self.parsed if self.parsed is not None else parse(self.query)

    @property
    def stream(self) -> Stream:
        return Stream(self.events)

    def declarations_text(self) -> str:
        return "\n".join(format_declaration(d) for d in self.declarations)

    def schema(self) -> dict[str, dict[str, dict[str, str]]]:
        return {d.name: {t: dict(attrs) for t, attrs in d.events.items()} for d in self.declarations}

    def request(self, ident: int = 0) -> dict[str, Any]:
        """The case as one line of the JSON-lines protocol (the module docstring)."""
        return {"id": ident, "declarations": self.declarations_text(), "schema": self.schema(),
                "query": self.query, "events": [e.to_dict() for e in self.events]}

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, **self.request()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Case:
        return cls.make(data["declarations"], data["query"], data["events"], data.get("name", ""))

    def with_(self, *, query: Query | None = None, events: Sequence[Event] | None = None) -> Case:
        """The same case with another query or stream (what shrinking tries)."""
        q = query if query is not None else self.ast
        return Case(self.declarations, str(q), tuple(events) if events is not None else self.events, self.name, q)

    def __repr__(self) -> str:
        return f"Case({self.name!r}, {self.query!r}, {plural(len(self.events), 'event')})"


@runtime_checkable
class Adapter(Protocol):
    """An engine under test: ``run(case)`` returns its complex events (any order, duplicates kept) or raises
    :class:`EngineFailure`; ``close()`` releases what it holds (a subprocess, a Spark session)."""

    name: str

    def run(self, case: Case) -> list[ComplexEvent]: ...

    def close(self) -> None: ...


def read_text(path: str | Path, what: str) -> str:
    """A text file the harness reads (a corpus query or declaration file, a case to replay), which must be UTF-8
    without NUL characters (a UTF-16 or binary file has them); :class:`ConformanceError` naming ``what`` (e.g.
    ``--replay``), the file and the line otherwise."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
        bad = len(data)
    except UnicodeDecodeError as exc:
        text, bad = "", exc.start
    nul = data.find(b"\0", 0, bad)
    if nul >= 0:  # the first problem is named: a NUL before any byte that is not UTF-8
        line = data.count(b"\n", 0, nul) + 1
        raise ConformanceError(f"{what} {path}, line {line}: a NUL byte at offset {nul} (a UTF-16 or binary "
                               f"file?); the harness reads UTF-8 text")
    if bad < len(data):
        line = data.count(b"\n", 0, bad) + 1
        raise ConformanceError(f"{what} {path}, line {line}: not UTF-8 text (byte {data[bad]:#04x} at offset "
                               f"{bad}); the harness reads UTF-8")
    return text


def from_core(ces: Iterable[CoreComplexEvent]) -> list[ComplexEvent]:
    return [(c.start, c.end, tuple(c.positions)) for c in ces]


def parse_answer(obj: Any, size: int) -> list[ComplexEvent]:
    """The ``complex_events`` of an engine's answer, checked against the complex events of CORE (the CORE paper, *CORE*,
    §2: an interval ``[start, end]`` of the stream and a set of positions inside it): JSON integers (not numbers
    that round to one, not strings, not booleans), ``0 ≤ start ≤ end < size``, distinct positions in
    ``[start, end]``; the positions are returned sorted. Anything else raises :class:`EngineFailure` naming the
    bad item: an answer the adapter had to coerce would not be the engine's answer."""
    if not isinstance(obj, list):
        raise EngineFailure(f"'complex_events' must be a list, got {json.dumps(obj)[:80]}")
    out: list[ComplexEvent] = []
    for item in obj:
        try:
            start, end, positions = item["start"], item["end"], tuple(item["positions"])
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineFailure(f"a complex event needs integer 'start', 'end' and 'positions': {item!r}") from exc
        if not all(type(n) is int for n in (start, end, *positions)) or isinstance(item["positions"], (str, dict)):
            raise EngineFailure(f"a complex event needs integer 'start', 'end' and 'positions': {item!r}")
        if not 0 <= start <= end < size:
            raise EngineFailure(f"a complex event's interval [{start}, {end}] is not inside the stream of {size} "
                                f"events: {item!r}")
        if len(set(positions)) != len(positions) or not all(start <= p <= end for p in positions):
            raise EngineFailure(f"a complex event's positions must be distinct and inside [{start}, {end}]: {item!r}")
        out.append((start, end, tuple(sorted(positions))))
    return out


def multiset(ces: Iterable[ComplexEvent]) -> Counter:
    return Counter(ces)


def to_json_ce(ce: ComplexEvent) -> dict[str, Any]:
    return {"start": ce[0], "end": ce[1], "positions": list(ce[2])}


def ce_text(ce: ComplexEvent) -> str:
    return f"[{ce[0]},{ce[1]}]{{{','.join(map(str, ce[2]))}}}"


__all__ = ["Adapter", "Case", "ComplexEvent", "ConformanceError", "EngineFailure", "EngineRefusal", "ce_text",
           "from_core", "multiset", "parse_answer", "read_text", "to_json_ce"]
