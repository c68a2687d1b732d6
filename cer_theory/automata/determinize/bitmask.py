"""CORE's lazy I/O-determinization, cached by bit vector: *CORE: a Complex Event Recognition Engine* (the CORE paper),
§4.4 ("lazy determinization"), of the subset construction of *A Formal Framework for Complex Event Recognition*
(the CEL paper), Prop. 5.5.

:class:`Determinizer` is the driver of the one subset step
(:func:`~cer_theory.automata.determinize.step.subset_moves`) that the engine's Algorithm 1 runs on. Its key is the
event's bit vector over the CEA's distinct predicates (computed once per event by
:func:`~cer_theory.core.predicates.masks.compile_mask`); det-states are interned as ints, and the successor
pair ``(Δmark(S, v), Δ(S, v, ∅))`` (CORE's • and ∘) is cached per (bit vector, det-state): that cache is the
engine's hot path, and the step runs only on a miss. A transition marks iff its label set is non-empty.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

from cer_theory.automata.cea import CEA
from cer_theory.automata.determinize.step import MoveTable, subset_moves
from cer_theory.core.errors import DEFAULT_BUDGET, SizeBudgetExceeded
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import Predicate
from cer_theory.core.predicates.masks import compile_mask

NO_MOVE = (-1, -1)
"""The cached successor pair (•-target, ∘-target) when neither transition exists; -1 is "no det-state"."""


class Determinizer:
    """Lazy I/O-determinization of a CEA by the subset construction (the CORE paper §3, §4.4), keyed by
    (det-state id, bitmask of the event's truth values on the CEA's distinct predicates).

    ``Δ(S, t, m) = {q | ∃p ∈ S: p --P/m--> q, t ⊨ P}``, with ∅ meaning "no transition" (-1). A det-state is
    final iff it meets F. ``budget`` bounds the det-states (:class:`SizeBudgetExceeded`); ``cache_limit`` bounds
    the successor cache, which is cleared (and counted in :attr:`evictions`) when it overflows.
    """

    __slots__ = ("cea", "predicates", "_table", "_ids", "subsets", "final", "initial",
                 "rows", "budget", "cache_limit", "_cached", "misses", "evictions", "states", "_final",
                 "mask", "initial_is_source", "_quiet", "_starts")

    def __init__(self, cea: CEA, *, budget: int | None = DEFAULT_BUDGET, cache_limit: int = 1 << 20) -> None:
        self.cea = cea
        self.predicates: tuple[Predicate, ...] = cea.predicates()
        self.states: tuple[Hashable, ...] = tuple(cea.bfs_order()) + tuple(
            sorted(set(cea.states) - set(cea.bfs_order()), key=repr))
        index = {q: i for i, q in enumerate(self.states)}
        # Δ over state indices, labels cut to "marks or not" (• or ∘): a step never evaluates a predicate.
        self._table = MoveTable.of(cea, name=index.__getitem__, label=bool)
        self._final = frozenset(index[q] for q in cea.final)
        self._ids: dict[frozenset[int], int] = {}
        self.subsets: list[frozenset[int]] = []
        self.final: list[bool] = []
        self.budget, self.cache_limit = budget, cache_limit
        self.rows: dict[int, dict[int, tuple[int, int]]] = {}
        self._cached = 0
        self.misses = self.evictions = 0
        self._quiet: dict[tuple[int, ...], dict[int, bool]] = {}
        self._starts: dict[int, bool] = {}
        self.mask: Callable[[Event], int] = compile_mask(self.predicates)
        """The event's bit vector: bit k is set iff it satisfies the k-th distinct predicate."""
        self.initial = self._intern(self._initial_key(index))
        self.initial_is_source = not any(t.target in cea.initial for t in cea.transitions)
        """The CORE paper's contract on the CEA: no transition enters an initial state (docs/decisions.md, B.3 bound)."""

    def _initial_key(self, index: dict[Hashable, int]) -> Hashable:
        return frozenset(index[q] for q in self.cea.initial)

    def _is_final(self, key: Any) -> bool:
        return not self._final.isdisjoint(key)

    def _intern(self, key: Any) -> int:
        """The id of det-state ``key`` (a subset here), numbered on first sight; -1 for the empty subset."""
        if not key:
            return -1
        known = self._ids.get(key)
        if known is not None:
            return known
        if self.budget is not None and len(self.subsets) >= self.budget:
            raise SizeBudgetExceeded(self.construction, self.budget, len(self.subsets) + 1)
        k = len(self.subsets)
        self._ids[key] = k
        self.subsets.append(key)
        self.final.append(self._is_final(key))
        return k

    construction = "lazy I/O-determinization (CORE)"
    """How a size-budget error names this determinization."""

    # ------------------------------------------------------------------ bit vectors (§4.4)

    def masks(self, data: Sequence[Event] | Any) -> list[int]:
        """Bit vectors of a batch. A pandas DataFrame or pyarrow Table (columns already built) goes to
        ``cer_theory.core.predicates.vectorized.bitmasks``; a list of Events uses the compiled :attr:`mask`, which
        measured 2.4x faster there (1.4 µs against 3.3 µs per event on Q1 of the CORE paper Fig. 1: building the columns
        from Event objects costs more than it saves)."""
        if type(data).__module__.startswith(("pandas", "pyarrow")):
            # numpy-based: imported only when a batch needs it, as the engine's DataFrame path does
            from cer_theory.core.predicates.vectorized import bitmasks
            from cer_theory.streams.convert import as_rows
            return [int(m) for m in bitmasks(list(self.predicates), as_rows(data))]
        return [self.mask(e) for e in data]

    # ------------------------------------------------------------------ Δ on demand

    def row(self, mask: int) -> dict[int, tuple[int, int]]:
        """The cached successors for one bitmask: det-state id → (•-target, ∘-target)."""
        row = self.rows.get(mask)
        if row is None:
            row = self.rows[mask] = {}
        return row

    def step(self, row: dict[int, tuple[int, int]], mask: int, state: int) -> tuple[int, int]:
        """Compute, cache and return ``(Δ(S, v, •), Δ(S, v, ∘))`` for det-state ``state`` and bit vector v."""
        self.misses += 1
        if self._cached >= self.cache_limit:
            self.rows.clear()  # bound the cache; the row object the caller holds stays valid
            self.rows[mask] = row
            row.clear()
            self._quiet.clear()  # (evaluators keep their tables: what they hold stays true)
            self._cached = 0
            self.evictions += 1
        pair = self._pair(state, mask)
        if pair == NO_MOVE:
            pair = NO_MOVE
        row[state] = pair
        self._cached += 1
        return pair

    def _pair(self, state: int, mask: int) -> tuple[int, int]:
        """``(Δ(S, v, •), Δ(S, v, ∘))``: the one subset step keyed by the bit vector v, interned."""
        moves = subset_moves(self._table, self.subsets[state], mask)
        return self._intern(moves.mark), self._intern(moves.skip)

    def initial_moves(self, mask: int) -> bool:
        """Whether a run can start on an event with bit vector ``mask`` (the initial det-state has a move);
        remembered per bit vector, since it depends on nothing else."""
        starts = self._starts.get(mask)
        if starts is None:
            starts = self.successors(self.initial, mask) is not NO_MOVE
            if len(self._starts) < self.cache_limit:
                self._starts[mask] = starts
        return starts

    def successors(self, state: int, mask: int) -> tuple[int, int]:
        row = self.row(mask)
        pair = row.get(state)
        return pair if pair is not None else self.step(row, mask, state)

    def quiet_table(self, states: tuple[int, ...]) -> dict[int, bool]:
        """The cache of :meth:`is_quiet` for the det-states ``states`` (T's keys), filled by the evaluators."""
        table = self._quiet.get(states)
        if table is None:
            if len(self._quiet) >= self.cache_limit:
                self._quiet.clear()
            table = self._quiet[states] = {}
        return table

    def is_quiet(self, states: Iterable[int], mask: int) -> bool:
        """Whether an event with bit vector ``mask`` leaves a table T with keys ``states`` as it is: no run starts
        (the initial det-state has no move), every state only moves to itself by ∘ (so its union-list is kept
        as it is), and no state is final (nothing to output). Then Algorithm 1's update creates no node and
        rebuilds the same T, so the evaluator can skip it (unless the window expires something)."""
        if self.successors(self.initial, mask) is not NO_MOVE:
            return False
        final = self.final
        return all(not final[p] and self.successors(p, mask) == (-1, p) for p in states)

    def states_of(self, state: int) -> frozenset[Hashable]:
        """The CEA states making up det-state ``state``."""
        return frozenset(self.states[s] for s in self.subsets[state])

    def __len__(self) -> int:
        return len(self.subsets)


__all__ = ["Determinizer", "NO_MOVE"]
