"""The *-semantics (Def 8.7), Prop 8.5/8.8 and the *-property decision procedure (the CEL paper, §8.1).

* Def 8.7: the *-semantics on hand-checked oracles (0-based, gaps, last position = n, marking steps only).
* Prop 8.8: CEAs compiled from generated CEL* formulas have ⟦A⟧ = ⟦A⟧* (brute force) and the decision
  procedure says so; both also equal ⟦φ⟧ (Prop 8.5 through Theorem 6.2).
* The decision procedure agrees with brute force over *all* streams of length ≤ 5 over the minterm alphabet,
  and every counterexample it returns is re-checked against both semantics.
* Cor 8.6: the paper's witness ``R UNLESS T``, plus our own for the other operators (``R : T``, ``START(R)``,
  ``R⊕``, ``π_∅(R)``), are found.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.automata.cea import CEA
from cer_theory.formalisms.cel.compile import compile_automaton
from cer_theory.core.errors import SizeBudgetExceeded
from cer_theory.core.events import ComplexEvent, Event, Stream, Valuation
from cer_theory.core.predicates.ast import TRUE, Predicate, is_type, neg
from cer_theory.core.predicates.solver import minterms, witness
from cer_theory.formalisms.cel.semantics import evaluate_complex_events
from cer_theory.formalisms.cel.star_property import (StarPropertyResult, has_star_property, star_complex_events, star_run,
                                      star_run_complex_events, star_property_brute_force)
from cer_theory.formalisms.cel.ast import Atom, Disj, Filter, Formula, In, Plus, Seq
from cer_theory.formalisms.cel.parser import parse
from cer_theory.testing.strategies.automata import random_ceas
from cer_theory.testing.strategies.cel import conditions, visible_variables
from cer_theory.testing.harness import first_mismatch
from cer_theory.testing.strategies import streams

TYPE_PREDICATES: tuple[Predicate, ...] = (TRUE, is_type("R"), is_type("T"), neg(is_type("R")))
"""Predicates over types only: their minterms are R, T and "neither" (witnessed by U below)."""


def _check_counterexample(cea: CEA, result: StarPropertyResult) -> None:
    """A returned counterexample must truly separate ⟦A⟧_n(S) and ⟦A⟧*_n(S), as the result says."""
    assert result.stream is not None and result.n == len(result.stream) - 1 and result.complex_event is not None
    normal = result.complex_event in cea.complex_events(result.stream, result.n)
    star = result.complex_event in star_complex_events(cea, result.stream, result.n)
    assert (normal, star) == (result.in_normal, result.in_star) and normal != star, str(result)


def _all_streams(alphabet: list[Event], length: int) -> list[Stream]:
    return [Stream(s) for s in itertools.product(alphabet, repeat=length)]


# ---------------------------------------------------------------------------------------------- Def 8.7


def test_definition_8_7_star_semantics_oracle() -> None:
    """R ; T as a CEA: a *-run marks R then T at any positions, ending at n; position 0 may be used."""
    cea = CEA([0, 1, 2], [(0, is_type("R"), {"R"}, 1), (1, is_type("T"), {"T"}, 2)], [0], [2])
    stream = Stream.from_types("R U R T")
    out = star_run(cea, stream)
    assert out[:3] == [frozenset()] * 3
    assert out[3] == frozenset([Valuation({"R": [0], "T": [3]}), Valuation({"R": [2], "T": [3]})])
    assert star_run_complex_events(cea, stream)[3] == frozenset([ComplexEvent([0, 3]), ComplexEvent([2, 3])])
    assert cea.run(stream) == [frozenset()] * 4  # the normal semantics cannot skip without a ∘-loop


def test_definition_8_7_ignores_unmarked_transitions() -> None:
    """∘-transitions never take part in a *-run, so a CEA that must read T unmarked before R outputs nothing."""
    cea = CEA([0, 1, 2], [(0, is_type("T"), (), 1), (1, is_type("R"), {"A"}, 2)], [0], [2])
    stream = Stream.from_types("T R")
    assert star_run(cea, stream) == [frozenset(), frozenset()]
    assert cea.run(stream) == [frozenset(), frozenset([Valuation.single("A", [1])])]
    result = has_star_property(cea)
    assert not result.holds and result.in_normal and not result.in_star
    _check_counterexample(cea, result)


# ---------------------------------------------------------------------------------------------- Prop 8.8


@st.composite
def cel_star_formulas(draw: st.DrawFn, depth: int = 3) -> Formula:
    """Unary CEL* (Def 8.1): R | φ IN A | φ FILTER P^SO(A) | φ ; φ | φ+ | φ OR φ."""
    kind = "atom" if depth <= 0 else draw(st.sampled_from(("atom", "atom", "seq", "seq", "plus", "disj", "in",
                                                           "filter")))
    if kind == "atom":
        return Atom(draw(st.sampled_from(("R", "T", "U"))))
    left = draw(cel_star_formulas(depth - 1))
    if kind == "seq":
        return Seq(left, draw(cel_star_formulas(depth - 1)))
    if kind == "disj":
        return Disj(left, draw(cel_star_formulas(depth - 1)))
    if kind == "plus":
        return Plus(left)
    if kind == "in":
        return In(left, draw(st.sampled_from(("A", "B"))))
    return Filter(left, draw(conditions(tuple(sorted(visible_variables(left))), unary=True)))


@settings(max_examples=150)
@given(cel_star_formulas(), st.lists(streams(max_length=5), min_size=3, max_size=3))
def test_proposition_8_8_cel_star_automata_have_the_star_property(phi: Formula, streams_: list[Stream]) -> None:
    """For A = compile_automaton(φ), φ ∈ CEL*: ⟦A⟧_n = ⟦A⟧*_n = ⟦φ⟧_n on the streams, and the decision procedure
    finds no counterexample (Prop 8.5 + Thm 6.2 + Prop 8.8)."""
    cea = compile_automaton(phi)
    result = has_star_property(cea)
    assert result.holds, f"{phi}: {result}"
    for stream in streams_:
        brute = star_property_brute_force(cea, [stream])
        assert brute.holds, f"{phi}: {brute}"
        mismatch = first_mismatch(phi, stream, evaluate_complex_events(phi, stream),
                                  star_run_complex_events(cea, stream), level="complex events", candidate="⟦A⟧*")
        assert mismatch is None, str(mismatch)


# ---------------------------------------------------------------------------------------------- decision procedure


_TYPE_ALPHABET = [Event("R"), Event("T"), Event("U")]
_ALL_TYPE_STREAMS = _all_streams(_TYPE_ALPHABET, 5)  # prefixes are covered: every position n is compared


@settings(max_examples=150)
@given(random_ceas(min_states=1, max_states=3, predicates=TYPE_PREDICATES))
def test_star_property_decision_agrees_with_brute_force(cea: CEA) -> None:
    """Over types {R, T, U} (one event per minterm of TYPE_PREDICATES): "holds" ⇒ no difference on any stream
    of length ≤ 5; a counterexample is genuine and no longer than the shortest one brute force finds."""
    result = has_star_property(cea)
    brute = star_property_brute_force(cea, _ALL_TYPE_STREAMS)
    if result.holds:
        assert brute.holds, f"decision says holds, brute force found:\n{brute}\n{cea.describe()}"
    else:
        _check_counterexample(cea, result)
        if not brute.holds:
            assert brute.n is not None and result.n is not None and result.n <= brute.n


@settings(max_examples=50)
@given(random_ceas(min_states=1, max_states=3))
def test_star_property_decision_with_attribute_minterms(cea: CEA) -> None:
    """With an attribute predicate (x < 2) the alphabet is the minterms' Z3 witnesses; streams of length ≤ 3."""
    alphabet = [witness(m.predicate) for m in minterms(cea.predicates())]
    result = has_star_property(cea)
    brute = star_property_brute_force(cea, _all_streams(alphabet, 3))
    if result.holds:
        assert brute.holds, f"decision says holds, brute force found:\n{brute}\n{cea.describe()}"
    else:
        _check_counterexample(cea, result)


@pytest.mark.parametrize("text, condition", [
    ("R UNLESS T", "(b)"),   # Cor 8.6 witness: {1} on R R but not on T R
    ("R : T", "(b)"),        # loses its match when junk is inserted
    ("START(R)", "(b)"),
    ("R:+", "(b)"),
    ("PI[](R)", "(a)"),      # outputs the empty complex event
    ("(R FILTER R.x > 2) UNLESS T", "(b)"),
])
def test_corollary_8_6_witnesses_are_found(text: str, condition: str) -> None:
    cea = compile_automaton(parse(text))
    result = has_star_property(cea)
    assert not result.holds and result.violated_condition == condition, str(result)
    _check_counterexample(cea, result)
    assert "lacks the *-property" in str(result)


def test_corollary_8_6_unless_oracle() -> None:
    """The shortest counterexample for R UNLESS T (Cor. 8.6's witness): S = T R, n = 1, C = {1} only in ⟦A⟧*."""
    result = has_star_property(compile_automaton(parse("R UNLESS T")))
    assert result.stream is not None and result.stream.types() == "T R"
    assert (result.n, result.complex_event, result.in_normal, result.in_star) == (1, ComplexEvent([1]), False, True)


@pytest.mark.parametrize("text", ["R ; T", "R+", "(R ; T+) IN A FILTER A[x < 3]", "R OR T ; U", "R AND T",
                                  "R ALL T", "R ; (T OR U)+ ; R", "((R ; T)+ ; U) OR (R : T : U)"])
def test_proposition_8_5_and_corollary_8_11_examples_hold(text: str) -> None:
    """CEL* formulas (and AND/ALL over CEL*, Cor 8.11) compile to CEAs with the *-property. The last one uses
    ``:`` but its R:T:U matches are also (R;T)+;U matches, so the function is still CEL*-definable."""
    result = has_star_property(compile_automaton(parse(text)))
    assert result.holds and "has the *-property" in str(result)


def test_star_property_brute_force_reports_first_difference() -> None:
    cea = compile_automaton(parse("R : T"))
    result = star_property_brute_force(cea, [Stream.from_types("R T"), Stream.from_types("R U T")])
    assert not result.holds and result.stream == Stream.from_types("R U T")
    assert (result.n, result.complex_event, result.in_normal, result.in_star) == (2, ComplexEvent([0, 2]), False, True)
    assert star_property_brute_force(cea, [Stream.from_types("R T")]).holds


def test_star_property_budget() -> None:
    """The product search is exponential in |Q|: past ``budget`` explored pairs it raises."""
    cea = compile_automaton(parse("((R ; T)+ ; U) OR (R : U)"))
    with pytest.raises(SizeBudgetExceeded):
        has_star_property(cea, budget=2)
    result = has_star_property(cea)
    assert not result.holds and result.explored > 2
    _check_counterexample(cea, result)
