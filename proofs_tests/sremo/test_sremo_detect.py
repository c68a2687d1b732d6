"""Detection without enumeration in the shared run pool (``feed_lazy(detect=True)``, docs/decisions.md D64): the
same positions report as with every match listed, and the pool after each event is the same."""

from hypothesis import given, settings
from hypothesis import strategies as st
from sremo_oracles import SEQ3

from cer_theory.core.events import Event
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.shared import SharedRecognizer
from cer_theory.testing.strategies.sremo import expressions, streams, windowed


def _pool(rec: SharedRecognizer) -> dict:
    return {q: {v: (e, None if n is None else n.latest) for v, (e, n) in groups.items()}
            for q, groups in rec.pool.items() if groups}


@settings(max_examples=150)
@given(st.one_of(expressions(5), windowed(4)), streams(8), st.booleans())
def test_detection_reports_where_enumeration_does(e, s, pure):
    t = compile_automaton(e)
    full, detect = SharedRecognizer(t, pure=pure), SharedRecognizer(t, pure=pure)
    for k, event in enumerate(s):
        found = full.feed(event)
        nodes, empty = detect.feed_lazy(event, detect=True)
        assert bool(nodes or empty) == bool(found), (str(e), k)
        assert _pool(detect) == _pool(full), (str(e), k)


def test_detection_visits_a_final_transition_until_its_first_report():
    """seq₃'s last transition keeps no run: once one group reports, the others are not visited (counted)."""
    t = compile_automaton(parse(SEQ3))
    stream = [Event(n, price=p) for p in range(1, 6) for n in ("INTC", "RIMM")] + [Event("QQQ", price=99)]
    full, detect = SharedRecognizer(t), SharedRecognizer(t)
    for event in stream[:-1]:
        full.feed(event)
        detect.feed_lazy(event, detect=True)
    assert len(full.feed_lazy(stream[-1])[0]) >= 5  # at least one reporting node per INTC register content
    assert len(detect.feed_lazy(stream[-1], detect=True)[0]) == 1
