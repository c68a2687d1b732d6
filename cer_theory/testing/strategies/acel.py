"""Hypothesis strategies for ACEL formulas (the ACEL paper, Fig. 1 and §5) and streams over a schema.

:func:`formulas` draws small ASTs over every operator (``AS``, unary ``FILTER``, ``π_L``, attribute projection,
``OR``, ``AND``, ``;``, ``:``, ``+``, ``⊕``, ``Agg`` with sum/min/max/count/avg, nested); with ``multiset=True`` the
App. D multiset predicates appear too. Aggregates read the attribute ``x`` of the stream or ``b``, the attribute
an inner ``Agg`` creates, so nested aggregation is exercised. Streams satisfy a schema (every event of a type has
the same attributes), as the ACEL paper's streams do (§3) and the ACEA constructions need. Every choice shrinks towards
an atom.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from cer_theory.core.predicates.ast import Predicate
from cer_theory.formalisms.acel.ast import (Agg, AggSpec, Conj, As, Atom, AttrProj, Contig, CPlus, Filter, Formula,
                                            Multiset, Disj, Plus, Proj, Seq)
from cer_theory.formalisms.cel.ast import filter_literals, literal_variables
from cer_theory.testing.strategies import Schema, streams
from cer_theory.testing.strategies.cel import conditions

OPERATORS = ("as", "filter", "proj", "attrproj", "or", "and", "seq", "contig", "plus", "cplus", "agg")
CEL_OPERATORS = ("as", "filter", "or", "and", "seq", "contig", "plus", "cplus")
"""The operators ACEL shares with the CEL paper's CEL (Thm 3.1's fragment)."""
FUNCTIONS = ("sum", "max", "min", "count", "avg")
SCHEMA = Schema(types=("R", "T"), attributes=(("x", (0, 1, 2)),), missing=False)


def _unary(p: Predicate) -> bool:
    return all(len(literal_variables(lit)) == 1 for clause in filter_literals(p) for lit in clause)


@st.composite
def _formula(draw: st.DrawFn, depth: int, ops: tuple[str, ...], relations: tuple[str, ...],
             labels: tuple[str, ...], multiset: bool) -> Formula:
    kind = "atom" if depth <= 0 else draw(st.sampled_from(("atom",) + ops))
    vocabulary = tuple(dict.fromkeys(relations + labels))

    def sub() -> Formula:
        return draw(_formula(depth - 1, ops, relations, labels, multiset))

    if kind == "atom":
        return Atom(draw(st.sampled_from(relations)))
    if kind == "as":
        return As(sub(), draw(st.sampled_from(labels)))
    if kind == "filter":
        var = draw(st.sampled_from(vocabulary))
        if multiset and draw(st.integers(0, 3)) == 0:
            cond = Multiset(draw(st.sampled_from(("equal", "increasing", "decreasing"))), var, "x")
        else:
            cond = draw(conditions((var,), relations=relations, variables=(var,), values=(0, 1, 2))
                        .filter(_unary))
        return Filter(sub(), cond)
    if kind == "proj":
        return Proj(sub(), tuple(draw(st.lists(st.sampled_from(vocabulary), max_size=2, unique=True))))
    if kind == "attrproj":
        return AttrProj(sub(), draw(st.sampled_from(vocabulary)),
                        tuple(draw(st.lists(st.sampled_from(("type", "x", "b")), max_size=2, unique=True))))
    if kind == "agg":
        n = draw(st.integers(1, 2))
        specs = tuple(AggSpec(out, draw(st.sampled_from(FUNCTIONS)), draw(st.sampled_from(vocabulary)),
                              draw(st.sampled_from(("x", "x", "b"))))
                      for out in ("b", "c")[:n])
        return Agg(sub(), draw(st.sampled_from(labels)), specs)
    if kind in ("plus", "cplus"):
        return (Plus if kind == "plus" else CPlus)(sub())
    node = {"or": Disj, "and": Conj, "seq": Seq, "contig": Contig}[kind]
    return node(sub(), sub())


def formulas(operators: Sequence[str] = OPERATORS, *, relations: Sequence[str] = ("R", "T"),
             labels: Sequence[str] = ("X", "Y"), multiset: bool = False,
             max_depth: int = 3) -> st.SearchStrategy[Formula]:
    """Random ACEL formulas over ``operators`` (default: all of :data:`OPERATORS`)."""
    unknown = set(operators) - set(OPERATORS)
    if unknown:
        raise ValueError(f"unknown operators {sorted(unknown)}; expected some of {OPERATORS}")
    return _formula(max_depth, tuple(operators), tuple(relations), tuple(labels), multiset)


def printable() -> st.SearchStrategy[Formula]:
    """Formulas for the print/parse round trip: every operator and the multiset predicates."""
    return formulas(multiset=True)


def acel_streams(max_length: int = 5) -> st.SearchStrategy:
    """Streams over :data:`SCHEMA` (types R and T, one attribute ``x`` always present)."""
    return streams(SCHEMA, max_length=max_length)


__all__ = ["CEL_OPERATORS", "FUNCTIONS", "OPERATORS", "SCHEMA", "acel_streams", "formulas", "printable"]
