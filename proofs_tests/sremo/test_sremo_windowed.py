"""Windowed SREMO (the SRT paper): the unrolled SRA of Lemma 46, determinization (Thm. 41, Alg. 7) and complement
(Cor. 43, Alg. 8), against the nondeterministic SRT on short strings."""


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.errors import SizeBudgetExceeded, UnsupportedError
from cer_theory.core.events import Event
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.determinize import complement, counts, determinize_sra
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.printer import format
from cer_theory.formalisms.sremo.semantics import accepts, match, streaming_matches
from cer_theory.formalisms.sremo.windowed import determinize_windowed, unroll
from cer_theory.testing.strategies.sremo import expressions, streams, with_complements

THM38 = '[TRUE]* . [type = "B"] -> r1 . [TRUE]* . <type = "S" AND id = r1.id>'
THM38_EVENTS = st.builds(lambda t, i: Event(t, id=i), st.sampled_from("BSX"), st.integers(0, 2))


@settings(max_examples=100)
@given(expressions(4, strategies=False, windows=False), st.integers(1, 3), streams(4))
def test_lemma_46_unrolled_sra_is_the_srt_on_strings_up_to_w(e, w, s):
    """Lemma 46 / Prop. 1: the unrolled SRA accepts exactly the strings of Lang(A) of length ≤ w, with the
    same matches."""
    t = compile_automaton(e)
    u = unroll(t, w)
    assert u.match(s) == (t.match(s) if len(s) <= w else frozenset())


@settings(max_examples=60)
@given(expressions(4, strategies=False, windows=False), st.integers(1, 3), streams(4))
def test_theorem_41_determinized_equals_unrolled_and_complement_is_a_complement(e, w, s):
    """Thm. 41: Lang(determinize_sra(unroll(A, w))) = Lang(unroll(A, w)); Cor. 43: the complement accepts exactly
    the other strings."""
    u = unroll(compile_automaton(e), w)
    d = determinize_sra(u)
    assert d.accepts(s) == u.accepts(s)
    assert complement(d).accepts(s) != d.accepts(s)


@settings(max_examples=15)
@given(expressions(3, strategies=False, windows=False), st.integers(1, 2))
def test_theorem_41_result_is_deterministic(e, w):
    """Alg. 7 yields a deterministic SRA in the strict sense (pairwise-UNSAT outgoing conditions, Z3)."""
    d = determinize_sra(unroll(compile_automaton(e), w))
    assert d.is_deterministic()
    assert complement(d).is_deterministic()


@settings(max_examples=60)
@given(st.integers(1, 5), st.data())
def test_section_8_windowed_determinization_of_theorem_38(w, data):
    """§8 oracle 8: for the Thm. 38 SRT and w = 1..5, on strings of length ≤ w + 2, the SRT restricted to
    |S| ≤ w and the unrolled-then-determinized SRA agree."""
    s = data.draw(st.lists(THM38_EVENTS, max_size=w + 2))
    t = compile_automaton(parse(THM38))
    assert determinize_sra(unroll(t, w)).accepts(s) == (len(s) <= w and t.accepts(s))


def test_p3_string_window_is_not_the_marked_span_window():
    """P3: the w = 2 dSRA rejects X, B1, S1, although Def. 39 accepts it (marked span 2)."""
    marked = '[TRUE]* . <type = "B"> -> r1 . [TRUE]* . <type = "S" AND id = r1.id>'
    s = [Event("X", id=0), Event("B", id=1), Event("S", id=1)]
    assert accepts(parse(f"({marked}) WITHIN 2"), s)
    assert not determinize_sra(unroll(compile_automaton(parse(marked)), 2)).accepts(s)


def test_section_4_8_sizes_on_the_theorem_38_pattern():
    """Our figures for the Fig. 4 pattern, w = 2..5: unrolled states, register copies and dSRA subsets. The
    prototype's 4/11/28/71 concrete subsets count one more each (the dead subset; we build none)."""
    t = compile_automaton(parse(THM38))
    sizes = []
    for w in range(2, 6):
        u = unroll(t, w)
        sizes.append((u.states, len(u.registers), determinize_sra(u).states))
    assert sizes == [(3, 1, 3), (8, 2, 10), (15, 3, 27), (24, 4, 70)]
    w2 = unroll(t, 2)  # Fig. 5: q_s -isB↓r1'-> a -isS ∧ EqId(~, r1')-> f, one register, already deterministic
    assert (w2.states, len(w2.transitions), w2.is_deterministic()) == (3, 2, True)


def test_complement_accepts_everything_longer_than_the_window():
    c = complement(determinize_sra(unroll(compile_automaton(parse(THM38)), 2)))
    assert all(c.accepts([Event("B", id=1)] * n) for n in (3, 4))
    assert not c.accepts([Event("B", id=1), Event("S", id=1)]) and c.accepts([Event("B", id=1), Event("S", id=2)])


def test_determinization_refuses_loops_and_budgets():
    """Thm. 38: the SRT of Fig. 4 is not determinizable; without unrolling we refuse rather than build a wrong
    automaton. An exponential construction stops at its budget with a clear message."""
    t = compile_automaton(parse(THM38))
    with pytest.raises(UnsupportedError, match="unroll"):
        determinize_sra(t)
    with pytest.raises(SizeBudgetExceeded, match="determinization"):
        determinize_sra(unroll(t, 5), budget=10)
    with pytest.raises(SizeBudgetExceeded, match="unrolling"):
        unroll(t, 50, budget=100)


def test_unrolling_replaces_atoms_on_never_written_registers_by_false():
    """Alg. 6 fix: an atom reading a register with no copy on the path is ⊥, and its negation ⊤ (Def. 13)."""
    never = unroll(compile_automaton(parse("<NOT x = r1.x> . <x = r1.x>")), 2)
    assert (never.states, never.transitions) == (1, ())  # the second atom is ⊥: everything is pruned
    negated = unroll(compile_automaton(parse("<NOT x = r1.x> . <x = 1>")), 2)
    assert [tr.guard.text() for tr in negated.transitions] == ["TRUE", "x = 1"]
    assert negated.accepts([Event("a", x=2), Event("a", x=1)])


def test_determinize_windowed_from_text_with_counts():
    d = determinize_windowed(parse(f"({THM38}) WITHIN 3"))
    assert counts(d) == {"states": 10, "transitions": 12, "registers": 2}
    assert d.is_deterministic()
    with pytest.raises(UnsupportedError, match="needs a window"):
        determinize_windowed(parse(THM38))
    with pytest.raises(SizeBudgetExceeded):
        determinize_windowed(parse(THM38), 10_000, budget=50)


@settings(max_examples=30)
@given(expressions(3, strategies=False), st.integers(1, 3), streams(4))
def test_theorem_41_with_windows_inside(e, w, s):
    """Windows below the top (position conditions, D44) go through unrolling and determinization too: the
    dSRA accepts exactly the strings of length ≤ w of the expression's language."""
    d = determinize_windowed(e, w)
    assert d.accepts(s) == (len(s) <= w and accepts(e, s))


def test_a_string_bounded_automaton_cannot_stream_every_window():
    """Why there is no `--via dsrt` for every WITHIN expression (docs/decisions.md D59): Def. 39 bounds the marked
    span only, so an unmarked, register-writing prefix may lie arbitrarily far back, while the unrolled SRA of
    Lemma 46 (and its dSRA) reads strings of length ≤ w only."""
    e = parse('([type = "B"] -> r1 . [TRUE]* . <type = "S" AND id = r1.id>) WITHIN 1')
    for gap in (0, 1, 5):
        s = [Event("B", id=1)] + [Event("X", id=0)] * gap + [Event("S", id=1)]
        assert [o.k for o in streaming_matches(e, s)] == [gap + 1]
    d = determinize_windowed(e)
    assert not any(d.accepts(s[m:]) for m in range(len(s)))


# ---------------------------------------------------------------------------------------------- !e in a window

@settings(max_examples=80, deadline=None)
@given(with_complements(3), streams(5))
def test_theorem_27_with_a_windowed_complement_sremo_equals_srt(e, s):
    """``!n`` inside a window, n register-free (the SRT paper §5.1.2, Cor. 43 on a symbolic automaton): the compiled SRT
    matches exactly what the reference semantics matches (Thm. 27, pure and last-• readings)."""
    t = compile_automaton(e)
    want = match(e, s)
    assert t.match(s) == want, (format(e), s)
    assert compile_automaton(e).match(s, pure=False) == {m for m in want if len(s) - 1 in m}


@settings(max_examples=40, deadline=None)
@given(with_complements(3), st.lists(streams(4), min_size=1, max_size=3))
def test_windowed_complement_dsra_accepts_what_the_body_rejects_up_to_w(e, strings):
    """Cor. 43 on an expression holding a complement: the dSRA of (e) WITHIN w and its complement split every
    string of length ≤ w (exactly one accepts), and the dSRA accepts what e's SRT accepts there."""
    d = determinize_windowed(e)
    comp = complement(d)
    body = compile_automaton(e.body, native_window=False, windowed=True)
    for s in strings:
        if len(s) <= e.w:
            assert d.accepts(s) != comp.accepts(s)
            assert d.accepts(s) == body.accepts(s), (format(e), s)


def test_the_audits_windowed_complement_is_built_and_agrees_with_the_semantics():
    """``(!([type = "B"]) . <TRUE>) WITHIN 3`` was refused with "allowed only inside a window" by complement,
    determinize and eval's SRT, though it is inside one."""
    e = parse('(!([type = "B"]) . <TRUE>) WITHIN 3')
    s = [Event(t) for t in "ABBC"]
    assert compile_automaton(e).match(s) == match(e, s)
    d = determinize_windowed(e)
    assert complement(d).accepts([Event("B"), Event("B")]) != d.accepts([Event("B"), Event("B")])


def test_a_complement_over_registers_is_refused_saying_why():
    e = parse('(<type = "A"> -> r . !([x = r.x]) . <TRUE>) WITHIN 3')
    with pytest.raises(UnsupportedError, match="!e is built for an e without registers, and this e uses the "
                                               "registers r: SRT are not closed under complement"):
        compile_automaton(e)
    with pytest.raises(UnsupportedError, match="allowed only inside a window"):  # the body without its window
        compile_automaton(parse('(!([type = "B"]) . <TRUE>) WITHIN 3').body)
