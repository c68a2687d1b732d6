"""The constructions of the ACEL paper §6: ACEL → ACEA (Thm 6.2) and CEA → ACEA (Thm 6.1), differentially tested against
the reference semantics and the CEA's own runs, with the paper's errata pinned by small exact cases."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import Event, Stream
from cer_theory.formalisms.acel.compile import (cea_complex_events, cea_to_acea, compile_automaton, formula_schema,
                                                run_acea, schema_of)
from cer_theory.formalisms.acel.parser import parse
from cer_theory.formalisms.acel.semantics import complex_events, evaluate
from cer_theory.testing.strategies import Schema, streams
from cer_theory.testing.strategies.acel import acel_streams, formulas
from cer_theory.testing.strategies.automata import random_ceas


def show(cs) -> list[str]:
    return sorted(map(repr, cs))


@settings(max_examples=100)
@given(formulas(), acel_streams())
def test_thm_6_2_semantics_equals_the_compiled_acea(phi, stream) -> None:
    """Thm 6.2 on generated formulas over every operator, nested Agg included (sum/min/max/count/avg), and the
    invariants (I1) and (I2) of the compiled automaton."""
    automaton = compile_automaton(phi, schema_of(stream))
    assert automaton.invariant_violations() == []
    got, want = automaton.complex_events(stream), complex_events(phi, stream)
    assert got == want, f"φ = {phi}\nS = {stream}\nACEA = {show(got)}\nsemantics = {show(want)}"


@pytest.mark.parametrize("text, stream, iterations", [("R+", "R R R R", 4), ("R:+", "R R R R", 4),
                                                    ("(R ; T)+", "R T R T R T", 3)])
def test_thm_6_2_plus_redirect_erratum_allows_any_number_of_iterations(text, stream, iterations) -> None:
    """Redirecting only Δ's transitions into F (as the paper does) stops a one-step body after two iterations; with
    the fix the ACEA has the run that iterates over the whole stream."""
    s = Stream.from_types(stream)
    got = compile_automaton(parse(text), schema_of(s)).complex_events(s)
    assert got == complex_events(parse(text), s)
    assert max(len(c["R"]) for c in got) == iterations


def test_thm_6_2_agg_init_and_one_step_errata() -> None:
    """The first transition starts from the identity (not ``c ← c``), and the one-step run q0 → F emits too."""
    s = Stream([Event("R", x=5), Event("R", x=7)])
    for text in ("AGG Y[s <- sum(R.x), m <- max(R.x), n <- count(R.x)](R)",
                 "AGG Y[s <- sum(R.x), a <- avg(R.x)](R+)", "AGG Y[s <- sum(X.x)](R)"):
        phi = parse(text)
        assert compile_automaton(phi, schema_of(s)).complex_events(s) == complex_events(phi, s), text
    (c, *_) = sorted(complex_events(parse("AGG Y[s <- sum(R.x), m <- max(R.x)](R)"), s), key=lambda c: c.sort_key())
    assert c.to_json()["bags"]["Y"] == [{"time": 0, "attributes": {"m": 5, "s": 5}}]


def test_the_compiler_refuses_multiset_predicates_and_the_set_bind_mode_clearly() -> None:
    with pytest.raises(UnsupportedError, match=r"multiset predicate X\[x\] .* not covered by Thm 6.2"):
        compile_automaton(parse("(R AS X)+ FILTER X[x]"))
    with pytest.raises(UnsupportedError, match="--bind set needs --via semantics"):
        run_acea(parse("R"), Stream.from_types("R"), bind="set")
    with pytest.raises(UnsupportedError, match="over a schema .* type R"):
        run_acea(parse("R"), Stream([Event("R", x=1), Event("R")]))


def test_the_acea_evaluator_gives_per_position_outputs_like_the_semantics() -> None:
    s = Stream([Event("R", x=1), Event("T", x=2), Event("R", x=3)])
    phi = parse("AGG Y[s <- sum(X.x)](R AS X ; T)")
    assert run_acea(phi, s) == evaluate(phi, s)


def test_the_drawing_schema_names_every_attribute_the_formula_reads() -> None:
    phi = parse("AGG Y[s <- sum(X.price)](PI[X(name)](R AS X) FILTER X[qty > 1])")
    assert formula_schema(phi) == {"R": frozenset({"price", "name", "qty"})}
    dot = compile_automaton(phi).to_dot()
    assert "r1.price ← price" in dot and "c2.s" in dot


OVER_A_SCHEMA = Schema(types=("R", "T", "U", "V"), attributes=(("x", (0, 1, 2, 3)),), missing=False)


@settings(max_examples=80)
@given(random_ceas(max_states=3), streams(OVER_A_SCHEMA, max_length=5))
def test_thm_6_1_every_cea_has_an_acea_with_the_same_outputs(cea, stream) -> None:
    """Thm 6.1 (with the predicate renamed onto the registers): the ACEA's complex events are the CEA's own runs,
    started at every position as the ACEL paper reads CEA (the toolkit's CEA start at position 0, so each suffix)."""
    acea = cea_to_acea(cea, schema_of(stream))
    got, want = acea.complex_events(stream), cea_complex_events(cea, stream)
    assert got == want, f"CEA = {cea.describe()}\nS = {stream}\nACEA = {show(got)}\nCEA runs = {show(want)}"
