"""Streaming matches with the windowed, determinized SRA: the SRT paper (Alevizos, Artikis, Paliouras), Lemma 46 and
Thm. 41 used as a recognizer (docs/decisions.md D59, D61).

For ``(e) WITHIN w``, :func:`build` unrolls ``e``'s SRT to strings of length ≤ ``w`` (Lemma 46) and determinizes
the tree (Alg. 7). The recognizer re-seeds one run of that deterministic SRA at every position ``m`` and moves each
run along its one enabled transition; a run dies after at most ``w`` events (the tree's depth), so at most ``w``
runs are alive. Each run has one register valuation, and one transition to try per event.

**Why the matches survive determinization.** A dSRA state is a set of tree nodes, all at the depth ``k − m + 1``
of the run, and the node a path reaches fixes the path: which of its transitions were marked (•). So every final
node ``f`` of the state whose incoming transition marks gives the match ``{m + i : the i-th transition on the
path to f marks}`` at ``k`` (the last-• reading of Def. 24, D43); the subset construction keeps outputs after all.

**The fragment where this is exact** (D59). Def. 39 bounds the *marked* span, the tree the *string*. They agree
when every derivation's first consumed transition marks: then a match ``M`` at ``k`` spans ``[min M, k]``, which is
exactly the consumed string ``S[min M .. k]``, of length ≤ ``w``. :func:`fragment_violation` checks that on the
ε-free SRT (Lemma 29): every transition out of its start state marks. Outside it (``[B] -> r1 . <S>`` starts
with an unmarked B any distance back) no string-bounded automaton can stream the matches.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cer_theory.core.budget import states
from cer_theory.core.errors import DEFAULT_BUDGET, StreamFormatError, UnsupportedError
from cer_theory.core.events import Event
from cer_theory.core.predicates.registers import Check, compiled
from cer_theory.automata.registers import EMPTY, Valuation
from cer_theory.formalisms.sremo.ast import Expr, Window
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.determinize import subset_construction
from cer_theory.formalisms.sremo.epsilon import eliminate_epsilon
from cer_theory.formalisms.sremo.outputs import Match, StreamingRecognizer, per_position
from cer_theory.formalisms.sremo.srt import SRT, Transition, with_position
from cer_theory.formalisms.sremo.windowed import unroll


def fragment_violation(e: Expr) -> str | None:
    """Why ``e`` is outside the fragment the dSRA streams exactly, or ``None`` if it is inside: ``e`` must be
    ``(e') WITHIN w`` with an SRT (no complement) whose every first consumed transition marks."""
    if not isinstance(e, Window):
        return "--via dsrt streams a windowed expression: write (e) WITHIN w (the SRT paper Thm. 41 needs the window)"
    try:
        srt = eliminate_epsilon(compile_automaton(e.body, native_window=False, windowed=True))
    except UnsupportedError as exc:
        return str(exc)
    unmarked = [t for t in srt.out(srt.start) if not t.marked]
    if unmarked:
        return (f"--via dsrt is exact only when every match begins with a marked (<…>) condition, and "
                f"the unmarked condition {unmarked[0].guard.label()} may begin one: the window bounds the marked span (Def. 39), the "
                f"determinized automaton the consumed string (Lemma 46); see docs/decisions.md D59")
    return None


def handles(e: Expr) -> bool:
    return fragment_violation(e) is None


@dataclass(frozen=True)
class WindowedDSRA:
    """The dSRA of ``(e) WITHIN w`` (Thm. 41 over Lemma 46's tree) with, per state, the matches it reports as
    offsets from the run's first position: ``outputs[q]`` holds ``(offsets of the marked transitions)`` for each
    final tree node in ``q`` whose incoming transition marks."""

    dsra: SRT
    w: int
    outputs: tuple[tuple[tuple[int, ...], ...], ...]


def build(e: Expr, *, budget: int = DEFAULT_BUDGET) -> WindowedDSRA:
    """Compile (Thm. 27), unroll (Lemma 46) and determinize (Alg. 7), keeping each dSRA state's subset of tree
    nodes to read its matches off (module docstring). Refuses expressions outside the fragment."""
    why = fragment_violation(e)
    if why is not None:
        raise UnsupportedError(why)
    assert isinstance(e, Window)
    tree = unroll(compile_automaton(e.body, native_window=False, windowed=True), e.w, budget=budget)
    incoming: dict[int, Transition] = {t.target: t for t in tree.transitions}  # a tree: one edge into each node

    def marks(node: int) -> tuple[int, ...]:
        path: list[bool] = []
        while node != tree.start:
            path.append(incoming[node].marked)
            node = incoming[node].source
        path.reverse()
        return tuple(i for i, marked in enumerate(path) if marked)

    index: dict[frozenset[int], int] = {frozenset([tree.start]): 0}
    transitions: list[Transition] = []
    for index, transitions in subset_construction(tree, budget=budget):
        pass
    subsets = sorted(index, key=index.__getitem__)
    outputs = tuple(tuple(sorted(marks(f) for f in subset & tree.finals
                                 if f != tree.start and incoming[f].marked)) for subset in subsets)
    finals = frozenset(i for i, subset in enumerate(subsets) if subset & tree.finals)
    dsra = SRT(len(subsets), 0, finals, tuple(transitions), tree.registers, positions=tree.positions)
    return WindowedDSRA(dsra, e.w, outputs)


class DeterministicRecognizer(StreamingRecognizer):
    """The streaming matches (Def. 32, last-• reading) of a :class:`WindowedDSRA`: one deterministic run per start
    position still inside the window, each ``(m, state, registers)``."""

    def __init__(self, automaton: WindowedDSRA) -> None:
        self.automaton = automaton
        dsra = automaton.dsra
        # Per state: its transitions (pairwise exclusive minterms, Alg. 7) with their compiled conditions.
        self._moves: dict[int, tuple[tuple[Check, tuple[str, ...], int], ...]] = {
            q: tuple((compiled(t.guard), tuple(sorted(t.writes)), t.target)  # type: ignore[arg-type]
                     for t in dsra.out(q)) for q in range(dsra.states)}
        self.runs: list[tuple[int, int, Valuation]] = []
        self.k = 0
        self.max_runs = 0

    def feed(self, event: Event) -> frozenset[Match]:
        """Consume ``t_k``; return the matches reported at ``k``."""
        k = self.k
        if not isinstance(event, Event):
            raise StreamFormatError(f"position {k}: expected an Event, got {type(event).__name__}")
        if self.automaton.dsra.positions:
            event = with_position(event, k)
        self.runs.append((k, self.automaton.dsra.start, EMPTY))  # re-seed: a match may begin at k
        self.max_runs = max(self.max_runs, len(self.runs))
        outputs = self.automaton.outputs
        reported: set[Match] = set()
        alive: list[tuple[int, int, Valuation]] = []
        for m, q, v in self.runs:
            for holds, writes, target in self._moves[q]:
                if holds(event, v):
                    reported.update(frozenset(m + i for i in offsets) for offsets in outputs[target])
                    if self._moves[target]:
                        alive.append((m, target, v.write(writes, event) if writes else v))
                    break  # deterministic: no other transition's minterm holds
        self.runs = alive
        self.k += 1
        return frozenset(reported)


def run_dsrt(e: Expr, stream: Sequence[Event]) -> list[frozenset[Match]]:
    """The streaming matches of ``(e) WITHIN w`` by the determinized, unrolled SRA, one set per position."""
    return per_position(DeterministicRecognizer(build(e, budget=states(DEFAULT_BUDGET))).run(stream), len(stream))


__all__ = ["fragment_violation", "handles", "WindowedDSRA", "build", "DeterministicRecognizer", "run_dsrt"]
