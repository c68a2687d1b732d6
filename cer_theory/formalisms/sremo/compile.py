"""SREMO → SRT: seed 002 (Alevizos, Artikis, Paliouras), Thm. 27 and Fig. 11 (Thompson-style), with the
intersection of Thm. 34 (App. A.4) and the selection rewritings of Defs. 44–45.

One register set ``R_top = reg(e)`` is shared by all sub-automata (eq. 12): sharing is what lets ``e₂`` read
what ``e₁`` wrote. Each fragment has one start and one final state:

* ``ε``: ``s -ε-> f``; ``∅``: ``s``, ``f`` and no transition; ``φ↑o↓W``: ``s -φ↑o↓W-> f``;
* ``e₁·e₂``: ``f₁ -ε-> s₂``; ``e₁+e₂``: new ``s``, ``f`` with ε to both starts and from both finals;
* ``e*``: new ``s``, ``f``; ``s -ε-> s₁``, ``s -ε-> f``, ``f₁ -ε-> f``, ``f₁ -ε-> s₁``; ``e⁺ := e·e*``;
* ``e₁ ∩ e₂``: the product of the ε-free fragments, pairing only transitions with **equal outputs** (the P8
  fix, docs/errata.md), conditions conjoined, ``W₁ ∪ W₂`` written;
* ``(e) WITHIN w`` at the top: the SRT's ``window`` (docs/decisions.md). Windows below the top and ``!e`` need
  the unrolling of Lemma 46 and determinization (Thm. 41), not built yet: :class:`UnsupportedError`.

``Match(e, S) = Match(T, S)`` under the pure reading, for every ``S`` (Thm. 27; tested on generated
expressions); under the last-• reading, the SRT keeps exactly the matches containing the last position (P1).
"""

from __future__ import annotations

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.predicates.ast import conj
from cer_theory.formalisms.sremo.ast import (Any, Complement, Concat, Cond, Empty, Eps, Expr, Inter, Next, Plus,
                                             Star, Union, Window, check, registers)
from cer_theory.formalisms.sremo.epsilon import eliminate_epsilon
from cer_theory.formalisms.sremo.selection import expand_any, expand_next
from cer_theory.formalisms.sremo.srt import SRT, Transition


class _Builder:
    def __init__(self) -> None:
        self.n = 0
        self.transitions: list[Transition] = []

    def state(self) -> int:
        self.n += 1
        return self.n - 1

    def eps(self, a: int, b: int) -> None:
        self.transitions.append(Transition(a, None, b))

    def build(self, e: Expr) -> tuple[int, int]:
        """The (start, final) of the fragment of ``e`` (Fig. 11)."""
        if isinstance(e, Eps):
            s, f = self.state(), self.state()
            self.eps(s, f)
            return s, f
        if isinstance(e, Empty):
            return self.state(), self.state()
        if isinstance(e, Cond):
            s, f = self.state(), self.state()
            self.transitions.append(Transition(s, e.guard, f, frozenset(e.writes), e.marked))
            return s, f
        if isinstance(e, Concat):
            s1, f1 = self.build(e.left)
            s2, f2 = self.build(e.right)
            self.eps(f1, s2)
            return s1, f2
        if isinstance(e, Union):
            s, f = self.state(), self.state()
            for part in (e.left, e.right):
                si, fi = self.build(part)
                self.eps(s, si)
                self.eps(fi, f)
            return s, f
        if isinstance(e, Star):
            s, f = self.state(), self.state()
            s1, f1 = self.build(e.body)
            self.eps(s, s1)
            self.eps(s, f)
            self.eps(f1, f)
            self.eps(f1, s1)
            return s, f
        if isinstance(e, Plus):
            return self.build(Concat(e.body, Star(e.body)))
        if isinstance(e, Any):
            return self.build(expand_any(e))
        if isinstance(e, Next):
            return self.build(expand_next(e))
        if isinstance(e, Inter):
            return self.product(e)
        if isinstance(e, Window):
            raise UnsupportedError("a window below the top of the expression needs the unrolling of seed 002 "
                                   "Lemma 46, not built yet; only (e) WITHIN w at the top compiles to an SRT")
        if isinstance(e, Complement):
            raise UnsupportedError("!e needs determinization (seed 002 Thm. 41, Cor. 43), not built yet")
        raise UnsupportedError(f"not a SREMO expression: {e!r}")

    def product(self, e: Inter) -> tuple[int, int]:
        """Thm. 34 (App. A.4): states Q₁×Q₂, transitions paired when their outputs are equal (P8)."""
        t1, t2 = (eliminate_epsilon(_fragment(side)) for side in (e.left, e.right))
        pairs: dict[tuple[int, int], int] = {}

        def state(p: tuple[int, int]) -> int:
            if p not in pairs:
                pairs[p] = self.state()
                todo.append(p)
            return pairs[p]

        todo: list[tuple[int, int]] = []
        s = state((t1.start, t2.start))
        f = self.state()
        while todo:
            p1, p2 = todo.pop()
            here = pairs[(p1, p2)]
            if p1 in t1.finals and p2 in t2.finals:
                self.eps(here, f)
            for d1 in t1.out(p1):
                for d2 in t2.out(p2):
                    if d1.marked != d2.marked:
                        continue  # P8: a position is in M₁ ∩ M₂ only if both sides mark it
                    target = state((d1.target, d2.target))
                    self.transitions.append(Transition(here, conj(d1.guard, d2.guard), target,  # type: ignore[arg-type]
                                                       d1.writes | d2.writes, d1.marked))
        return s, f


def _fragment(e: Expr) -> SRT:
    b = _Builder()
    s, f = b.build(e)
    return SRT(b.n, s, frozenset([f]), tuple(b.transitions))


def compile_srt(e: Expr) -> SRT:
    """The SRT of Thm. 27 for ``e`` (with ε-transitions; :func:`~.epsilon.eliminate_epsilon` removes them)."""
    check(e)
    window = None
    if isinstance(e, Window):
        window, e = e.w, e.body
    b = _Builder()
    s, f = b.build(e)
    return SRT(b.n, s, frozenset([f]), tuple(b.transitions), registers(e), window)


__all__ = ["compile_srt"]
