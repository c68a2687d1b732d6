"""Selection strategies as automata: seed 000, Theorem 7.2 (spec cel-cea.md §4.3), and their nesting (§4.1).

For SEL ∈ {STRICT, NXT, LAST, MAX} and any CEA A, ``A_SEL`` is I/O-deterministic and ``⟦A_SEL⟧ᵛ_n(S) =
SEL(⟦A⟧ᵛ_n(S))`` for every S and n. The paper builds A_SEL lazily by tuple; here it is built eagerly over the
subset-like states reachable from the initial one and the Z3-pruned *types* (minterms, Def. 5.6) of A's
predicates, as :func:`cer_theory.automata.determinize.eager.io_determinize` does. Helpers, for a type P and label set L:

* ``Δ(R,P,L) = {q | p ∈ R, (p,P',L,q) ∈ Δ, P ⊆ P'}``;
* ``Δall(R,P) = ⋃_L Δ(R,P,L)`` and ``Δmark(R,P) = ⋃_{L≠∅} Δ(R,P,L)``.

:func:`select_cea` applies the **tie-set fix** of the spec (set E: runs whose support equals the current
run's but whose valuation may differ). :func:`select_cea_printed` is the construction exactly as printed, kept
to exhibit the erratum: on ``q0 -{A}-> q1 -∅-> q3``, ``q0 -{B}-> q2 -{B}-> q3`` it also accepts ``A↦{0}``
although ``B↦{0,1}`` has a strictly better support. On single-variable automata both coincide with SEL.

Every transition whose target has ``R = ∅`` is left out: R only shrinks along a run, so such a state can never
become final (the paper's A_SEL is complete; pass ``complete=True`` for one non-final sink instead).

:func:`compile_with_selection` compiles unary CEL with selection strategies at any depth: the CEA of
``SEL(ψ)`` is ``select_cea(compile(ψ))`` inside the Theorem 6.2 recursion. This is sound because the four
strategies are invariant under shifting positions, so ``⟦A_SEL⟧ᵛ(S,i,j) = SEL(⟦A⟧ᵛ(S,i,j))`` on every interval
(spec §4.1, "Nested selection strategies [ours]").
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable

from cer_theory.automata.cea import CEA, State, Transition
from cer_theory.core.errors import DEFAULT_BUDGET, SizeBudgetExceeded
from cer_theory.core.predicates.solver import Minterm, minterms
from cer_theory.formalisms.cel.ast import Formula, Select, Strategy
from cer_theory.automata.building import Fresh
from cer_theory.formalisms.cel.compile import _compile


Subset = frozenset
_NONE: frozenset = frozenset()
_SINK = "⊥"


class TypedMoves:
    """``Δ(R,P,L)``, ``Δall`` and ``Δmark`` of a CEA over its types (seed 000, Def. 5.6 and Thm 7.2).

    ``types`` are the satisfiable minterms of ``cea.predicates()``; a type P lies inside a transition's
    predicate P' exactly when P' is one of P's positive predicates, so moves are computed per (state, type)
    once and unions of them are memoised per (subset, type).
    """

    def __init__(self, cea: CEA) -> None:
        preds = cea.predicates()
        index = {p: k for k, p in enumerate(preds)}
        self.types: list[Minterm] = minterms(preds)
        self.labels: tuple[frozenset[str], ...] = cea.label_sets()
        self._by_state: dict[tuple[State, int], dict[frozenset[str], frozenset]] = {}
        for q in cea.states:
            for m, ty in enumerate(self.types):
                positive = set(ty.positives)
                table: dict[frozenset[str], set] = {}
                for t in cea.out(q):
                    if index[t.predicate] in positive:
                        table.setdefault(t.labels, set()).add(t.target)
                self._by_state[q, m] = {L: frozenset(s) for L, s in table.items()}
        self._cache: dict[tuple[Subset, int, frozenset[str] | str], frozenset] = {}

    def _union(self, states: Subset, m: int, key: frozenset[str] | str) -> frozenset:
        cached = self._cache.get((states, m, key))
        if cached is None:
            out: set = set()
            for q in states:
                for L, targets in self._by_state[q, m].items():
                    if key == "all" or (key == "mark" and L) or L == key:
                        out |= targets
            cached = self._cache[states, m, key] = frozenset(out)
        return cached

    def step(self, states: Subset, m: int, labels: frozenset[str]) -> frozenset:
        """``Δ(R,P_m,L)``."""
        return self._union(states, m, labels)

    def all(self, states: Subset, m: int) -> frozenset:
        """``Δall(R,P_m)``: targets under any label set."""
        return self._union(states, m, "all")

    def mark(self, states: Subset, m: int) -> frozenset:
        """``Δmark(R,P_m)``: targets under non-empty label sets."""
        return self._union(states, m, "mark")


Successor = Callable[[tuple, int, frozenset], "tuple | None"]


def _build(cea: CEA, moves: TypedMoves, start: tuple, successor: Successor, is_final: Callable[[tuple], bool],
           *, name: str, budget: int | None, complete: bool, relabel: bool) -> CEA:
    """Breadth-first construction over reachable states; ``successor`` returns None for a dead target."""
    seen: dict[Hashable, None] = {start: None}
    queue = deque([start])
    transitions: list[Transition] = []
    labels = moves.labels
    while queue:
        state = queue.popleft()
        for m, ty in enumerate(moves.types):
            for L in labels:
                target = successor(state, m, L)
                if target is None:
                    if complete:
                        transitions.append(Transition(state, ty.predicate, L, _SINK))
                    continue
                transitions.append(Transition(state, ty.predicate, L, target))
                if target not in seen:
                    seen[target] = None
                    if budget is not None and len(seen) > budget:
                        raise SizeBudgetExceeded(name, budget, len(seen))
                    queue.append(target)
    states = list(seen)
    if complete:
        states.append(_SINK)
        transitions += [Transition(_SINK, ty.predicate, L, _SINK) for ty in moves.types for L in labels]
    out = CEA(states, transitions, [start], [s for s in seen if is_final(s)],
              name=f"{name}({cea.name})" if cea.name else name)
    return out.relabel_states() if relabel else out


# ---------------------------------------------------------------------------------------------- STRICT


def _strict(cea: CEA, moves: TypedMoves, **kw) -> CEA:
    """STRICT (Thm 7.2): states (R, phase); phase 1 = nothing marked yet, 2 = inside the marked block,
    3 = after it. A marking step is allowed in phases 1–2 (→ 2), a non-marking one moves 1→1 and 2,3→3, so
    exactly the runs whose support is an interval survive. ``R' = Δ(R,P,L)``; final iff ``R ∩ F ≠ ∅``.
    When A is I/O-deterministic every R is a singleton, so A_STRICT has at most 3|Q| states (spec §4.3)."""
    def successor(state: tuple, m: int, L: frozenset) -> tuple | None:
        R, phase = state
        if L:
            if phase == 3:
                return None
            nxt_phase = 2
        else:
            nxt_phase = 1 if phase == 1 else 3
        R2 = moves.step(R, m, L)
        return (R2, nxt_phase) if R2 else None

    return _build(cea, moves, (frozenset(cea.initial), 1), successor, lambda s: bool(s[0] & cea.final),
                  name="STRICT", **kw)


# ---------------------------------------------------------------------------------------------- NXT / MAX / LAST


def _compare(cea: CEA, moves: TypedMoves, strategy: Strategy, *, ties: bool, **kw) -> CEA:
    """NXT, MAX and LAST of Thm 7.2 on states ``(R, E, W, T)``.

    * R: states of A's runs with *this* valuation (the A_SEL run's labels so far);
    * E: the tie set [erratum fix]: runs with the same support as this run (R ⊆ E);
    * W: winners, runs whose support is already strictly better (≤_next / ⊋ / ≤_last);
    * T: LAST only, losers that a later difference can still turn into winners.

    A state reached by a winner is removed from R, E and T: every continuation from it is dominated.
    ``ties=False`` is the construction as printed, where E is R (so ties in support with a different
    valuation are forgotten: the erratum). Final iff ``R ∩ F ≠ ∅`` and ``W ∩ F = ∅``.
    """
    step, all_, mark = moves.step, moves.all, moves.mark

    def successor(state: tuple, m: int, L: frozenset) -> tuple | None:
        R, E, W, T = state  # printed (ties=False): E == R is an invariant, so E below reads R
        if L:
            W2 = all_(W, m) if strategy is Strategy.NXT else mark(W, m)
            R2 = step(R, m, L) - W2
            E2 = mark(E, m) - W2 if ties else R2
        else:
            W2 = all_(W, m) | mark(E | T, m)
            R2 = step(R, m, _NONE) - W2
            E2 = step(E, m, _NONE) - W2 if ties else R2
        if not R2:
            return None
        if strategy is Strategy.LAST:
            T2 = ((all_(T, m) | step(E | W, m, _NONE)) if L else step(T, m, _NONE)) - (E2 | W2)
        else:
            T2 = _NONE
        return (R2, E2, W2, T2)

    start = frozenset(cea.initial)
    return _build(cea, moves, (start, start, _NONE, _NONE), successor,
                  lambda s: bool(s[0] & cea.final) and not (s[2] & cea.final),
                  name=strategy.value if ties else f"{strategy.value}-printed", **kw)


# ---------------------------------------------------------------------------------------------- public API


def select_cea(cea: CEA, strategy: Strategy, *, budget: int | None = DEFAULT_BUDGET, complete: bool = False,
               relabel: bool = True) -> CEA:
    """``A_SEL`` of seed 000, Theorem 7.2, with the tie-set fix for NXT/LAST/MAX (spec §4.3 erratum).

    I/O-deterministic, and ``⟦A_SEL⟧ᵛ_n(S) = SEL(⟦A⟧ᵛ_n(S))`` with SEL = :func:`cer_theory.formalisms.cel.semantics.select`.
    States are renumbered 0..|Q|-1 breadth-first (``relabel=False`` keeps the tuples ``(R, phase)`` for STRICT
    and ``(R, E, W, T)`` for the others). ``complete=True`` adds a non-final sink so that every (state, type,
    label set) has a transition, as in the paper. Raises :class:`SizeBudgetExceeded` past ``budget`` states.
    """
    moves = TypedMoves(cea)
    kw = {"budget": budget, "complete": complete, "relabel": relabel}
    if strategy is Strategy.STRICT:
        return _strict(cea, moves, **kw)
    return _compare(cea, moves, strategy, ties=True, **kw)


def select_cea_printed(cea: CEA, strategy: Strategy, *, budget: int | None = DEFAULT_BUDGET,
                       complete: bool = False, relabel: bool = True) -> CEA:
    """Theorem 7.2's constructions exactly as printed (no tie set): states ``(R, phase)`` for STRICT, ``(R, W)``
    for NXT/MAX, ``(R, W, T)`` for LAST (with ``relabel=False`` the unused E = R and T = ∅ components are
    dropped from the state names).

    **Wrong at valuation level** (spec §4.3 erratum: runs tying in support with another valuation are dropped
    although they can later become winners); correct on single-variable automata, where equal supports mean
    equal valuations (the "simpler route" used by :func:`~cer_theory.formalisms.cel.normal_form.select_cea_ce`).
    STRICT has no erratum: it is the same as in :func:`select_cea`.
    """
    moves = TypedMoves(cea)
    if strategy is Strategy.STRICT:
        return _strict(cea, moves, budget=budget, complete=complete, relabel=relabel)
    a = _compare(cea, moves, strategy, ties=False, budget=budget, complete=complete, relabel=relabel)
    if relabel:
        return a

    def short(s: Hashable) -> Hashable:
        if s == _SINK:
            return s
        R, _E, W, T = s  # type: ignore[misc]
        return (R, W, T) if strategy is Strategy.LAST else (R, W)

    return a.relabel_states({s: short(s) for s in a.states})


def compile_with_selection(phi: Formula, *, budget: int | None = DEFAULT_BUDGET) -> CEA:
    """A valuation-equivalent CEA for any unary CEL formula, selection strategies included at any depth.

    The Theorem 6.2 recursion (:mod:`~cer_theory.formalisms.cel.compile`) handles every other operator; its
    hook builds ``SEL(ψ)`` as ``select_cea(A_ψ)`` (Theorem 7.2) from the recursively compiled ``A_ψ``, with
    the states that cannot reach a final state dropped (the initial state is kept, so a top-level A_SEL stays
    I/O-deterministic). Correct on every interval because the strategies are shift-invariant (spec §4.1).
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


__all__ = ["select_cea", "select_cea_printed", "compile_with_selection", "TypedMoves"]
