"""SREMO reference semantics (the SRT paper §3.4 Defs. 17–18, Def. 32, Def. 39, Defs. 44–45): the paper's worked
examples as exact oracles, and the semantic laws as properties."""

import pytest
from hypothesis import given, settings
from sremo_oracles import (E1, E1_STREAM, E1_W4_STREAM, E2, E2_STREAM, E2_STREAM_DATA, E4, E4_PLUS_STREAM,
                           E4_STREAM, SEQ3, SEQ3_DATA, SEQ3_STREAM, SEQ3_W4_STREAM, TABLE_1, TABLE_4, THM38,
                           THM38_ACCEPTED, THM38_REJECTED, as_dict, ev)

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import TRUE, Attr, Cmp, Const
from cer_theory.formalisms.sremo.ast import (EMPTY, EPS, Complement, Concat, Cond, Inter, Next, Plus, Star, Union,
                                             Window, any_order, check, rename_registers)
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.selection import desugar
from cer_theory.formalisms.sremo.semantics import Evaluator, accepts, match, streaming_matches
from cer_theory.testing.strategies.sremo import expressions, streams


def x(c, marked=True, writes=()):
    return Cond(Cmp(Attr("x"), "=", Const(c)), marked, writes)


def xs(*values):
    return [Event("a", x=v) for v in values]


def test_e1_on_table_1_prefix_matches():
    """Ex. after eq. 2: Match(e₁, S₁..ₖ) is {{1,4}} for k = 4, {{1,5}} for k = 5, ∅ otherwise (1-based)."""
    e1 = parse(E1)
    got = [match(e1, TABLE_1[:k]) for k in range(1, 7)]
    assert got == [frozenset()] * 3 + [frozenset({frozenset({0, 3})}), frozenset({frozenset({0, 4})}), frozenset()]


def test_e1_streaming_matches_on_table_1():
    assert as_dict(streaming_matches(parse(E1), TABLE_1)) == E1_STREAM


def test_example_40_window_4_on_e1():
    assert as_dict(streaming_matches(parse(f"({E1}) WITHIN 4"), TABLE_1)) == E1_W4_STREAM


def test_eq_4_strict_contiguity():
    assert as_dict(streaming_matches(parse(E2), E2_STREAM_DATA)) == E2_STREAM


def test_table_4_with_e_and_e_plus():
    assert as_dict(streaming_matches(parse(E4), TABLE_4)) == E4_STREAM
    assert as_dict(streaming_matches(parse(f"({E4})+"), TABLE_4)) == E4_PLUS_STREAM


def test_section_8_overwrite_check():
    """Iterating a write overwrites r1 (§8): B(id1) B(id2) S(id1) gives ∅, B2 B1 S1 gives {{1,2,3}}."""
    e = parse(E4)
    assert match(e, [ev("B", 1), ev("B", 2), ev("S", 1)]) == frozenset()
    assert match(e, [ev("B", 2), ev("B", 1), ev("S", 1)]) == {frozenset({0, 1, 2})}


def test_seq3_stam_with_and_without_window():
    assert as_dict(streaming_matches(parse(SEQ3), SEQ3_DATA)) == SEQ3_STREAM
    assert as_dict(streaming_matches(parse(f"({SEQ3}) WITHIN 4"), SEQ3_DATA)) == SEQ3_W4_STREAM


def test_theorem_38_strings():
    t = parse(THM38)
    assert all(accepts(t, s) for s in THM38_ACCEPTED)
    assert not any(accepts(t, s) for s in THM38_REJECTED)


def test_any_order_conjunction():
    """*(φ₁, φ₂) := φ₁·φ₂ + φ₂·φ₁ matches φ₂φ₁ and φ₁φ₂ as {1,2}, and nothing on φ₁φ₁ (§5.2)."""
    e = any_order(x(1), x(2))
    assert match(e, xs(2, 1)) == match(e, xs(1, 2)) == {frozenset({0, 1})}
    assert match(e, xs(1, 1)) == frozenset()


def test_p1_last_bullet_versus_pure_reading():
    """P1: (φ↑•)(⊤↑⊗) on "ab" has the SREMO match {1}, but no streaming match under the last-• reading."""
    e = Concat(x(1), Cond(TRUE, marked=False))
    s = xs(1, 2)
    assert match(e, s) == {frozenset({0})}
    assert streaming_matches(e, s) == []
    assert as_dict(streaming_matches(e, s, pure=True)) == {1: {(0,)}}
    assert match(EPS, []) == {frozenset()}  # Match(ε, ε) = {∅}, not ∅ as the paper says


def test_p6_literal_complement_versus_condition_negation():
    """P6: the literal complement !φ accepts every gap of length ≥ 2, even one full of φ's; NEXT (condition-level
    negation, Def. 45) takes the *next* φ only."""
    literal = parse("(<x = 0> . !<x = 1> . <x = 1>) WITHIN 10")
    assert match(literal, xs(0, 1, 1, 1)) == {frozenset({0, 3})}  # skipped two x = 1 events
    nxt = parse("NEXT(<x = 0>, <x = 1>)")
    assert as_dict(streaming_matches(nxt, xs(0, 1, 1, 1))) == {1: {(0, 1)}}
    stam = parse("ANY(<x = 0>, <x = 1>)")
    assert as_dict(streaming_matches(stam, xs(0, 1, 1))) == {1: {(0, 1)}, 2: {(0, 2)}}


def test_p5_kleene_threads_registers():
    """P5: body = (Eq(~,r1)↑•) + (⊤↑⊗↓r1)(⊤↑•) on "a b a": threaded (rule 6) gives {{2,3}}, i.e. {1, 2}."""
    eq = Cond(Cmp(Attr("x"), "=", Attr("x", "r1")))
    body = Union(eq, Concat(Cond(TRUE, False, ("r1",)), Cond(TRUE)))
    s = xs(0, 1, 0)
    assert match(Star(body), s) == {frozenset({1, 2})}
    assert match(body, s[:1]) == frozenset()


def test_window_rejects_unmarked_derivations():
    """Def. 39 leaves the window of M = ∅ undefined; we reject it (docs/decisions.md)."""
    assert match(Window(Cond(TRUE, marked=False), 3), xs(1)) == frozenset()
    assert match(Window(Concat(x(1), Cond(TRUE, False)), 1), xs(1, 5)) == {frozenset({0})}


def test_empty_set_has_no_derivation():
    assert match(EMPTY, []) == frozenset() and match(Star(EMPTY), []) == {frozenset()}


def test_context_rules():
    with pytest.raises(UnsupportedError, match="only inside a window"):
        check(Complement(x(1)))
    with pytest.raises(UnsupportedError, match="rename them apart"):
        check(Inter(x(1, writes=("r1",)), Cond(Cmp(Attr("x"), "=", Attr("x", "r1")))))
    check(Next((x(1), x(2))))
    with pytest.raises(UnsupportedError, match="one condition"):
        check(Next((x(1), Star(x(2)))))


@settings(max_examples=60)
@given(expressions(4), streams(4))
def test_def_18_plus_is_e_then_e_star(e, s):
    """e⁺ := e·e* (§7.3)."""
    assert match(Plus(e), s) == match(Concat(e, Star(e)), s)


@settings(max_examples=60)
@given(expressions(4), streams(4))
def test_def_44_45_selection_is_a_rewriting(e, s):
    """ANY and NEXT mean their rewritings (Defs. 44–45)."""
    assert match(e, s) == match(desugar(e), s)


@settings(max_examples=60)
@given(expressions(4, strategies=False), expressions(4, strategies=False), streams(4))
def test_thm_34_intersection_is_match_intersection(e1, e2, s):
    """Def. 33/Thm. 34 at the match level: Match(e₁ ∩ e₂, S) = Match(e₁, S) ∩ Match(e₂, S) when the sides'
    registers are apart (here: e₂ has its registers renamed away and reads no register of e₁)."""
    e2r = rename_registers(e2, {"r1": "s1", "r2": "s2"})
    assert match(Inter(e1, e2r), s) == match(e1, s) & match(e2r, s)


@settings(max_examples=60)
@given(expressions(4), streams(4))
def test_def_32_streaming_is_the_union_over_suffixes(e, s):
    """Def. 32: the streaming output at k is ⋃ₘ Match(e, S[m..k]) shifted to absolute positions, restricted
    to k ∈ M (last-• reading); the pure reading keeps them all."""
    pure = as_dict(streaming_matches(e, s, pure=True))
    last = as_dict(streaming_matches(e, s))
    for k in range(len(s)):
        expected = {tuple(sorted(i + m for i in mm)) for m in range(k + 1) for mm in match(e, s[m:k + 1])}
        assert pure.get(k, set()) == expected
        assert last.get(k, set()) == {mm for mm in expected if k in mm}


def test_evaluator_derivations_thread_valuations():
    ev_ = Evaluator(parse("<x = 1> -> r1 . <x = r1.x>"), xs(1, 1))
    (m, v), = ev_.derivations()
    assert m == {0, 1} and v["r1"] == Event("a", x=1)
