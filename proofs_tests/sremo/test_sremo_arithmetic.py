"""Arithmetic in SREMO's conditions (the toolkit's one condition grammar, read as in CEL and CEQL): worked oracles,
the printer's round trip, and the SRT paper's Thm. 27 and Alg. 1 on generated expressions whose conditions
compare arithmetic terms over the head and the registers."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sremo_oracles import as_dict

from cer_theory.core.errors import SyntaxErrorCER
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import Arith, Attr, Cmp, Const
from cer_theory.formalisms.cel.parser import parse_predicate
from cer_theory.formalisms.sremo.ast import Concat, Cond
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.epsilon import eliminate_epsilon
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.printer import format
from cer_theory.formalisms.sremo.semantics import match, streaming_matches
from cer_theory.formalisms.sremo.srt import recognize
from cer_theory.testing.strategies.sremo import expressions, streams, windowed

DOUBLED = '<type = "B"> -> r1 . [TRUE]* . <type = "S" AND price > r1.price * 2>'
PRICES = [Event("B", price=10), Event("B", price=30), Event("S", price=50), Event("S", price=70)]


def test_oracle_a_sell_above_twice_a_buy():
    """S@2 (50) is above twice B@0 (20) but not twice B@1 (60); S@3 (70) is above both."""
    e = parse(DOUBLED)
    assert as_dict(streaming_matches(e, PRICES)) == {2: {(0, 2)}, 3: {(0, 3), (1, 3)}}
    assert match(e, PRICES) == {frozenset({0, 3})}  # the pure reading: matches ending at the last event
    assert compile_automaton(e).match(PRICES) == match(e, PRICES)


def test_oracle_differences_and_negative_constants():
    """``price - r1.price >= -5``: a drop of at most 5 from the stored price (10 → 6 is a drop of 4; → 3 of 7)."""
    e = parse("<TRUE> -> r1 . <price - r1.price >= -5>")
    s = [Event("A", price=10), Event("A", price=6), Event("A", price=3)]
    assert as_dict(streaming_matches(e, s)) == {1: {(0, 1)}, 2: {(1, 2)}}


def test_precedence_and_signs_read_as_in_cel():
    """``*`` ``/`` bind tighter than ``+`` ``-``, all to the left, a unary minus tightest: the same predicate as
    CEL's parser reads from the same text (``r1.price`` is CEL's qualified attribute)."""
    text = "price - 2 * r1.price / 4 + -1 > -(price - 1)"
    (cond,) = [parse(f"<{text}>")]
    assert cond.guard == parse_predicate(text)
    x, r = Attr("price"), Attr("price", "r1")
    left = Arith("+", Arith("-", x, Arith("/", Arith("*", Const(2), r), Const(4))), Const(-1))
    assert cond.guard == Cmp(left, ">", Arith("-", Const(0), Arith("-", x, Const(1))))


def test_angle_brackets_around_arithmetic_comparisons():
    """``>`` after a left term is a comparison; after a right term it closes ``<φ>``, parentheses or not."""
    assert parse("<(x + 1) > 2>") == Cond(Cmp(Arith("+", Attr("x"), Const(1)), ">", Const(2)))
    assert parse("<x > 1 + 2> . [x * 2 < 3]") == Concat(Cond(Cmp(Attr("x"), ">", Arith("+", Const(1), Const(2)))),
                                                         Cond(Cmp(Arith("*", Attr("x"), Const(2)), "<", Const(3)),
                                                              False))


@pytest.mark.parametrize("text, column", [("<1 + 2 > 3>", 10), ("<x + > 1>", 6)])
def test_arithmetic_errors_name_the_place(text, column):
    with pytest.raises(SyntaxErrorCER) as info:
        parse(text)
    assert info.value.line == 1 and info.value.column == column, str(info.value)


@settings(max_examples=100)
@given(expressions(5, arithmetic=True))
def test_printer_round_trip_with_arithmetic(e):
    """parse(format(e)) == e when conditions compare arithmetic terms."""
    assert parse(format(e)) == e


@settings(max_examples=80)
@given(expressions(4, arithmetic=True), streams(5))
def test_theorem_27_sremo_equals_srt_with_arithmetic_conditions(e, s):
    """Thm. 27: Match(e, S) = Match(T, S), with and without ε-transitions, when conditions hold arithmetic."""
    t = compile_automaton(e)
    want = match(e, s)
    assert t.match(s) == want
    assert eliminate_epsilon(t).match(s) == want


@settings(max_examples=60)
@given(st.one_of(expressions(4, arithmetic=True), windowed(3, arithmetic=True)), streams(5), st.booleans())
def test_alg_1_recognizer_equals_streaming_semantics_with_arithmetic(e, s, pure):
    """Alg. 1 (with the P7 fix) = Def. 32 when conditions hold arithmetic."""
    want = as_dict(streaming_matches(e, s, pure=pure))
    assert as_dict(recognize(compile_automaton(e), s, pure=pure)) == want
