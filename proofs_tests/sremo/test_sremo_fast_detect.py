"""The detector (`formalisms/sremo/detect.py`, docs/decisions.md D113–D115) against the readable recognizers:
it says True at exactly the positions where `SharedRecognizer` and Alg. 1's run pool (the SRT paper §4.3) report a
streaming match (Def. 32); and its shortcuts are counted (groups visited, quiet events), never timed."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sremo_oracles import E1, E1_STREAM, E1_W4_STREAM, E4, E4_STREAM, SEQ3, SEQ3_DATA, SEQ3_STREAM, SEQ3_W4_STREAM, TABLE_1, TABLE_4

from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import TRUE, Attr, Cmp, Const, IsType, conj
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.detect import Detector, detect, equality_key, redirections
from cer_theory.formalisms.sremo.epsilon import eliminate_epsilon
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.shared import SharedRecognizer, move_table
from cer_theory.formalisms.sremo.srt import SRT, Recognizer, Transition
from cer_theory.testing.strategies.sremo import events, expressions, streams, windowed


def _reference(t, stream, pure):
    shared, plain = SharedRecognizer(t, pure=pure), Recognizer(t, pure=pure)
    out = []
    for k, event in enumerate(stream):
        a, b = shared.feed(event), plain.feed(event)
        assert a == b, k
        if a:
            out.append(k)
    return out


@settings(max_examples=200)
@given(st.one_of(expressions(5), windowed(4)), streams(10), st.booleans())
def test_detector_reports_where_the_recognizers_do(e, s, pure):
    t = compile_automaton(e)
    want = _reference(t, s, pure)
    assert detect(t, s, pure=pure) == want, (str(e), s, want)
    assert detect(eliminate_epsilon(t), s, pure=pure) == want, str(e)


@settings(max_examples=60)
@given(windowed(4, strategies=True), st.lists(events(), min_size=20, max_size=40))
def test_detector_on_longer_streams_with_windows(e, s):
    """Longer than the windows, so that groups expire, sweeps run and quiet events skip them."""
    t = compile_automaton(e)
    assert detect(t, s) == _reference(t, s, False), str(e)


@pytest.mark.parametrize("text, stream, expected", [
    (E1, TABLE_1, E1_STREAM), (f"({E1}) WITHIN 4", TABLE_1, E1_W4_STREAM), (E4, TABLE_4, E4_STREAM),
    (SEQ3, SEQ3_DATA, SEQ3_STREAM), (f"({SEQ3}) WITHIN 4", SEQ3_DATA, SEQ3_W4_STREAM)])
def test_section_8_oracles(text, stream, expected):
    assert detect(compile_automaton(parse(text)), stream) == sorted(expected)


def _seq3(w):
    return compile_automaton(parse(
        f'(ANY((<name = "INTC"> -> r1), <name = "RIMM">, <name = "QQQ" AND price > r1.price>)) WITHIN {w}'))


def test_quiet_events_visit_no_group():
    """Events that enable only the ⊤* self-loops are skipped without a visit (D114), however many groups wait."""
    d = Detector(_seq3(500))
    for k in range(30):
        d.feed(Event("T", name="INTC", price=k))
    assert d.groups >= 30
    before = d.visited
    for k in range(200):
        assert not d.feed(Event("T", name="IPIX", price=k))
    assert d.visited == before
    assert d.quiet == 200


def test_a_repeated_bulk_move_visits_only_the_changed_groups():
    """seq₃'s RIMM step moves every INTC group; after the first RIMM, the next ones visit only the groups that
    arrived since (D115), not the 40 that wait."""
    d = Detector(_seq3(500))
    for k in range(40):
        d.feed(Event("T", name="INTC", price=k))
    d.feed(Event("T", name="RIMM", price=1))
    first = d.visited
    assert first >= 40
    for _ in range(20):
        d.feed(Event("T", name="RIMM", price=1))
    assert d.visited - first <= 20
    d.feed(Event("T", name="INTC", price=99))
    d.feed(Event("T", name="RIMM", price=1))
    assert d.visited - first <= 20 + 2 + 1


def test_a_final_move_stops_at_its_first_report():
    d = Detector(_seq3(500))
    for k in range(40):
        d.feed(Event("T", name="INTC", price=k))
        d.feed(Event("T", name="RIMM", price=1))
    before = d.visited
    assert d.feed(Event("T", name="QQQ", price=100))
    assert d.visited - before == 1


def test_detector_equals_the_shared_pool_on_a_stock_like_stream():
    import random
    rng = random.Random(5)
    stream = [Event("T", name=rng.choice(["INTC", "RIMM", "QQQ", "MSFT", "ORCL"]), price=rng.randint(1, 9))
              for _ in range(400)]
    for w in (5, 30):
        t = _seq3(w)
        shared = SharedRecognizer(t)
        want = [k for k, e in enumerate(stream) if shared.feed_lazy(e, detect=True)[0]]
        d = Detector(t)
        assert list(d.run(stream)) == want
        assert d.quiet > 0


def test_skip_till_any_gaps_are_merged_into_their_loops():
    t = _seq3(500)
    table = move_table(t)
    into = redirections(table)
    assert len(set(into.values())) == 2  # the gap after INTC and the gap after RIMM
    assert all(table.stays[q] and not table.stays[p] for p, q in into.items())
    # So every group the detector keeps lives in a state with a self-loop: none dies at the next event.
    d = Detector(t)
    moves = [m for ms in d._by_check for m in ms] + list(d._always)
    assert {m[3] for m in moves} <= set(into.values()) | {q for q in range(t.states) if table.final[q]}
    assert not d._always


def test_equality_keys():
    name = Cmp(Attr("name"), "=", Const("INTC"))
    assert equality_key(conj(Cmp(Attr("price"), ">", Const(3)), name)) == ("name", "INTC")
    assert equality_key(Cmp(Const(2), "=", Attr("x"))) == ("x", 2)
    assert equality_key(IsType("B")) == ("type", "B")
    assert equality_key(Cmp(Attr("x"), "=", Attr("x", "r1"))) is None
    assert equality_key(Cmp(Attr("x"), "<", Const(2))) is None


def test_the_index_keeps_def_13_kinds():
    """The hash index only proposes candidates: 1.0 equals 1 (both numbers), True does not (a boolean)."""
    t = compile_automaton(parse("<x = 1>"))
    stream = [Event("a", x=1.0), Event("a", x=True), Event("a", x=1), Event("a", x=2)]
    assert detect(t, stream) == _reference(t, stream, False) == [0, 2]


def test_bad_input():
    d = Detector(compile_automaton(parse(E1)))
    with pytest.raises(StreamFormatError, match="position 0: expected an Event"):
        d.feed({"type": "B"})


def test_a_gap_is_merged_only_into_a_loop_of_the_same_finality():
    """State 1 (final, after `a`) has state 2's moves plus ⊤ to 2, but 2 is not final: arrivals at 1 must stay
    at 1, or the match {0} would not report (D115's condition)."""
    a, b = IsType("a"), IsType("b")
    t = SRT(4, 0, frozenset({1, 3}), (Transition(0, a, 1, marked=True), Transition(1, TRUE, 2),
                                      Transition(2, TRUE, 2), Transition(2, b, 3, marked=True),
                                      Transition(1, b, 3, marked=True)))
    assert redirections(move_table(t)) == {}
    stream = [Event("a", x=0), Event("c", x=0), Event("b", x=0)]
    assert detect(t, stream) == _reference(t, stream, False) == [0, 2]


@pytest.mark.parametrize("text", ['<type = "a"> . [TRUE]*', '(<type = "a"> . [TRUE]*) WITHIN 2'])
def test_pure_reading_reports_through_a_final_loop(text):
    """Under the pure reading a run in a final state with a ⊤* loop reports at every later event, quiet or not."""
    t = compile_automaton(parse(text))
    stream = [Event("a"), Event("b"), Event("b"), Event("a"), Event("b")]
    want = _reference(t, stream, True)
    assert want == [0, 1, 2, 3, 4]
    assert detect(t, stream, pure=True) == want
    assert detect(t, stream) == _reference(t, stream, False) == [0, 3]
