"""Small batches for a test: a stream of a dozen events spans several batches, so that matches cross batches and
a bad row lands deep inside one. The limits are arguments of the readers (:class:`~cer_theory.streams.blocks.
ReadLimits` for files, ``rows`` of :func:`~cer_theory.streams.convert.frame_batches` for in-memory inputs)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cer_theory.engines.core.engine import Engine, Match
from cer_theory.streams.blocks import ReadLimits
from cer_theory.streams.convert import frame_batches


def small(rows: int, size: int) -> ReadLimits:
    """Batches of at most ``rows`` rows (Parquet) and blocks of about ``size`` bytes (JSON Lines, CSV), read
    without a prefetching thread."""
    return ReadLimits(rows=rows, block_bytes=size, prefetch=False)


def process_in_batches(engine: Engine, data: Any, rows: int, *, validate: bool = False) -> Iterator[Match]:
    """``engine.process(data)`` with in-memory inputs (dicts, a DataFrame, a Table) cut in batches of at most
    ``rows`` rows; anything ``Engine.process`` reads one event at a time is read so here too."""
    module = type(data).__module__
    if not (module.startswith(("pandas", "pyarrow")) or (not validate and data.__class__ in (list, tuple) and data
                                                          and data[0].__class__ is dict)):
        yield from engine.process(data, validate=validate)
        return
    for batch in frame_batches(data, engine.position, rows=rows, validate=validate):
        yield from engine.process_batch(batch)


__all__ = ["process_in_batches", "small"]
