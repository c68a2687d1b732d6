"""Equivalence and containment of unary SO-CEL+ (the SO-CEL paper) through the UCEA of Prop. 5.2: soundness both ways
against the reference semantics (Table 1) on generated pairs, exhaustively over streams of length ≤ 3 of the
witness alphabet; shortest streams; the unsupported filters say why."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import Stream
from cer_theory.core.predicates.solver import minterms, witness
from cer_theory.formalisms.socel.ast import Disj, Formula
from cer_theory.formalisms.socel.evaluators import compilable
from cer_theory.formalisms.socel.equivalence import automaton, contained, equivalent
from cer_theory.formalisms.socel.printer import format
from cer_theory.formalisms.socel.semantics import complex_events
from cer_theory.testing.strategies.socel import formulas

SMALL = formulas(max_depth=2).filter(compilable)  # Prop 5.2's fragment (no STRICT over π or ALL)


def _first_difference(phi: Formula, psi: Formula, max_length: int, *, sub: bool = False) -> Stream | None:
    preds = tuple(dict.fromkeys(automaton(phi).predicates() + automaton(psi).predicates()))
    alphabet = [witness(m.predicate) for m in minterms(preds)]
    for length in range(1, max_length + 1):
        for events in itertools.product(alphabet, repeat=length):
            s = Stream(events)
            a, b = complex_events(phi, s, length - 1), complex_events(psi, s, length - 1)
            if (not a <= b) if sub else a != b:
                return s
    return None


@st.composite
def pairs(draw: st.DrawFn) -> tuple[Formula, Formula]:
    phi = draw(SMALL)
    kind = draw(st.sampled_from(["or-self", "random", "random"]))
    return (phi, Disj(phi, phi)) if kind == "or-self" else (phi, draw(SMALL))


@settings(max_examples=30, deadline=None)
@given(pairs(), st.booleans())
def test_socel_equivalence_and_containment_are_sound(pair: tuple[Formula, Formula], sub: bool) -> None:
    phi, psi = pair
    v = (contained if sub else equivalent)(phi, psi)
    shown = f"φ = {format(phi)}, ψ = {format(psi)}"
    if v.holds:
        assert _first_difference(phi, psi, 3, sub=sub) is None, f"{shown}: said {v.relation}"
    else:
        a = complex_events(phi, v.stream, v.position)
        b = complex_events(psi, v.stream, v.position)
        assert (v.output in a) != (v.output in b) and (not sub or v.output in a), f"{shown}\n{v}"
        assert _first_difference(phi, psi, min(len(v.stream) - 1, 3), sub=sub) is None, f"{shown}: not shortest"


def test_socel_oracles() -> None:
    assert equivalent("R ; (T ; R)", "(R ; T) ; R").holds
    assert contained("R:+", "R+").holds and not contained("R+", "R:+").holds
    v = equivalent("R ; T", "R : T")
    assert len(v.stream) == 3 and v.output.to_json() == {"R": [0], "T": [2]}


def test_socel_binary_filters_are_unsupported() -> None:
    with pytest.raises(UnsupportedError, match="more than one label"):
        equivalent("(R IN A ; T IN B) FILTER A.x != B.x", "R ; T")
