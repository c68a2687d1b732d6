"""ACEL's concrete syntax (docs/acel-syntax.md): parse, print, round trip, readable errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from cer_theory.core.errors import SyntaxErrorCER
from cer_theory.core.predicates.ast import Attr, Cmp, Const
from cer_theory.formalisms.acel.ast import (Agg, AggSpec, As, Atom, AttrProj, CPlus, Filter, Multiset, Disj, Plus,
                                            Proj, Seq)
from cer_theory.formalisms.acel.parser import parse
from cer_theory.formalisms.acel.printer import format
from cer_theory.testing.strategies.acel import printable


def test_every_operator_parses_to_its_node() -> None:
    phi = parse("AGG M[MAX <- max(intel.price), n ← count(intel.price)]((SELL AS msft ; SELL+ AS intel) "
                "FILTER msft.price > 100)")
    assert isinstance(phi, Agg) and phi.target == "M"
    assert phi.specs == (AggSpec("MAX", "max", "intel", "price"), AggSpec("n", "count", "intel", "price"))
    body = phi.body
    assert isinstance(body, Filter) and body.condition == Cmp(Attr("price", "msft"), ">", Const(100))
    assert body.body == Seq(As(Atom("SELL"), "msft"), As(Plus(Atom("SELL")), "intel"))
    assert parse("PI[X(a, type)](R AS X)") == AttrProj(As(Atom("R"), "X"), "X", ("a", "type"))
    assert parse("π[X](R:+ OR T⊕)") == Proj(Disj(CPlus(Atom("R")), CPlus(Atom("T"))), ("X",))
    assert parse("PI[](R)") == Proj(Atom("R"), ())
    assert parse("R IN X") == parse("R AS X")
    assert parse("R FILTER X[a]").condition == Multiset("equal", "X", "a")  # type: ignore[attr-defined]
    assert parse("R FILTER increasing(X.a)").condition == Multiset("increasing", "X", "a")  # type: ignore
    assert parse("R FILTER decreasing(X.a)").condition == Multiset("decreasing", "X", "a")  # type: ignore


def test_printing_is_canonical_ascii_or_unicode() -> None:
    phi = parse("AGG Y[b ← sum(X.a)](PI[X](R:+ ; T))")
    assert format(phi) == "AGG Y[b <- sum(X.a)](PI[X](R:+ ; T))"
    assert format(phi, unicode=True) == "AGG Y[b ← sum(X.a)](π[X](R⊕ ; T))"
    assert str(parse("R ; (T ; U)")) == "R ; (T ; U)" and repr(parse("R")) == "acel('R')"


@settings(max_examples=100)
@given(printable())
def test_print_parse_round_trip(phi) -> None:
    """``parse(format(φ)) = φ`` in both spellings, on generated formulas over every operator."""
    for text in (format(phi), format(phi, unicode=True)):
        assert parse(text) == phi, f"{text!r} parsed to {parse(text)!r}, not {phi!r}"


@pytest.mark.parametrize("text, message", [
    ("R ; ", r"line 1, column 4: unexpected end of input; expected a formula \(a relation name, '\(', '\[', PI, AGG\)"),
    ("AGG Y[b <- median(X.a)](R)", r"column 12: unknown aggregate 'median'; known: avg, count, max, min, range, sum"),
    ("AGG Y[b = sum(X.a)](R)", r"unexpected '='.*expected .*'<-'"),
    ("R FILTER R.x = T.x", r"ACEL filters are unary .* R.x = T.x reads 2 variables"),
    ("R FILTER rising(X.a)", r"unknown multiset predicate 'rising'; expected increasing or decreasing"),
    ("AGG Y[b <- sum(X.a), b <- max(X.a)](R)", r"names an output attribute twice: b, b"),
])
def test_syntax_errors_name_the_place_and_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(SyntaxErrorCER, match=message) as info:
        parse(text)
    assert info.value.line == 1 and info.value.column >= 1
