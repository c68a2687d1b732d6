"""The JSON Lines of ``cer-theory run``'s complex events (docs/decisions.md D455): the compiled
:func:`~cer_theory.engines.core.output_compiled.jsonl_lines` writes exactly the readable
:func:`~cer_theory.engines.core.output.jsonl_lines`'s string on generated complex events, event texts (escapes,
tricky numbers, missing values) and partitions, and the readable one is ``json.dumps`` of the complex event's JSON
object (``CoreComplexEvent.to_json`` with its events, then the partition), byte for byte."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import require

from cer_theory.core.events import CoreComplexEvent, Event
from cer_theory.engines.core import output
from cer_theory.engines.core.output import MatchWriter, jsonl_lines
from cer_theory.testing.strategies.predicates import extended_events

COMPILED = output.COMPILED_LINES


def require_compiled() -> None:
    require(COMPILED is not None, "the compiled output lines (built by `pip install -e .` where a C compiler is found)")


def _ces(draw: st.DrawFn) -> tuple[list[CoreComplexEvent], dict[int, Event]]:
    positions = draw(st.lists(st.integers(0, 2**62), min_size=0, max_size=12, unique=True))
    events = {p: draw(extended_events()) for p in positions}
    ces = []
    for _ in range(draw(st.integers(0, 6))):
        chosen = tuple(sorted(draw(st.sets(st.sampled_from(positions), max_size=5)))) if positions else ()
        start = draw(st.integers(0, chosen[0])) if chosen else draw(st.integers(0, 2**62))
        end = chosen[-1] if chosen else start + draw(st.integers(0, 5))
        ces.append(CoreComplexEvent(start, end, chosen))
    return ces, events


complex_events = st.composite(_ces)()
partitions = st.one_of(st.none(), st.lists(st.one_of(st.integers(-2**70, 2**70), st.text(max_size=4),
                                                     st.floats(allow_nan=False, allow_infinity=False)),
                                           min_size=1, max_size=3))


def _tail(partition: list | None) -> str:
    return "}\n" if partition is None else f', "partition": {json.dumps(partition)}}}\n'


@settings(max_examples=200, deadline=None)
@given(complex_events, partitions, st.booleans())
def test_readable_lines_are_json_dumps_of_the_complex_events(found, partition, positions_only):
    ces, events = found
    texts = {p: e.to_json_text() for p, e in events.items()}
    expected = []
    for ce in ces:
        obj = ce.to_json()
        if not positions_only:
            obj["events"] = [events[p].to_dict() for p in ce.positions]
        if partition is not None:
            obj["partition"] = partition
        expected.append(json.dumps(obj) + "\n")
    got = jsonl_lines(ces, texts, texts.__getitem__, _tail(partition), positions_only)
    assert got == "".join(expected), f"complex events: {ces}\nreadable: {got!r}\njson.dumps: {expected!r}"


@settings(max_examples=300, deadline=None)
@given(complex_events, partitions, st.booleans(), st.data())
def test_compiled_lines_are_the_readable_lines(found, partition, positions_only, data):
    """Some texts are made on demand (``text(p)``, which keeps what it makes), as the writer's cache does."""
    require_compiled()
    ces, events = found
    known = data.draw(st.sets(st.sampled_from(sorted(events)), max_size=len(events))) if events else set()

    def run(lines):  # type: ignore[no-untyped-def]
        texts = {p: events[p].to_json_text() for p in known}

        def text(p: int) -> str:
            made = texts[p] = events[p].to_json_text()
            return made
        return lines(ces, texts, text, _tail(partition), positions_only), texts

    readable, compiled = run(jsonl_lines), run(COMPILED)
    assert compiled == readable, f"complex events: {ces}\nreadable: {readable[0]!r}\ncompiled: {compiled[0]!r}"


def test_text_that_is_not_ascii_goes_to_the_readable_function():
    """``json.dumps`` escapes to ASCII, but a text given need not be: the compiled function, which copies ASCII,
    answers None for it, and the writer then writes the readable function's lines."""
    require_compiled()
    ces = [CoreComplexEvent(0, 1, (0, 1))]
    for texts, tail in [({0: '{"type": "é"}', 1: '{"type": "T"}'}, "}\n"),
                        ({0: '{"type": "S"}', 1: '{"type": "T"}'}, ', "partition": ["ü"]}\n')]:
        assert COMPILED(ces, texts, texts.__getitem__, tail, False) is None
        out = io.StringIO()
        writer = MatchWriter(out, "jsonl")
        writer._texts = texts
        writer._report(ces, None if tail == "}\n" else ("ü",))
        assert out.getvalue() == jsonl_lines(ces, texts, texts.__getitem__, tail.replace("ü", "\\u00fc"), False)


@pytest.mark.parametrize("number", [-2**63, 2**63 - 1, 2**63, -2**63 - 1, 2**80, True])
def test_numbers_are_written_as_the_readable_function_writes_them(number: int) -> None:
    """The least and greatest long long are written in C (``-v`` of the least overflows: its digits are counted
    from the unsigned magnitude); a number past them, or a bool, is left to the readable function (None)."""
    require_compiled()
    ces = [CoreComplexEvent(number, number, (number, 5))]
    texts = {number: '{"type": "A"}', 5: '{"type": "B"}'}
    for positions_only in (True, False):
        readable = jsonl_lines(ces, texts, texts.__getitem__, "}\n", positions_only)
        compiled = COMPILED(ces, texts, texts.__getitem__, "}\n", positions_only)
        if type(number) is int and -2**63 <= number < 2**63:
            assert compiled == readable
        else:
            assert compiled is None


def test_a_wrong_length_would_fail_the_compiled_lines():
    """The worked line, whose every piece's length the compiled function counts before it writes."""
    require_compiled()
    ces = [CoreComplexEvent(3, 12, (3, 7, 12)), CoreComplexEvent(0, 0, ())]
    texts = {3: '{"type": "A"}', 7: '{"type": "B", "x": -1.5}', 12: '{"type": "C"}'}
    assert COMPILED(ces, texts, texts.__getitem__, "}\n", False) == (
        '{"start": 3, "end": 12, "positions": [3, 7, 12], "events": [{"type": "A"}, {"type": "B", "x": -1.5}, '
        '{"type": "C"}]}\n{"start": 0, "end": 0, "positions": [], "events": []}\n')


def test_the_writer_takes_the_compiled_lines_unless_the_readable_loop_is_forced(monkeypatch):
    require_compiled()
    monkeypatch.delenv("CER_THEORY_PURE", raising=False)
    assert MatchWriter(io.StringIO(), "jsonl")._lines is COMPILED
    monkeypatch.setenv("CER_THEORY_PURE", "1")
    assert MatchWriter(io.StringIO(), "jsonl")._lines is None


@pytest.mark.parametrize("positions_only", [False, True])
def test_a_run_writes_the_same_bytes_with_either_lines(tmp_path, monkeypatch, positions_only):
    """End to end: ``cer-theory run``'s writer with the compiled lines and with the readable ones."""
    require_compiled()
    from cer_theory.engines.core.run import run_stream

    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps({"type": "ABC"[k % 3], "x": k % 4, "s": "q\"é"}) + "\n" for k in range(300)),
                    encoding="utf-8")
    query = "SELECT * FROM S WHERE A ; B ; C PARTITION BY [x] WITHIN 40 EVENTS"
    outs = []
    for lines in (COMPILED, None):  # (None: the readable function)
        out = tmp_path / f"out{len(outs)}.jsonl"
        writer = MatchWriter(str(out), "jsonl", positions_only=positions_only)
        writer._lines = lines
        run_stream(query, path, writer=writer, columnar_from=0)
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0].count(b"\n") > 100
