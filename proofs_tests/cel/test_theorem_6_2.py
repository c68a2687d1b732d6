"""Theorem 6.2 (the CEL paper): for every unary CEL formula φ, ``⟦φ⟧ᵛ_n(S) = ⟦CEA(φ)⟧ᵛ_n(S)`` for all S and n.

Checked differentially on generated formulas (every operator, nested ``+``/``⊕`` included) and streams of
length up to 8: valuations and complex events at every position. A failure prints the shrunk formula, the
stream, the first position that differs and both outputs.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.formalisms.cel.compile import compile_automaton
from cer_theory.formalisms.cel.semantics import CelSemantics
from cer_theory.formalisms.cel.ast import Formula
from cer_theory.testing.harness import first_mismatch, to_complex_events
from cer_theory.testing.strategies import formulas, streams


def _check_theorem_6_2(phi: Formula, streams_: list) -> None:
    cea = compile_automaton(phi)
    for stream in streams_:
        sem = CelSemantics(stream)
        expected = [sem.at(phi, n) for n in range(len(stream))]
        actual = cea.run(stream)
        mismatch = first_mismatch(phi, stream, expected, actual, level="valuations", candidate="CEA(φ)")
        assert mismatch is None, str(mismatch)
        mismatch = first_mismatch(phi, stream, to_complex_events(expected), to_complex_events(actual),
                                  level="complex events", candidate="CEA(φ)")
        assert mismatch is None, str(mismatch)


@settings(max_examples=1500)
@given(formulas(selection=False, max_depth=4), st.lists(streams(max_length=8), min_size=2, max_size=2))
def test_theorem_6_2_valuation_equivalence(phi: Formula, streams_: list) -> None:
    """Thm 6.2 over generated unary formulas: 1,500 formulas × 2 streams = 3,000 formula/stream cases."""
    _check_theorem_6_2(phi, streams_)


@settings(max_examples=400)
@given(formulas(selection=False, max_depth=3), streams(min_length=6, max_length=8))
def test_theorem_6_2_on_longer_streams(phi: Formula, stream) -> None:
    """Thm 6.2 with streams of length 6–8, where iteration and UNLESS have room to misbehave."""
    _check_theorem_6_2(phi, [stream])
