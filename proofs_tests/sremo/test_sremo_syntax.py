"""The ASCII syntax of SREMO: parsing as written in the issue, precedence, errors with line/column, and the
printer's round trip."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sremo_oracles import E1, E2, E4, SEQ3, THM38

from cer_theory.core.errors import SyntaxErrorCER, UnsupportedError
from cer_theory.core.predicates.ast import Attr, Cmp, Const, IsType, Like, conj
from cer_theory.formalisms.sremo.ast import (EMPTY, EPS, Any, Complement, Concat, Cond, Inter, Next, Plus, Star,
                                             Union, Window)
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.printer import display, format
from cer_theory.testing.strategies.sremo import expressions


def c(n, marked=True, writes=()):
    return Cond(Cmp(Attr("x"), "=", Const(n)), marked, writes)


def test_the_issue_example_e1():
    e = parse(E1)
    b = Cond(IsType("B"), True, ("r1",))
    s = Cond(conj(IsType("S"), Cmp(Attr("id"), "=", Attr("id", "r1"))))
    assert e == Concat(Concat(b, Star(Cond(conj(), False))), s)


def test_precedence_postfix_then_dot_then_amp_then_bar():
    assert parse("<x = 1> | <x = 2> & <x = 3> . <x = 4>*") == \
        Union(c(1), Inter(c(2), Concat(c(3), Star(c(4)))))
    assert parse("<x = 1> . <x = 2> . <x = 3>") == Concat(Concat(c(1), c(2)), c(3))
    assert parse("(<x = 1> . <x = 2>)+*") == Star(Plus(Concat(c(1), c(2))))
    assert parse("(!<x = 1> . <x = 2>) WITHIN 3") == Window(Concat(Complement(c(1)), c(2)), 3)


def test_angle_brackets_and_comparisons_do_not_clash():
    assert parse("<x > 1>") == Cond(Cmp(Attr("x"), ">", Const(1)))
    assert parse("<1 < x>") == Cond(Cmp(Attr("x"), ">", Const(1)))
    assert parse("<x >= r1.x> -> r2") == Cond(Cmp(Attr("x"), ">=", Attr("x", "r1")), True, ("r2",))
    assert parse("[x != 1].<x = 1.5>") == Concat(Cond(Cmp(Attr("x"), "!=", Const(1)), False), 
                                                  Cond(Cmp(Attr("x"), "=", Const(1.5))))


def test_writes_inside_any_with_and_without_parentheses():
    """`ANY((<type = "INTC"> -> r1), <type = "RIMM">)` as in the issue, and without the parentheses."""
    want = Any((Cond(IsType("INTC"), True, ("r1",)), Cond(IsType("RIMM"))))
    assert parse('ANY((<type = "INTC"> -> r1), <type = "RIMM">)') == want
    assert parse('ANY(<type = "INTC"> -> r1, <type = "RIMM">)') == want
    assert parse('ANY(<type = "INTC"> -> r1, r2, EPS)') == Any((Cond(IsType("INTC"), True, ("r1", "r2")), EPS))
    assert parse("NEXT(<x = 1>, [x = 2])") == Next((c(1), c(2, False)))


def test_keywords_and_empty():
    assert parse("EPS | EMPTY") == Union(EPS, EMPTY)
    assert parse("[TRUE AND NOT FALSE]") == Cond(conj(), False)


@pytest.mark.parametrize("text, line, column, found", [
    ("<x = 1", 1, 7, "unexpected end of input"),
    ("<x 1>", 1, 4, "unexpected '1'"),
    ("", 1, 1, "empty input"),
    ("<x = 1> .\n  <x = 2> )", 2, 11, "unexpected ')'"),
    ("<x = 1> $", 1, 9, "unexpected character '$'"),
    ('<s = "ab>', 1, 6, "unterminated string"),
    ("(<x = 1>) WITHIN 0", 1, 1, "positive integer"),
    ("!<x = 1>", 1, 1, "only inside a window"),
])
def test_syntax_errors_name_line_and_column(text, line, column, found):
    with pytest.raises(SyntaxErrorCER) as info:
        parse(text)
    assert (info.value.line, info.value.column) == (line, column)
    assert found in str(info.value)


def test_parse_rejects_non_text():
    with pytest.raises(SyntaxErrorCER):
        parse(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", [E1, E2, E4, SEQ3, THM38, f"({E1}) WITHIN 4", "(!<x = 1> . <x = 2>*) WITHIN 3",
                                  "NEXT(<x = 1> -> r1, [x = r1.x])", "((<x = 1>) WITHIN 2)*"])
def test_printer_round_trip_on_the_paper_patterns(text):
    e = parse(text)
    assert parse(format(e)) == e
    assert display(e)


@settings(max_examples=100)
@given(st.one_of(expressions(6), expressions(4).map(lambda e: Window(Concat(Complement(e), c(1)), 3)),
                 expressions(4).map(lambda e: Star(Window(e, 2)))))
def test_printer_round_trip(e):
    """parse(format(e)) == e, with the fewest parentheses."""
    assert parse(format(e)) == e


def test_printer_refuses_conditions_without_syntax():
    with pytest.raises(UnsupportedError, match="no SREMO syntax"):
        format(Cond(Like(Attr("s"), "a.*")))
    assert display(Cond(IsType("B"), True, ("r1",))) == "(B)↑•↓r1"
