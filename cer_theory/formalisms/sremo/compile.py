"""SREMO → SRT: the SRT paper (Alevizos, Artikis, Paliouras), Thm. 27 and Fig. 11 (Thompson-style), with the
intersection of Thm. 34 (App. A.4) and the selection rewritings of Defs. 44–45.

One register set ``R_top = reg(e)`` is shared by all sub-automata (eq. 12): sharing is what lets ``e₂`` read
what ``e₁`` wrote. Each fragment has one start and one final state:

* ``ε``: ``s -ε-> f``; ``∅``: ``s``, ``f`` and no transition; ``φ↑o↓W``: ``s -φ↑o↓W-> f``;
* ``e₁·e₂``: ``f₁ -ε-> s₂``; ``e₁+e₂``: new ``s``, ``f`` with ε to both starts and from both finals;
* ``e*``: new ``s``, ``f``; ``s -ε-> s₁``, ``s -ε-> f``, ``f₁ -ε-> f``, ``f₁ -ε-> s₁``; ``e⁺ := e·e*``;
* ``e₁ ∩ e₂``: the product of the ε-free fragments, pairing only transitions with **equal outputs** (the P8
  fix, docs/errata.md), conditions conjoined, ``W₁ ∪ W₂`` written;
* ``(e) WITHIN w`` at the top: the SRT's ``window`` (docs/decisions.md);
* ``(e) WITHIN w`` below the top: the encoding by an index attribute and binary conditions that the SRT paper §5.1
  mentions (windows add no expressive power). The fragment of ``e`` is built twice: copy A before the first
  marked transition, copy B after it. A marked transition of A writes a fresh register ``#wN`` and enters B; a
  marked transition of B needs ``_pos − #wN._pos ≤ w − 1``. The fragment starts in A and ends in B's final
  state, so a derivation with no mark is rejected, as Def. 39 reads (docs/decisions.md). A new entry starts in A,
  so a window inside an iteration is a new window for every iteration;
* ``!e`` (allowed inside a window, §5.1.2) for a register-free ``e``: ``e``'s SRT is made ε-free, determinized
  (Alg. 7; with no register written the subset construction is sound with loops, so no unrolling bounds the
  slice), completed and flipped (Alg. 8, Cor. 43); its transitions consume unmarked and write nothing, as ``!e``'s
  derivations do (language level, outputs dropped). A complement over registers (or a window, whose encoding
  uses a register) is refused: SRT are not closed under complement (Thm. 35), and Cor. 43's construction bounds
  the length of the whole string, which Def. 39's window does not bound for an unmarked slice (P3).

``Match(e, S) = Match(T, S)`` under the pure reading, for every ``S`` (Thm. 27; tested on generated
expressions); under the last-• reading, the SRT keeps exactly the matches containing the last position (P1).
"""

from __future__ import annotations

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.predicates.ast import Arith, Attr, Cmp, Const, conj
from cer_theory.formalisms.sremo.ast import (Any, Complement, Concat, Cond, Empty, Eps, Expr, Inter, Next, Plus,
                                             Star, Union, Window, check, registers, walk)
from cer_theory.formalisms.sremo.determinize import complement, determinize_sra
from cer_theory.formalisms.sremo.epsilon import eliminate_epsilon
from cer_theory.formalisms.sremo.selection import expand_any, expand_next
from cer_theory.formalisms.sremo.srt import POSITION, SRT, Transition


class _Builder:
    def __init__(self) -> None:
        self.n = 0
        self.transitions: list[Transition] = []
        self.windows = 0  # window registers #w1, #w2, ... used so far

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
            return self.window(e)
        if isinstance(e, Complement):
            return self.complement(e)
        raise UnsupportedError(f"not a SREMO expression: {e!r}")

    def complement(self, e: Complement) -> tuple[int, int]:
        """``!e`` for a register-free ``e`` (the SRT paper §5.1.2, Thm. 41 and Cor. 43 on a symbolic automaton): Alg. 8's
        complement of the determinized ε-free SRT of ``e``, every transition unmarked and writing nothing."""
        used = registers(e.body)
        if used or any(isinstance(x, Window) for x in walk(e.body)):
            what = f"the registers {', '.join(sorted(used))}" if used else "a window (encoded with a register)"
            raise UnsupportedError(f"!e is built for an e without registers, and this e uses {what}: SRT are not "
                                   f"closed under complement (the SRT paper Thm. 35), and Cor. 43's construction bounds "
                                   f"the whole string's length, which a window does not bound for the unmarked "
                                   f"slice !e reads (the SRT paper §5.1.2); the reference semantics (eval --via "
                                   f"semantics) evaluates it")
        body = eliminate_epsilon(compile_automaton(e.body, native_window=False, windowed=True))
        negated = complement(determinize_sra(body))
        states = [self.state() for _ in range(negated.states)]
        for t in negated.transitions:
            self.transitions.append(Transition(states[t.source], t.guard, states[t.target]))
        f = self.state()
        for q in sorted(negated.finals):
            self.eps(states[q], f)
        return states[negated.start], f

    def fragment(self, e: Expr) -> SRT:
        """The SRT of a sub-expression on its own (for the product), sharing this builder's window registers."""
        b = _Builder()
        b.windows = self.windows
        s, f = b.build(e)
        self.windows = b.windows
        return SRT(b.n, s, frozenset([f]), tuple(b.transitions), positions=b.windows > 0)

    def window(self, e: Window) -> tuple[int, int]:
        """``(e) WITHIN w`` below the top, by an index attribute and binary conditions (the SRT paper §5.1, Def. 39)."""
        self.windows += 1
        reg = f"#w{self.windows}"
        first_state, first_transition = self.n, len(self.transitions)
        s, f = self.build(e.body)
        inner = self.transitions[first_transition:]
        del self.transitions[first_transition:]
        after = {q: self.state() for q in range(first_state, self.n)}  # copy B: after the first mark
        within = Cmp(Arith("-", Attr(POSITION), Attr(POSITION, reg)), "<=", Const(e.w - 1))
        for t in inner:
            if t.guard is None or not t.marked:
                self.transitions.append(t)
                self.transitions.append(Transition(after[t.source], t.guard, after[t.target], t.writes, t.marked))
            else:
                self.transitions.append(Transition(t.source, t.guard, after[t.target], t.writes | {reg}, True))
                self.transitions.append(Transition(after[t.source], conj(t.guard, within), after[t.target],
                                                   t.writes, True))
        return s, after[f]

    def product(self, e: Inter) -> tuple[int, int]:
        """Thm. 34 (App. A.4): states Q₁×Q₂, transitions paired when their outputs are equal (P8)."""
        t1, t2 = (eliminate_epsilon(self.fragment(side)) for side in (e.left, e.right))
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




def compile_automaton(e: Expr, *, native_window: bool = True, windowed: bool = False) -> SRT:
    """The SRT of Thm. 27 for ``e`` (with ε-transitions; :func:`~.epsilon.eliminate_epsilon` removes them).

    A window at the top becomes the SRT's ``window`` (cheap: the recognizer drops runs that left it), unless
    ``native_window=False``, which encodes it by position conditions like a window below the top (for the
    closure constructions, which combine automata and keep no ``window``). ``windowed=True`` compiles ``e`` as
    the body of a window that the caller handles (the unrolling of Lemma 46 does), so ``!e`` is allowed in it."""
    check(e, windowed=windowed)
    window = None
    if native_window and isinstance(e, Window):
        window, e = e.w, e.body
    b = _Builder()
    s, f = b.build(e)
    return SRT(b.n, s, frozenset([f]), tuple(b.transitions), registers(e), window, positions=b.windows > 0)


__all__ = ["compile_automaton"]
