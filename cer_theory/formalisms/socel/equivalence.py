"""Equivalence and containment of unary SO-CEL+ formulas (the SO-CEL paper), with a shortest distinguishing stream.

The SO-CEL paper (*A Second-Order Approach to Complex Event Recognition*), Prop. 5.2 compiles every SO-CEL+ formula with
unary filters (and AND, ALL, UNLESS, STRICT by Cor. 5.6 and Prop. 6.4) into a UCEA ``A_φ`` with
``⟦φ⟧_n(S) = ⟦A_φ⟧_n(S)``. A UCEA is structurally the CEL paper's CEA and its runs read every tuple from position 0
(the SO-CEL paper §4), so the product search of :func:`cer_theory.automata.equivalence.compare` decides
``⟦φ⟧ = ⟦ψ⟧`` at the level of SO-CEL's outputs (label → positions maps, the ``valuations`` level) or of their
supports (``complex_events``). A distinguishing stream is replayed through the reference semantics (Table 1).
Filters a UCEA cannot check (binary, ordering over two labels) are refused with the reason.
"""

from __future__ import annotations

from cer_theory.automata.equivalence import LevelName, Verdict, compare, verdict
from cer_theory.core.errors import DEFAULT_BUDGET, NotUnaryError, UnsupportedError
from cer_theory.core.events import Stream
from cer_theory.formalisms.socel.ast import Formula, is_unary
from cer_theory.formalisms.socel.compile import compile_automaton
from cer_theory.formalisms.socel.parser import parse
from cer_theory.formalisms.socel.printer import format
from cer_theory.formalisms.socel.semantics import complex_events
from cer_theory.formalisms.socel.ucea import UCEA


def automaton(phi: Formula, *, role: str = "formula") -> UCEA:
    """The UCEA of Prop. 5.2, or :class:`UnsupportedError` saying why there is none."""
    if not is_unary(phi):
        raise UnsupportedError(f"the {role} {format(phi)} has a filter over more than one label or an ordering test such as incr: equivalence is "
                               f"decided on unary complex event automata, whose predicates read one event "
                               f"(the SO-CEL paper, Prop. 5.2 covers unary filters only)")
    try:
        return compile_automaton(phi)
    except (NotUnaryError, UnsupportedError) as e:
        raise UnsupportedError(f"the {role} {format(phi)} has no UCEA here: {e}") from e


def _decide(phi: Formula | str, psi: Formula | str, *, contained: bool, level: LevelName,
            budget: int | None) -> Verdict:
    f = parse(phi) if isinstance(phi, str) else phi
    g = parse(psi) if isinstance(psi, str) else psi
    a, b = automaton(f, role="left formula"), automaton(g, role="right formula")
    result = compare(a, b, level=level, contained=contained, budget=budget)
    by_side = {"left": f, "right": g}

    def semantics(side: str, stream: Stream, n: int) -> frozenset:
        outs = complex_events(by_side[side], stream, n)
        return frozenset(outs if level == "valuations" else (c.support() for c in outs))

    return verdict(result, format(f), format(g), semantics, relation="contained" if contained else "equivalent")


def equivalent(phi: Formula | str, psi: Formula | str, *, level: LevelName = "valuations",
               budget: int | None = DEFAULT_BUDGET) -> Verdict:
    """Whether ``⟦φ⟧_n(S) = ⟦ψ⟧_n(S)`` for all S and n (the SO-CEL paper §2.1); otherwise a shortest distinguishing
    stream confirmed by the reference semantics."""
    return _decide(phi, psi, contained=False, level=level, budget=budget)


def contained(phi: Formula | str, psi: Formula | str, *, level: LevelName = "valuations",
              budget: int | None = DEFAULT_BUDGET) -> Verdict:
    """Whether ``⟦φ⟧_n(S) ⊆ ⟦ψ⟧_n(S)`` for all S and n; otherwise a shortest stream where φ outputs more."""
    return _decide(phi, psi, contained=True, level=level, budget=budget)


__all__ = ["equivalent", "contained", "automaton"]
