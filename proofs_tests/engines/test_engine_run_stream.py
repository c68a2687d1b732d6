"""``run_stream``, the one way to run a query (docs/decisions.md D171): the same matches from every kind of source
as ``Engine.process``, re-ordering within a lateness with the late events written aside and renamed into place,
counts on the returned ``Run``, and a writer drained to the end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cer_theory.core.errors import CerError
from cer_theory.core.events import Event
from cer_theory.engines.core import Engine
from cer_theory.engines.core.output import MatchWriter
from cer_theory.engines.core.run import LateEvents, reorder_key, run_stream
from cer_theory.formalisms.ceql.parser import parse, parse_declarations

QUERY = "SELECT * FROM S WHERE A ; B PARTITION BY [k] WITHIN 10 [time]"
EVENTS = [Event("A", time=1, k=1), Event("A", time=5, k=2), Event("B", time=4, k=1), Event("B", time=2, k=1),
          Event("B", time=6), Event("B", time=6, k=2)]
IN_ORDER = [Event("A", time=1, k=1), Event("A", time=3, k=2), Event("B", time=4, k=1), Event("B", time=6),
            Event("B", time=6, k=2)]


def _positions(matches) -> list[tuple[int, ...]]:
    return [m.positions for m in matches]


def test_in_order_sources_give_what_the_engine_gives(tmp_path: Path) -> None:
    stream = IN_ORDER
    want = _positions(Engine(QUERY).process(stream))
    assert want == [(0, 2), (1, 4)]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(e.to_json_text() + "\n" for e in stream))
    for source in (stream, [e.to_dict() for e in stream], str(path), path):
        run = run_stream(QUERY, source)
        assert _positions(run) == want, source
        assert (run.events, run.unpartitioned, run.late_count) == (5, 1, 0)


def test_a_lateness_reorders_and_writes_the_late_events_aside(tmp_path: Path) -> None:
    late = tmp_path / "late.jsonl"
    run = run_stream(QUERY, EVENTS, lateness="2 s", late_sink=late)
    matches = iter(run)
    first = next(matches)
    assert first.positions == (0, 1) and not late.exists()  # (written aside until the run ends)
    assert _positions(matches) == [(2, 4)]
    assert run.late_count == 1 and run.lateness == 2.0
    assert [json.loads(line) for line in late.read_text().splitlines()] == [
        {"line": 3, "watermark": 3, "event": {"type": "B", "time": 2, "k": 1}}]
    assert not Path(f"{late}.part").exists()


def test_a_declared_quarantine_is_the_lateness_and_an_argument_wins(tmp_path: Path) -> None:
    declared = parse_declarations("CREATE QUARANTINE { FIXED_TIME 3 seconds {S} }")
    run = run_stream(QUERY, EVENTS, declarations=declared, late_sink=tmp_path / "l.jsonl")
    assert _positions(run) == [(0, 1), (0, 2), (3, 5)] and run.late_count == 0 and run.lateness == 3
    run = run_stream(QUERY, EVENTS, declarations=declared, lateness=0, late_sink=tmp_path / "l.jsonl")
    list(run)
    assert run.late_count == 2


def test_the_late_file_may_not_be_the_input(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(e.to_json_text() + "\n" for e in EVENTS))
    with pytest.raises(CerError, match="is the input stream"):
        run_stream(QUERY, path, lateness=1, late_sink=path)
    assert isinstance(run_stream(QUERY, path, lateness=1).late, LateEvents)


def test_a_writer_is_drained_and_closed(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    writer = MatchWriter(str(out), "jsonl", positions_only=True)
    run = run_stream(QUERY, IN_ORDER, writer=writer)
    assert writer.count == 2 and run.events == 5
    assert [json.loads(line)["positions"] for line in out.read_text().splitlines()] == [[0, 2], [1, 4]]


def test_events_are_reordered_by_the_window_attribute_else_the_given_one() -> None:
    assert reorder_key(parse("SELECT * FROM S WHERE A WITHIN 3 [ts]")) == "ts"
    assert reorder_key(parse("SELECT * FROM S WHERE A WITHIN 3 EVENTS"), "t") == "t"
    assert reorder_key(parse("SELECT * FROM S WHERE A")) == "time"
