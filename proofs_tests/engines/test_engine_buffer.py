"""The engine's event buffer (docs/decisions.md D136): on the columnar path a batch is one span of positions with
the window key each keeps, expired by binary search, instead of one entry per row; the row loops keep one entry
per position, and the engine switches between the two when the input changes kind.

Differential: a stream cut into chunks fed as Events, dicts or Arrow tables (tiny batches, so that spans expire
across batches and inside one) gives the per-event step's matches, error, position, ``unpartitioned`` and the
very events the buffer retains. Counting: the buffer holds O(batches) entries on the columnar path, not O(rows)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cer_theory.core.events import Event
from cer_theory.engines.core import Engine, Match
from cer_theory.engines.core.buffer import TRIM_MIN
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.testing.batches import process_in_batches
from cer_theory.testing.outcomes import outcome
from cer_theory.testing.strategies import ceql

P3 = ("SELECT * FROM S WHERE (SELL as T1; BUY as T2; BUY as T3) FILTER T1[name = 'INTC'] AND T2[name = 'RIMM'] "
      "AND T3[name = 'QQQ'] WITHIN 10000 [stock_time]")
NAMES = ("INTC", "RIMM", "QQQ", "MSFT", "ORCL", "CSCO")


def stock(n: int) -> list[dict]:
    return [{"type": "SELL" if (k * 7) % 3 == 0 else "BUY", "name": NAMES[(k * 5 + k // 3) % len(NAMES)],
             "stock_time": 40 * k - (40 * k) % 120} for k in range(n)]




def retained(engine: Engine) -> list[Event]:
    return [engine.event_at(p) for p in range(engine.position - engine.retained_events, engine.position)]


def as_table(dicts: list[dict]) -> pa.Table | list[dict]:
    """The rows as a Table with every key of every row; dicts when Arrow cannot type a column (mixed kinds)."""
    try:
        return pa.Table.from_struct_array(pa.array(dicts))
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return dicts


def step_by_step(engine: Engine, stream: list[Event]) -> Iterator[Match]:
    for e in stream:
        yield from engine.process_event(e)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ceql.queries(), ceql.engine_streams(max_length=40), st.lists(st.sampled_from(["events", "dicts", "arrow"]),
                                                                    min_size=1, max_size=5), st.data())
def test_chunks_of_any_kind_keep_the_one_step_buffer(q, stream, kinds, data):
    """Chunks of Events (row loop), dicts and Arrow tables (columnar loop, batches of 3 rows) on one engine: the
    same outcome as the one step per event, and the same retained events at the end."""
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), min_size=len(kinds) - 1,
                                     max_size=len(kinds) - 1)))
    chunks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)])]
    one = Engine(q)
    want = outcome(step_by_step(one, stream))
    engine = Engine(q)

    def run() -> Iterator[Match]:
        for kind, chunk in zip(kinds, chunks):
            if kind == "events":
                yield from engine.process(chunk)
            elif chunk:
                dicts = [e.to_dict() for e in chunk]
                yield from process_in_batches(engine, dicts if kind == "dicts" else as_table(dicts), 3)

    got = outcome(run())
    assert got == want, (str(q), kinds, cuts, stream)
    if want[1] is None:
        for a in ("position", "unpartitioned", "retained_events"):
            assert getattr(engine, a) == getattr(one, a), (a, str(q), kinds, cuts)
        assert retained(engine) == retained(one), (str(q), kinds, cuts)


@pytest.mark.parametrize("window", ["WITHIN 4 EVENTS", "WITHIN 80 [stock_time]"])
@pytest.mark.parametrize("strict", [False, True])
def test_spans_expire_exactly_where_the_row_loop_expires(window, strict):
    """Small windows over keys with ties (three rows per timestamp), inclusive and strict (``--windows core``):
    after every chunk the columnar engine retains exactly the Event path's events, positions and count."""
    query = parse(P3.replace("WITHIN 10000 [stock_time]", window))
    query = dataclasses.replace(query, within=dataclasses.replace(query.within, strict=strict))
    rows = stock(400)
    engine, on_events = Engine(query), Engine(query)
    for k in range(0, len(rows), 50):
        chunk = rows[k:k + 50]
        got = outcome(process_in_batches(engine, pa.Table.from_pylist(chunk), 7))
        assert got == outcome(on_events.process([Event.from_dict(r) for r in chunk]))
        assert engine.retained_events == on_events.retained_events and retained(engine) == retained(on_events)
    assert engine.skipped_rows > 200


def test_columnar_buffer_holds_one_entry_per_batch():
    """P3 over 6,000 rows in batches of 500: the window keeps hundreds of rows, in at most a few spans; without
    a window every row is kept, in one span per batch. Events read one at a time are one span, trimmed as the
    window moves."""
    rows = stock(6000)
    engine = Engine(P3)
    peak_entries = peak_retained = 0
    for table in (pa.Table.from_pylist(rows[k:k + 1000]) for k in range(0, len(rows), 1000)):
        for _ in process_in_batches(engine, table, 500):
            peak_entries = max(peak_entries, engine.buffer_entries)
        peak_retained = max(peak_retained, engine.retained_events)
    assert peak_retained >= 200 and engine.buffer_entries <= 2 and peak_entries <= 3
    endless = Engine("SELECT * FROM S WHERE SELL as a ; BUY as b FILTER a[name = 'INTC'] AND b[name = 'NONE']")
    assert not list(process_in_batches(endless, rows, 500))
    assert endless.retained_events == 6000 and endless.buffer_entries == 12
    on_events = Engine(P3)
    list(on_events.process([Event.from_dict(r) for r in rows]))
    assert on_events.retained_events == engine.retained_events and on_events.buffer_entries == 1
    # The span of Events is cut from the front: what it holds is bounded by the window, not the stream.
    assert len(on_events.buffer.spans[0].items) <= 2 * (on_events.retained_events + TRIM_MIN)


def test_events_built_from_dicts_die_young() -> None:
    """Reading dicts one by one (``validate=True``) builds an Event per dict; the event buffer forgets the expired
    ones often enough (``EXPIRE_EVERY_EVENTS``, ``TRIM_MIN``) that the net allocations stay under CPython's
    threshold of a young collection. Counted, not timed: with the old beat of 1,024 positions, 30k dicts cost
    about 60 young collections, and the survivors' full collections walk every object the caller holds
    (docs/decisions.md D315)."""
    import gc

    rows = [{"type": "SELL" if k % 3 else "BUY", "name": NAMES[k % 5 + 1], "price": 1.0, "stock_time": 100 * k}
            for k in range(30_000)]  # no INTC: P3 starts no run, so nothing but the buffer keeps an Event
    engine = Engine(P3)
    threshold = gc.get_threshold()
    young: list[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 0:
            young.append(1)

    gc.collect()
    gc.set_threshold(700, 10, 10)  # CPython's default, whatever the test run set
    gc.callbacks.append(count)
    try:
        assert sum(1 for _ in engine.process(rows, validate=True)) == 0
    finally:
        gc.callbacks.remove(count)
        gc.set_threshold(*threshold)
    assert len(young) <= 5, f"{len(young)} young collections while reading 30,000 dicts"
