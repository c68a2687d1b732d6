"""The CEQL predicate extensions (the CORE paper §4.4, CORE.g4; docs/decisions.md D24–D25): arithmetic, LIKE, IN sets and
ranges.

Checked against their definitions: the type guard (missing / wrong kind / division by zero make an atom false),
exact arithmetic, the Z3 encoding (sound: ``p(e)`` implies ``sat(p)``; exact for linear atoms: a satisfiable
linear predicate has a witness whenever a float-valued one exists) and the vectorized evaluator (bitmasks equal
per-event evaluation, on events, DataFrames and Arrow tables).
"""

from __future__ import annotations

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.errors import PredicateError
from cer_theory.core.events import Event
from cer_theory.core.predicates import (Arith, Attr, Cmp, Const, InRange, InSet, Like, On, Opaque, arith, cmp,
                                   equivalent, implies, in_range, in_set, is_satisfiable, is_type, like, minterms,
                                   reslot, to_latex, unary_body, witness)
from cer_theory.core.predicates.ast import Predicate
from cer_theory.core.predicates.solver import _check, encoder
from cer_theory.core.predicates.vectorized import bitmasks, evaluate, evaluate_all
from cer_theory.streams.convert import as_rows
from cer_theory.core.predicates.z3enc import is_nonlinear
from cer_theory.formalisms.cel.ast import Atom, Filter
from cer_theory.testing.strategies.predicates import (TRICKY_NUMBERS, extended_events, extended_unary_predicates,
                                                     unary_predicates)

is_satisfiable(cmp(arith("+", "x", 1), ">", 0))  # warm Z3 up outside any timed example

ext_preds = extended_unary_predicates(max_leaves=4)


# ---------------------------------------------------------------------------------------------- the type guard


def test_arithmetic_type_guard() -> None:
    p = cmp(arith("+", "x", "y"), ">", 1)
    assert p(Event("R", x=1, y=1))
    for e in (Event("R", x=1), Event("R", x=1, y="1"), Event("R", x=1, y=True), Event("R", x=float("inf"), y=1)):
        assert not p(e) and not cmp(arith("+", "x", "y"), "<=", 1)(e)
        assert (~p)(e)  # the atom is false, so its negation holds
    assert not cmp(arith("+", "x", 1), "=", "2")(Event("R", x=1))  # a number never equals a string


def test_division_by_zero_makes_the_atom_false() -> None:
    e = Event("R", x=1, y=0)
    for op in ("=", "!=", "<", "<=", ">", ">="):
        assert not cmp(arith("/", "x", "y"), op, 0)(e)
    assert cmp(arith("/", "x", "y"), "=", 0.5)(Event("R", x=1, y=2))
    assert not is_satisfiable(cmp(arith("/", "x", 0), "=", 1) | cmp(arith("/", "x", 0), "!=", 1))


def test_arithmetic_is_exact_over_the_rationals() -> None:
    # IEEE gives 0.9 / 3 * 3 = 0.8999999999999999 and 0.1 + 0.2 = 0.30000000000000004; exact arithmetic does not.
    assert 0.9 / 3 * 3 != 0.9 and 0.1 + 0.2 == 0.30000000000000004
    assert not cmp(arith("*", arith("/", "x", 3), 3), "!=", Attr("x"))(Event("R", x=0.9))
    assert not cmp(arith("+", "x", "y"), "=", Attr("z"))(Event("R", x=0.1, y=0.2, z=0.30000000000000004))
    assert cmp(arith("+", "x", "y"), ">", Attr("z"))(Event("R", x=0.1, y=0.2, z=0.3))
    assert cmp(arith("/", "x", 3), "=", Arith("/", Const(1), Const(3)))(Event("R", x=1))
    assert cmp(arith("+", "x", 1), ">", Attr("x"))(Event("R", x=2**60))  # no float rounding of big ints


def test_like_in_set_and_range_type_guards() -> None:
    assert like("s", "a.*")(Event("R", s="abc")) and not like("s", "a.*")(Event("R", s="xabc"))  # whole match
    assert not like("s", ".*")(Event("R", s=1)) and not like("s", ".*")(Event("R"))
    assert like("type", "B.*")(Event("BUY"))
    assert in_set("x", [1, 2])(Event("R", x=2.0)) and not in_set("x", [1, 2])(Event("R", x="1"))
    assert in_set("x", [1, 2], negated=True)(Event("R", x=3))
    for e in (Event("R"), Event("R", x="a")):  # NOT IN is an atom of its own: false when missing or mistyped
        assert not in_set("x", [1, 2], negated=True)(e)
    assert not in_set("x", [1, "a"], negated=True)(Event("R", x=5))  # 5 != "a" is false under the guard
    assert in_set("b", [True])(Event("R", b=True)) and not in_set("b", [True])(Event("R", b=1))
    assert in_range("x", 1, 5)(Event("R", x=5)) and in_range("x", 1, None)(Event("R", x=10**30))
    assert not in_range("x", 1, 5)(Event("R", x="3")) and not in_range("x", 1, 5, negated=True)(Event("R", x="9"))
    assert in_range("x", 1, 5, negated=True)(Event("R", x=0.5)) and not in_range("x", 1, 5, negated=True)(Event("R"))


def test_constructors_reject_malformed_atoms() -> None:
    for build in (lambda: Arith("%", Attr("x"), Const(1)), lambda: Arith("+", Attr("x"), Const("a")),
                  lambda: Cmp(Arith("+", Const(1), Const(2)), "=", Const(3)), lambda: InSet(Attr("x"), frozenset()),
                  lambda: InRange(Attr("x"), None, None), lambda: InRange(Attr("x"), float("inf"), None),
                  lambda: Like(Attr("s"), "(")):
        with pytest.raises(PredicateError):
            build()


def test_expansions_are_equivalent() -> None:
    for p in (in_set("x", [1, "a", True]), in_set("x", [1, "a"], negated=True), in_range("x", -1, 2.5),
              in_range("x", None, 0, negated=True), in_range("x", 1, 1, negated=True)):
        assert equivalent(p, p.expand())


@settings(max_examples=200)
@given(ext_preds, extended_events())
def test_expansions_agree_with_evaluation(p: Predicate, e: Event) -> None:
    for node in p.walk():
        if isinstance(node, (InSet, InRange)):
            assert node(e) == node.expand()(e)


# ---------------------------------------------------------------------------------------------- printing, slots


def test_text_label_latex_and_slots() -> None:
    p = cmp(arith("*", arith("+", "x", 1), arith("-", "y", arith("-", "z", 2))), ">=", -1)
    assert p.text() == "(x + 1) * (y - (z - 2)) >= -1"
    assert to_latex(p) == r"(x + 1) \cdot (y - (z - 2)) \geq -1"
    assert in_set("x", ["b", 2, False], negated=True).text() == 'x NOT IN {2, "b", false}'
    assert in_range("x", None, 2.5).label() == "x∈(-∞,2.5]"
    assert like("s", "a'b").text() == 's LIKE "a\'b"'
    q = reslot(p, {None: "A"})
    assert q.slots() == {"A"} and unary_body(q, "A") == p
    assert On("A", p).slots() == {"A"} and equivalent(On("A", p), q)
    assert "(x + 1) * (y - (z - 2)) >= -1" in str(Filter(Atom("A"), On("A", p)))  # CEL printing of a filter


# ---------------------------------------------------------------------------------------------- Z3


@settings(max_examples=200)
@given(ext_preds, st.lists(extended_events(), max_size=4))
def test_z3_encoding_is_sound(p: Predicate, evs: list[Event]) -> None:
    """Each event is a model of the encoding of whichever of p, NOT p it satisfies: ``sat(q ∧ exactly(e))`` for
    q = p if p(e) else ¬p. So p(e) ⇒ sat(p), and the encoding never excludes a real event (LIKE atoms are free
    Booleans and a non-linear ``unknown`` counts as satisfiable: both only add models)."""
    for e in evs:
        q = p if p(e) else ~p
        assert is_satisfiable(q & _exactly(e)), (q.text(), e)


def _exactly(e: Event) -> Predicate:
    """The predicate satisfied only by events with e's type and e's values of x, y, s, b."""
    out: Predicate = is_type(e.type)
    for name in ("x", "y", "s", "b"):
        v = e.get(name)
        out = out & (cmp(name, "=", v) if v is not None else ~Cmp(Attr(name), "=", Attr(name)))  # absent
    return out


def _dyadic_witness_exists(p: Predicate) -> bool:
    """Is ``p`` satisfiable with every number a multiple of 2^-10 (so a float witness exists)?"""
    enc = encoder()
    fp = enc.footprint(p)
    s = z3.Solver()
    s.add(*enc.domain(fp), enc.encode(p))
    s.add(*(z3.IsInt(enc.attr_vars(slot, name).num * 1024) for slot, name in fp.attrs))
    return s.check() == z3.sat


@settings(max_examples=250)
@given(ext_preds)
def test_linear_predicates_have_witnesses(p: Predicate) -> None:
    """Linear arithmetic is encoded exactly: a satisfiable linear predicate (no LIKE) has a witness, unless its
    only solutions are rationals that no float represents (``3 * x = 1``)."""
    if is_nonlinear(p) or any(isinstance(a, Like) for a in p.atoms()) or not is_satisfiable(p):
        return
    try:
        w = witness(p)
    except PredicateError:
        assert not _dyadic_witness_exists(p), p.text()
    else:
        assert p(w)


def test_linear_unsatisfiability_is_exact() -> None:
    assert not is_satisfiable(cmp(arith("+", "x", "y"), ">", 2) & cmp("x", "<", 1) & cmp("y", "<", 1))
    assert not is_satisfiable(cmp(arith("*", "x", 2), "=", 3) & ~in_range("x", 1.5, 1.5))
    assert implies(cmp(arith("-", "x", 1), ">", 0), cmp("x", ">", 1))
    w = witness(cmp(arith("*", 3, "x"), "=", arith("+", "y", 1)) & cmp("y", "=", 2))
    assert w.get("x") == 1 and w.get("y") == 2
    with pytest.raises(PredicateError):  # satisfiable over the rationals only: x = 1/3
        witness(cmp(arith("*", 3, "x"), "=", 1))


def test_like_is_a_sound_over_approximation() -> None:
    assert is_satisfiable(like("s", "b") & cmp("s", "=", "a"))  # Z3 does not read the regex (documented)
    assert not is_satisfiable(like("s", "b") & ~like("s", "b"))
    assert not is_satisfiable(like("s", ".*") & cmp("s", ">", 1))  # LIKE needs a string
    assert minterms([like("s", "a.*"), like("s", "b.*")], budget=None)  # no crash; 4 minterms, some empty


def test_nonlinear_arithmetic() -> None:
    sq = cmp(arith("*", "x", "x"), "=", 2)
    assert is_nonlinear(sq) and not is_nonlinear(cmp(arith("*", 2, "x"), "=", arith("/", "y", 4)))
    assert is_nonlinear(On("A", cmp(arith("/", 1, "x"), ">", 0)))
    assert is_satisfiable(sq)  # x = √2: no float witness
    with pytest.raises(PredicateError):
        witness(sq)
    assert not is_satisfiable(cmp(arith("*", "x", "x"), "<", 0))


class _Undecided:
    """A stand-in solver that answers ``unknown``."""

    def check(self) -> z3.CheckSatResult:
        return z3.unknown

    def set(self, *args: object) -> None:
        pass

    def reason_unknown(self) -> str:
        return "stand-in"


def test_unknown_is_satisfiable_only_for_nonlinear_problems() -> None:
    p = cmp(arith("*", "x", "y"), ">", 1)
    assert _check(_Undecided(), p, nonlinear=True)  # type: ignore[arg-type]
    with pytest.raises(PredicateError):
        _check(_Undecided(), p)  # type: ignore[arg-type]


@settings(max_examples=60)
@given(st.lists(ext_preds, min_size=1, max_size=3), st.lists(extended_events(), max_size=5))
def test_minterms_of_extended_predicates_partition_events(preds: list[Predicate], evs: list[Event]) -> None:
    """The CEL paper Def. 5.6 over the extended language: every event satisfies exactly one (kept) minterm."""
    ms = minterms(preds, budget=None)
    for e in evs:
        assert sum(1 for m in ms if m(e)) == 1


# ---------------------------------------------------------------------------------------------- vectorized


def _scalar(preds: list[Predicate], evs: list[Event]) -> list[int]:
    return [sum(1 << k for k, p in enumerate(preds) if p(e)) for e in evs]


@settings(max_examples=300)
@given(st.lists(ext_preds, min_size=1, max_size=4), st.lists(extended_events(), max_size=10))
def test_vectorized_bitmasks_equal_scalar_evaluation(preds: list[Predicate], evs: list[Event]) -> None:
    assert bitmasks(preds, as_rows(evs)) == _scalar(preds, evs)


@settings(max_examples=30)
@given(st.lists(unary_predicates(max_leaves=3), min_size=3, max_size=6), st.integers(60, 140),
       st.lists(extended_events(), max_size=6))
def test_bitmasks_wider_than_one_word(base: list[Predicate], width: int, evs: list[Event]) -> None:
    preds = (base * width)[:width]  # more predicates than the 63 bits of one machine word
    assert bitmasks(preds, as_rows(evs)) == _scalar(preds, evs)


def test_vectorized_exactness_on_tricky_numbers() -> None:
    evs = [Event("R", x=x, y=y) for x in TRICKY_NUMBERS + (3, 0, "s") for y in TRICKY_NUMBERS + (0, 3)]
    preds = [cmp(arith("+", "x", "y"), ">", 0.3), cmp(arith("*", arith("/", "x", 3), 3), "=", "x"),
             cmp(arith("*", "x", "y"), ">", 1e308), cmp(arith("/", "x", "y"), "<=", 1),
             cmp("x", "=", 2**53 + 1), cmp(arith("-", "x", "y"), "=", 0), in_range("x", 0.1, 0.3),
             cmp(arith("*", arith("+", "x", "y"), arith("-", "x", "y")),
                 "=", arith("-", arith("*", "x", "x"), arith("*", "y", "y")))]
    assert bitmasks(preds, as_rows(evs)) == _scalar(preds, evs)


def test_vectorized_decides_ieee_ties_exactly() -> None:
    """Where float64 rounds to the wrong answer the vectorized path must not trust it (exact semantics)."""
    evs = [Event("R", x=0.1, y=0.2, z=0.30000000000000004), Event("R", x=0.9, y=3, z=0.9), Event("R", x=1, y=3, z=1),
           Event("R", x=2**60, y=1, z=2**60)]
    preds = [cmp(arith("+", "x", "y"), "=", Attr("z")), cmp(arith("*", arith("/", "x", "y"), "y"), "!=", Attr("z")),
             cmp(arith("+", "x", "y"), ">", Attr("z")), cmp(arith("/", "x", "y"), "<", 0.3333333333333333)]
    # IEEE would set bit 0 on the first event (0.1 + 0.2 rounds to z), bit 1 on the second (0.9 / 3 * 3 rounds
    # to 0.8999999999999999) and clear bit 2 on the last (2^60 + 1 rounds to 2^60).
    assert bitmasks(preds, as_rows(evs)) == _scalar(preds, evs) == [2, 4 | 8, 4, 4]


def test_opaque_and_unary_checks() -> None:
    evs = [Event("R", x=1), Event("T", x=5), Event("R")]
    big = Opaque("big", lambda e: (e.get("x") or 0) > 2)
    assert evaluate(big & is_type("T"), as_rows(evs)).tolist() == [False, True, False]
    assert [a.tolist() for a in evaluate_all([is_type("R"), like("type", "R|T")], as_rows(evs))] == [[True, False, True],
                                                                                          [True, True, True]]
    with pytest.raises(PredicateError):
        bitmasks([On("A", cmp("x", ">", 1))], as_rows(evs))
    assert bitmasks([], as_rows(evs)) == [0, 0, 0] and bitmasks([is_type("R")], as_rows([])) == []


def _frames(evs: list[Event]) -> list[object]:
    out: list[object] = []
    rows = [e.to_dict() for e in evs]
    try:
        import pandas as pd
    except ImportError:
        pass
    else:
        try:
            out.append(pd.DataFrame(rows, columns=sorted({k for r in rows for k in r} | {"type"})))
        except OverflowError:  # pandas < 3 cannot hold ints beyond 64 bits next to other kinds in one column
            pass
    try:
        import pyarrow as pa
    except ImportError:
        pass
    else:
        try:
            out.append(pa.Table.from_struct_array(pa.array(rows)))  # (every row's keys: from_pylist keeps the first's)
        except (OverflowError, pa.ArrowInvalid, pa.ArrowTypeError):  # mixed kinds or huge ints in one column
            pass
    return out


@settings(max_examples=80)
@given(st.lists(ext_preds, min_size=1, max_size=3), st.lists(extended_events(), min_size=1, max_size=6))
def test_dataframe_and_arrow_inputs(preds: list[Predicate], evs: list[Event]) -> None:
    """A DataFrame or a Table with a ``type`` column gives the bitmasks of its rows read as events."""
    pytest.importorskip("pandas")
    for frame in _frames(evs):
        assert bitmasks(preds, as_rows(frame)) == _scalar(preds, evs)


def test_typed_dataframe_columns() -> None:
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"type": ["R", "T", "R"], "x": [1, 2, 2**60 + 1], "y": [0.5, float("nan"), 2.0],
                       "b": [True, False, True]})
    preds = [cmp(arith("+", "x", "y"), ">", 2), in_range("y", None, 1), cmp("b", "=", True), is_type("R"),
             cmp("x", "=", 2**60 + 1), Opaque("two", lambda e: e.get("x") == 2)]
    assert bitmasks(preds, as_rows(df)) == [2 | 4 | 8, 32, 1 | 4 | 8 | 16]
