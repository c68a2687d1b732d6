"""The SO-CEL paper, Thm 6.5 part 1 (``:`` ⇒ STRICT): the rewriting removes every ``:``, keeps the outputs on every
stream (also with binary and order-aware SO filters, which the theorem allows), and refuses ``⊕``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import Event, Stream
from cer_theory.formalisms.socel.ast import Contig
from cer_theory.formalisms.socel.compile import strict_to_contiguity
from cer_theory.formalisms.socel.contiguity import contiguity_to_strict, rename_condition
from cer_theory.formalisms.socel.parser import parse
from cer_theory.formalisms.socel.printer import format
from cer_theory.formalisms.socel.semantics import evaluate
from cer_theory.testing.strategies.socel import CORE_OPERATORS, formulas, socel_streams


def test_the_base_case_is_strict_sequencing() -> None:
    assert format(contiguity_to_strict(parse("R : T"))) == "STRICT(R ; T)"
    assert format(contiguity_to_strict(parse("(R ; T) : T"))) == "R ; STRICT(T ; T)"
    assert format(contiguity_to_strict(parse("R+ : T"))) == "STRICT(R ; T) OR (R+ ; STRICT(R ; T))"


@pytest.mark.parametrize("text", [
    "((R IN A ; T) FILTER A[x > 0]) : R",
    "((R IN A)+ FILTER A[x > 0]) : (T IN A)",
    "(R ; T IN B)[B -> A] : (R IN A)",
    "((R IN A FILTER A[x = 1]) IN A) : T",
    "((R ; T) FILTER R.x != T.x) : (R ; (T FILTER T[x = 1])+)",
    "((T ; R)+ FILTER incr(R.x)) IN R : R",
])
def test_filters_renamings_and_in_on_every_stream_up_to_length_5(text: str) -> None:
    """Exhaustive over the words of length ≤ 5 on R/T with two value patterns: the fresh labels of the filter and
    renaming rules never leak into an output and never capture the other operand's labels."""
    phi = parse(text)
    psi = contiguity_to_strict(phi)
    assert not any(isinstance(n, Contig) for n in psi.walk())
    for n in range(1, 6):
        for k in range(2 ** n):
            word = ["RT"[(k >> i) & 1] for i in range(n)]
            for xs in ([0] * n, [i % 2 for i in range(n)], list(range(n))):
                s = Stream([Event(t, x=v) for t, v in zip(word, xs)])
                assert evaluate(psi, s) == evaluate(phi, s), (text, word, xs)


@settings(max_examples=120, deadline=None)
@given(formulas(CORE_OPERATORS + ("contig", "strict"), max_depth=3, unary=False), socel_streams(6))
def test_random_formulas_keep_their_outputs(phi, stream) -> None:
    psi = contiguity_to_strict(phi)
    assert not any(isinstance(n, Contig) for n in psi.walk())
    assert evaluate(psi, stream) == evaluate(phi, stream)


@settings(max_examples=60, deadline=None)
@given(formulas(CORE_OPERATORS + ("contig",), max_depth=3), socel_streams(5))
def test_round_trip_through_prop_6_4(phi, stream) -> None:
    """Prop 6.4 then Thm 6.5 part 1: ``:`` → STRICT → ``:``/``⊕`` keeps the outputs."""
    assert evaluate(strict_to_contiguity(contiguity_to_strict(phi)), stream) == evaluate(phi, stream)


def test_outside_the_theorem_is_refused() -> None:
    with pytest.raises(UnsupportedError, match="CPlus is outside it"):
        contiguity_to_strict(parse("R:+ ; T"))
    with pytest.raises(UnsupportedError, match="Proj is outside it"):
        contiguity_to_strict(parse("PI[R](R : T)"))


def test_rename_condition_reads_the_new_labels() -> None:
    cond = parse("R FILTER A.x != B.x").condition  # type: ignore[attr-defined]
    assert rename_condition(cond, {"A": "D"}).text() == "D.x != B.x"
    order = parse("R FILTER incr(A.x)").condition  # type: ignore[attr-defined]
    assert rename_condition(order, {"A": "D"}).text() == "incr(D.x)"
