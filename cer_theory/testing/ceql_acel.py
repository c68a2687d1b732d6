"""CEQL aggregate queries as ACEL formulas, and both outputs in one shape: the differential check of the engine's
aggregates against the ACEL paper's semantics (docs/decisions.md D70–D71).

**The translation** (:func:`to_acel`). A CEQL query (the CORE paper §2) ``SELECT L, F1(X1.a1) AS b1, … WHERE φ HAVING h``
becomes ``π_{L ∪ {Y}}(FILTER Y[h](AGG Y[b1 <- f1(X1.a1), …](φ')))`` (the ACEL paper §5, the aggregation operator,
and Fig. 1 for π and FILTER), evaluated in ACEL's ``set`` bind mode (D67, which is CEQL's reading of a
variable's events, D75). ``Y`` is a variable the pattern does not use; ``SELECT *`` projects nothing. ``φ'`` is
``φ`` operator by operator, in the fragment both papers define alike:

* ``R`` (an event type), ``φ AS X``, ``φ ; ψ``, ``φ : ψ``, ``φ OR ψ``, ``φ+``, ``φ:+`` — the CORE paper Fig. 2 (after
  the CEL paper Fig. 3) and the ACEL paper Fig. 1 give the same rules on the same complex events: an atom binds its type
  variable at ``[i, i]``, ``AS`` binds ``X`` to every event of the match, ``;`` and ``:`` ask ``end < start``
  and ``end + 1 = start`` and take unions, ``+`` and ``:+`` are the least fixpoints of the same unions;
* ``φ FILTER c`` with a *unary* condition (every literal reads one variable): both papers test it on every event
  bound to the variable (universal, vacuous on an unbound variable) and read ∧ as nesting, ∨ as union (the CEL paper
  §4; the ACEL paper §3).

Outside it :class:`~cer_theory.core.errors.UnsupportedError` names the construct: binary filters (the ACEL paper's
predicates are unary), AND (the CORE paper's AND is not among CEQL's pattern operators either), selection strategies
other than ALL, windows, PARTITION BY, CONSUME BY, LIMIT and FROM (the ACEL paper has none of them).

**The shapes** (:func:`engine_records`, :func:`acel_records`): both are sets of ``(start, end, positions, values)``.
The engine reports CORE's complex event ``([i, j], D)`` (the CORE paper §2: ``i`` the first position of the match, kept
under projection; ``D`` the positions of the selected variables) and the aggregate values. An ACEL complex event
``(i, j, μ)`` has ``time(C) = [i..j]`` (the ACEL paper §3, kept by π_L); ``D`` is the set of times of the events in
its bags other than ``Y``, and the values are the attributes of the one event of ``C(Y)``, whose time must be
``end(C')`` = ``j`` (§5). Records that differ only in which variable holds a position are one record, as the engine
keeps positions, not variables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import TYPE_KEY, Event
from cer_theory.core.predicates.ast import On
from cer_theory.engines.core.engine import AggregatedMatch, Engine
from cer_theory.formalisms.acel import ast as acel
from cer_theory.formalisms.acel.semantics import complex_events
from cer_theory.formalisms.cel import ast as cel
from cer_theory.formalisms.ceql.ast import Query
from cer_theory.formalisms.ceql.parser import parse

Record = tuple[int, int, tuple[int, ...], tuple[Any, ...]]
"""``(start, end, positions, values)``: one output of either side."""

BIND = "set"
"""ACEL's bind mode matching CEQL's valuations (docs/decisions.md D67, D75)."""

_BINARY = {cel.Seq: acel.Seq, cel.Contig: acel.Contig, cel.Disj: acel.Disj}
_UNARY = {cel.Plus: acel.Plus, cel.CPlus: acel.CPlus}


def pattern_to_acel(phi: cel.Formula) -> acel.Formula:
    """The ACEL formula of a CEQL WHERE pattern in the shared fragment (module docstring)."""
    if isinstance(phi, cel.Atom):
        return acel.Atom(phi.name)
    if isinstance(phi, cel.In):
        return acel.As(pattern_to_acel(phi.body), phi.var)
    if isinstance(phi, cel.Filter):
        if not cel.is_unary(cel.Filter(cel.Atom("_"), phi.condition)):
            raise UnsupportedError(f"FILTER {phi.condition.text()} compares several variables; ACEL's filters are "
                                   f"unary (the ACEL paper §3)")
        return acel.Filter(pattern_to_acel(phi.body), phi.condition)
    if type(phi) in _BINARY:
        return _BINARY[type(phi)](pattern_to_acel(phi.left), pattern_to_acel(phi.right))  # type: ignore[attr-defined]
    if type(phi) in _UNARY:
        return _UNARY[type(phi)](pattern_to_acel(phi.body))  # type: ignore[attr-defined]
    raise UnsupportedError(f"the pattern operator {phi.operator} ({phi}) is outside the CEQL–ACEL fragment "
                           f"(atoms, AS, unary FILTER, OR, ';', ':', '+', ':+')")


def target_variable(query: Query) -> str:
    """``Y``: the variable of the created event, one the pattern does not bind."""
    used = cel.variables(query.pattern) | set(query.select or ())
    return next(y for y in ("Y", *(f"Y{k}" for k in range(len(used) + 1))) if y not in used)


def _check_fragment(query: Query) -> None:
    clauses = [("a selection strategy other than ALL", query.strategy != "ALL"),
               ("WITHIN", query.within is not None), ("PARTITION BY", bool(query.partition_by)),
               ("CONSUME BY", query.consume is not None), ("LIMIT", query.limit is not None),
               ("FROM", bool(query.streams)), ("a query without aggregates", not query.aggregates)]
    for name, present in clauses:
        if present:
            raise UnsupportedError(f"{name} is outside the CEQL–ACEL fragment: the ACEL paper's ACEL has no counterpart "
                                   f"(query: {query})")


def to_acel(query: Query | str) -> acel.Formula:
    """``π_{L ∪ {Y}}(FILTER Y[h](AGG Y[b <- f(X.a), …](φ')))`` for a CEQL aggregate query in the fragment (module
    docstring); ``COUNT(X)`` counts X's events, read as ``count(X.type)`` (count ignores the value, D65)."""
    q = parse(query) if isinstance(query, str) else query
    _check_fragment(q)
    y = target_variable(q)
    specs = tuple(acel.AggSpec(it.alias, it.function.lower(), it.variable,
                               TYPE_KEY if it.attribute is None else it.attribute) for it in q.aggregates)
    phi: acel.Formula = acel.Agg(pattern_to_acel(q.pattern), y, specs)
    if q.having is not None:
        phi = acel.Filter(phi, On(y, q.having))
    return phi if q.select is None else acel.Proj(phi, (*q.select, y))


def engine_records(query: Query | str, stream: Sequence[Event]) -> frozenset[Record]:
    """The engine's outputs as ``(start, end, D, values)`` (the CORE paper's complex event and the aggregates)."""
    out = set()
    for m in Engine(query).process(stream):
        values = m.values if isinstance(m, AggregatedMatch) else ()
        out.add((m.start, m.end, tuple(m.positions), values))
    return frozenset(out)


def acel_records(query: Query | str, stream: Sequence[Event]) -> frozenset[Record]:
    """``⟦to_acel(query)⟧(S)`` in set mode as ``(start, end, D, values)``: D the times of the events bound to the
    pattern's variables, values those of the one created event in ``Y``. A complex event whose ``Y`` is not one
    event at time ``end`` would break the correspondence of the ACEL paper §5 and raises AssertionError."""
    q = parse(query) if isinstance(query, str) else query
    y = target_variable(q)
    out = set()
    for c in complex_events(to_acel(q), stream, BIND):
        created = c[y]
        if len(created) != 1 or created[0].time != c.end:
            raise AssertionError(f"{y} of {c} is not one event at end(C) (the ACEL paper §5)")
        positions = tuple(sorted({e.time for x, b in c.bags if x != y for e in b}))
        out.add((c.start, c.end, positions, tuple(created[0].value(it.alias) for it in q.aggregates)))
    return frozenset(out)


__all__ = ["BIND", "Record", "acel_records", "engine_records", "pattern_to_acel", "target_variable", "to_acel"]
