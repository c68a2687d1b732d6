"""NEXT, LAST and MAX in the engine, through the determinization (*CORE: a Complex Event Recognition Engine*,
the CORE paper §4.4: "selection strategies are also built on the fly, following [33]"; docs/decisions.md D20, D27).

CEQL's reading (D20) compares the CEs ending at j **from every start**: among all ``(i, j, D)``, keep those whose D
is SEL-best (the CEL paper §7.1: ≤_next, ≤_last, set inclusion), ties kept with their own intervals; then WITHIN.
The CEL paper's Theorem 7.2 automaton ``A_SEL`` compares only the runs of one start, so it is applied to a CEA ``A⁺``
whose runs all start at position 0:

* ``A⁺`` has a fresh initial state ``p₀`` with a TRUE/∅ loop (the events before the start), and a copy of every
  transition leaving an initial state of A with the extra label ``⊢`` (the start). So an accepting run of A⁺
  marks its start i with ⊢ and D with A's own labels: ``⟦A⁺⟧(S, 0, j) = {⊢↦i, D | D ∈ ⟦A⟧(S, i, j)}``;
* the *support* compared by SEL is D only (⊢ does not count), so two CEs with the same D and different starts
  tie, and the tie set E of the erratum fix keeps both;
* ``A⁺_SEL``'s states are ``(R, E, W, T)``, moved by the CEL paper Thm 7.2's step with the tie-set fix
  (:func:`cer_theory.automata.determinize.step.select_successor`, the step that
  :func:`~cer_theory.automata.determinize.selection.select_cea` drives over minterms, where the construction is
  proved and tested), here keyed by CORE's bit vector and built lazily per (state, bit vector) as CORE's
  determinizer is. A⁺'s transitions into states that cannot reach a final state are dropped, which cuts each
  component and changes no acceptance.

Algorithm 1 then runs on ``A⁺_SEL`` unchanged except for its start: the run of A⁺_SEL that has marked nothing
yet (R = {p₀}) is the *idle* state. It moves with every event, carries no node, and is where the run starting
at j leaves from (the ⊢ transitions: a fresh bottom node at j, as for the initial state in Algorithm 1). An
:class:`SelectEvaluator` keeps it in :attr:`Evaluator.initial`. The rest is Algorithm 1: window pruning, state
pruning, compaction and output-linear enumeration (Algorithm 2) with LIMIT stopping it early.

Memory: the tECS holds the window; the idle state and the det-states are finite. The idle state is the history
that strategy-before-window needs (a run outside the window can still dominate), so an evaluator whose idle
state is not the initial one is kept (:attr:`SelectEvaluator.active`).
"""

from __future__ import annotations

from collections.abc import Hashable

from cer_theory.automata.cea import CEA
from cer_theory.automata.determinize.bitmask import Determinizer
from cer_theory.automata.determinize.step import Move, MoveTable, SubsetStep, select_successor
from cer_theory.core.errors import DEFAULT_BUDGET
from cer_theory.core.strategies import Strategy, ceql_keyword, ceql_strategy
from cer_theory.engines.core.evaluator import Evaluator

Key = tuple[frozenset, frozenset, frozenset, frozenset]
"""A det-state of A⁺_SEL: (R, E, W, T) as sets of A⁺ state indices."""

BUILT = (Strategy.NXT, Strategy.LAST, Strategy.MAX)
"""The strategies built into the determinization here."""

BUILT_KEYWORDS = tuple(ceql_keyword(s) for s in BUILT)
"""Their CEQL keywords (``NEXT``, ``LAST``, ``MAX``)."""

_EMPTY: frozenset = frozenset()


class SelectionDeterminizer(Determinizer):
    """``A⁺_SEL`` (see the module docstring), built on demand and cached by (det-state id, bit vector).

    A⁺'s states are A's state indices plus ``p₀ = len(states)``. For a det-state whose R holds p₀ (the idle
    state) the pair of :meth:`successors` is the start moves (⊢•, ⊢∘); for the others it is (•, ∘).
    :meth:`idle_next` is the idle state's own ∅ move. Final iff ``R ∩ F ≠ ∅`` and ``W ∩ F = ∅``.
    """

    __slots__ = ("strategy", "p0", "_step", "_idle_rows")

    construction = "lazy determinization with a selection strategy (the CEL paper Thm 7.2 on A⁺)"

    def __init__(self, cea: CEA, strategy: Strategy | str, *, budget: int | None = DEFAULT_BUDGET,
                 cache_limit: int = 1 << 20) -> None:
        strategy = ceql_strategy(strategy) if isinstance(strategy, str) else strategy
        if strategy not in BUILT:
            raise ValueError(f"SelectionDeterminizer builds NEXT, LAST or MAX, not {strategy!r}")
        self.strategy = strategy
        self._idle_rows: dict[tuple[int, int], int] = {}
        super().__init__(cea, budget=budget, cache_limit=cache_limit)

    def _initial_key(self, index: dict[Hashable, int]) -> Key:
        cea = self.cea
        p0 = self.p0 = len(self.states)
        bit = {p: 1 << k for k, p in enumerate(self.predicates)}
        # A⁺'s states that can reach a final state: A's, plus p₀, which is kept even when no initial state is
        # live (the idle run never dies; it is never final, so keeping it changes no acceptance).
        live = frozenset(index[q] for q in cea.coreachable()) | {p0}
        # A⁺'s transitions with labels (starts ⊢, marks D); bit 0 is p₀'s TRUE loop. Only D-marks are support.
        out: dict[int, list[Move]] = {
            index[q]: [(bit[t.predicate], (False, bool(t.labels)), index[t.target]) for t in cea.out(q)]
            for q in self.states}
        out[p0] = [(0, (False, False), p0)] + [
            (bit[t.predicate], (True, bool(t.labels)), index[t.target]) for q in cea.initial for t in cea.out(q)]
        out = {p: [m for m in moves if m[2] in live] for p, moves in out.items()}
        labels = [(starts, marks) for starts in (False, True) for marks in (False, True)]
        table = MoveTable(out, self.predicates, labels, {L: L[1] for L in labels})
        self._step = SubsetStep(table, limit=self.cache_limit)
        start = frozenset({p0})
        return start, start, _EMPTY, _EMPTY

    def _is_final(self, key: Key) -> bool:
        R, _, W, _ = key
        return not self._final.isdisjoint(R) and self._final.isdisjoint(W)

    def _successor(self, key: Key, mask: int, starts: bool, marks: bool) -> int:
        """Theorem 7.2's move of ``(R, E, W, T)`` on labels (⊢ if ``starts``, D-mark if ``marks``), interned;
        -1 when no run with this valuation survives."""
        nxt = select_successor(self._step, key, mask, (starts, marks), self.strategy)
        return -1 if nxt is None else self._intern(nxt)

    def _pair(self, state: int, mask: int) -> tuple[int, int]:
        key = self.subsets[state]
        starts = self.p0 in key[0]
        return self._successor(key, mask, starts, True), self._successor(key, mask, starts, False)

    def idle_next(self, idle: int, mask: int) -> int:
        """The idle state after an event with bit vector ``mask`` (its ∅ move; it never dies: p₀ loops)."""
        nxt = self._idle_rows.get((idle, mask))
        if nxt is None:
            if len(self._idle_rows) >= self.cache_limit:
                self._idle_rows.clear()
            nxt = self._idle_rows[idle, mask] = self._successor(self.subsets[idle], mask, False, False)
        return nxt

    def states_of(self, state: int) -> frozenset[Hashable]:
        """The CEA states in R (the runs with this det-state's valuation); p₀ shows as ``"p0"``."""
        names = self.states
        return frozenset("p0" if s == self.p0 else names[s] for s in self.subsets[state][0])


class SelectEvaluator(Evaluator):
    """Algorithm 1 over a :class:`SelectionDeterminizer`: runs start from the idle state, which moves with every
    event (no quiet-event shortcut). Windows, LIMIT, pruning and enumeration are :class:`Evaluator`'s."""

    det: SelectionDeterminizer

    quiet_events = False

    def advance(self, j: int, mask: int, key: float) -> list:
        out = self._advance(j, mask, key)
        self.initial = self.det.idle_next(self.initial, mask)
        return out

    def reset(self) -> None:
        """CONSUME BY: forget every partial match and the history the idle state holds."""
        super().reset()
        self.initial = self.det.initial

    @property
    def active(self) -> bool:
        """Whether the evaluator holds anything a fresh one would not: partial matches or selection history."""
        return bool(self.table) or self.initial != self.det.initial


__all__ = ["BUILT", "BUILT_KEYWORDS", "SelectionDeterminizer", "SelectEvaluator"]
