"""The columnar readers' batch limits, set for a test: small batches make a stream of a dozen events span several,
so that matches cross batches and a bad row lands deep inside one."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from cer_theory.engines.core import columnar


@contextlib.contextmanager
def batch_limits(rows: int | None = None, size: int | None = None) -> Iterator[None]:
    """Within the block: at most ``rows`` rows per batch of an in-memory input (``columnar.BATCH_ROWS``) and
    blocks of about ``size`` bytes for a file (``columnar.BATCH_BYTES``); None leaves a limit as it is."""
    saved = columnar.BATCH_ROWS, columnar.BATCH_BYTES
    if rows is not None:
        columnar.BATCH_ROWS = rows
    if size is not None:
        columnar.BATCH_BYTES = size
    try:
        yield
    finally:
        columnar.BATCH_ROWS, columnar.BATCH_BYTES = saved
