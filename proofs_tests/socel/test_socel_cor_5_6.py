"""Cor 5.6 (the SO-CEL paper): AND and ALL over unary SO-CEL are eliminated into core SO-CEL; UNLESS is primitive."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import Stream, Valuation
from cer_theory.formalisms.socel.ast import All, Conj, Formula, is_core
from cer_theory.formalisms.socel.corollaries import to_core_socel, unless_is_primitive
from cer_theory.formalisms.socel.parser import parse
from cer_theory.formalisms.socel.semantics import evaluate
from cer_theory.testing.strategies.socel import CORE_OPERATORS, formulas, socel_streams

small = formulas(CORE_OPERATORS, max_depth=1)


@settings(max_examples=20)
@given(small, small, socel_streams(4))
def test_cor_5_6_and_and_all_are_not_primitive(phi: Formula, psi: Formula, stream: Stream) -> None:
    for combined in (Conj(phi, psi), All(phi, psi)):
        core = to_core_socel(combined, ("R", "T", "U"))
        assert is_core(core)
        assert evaluate(core, stream) == evaluate(combined, stream)


def test_cor_5_6_unless_is_primitive_by_its_witness() -> None:
    """R UNLESS T outputs {R↦{1}} at 1 on R R but not on T R although the two agree on the marked event."""
    answer = unless_is_primitive(parse("R"), parse("T"))
    assert not answer.holds and answer.violated_condition == "(b)"
    assert answer.word()[-1] == ("R", frozenset({"R"}))
    with pytest.raises(UnsupportedError, match="Cor 5.5"):
        to_core_socel(parse("R UNLESS T"))
    assert Valuation({"R": [1]}) in evaluate(parse("R UNLESS T"), Stream.from_types("R R"))[1]
