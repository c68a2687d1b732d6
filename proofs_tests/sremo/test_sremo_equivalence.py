"""Equivalence and containment of register-free SREMO (the SRT paper): the translated CEA outputs the streaming
matches of Def. 32, so the product search is sound both ways against the reference semantics, exhaustively over
streams of length ≤ 3 of the witness alphabet (≤ 2 past four letters); registers and windows are refused with the reason."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import Stream
from cer_theory.core.predicates.solver import minterms, witness
from cer_theory.formalisms.sremo.ast import Expr, Union
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.equivalence import automaton, contained, equivalent
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.printer import format
from cer_theory.formalisms.sremo.semantics import evaluate
from cer_theory.testing.strategies.sremo import expressions

REGISTER_FREE = expressions(4, registers_allowed=(), windows=False)


def _alphabet(e: Expr, f: Expr) -> list:
    preds = tuple(dict.fromkeys(automaton(e).predicates() + automaton(f).predicates()))
    return [witness(m.predicate) for m in minterms(preds)]


def _first_difference(e: Expr, f: Expr, max_length: int, *, sub: bool = False) -> Stream | None:
    alphabet = _alphabet(e, f)
    if len(alphabet) > 4:  # the brute-force semantics is slow: length 2 over larger alphabets
        max_length = min(max_length, 2)
    for length in range(1, max_length + 1):
        for events in itertools.product(alphabet, repeat=length):
            s = Stream(events)
            a, b = evaluate(e, s)[-1], evaluate(f, s)[-1]
            if (not a <= b) if sub else a != b:
                return s
    return None


@settings(max_examples=20, deadline=None)
@given(REGISTER_FREE, REGISTER_FREE)
def test_translated_cea_outputs_the_streaming_matches(e: Expr, f: Expr) -> None:
    """Def. 32 through the CEA: equal to the semantics on every stream of length ≤ 3 of the alphabet."""
    cea = automaton(e)
    alphabet = _alphabet(e, f)
    for length in range(1, 4):
        for events in itertools.product(alphabet, repeat=length):
            s = Stream(events)
            assert cea.run_complex_events(s) == evaluate(e, s), f"e = {format(e)} on {s!r}"


@settings(max_examples=12, deadline=None)
@given(REGISTER_FREE, REGISTER_FREE)
def test_sremo_equivalence_is_sound_both_ways(e: Expr, f: Expr) -> None:
    for left, right in ((e, f), (e, Union(e, e)), (Union(e, f), Union(f, e))):
        v = equivalent(left, right)
        shown = f"e = {format(left)}, f = {format(right)}"
        if v.holds:
            assert _first_difference(left, right, 3) is None, f"{shown}: said equivalent"
        else:
            a, b = evaluate(left, v.stream)[-1], evaluate(right, v.stream)[-1]
            assert (v.output in a) != (v.output in b), f"{shown}\n{v}"
            assert _first_difference(left, right, min(len(v.stream) - 1, 3)) is None, f"{shown}: not shortest"
        c = contained(left, right)
        assert c.holds or c.in_left


def test_sremo_oracles() -> None:
    a_then_b = '<type = "a"> . <type = "b">'
    a_gap_b = '<type = "a"> . [TRUE]* . <type = "b">'
    assert contained(a_then_b, a_gap_b).holds and not contained(a_gap_b, a_then_b).holds
    v = equivalent(a_gap_b, a_then_b)
    assert [x.type for x in v.stream] == ["a", "a", "b"] and sorted(v.output) == [0, 2]


@pytest.mark.parametrize("text, reason", [
    ('<type = "a"> -> r1 . <x = r1.x>', "registers"),
    ('(<type = "a"> . <type = "b">) WITHIN 2', "window"),
])
def test_registers_and_windows_are_unsupported(text: str, reason: str) -> None:
    assert compile_automaton(parse(text))  # the SRT exists: it is the decision that is refused
    with pytest.raises(UnsupportedError, match=reason):
        equivalent(text, '<type = "a">')
