"""UCEA (the SO-CEL paper §4): runs from position 0 reading every tuple, *-runs, I/O-determinism, immutability, views."""

from __future__ import annotations

import pytest

from cer_theory.core.errors import AutomatonError
from cer_theory.core.events import Stream, Valuation
from cer_theory.core.predicates.ast import TRUE, Attr, Cmp, Const, IsType
from cer_theory.formalisms.socel.compile import compile_automaton
from cer_theory.formalisms.socel.examples import fig2_ucea
from cer_theory.formalisms.socel.parser import parse
from cer_theory.formalisms.socel.ucea import UCEA, transition

R, T = IsType("R"), IsType("T")


def test_fig2_outputs_R_at_the_position_of_a_later_T() -> None:
    """§8: on R H T, Fig. 2's UCEA outputs {R↦{0}} at n=2 and nothing earlier; its *-semantics outputs nothing
    (the last *-transition must mark, and T is read unmarked)."""
    a = fig2_ucea()
    s = Stream.from_types("R H T")
    assert a.run(s) == [frozenset(), frozenset(), frozenset({Valuation({"R": [0]})})]
    assert a.star_run(s) == [frozenset()] * 3
    assert a.accepts(s, 2, Valuation({"R": [0]})) and not a.star_accepts(s, 2, Valuation({"R": [0]}))


def test_runs_read_every_tuple_but_star_runs_skip() -> None:
    # q0 -R/{A}-> q1 -T/{B}-> q2: no loops, so the runs see only the prefix R T; *-runs skip freely.
    a = UCEA({0, 1, 2}, [transition(0, R, {"A"}, 1), transition(1, T, {"B"}, 2)], {0}, {2})
    s = Stream.from_types("R U T")
    assert a.run(s)[2] == frozenset()
    assert a.star_run(s)[2] == {Valuation({"A": [0], "B": [2]})}
    assert a.run(Stream.from_types("R T"))[1] == {Valuation({"A": [0], "B": [1]})}


def test_ucea_may_output_the_trivial_complex_event() -> None:
    a = UCEA({0}, [transition(0, TRUE, (), 0)], {0}, {0})
    assert a.run(Stream.from_types("R T")) == [frozenset({Valuation()})] * 2
    assert a.star_run(Stream.from_types("R T")) == [frozenset()] * 2


def test_io_determinism() -> None:
    det = UCEA({0, 1}, [transition(0, R, {"A"}, 1), transition(0, T, {"A"}, 0), transition(0, R, (), 0)], {0}, {1})
    assert det.is_io_deterministic()
    assert not fig2_ucea().is_io_deterministic()  # TRUE/∅ and T/∅ leave q1
    x = Cmp(Attr("x"), ">", Const(1))
    overlap = UCEA({0, 1}, [transition(0, x, {"A"}, 1), transition(0, R, {"A"}, 0)], {0}, {1})
    assert len(overlap.io_determinism_violations()) == 1


def test_validated_frozen_and_printable() -> None:
    with pytest.raises(AutomatonError, match="unknown state"):
        UCEA({0}, [transition(0, R, {"A"}, 1)], {0}, {0})
    with pytest.raises(AutomatonError, match="unary"):
        UCEA({0}, [transition(0, Cmp(Attr("x", "A"), ">", Const(1)), {"A"}, 0)], {0}, {0})
    a = fig2_ucea()
    with pytest.raises(AttributeError):
        a.final = frozenset()
    assert repr(a) == "UCEA(Fig. 2: 3 states, 4 transitions)"
    assert "  q1 --T / ∅--> q2" in a.describe()
    dot = a.to_dot()
    assert "doublecircle" in dot and "R / {R}" in dot
    assert a.relabel_states() != a and isinstance(a.trim(), UCEA)
    assert UCEA.of(a) == a and hash(UCEA.of(a)) == hash(a)


def test_a_ucea_draws_in_jupyter_like_a_cea() -> None:
    """The SO-CEL paper §4's UCEA is a CEA (D38), so it inherits the drawing: Jupyter gets the SVG and the text form,
    and the text form names the class (the repr of a UCEA, not of a CEA)."""
    a = compile_automaton(parse("(R IN A ; T) FILTER A.value < 0"))
    bundle = a._repr_mimebundle_()
    assert set(bundle) == {"image/svg+xml", "text/plain"}
    svg = bundle["image/svg+xml"]
    assert "<svg" in svg and "R ∧ value&lt;0 / {A,R}" in svg and "value&lt;0" in svg
    text = bundle["text/plain"]
    assert text == a.describe() and text.startswith("UCEA(") and "--T / {T}-->" in text
    assert fig2_ucea()._repr_mimebundle_(include=["text/plain"]) == {"text/plain": fig2_ucea().describe()}
