"""Unary CEL with selection strategies at any depth: *A Formal Framework for Complex Event Recognition*
(the CEL paper), Theorem 7.2 inside the Theorem 6.2 recursion (docs/decisions.md D18).

:func:`compile_with_selection` compiles ``SEL(ψ)`` as ``select_cea(compile(ψ))``, where
:func:`~cer_theory.automata.determinize.selection.select_cea` is Theorem 7.2's A_SEL (a driver of the one subset
step, in the automata layer; re-exported here for CEL). This is sound because the four strategies are invariant
under shifting positions, so ``⟦A_SEL⟧ᵛ(S,i,j) = SEL(⟦A⟧ᵛ(S,i,j))`` on every interval.
"""

from __future__ import annotations

from collections.abc import Callable

from cer_theory.automata.building import Fresh
from cer_theory.automata.cea import CEA
from cer_theory.automata.determinize.selection import select_cea, select_cea_printed
from cer_theory.core.errors import DEFAULT_BUDGET
from cer_theory.formalisms.cel.ast import Formula, Select
from cer_theory.formalisms.cel.compile import _compile


def compile_with_selection(phi: Formula, *, budget: int | None = DEFAULT_BUDGET) -> CEA:
    """A valuation-equivalent CEA for any unary CEL formula, selection strategies included at any depth.

    The Theorem 6.2 recursion (:mod:`~cer_theory.formalisms.cel.compile`) handles every other operator; its
    hook builds ``SEL(ψ)`` as ``select_cea(A_ψ)`` (Theorem 7.2) from the recursively compiled ``A_ψ``, with
    the states that cannot reach a final state dropped (the initial state is kept, so a top-level A_SEL stays
    I/O-deterministic). Correct on every interval because the strategies are shift-invariant (docs/decisions.md D18).
    ``budget`` bounds each exponential step (UNLESS's determinization and every A_SEL). States are
    renumbered 0..|Q|-1 breadth-first.
    """
    def hook(node: Formula, rec: Callable[[Formula], CEA]) -> CEA | None:
        if not isinstance(node, Select):
            return None
        a = select_cea(rec(node.body), node.strategy, budget=budget)
        return a.restrict(a.coreachable() | a.initial)

    kwargs = {} if budget is None else {"budget": budget}
    return _compile(phi, Fresh(), kwargs, hook).relabel_states()


__all__ = ["compile_with_selection", "select_cea", "select_cea_printed"]
