"""Conditions over registers (the SRT paper §3.1–3.2, Defs. 10, 12, 13) and the register store."""

import pytest
from hypothesis import given, settings

from cer_theory.automata.registers import EMPTY, Valuation
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import TRUE, Attr, Cmp, IsType, conj, neg
from cer_theory.core.predicates.registers import (compiled, condition_satisfiable, is_unary_condition, registers_read,
                                                  satisfies, with_def_flags)
from cer_theory.core.predicates.solver import minterms
from cer_theory.testing.strategies.sremo import conditions, events, valuations

EQ_ID = Cmp(Attr("id"), "=", Attr("id", "r1"))
B1, S1, S2 = Event("B", id=1), Event("S", id=1), Event("S", id=2)


def test_def_12_write_is_functional_update():
    v = EMPTY.write(["r1", "r2"], B1)
    assert v["r1"] == v["r2"] == B1 and EMPTY == Valuation() and not EMPTY.defined("r1")
    assert v.write(["r1"], S1)["r1"] == S1 and v["r1"] == B1  # v unchanged
    assert v.write([], S1) is v
    assert repr(EMPTY) == "#" and "r1" in repr(v)
    with pytest.raises(AttributeError):
        v.x = 1  # type: ignore[attr-defined]


def test_def_13_atom_reading_an_empty_register_is_false_and_its_negation_true():
    assert not satisfies(EQ_ID, S1, EMPTY)
    assert satisfies(neg(EQ_ID), S1, EMPTY)
    assert satisfies(EQ_ID, S1, EMPTY.write(["r1"], B1))
    assert not satisfies(EQ_ID, S2, EMPTY.write(["r1"], B1))
    assert satisfies(TRUE, S1, EMPTY)


def test_def_10_unary_and_nary_conditions():
    assert is_unary_condition(IsType("B")) and not is_unary_condition(EQ_ID)
    assert registers_read(conj(IsType("S"), EQ_ID)) == {"r1"}


@settings(max_examples=150)
@given(conditions(), events(), valuations())
def test_def_13_connectives_are_classical(p, u, v):
    assert satisfies(neg(p), u, v) == (not satisfies(p, u, v))


@settings(max_examples=150)
@given(conditions(), events(), valuations())
def test_def_13_agrees_with_plain_evaluation_when_registers_are_defined(p, u, v):
    """On a valuation defining every register the condition reads, Def. 13 is the toolkit's evaluation."""
    if all(v.get(r) is not None for r in registers_read(p)):
        env = {None: u, **{r: v[r] for r in registers_read(p)}}
        assert satisfies(p, u, v) == p.holds(env)


@settings(max_examples=60)
@given(conditions(), events(), valuations())
def test_def_flag_encoding_is_sound(p, u, v):
    """Whatever satisfies a condition on concrete data makes its Z3 encoding (with def flags) satisfiable."""
    if satisfies(p, u, v):
        assert condition_satisfiable(p)


def test_def_flag_encoding_on_the_spec_minterm_examples():
    """Minterms of {⊤, isB(~)} leave 2 cells; of {isB(~), ⊤, isS(~) ∧ EqId(~, r1)} leave 3 (isB ∧ isS unsat)."""
    assert len(minterms([TRUE, IsType("B")])) == 2
    preds = [IsType("B"), TRUE, with_def_flags(conj(IsType("S"), EQ_ID))]
    assert len(minterms(preds)) == 3


def test_def_flag_makes_an_empty_register_atom_false_in_z3():
    """``¬EqId ∧ EqId`` is unsat; ``¬EqId`` alone is sat (e.g. r1 empty), as is ``EqId`` (r1 defined)."""
    assert not condition_satisfiable(conj(EQ_ID, neg(EQ_ID)))
    assert condition_satisfiable(neg(EQ_ID)) and condition_satisfiable(EQ_ID)


@settings(max_examples=150)
@given(conditions(), events(), valuations())
def test_compiled_conditions_equal_def_13(p, u, v):
    """The recognizer's compiled closures are the satisfaction relation of Def. 13."""
    assert compiled(p)(u, v) == satisfies(p, u, v)
