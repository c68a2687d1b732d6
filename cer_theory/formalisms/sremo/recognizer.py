"""The streaming run-pool recognizer of seed 002 (Alevizos, Artikis, Paliouras), §4.3 Alg. 1 (Wayeb), on an
ε-free SRT, for the streaming matches of Def. 32.

A run is ``(state, registers, marked positions)``. On each event ``t_k`` a fresh run starts in ``q_s`` (the
``⊤*`` prefix of the streaming expression ``e_s := ⊤*·e``), and every run moves along every transition whose
condition ``(t_k, v) ⊨ φ`` holds, cloning itself when several do. A run that reaches a final state with a
marking transition reports its positions (last-• reading, Def. 24); with ``pure=True`` it reports on any
transition into a final state.

**P7 fix** (docs/errata.md): Alg. 1 kills a run once it reports; that loses matches whenever a final state has
successors (``a·b⁺`` on ``abbb`` reports only ``{1,2}``). We keep the run when its state has out-transitions;
``kill_on_report=True`` reproduces the paper's loop for the erratum's test. Runs are a set, so equal runs merge
and outputs are sets (P11).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from cer_theory.automata.registers import EMPTY, Valuation
from cer_theory.core.events import Event
from cer_theory.core.predicates.registers import satisfies
from cer_theory.formalisms.sremo.epsilon import eliminate_epsilon
from cer_theory.formalisms.sremo.semantics import StreamOutput
from cer_theory.formalisms.sremo.srt import SRT

RunState = tuple[int, Valuation, tuple[int, ...]]


class Recognizer:
    """Alg. 1 over an SRT (ε-transitions are eliminated first, Lemma 29)."""

    def __init__(self, srt: SRT, *, pure: bool = False, kill_on_report: bool = False) -> None:
        self.srt = eliminate_epsilon(srt)
        self.pure = pure
        self.kill_on_report = kill_on_report
        self.runs: set[RunState] = set()
        self.k = 0

    def feed(self, event: Event) -> frozenset[frozenset[int]]:
        """Consume ``t_k``; return the matches reported at ``k`` (a set)."""
        srt, k, w = self.srt, self.k, self.srt.window
        self.runs.add((srt.start, EMPTY, ()))  # e_s = ⊤*·e: a run may start at every position
        new: set[RunState] = set()
        reported: set[frozenset[int]] = set()
        for q, v, m in self.runs:
            for t in srt.out(q):
                if not satisfies(t.guard, event, v):  # type: ignore[arg-type]  (ε-free)
                    continue
                if t.marked:
                    if w is not None and m and k - m[0] + 1 > w:
                        continue  # Def. 39: the marked span would exceed the window
                    m2 = m + (k,)
                else:
                    m2 = m
                run = (t.target, v.write(sorted(t.writes), event), m2)
                if t.target in srt.finals and (t.marked or self.pure) and (w is None or m2):
                    reported.add(frozenset(m2))
                    if self.kill_on_report:
                        continue  # Alg. 1 as written (P7)
                if srt.out(t.target) and not self._expired(m2, k):
                    new.add(run)
        self.runs = new
        self.k += 1
        return frozenset(reported)

    def _expired(self, m: tuple[int, ...], k: int) -> bool:
        # Under the last-• reading a run reports only when it marks; once the next mark would leave the window
        # (Def. 39), the run can never report again.
        w = self.srt.window
        return not self.pure and w is not None and bool(m) and (k + 1) - m[0] + 1 > w

    def run(self, stream: Iterable[Event]) -> Iterator[StreamOutput]:
        """The non-empty outputs, by increasing ``k``."""
        for event in stream:
            k = self.k
            found = self.feed(event)
            if found:
                yield StreamOutput(k, found)


def recognize(srt: SRT, stream: Iterable[Event], *, pure: bool = False,
              kill_on_report: bool = False) -> list[StreamOutput]:
    """The streaming matches of Def. 32 computed by Alg. 1 (with the P7 fix unless ``kill_on_report``)."""
    return list(Recognizer(srt, pure=pure, kill_on_report=kill_on_report).run(stream))
