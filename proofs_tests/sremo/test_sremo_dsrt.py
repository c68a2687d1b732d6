"""``--via dsrt``: streaming matches by the unrolled, determinized SRA (the SRT paper Lemma 46, Thm. 41;
docs/decisions.md D59, D61), against the reference semantics (Def. 32, last-• reading)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from sremo_oracles import E1, E1_W4_STREAM, SEQ3, SEQ3_DATA, SEQ3_W4_STREAM, TABLE_1

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import Event
from cer_theory.formalisms.sremo import compile_automaton, evaluate, parse
from cer_theory.formalisms.sremo.ast import Window
from cer_theory.formalisms.sremo.dsrt import DeterministicRecognizer, build, fragment_violation, handles, run_dsrt
from cer_theory.testing.strategies.sremo import streams, windowed


def _by_k(outputs) -> dict[int, set[tuple[int, ...]]]:
    return {k: {tuple(sorted(m)) for m in ms} for k, ms in enumerate(outputs) if ms}


@pytest.mark.parametrize("text, stream, expected", [
    (f"({E1}) WITHIN 4", TABLE_1, E1_W4_STREAM),
    (f"({SEQ3}) WITHIN 4", SEQ3_DATA, SEQ3_W4_STREAM),
])
def test_section_8_oracles_by_the_dsra(text: str, stream, expected) -> None:
    assert _by_k(run_dsrt(parse(text), stream)) == expected


@settings(max_examples=80)
@given(windowed().filter(handles), streams(6))
def test_dsrt_equals_the_semantics_on_its_fragment(e: Window, s: list[Event]) -> None:
    """Differential: every windowed expression whose matches begin with a mark, on generated streams."""
    got, want = run_dsrt(e, s), evaluate(e, s)
    assert got == want, f"{e}\n{s}\ndsrt:      {_by_k(got)}\nsemantics: {_by_k(want)}"


@settings(max_examples=40)
@given(windowed(), streams(6))
def test_outside_the_fragment_it_refuses_rather_than_answers(e: Window, s: list[Event]) -> None:
    why = fragment_violation(e)
    if why is None:
        assert run_dsrt(e, s) == compile_automaton(e).run(s)
    else:
        with pytest.raises(UnsupportedError):
            build(e)


def test_the_d59_witness_is_refused_by_name() -> None:
    """An unmarked B any distance before the S: no automaton over the last w events sees it (D59)."""
    e = parse('([type = "B"] -> r1 . [TRUE]* . <type = "S" AND id = r1.id>) WITHIN 1')
    with pytest.raises(UnsupportedError, match="every match begins with a marked"):
        run_dsrt(e, TABLE_1)
    with pytest.raises(UnsupportedError, match="WITHIN w"):
        build(parse(E1))
    # a complement is built now (the SRT paper §5.1.2), and its unmarked slice may begin a match: refused for that
    with pytest.raises(UnsupportedError, match="every match begins with a marked"):
        build(parse('(!<type = "a">) WITHIN 2'))


@pytest.mark.parametrize("w", [3, 10])
def test_at_most_w_runs_and_one_transition_each(w: int) -> None:
    """Complexity by counting: the runs alive never exceed w, whatever the stream's length."""
    peaks = []
    for n in (10, 100):
        r = DeterministicRecognizer(build(parse(f"({SEQ3}) WITHIN {w}")))
        stream = [Event(t, price=p) for p in range(n) for t in ("INTC", "RIMM", "QQQ")] + [Event("INTC")] * n
        for event in stream:
            r.feed(event)
            assert len(r.runs) < w  # the fresh run, plus at most w - 1 older ones, are stepped per event
        peaks.append(r.max_runs)
    assert peaks[0] == peaks[1] <= w and peaks[0] >= 2  # the work per event does not grow with the stream
