"""The SRT stepper emphasises exactly the transitions the runs take: frame by frame on the SRT paper's running
examples, against the runs of Def. 23/24 (streaming, Def. 32: a run starts at every position) computed here from
:meth:`SRT.successors` alone."""

from __future__ import annotations

import pytest
from sremo_oracles import E1, E2, E2_STREAM_DATA, E4, TABLE_1, TABLE_4

from cer_theory.automata.registers import EMPTY
from cer_theory.core.events import Event
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.srt import SRT, Configuration, Transition
from cer_theory.stepper import srt_run


def _steps_of_def_23(srt: SRT, stream: list[Event]) -> list[tuple[set[Transition], set[int]]]:
    """Per position k: the transitions on the runs' way from their configurations ``[k, q, v]`` to a
    configuration ``[k+1, q', v']`` (ε-successors, then one successor reading ``t_k``, Def. 23), and the
    states ``q'``. A transition counts when it lies on such a way: an ε-transition only if the way goes on to read
    ``t_k``."""
    out = []
    live: set[Configuration] = set()
    for k, event in enumerate(stream):
        start = {Configuration(k, c.q, c.v) for c in live} | {Configuration(k, srt.start, EMPTY)}
        seen, todo, eps = set(start), list(start), []
        while todo:  # the configurations reached without reading: ε-successors (Def. 23's first case)
            c = todo.pop()
            for t, c2 in srt.successors(c, None):
                eps.append((c, t, c2))
                if c2 not in seen:
                    seen.add(c2)
                    todo.append(c2)
        taken, reads_next, live = set(), set(), set()
        for c in seen:  # the successors reading t_k (Def. 23's second case)
            for t, c2 in srt.successors(c, event):
                if not t.is_epsilon:
                    taken.add(t)
                    reads_next.add(c)
                    live.add(c2)
        changed = True
        while changed:  # an ε-step is taken when it leads on to a read
            changed = False
            for c, t, c2 in eps:
                if c2 in reads_next and c not in reads_next:
                    reads_next.add(c)
                    changed = True
        taken |= {t for c, t, c2 in eps if c2 in reads_next}
        out.append((taken, {c.q for c in live}))
    return out


@pytest.mark.parametrize("expression, stream", [(E1, TABLE_1), (E2, E2_STREAM_DATA), (E4, TABLE_4)],
                         ids=["e1 on Table 1", "e2 (eq. 4)", "Table 4"])
def test_the_emphasised_transitions_are_those_the_runs_take(expression: str, stream: list[Event]) -> None:
    srt = compile_automaton(parse(expression))
    run = srt_run(srt, stream)
    assert run.frames[0].taken == frozenset()
    expected = _steps_of_def_23(srt, stream)
    for k, (frame, (taken, reached)) in enumerate(zip(run.frames[1:], expected, strict=True)):
        want = {(f"q{t.source}", f"q{t.target}") for t in taken}
        assert frame.taken == want, f"position {k}: emphasised {sorted(frame.taken)}, taken {sorted(want)}"
        assert frame.active <= {f"q{q}" for q in reached}, k  # runs with nothing left to read are dropped
    assert any(frame.taken for frame in run.frames)


def test_on_e1_the_marking_transitions_are_emphasised_where_they_mark() -> None:
    """Table 1 under e₁: every B is read by ``B ↑• ↓r1`` (positions 0, 1, 2, 5) and the S's with id 1 by the last
    transition (positions 3, 4), as Example 25's run reads them."""
    srt = compile_automaton(parse(E1))
    run = srt_run(srt, TABLE_1)
    first = next(t for t in srt.transitions if t.writes)
    last = next(t for t in srt.transitions if t.marked and not t.writes)
    for t, positions in ((first, [0, 1, 2, 5]), (last, [3, 4])):
        edge = (f"q{t.source}", f"q{t.target}")
        assert [k for k, frame in enumerate(run.frames[1:]) if edge in frame.taken] == positions, t.label()
