"""Hypothesis strategies for SO-CEL and SO-CEL+ formulas (the SO-CEL paper §2, §2.1).

:func:`formulas` draws small ASTs over the operators named in ``operators`` (default: every one). FILTER
conditions come from the CEL strategies (:func:`cer_theory.testing.strategies.cel.conditions`), read here as
universal SO-extensions; with ``unary=True`` every conjunct reads one label (``SO-CEL(U^SO)``, what the UCEA
construction of Prop 5.2 needs), otherwise cross-label comparisons and ``incr``/``decr`` appear too.
Formulas are kept small (the reference semantics is brute force); every choice shrinks towards an atom.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from cer_theory.formalisms.socel.ast import (All, Atom, Conj, Contig, CPlus, Disj, Filter, Formula, In, Order, Plus,
                                             Proj, Rename, Seq, Start, Strict, Unless, condition_labels, conjuncts)
from cer_theory.formalisms.socel.focel import Bind, FoFilter, FoOr, FoPlus, FoSeq, _surely_bound
from cer_theory.testing.strategies import Schema, streams
from cer_theory.testing.strategies.cel import conditions

CORE_OPERATORS = ("in", "rename", "filter", "disj", "seq", "plus")
PLUS_OPERATORS = CORE_OPERATORS + ("contig", "cplus", "proj", "start")
ALL_OPERATORS = PLUS_OPERATORS + ("strict", "conj", "all", "unless")
SCHEMA = Schema(types=("R", "T", "U"), attributes=(("x", (0, 1, 2)),), missing=True)
"""The stream schema the formulas are drawn for: three types, one small integer attribute."""


def _unary(p: object) -> bool:
    return all(len(condition_labels(c)) == 1 for c in conjuncts(p))  # type: ignore[arg-type]


@st.composite
def _condition(draw: st.DrawFn, vocabulary: tuple[str, ...], relations: tuple[str, ...], unary: bool):
    if not unary and draw(st.integers(0, 4)) == 0:
        return Order(draw(st.sampled_from(("incr", "decr"))), draw(st.sampled_from(vocabulary)), "x")
    bound = (draw(st.sampled_from(vocabulary)),) if unary else vocabulary
    strat = conditions(bound, relations=relations, variables=vocabulary, unary=unary, values=(0, 1, 2))
    return draw(strat.filter(_unary) if unary else strat)


@st.composite
def _formula(draw: st.DrawFn, depth: int, ops: tuple[str, ...], relations: tuple[str, ...],
             labels: tuple[str, ...], unary: bool) -> Formula:
    kind = "atom" if depth <= 0 else draw(st.sampled_from(("atom", "atom") + ops))
    vocabulary = tuple(dict.fromkeys(relations + labels))

    def sub() -> Formula:
        return draw(_formula(depth - 1, ops, relations, labels, unary))

    if kind == "atom":
        return Atom(draw(st.sampled_from(relations)))
    if kind == "in":
        return In(sub(), draw(st.sampled_from(labels)))
    if kind == "rename":
        return Rename(sub(), draw(st.sampled_from(vocabulary)), draw(st.sampled_from(vocabulary)))
    if kind == "filter":
        return Filter(sub(), draw(_condition(vocabulary, relations, unary)))
    if kind == "proj":
        return Proj(sub(), tuple(draw(st.lists(st.sampled_from(vocabulary), max_size=2))))
    unary_nodes = {"plus": Plus, "cplus": CPlus, "start": Start, "strict": Strict}
    if kind in unary_nodes:
        return unary_nodes[kind](sub())
    binary_nodes = {"disj": Disj, "seq": Seq, "contig": Contig, "conj": Conj, "all": All, "unless": Unless}
    return binary_nodes[kind](sub(), sub())


def formulas(operators: Sequence[str] = ALL_OPERATORS, *, relations: Sequence[str] = ("R", "T"),
             labels: Sequence[str] = ("A", "B"), unary: bool = True,
             max_depth: int = 3) -> st.SearchStrategy[Formula]:
    """Random SO-CEL formulas using atoms and the operators named in ``operators`` (see the module docstring);
    ``CORE_OPERATORS`` gives core SO-CEL, ``PLUS_OPERATORS`` SO-CEL+."""
    unknown = set(operators) - set(ALL_OPERATORS)
    if unknown:
        raise ValueError(f"unknown operators {sorted(unknown)}; expected some of {ALL_OPERATORS}")
    return _formula(max_depth, tuple(operators), tuple(relations), tuple(labels), unary)


def socel_streams(max_length: int = 6) -> st.SearchStrategy:
    """Streams over :data:`SCHEMA`."""
    return streams(SCHEMA, max_length=max_length)


__all__ = ["formulas", "socel_streams", "CORE_OPERATORS", "PLUS_OPERATORS", "ALL_OPERATORS", "SCHEMA"]


# ---------------------------------------------------------------------------------------------- FO-CEL


@st.composite
def fo_formulas(draw: st.DrawFn, max_depth: int = 3, relations: Sequence[str] = ("R", "T")):
    """Safe FO-CEL formulas (the SO-CEL paper §3) with unary filters; every ``AS`` binds a distinct variable and each
    filter reads one variable its body surely binds (so the SO translation of Thm 4.3 is label-for-variable)."""
    counter = iter(range(1000))

    def build(depth: int):
        kind = "bind" if depth <= 0 else draw(st.sampled_from(("bind", "bind", "filter", "or", "seq", "plus")))
        if kind == "bind":
            return Bind(draw(st.sampled_from(tuple(relations))), f"x{next(counter)}")
        if kind == "filter":
            body = build(depth - 1)
            bound = sorted(_surely_bound(body))
            if not bound:
                return body
            var = draw(st.sampled_from(bound))
            cond = conditions((var,), relations=tuple(relations), variables=(var,), values=(0, 1, 2))
            return FoFilter(body, draw(cond.filter(lambda p: all(condition_labels(c) == {var}
                                                                 for c in conjuncts(p)))))
        if kind == "plus":
            return FoPlus(build(depth - 1))
        node = FoOr if kind == "or" else FoSeq
        return node(build(depth - 1), build(depth - 1))

    return build(max_depth)


__all__ += ["fo_formulas"]
