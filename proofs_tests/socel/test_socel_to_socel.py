"""UCEA → SO-CEL (the SO-CEL paper Thm 6.2 by McNaughton–Yamada; Thm 5.3 ⇐ / §6.3 for the *-semantics): round trips on
random small UCEA, and SO-CEL+ → UCEA → SO-CEL+."""

from __future__ import annotations

from hypothesis import given, settings

from cer_theory.automata.cea import CEA
from cer_theory.core.events import Stream
from cer_theory.formalisms.socel.ast import Formula, is_core, is_plus
from cer_theory.formalisms.socel.compile import compile_automaton
from cer_theory.formalisms.socel.examples import fig2_ucea
from cer_theory.formalisms.socel.semantics import evaluate
from cer_theory.formalisms.socel.star_property import has_star_property
from cer_theory.formalisms.socel.to_socel import ucea_to_core_socel, ucea_to_socel_plus
from cer_theory.formalisms.socel.ucea import UCEA
from cer_theory.testing.strategies import streams
from cer_theory.testing.strategies.automata import random_ceas
from cer_theory.testing.strategies.socel import PLUS_OPERATORS, formulas, socel_streams

TYPES = ("R", "T", "U", "V")  # the schema of strategies.streams()


@settings(max_examples=40)
@given(random_ceas(max_states=2, max_transitions=4, variables=("A", "R")), streams(max_length=5))
def test_thm_6_2_ucea_to_socel_plus(cea: CEA, stream: Stream) -> None:
    """Thm 6.2 (⇒): ``⟦φ_A⟧_n = ⟦A⟧_n`` (labels that are relation names included: R is both here)."""
    a = UCEA.of(cea)
    phi = ucea_to_socel_plus(a, TYPES)
    assert is_plus(phi)
    assert evaluate(phi, stream) == a.run(stream)


@settings(max_examples=40)
@given(random_ceas(max_states=3, max_transitions=5), streams(max_length=5))
def test_thm_5_3_ucea_star_semantics_to_core_socel(cea: CEA, stream: Stream) -> None:
    """Thm 5.3 (⇐): a core SO-CEL formula for ``⟦A⟧*``; equal to ``⟦A⟧`` when the decider says *-property."""
    a = UCEA.of(cea)
    phi = ucea_to_core_socel(a, TYPES)
    assert is_core(phi)
    assert evaluate(phi, stream) == a.star_run(stream)
    if has_star_property(a).holds:
        assert evaluate(phi, stream) == a.run(stream)


@settings(max_examples=25)
@given(formulas(PLUS_OPERATORS, max_depth=2), socel_streams(4))
def test_round_trip_socel_plus_to_ucea_and_back(phi: Formula, stream: Stream) -> None:
    """SO-CEL+ → UCEA → SO-CEL+ (Prop 5.2 then Thm 6.2) keeps the semantics."""
    back = ucea_to_socel_plus(compile_automaton(phi).trim(), ("R", "T", "U"))
    assert is_plus(back)
    assert evaluate(back, stream) == evaluate(phi, stream)


def test_fig2_as_socel_plus_needs_projection() -> None:
    """Fig. 2's UCEA (no *-property) is an SO-CEL+ formula; the core translation gives its *-semantics (empty)."""
    s = Stream.from_types("R U T R T")
    phi = ucea_to_socel_plus(fig2_ucea(), ("R", "T", "U"))
    assert evaluate(phi, s) == fig2_ucea().run(s)
    assert all(not out for out in evaluate(ucea_to_core_socel(fig2_ucea(), ("R", "T", "U")), s))
