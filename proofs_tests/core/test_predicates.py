"""The predicate layer: type-guarded evaluation, the Z3 effective Boolean algebra, minterms, printing.

Minterms are the *types* of the CEL paper Def. 5.6 (used by Prop. 5.5); the Z3 mapping is
docs/decisions.md D19. Property tests compare Z3's answers with plain evaluation on random
events, and the pruned minterms with the naive 2^k oracle.
"""

from __future__ import annotations

import itertools

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from cer_theory.core.errors import PredicateError, SizeBudgetExceeded
from cer_theory.core.events import Event
from cer_theory.core.predicates import (FALSE, TRUE, Attr, Cmp, Const, IsType, Not, On, Opaque, cmp, conj, disj,
                                   equivalent, implies, is_satisfiable, is_type, minterms, naive_minterms, neg,
                                   simplified, to_latex, to_sympy, witness, witness_env)
from cer_theory.testing.strategies.predicates import envs, events, nary_predicates, unary_predicates

is_satisfiable(TRUE)  # warm Z3 up outside any timed example

small_preds = unary_predicates(max_leaves=4)
pred_lists = st.lists(unary_predicates(max_leaves=3), min_size=0, max_size=4)
short_pred_lists = st.lists(unary_predicates(max_leaves=3), min_size=0, max_size=3)  # for quadratic checks


# ---------------------------------------------------------------------------------------------- evaluation


def test_missing_attribute_makes_atom_false_and_its_negation_true() -> None:
    e = Event("R")
    for op in ("=", "!=", "<", "<=", ">", ">="):
        assert not cmp("x", op, 1)(e)
        assert (~cmp("x", op, 1))(e)
    assert not Cmp(Attr("x"), "=", Attr("x"))(e)  # not even equal to itself


def test_kind_mismatch_makes_atom_false() -> None:
    e = Event("R", x="1", s=1)
    assert not cmp("x", "=", 1)(e) and not cmp("x", "!=", 1)(e)
    assert not cmp("s", "<", "a")(e) and not cmp("s", ">=", "a")(e)
    assert not Cmp(Attr("x"), "=", Attr("s"))(e) and not Cmp(Attr("x"), "!=", Attr("s"))(e)
    assert cmp("x", "=", "1")(e) and cmp("s", "=", 1.0)(e)  # int and float are one kind


def test_bool_is_not_the_int_one() -> None:
    e = Event("R", b=True, x=1)
    assert cmp("b", "=", True)(e) and not cmp("b", "=", 1)(e) and not cmp("b", "!=", 1)(e)
    assert not cmp("x", "=", True)(e)
    assert Cmp(Attr("b"), ">", Const(False))(e)  # False < True
    assert not is_satisfiable(cmp("b", "=", 1) & cmp("b", "=", True))
    assert not is_satisfiable(cmp("b", "<", False))


def test_type_attribute_and_is_type() -> None:
    e = Event("R", x=0)
    assert is_type("R")(e) and cmp("type", "=", "R")(e) and cmp("type", "<", "S")(e)
    assert not cmp("type", "=", 1)(e)
    assert equivalent(is_type("R"), cmp("type", "=", "R"))
    assert not is_satisfiable(cmp("type", "<=", ""))  # types are non-empty strings
    assert implies(TRUE, cmp("type", ">", ""))
    assert not is_satisfiable(~Cmp(Attr("type"), "=", Attr("type")))  # the type is always defined


def test_slots_and_on() -> None:
    p = On("A", cmp("x", ">", 1)) & Cmp(Attr("id", "A"), "=", Attr("id", "B"))
    assert p.slots() == {"A", "B"} and not p.is_unary()
    assert p.holds({"A": Event("R", x=2, id=7), "B": Event("T", id=7)})
    assert not p.holds({"A": Event("R", x=2, id=7), "B": Event("T", id="7")})
    assert not p.holds({"A": Event("R", x=2, id=7), "B": Event("T")})
    assert is_satisfiable(p)
    assert not is_satisfiable(p & Cmp(Attr("id", "A"), "<", Attr("id", "B")))
    # On re-reads the body at its slot: A[x > 1] and A.x > 1 are the same constraint.
    assert equivalent(On("A", cmp("x", ">", 1)), Cmp(Attr("x", "A"), ">", Const(1)))
    assert not equivalent(On("A", cmp("x", ">", 1)), On("B", cmp("x", ">", 1)))


def test_not_equal_is_an_atom_not_the_negation_of_equal() -> None:
    assert not equivalent(cmp("x", "!=", 1), ~cmp("x", "=", 1))
    assert implies(cmp("x", "!=", 1), ~cmp("x", "=", 1))
    e = witness(~cmp("x", "=", 1) & ~cmp("x", "!=", 1))  # x missing or not a number
    assert e.get("x") is None or isinstance(e.get("x"), (str, bool))


# ---------------------------------------------------------------------------------------------- Z3 vs evaluation


@given(small_preds, events())
def test_satisfiable_whenever_some_event_satisfies(p, e) -> None:
    assert is_satisfiable(p) if p(e) else is_satisfiable(neg(p))


@given(small_preds, small_preds, events())
def test_implies_is_sound_on_events(p, q, e) -> None:
    if implies(p, q) and p(e):
        assert q(e)
    assert implies(conj(p, q), p) and implies(p, disj(p, q))


@given(small_preds, events())
def test_simplified_is_equivalent(p, e) -> None:
    s = simplified(p)
    assert s(e) == p(e)
    assert equivalent(p, s)


@given(nary_predicates(max_leaves=4), envs())
def test_nary_satisfiable_whenever_some_environment_satisfies(p, env) -> None:
    if p.holds(env):
        assert is_satisfiable(p)
    if is_satisfiable(p):
        assert p.holds(witness_env(p))


def test_opaque_atoms_are_free_and_named() -> None:
    hot, hot2 = Opaque("hot", lambda e: True), Opaque("hot", lambda e: False)
    assert hot == hot2 and hash(hot) == hash(hot2)  # same name, same atom for Z3
    assert not is_satisfiable(hot & ~hot2)
    assert is_satisfiable(hot & ~Opaque("cold", lambda e: False))
    assert hot(witness(hot))
    with pytest.raises(PredicateError, match="no decoded witness"):
        witness(Opaque("never", lambda e: False))


# ---------------------------------------------------------------------------------------------- witnesses


@given(unary_predicates(max_leaves=6))
def test_witness_satisfies_every_satisfiable_predicate(p) -> None:
    if is_satisfiable(p):
        assert p(witness(p))
    else:
        with pytest.raises(PredicateError, match="unsatisfiable"):
            witness(p)


@pytest.mark.parametrize("p", [
    is_type("R") & is_type("T"),
    cmp("x", "<", 1) & cmp("x", ">", 2),
    cmp("x", "=", 1) & cmp("x", "=", "1"),
    cmp("s", "<", "a") & cmp("s", ">", "a"),
    FALSE,
], ids=str)
def test_witness_of_unsatisfiable_predicate_raises(p) -> None:
    assert not is_satisfiable(p)
    with pytest.raises(PredicateError, match="unsatisfiable"):
        witness(p)


@pytest.mark.parametrize("p", [
    cmp("s", ">", "a") & cmp("s", "<", "b"),  # needs a longer string: "a…"
    cmp("s", "<", "!") & cmp("s", "!=", ""),  # below every identifier character
    cmp("s", "=", "\\u{41}"),  # no escape processing of constants
    cmp("s", "=", "é\U0001F600"),
    cmp("x", ">", 0.5) & cmp("x", "<", 0.75),
    cmp("x", ">", 10**30),
    Cmp(Attr("x"), "<", Attr("y")) & Cmp(Attr("y"), "<", Attr("z")) & cmp("z", "<", 1) & cmp("x", ">", 0),
    Cmp(Attr("b"), "<", Attr("c")),
    cmp("type", ">", "R") & cmp("type", "<", "S"),
    TRUE,
], ids=str)
def test_witness_examples(p) -> None:
    assert p(witness(p))


def test_witness_default_type_and_nary() -> None:
    assert witness(TRUE).type == "E" and witness(cmp("x", "=", 3)) == Event("E", x=3)
    p = On("A", is_type("H")) & On("B", is_type("T")) & Cmp(Attr("id", "A"), "=", Attr("id", "B"))
    env = witness_env(p)
    assert set(env) == {"A", "B"} and p.holds(env)
    with pytest.raises(PredicateError, match="unary"):
        witness(p)
    with pytest.raises(PredicateError, match="unsatisfiable"):
        witness_env(Cmp(Attr("id", "A"), "<", Attr("id", "B")) & Cmp(Attr("id", "B"), "<", Attr("id", "A")))


def test_reals_versus_floats_gap_is_reported() -> None:
    # Z3 reads numbers as reals: strictly between two adjacent floats is satisfiable but has no float witness.
    below = 0.1 - 2 ** -56  # the float just below 0.1
    p = cmp("x", ">", below) & cmp("x", "<", 0.1)
    assert is_satisfiable(p)
    with pytest.raises(PredicateError, match="no decoded witness"):
        witness(p)
    with pytest.raises(PredicateError, match="rational"):
        is_satisfiable(cmp("x", "<", float("inf")))


# ---------------------------------------------------------------------------------------------- minterms (Def 5.6)


def _signed(preds, signs):
    return conj(*(p if s else Not(p) for p, s in zip(preds, signs)))


@given(pred_lists)
def test_def_5_6_minterms_are_exactly_the_satisfiable_naive_types(preds) -> None:
    naive = naive_minterms(preds)
    assert len(naive) == 2 ** len(preds)
    assert [m.signs for m in naive] == list(itertools.product((True, False), repeat=len(preds)))
    pruned = minterms(preds)
    assert [m.signs for m in pruned] == [m.signs for m in naive if is_satisfiable(m.predicate)]
    assert [m.predicate for m in pruned] == [m.predicate for m in naive if is_satisfiable(m.predicate)]


@given(short_pred_lists)
def test_def_5_6_minterms_are_disjoint_covering_and_satisfiable(preds) -> None:
    ms = minterms(preds)
    assert ms and all(is_satisfiable(m.predicate) for m in ms)
    for a, b in itertools.combinations(ms, 2):
        assert not is_satisfiable(a.predicate & b.predicate)
    assert equivalent(disj(*(m.predicate for m in ms)), TRUE)
    for m in ms:
        assert equivalent(m.predicate, _signed(preds, m.signs))
        assert m.positives == tuple(i for i, s in enumerate(m.signs) if s)


@given(short_pred_lists, st.lists(events(), min_size=1, max_size=8))
def test_def_5_6_every_event_has_exactly_one_type(preds, evs) -> None:
    ms = minterms(preds)
    for e in evs:
        hits = [m for m in ms if m(e)]
        assert len(hits) == 1
        assert hits[0].signs == tuple(p(e) for p in preds)


def test_def_5_6_spec_examples() -> None:
    assert len(minterms([TRUE, IsType("B")])) == 2
    ms = minterms([IsType("B"), TRUE, IsType("S") & cmp("x", "=", 1)])
    assert [m.signs for m in ms] == [(True, True, False), (False, True, True), (False, True, False)]


def test_def_5_6_degenerate_inputs() -> None:
    (only,) = minterms([])
    assert only.signs == () and only.predicate == TRUE
    p = cmp("x", ">", 1)
    assert [m.signs for m in minterms([p, p])] == [(True, True), (False, False)]
    assert [m.signs for m in minterms([p, ~p])] == [(True, False), (False, True)]
    assert [m.signs for m in minterms([FALSE])] == [(False,)]


def test_minterm_budget() -> None:
    preds = [cmp(a, ">", 0) for a in "abcde"]  # independent: 32 minterms
    with pytest.raises(SizeBudgetExceeded) as info:
        minterms(preds, budget=10)
    assert (info.value.construction, info.value.budget, info.value.reached) == ("minterms", 10, 11)
    assert len(minterms(preds, budget=None)) == 32
    with pytest.raises(SizeBudgetExceeded):  # a cached answer still honours a smaller budget
        minterms(preds, budget=31)
    assert len(minterms(preds)) == 32


# ---------------------------------------------------------------------------------------------- printing


def test_sympy_and_latex_exact() -> None:
    p = is_type("H") & cmp("tmp", ">", 40)
    assert str(to_sympy(p)) == "H & tmp>40"
    assert to_latex(p) == r"\mathrm{type} = H \wedge \mathit{tmp} > 40"
    q = ~is_type("Temp") | cmp("loc_id", "!=", "a b")
    assert to_latex(q) == r"\mathit{loc\_id} \neq \text{``a b''} \vee \neg (\mathrm{type} = \mathrm{Temp})"
    r = On("A", cmp("x", "<=", 1.5)) & Cmp(Attr("id", "A"), "=", Attr("id", "B")) & ~cmp("ok", "=", True)
    assert to_latex(r) == (r"A.\mathit{id} = B.\mathit{id} \wedge A[x \leq 1.5] \wedge "
                           r"\neg (\mathit{ok} = \mathrm{true})")
    assert to_latex(TRUE) == r"\text{True}"


def test_simplified_examples() -> None:
    a, b = is_type("R"), cmp("x", ">", 1)
    assert simplified((a & b) | (a & ~b)) == a
    assert simplified(a | ~a) == TRUE
    assert simplified(~(~a | ~b)) == conj(a, b)
    assert isinstance(to_sympy(a | b), sympy.Or)
