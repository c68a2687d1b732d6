"""SRT (the SRT paper §4): Thm. 27 (SREMO → SRT), Lemma 29 (ε-elimination, P4), Alg. 1 (streaming recognizer, P7),
Def. 36 (determinism, P9), Thm. 34 (product, P8), against the reference semantics."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sremo_oracles import (E1, E1_STREAM, E1_W4_STREAM, E2, E2_STREAM, E2_STREAM_DATA, E4, E4_PLUS_STREAM,
                           E4_STREAM, SEQ3, SEQ3_DATA, SEQ3_STREAM, SEQ3_W4_STREAM, TABLE_1, TABLE_4, THM38,
                           THM38_ACCEPTED, THM38_REJECTED, as_dict)

from cer_theory.automata.registers import EMPTY
from cer_theory.core.errors import AutomatonError, StreamFormatError, SyntaxErrorCER, UnsupportedError
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import TRUE, Attr, Cmp, IsType
from cer_theory.formalisms.sremo.ast import EPS, Concat, Cond, Plus, Star, Union, Window
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.epsilon import alg2, eliminate_epsilon
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.semantics import match, evaluate, streaming_matches
from cer_theory.formalisms.sremo.srt import SRT, Recognizer, Transition, recognize
from cer_theory.testing.strategies.sremo import conds, expressions, streams, windowed


def xs(*values):
    return [Event("a", x=v) for v in values]


ORACLES = [(E1, TABLE_1, E1_STREAM), (f"({E1}) WITHIN 4", TABLE_1, E1_W4_STREAM),
           (E2, E2_STREAM_DATA, E2_STREAM), (E4, TABLE_4, E4_STREAM), (f"({E4})+", TABLE_4, E4_PLUS_STREAM),
           (SEQ3, SEQ3_DATA, SEQ3_STREAM), (f"({SEQ3}) WITHIN 4", SEQ3_DATA, SEQ3_W4_STREAM)]


@pytest.mark.parametrize("text, stream, expected", ORACLES)
def test_section_8_oracles_on_the_streaming_recognizer(text, stream, expected):
    """The worked examples of the SRT paper (Table 1 with e₁ and Ex. 40's window, eq. 4, Table 4 with e and e⁺,
    the seq₃-like STAM pattern with and without w = 4) on Alg. 1 (with the P7 fix)."""
    assert as_dict(recognize(compile_automaton(parse(text)), stream)) == expected


def test_theorem_38_strings_on_the_srt():
    t = compile_automaton(parse(THM38))
    assert all(t.accepts(s, pure=False) for s in THM38_ACCEPTED)
    assert not any(t.accepts(s, pure=False) for s in THM38_REJECTED)


def test_example_25_run_writes_r1_once():
    """Ex. 25: the run of e₁'s SRT on S₁..₄ is [1,q_s,#] → [2,q₁,t₁] → [3,q₁,t₁] → [4,q₁,t₁] → [5,q_f,t₁]."""
    t = eliminate_epsilon(compile_automaton(parse(E1)))
    runs = t.accepting_runs(TABLE_1[:4], pure=False)
    assert [r.match for r in runs] == [frozenset({0, 3})]
    cs = runs[0].configurations
    assert [c.j for c in cs] == [0, 1, 2, 3, 4]
    assert cs[0].v == EMPTY and all(c.v == EMPTY.write(["r1"], TABLE_1[0]) for c in cs[1:])
    # Thompson's construction keeps the state after isB apart from the ⊤-loop state that Fig. 1 merges into q₁.
    assert cs[2].q == cs[3].q and cs[4].q in t.finals
    assert sum(1 for tr in runs[0].transitions if tr.writes) == 1


@settings(max_examples=100)
@given(expressions(5), streams(5))
def test_theorem_27_sremo_equals_srt_with_and_without_epsilon(e, s):
    """Thm. 27: Match(e, S) = Match(T, S) (pure reading), for T with ε-transitions and its ε-free form
    (Lemma 29), and Alg. 2 with W in its group key (P4 fix)."""
    t = compile_automaton(e)
    want = match(e, s)
    assert t.match(s) == want
    assert eliminate_epsilon(t).match(s) == want
    assert alg2(t).match(s) == want


@settings(max_examples=100)
@given(expressions(5), streams(5))
def test_p1_last_bullet_reading_keeps_the_matches_with_the_last_position(e, s):
    """P1: Match under Def. 24's last-• rule = {M ∈ Match(e, S) : |S| ∈ M}."""
    assert compile_automaton(e).match(s, pure=False) == {m for m in match(e, s) if len(s) - 1 in m}


@settings(max_examples=100)
@given(st.one_of(expressions(5), windowed(4)), streams(6), st.booleans())
def test_alg_1_recognizer_equals_streaming_semantics(e, s, pure):
    """Alg. 1 with the P7 fix = Def. 32, in both readings, with top-level windows (Def. 39), on the SRT with
    ε-transitions and on its ε-free form (Lemma 29)."""
    t = compile_automaton(e)
    want = as_dict(streaming_matches(e, s, pure=pure))
    assert as_dict(recognize(t, s, pure=pure)) == want
    assert as_dict(recognize(eliminate_epsilon(t), s, pure=pure)) == want


@settings(max_examples=80)
@given(windowed(4), streams(5))
def test_def_39_window_on_the_srt_filters_by_marked_span(e, s):
    """The SRT's window = the unwindowed matches with a non-empty marked span ≤ w."""
    inner = compile_automaton(e.body).match(s)
    assert compile_automaton(e).match(s) == {m for m in inner if m and max(m) - min(m) + 1 <= e.w}


def test_p7_killing_accepting_runs_loses_matches():
    """P7: a·b⁺ on "abbb": Alg. 1 as written reports only {1,2}; keeping runs with successors reports all."""
    e = parse("<type = \"a\"> . <type = \"b\">+")
    s = [Event(c) for c in "abbb"]
    t = compile_automaton(e)
    assert as_dict(recognize(t, s, kill_on_report=True)) == {1: {(0, 1)}}
    assert as_dict(recognize(t, s)) == {1: {(0, 1)}, 2: {(0, 1, 2)}, 3: {(0, 1, 2, 3)}} == \
        as_dict(streaming_matches(e, s))


def test_p4_alg2_without_w_in_the_group_key_is_unsound():
    """P4: e = (⊤↑⊗↓r1)·((⊤↑⊗↓r1) + (⊤↑⊗))·(P(~,r1)↑•) on 7, 8, 7: Match = {{3}} (0-based {2}); Alg. 2 grouping
    by (φ, o) only merges the two middle transitions into one that writes r1, and finds nothing."""
    e = parse("[TRUE] -> r1 . ([TRUE] -> r1 | [TRUE]) . <x = r1.x>")
    s = xs(7, 8, 7)
    t = compile_automaton(e)
    assert match(e, s) == {frozenset({2})} == t.match(s) == eliminate_epsilon(t).match(s)
    assert alg2(t, group_writes=True).match(s) == {frozenset({2})}
    assert alg2(t, group_writes=False).match(s) == frozenset()


def test_p8_product_pairs_equal_outputs_only():
    """P8: T₁ = (⊤↑•)(⊤↑•), T₂ = (⊤↑⊗)(⊤↑•) on "ab": Match₁ ∩ Match₂ = ∅ (the paper's product gives {{2}})."""
    e = parse("<TRUE> . <TRUE> & [TRUE] . <TRUE>")
    s = xs(1, 2)
    assert match(e, s) == frozenset() == compile_automaton(e).match(s)


def test_def_36_determinism_and_p9():
    """Def. 36 constrains only transitions with different targets; two overlapping transitions to the same
    target with different W still give two runs (P9), so the strict check rejects them."""
    b = IsType("B")
    same_target = SRT(2, 0, frozenset([1]), (Transition(0, b, 1, frozenset(["r1"]), True), Transition(0, b, 1)))
    assert same_target.is_deterministic(strict=False) and not same_target.is_deterministic()
    assert len(same_target.accepting_runs([Event("B")])) == 2
    seq = eliminate_epsilon(compile_automaton(parse('<type = "B"> -> r1 . <type = "S" AND id = r1.id>')))
    assert seq.is_deterministic()
    skip = eliminate_epsilon(compile_automaton(parse('[TRUE]* . <type = "B">')))
    assert not skip.is_deterministic()
    assert compile_automaton(parse("<TRUE> . <TRUE>")).transitions[-1].is_epsilon
    assert not compile_automaton(parse("<TRUE> . <TRUE>")).is_deterministic()  # ε-transitions


def test_register_conditions_are_false_on_empty_registers_in_the_srt():
    """An atom reading an empty register is false (Def. 13), so its negation holds."""
    neq = Cmp(Attr("x"), "!=", Attr("x", "r1"))
    t = SRT(2, 0, frozenset([1]), (Transition(0, neq, 1, marked=True),))
    assert not t.accepts(xs(1))
    t2 = SRT(2, 0, frozenset([1]), (Transition(0, ~Cmp(Attr("x"), "=", Attr("x", "r1")), 1, marked=True),))
    assert t2.accepts(xs(1))


def test_srt_validation_and_drawing():
    with pytest.raises(AutomatonError, match="ε-transition"):
        SRT(2, 0, frozenset([1]), (Transition(0, None, 1, marked=True),))
    with pytest.raises(AutomatonError, match="states"):
        SRT(1, 0, frozenset([3]), ())
    dot = compile_automaton(parse(f"({E1}) WITHIN 4")).to_dot(title="e1")
    assert "↓r1" in dot and "↑•" in dot and "↑⊗" in dot and "doublecircle" in dot
    assert "window=4" in repr(compile_automaton(parse(f"({E1}) WITHIN 4")))


def test_windows_below_the_top_by_an_index_attribute():
    """§5.1: a window below the top compiles to a window register and position conditions (docs/decisions.md):
    e₁'s Ex. 40 window after one leading event, and iterated (a new window each iteration)."""
    t = compile_automaton(parse(f"<TRUE> . ({E1}) WITHIN 4"))
    assert t.positions and "#w1" in t.registers
    assert as_dict(recognize(t, TABLE_1)) == {3: {(0, 1, 3)}, 4: {(0, 1, 4)}}
    it = parse(f"(({E1}) WITHIN 4)+")
    assert as_dict(recognize(compile_automaton(it), TABLE_1)) == E1_W4_STREAM == as_dict(streaming_matches(it, TABLE_1))
    assert compile_automaton(parse("(<x = 1>) WITHIN 1 & (<x = 1>) WITHIN 1")).registers == {"#w1", "#w2"}


def test_unsupported_constructions_say_why():
    """A windowed complement of a register-free e is built (the SRT paper §5.1.2, Cor. 43 on a symbolic automaton);
    over registers it is refused: SRT are not closed under complement (Thm. 35)."""
    e = parse("(!<x = 1> . <x = 2>) WITHIN 3")
    assert compile_automaton(e).match(TABLE_1) == match(e, TABLE_1)
    with pytest.raises(UnsupportedError, match="SRT are not closed under complement"):
        compile_automaton(parse("(<x = 1> -> r . !<x = r.x> . <x = 2>) WITHIN 3"))


def test_recognizer_is_incremental():
    r = Recognizer(compile_automaton(parse(E1)))
    outs = [r.feed(ev) for ev in TABLE_1]
    assert [k for k, o in enumerate(outs) if o] == [3, 4] and r.k == 6
    assert compile_automaton(parse(E1)).run(TABLE_1) == outs == evaluate(parse(E1), TABLE_1)


def test_bad_streams_are_reported_not_crashed_on():
    t = compile_automaton(parse(E1))
    for run in (lambda s: t.match(s), lambda s: recognize(t, s), lambda s: match(parse(E1), s)):
        with pytest.raises(StreamFormatError, match="position 1"):
            run([TABLE_1[0], {"type": "B"}])


def test_deep_nesting_is_a_syntax_error():
    assert parse("(" * 3000 + "<x = 1>" + ")" * 3000) == parse("<x = 1>")  # groups add no depth
    with pytest.raises(SyntaxErrorCER, match="nests more than 100 levels deep"):
        parse("(" + "!" * 5000 + "<x = 1>) WITHIN 2")


_MARKED = conds(()).map(lambda c: Cond(c.guard, True, c.writes))
_SKIP = Star(Cond(TRUE, marked=False))
# Bodies that mark several positions, so that spans just above and below w occur.
_MARKED_RUNS = st.one_of(st.builds(Concat, _MARKED, _MARKED), st.builds(lambda c: Plus(c), _MARKED),
                         st.builds(lambda a, b: Concat(Concat(a, _SKIP), b), _MARKED, _MARKED))


@settings(max_examples=100)
@given(st.one_of(expressions(4, windows=False), _MARKED_RUNS), st.integers(1, 3),
       st.sampled_from(["lead", "star", "union"]), streams(6))
def test_def_39_windows_below_the_top_compile_exactly(e, w, where, s):
    """Def. 39 below the top (index-attribute encoding): the SRT's matches are the semantics', for a window
    after an unmarked event, iterated, or beside another branch."""
    win = Window(e, w)
    whole = {"lead": Concat(Cond(TRUE, marked=False), win), "star": Star(win), "union": Union(win, EPS)}[where]
    t = compile_automaton(whole)
    assert t.match(s) == match(whole, s)
    assert as_dict(recognize(t, s)) == as_dict(streaming_matches(whole, s))
