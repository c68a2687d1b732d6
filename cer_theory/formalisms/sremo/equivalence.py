"""Equivalence and containment of register-free SREMO expressions (the SRT paper), with a shortest distinguishing
stream.

The SRT paper (*Complex Event Recognition with Symbolic Register Transducers*) compiles an expression to an SRT
(Thm. 27). Without registers and windows, its conditions read the current event only, and the streaming output
of Def. 32 at k (the matches M of the runs over some suffix ``S[m..k]`` with ``k ∈ M``, the last-• reading,
docs/decisions.md D43) is what a complex event automaton outputs (the CEL paper, Def. 5.2) after this translation
(:func:`register_free_cea`, ours):

* a fresh initial state ``s`` with a ``TRUE / ∅`` self-loop: the run may start at any position m;
* states ``(q, b)``: the SRT state after a consuming transition and whether that transition marked (•);
  ε-transitions are closed over (``closure``), so ``(q, b)`` moves on ``φ`` to ``(q', o)`` for every consuming
  ``q'' φ↑o → q'`` with ``q''`` in the ε-closure of q;
* a transition marks with the label ``{M}`` iff its SRT transition outputs •; ``(q, True)`` is final iff its
  ε-closure meets the SRT's final states.

Then ``Match = μ(M)``, and :func:`cer_theory.automata.equivalence.compare` decides equality of the streaming
outputs at the complex-event level. Registers (whose equivalence is undecidable in general), windows and
complement are refused with the reason.
"""

from __future__ import annotations

from cer_theory.automata.cea import CEA, Transition
from cer_theory.automata.equivalence import Verdict, compare, verdict
from cer_theory.core.errors import DEFAULT_BUDGET, UnsupportedError
from cer_theory.core.events import Stream
from cer_theory.core.predicates.ast import TRUE
from cer_theory.formalisms.sremo.ast import Expr
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.printer import format
from cer_theory.formalisms.sremo.semantics import evaluate
from cer_theory.formalisms.sremo.srt import SRT

MARK = "M"
"""The one variable of the translated CEA: the positions an SRT run marks (•)."""
START = "s"


def register_free_cea(srt: SRT) -> CEA:
    """The CEA whose complex events at n are the SRT's streaming matches at n (module docstring)."""
    if srt.registers:
        raise UnsupportedError(f"the SRT has registers {sorted(srt.registers)}: equivalence is decided only for "
                               f"register-free SREMO (with registers it is undecidable in general)")
    if srt.window is not None or srt.positions:
        raise UnsupportedError("the expression has a window (WITHIN): windows are not translated to complex "
                               "event automata here")
    states: set = {START}
    transitions: list[Transition] = [Transition(START, TRUE, frozenset(), START)]
    todo = [START]
    while todo:
        node = todo.pop()
        sources = srt.closure([srt.start if node == START else node[0]])
        for q in sources:
            for t in srt.out(q):
                if t.is_epsilon:
                    continue
                target = (t.target, t.marked)
                transitions.append(Transition(node, t.guard, frozenset([MARK]) if t.marked else frozenset(), target))
                if target not in states:
                    states.add(target)
                    todo.append(target)
    final = [s for s in states if s != START and s[1] and srt.closure([s[0]]) & srt.finals]
    return CEA(states, transitions, [START], final, name="register-free SRT")


def automaton(e: Expr, *, role: str = "expression") -> CEA:
    """The CEA of :func:`register_free_cea` for the SRT of Thm. 27, or :class:`UnsupportedError` saying why."""
    try:
        return register_free_cea(compile_automaton(e))
    except UnsupportedError as err:
        raise UnsupportedError(f"the {role} {format(e)}: {err}") from None


def _decide(e: Expr | str, f: Expr | str, *, contained: bool, budget: int | None) -> Verdict:
    left = parse(e) if isinstance(e, str) else e
    right = parse(f) if isinstance(f, str) else f
    a, b = automaton(left, role="left expression"), automaton(right, role="right expression")
    result = compare(a, b, level="complex_events", contained=contained, budget=budget)
    by_side = {"left": left, "right": right}

    def semantics(side: str, stream: Stream, n: int) -> frozenset:
        return frozenset(evaluate(by_side[side], stream[: n + 1])[n])

    return verdict(result, format(left), format(right), semantics,
                   relation="contained" if contained else "equivalent")


def equivalent(e: Expr | str, f: Expr | str, *, level: str = "complex_events",
               budget: int | None = DEFAULT_BUDGET) -> Verdict:
    """Whether the streaming matches of Def. 32 agree at every position of every stream; otherwise a shortest
    distinguishing stream. SREMO's outputs are sets of positions: ``level`` is accepted for a uniform interface
    and must be ``complex_events`` (or ``valuations``, the same here: one variable)."""
    _level(level)
    return _decide(e, f, contained=False, budget=budget)


def contained(e: Expr | str, f: Expr | str, *, level: str = "complex_events",
              budget: int | None = DEFAULT_BUDGET) -> Verdict:
    """Whether every streaming match of ``e`` is one of ``f`` at the same position."""
    _level(level)
    return _decide(e, f, contained=True, budget=budget)


def _level(level: str) -> None:
    if level not in ("complex_events", "valuations"):
        raise UnsupportedError(f"unknown output level {level!r}: SREMO outputs matches (sets of positions)")


__all__ = ["equivalent", "contained", "automaton", "register_free_cea"]
