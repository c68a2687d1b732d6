"""Bounded out-of-order input (docs/decisions.md D104): the reorder buffer releases the stable time-sorted
stream of the on-time events, so an engine's output on a stream shuffled within the lateness equals its output
on the sorted stream, and every event is either released or reported late, never lost."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import Event
from cer_theory.streams.reorder import reorder
from cer_theory.engines.core import Engine
from cer_theory.formalisms.ceql.declarations import declared_lateness
from cer_theory.formalisms.ceql.parser import parse_declarations

QUERIES = ("SELECT * WHERE A ; B+ ; C WITHIN 6 SECONDS", "SELECT * WHERE (A ; B as y ; C) FILTER y[v > 2] WITHIN 3 EVENTS",
           "SELECT LAST * WHERE A ; B PARTITION BY [k] WITHIN 4 SECONDS")


@st.composite
def shuffled_within(draw, lateness: float) -> tuple[list[Event], list[Event]]:
    """A stream with a clock, and the same events arriving out of order: each is delayed by at most
    ``lateness`` (arrival = time + delay, stable), so no event is more than ``lateness`` behind an earlier one."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    n, clock, events = draw(st.integers(0, 40)), 0, []
    for _ in range(n):
        clock += rng.choice((0, 1, 1, 2, 3))
        events.append(Event(rng.choice("ABC"), time=clock, v=rng.randint(0, 5), k=rng.randint(0, 1)))
    delays = [rng.uniform(0, lateness) if rng.random() < 0.7 else 0.0 for _ in events]
    arrival = [e for _, e in sorted(zip((e["time"] + d for e, d in zip(events, delays)), events),
                                    key=lambda pair: pair[0])]
    return events, arrival


def _released(arrival: list[Event], lateness: float, late: list) -> list[Event]:
    pairs = reorder(enumerate(arrival, 1), attribute="time", lateness=lateness,
                    on_late=lambda line, e, w: late.append((line, e, w)))
    return [e for _, e in pairs]


def _output(query: str, events: list[Event]) -> Counter:
    return Counter((m.start, m.end, m.positions) for m in Engine(query).process(events))


@pytest.mark.parametrize("query", QUERIES)
@settings(max_examples=40)
@given(data=st.data())
def test_output_of_a_stream_shuffled_within_the_lateness_is_the_output_of_the_sorted_stream(query, data) -> None:
    lateness = data.draw(st.sampled_from([0.5, 2.0, 5.0]))
    _, arrival = data.draw(shuffled_within(lateness))
    late: list = []
    released = _released(arrival, lateness, late)
    in_order = sorted(arrival, key=lambda e: e["time"])  # stable: ties keep their arrival order
    assert late == [] and released == in_order
    expected, actual = _output(query, in_order), _output(query, released)
    assert actual == expected, f"query {query}\nstream {arrival}\nsorted {expected}\nreordered {actual}"


@given(st.lists(st.integers(0, 20), max_size=40), st.sampled_from([0, 1, 3]))
def test_every_event_is_released_in_order_or_reported_late(times: list[int], lateness: int) -> None:
    arrival = [Event("A", time=t, i=i) for i, t in enumerate(times)]
    late: list = []
    released = _released(arrival, lateness, late)
    assert sorted([e["i"] for e in released] + [e["i"] for _, e, _ in late]) == list(range(len(times)))
    assert [e["time"] for e in released] == sorted(e["time"] for e in released)
    newest = -float("inf")
    for e in arrival:  # late exactly when more than `lateness` behind an earlier event
        assert (e in [x for _, x, _ in late]) == (e["time"] < newest - lateness)
        newest = max(newest, e["time"])


def test_a_late_event_is_reported_with_its_line_and_the_watermark() -> None:
    arrival = [Event("A", time=1), Event("A", time=5), Event("B", time=4), Event("B", time=2)]
    late: list = []
    assert [e["time"] for e in _released(arrival, 2, late)] == [1, 4, 5]
    assert late == [(4, Event("B", time=2), 3)]


def test_reordering_needs_a_numeric_time() -> None:
    with pytest.raises(StreamFormatError, match="line 2, field 'time'"):
        list(reorder(enumerate([Event("A", time=1), Event("A", time="x")], 1), attribute="time", lateness=1,
                     on_late=lambda *a: None))


def test_core_quarantine_declarations_give_the_lateness() -> None:
    decls = parse_declarations("CREATE STREAM S { EVENT A { time:double } };\n"
                               "CREATE QUARANTINE { FIXED_TIME 2 seconds {S}, BOUNDED_TIME 1 minute {T}, DIRECT {U} }")
    assert [(p.policy, p.lateness, p.streams) for p in decls[1:]] == [
        ("FIXED_TIME", 2, ("S",)), ("BOUNDED_TIME", 60, ("T",)), ("DIRECT", 0, ("U",))]
    assert declared_lateness(decls) == 60 and declared_lateness(decls[:1]) is None
    assert declared_lateness(parse_declarations("CREATE QUARANTINE { DIRECT {S} }")) == 0
