"""Closure of SRT (the SRT paper Thm. 31 union / concatenation / star, Thm. 34 intersection) on automata with
registers renamed apart (P5), checked against the SREMO semantics."""

import pytest
from hypothesis import given, settings

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import Event
from cer_theory.formalisms.sremo.ast import Concat, Inter, Star, Union, rename_registers
from cer_theory.formalisms.sremo.closure import apart, concatenation, intersection, star, union
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.semantics import match
from cer_theory.testing.strategies.sremo import expressions, streams

E = expressions(3, strategies=False, intersection=False)


def renamed(t1, t2, e2):
    return rename_registers(e2, apart(t1, t2))


@settings(max_examples=80)
@given(E, E, streams(4))
def test_theorem_31_union_and_concatenation(e1, e2, s):
    t1, t2 = compile_automaton(e1, native_window=False), compile_automaton(e2, native_window=False)
    e2r = renamed(t1, t2, e2)
    assert union(t1, t2).match(s) == match(Union(e1, e2r), s)
    assert concatenation(t1, t2).match(s) == match(Concat(e1, e2r), s)


@settings(max_examples=80)
@given(E, streams(4))
def test_theorem_31_star_threads_registers(e, s):
    assert star(compile_automaton(e, native_window=False)).match(s) == match(Star(e), s)


@settings(max_examples=80)
@given(E, E, streams(4))
def test_theorem_34_intersection(e1, e2, s):
    t1, t2 = compile_automaton(e1, native_window=False), compile_automaton(e2, native_window=False)
    e2r = renamed(t1, t2, e2)
    assert intersection(t1, t2).match(s) == match(Inter(e1, e2r), s) == match(e1, s) & match(e2r, s)


def test_p5_renaming_apart_changes_the_meaning_of_shared_registers():
    """P5: the SREMO compiler shares registers (e₂ reads what e₁ wrote); the closure theorems rename apart, so
    the second operand then reads an empty register."""
    t1 = compile_automaton(parse("<x = 1> -> r1"))
    t2 = compile_automaton(parse("<x = r1.x>"))
    s = [Event("a", x=1), Event("a", x=1)]
    assert compile_automaton(parse("<x = 1> -> r1 . <x = r1.x>")).match(s) == {frozenset({0, 1})}
    assert concatenation(t1, t2, rename_apart=False).match(s) == {frozenset({0, 1})}
    assert concatenation(t1, t2).match(s) == frozenset()
    assert apart(t1, t2) == {"r1": "r1_2"}


def test_closure_refuses_operands_with_a_native_window():
    with pytest.raises(UnsupportedError, match="native_window=False"):
        star(compile_automaton(parse("(<x = 1>) WITHIN 2")))
