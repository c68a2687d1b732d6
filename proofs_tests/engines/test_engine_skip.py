"""Skipping inert rows in bulk on the columnar path (docs/decisions.md D120; the CORE paper §4.3–4.4: an event is read
only through its bit vector, and an inert one moves no state of the lazily determinized CEA).

Differential: the columnar path with skipping (dict batches, Arrow tables) against the readable per-event step
``Engine._step`` and the reference semantics, on generated queries and longer streams (windows with equal keys,
partitions with NULL values, consumption, strategies, broken keys deep inside a batch). Counting: the rows the
engine skips are exactly the inert and NULL-partitioned ones."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pyarrow as pa
from hypothesis import HealthCheck, given, settings

from cer_theory.automata.determinize.step import signature_key
from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import Event
from cer_theory.engines.core import Engine, Match
from cer_theory.engines.core.inert import Inertness
from cer_theory.formalisms.ceql.semantics import evaluate, limit_conforms
from cer_theory.testing.outcomes import outcome
from cer_theory.testing.strategies import ceql

P3_PRIME = ("SELECT * FROM S WHERE (SELL as T1; BUY as T2; BUY as T3; BUY as NE) FILTER T1[name = 'INTC'] AND "
            "T2[name = 'RIMM'] AND T3[name = 'QQQ'] AND NE[name = 'NotExists'] WITHIN 10000 [stock_time]")
P3 = ("SELECT * FROM S WHERE (SELL as T1; BUY as T2; BUY as T3) FILTER T1[name = 'INTC'] AND T2[name = 'RIMM'] "
      "AND T3[name = 'QQQ'] WITHIN 10000 [stock_time]")
NAMES = ("INTC", "RIMM", "QQQ", "MSFT", "ORCL", "CSCO")


def stock(n: int, *, volume_every: int = 0) -> list[dict]:
    """A small deterministic stock-like stream (no randomness: the counts below are exact)."""
    out = []
    for k in range(n):
        row = {"type": "SELL" if (k * 7) % 3 == 0 else "BUY", "name": NAMES[(k * 5 + k // 3) % len(NAMES)],
               "stock_time": 40 * k - (40 * k) % 120}  # ties: three events share each timestamp
        if volume_every and k % volume_every:
            row["volume"] = 100 * (k % 4)
        out.append(row)
    return out


def reference(engine: Engine, stream: Iterable[Event]) -> Iterator[Match]:
    """``Engine._step`` on each event, bit vectors by the definition of the predicates."""
    attr, attrs = engine.plan.time_attribute, engine.partition_attributes
    for e in stream:
        yield from engine._step(e, signature_key([p(e) for p in engine.det.predicates]),
                                None if attr is None else e.get(attr), [e.get(a) for a in attrs] if attrs else None)




def inert_rows(engine: Engine, rows: list[dict]) -> int:
    inert = Inertness(engine.det)
    return sum(inert.inert(engine.det.mask(Event.from_dict(r))) for r in rows)


# ---------------------------------------------------------------------------------------------- counting


def test_p3_prime_skips_exactly_its_inert_rows():
    """P3′ (nothing ever matches NE): every row whose bit vector satisfies none of the four filters is skipped;
    the rows visited are the others, and the result is the Event path's."""
    rows = stock(3000)
    engine = Engine(P3_PRIME)
    got = outcome(engine.process(rows))
    want = outcome(Engine(P3_PRIME).process([Event.from_dict(r) for r in rows]))
    assert got == want
    assert engine.skipped_rows == inert_rows(engine, rows) >= 2000


def test_p3_dense_output_skips_and_reports_the_same_matches():
    rows = stock(3000)
    engine = Engine(P3)
    got = outcome(engine.process(pa.Table.from_pylist(rows)))
    want = outcome(Engine(P3).process([Event.from_dict(r) for r in rows]))
    assert got == want and len(got[0]) > 100
    assert engine.skipped_rows == inert_rows(engine, rows)


def test_partitioned_nulls_are_counted_when_skipped():
    """A NULL partition value puts a row in no partition: skipped, and counted in ``unpartitioned``."""
    q = P3.replace(" WITHIN", " PARTITION BY [volume] WITHIN")
    rows = stock(2000, volume_every=5)
    engine, on_events = Engine(q), Engine(q)
    assert outcome(engine.process(rows)) == outcome(on_events.process([Event.from_dict(r) for r in rows]))
    assert engine.unpartitioned == on_events.unpartitioned == 400
    assert engine.skipped_rows >= inert_rows(engine, rows)
    assert engine.position == on_events.position and engine.retained_events == on_events.retained_events


def test_no_skipping_under_strict_nor_after_a_det_state_mixes_sinks():
    """STRICT kills a run on every unmatched event: no bit vector is inert (decided from the automaton, D120), so
    every row is visited. ``R ; T+`` reaches a det-state holding both a sink and a waiting state at its first
    T: dropping the sink would merge union-lists, so skipping stops there (only the X before it is skipped)."""
    rows = [{"type": t, "x": 1} for t in "RXTXXRRTXX"]
    for q, skipped in (("SELECT STRICT * FROM S WHERE R ; T", 0), ("SELECT * FROM S WHERE R ; T+", 1)):
        engine = Engine(q)
        assert outcome(engine.process(rows)) == outcome(Engine(q).process([Event.from_dict(r) for r in rows]))
        assert engine.skipped_rows == skipped, q
    assert engine.inert is None


def test_a_decreasing_key_on_a_skipped_row_deep_in_a_batch_raises_the_row_error():
    """The keys of skipped rows are checked column-wise: the same error (line, field) after the same matches."""
    rows = stock(5000)
    rows[4321]["stock_time"] = 5
    rows[4321]["name"] = "NOBODY"  # an inert row
    got = outcome(Engine(P3).process(rows))
    want = outcome(Engine(P3).process([Event.from_dict(r) for r in rows]))
    assert got == want and want[1] is not None and want[1][0] is StreamFormatError and "4321" in want[1][1]
    rows[4321]["stock_time"] = "late"
    assert outcome(Engine(P3).process(rows)) == outcome(Engine(P3).process([Event.from_dict(r) for r in rows]))


# ---------------------------------------------------------------------------------------------- differential

_STEPS = (0, 0, 0, 1, 2, 500, 3000, 20000)
"""More ties than the engine tests' gaps: long runs of rows with one time key."""


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ceql.queries(), ceql.engine_streams(max_length=40, steps=_STEPS))
def test_skipping_equals_the_one_step(q, stream):
    """Dict batches (skipping in bulk) = ``Engine._step`` per event: matches in order with their events and
    partitions, the same error, and the same position, ``unpartitioned`` and retained events (D120)."""
    one = Engine(q)
    want = outcome(reference(one, stream))
    engine = Engine(q)
    assert outcome(engine.process([e.to_dict() for e in stream])) == want, (str(q), stream)
    for a in ("position", "unpartitioned", "retained_events"):
        assert getattr(engine, a) == getattr(one, a), (a, str(q), stream)
    if not engine.partition_attributes:
        assert engine.partitions == one.partitions, (str(q), stream)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ceql.queries(), ceql.timed_streams(max_length=9))
def test_skipping_equals_the_reference_semantics(q, stream):
    """The columnar path with skipping against the CEQL reference semantics (LIMIT: some n of them)."""
    on_events = outcome(Engine(q).process(list(stream)))
    if on_events[1] is not None:  # a window attribute the stream lacks: the same error on both paths
        assert outcome(Engine(q).process([e.to_dict() for e in stream])) == on_events, str(q)
        return
    expected = evaluate(q, stream)
    got: list[set] = [set() for _ in stream]
    for m in Engine(q).process([e.to_dict() for e in stream]):
        got[m.end].add(m.complex_event)
    if q.limit is None:
        assert [frozenset(s) for s in got] == expected, str(q)
    else:
        assert limit_conforms(expected, got, q.limit), str(q)
