"""A position's complex events handed to a writer as Algorithm 2 enumerates them (the CORE paper §4.3, Algorithm 2;
docs/decisions.md D282): with ``Engine.report_to(sink, chunk=k)`` the sink reads the CEs of a position in pieces of
at most k, enumerated while it reads them (``evaluator.Outputs``), so a position with exponentially many CEs is
written in memory bounded by k. The pieces, in order, are the list the engine reports otherwise, on generated
queries and streams (LIMIT, CONSUME BY, PARTITION BY, windows included); the largest piece, the largest list the
enumeration holds and the memory of a position are counted, and do not grow with the number of its CEs."""

from __future__ import annotations

import io
import tracemalloc

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cer_theory.engines.core import Engine
from cer_theory.engines.core.evaluator import Outputs
from cer_theory.engines.core.output import MatchWriter
from cer_theory.formalisms.ceql.printer import format as to_text
from cer_theory.testing.strategies import ceql

EXPLODING = "SELECT * FROM S WHERE A ; B+ ; C WITHIN 300 EVENTS"
"""At the C after an A and k Bs: 2**k - 1 complex events at one position (a non-empty subset of the Bs each)."""


def _exploding(k: int) -> list[dict]:
    return [{"type": "A"}] + [{"type": "B"}] * k + [{"type": "C"}]


class _Pieces:
    """A sink that keeps each CE with its partition (unless ``keep`` is false) and counts the pieces it was
    handed."""

    def __init__(self, keep: bool = True) -> None:
        self.keep = keep
        self.seen: list[tuple] = []
        self.largest = 0
        self.pieces = 0

    def __call__(self, ces, partition) -> tuple:
        pieces = ces.chunks() if isinstance(ces, Outputs) else [ces]
        for piece in pieces:
            self.pieces += 1
            self.largest = max(self.largest, len(piece))
            if self.keep:
                self.seen += [(c, partition) for c in piece]
        return ()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ceql.evaluable_queries(), ceql.timed_streams(max_length=10), st.integers(1, 3))
def test_outputs_in_pieces_are_the_reported_list_in_order(query, stream, chunk):
    if query.aggregated:  # (aggregated matches are decoded first and are not handed to a sink)
        return
    expected = [(m.complex_event, m.partition) for m in Engine(query).process(list(stream))]
    engine, sink = Engine(query), _Pieces()
    engine.report_to(sink, chunk=chunk)
    assert list(engine.process(list(stream))) == []
    assert sink.seen == expected, (f"query: {to_text(query)}\nstream: {list(stream)}\nchunk: {chunk}\n"
                                   f"list: {expected}\npieces: {sink.seen}")
    assert sink.largest <= chunk


def test_an_exploding_position_is_enumerated_in_pieces_of_the_chunk():
    """Counting: 2**12 - 1 CEs at one position reach the sink in 64 pieces of at most 64, in Algorithm 2's order."""
    engine, sink = Engine(EXPLODING), _Pieces()
    engine.report_to(sink, chunk=64)
    list(engine.process(_exploding(12)))
    assert len(sink.seen) == 2 ** 12 - 1 and sink.pieces == 64 and sink.largest == 64
    assert [c for c, _ in sink.seen] == [m.complex_event for m in Engine(EXPLODING).process(_exploding(12))]


def _peak(k: int, chunk: int) -> int:
    """The memory a run of the exploding query allocates at its peak, its CEs read by a sink that drops them."""
    engine = Engine(EXPLODING)
    engine.report_to(_Pieces(keep=False), chunk=chunk)
    events = _exploding(k)
    tracemalloc.start()
    try:
        list(engine.process(events))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_memory_of_an_exploding_position_does_not_grow_with_its_outputs():
    """2**10 - 1 and 2**15 - 1 CEs at one position: the peaks differ by far less than the 31 744 CEs more would
    hold (a CE and its positions tuple take well over 100 bytes each), because at most one chunk of them is
    alive."""
    _peak(5, 256)  # (the first run loads and caches what every run shares)
    small, large = _peak(10, 256), _peak(15, 256)
    assert large - small < 2 ** 15 * 100 // 8, (small, large)


def test_max_output_stops_in_the_middle_of_a_position():
    """--max-output counts the pieces as they are written: 2**14 - 1 CEs at one position stop within the piece that
    crosses the bound."""
    writer = MatchWriter(io.StringIO(), "jsonl", max_output=5000)
    engine = Engine(EXPLODING)
    assert writer.attach(engine)
    try:
        list(engine.process(_exploding(14)))
    except Exception as exc:  # noqa: BLE001 - the one expected error, checked below
        assert type(exc).__name__ == "OutputLimitExceeded"
    else:
        raise AssertionError("the bound was not enforced")
    assert writer.count <= 5000 + 4096  # (the piece that crossed the bound, and nothing after it)
