"""Dialects: declared readings by which an engine departs on purpose from the reference semantics of CEQL
(the CORE paper, *CORE*, §2; our readings where the paper is silent are in docs/decisions.md D20–D22).

A :class:`Reading` rewrites a query into one whose *reference* meaning is the engine's reading, so every reading
is implemented against :func:`cer_theory.formalisms.ceql.semantics.evaluate`, never by a second evaluator. A
:class:`Dialect` is a named set of readings; a difference between an engine and the reference is *explained* when
the engine's output is the reference output of the query with the dialect's applicable readings applied.

The CORE 0.1.x dialect was established by running pycer 0.1.6 (docs/conformance.md lists the minimal example
of each reading with both outputs):

* ``strict-attribute-windows`` — ``WITHIN n [attr]`` admits ``end − start < n`` (the paper's window, §2, is
  inclusive: ``≤ n``). ``WITHIN n EVENTS`` and durations stay inclusive.
* ``strategies-ignored`` — ``SELECT NEXT|LAST|MAX|STRICT|ANY`` outputs what ``SELECT ALL`` does.
* ``core-precedence`` — CORE's grammar binds ``;`` tighter than ``:``, and ``:`` tighter than OR (its
  left-recursive ANTLR rule lists them in that order), where CEQL as we read it puts the three on one
  left-associative level: ``U OR U : U`` is ``U OR (U : U)`` for CORE, ``(U OR U) : U`` for the reference.
* ``like-partial-match`` — ``s LIKE 'r'`` holds when ``r`` matches *some part* of ``s`` (CORE calls RE2's
  PartialMatch); the reference matches the whole value (:class:`~cer_theory.core.predicates.ast.Like`).

LIMIT needs no reading: the reference leaves *which* n complex events of an end position are kept to the engine
(:func:`~cer_theory.formalisms.ceql.semantics.limit_conforms`), and CORE caps each enumeration, i.e. each end
position, as the reference does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from cer_theory.core.predicates.ast import Like, Predicate
from cer_theory.formalisms.cel.ast import Contig, Disj, Filter, Formula, Seq
from cer_theory.formalisms.ceql.ast import Query
from cer_theory.conformance.protocol import ConformanceError


@dataclass(frozen=True)
class Reading:
    """One declared departure: ``applies(q)`` says whether it can change ``q``'s meaning, ``rewrite(q)`` gives
    the query whose reference meaning is the engine's. ``example`` is a minimal (query, stream note) for the docs."""

    name: str
    summary: str
    applies: Callable[[Query], bool]
    rewrite: Callable[[Query], Query]

    def __repr__(self) -> str:
        return f"Reading({self.name!r})"


@dataclass(frozen=True)
class Dialect:
    name: str
    summary: str
    readings: tuple[Reading, ...] = ()

    def applicable(self, query: Query) -> tuple[Reading, ...]:
        return tuple(r for r in self.readings if r.applies(query))

    def rewrite(self, query: Query) -> tuple[Query, tuple[Reading, ...]]:
        """The query under every applicable reading, and those readings."""
        used = self.applicable(query)
        for r in used:
            query = r.rewrite(query)
        return query, used


def _strict_attribute_window(q: Query) -> Query:
    assert q.within is not None
    return dataclasses.replace(q, within=dataclasses.replace(q.within, strict=True))


STRICT_ATTRIBUTE_WINDOWS = Reading(
    "strict-attribute-windows",
    "WITHIN n [attr] admits end - start < n (strict); WITHIN n EVENTS and durations admit <= n, as the paper",
    lambda q: q.within is not None and q.within.kind == "attribute" and not q.within.strict,
    _strict_attribute_window)

STRATEGIES_IGNORED = Reading(
    "strategies-ignored",
    "the selection strategies NEXT, LAST, MAX, STRICT and ANY output what ALL does",
    lambda q: q.strategy != "ALL",
    lambda q: dataclasses.replace(q, strategy="ALL"))

_BINARY = {Seq: ";", Contig: ":", Disj: "OR"}
_CORE_LEVELS = ("OR", ":", ";")
"""CORE's binary pattern operators, loosest first."""
_MAKE = {";": Seq, ":": Contig, "OR": Disj}


def _chain(phi: Formula) -> tuple[list[Formula], list[str]]:
    """The operands and operators of the printed left-associative chain ``x0 op1 x1 op2 x2 …`` that ``phi`` is
    (our printer writes a left-nested chain of ``;``, ``:`` and OR without parentheses, a binary right operand
    in parentheses)."""
    if type(phi) in _BINARY:
        operands, ops = _chain(phi.left)  # type: ignore[attr-defined]
        return operands + [phi.right], ops + [_BINARY[type(phi)]]  # type: ignore[attr-defined]
    return [phi], []


def _core_fold(operands: list[Formula], ops: list[str], level: int = 0) -> Formula:
    """Group the chain as CORE's grammar does: split at the loosest operator, each part left-associative."""
    if not ops:
        return operands[0]
    op = _CORE_LEVELS[level] if level < len(_CORE_LEVELS) else None
    if op is None or op not in ops:
        return _core_fold(operands, ops, level + 1)
    parts, current_ops, current = [], [], [operands[0]]
    for o, x in zip(ops, operands[1:]):
        if o == op:
            parts.append((current, current_ops))
            current, current_ops = [x], []
        else:
            current.append(x)
            current_ops.append(o)
    parts.append((current, current_ops))
    folded = [_core_fold(xs, os_, level + 1) for xs, os_ in parts]
    out = folded[0]
    for x in folded[1:]:
        out = _MAKE[op](out, x)
    return out


def core_pattern(phi: Formula) -> Formula:
    """The pattern CORE reads from our printed text of ``phi`` (the reading ``core-precedence``)."""
    operands, ops = _chain(phi)
    if ops:
        return _core_fold([core_pattern(x) for x in operands], ops)
    changes = {f.name: core_pattern(getattr(phi, f.name)) for f in dataclasses.fields(phi)
               if isinstance(getattr(phi, f.name), Formula)}
    return dataclasses.replace(phi, **changes) if changes else phi


CORE_PRECEDENCE = Reading(
    "core-precedence",
    "';' binds tighter than ':', which binds tighter than OR (the reference: one left-associative level)",
    lambda q: core_pattern(q.pattern) != q.pattern,
    lambda q: dataclasses.replace(q, pattern=core_pattern(q.pattern)))

def _map_predicate(p: Predicate, f: Callable[[Predicate], Predicate]) -> Predicate:
    """``p`` with ``f`` applied bottom-up to every sub-predicate (operands in fields or tuples of fields)."""
    changes: dict = {}
    for fl in dataclasses.fields(p):
        value = getattr(p, fl.name)
        if isinstance(value, Predicate):
            changes[fl.name] = _map_predicate(value, f)
        elif isinstance(value, tuple) and value and all(isinstance(v, Predicate) for v in value):
            changes[fl.name] = tuple(_map_predicate(v, f) for v in value)
    return f(dataclasses.replace(p, **changes) if changes else p)


def _map_filters(phi: Formula, f: Callable[[Predicate], Predicate]) -> Formula:
    changes: dict = {fl.name: _map_filters(getattr(phi, fl.name), f) for fl in dataclasses.fields(phi)
                     if isinstance(getattr(phi, fl.name), Formula)}
    if isinstance(phi, Filter):
        changes["condition"] = _map_predicate(phi.condition, f)
    return dataclasses.replace(phi, **changes) if changes else phi


def _partial(p: Predicate) -> Predicate:
    """``LIKE 'r'`` → ``LIKE '[\\s\\S]*(?:r)[\\s\\S]*'``: a whole-value match that holds iff r matches a part."""
    if isinstance(p, Like):
        return dataclasses.replace(p, pattern=r"[\s\S]*(?:" + p.pattern + r")[\s\S]*")
    return p


def _has_like(q: Query) -> bool:
    found: list[Predicate] = []

    def note(p: Predicate) -> Predicate:
        if isinstance(p, Like):
            found.append(p)
        return p

    _map_filters(q.pattern, note)
    return bool(found)


LIKE_PARTIAL_MATCH = Reading(
    "like-partial-match",
    "s LIKE 'r' holds when r matches a part of s (RE2 PartialMatch); the reference matches the whole value",
    _has_like,
    lambda q: dataclasses.replace(q, pattern=_map_filters(q.pattern, _partial)))

PAPER = Dialect("paper", "the reference semantics of the CORE paper §2 as it stands: no departure is explained")
CORE = Dialect("core", "CORE 0.1.x (pycer 0.1.6), as established by running it",
               (STRICT_ATTRIBUTE_WINDOWS, STRATEGIES_IGNORED, CORE_PRECEDENCE,
                                                                 LIKE_PARTIAL_MATCH))

DIALECTS = {d.name: d for d in (PAPER, CORE)}


def get_dialect(name: str | None) -> Dialect:
    if name is None:
        return PAPER
    try:
        return DIALECTS[name]
    except KeyError:
        raise ConformanceError(f"unknown dialect {name!r}; expected one of {', '.join(DIALECTS)}") from None


__all__ = ["CORE", "CORE_PRECEDENCE", "LIKE_PARTIAL_MATCH", "core_pattern", "DIALECTS", "Dialect", "PAPER", "Reading", "STRATEGIES_IGNORED", "STRICT_ATTRIBUTE_WINDOWS",
           "get_dialect"]
