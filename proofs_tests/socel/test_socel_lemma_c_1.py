"""The SO-CEL paper, Lemma C.1 (App. C.4.2): every SO-CEL∪{STRICT} formula is pumpable, and Thm 6.5 part 2's ⊕ witness
is not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.events import Event, Stream
from cer_theory.formalisms.socel.parser import parse
from cer_theory.formalisms.socel.printer import format
from cer_theory.formalisms.socel.pumping import check_pumpable, in_lemma_c1_fragment, pumping_constant
from cer_theory.testing.strategies import events
from cer_theory.testing.strategies.socel import SCHEMA, formulas, socel_streams

LEMMA_C1_OPERATORS = ("in", "rename", "filter", "disj", "seq", "plus", "strict")
THM_6_5_WITNESS = "((A ; E) FILTER A.a = E.a):+"


def witness_stream(n: int) -> Stream:
    """``A L E A L E …`` with a-values ``1 1 1 2 2 2 … n n n`` (0-based positions)."""
    return Stream(Event(t, a=m) for m in range(1, n + 1) for t in "ALE")


@settings(max_examples=60, deadline=None)
@given(formulas(LEMMA_C1_OPERATORS, unary=False, max_depth=3).filter(in_lemma_c1_fragment), socel_streams(5),
       st.lists(st.lists(events(SCHEMA), max_size=1), min_size=3, max_size=3))
def test_lemma_c_1_every_socel_strict_formula_is_pumpable(phi, stream, paddings) -> None:
    """Every output larger than the constant has a fragment that survives pumping once and twice, with the
    drawn padding streams between the copies."""
    _, failures = check_pumpable(phi, stream, ks=(1, 2), paddings=paddings, per_position=2)
    assert not failures, f"Lemma C.1 fails for {format(phi)}: {failures[0]} (paddings {paddings})"


@pytest.mark.parametrize("text", [
    "((A IN X ; E IN Y) FILTER X.a = Y.a)+",
    "STRICT(((A ; L ; E) FILTER A.a = E.a)+)",
    "(A+ IN X ; E) FILTER X.a <= E.a",
    "STRICT((A ; L ; E)+)[A -> B] FILTER B.a <= 3",
    "(STRICT(A ; L) ; E)+",
])
def test_lemma_c_1_on_the_witness_stream(text: str) -> None:
    """Formulas of SO-CEL∪{STRICT}, binary filters included, on Thm 6.5's stream: pumping 1, 2 and 3 times with
    the padding U keeps their long outputs."""
    phi = parse(text)
    assert in_lemma_c1_fragment(phi)
    checked, failures = check_pumpable(phi, witness_stream(3), ks=(1, 2, 3), paddings=[[Event("U")]] * 4,
                                       per_position=1)
    assert checked > 0 and not failures, failures[:1]


def test_thm_6_5_witness_is_not_pumpable() -> None:
    """Part 2 of Thm 6.5: ``((A ; E) FILTER A.a = E.a)⊕`` is outside the lemma, and its long outputs on the
    witness stream have no fragment that pumps: so no SO-CEL∪{STRICT} formula defines it."""
    phi = parse(THM_6_5_WITNESS)
    assert not in_lemma_c1_fragment(phi)
    stream = witness_stream(3)
    checked, failures = check_pumpable(phi, stream, ks=(2,), paddings=[[Event("U")]] * 3)
    assert checked == 3 and [(f.n, sorted(f.complex_event.support())) for f in failures] == [
        (5, [0, 2, 3, 5]), (8, [0, 2, 3, 5, 6, 8]), (8, [3, 5, 6, 8])]  # every long output fails
    assert pumping_constant(phi) == 2


def test_order_predicates_are_outside_the_fragment() -> None:
    """``incr`` is not a universal SO predicate: pumping repeats values, so the lemma does not cover it."""
    phi = parse("(R+ IN A) FILTER incr(A.x)")
    assert not in_lemma_c1_fragment(phi)
    stream = Stream(Event("R", x=v) for v in (1, 2, 3))
    _, failures = check_pumpable(phi, stream, ks=(2,))
    assert failures and sorted(failures[0].complex_event.support()) == [0, 1]  # x = 1, 2, 1, 2 is not increasing
