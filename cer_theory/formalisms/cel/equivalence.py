"""Equivalence and containment of unary CEL formulas (the CEL paper), with a shortest distinguishing stream.

``φ ≡ ψ`` means ``⟦φ⟧ᵛ_n(S) = ⟦ψ⟧ᵛ_n(S)`` for every stream S and position n (the CEL paper §4, Fig. 3), or at the
complex-event level ``⟦φ⟧_n(S) = ⟦ψ⟧_n(S)`` (``sup`` of the valuations, §3); ``φ ⊆ ψ`` likewise with ⊆.
Both formulas are compiled to CEA (Theorem 6.2, selection strategies by Theorem 7.2) and their automata are
compared by :func:`cer_theory.automata.equivalence.compare` (types of both automata's predicates × label sets,
determinized on the fly by Prop. 5.5, breadth first). A distinguishing word is made concrete with Z3 witnesses
and replayed through the reference semantics (:mod:`.semantics`), which must confirm it. The default level is
valuations, the finest (docs/decisions.md D107): valuation-equivalence implies complex-event equivalence.

Decidable here because Theorem 6.2 needs unary filters; a formula with an n-ary filter (e.g. ``H.id = T.id``)
is refused with :class:`~cer_theory.core.errors.UnsupportedError` saying so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from cer_theory.automata.cea import CEA
from cer_theory.automata.equivalence import LevelName, Verdict, compare, verdict
from cer_theory.core.errors import DEFAULT_BUDGET, NotUnaryError, SyntaxErrorCER, UnsupportedError
from cer_theory.core.events import TYPE_KEY, Stream
from cer_theory.core.predicates.ast import Attr, Cmp, IsType, Not, Predicate, conj, disj, is_type
from cer_theory.formalisms.cel.ast import Formula, is_unary
from cer_theory.formalisms.cel.parser import parse
from cer_theory.formalisms.cel.printer import format
from cer_theory.formalisms.cel.selection import compile_with_selection
from cer_theory.formalisms.cel.semantics import complex_events, valuations

Schema = Mapping[str, Sequence[str]]
"""A stream schema: each relation (event type) with its attribute names, e.g. ``{"T": ["id", "tmp"]}``."""


_ENTRY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(([^()]*)\))?\s*[,;]?")


def parse_schema(text: str) -> dict[str, tuple[str, ...]]:
    """``"T(id, tmp) H(id, hum)"`` → ``{"T": ("id", "tmp"), "H": ("id", "hum")}``; a relation without
    parentheses has no attributes. Raises :class:`SyntaxErrorCER` pointing at the first malformed entry."""
    out: dict[str, tuple[str, ...]] = {}
    pos = 0
    while text[pos:].strip():
        m = _ENTRY.match(text, pos)
        if m is None or m.end() == pos:
            col = pos + len(text[pos:]) - len(text[pos:].lstrip()) + 1
            raise SyntaxErrorCER("expected a relation with its attributes, such as T(id, tmp)", line=1,
                                 column=col, text=text)
        out[m.group(1)] = tuple(a.strip() for a in (m.group(2) or "").split(",") if a.strip())
        pos = m.end()
    return out


def format_schema(schema: Schema) -> str:
    return " ".join(f"{r}({', '.join(attrs)})" for r, attrs in schema.items())


def vocabulary(predicates: Iterable[Predicate]) -> tuple[frozenset[str], frozenset[str]]:
    """The event types and the attribute names the predicates read (``type`` tests count as types)."""
    types: set[str] = set()
    attrs: set[str] = set()
    for p in predicates:
        for node in p.walk():
            if isinstance(node, IsType):
                types.add(node.name)
            for term in (getattr(node, "left", None), getattr(node, "right", None)):
                if isinstance(term, Attr) and term.name != TYPE_KEY:
                    attrs.add(term.name)
    return frozenset(types), frozenset(attrs)


def check_schema(phi: Formula, cea: CEA, schema: Schema, *, role: str = "formula") -> None:
    """Raise :class:`UnsupportedError` when ``phi`` mentions an event type or attribute that ``schema`` lacks:
    such a formula is over a different schema, and comparing it would compare events that cannot occur."""
    types, attrs = vocabulary(cea.predicates())
    known_attrs = {a for fields in schema.values() for a in fields}
    bad_types = sorted(types - set(schema))
    bad_attrs = sorted(attrs - known_attrs)
    if bad_types or bad_attrs:
        parts = ([f"event type{'s' if len(bad_types) > 1 else ''} {', '.join(bad_types)}"] if bad_types else []) + (
            [f"attribute{'s' if len(bad_attrs) > 1 else ''} {', '.join(bad_attrs)}"] if bad_attrs else [])
        raise UnsupportedError(f"the {role} {format(phi)} uses {' and '.join(parts)}, not in the schema "
                               f"{format_schema(schema)}")


def schema_domain(schema: Schema, attributes: Iterable[str]) -> Predicate:
    """The events of ``schema``'s streams, as a predicate: the type is one of its relations, and the event has
    none of ``attributes`` (those the formulas read) that its relation lacks. An absent attribute is ``NOT a = a``:
    every comparison on an absent attribute is false (the CEL paper §4), and ``a = a`` holds of every value."""
    return disj(*(conj(is_type(relation), *(Not(Cmp(Attr(a), "=", Attr(a))) for a in sorted(attributes)
                                            if a not in fields))
                  for relation, fields in schema.items()))


def automaton(phi: Formula, *, budget: int | None = DEFAULT_BUDGET, role: str = "formula") -> CEA:
    """The CEA of Theorems 6.2 and 7.2, or :class:`UnsupportedError` for an n-ary filter, which no CEA checks."""
    if not is_unary(phi):
        raise UnsupportedError(f"the {role} {format(phi)} has an n-ary filter (a predicate over two variables, "
                               f"e.g. H.id = T.id): equivalence is decided on complex event automata, whose "
                               f"predicates are unary (the CEL paper, Theorem 6.2 compiles unary CEL only)")
    try:
        return compile_with_selection(phi, budget=budget)
    except NotUnaryError as e:  # defensive: is_unary and the compiler agree (registry tests)
        raise UnsupportedError(str(e)) from e


def _formula(phi: Formula | str) -> Formula:
    return parse(phi) if isinstance(phi, str) else phi


def _decide(phi: Formula | str, psi: Formula | str, *, contained: bool, level: LevelName, budget: int | None,
            schema: Schema | None) -> Verdict:
    f, g = _formula(phi), _formula(psi)
    a = automaton(f, budget=budget, role="left formula")
    b = automaton(g, budget=budget, role="right formula")
    domain = None
    if schema is not None:
        check_schema(f, a, schema, role="left formula")
        check_schema(g, b, schema, role="right formula")
        domain = schema_domain(schema, vocabulary(a.predicates() + b.predicates())[1])
    result = compare(a, b, level=level, contained=contained, budget=budget, domain=domain)
    by_side = {"left": f, "right": g}

    def semantics(side: str, stream: Stream, n: int) -> frozenset:
        run = valuations if level == "valuations" else complex_events
        return frozenset(run(by_side[side], stream, n))

    return verdict(result, format(f), format(g), semantics, relation="contained" if contained else "equivalent")


def equivalent(phi: Formula | str, psi: Formula | str, *, level: LevelName = "valuations",
               budget: int | None = DEFAULT_BUDGET, schema: Schema | None = None) -> Verdict:
    """Whether ``⟦φ⟧_n(S) = ⟦ψ⟧_n(S)`` for all S and n at ``level`` (the CEL paper §4); otherwise a shortest
    distinguishing stream, confirmed by the reference semantics. Formulas may be given as text. ``budget`` bounds
    each exponential step (UNLESS and selection automata, the product). With a ``schema`` the formulas must keep
    to its vocabulary and S ranges over the schema's streams (the CEL paper fixes the schema and quantifies over its
    streams): a distinguishing stream has only its types, each event only its relation's attributes."""
    return _decide(phi, psi, contained=False, level=level, budget=budget, schema=schema)


def contained(phi: Formula | str, psi: Formula | str, *, level: LevelName = "valuations",
              budget: int | None = DEFAULT_BUDGET, schema: Schema | None = None) -> Verdict:
    """Whether ``⟦φ⟧_n(S) ⊆ ⟦ψ⟧_n(S)`` for all S and n at ``level``; otherwise a shortest stream on which φ
    outputs something ψ does not."""
    return _decide(phi, psi, contained=True, level=level, budget=budget, schema=schema)


__all__ = ["equivalent", "contained", "automaton", "parse_schema", "format_schema", "check_schema", "vocabulary",
           "schema_domain", "Schema"]
