"""Unary complex event automata (UCEA): the SO-CEL paper (*A Second-Order Approach to Complex Event Recognition*), §4.

A UCEA ``A = (Q, Δ, I, F)`` has transitions ``(p, P, L, q)`` with ``P`` a conjunction of unary predicates and
``L`` a set of labels. Structurally it is the CEL paper's CEA (Def. 5.1), and its runs are the same: a run of length
``n`` starts in ``I`` at position 0 and reads **every** tuple ``S[0..n]``; it yields the complex event
``C_ρ(A) = {k ≤ n | A ∈ L_k}``. ``⟦A⟧_n(S)`` collects them over accepting runs. So this class reuses
:class:`~cer_theory.automata.cea.CEA` (validation, immutability, I/O-determinism check, DOT) and adds:

* the ***-semantics** of the SO-CEL paper §5 (Thm 5.3): a *-run ending at ``n`` reads positions ``i1 < … < ik = n``
  only, with *marking* transitions only, and skips the rest freely (:meth:`UCEA.star_run`);
* outputs as label → set-of-positions maps (:class:`~cer_theory.core.events.Valuation`); a UCEA, unlike a
  core SO-CEL formula, may output ``C∅`` or a ``C`` with ``max(C) < n`` (the SO-CEL paper §4).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cer_theory.automata.cea import CEA, State, Transition
from cer_theory.core.drawing import Diagram
from cer_theory.core.events import Event, Valuation
from cer_theory.core.wording import plural
from cer_theory.formalisms.cel.star_property import star_run as cel_star_run

Outputs = frozenset[Valuation]


class UCEA(CEA):
    """A unary complex event automaton ``(Q, Δ, I, F)`` (the SO-CEL paper §4); immutable, validated on construction."""

    __slots__ = ()
    FILE_KIND = "ucea"

    @classmethod
    def of(cls, automaton: CEA, *, name: str | None = None) -> UCEA:
        """The UCEA with the states, transitions, initial and final states of ``automaton``."""
        return cls(automaton.states, automaton.transitions, automaton.initial, automaton.final,
                   name=automaton.name if name is None else name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UCEA) and CEA.__eq__(self, other)

    def __hash__(self) -> int:
        return CEA.__hash__(self)

    def __repr__(self) -> str:
        try:
            return (f"UCEA({self.name + ': ' if self.name else ''}{plural(len(self.states), 'state')}, "
                    f"{plural(len(self.transitions), 'transition')})")
        except Exception:  # a repr never raises, even half-built
            return "UCEA(…)"

    # ------------------------------------------------------------------ structure (results stay UCEA)

    def relabel_states(self, mapping: Mapping[State, State] | None = None) -> UCEA:
        return UCEA.of(CEA.relabel_states(self, mapping))

    def restrict(self, keep: Iterable[State]) -> UCEA:
        return UCEA.of(CEA.restrict(self, keep))

    def trim(self) -> UCEA:
        return UCEA.of(CEA.trim(self))

    def labels(self) -> frozenset[str]:
        """Every label some transition marks with."""
        return self.variables()

    # ------------------------------------------------------------------ semantics (the SO-CEL paper §4, §5)

    def outputs(self, stream: Sequence[Event], n: int) -> Outputs:
        """``⟦A⟧_n(S)``: the complex events of the accepting runs of length n (reading ``S[0..n]``)."""
        return self.run(stream[: n + 1])[n]

    def star_run(self, stream: Sequence[Event]) -> list[Outputs]:
        """``[⟦A⟧*_0(S), ⟦A⟧*_1(S), …]``: the *-semantics of the SO-CEL paper §5 (Thm 5.3).

        A *-run ending at n is ``q0 →P1/L1→ q1 … →Pk/Lk→ qk`` at positions ``i1 < … < ik = n`` with
        ``q0 ∈ I``, ``S[iℓ] ⊨ Pℓ`` and every ``Lℓ ≠ ∅``; it yields ``C*(A) = {iℓ | A ∈ Lℓ}``. The
        configurations ``(q, C)`` reached at some earlier position are kept (a *-run may skip any tuple). This is
        the CEL paper's Def. 8.7 for CEA, the same definition, so the CEA implementation is reused."""
        return cel_star_run(self, stream)

    def star_outputs(self, stream: Sequence[Event], n: int) -> Outputs:
        """``⟦A⟧*_n(S)``."""
        return self.star_run(stream[: n + 1])[n]

    def accepts(self, stream: Sequence[Event], n: int, c: Valuation) -> bool:
        """``C ∈ ⟦A⟧_n(S)``, by one pass over ``S[0..n]`` following the label sets ``C`` prescribes."""
        current = set(self.initial)
        for k in range(n + 1):
            marks = frozenset(a for a, ps in c.items() if k in ps)
            current = {t.target for q in current for t in self.out(q)
                       if t.labels == marks and t.predicate(stream[k])}
        return bool(current & self.final)

    def star_accepts(self, stream: Sequence[Event], n: int, c: Valuation) -> bool:
        """``C ∈ ⟦A⟧*_n(S)``: a *-run over exactly the positions of ``supp(C)``, which must end at n."""
        positions = c.support().positions
        if not positions or positions[-1] != n:
            return False
        current = set(self.initial)
        for k in positions:
            marks = frozenset(a for a, ps in c.items() if k in ps)
            current = {t.target for q in current for t in self.out(q)
                       if t.labels == marks and t.predicate(stream[k])}
        return bool(current & self.final)

    # ------------------------------------------------------------------ views

    def diagram(self, **options: Any) -> Diagram:
        """Drawn like a CEA (the SO-CEL paper Fig. 2 style: ``P / {labels}``, ``∅`` if none), named UCEA."""
        d = CEA.diagram(self, **options)
        return d if self.name else dataclasses.replace(d, name="UCEA")


def transition(source: State, predicate: Any, labels: Iterable[str], target: State) -> Transition:
    """``(p, P, L, q)``."""
    return Transition(source, predicate, frozenset(labels), target)


__all__ = ["UCEA", "Outputs", "transition"]
