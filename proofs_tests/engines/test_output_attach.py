"""The output writers' fast path (cer_theory/engines/core/output.py, docs/decisions.md D155) against the readable
one: an engine with a :class:`MatchWriter` attached (``Engine.report_to``: no Match per CE, each event's JSON
text made once per position) writes exactly the bytes (JSON Lines, CSV) or the table (Parquet) that
``MatchWriter.write`` writes for the Matches the same engine yields, for every output format, with and without
``positions_only``, on every input path (Events, dicts in batches, a JSON Lines file in tiny batches); and
``Event.to_json_text`` is ``json.dumps(event.to_dict())`` byte for byte."""

from __future__ import annotations

import csv
import io
import json
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cer_theory.core.events import Event, event_json_text, row_json_text
from cer_theory.engines.core import Engine
from cer_theory.engines.core.run import file_matches
from cer_theory.engines.core.output import MatchWriter
from cer_theory.formalisms.ceql.printer import format as to_text
from cer_theory.streams.writers import CHUNK_ROWS
from cer_theory.testing.batches import process_in_batches, small
from cer_theory.testing.strategies import ceql
from cer_theory.testing.strategies.predicates import extended_events

SMALL = small(3, 90)
"""Batches of 3 rows, blocks of about 90 bytes: CEs cross batches."""
FORMATS = [("jsonl", False), ("jsonl", True), ("csv", False), ("csv", True), ("parquet", False),
           ("parquet", True)]


def _written(path: Path, fmt: str) -> object:
    if fmt == "parquet":
        return pq.read_table(path).to_pylist()
    return path.read_text(encoding="utf-8")


def _outputs(query, feed, folder: Path, fmt: str, positions_only: bool) -> tuple[object, object, int]:
    """(what write(match) wrote, what the attached writer wrote, the CEs the attached writer counted)."""
    slow, fast = folder / f"slow.{fmt}", folder / f"fast.{fmt}"
    writer = MatchWriter(str(slow), fmt, positions_only=positions_only)
    for match in feed(Engine(query)):
        writer.write(match)
    writer.close()
    engine = Engine(query)
    attached = MatchWriter(str(fast), fmt, positions_only=positions_only)
    assert attached.attach(engine)
    assert list(feed(engine)) == []  # everything went to the writer
    attached.close()
    return _written(slow, fmt), _written(fast, fmt), attached.count


def _feeds(stream: list[Event], folder: Path) -> dict:
    path = folder / "s.jsonl"
    path.write_text("".join(json.dumps(e.to_dict()) + "\n" for e in stream), encoding="utf-8")
    feeds = {"Events": lambda engine: engine.process(stream),
             "dicts": lambda engine: process_in_batches(engine, [e.to_dict() for e in stream], 3),
             "jsonl file": lambda engine: file_matches(engine, path, "jsonl", limits=SMALL)}
    if stream:
        names = sorted({a for e in stream for a in e.attributes})
        rows = [{"type": e.type, **{a: e.get(a) for a in names}} for e in stream]
        csv_path, parquet_path = folder / "s.csv", folder / "s.parquet"
        with csv_path.open("w", encoding="utf-8", newline="") as f:
            out = csv.DictWriter(f, ["type", *names])
            out.writeheader()
            out.writerows(rows)
        pq.write_table(pa.Table.from_pylist(rows), parquet_path)
        feeds["csv file"] = lambda engine: file_matches(engine, csv_path, "csv", limits=SMALL)
        feeds["parquet file"] = lambda engine: file_matches(engine, parquet_path, "parquet", limits=SMALL)
    return feeds


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ceql.evaluable_queries(), ceql.timed_streams(max_length=10), st.sampled_from(FORMATS))
def test_attached_writer_writes_what_write_writes_for_the_matches(query, stream, output):
    fmt, positions_only = output
    with tempfile.TemporaryDirectory() as tmp:  # CEs across batches (SMALL)
        folder = Path(tmp)
        for name, feed in _feeds(list(stream), folder).items():
            slow, fast, count = _outputs(query, feed, folder, fmt, positions_only)
            assert fast == slow, (f"query: {to_text(query)}\nstream: {list(stream)}\ninput: {name}, "
                                  f"output: {fmt}, positions_only={positions_only}\n"
                                  f"write(match): {slow!r}\nattached: {fast!r}")
            assert count == sum(1 for _ in feed(Engine(query)))


def test_attached_writer_partition_and_events_oracle(tmp_path):
    """A worked case: PARTITION BY with numbers of both kinds and strings that need escaping."""
    data = [{"type": t, "x": x, "name": "é\"q", "v": 1.5} for t, x in zip("RTRTRT", [1, 1, 2.0, 2, 1, 1])]
    engine = Engine("SELECT * FROM S WHERE R ; T PARTITION BY [x]")
    out = io.StringIO()
    writer = MatchWriter(out, "jsonl")
    assert writer.attach(engine)
    assert list(engine.process(data)) == []
    matches = list(Engine("SELECT * FROM S WHERE R ; T PARTITION BY [x]").process(data))
    assert out.getvalue() == "".join(json.dumps(m.to_json()) + "\n" for m in matches)
    assert writer.count == len(matches) == 4
    assert out.getvalue().splitlines()[0] == (
        '{"start": 0, "end": 1, "positions": [0, 1], "events": [{"type": "R", "name": "\\u00e9\\"q", "v": 1.5, '
        '"x": 1}, {"type": "T", "name": "\\u00e9\\"q", "v": 1.5, "x": 1}], "partition": [1]}')


def test_attach_refuses_a_query_with_aggregates():
    """Aggregated matches are decoded before they are reported: the writer takes them one by one."""
    engine = Engine("SELECT SUM(R.x) AS s FROM S WHERE R+")
    writer = MatchWriter(io.StringIO(), "jsonl")
    assert not writer.attach(engine)
    assert [m.aggregates for m in engine.process([{"type": "R", "x": 2}])] == [(("s", 2),)]


def test_attached_writer_builds_each_reported_event_once(tmp_path):
    """Counting, not timing: one JSON text per reported position, however many CEs report it."""
    engine = Engine("SELECT * FROM S WHERE R ; T+")
    writer = MatchWriter(io.StringIO(), "jsonl")
    writer.attach(engine)
    made = []
    real = Event.to_json_text

    def counted(event: Event) -> str:
        made.append(event)
        return real(event)

    Event.to_json_text = counted  # type: ignore[method-assign]
    try:
        list(engine.process([{"type": "R"}] + [{"type": "T", "k": k} for k in range(6)]))
    finally:
        Event.to_json_text = real  # type: ignore[method-assign]
    assert writer.count == 2 ** 6 - 1  # every non-empty set of the T's
    assert len(made) == 7


@settings(max_examples=300, deadline=None)
@given(st.one_of(extended_events(), st.builds(
    lambda t, d: Event(t, d), st.text(min_size=1, max_size=4),
    st.dictionaries(st.sampled_from(["a", "b_1", "Z"]),
                    st.one_of(st.text(max_size=5), st.integers(-2 ** 70, 2 ** 70), st.booleans(),
                              st.floats(allow_nan=False)), max_size=3))))
def test_event_to_json_text_is_json_dumps_of_to_dict(event):
    assert event.to_json_text() == json.dumps(event.to_dict()), repr(event)


@pytest.mark.parametrize("value", [float("inf"), -0.0, 1e-7, 2 ** 64, True, "\x00\u2028"])
def test_event_to_json_text_on_edge_values(value):
    event = Event("R", v=value)
    assert event.to_json_text() == json.dumps(event.to_dict())


@settings(max_examples=200, deadline=None)
@given(st.lists(extended_events(), min_size=1, max_size=5))
def test_row_json_text_is_event_json_text_row_by_row(events):
    """The generated per-batch writer of :func:`row_json_text` against the readable :func:`event_json_text`."""
    names = tuple(sorted({a for e in events for a in e.attributes}))
    text = row_json_text(names)([e.type for e in events], *([e.get(a) for e in events] for a in names))
    for k, e in enumerate(events):
        assert text(k) == event_json_text(e.type, e.attributes.items()) == json.dumps(e.to_dict()), repr(e)


def test_row_json_text_refuses_a_name_that_is_not_an_identifier():
    with pytest.raises(ValueError, match="not an attribute name"):
        row_json_text(("a'; import os",))


@pytest.mark.parametrize("fmt,positions_only", FORMATS)
def test_a_position_with_more_ces_than_one_piece_is_written_alike(tmp_path, fmt, positions_only):
    """B+ over 13 Bs: 8,191 CEs at the C, more than one piece of rendered text (CHUNK_ROWS): the attached writer,
    which writes them piece by piece, writes what ``write(match)`` writes."""
    query = "SELECT * FROM S WHERE A ; B+ ; C"
    stream = [Event("A")] + [Event("B", x=k) for k in range(13)] + [Event("C")]
    slow, fast, count = _outputs(query, lambda engine: engine.process(stream), tmp_path, fmt, positions_only)
    assert count == 2 ** 13 - 1 > CHUNK_ROWS and fast == slow
