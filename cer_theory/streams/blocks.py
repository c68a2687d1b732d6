"""The block readers: a JSON Lines, CSV or Parquet file read with Arrow as batches of columns
(:class:`~cer_theory.streams.batch.Rows`), exactly as the row readers would read it; at the first block that is not
exactly columnar a :class:`~cer_theory.streams.batch.Fallback`, after which the caller reads the rest with the row
path of the same file (:func:`iter_rows`; docs/decisions.md D87). Limits (rows per batch, bytes per block,
prefetching) are the caller's :class:`ReadLimits`.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.json as pa_json

from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import Event
from cer_theory.streams.arrow import table_rows
from cer_theory.streams.batch import Fallback, Rows
from cer_theory.streams.convert import BATCH_ROWS
from cer_theory.streams.csv_block import csv_rows
from cer_theory.streams.lines import (JSON_BLANK, blocks, cut, line_index, most_brackets_on_a_line, plain_newlines,
                                      require_utf8)
from cer_theory.streams.rows import MAX_JSON_DEPTH, iter_file

BATCH_BYTES = 1 << 20
"""The default bytes per block of a JSON Lines or CSV file (≈ 10k stock events), cut at a line end."""


@dataclass(frozen=True)
class ReadLimits:
    """How a file is read in batches: at most ``rows`` rows per batch (Parquet), blocks of about ``block_bytes``
    bytes (JSON Lines, CSV), and with ``prefetch`` the next block parsed in a thread while the caller works on
    this one (Arrow releases the GIL). Small limits make a test's dozen events span several batches."""

    rows: int = BATCH_ROWS
    block_bytes: int = BATCH_BYTES
    prefetch: bool = True


def _jsonl_rows(block: bytes, line: int, source: str, partition: Sequence[str]) -> Rows:
    if line == 1 and block.startswith(b"\xef\xbb\xbf"):
        raise Fallback("byte order mark")
    if not plain_newlines(block):
        raise Fallback("carriage return")
    require_utf8(block)
    starts, ends = cut(block)
    lines = line_index(block, line, JSON_BLANK, (starts, ends))
    if most_brackets_on_a_line(block, ends) > MAX_JSON_DEPTH:
        # a line may nest past the bound, which Arrow's reader must never see (100,000 nested objects overflow its
        # stack and kill the process): the row reader checks each line and names the one (docs/robustness.md)
        raise Fallback("values nested in the block")
    try:
        table = pa_json.read_json(io.BytesIO(block), read_options=pa_json.ReadOptions(use_threads=False,
                                                                                      block_size=len(block) + 1))
    except (pa.ArrowException, UnicodeDecodeError, ValueError):
        raise Fallback("Arrow cannot read the batch") from None
    if table.num_rows != len(lines):
        raise Fallback("not one object per line")
    index = lines - line  # the k-th row is physical line index[k] of the block
    cuts: list = []  # (the lines' bounds, found when a row needs its line: rarely)

    def from_line(k: int) -> Event:  # (a row with an integral float: its line says whether it was 1 or 1.0)
        if not cuts:
            cuts.extend(cut(block))
        starts, ends = cuts
        i = int(index[k])
        text = block[starts[i]:ends[i]].decode("utf-8")
        return Event.from_dict(json.loads(text), source=source, line=int(lines[k]))

    return table_rows(table, nan_missing=False, exact_partition=partition, lines=lines, source_event=from_line)


def _parquet_batches(path: Path, rows: int) -> Iterator[tuple[pa.Table, int]]:
    import pyarrow.parquet as pq  # (loaded for a Parquet file only: 15-30 ms of a JSON Lines or CSV run's start)

    source = pq.ParquetFile(path)
    line = 1
    for batch in source.iter_batches(batch_size=rows):
        yield pa.Table.from_batches([batch]), line
        line += batch.num_rows


def _parquet_rows(table: pa.Table, line: int, source: str) -> Rows:
    return table_rows(table, nan_missing=False, lines=np.arange(line, line + table.num_rows))


def file_batches(path: str | Path, fmt: str, *, partition: Sequence[str] = (), limits: ReadLimits = ReadLimits()
                 ) -> Iterator[Rows | Fallback]:
    """The batches of a file as :class:`Rows`, read with Arrow; at the first batch that is not exactly columnar
    a :class:`Fallback` (and nothing more: the caller reads the rest the row way), read within ``limits``."""
    path = Path(path)
    if not path.exists():
        raise StreamFormatError("no such file", source=str(path))
    source = str(path)
    if fmt == "parquet":
        try:
            batches: Iterator = ((t, ln) for t, ln in _parquet_batches(path, limits.rows))
            make: Callable = lambda item: _parquet_rows(item[0], item[1], source)  # noqa: E731
        except (OSError, pa.ArrowException):
            yield Fallback("not readable by Arrow")
            return
    elif fmt == "csv":
        batches = blocks(path, True, limits.block_bytes)
        make = lambda item: csv_rows(item[0], item[1], item[2], source)  # noqa: E731
    else:
        batches = blocks(path, False, limits.block_bytes)
        make = lambda item: _jsonl_rows(item[0], item[1], source, partition)  # noqa: E731

    def build(item: Any) -> Rows | Fallback:
        try:
            return make(item)
        except Fallback as why:
            return why
        except UnicodeDecodeError:  # Arrow accepts bytes that are not UTF-8 in a key; the row readers name them
            return Fallback("not UTF-8")

    try:
        if not limits.prefetch:
            for item in batches:
                rows = build(item)
                yield rows
                if isinstance(rows, Fallback):
                    return
            return
        with ThreadPoolExecutor(max_workers=1) as pool:
            pending = None
            for item in batches:
                future = pool.submit(build, item)
                if pending is not None:
                    rows = pending.result()
                    yield rows
                    if isinstance(rows, Fallback):
                        return
                pending = future
            if pending is not None:
                yield pending.result()
    except (OSError, pa.ArrowException):
        yield Fallback("not readable by Arrow")


def iter_parquet(path: str | Path) -> Iterator[tuple[int, Event]]:
    """The row reader of a Parquet file: ``(row number from 1, Event)``; each row through :meth:`Event.from_dict`
    (null cells are absent attributes), errors name the file, the row and the field."""
    import pyarrow.parquet as pq  # (as in _parquet_batches)

    name = str(path)
    try:
        source = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise StreamFormatError(f"not a readable Parquet file ({exc})", source=name) from None
    no = 0
    for batch in source.iter_batches(batch_size=BATCH_ROWS):
        for row in batch.to_pylist():
            no += 1
            yield no, Event.from_dict(row, source=name, line=no)


def iter_rows(path: str | Path, fmt: str) -> Iterator[tuple[int, Event]]:
    """The row path of a file of any format: the row readers of :mod:`cer_theory.streams.rows` (Parquet:
    :func:`iter_parquet`)."""
    return iter_parquet(path) if fmt == "parquet" else iter_file(path, fmt)


__all__ = ["BATCH_BYTES", "ReadLimits", "file_batches", "iter_parquet", "iter_rows"]
