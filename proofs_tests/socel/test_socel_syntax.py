"""SO-CEL(+) concrete syntax (the SO-CEL paper §2, §2.1; CEL's syntax of docs/cel-syntax.md plus renaming and incr/decr):
parse/print round trips, precedence, and errors that name line and column."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from cer_theory.core.errors import PredicateError, SyntaxErrorCER
from cer_theory.core.predicates.ast import Attr, Cmp, Const, IsType, On
from cer_theory.formalisms.socel.ast import (Atom, CPlus, Disj, Filter, Formula, In, Order, Plus, Proj, Rename, Seq,
                                             Strict, is_core, is_plus, is_unary)
from cer_theory.formalisms.socel.parser import parse
from cer_theory.formalisms.socel.printer import format
from cer_theory.testing.strategies.socel import formulas

R, T = Atom("R"), Atom("T")


@settings(max_examples=150)
@given(formulas(unary=False, max_depth=4))
def test_print_then_parse_is_the_identity(phi: Formula) -> None:
    assert parse(format(phi)) == phi
    assert parse(format(phi, unicode=True)) == phi
    assert repr(phi).startswith(type(phi).__name__ + "(")


def test_precedence_and_renaming_postfix() -> None:
    assert parse("R ; T+ IN A") == Seq(R, In(Plus(T), "A"))
    assert parse("R+[A -> B] IN C") == In(Rename(Plus(R), "A", "B"), "C")
    assert parse("R[A → B]:+") == CPlus(Rename(R, "A", "B"))
    assert parse("[R OR T][R->T]") == Rename(Disj(R, T), "R", "T")
    assert parse("STRICT(R ; T)") == Strict(Seq(R, T))
    assert parse("π[B,A](R)") == Proj(R, ("A", "B"))


def test_conditions_reuse_cel_syntax_and_add_order_predicates() -> None:
    f = parse("R FILTER R[x > 1] FILTER incr(R.x) FILTER R.type = \"R\"")
    assert f == Filter(Filter(Filter(R, On("R", Cmp(Attr("x"), ">", Const(1)))), Order("incr", "R", "x")),
                       IsType("R", "R"))
    assert parse("R FILTER decr(A.y)").condition == Order("decr", "A", "y")


def test_fragments() -> None:
    assert is_core(parse("(R IN A)[A -> B] FILTER B.x > 1 OR T+"))
    assert not is_core(parse("R : T")) and is_plus(parse("START(PI[R](R : T:+))"))
    assert not is_plus(parse("STRICT(R)"))
    assert is_unary(parse("R FILTER (R.x > 1 AND T[x < 2])"))
    assert not is_unary(parse("R FILTER R.x = T.x")) and not is_unary(parse("R FILTER incr(R.x)"))


@pytest.mark.parametrize("text, line, column, words", [
    ("R ;", 1, 4, "expected a formula"),
    ("R[A B]", 1, 5, "'->'"),
    ("R FILTER foo(A.x)", 1, 10, "unknown SO predicate 'foo'"),
    ("R ;\n  T FILTER incr(A)", 2, 18, "unexpected ')'"),
    ("(R", 1, 3, "end of input"),
    ("", 1, 1, "empty input"),
    ("NXT(R)", 1, 1, "expected a formula"),
])
def test_syntax_errors_name_line_and_column(text: str, line: int, column: int, words: str) -> None:
    with pytest.raises(SyntaxErrorCER) as err:
        parse(text)
    assert (err.value.line, err.value.column) == (line, column)
    assert words in str(err.value)


def test_bad_nodes_are_refused_with_a_specific_error() -> None:
    with pytest.raises(PredicateError, match="unqualified"):
        Filter(R, Cmp(Attr("x"), ">", Const(1)))
    with pytest.raises(PredicateError, match="incr or decr"):
        Order("up", "A", "x")
    with pytest.raises(PredicateError, match="non-empty name"):
        Rename(R, "", "B")
