"""The SO-CEL paper, Thm 4.5 (binary FO-CEL → SO-CEL) for formulas whose variables are bound once: the supports of the
SO-CEL outputs are the FO-CEL matches, exhaustively on short streams; the cases outside the translation are
refused by name."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import Event, Stream
from cer_theory.core.predicates.ast import Arith, Attr, Cmp, Const
from cer_theory.formalisms.socel.binary_fo import binary_fo_to_socel
from cer_theory.formalisms.socel.evaluators import parse_fo
from cer_theory.formalisms.socel.focel import (Bind, FoFilter, FoOr, FoPlus, FoSeq, UnsafeFormulaError, from_socel,
                                               run as fo_run)
from cer_theory.formalisms.socel.parser import parse
from cer_theory.formalisms.socel.printer import format
from cer_theory.formalisms.socel.semantics import evaluate
from cer_theory.testing.strategies.socel import fo_formulas, socel_streams


def supports(phi, stream):
    return [frozenset(c.support() for c in out) for out in evaluate(phi, stream)]


@pytest.mark.parametrize("text", [
    "H AS x ; (T AS y FILTER y.id = x.id)+",  # Example 4.1's shape: an outer variable inside the iteration
    "(H AS x ; T AS y) FILTER x.id != y.id",
    "H AS x ; (T AS y)+ ; H AS z FILTER z.id = x.id",
    "H AS x ; ((T AS y ; H AS z) FILTER (y.id = z.id AND x.id = 1))+",
    "(H AS x OR T AS y) ; H AS z FILTER z.id = 0",
    "(H AS x ; T AS y FILTER x.id < y.id)+ ; T AS w",
])
def test_matches_are_the_supports_on_every_stream_up_to_length_5(text: str) -> None:
    phi = parse_fo(text)
    psi = binary_fo_to_socel(phi)
    for n in range(1, 6):
        for word in itertools.product("HT", repeat=n):
            for ids in ([0] * n, [k % 2 for k in range(n)], list(range(n))):
                s = Stream([Event(t, id=v) for t, v in zip(word, ids)])
                assert supports(psi, s) == fo_run(phi, s), (text, word, ids)


def test_a_filter_on_an_outer_variable_is_lifted_to_where_it_is_bound() -> None:
    psi = binary_fo_to_socel(parse_fo("H AS x ; (T AS y FILTER y.id = x.id)+"))
    assert format(psi) == "(H IN x ; (T IN y)+) FILTER y.id = x.id"


@settings(max_examples=80, deadline=None)
@given(fo_formulas(), socel_streams(5))
def test_unary_formulas_with_distinct_variables(phi, stream) -> None:
    assert supports(binary_fo_to_socel(phi), stream) == fo_run(phi, stream)


def test_a_variable_bound_twice_is_refused() -> None:
    with pytest.raises(UnsupportedError, match="variable 'x' is bound twice"):
        binary_fo_to_socel(parse_fo("R AS x ; T AS x"))


OR_CASES = [
    "H AS x ; ((T AS y FILTER y.id = x.id) OR T AS z)",  # a binary filter on the branch's own variable
    "H AS x ; ((T AS y FILTER x.id = 1) OR T AS z)",  # a filter on outer variables only: the case split matters
    "H AS x ; ((T AS y FILTER x.id = 1) OR (H AS z FILTER z.id != x.id))+",
    "(H AS x ; T AS w) ; ((T AS y FILTER x.id < w.id) OR (H AS z ; T AS u FILTER u.id = x.id))",
    "H AS x ; (((T AS y FILTER x.id = 0) OR T AS z) ; ((H AS v FILTER v.id = x.id) OR T AS u))+",
]


@pytest.mark.parametrize("text", OR_CASES)
def test_thm_4_5_filter_above_an_or_by_cases_on_every_short_stream(text: str) -> None:
    """Step 2 of Thm 4.5's proof: a filter lifted above an OR splits into the case where it is needed and the
    case where the other branch is taken (docs/decisions.md D62); exhaustive on streams up to length 5."""
    phi = parse_fo(text)
    psi = binary_fo_to_socel(phi)
    for n in range(1, 6):
        for word in itertools.product("HT", repeat=n):
            for ids in ([0] * n, [k % 2 for k in range(n)], [1 - k % 2 for k in range(n)]):
                s = Stream([Event(t, id=v) for t, v in zip(word, ids)])
                assert supports(psi, s) == fo_run(phi, s), (text, format(psi), word, ids)


def test_the_case_split_keeps_the_filter_off_the_other_branch() -> None:
    psi = binary_fo_to_socel(parse_fo("H AS x ; ((T AS y FILTER x.id = 1) OR T AS z)"))
    assert format(psi) == "((H IN x ; (T IN y OR T IN z)) FILTER x.id = 1) OR (H IN x ; T IN z)"
    assert parse(format(psi)) == psi
    s = Stream([Event("H", id=0), Event("T", id=0)])
    assert supports(psi, s)[1] == {frozenset({0, 1})}  # through z, with x.id = 0: the filter does not apply


def _surely(phi) -> frozenset[str]:
    if isinstance(phi, Bind):
        return frozenset([phi.var])
    if isinstance(phi, FoFilter):
        return _surely(phi.body)
    if isinstance(phi, FoPlus):
        return frozenset()
    if isinstance(phi, FoOr):
        return _surely(phi.left) & _surely(phi.right)
    return _surely(phi.left) | _surely(phi.right)


@st.composite
def binary_fo_formulas(draw, depth: int = 3):
    """Safe FO-CEL formulas, every variable bound once, with unary and binary filters on any variable surely
    bound where the filter stands (its body's, or an earlier operand's of an enclosing sequence)."""
    fresh = iter(f"v{k}" for k in range(100))

    def gen(d: int, context: frozenset[str]):
        kind = draw(st.sampled_from(["bind"] if d == 0 else ["bind", "seq", "seq", "or", "or", "plus", "filter"]))
        if kind == "bind":
            return Bind(draw(st.sampled_from("HT")), next(fresh))
        if kind == "seq":
            left = gen(d - 1, context)
            return FoSeq(left, gen(d - 1, context | _surely(left)))
        if kind == "or":
            return FoOr(gen(d - 1, context), gen(d - 1, context))
        if kind == "plus":
            return FoPlus(gen(d - 1, context))
        body = gen(d - 1, context)
        available = sorted(_surely(body) | context)
        if not available:
            return body  # e.g. a + body with nothing bound around it: no variable to filter on
        x, y = draw(st.sampled_from(available)), draw(st.sampled_from(available))
        op = draw(st.sampled_from(["=", "!=", "<"]))
        right = Attr("id", y) if x != y and draw(st.booleans()) else Const(draw(st.integers(0, 1)))
        return FoFilter(body, Cmp(Attr("id", x), op, right))

    return gen(depth, frozenset())


@settings(max_examples=60, deadline=None)
@given(binary_fo_formulas(), st.lists(st.builds(lambda t, v: Event(t, id=v), st.sampled_from("HT"),
                                                st.integers(0, 1)), max_size=5))
def test_thm_4_5_on_generated_binary_formulas_with_or(phi, events) -> None:
    """Thm 4.5: the supports of the SO-CEL outputs are the FO-CEL matches, filters above ORs included."""
    psi = binary_fo_to_socel(phi)
    s = Stream(events)
    assert supports(psi, s) == fo_run(phi, s), f"FO: {phi}\nSO: {format(psi)}\nstream: {s!r}"


def test_an_unsafe_formula_is_refused_naming_the_variable() -> None:
    with pytest.raises(UnsafeFormulaError, match="variable 'y'"):
        binary_fo_to_socel(from_socel(parse("(R AS x) FILTER y.a = 1")))


def test_the_ternary_witness_of_thm_4_6_is_refused() -> None:
    pair_sums_to_x = Cmp(Arith("+", Attr("a", "y"), Attr("a", "z")), "=", Attr("a", "x"))
    witness = FoSeq(Bind("R", "x"), FoPlus(FoFilter(FoSeq(Bind("S", "y"), Bind("S", "z")), pair_sums_to_x)))
    with pytest.raises(UnsupportedError, match="relates 3 variables.*Thm 4.6"):
        binary_fo_to_socel(witness)
