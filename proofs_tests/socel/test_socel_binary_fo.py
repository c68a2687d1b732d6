"""Seed 004, Thm 4.5 (binary FO-CEL → SO-CEL) for formulas whose variables are bound once: the supports of the
SO-CEL outputs are the FO-CEL matches, exhaustively on short streams; the cases outside the translation are
refused by name."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import Event, Stream
from cer_theory.core.predicates.ast import Arith, Attr, Cmp
from cer_theory.formalisms.socel.binary_fo import binary_fo_to_socel
from cer_theory.formalisms.socel.evaluators import parse_fo
from cer_theory.formalisms.socel.focel import (Bind, FoFilter, FoPlus, FoSeq, UnsafeFormulaError, from_socel,
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
    assert format(psi) == "H IN x ; (T IN y)+ FILTER y.id = x.id"


@settings(max_examples=80, deadline=None)
@given(fo_formulas(), socel_streams(5))
def test_unary_formulas_with_distinct_variables(phi, stream) -> None:
    assert supports(binary_fo_to_socel(phi), stream) == fo_run(phi, stream)


def test_a_variable_bound_twice_is_refused() -> None:
    with pytest.raises(UnsupportedError, match="variable 'x' is bound twice"):
        binary_fo_to_socel(parse_fo("R AS x ; T AS x"))


def test_a_filter_above_an_or_is_refused() -> None:
    with pytest.raises(UnsupportedError, match="does not lift filters above an OR"):
        binary_fo_to_socel(parse_fo("H AS x ; ((T AS y FILTER y.id = x.id) OR T AS z)"))


def test_an_unsafe_formula_is_refused_naming_the_variable() -> None:
    with pytest.raises(UnsafeFormulaError, match="variable 'y'"):
        binary_fo_to_socel(from_socel(parse("(R AS x) FILTER y.a = 1")))


def test_the_ternary_witness_of_thm_4_6_is_refused() -> None:
    pair_sums_to_x = Cmp(Arith("+", Attr("a", "y"), Attr("a", "z")), "=", Attr("a", "x"))
    witness = FoSeq(Bind("R", "x"), FoPlus(FoFilter(FoSeq(Bind("S", "y"), Bind("S", "z")), pair_sums_to_x)))
    with pytest.raises(UnsupportedError, match="relates 3 variables.*Thm 4.6"):
        binary_fo_to_socel(witness)
