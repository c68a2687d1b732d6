"""The shared run pool (runs grouped by state and registers, marked sets in a DAG) against Alg. 1's plain run
pool (the SRT paper §4.3) and the streaming semantics (Def. 32)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sremo_oracles import (E1, E1_STREAM, E1_W4_STREAM, E2, E2_STREAM, E2_STREAM_DATA, E4, E4_PLUS_STREAM,
                           E4_STREAM, SEQ3, SEQ3_DATA, SEQ3_STREAM, SEQ3_W4_STREAM, TABLE_1, TABLE_4, as_dict)

from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import Event
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.epsilon import eliminate_epsilon
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.semantics import streaming_matches
from cer_theory.formalisms.sremo.shared import SharedRecognizer, recognize_shared
from cer_theory.formalisms.sremo.srt import Recognizer, recognize
from cer_theory.testing.strategies.sremo import expressions, streams, windowed

ORACLES = [(E1, TABLE_1, E1_STREAM), (f"({E1}) WITHIN 4", TABLE_1, E1_W4_STREAM),
           (E2, E2_STREAM_DATA, E2_STREAM), (E4, TABLE_4, E4_STREAM), (f"({E4})+", TABLE_4, E4_PLUS_STREAM),
           (SEQ3, SEQ3_DATA, SEQ3_STREAM), (f"({SEQ3}) WITHIN 4", SEQ3_DATA, SEQ3_W4_STREAM)]


@pytest.mark.parametrize("text, stream, expected", ORACLES)
def test_section_8_oracles(text, stream, expected):
    assert as_dict(recognize_shared(compile_automaton(parse(text)), stream)) == expected


@settings(max_examples=150)
@given(st.one_of(expressions(5), windowed(4)), streams(8), st.booleans())
def test_shared_pool_equals_the_plain_pool_and_the_semantics(e, s, pure):
    t = compile_automaton(e)
    want = as_dict(recognize(t, s, pure=pure))
    assert as_dict(recognize_shared(t, s, pure=pure)) == want
    assert as_dict(recognize_shared(eliminate_epsilon(t), s, pure=pure)) == want
    if len(s) <= 5:
        assert want == as_dict(streaming_matches(e, s, pure=pure))


def _ticks(n, seed=3):
    """A stock-like stream: names cycling with noise, prices that rise and fall."""
    import random
    rng = random.Random(seed)
    return [Event("T", name=rng.choice(["INTC", "RIMM", "QQQ", "MSFT"]), price=rng.randint(1, 9)) for _ in range(n)]


@pytest.mark.parametrize("w", [5, 20, 60])
def test_seq3_on_a_stream_with_sharing(w):
    """seq₃ under skip-till-any (§7): same matches at every position, and fewer groups than plain runs — the runs
    that differ only in the RIMM they marked share one group."""
    text = ('(ANY(<name = "INTC"> -> r1, <name = "RIMM">, <name = "QQQ" AND price > r1.price>)) WITHIN '
            f"{w}")
    t = compile_automaton(parse(text))
    plain, shared = Recognizer(t), SharedRecognizer(t)
    peak_runs = 0
    for k, event in enumerate(_ticks(300)):
        assert shared.feed(event) == plain.feed(event), k
        peak_runs = max(peak_runs, len(plain.runs))
    if w >= 20:
        assert shared.peak_groups < peak_runs


def test_lazy_outputs_and_bad_input():
    t = compile_automaton(parse(E1))
    r = SharedRecognizer(t)
    said = [bool(r.feed_lazy(e)[0]) for e in TABLE_1]
    assert said == [k in E1_STREAM for k in range(len(TABLE_1))]
    with pytest.raises(StreamFormatError):
        r.feed({"type": "B"})
