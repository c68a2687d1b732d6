"""Selection strategies as automata: *A Formal Framework for Complex Event Recognition* (the CEL paper), Theorem 7.2.

For SEL ∈ {STRICT, NXT, LAST, MAX} and any CEA A, ``A_SEL`` is I/O-deterministic and ``⟦A_SEL⟧ᵛ_n(S) =
SEL(⟦A⟧ᵛ_n(S))`` for every S and n. The paper builds A_SEL lazily by tuple; this driver builds it eagerly over the
states reachable from the initial one and the Z3-pruned *types* (minterms, Def. 5.6) of A's predicates, as
:func:`~cer_theory.automata.determinize.eager.io_determinize` does. Its moves are
:func:`~cer_theory.automata.determinize.step.strict_successor` and
:func:`~cer_theory.automata.determinize.step.select_successor`, on the one subset step keyed by each minterm (the
engine's NEXT/LAST/MAX drive the same moves keyed by bit vector, :mod:`cer_theory.engines.core.selection`).

:func:`select_cea` applies the **tie-set fix** (docs/decisions.md D18; set E: runs whose support equals the current
run's but whose valuation may differ). :func:`select_cea_printed` is the construction exactly as printed, kept
to exhibit the erratum: on ``q0 -{A}-> q1 -∅-> q3``, ``q0 -{B}-> q2 -{B}-> q3`` it also accepts ``A↦{0}``
although ``B↦{0,1}`` has a strictly better support. On single-variable automata both coincide with SEL.

Every transition whose target has ``R = ∅`` is left out: R only shrinks along a run, so such a state can never
become final (the paper's A_SEL is complete; pass ``complete=True`` for one non-final sink instead).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable

from cer_theory.automata.cea import CEA, Transition
from cer_theory.automata.determinize.step import (Key, Label, MoveTable, SubsetStep, minterm_key, select_successor,
                                                  strict_successor)
from cer_theory.core import budget as work
from cer_theory.core.errors import DEFAULT_BUDGET, SizeBudgetExceeded
from cer_theory.core.strategies import Strategy

_NONE: frozenset = frozenset()
_SINK = "⊥"

Successor = Callable[[tuple, Key, Label], "tuple | None"]


def _build(cea: CEA, step: SubsetStep, start: tuple, successor: Successor, is_final: Callable[[tuple], bool],
           *, name: str, budget: int | None, complete: bool, relabel: bool) -> CEA:
    """Breadth-first construction over reachable states and Z3-pruned types; ``successor`` returns None for a
    dead target."""
    from cer_theory.core.predicates.solver import minterms  # (Z3 on first use: D281)

    types = [(m.predicate, minterm_key(m)) for m in minterms(step.table.predicates)]
    labels = step.table.labels
    seen: dict[Hashable, None] = {start: None}
    queue = deque([start])
    transitions: list[Transition] = []
    while queue:
        state = queue.popleft()
        for predicate, key in types:
            work.charge(name, 1 + len(labels))  # the step and its transitions (core.budget)
            for L in labels:
                target = successor(state, key, L)
                if target is None:
                    if complete:
                        transitions.append(Transition(state, predicate, L, _SINK))
                    continue
                transitions.append(Transition(state, predicate, L, target))
                if target not in seen:
                    seen[target] = None
                    if budget is not None and len(seen) > budget:
                        raise SizeBudgetExceeded(name, budget, len(seen))
                    queue.append(target)
    states = list(seen)
    if complete:
        states.append(_SINK)
        transitions += [Transition(_SINK, predicate, L, _SINK) for predicate, _ in types for L in labels]
    out = CEA(states, transitions, [start], [s for s in seen if is_final(s)],
              name=f"{name}({cea.name})" if cea.name else name)
    return out.relabel_states() if relabel else out


def _strict(cea: CEA, **kw) -> CEA:
    """STRICT (Thm 7.2) on states (R, phase). When A is I/O-deterministic every R is a singleton, so A_STRICT
    has at most 3|Q| states."""
    step = SubsetStep(MoveTable.of(cea))
    return _build(cea, step, (frozenset(cea.initial), 1),
                  lambda state, key, L: strict_successor(step, state, key, L),
                  lambda s: bool(s[0] & cea.final), name="STRICT", **kw)


def _compare(cea: CEA, strategy: Strategy, *, ties: bool, **kw) -> CEA:
    """NXT, MAX and LAST (Thm 7.2) on states ``(R, E, W, T)``; final iff ``R ∩ F ≠ ∅`` and ``W ∩ F = ∅``."""
    step = SubsetStep(MoveTable.of(cea))
    start = frozenset(cea.initial)
    return _build(cea, step, (start, start, _NONE, _NONE),
                  lambda state, key, L: select_successor(step, state, key, L, strategy, ties=ties),
                  lambda s: bool(s[0] & cea.final) and not (s[2] & cea.final),
                  name=strategy.value if ties else f"{strategy.value}-printed", **kw)


def select_cea(cea: CEA, strategy: Strategy, *, budget: int | None = DEFAULT_BUDGET, complete: bool = False,
               relabel: bool = True) -> CEA:
    """``A_SEL`` of the CEL paper, Theorem 7.2, with the tie-set fix for NXT/LAST/MAX (docs/decisions.md D18).

    I/O-deterministic, and ``⟦A_SEL⟧ᵛ_n(S) = SEL(⟦A⟧ᵛ_n(S))`` for SEL the strategy of the CEL paper §7.1.
    States are renumbered 0..|Q|-1 breadth-first (``relabel=False`` keeps the tuples ``(R, phase)`` for STRICT
    and ``(R, E, W, T)`` for the others). ``complete=True`` adds a non-final sink so that every (state, type,
    label set) has a transition, as in the paper. Raises :class:`SizeBudgetExceeded` past ``budget`` states.
    """
    kw = {"budget": budget, "complete": complete, "relabel": relabel}
    if strategy is Strategy.STRICT:
        return _strict(cea, **kw)
    return _compare(cea, strategy, ties=True, **kw)


def select_cea_printed(cea: CEA, strategy: Strategy, *, budget: int | None = DEFAULT_BUDGET,
                       complete: bool = False, relabel: bool = True) -> CEA:
    """Theorem 7.2's constructions exactly as printed (no tie set): states ``(R, phase)`` for STRICT, ``(R, W)``
    for NXT/MAX, ``(R, W, T)`` for LAST (with ``relabel=False`` the unused E = R and T = ∅ components are
    dropped from the state names).

    **Wrong at valuation level** (docs/decisions.md D18: runs tying in support with another valuation are dropped
    although they can later become winners); correct on single-variable automata, where equal supports mean
    equal valuations (the "simpler route" used by :func:`~cer_theory.formalisms.cel.normal_form.select_cea_ce`).
    STRICT has no erratum: it is the same as in :func:`select_cea`.
    """
    kw = {"budget": budget, "complete": complete, "relabel": relabel}
    if strategy is Strategy.STRICT:
        return _strict(cea, **kw)
    a = _compare(cea, strategy, ties=False, **kw)
    if relabel:
        return a

    def short(s: Hashable) -> Hashable:
        if s == _SINK:
            return s
        R, _E, W, T = s  # type: ignore[misc]
        return (R, W, T) if strategy is Strategy.LAST else (R, W)

    return a.relabel_states({s: short(s) for s in a.states})


__all__ = ["select_cea", "select_cea_printed"]
