"""The *-property decider for UCEA (the SO-CEL paper §5): Fig. 2's oracle, agreement with brute force over all short
streams on random small UCEA, replayable shortest counterexamples, and compiled core SO-CEL always passing."""

from __future__ import annotations

import itertools

from hypothesis import given, settings

from cer_theory.automata.cea import CEA
from cer_theory.core.events import Event, Stream
from cer_theory.formalisms.socel.ast import Formula
from cer_theory.formalisms.socel.compile import compile_automaton
from cer_theory.formalisms.socel.examples import fig2_ucea
from cer_theory.formalisms.socel.parser import parse
from cer_theory.formalisms.socel.star_property import has_star_property, star_property_brute_force
from cer_theory.formalisms.socel.ucea import UCEA
from cer_theory.testing.strategies.automata import random_ceas
from cer_theory.testing.strategies.socel import CORE_OPERATORS, formulas

# Every minterm of the default random-CEA predicates (TRUE, type R, type T, x < 2, not R) has a tuple here.
UNIVERSE = (Event("R", x=0), Event("R", x=3), Event("T", x=0), Event("T", x=3), Event("U", x=0), Event("U"))


def all_streams(max_length: int):
    for k in range(1, max_length + 1):
        for events in itertools.product(UNIVERSE, repeat=k):
            yield Stream(events)


def test_fig2_has_no_star_property_with_shortest_counterexample_R_then_T() -> None:
    """§8: the answer is no, the shortest counterexample is (R,{R})(T,∅), a violation of (a)."""
    answer = has_star_property(fig2_ucea())
    assert not answer.holds
    assert answer.word() == [("R", frozenset({"R"})), ("T", frozenset())]
    assert answer.violated_condition == "(a)" and answer.n == 1
    assert answer.replays(fig2_ucea())
    assert "(R,{R}) (T,∅)" in str(answer)


@settings(max_examples=60)
@given(random_ceas(max_states=3, max_transitions=5))
def test_decider_agrees_with_brute_force_over_all_short_streams(cea: CEA) -> None:
    """§9 claim 3: on random small UCEA, the decider's verdict equals the bounded brute force
    ``⟦A⟧_n = ⟦A⟧*_n`` over all streams of at most 3 tuples of the universe; every counterexample replays."""
    a = UCEA.of(cea)
    answer = has_star_property(a)
    brute = star_property_brute_force(a, all_streams(3))
    if answer.holds:
        assert brute.holds
    else:
        assert answer.replays(a)
        if answer.n is not None and answer.n < 3:
            assert not brute.holds  # a difference within the bound is found by brute force too
            assert brute.n == answer.n  # and the decider's is a shortest one
        else:
            assert brute.holds  # the shortest difference is longer than the bound


@settings(max_examples=25)
@given(formulas(CORE_OPERATORS, max_depth=2))
def test_compiled_core_socel_has_the_star_property(phi: Formula) -> None:
    """TODS Prop 8.5 with the SO-CEL paper Prop 5.2: a UCEA compiled from core SO-CEL has the *-property."""
    assert has_star_property(compile_automaton(phi)).holds


def test_extensions_break_the_star_property() -> None:
    """Cor 5.6 / TODS Cor 8.6: ':' , START and π are not *-property operators; their UCEA fail the decider."""
    for text in ("R : T", "START(R)", "PI[R](R ; T)"):
        answer = has_star_property(compile_automaton(parse(text)))
        assert not answer.holds and answer.replays(compile_automaton(parse(text))), text
