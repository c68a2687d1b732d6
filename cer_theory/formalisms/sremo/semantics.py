"""The reference semantics of SREMO: the SRT paper (Alevizos, Artikis, Paliouras, *Complex Event Recognition with
Symbolic Register Transducers*), §3.4, Defs. 17–18, windows Def. 39, streaming Def. 32.

The relation ``(e, S, M, v) ⊢ v'`` of Def. 17 is computed by brute force: :meth:`Evaluator.derivations`
returns, for the slice ``S[i:j]`` and an incoming valuation ``v``, every pair ``(M, v')``. Positions are
**absolute and 0-based** (the SRT paper writes 1-based indices; its concatenation rule implicitly uses absolute
positions, docs/errata.md). Results are memoised per (sub-expression, i, j, v). Exponential, obviously right:
the oracle every automaton is checked against.
"""

from __future__ import annotations

from collections.abc import Sequence

from cer_theory.automata.registers import EMPTY as EMPTY_VALUATION
from cer_theory.automata.registers import Valuation
from cer_theory.core.budget import charge
from cer_theory.core.errors import StreamFormatError
from cer_theory.core.intervals import SEMANTICS
from cer_theory.core.events import Event
from cer_theory.core.predicates.registers import satisfies
from cer_theory.formalisms.sremo.ast import (Any, Complement, Concat, Cond, Empty, Eps, Expr, Inter, Next, Plus,
                                             Star, Union, Window, check, written)
from cer_theory.formalisms.sremo.outputs import Match, StreamOutput, per_position
from cer_theory.formalisms.sremo.selection import expand_any, expand_next

Derivation = tuple[Match, Valuation]


class Evaluator:
    """Def. 17 over one stream, memoised. ``Evaluator(e, S).derivations(i, j)`` is ``{(M, v')}``."""

    def __init__(self, e: Expr, stream: Sequence[Event]) -> None:
        self.root = check(e)
        self.stream = list(stream)
        for i, event in enumerate(self.stream):
            if not isinstance(event, Event):
                raise StreamFormatError(f"position {i}: expected an Event, got {type(event).__name__}")
        self._memo: dict[tuple[int, int, int, Valuation], frozenset[Derivation]] = {}
        self._sugar: dict[int, Expr] = {}
        self._keep: list[Expr] = []  # keeps rewritten nodes alive, so that their id() stays unique

    def derivations(self, i: int = 0, j: int | None = None, v: Valuation = EMPTY_VALUATION,
                    e: Expr | None = None) -> frozenset[Derivation]:
        """``{(M, v') | (e, S[i:j], M, v) ⊢ v'}`` with absolute positions."""
        j = len(self.stream) if j is None else j
        node = self.root if e is None else e
        key = (id(node), i, j, v)
        hit = self._memo.get(key)
        if hit is None:
            hit = frozenset(self._den(node, i, j, v))
            self._memo[key] = hit
            charge(SEMANTICS, 1 + len(hit))  # a work budget binds the brute force too (core.budget)
        return hit

    def _den(self, e: Expr, i: int, j: int, v: Valuation) -> set[Derivation]:
        if isinstance(e, Eps):
            return self._eps(i, j, v)
        if isinstance(e, Empty):
            return set()  # ∅ has no derivation (implicit in Def. 17)
        if isinstance(e, Cond):
            return self._cond(e, i, j, v)
        if isinstance(e, Concat):
            return self._concat(e.left, e.right, i, j, v)
        if isinstance(e, Union):
            return self._union(e, i, j, v)
        if isinstance(e, Star):
            return self._star(e, i, j, v)
        if isinstance(e, Plus):
            return self._plus(e, i, j, v)
        if isinstance(e, Inter):
            return self._inter(e, i, j, v)
        if isinstance(e, Window):
            return self._window(e, i, j, v)
        if isinstance(e, Complement):
            return self._complement(e, i, j, v)
        if isinstance(e, (Any, Next)):
            return set(self.derivations(i, j, v, self._rewritten(e)))
        raise TypeError(f"not a SREMO expression: {e!r}")  # pragma: no cover - check() rejects it first

    def _eps(self, i: int, j: int, v: Valuation) -> set[Derivation]:
        """Def. 17 rule 1: ``(ε, ε, ∅, v) ⊢ v``."""
        return {(frozenset(), v)} if i == j else set()

    def _cond(self, e: Cond, i: int, j: int, v: Valuation) -> set[Derivation]:
        """Def. 17 rules 2–3: one event ``u`` with ``(u, v) ⊨ φ``; ``M = {idx(u)}`` iff ``o = •``;
        ``v' = v[W ← u]``."""
        if j != i + 1 or not satisfies(e.guard, self.stream[i], v):
            return set()
        return {(frozenset([i]) if e.marked else frozenset(), v.write(e.writes, self.stream[i]))}

    def _concat(self, left: Expr, right: Expr, i: int, j: int, v: Valuation) -> set[Derivation]:
        """Def. 17 rule 4: ``S = S₁S₂``, ``M = M₁·M₂``, valuations threaded left to right."""
        out: set[Derivation] = set()
        for k in range(i, j + 1):
            for m1, v1 in self.derivations(i, k, v, left):
                for m2, v2 in self.derivations(k, j, v1, right):
                    out.add((m1 | m2, v2))
        return out

    def _union(self, e: Union, i: int, j: int, v: Valuation) -> set[Derivation]:
        """Def. 17 rule 5: either disjunct."""
        return set(self.derivations(i, j, v, e.left)) | set(self.derivations(i, j, v, e.right))

    def _star(self, e: Star, i: int, j: int, v: Valuation) -> set[Derivation]:
        """Def. 17 rule 6 (with the ``M`` the paper's rule drops, docs/errata.md): ε, or one iteration then
        ``e*``, registers threaded. Only iterations that consume an event are tried: one that consumes nothing
        has no mark and cannot change ``v`` (no condition fires), so it adds no derivation."""
        out: set[Derivation] = {(frozenset(), v)} if i == j else set()
        for k in range(i + 1, j + 1):
            for m1, v1 in self.derivations(i, k, v, e.body):
                for m2, v2 in self.derivations(k, j, v1, e):
                    out.add((m1 | m2, v2))
        return out

    def _plus(self, e: Plus, i: int, j: int, v: Valuation) -> set[Derivation]:
        """``e⁺ := e·e*`` (the SRT paper §7.3)."""
        return self._concat(e.body, self._rewritten(e), i, j, v)

    def _inter(self, e: Inter, i: int, j: int, v: Valuation) -> set[Derivation]:
        """``e₁ ∩ e₂`` (the SRT paper Thm. 34, at the match level, Def. 33): both sides derive the same ``M`` on the
        same string, each from ``v`` on its own registers; ``v'`` takes the right side's writes from ``v₂``
        (check() made the written registers disjoint, docs/decisions.md)."""
        right_writes = sorted(written(e.right))
        out: set[Derivation] = set()
        rights = self.derivations(i, j, v, e.right)
        for m1, v1 in self.derivations(i, j, v, e.left):
            for m2, v2 in rights:
                if m1 == m2:
                    merged = dict(v1)
                    for r in right_writes:
                        if r in v2:
                            merged[r] = v2[r]
                    out.add((m1, Valuation(merged)))
        return out

    def _window(self, e: Window, i: int, j: int, v: Valuation) -> set[Derivation]:
        """Def. 39: ``(e^[1..w], S, M, v) ⊢ v'`` iff ``(e, S, M, v) ⊢ v'`` and ``max(M) − min(M) + 1 ≤ w``.
        A derivation with ``M = ∅`` has no span and is rejected (docs/decisions.md)."""
        return {(m, v1) for m, v1 in self.derivations(i, j, v, e.body) if m and max(m) - min(m) + 1 <= e.w}

    def _complement(self, e: Complement, i: int, j: int, v: Valuation) -> set[Derivation]:
        """``!e`` (the SRT paper §5.1.2, language level, outputs dropped): the slice is consumed, unmarked and with
        ``v`` unchanged, iff ``e`` has no derivation on it from ``v``."""
        return set() if self.derivations(i, j, v, e.body) else {(frozenset(), v)}

    def _rewritten(self, e: Expr) -> Expr:
        hit = self._sugar.get(id(e))
        if hit is None:
            if isinstance(e, Plus):
                hit = Star(e.body)
            elif isinstance(e, Any):
                hit = expand_any(e)
            else:
                assert isinstance(e, Next)
                hit = expand_next(e)
            self._sugar[id(e)] = hit
            self._keep += [e, hit]
        return hit


def match(e: Expr, stream: Sequence[Event]) -> frozenset[Match]:
    """``Match(e, S) = {M | ∃v': (e, S, M, #) ⊢ v'}`` (the SRT paper, Def. 18), 0-based positions."""
    return frozenset(m for m, _ in Evaluator(e, stream).derivations())


def accepts(e: Expr, stream: Sequence[Event]) -> bool:
    """``S ∈ Lang(e)`` (the SRT paper, Def. 18): the whole string is consumed."""
    return bool(Evaluator(e, stream).derivations())


def streaming_matches(e: Expr, stream: Sequence[Event], *, pure: bool = False) -> list[StreamOutput]:
    """The streaming matches of Def. 32, for each position ``k`` with a non-empty output, increasing ``k``.

    At ``k``: the matches ``M`` of ``e`` on the suffixes ``S[m..k]`` (``m ≤ k``) that ``e`` consumes exactly,
    with absolute positions, restricted to ``k ∈ M`` — the reading of the last-• acceptance of the SRT
    (the SRT paper Def. 24; docs/errata.md, P1). ``pure=True`` drops the restriction ``k ∈ M``.
    """
    ev = Evaluator(e, stream)
    out: list[StreamOutput] = []
    for k in range(len(stream)):
        found = {m for start in range(k + 1) for m, _ in ev.derivations(start, k + 1)}
        if not pure:
            found = {m for m in found if k in m}
        if found:
            out.append(StreamOutput(k, frozenset(found)))
    return out


def evaluate(e: Expr, stream: Sequence[Event], *, pure: bool = False) -> list[frozenset[Match]]:
    """The streaming matches of Def. 32 as one set per position (the registry's per-position outputs)."""
    return per_position(streaming_matches(e, stream, pure=pure), len(stream))
