"""FO-CEL (the SO-CEL paper §3, CEPL): the global-valuation semantics with vdef+, the Thm 4.6 witness as an exact oracle,
unsafe formulas refused naming the variable, and Thm 4.3 (unary FO-CEL → SO-CEL) as a differential test."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from cer_theory.core.events import Event, Stream
from cer_theory.core.predicates.ast import Arith, Attr, Cmp, Const
from cer_theory.core.errors import UnsupportedError
from cer_theory.formalisms.socel import ast as so
from cer_theory.formalisms.socel.focel import (Bind, FoFilter, FoFormula, FoOr, FoPlus, FoSeq, UnsafeFormulaError,
                                               from_socel, matches, run, vdef, vdef_plus)
from cer_theory.formalisms.socel.parser import parse
from cer_theory.formalisms.socel.semantics import evaluate as so_evaluate
from cer_theory.formalisms.socel.unary_fo import fo_to_socel, socel_to_fo
from cer_theory.testing.strategies.socel import CORE_OPERATORS, fo_formulas, formulas, socel_streams

# Thm 4.6's witness: x is injected into the Kleene closure; every pair (y, z) must sum to x.
WITNESS_4_6 = FoSeq(Bind("R", "x"), FoPlus(FoFilter(FoSeq(Bind("S", "y"), Bind("S", "z")),
                                                    Cmp(Arith("+", Attr("a", "y"), Attr("a", "z")), "=",
                                                        Attr("a", "x")))))


def test_thm_4_6_witness_oracle() -> None:
    s = Stream([Event("R", a=10), Event("S", a=1), Event("S", a=9), Event("S", a=3), Event("S", a=7)])
    out = run(WITNESS_4_6, s)
    assert out[1] == out[3] == frozenset()
    assert out[2] == {frozenset({0, 1, 2})}
    assert out[4] == {frozenset({0, 1, 2, 3, 4}), frozenset({0, 3, 4})}


def test_vdef_and_vdef_plus() -> None:
    phi = FoSeq(Bind("R", "x"), FoPlus(Bind("T", "y")))
    assert vdef(phi) == {"x", "y"} and vdef_plus(phi) == {"x"}


def test_iterations_rebind_local_variables_but_not_outer_ones() -> None:
    """Rule 5: (T AS y FILTER y.id = x.id)+ compares every iteration with the one outer x (Example 4.1's shape)."""
    phi = FoSeq(Bind("H", "x"), FoPlus(FoFilter(Bind("T", "y"), Cmp(Attr("id", "y"), "=", Attr("id", "x")))))
    s = Stream([Event("H", id=1), Event("T", id=1), Event("T", id=2), Event("T", id=1)])
    assert matches(phi, s, 3) == {frozenset({0, 3}), frozenset({0, 1, 3})}
    assert matches(phi, s, 2) == frozenset()


def test_a_variable_bound_twice_needs_one_position() -> None:
    assert matches(FoSeq(Bind("R", "x"), Bind("R", "x")), Stream.from_types("R R"), 1) == frozenset()


@pytest.mark.parametrize("phi, var", [
    (FoFilter(Bind("R", "x"), Cmp(Attr("a", "y"), "=", Const(1))), "y"),
    (FoFilter(FoPlus(Bind("T", "y")), Cmp(Attr("a", "y"), "=", Const(1))), "y"),
    (FoFilter(FoOr(Bind("R", "x"), Bind("T", "y")), Cmp(Attr("a", "x"), "=", Const(1))), "x"),
    (FoSeq(FoFilter(Bind("R", "x"), Cmp(Attr("a", "x"), "=", Attr("a", "z"))), Bind("T", "z")), "z"),
])
def test_unsafe_formulas_are_refused_naming_the_variable(phi: FoFormula, var: str) -> None:
    with pytest.raises(UnsafeFormulaError, match=f"variable '{var}'"):
        matches(phi, Stream.from_types("R T"), 1)


def test_from_parsed_syntax() -> None:
    phi = from_socel(parse("(H AS x ; (T AS y FILTER y.id = x.id)+) FILTER x.id = 1"))
    assert isinstance(phi, FoFilter) and isinstance(phi.body, FoSeq)
    with pytest.raises(UnsupportedError, match="AS x"):
        from_socel(parse("R ; T"))
    with pytest.raises(UnsupportedError, match="not an FO-CEL operator"):
        from_socel(parse("R AS x : T AS y"))


@settings(max_examples=80)
@given(fo_formulas(), socel_streams(6))
def test_thm_4_3_unary_fo_equals_supports_of_so(phi: FoFormula, stream: Stream) -> None:
    """Thm 4.3 (⇒): ``⟦ψ_FO⟧_n(S) = supp(⟦φ_SO⟧_n(S))`` for unary FO-CEL."""
    fo = run(phi, stream)
    so_out = so_evaluate(fo_to_socel(phi), stream)
    assert fo == [frozenset(c.support() for c in out) for out in so_out]


@settings(max_examples=80)
@given(formulas(CORE_OPERATORS, labels=("A", "R")), socel_streams(6))
def test_thm_4_3_unary_so_equals_lp_normal_form_fo(phi: so.Formula, stream: Stream) -> None:
    """Thm 4.3 (⇐): filters pushed down to the atoms through IN and renamings (LP normal form), then FO-CEL:
    ``supp(⟦φ_SO⟧_n(S)) = ⟦ψ_FO⟧_n(S)``."""
    fo = socel_to_fo(phi)
    assert run(fo, stream) == [frozenset(c.support() for c in out) for out in so_evaluate(phi, stream)]


@pytest.mark.parametrize("text, expected", [
    ("(R IN A)[A -> B] FILTER B[x > 1]", {frozenset({1})}),  # the filter follows the renamed label
    ("(R IN A)[A -> B] FILTER B[x > 5]", set()),
    ("R[R -> B] FILTER R[x > 5]", {frozenset({1})}),  # R renamed away: the filter is vacuous
    ("(R ; R) IN A FILTER A[x > 0]", set()),  # IN labels every position, and x = 0 at position 0
    ("(R ; R IN A) FILTER A[x > 1]", {frozenset({0, 1})}),  # A labels position 1 only
    ("(R ; R) FILTER (FALSE AND R.x > 0)", set()),  # a constant condition reaches every atom
    ("(R ; R) FILTER TRUE", {frozenset({0, 1})}),
])
def test_lp_normal_form_push_down_examples(text: str, expected: set) -> None:
    s = Stream([Event("R", x=0), Event("R", x=2)])
    phi = parse(text)
    fo = socel_to_fo(phi)
    n = 1
    assert matches(fo, s, n) == frozenset(c.support() for c in so_evaluate(phi, s)[n]) == frozenset(expected)


WITNESS_4_6_TEXT = "R AS x ; ((S AS y ; S AS z) FILTER y.a + z.a = x.a)+"


def test_thm_4_6_witness_is_reachable_from_text(tmp_path, capsys) -> None:
    """FO-CEL(P_+) of Thm 4.6 was Python-only (the CEL-family text had no arithmetic: "unexpected '+'"); its
    text parses to the same formula, prints back, and `eval --logic focel` gives the README's line."""
    from cer_theory.cli import main
    from cer_theory.formalisms.socel.evaluators import format_fo, parse_fo

    assert parse_fo(WITNESS_4_6_TEXT) == WITNESS_4_6
    assert parse_fo(format_fo(WITNESS_4_6)) == WITNESS_4_6
    stream = tmp_path / "s.jsonl"
    stream.write_text("".join(f'{{"type": "{t}", "a": {a}}}\n' for t, a in (("R", 10), ("S", 1), ("S", 9),
                                                                             ("S", 3), ("S", 7))))
    assert main(["eval", "--logic", "focel", WITNESS_4_6_TEXT, "--stream", str(stream)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == '{"position": 4, "kind": "matches", "outputs": [[0, 1, 2, 3, 4], [0, 3, 4]]}', lines
