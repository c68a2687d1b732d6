"""Output files: rows of complex events written as JSON Lines, CSV or Parquet, to a file written aside and renamed
into place, in bounded memory; and output folders (Spark's part files), written aside and renamed into place the
same way.

* **Nothing half-written** (docs/decisions.md D161). A file output is written to a temporary file in the same
  folder (``.<name>.<random>.partial``) and renamed over the target only by :meth:`OutputFile.commit`, after its
  last byte (and Parquet's footer) is written. A target that exists and is not a regular file (``/dev/null``, a
  FIFO) is written in place: there is nothing to rename, and it must never be replaced.
  :meth:`OutputFile.discard` (an error, a stopping signal, a full disk) removes the temporary file: a reader of the
  target sees the old file or the new complete one, never a part.
* **Folders too** (docs/decisions.md D300). :class:`OutputFolder` is a new folder beside the target
  (``.<name>.<random>.partial``, the same rules), filled by the caller and renamed over the target by
  :meth:`OutputFolder.commit`, the old folder first moved aside and then removed, with the stopping signals
  held (:func:`~cer_theory.core.signals.signals_held`) so that no signal stops the swap half-way.

Both are built on :mod:`cer_theory.core.outputs` (the one way the toolkit writes a file): the temporary file's
mode is the one the umask gives, and a command writes only where it declared (``cli/layer.py``).
* **Bounded memory** (docs/decisions.md D162). Parquet rows are buffered into row groups of at most
  :data:`GROUP_ROWS` rows and about :data:`GROUP_BYTES` bytes of text; JSON Lines and CSV text is written in
  pieces of at most :data:`CHUNK_ROWS` rows, so a position that reports a million complex events is never one
  string.

A row is ``(start, end, positions, events, partition, aggregates)``: ``events`` the JSON text of the list of the
complex event's events (None: left out), ``partition`` and ``aggregates`` JSON text or None. Column layout:

* ``jsonl`` — rendered by the caller (the engine's writer makes the hot path one f-string per complex event).
* ``csv`` — a header ``start,end,positions,partition,events,aggregates``; positions space-separated, the JSON
  texts as they are (empty when absent).
* ``parquet`` — ``start``, ``end`` (int64), ``positions`` (list of int64), ``partition``, ``events`` and
  ``aggregates`` (strings, null when absent).
"""

from __future__ import annotations

import csv
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

from cer_theory.core.errors import CerError
from cer_theory.core.outputs import Aside, failed
from cer_theory.core.signals import signals_held

FORMATS = ("jsonl", "csv", "parquet")
"""The output formats."""

COLUMNS = ("start", "end", "positions", "partition", "events", "aggregates")
"""The columns of a CSV or Parquet output, in order."""

def parquet_schema() -> pa.Schema:
    """The Parquet output's columns. Arrow is loaded only for a Parquet output: a run writing JSON Lines or CSV
    starts without it (docs/decisions.md D174)."""
    import pyarrow as pa

    return pa.schema([("start", pa.int64()), ("end", pa.int64()), ("positions", pa.list_(pa.int64())),
                     ("partition", pa.string()), ("events", pa.string()), ("aggregates", pa.string())])


def _parquet_writer(path: Path) -> pq.ParquetWriter:
    import pyarrow.parquet as pq

    return pq.ParquetWriter(str(path), parquet_schema())


def _write_errors() -> tuple[type[BaseException], ...]:
    """What closing a half-written output may raise: OSError, and Arrow's errors once Arrow is loaded (only a
    Parquet output loads it)."""
    pa = sys.modules.get("pyarrow")
    return (OSError,) if pa is None else (OSError, pa.ArrowException)

GROUP_ROWS = 1 << 16
"""The most rows of a Parquet row group."""

GROUP_BYTES = 32 << 20
"""About the most bytes of text (events, partition, aggregates) buffered for one Parquet row group."""

CHUNK_ROWS = 4096
"""The most rows rendered into one string before it is written (JSON Lines, CSV)."""

Row = tuple[int, int, Sequence[int], "str | None", "str | None", "str | None"]


class OutputFile:
    """One output in format ``fmt``: a text stream given (``jsonl``/``csv``: written through, never closed here)
    or a path (any format), written aside and renamed into place by :meth:`commit`."""

    def __init__(self, out: IO[str] | str | os.PathLike, fmt: str) -> None:
        if fmt not in FORMATS:
            raise CerError(f"unknown output format {fmt!r} (expected one of {', '.join(FORMATS)})")
        self.fmt = fmt
        self.target: Path | None = None if hasattr(out, "write") else Path(out)  # type: ignore[arg-type]
        self._aside: Aside | None = None
        self._parquet: pq.ParquetWriter | None = None
        self._columns: dict[str, list] = {name: [] for name in COLUMNS}
        self._buffered = 0
        if self.target is None:
            if fmt == "parquet":
                raise CerError("--output-format parquet needs --output FILE")
            self.text: IO[str] = out  # type: ignore[assignment]
        else:
            self._aside = Aside(self.target)  # (the core.outputs layer: aside, renamed into place, the umask's mode)
            if fmt == "parquet":
                self._parquet = _parquet_writer(self._aside.path)  # type: ignore[arg-type]
            else:
                self.text = self._aside.open()
        if fmt == "csv":
            self._csv = csv.writer(self.text)
            self._csv.writerow(COLUMNS)

    def write(self, text: str) -> None:
        """JSON Lines text, already rendered."""
        self.text.write(text)

    def write_rows(self, rows: Iterable[Row]) -> None:
        """Rows in the output format (CSV or Parquet; JSON Lines is rendered by the caller)."""
        if self.fmt == "csv":
            self._csv.writerows([[start, end, " ".join(map(str, positions)), partition or "", events or "",
                                  aggregates or ""]
                                 for start, end, positions, events, partition, aggregates in rows])
            return
        columns = self._columns
        starts, ends, positions_, partitions, events_, aggregates_ = (columns[name] for name in COLUMNS)
        size = self._buffered
        for start, end, positions, events, partition, aggregates in rows:
            starts.append(start)
            ends.append(end)
            positions_.append(list(positions))
            partitions.append(partition)
            events_.append(events)
            aggregates_.append(aggregates)
            size += 8 * len(positions) + (len(events) if events else 0) + (len(partition) if partition else 0)
            if size >= GROUP_BYTES or len(starts) >= GROUP_ROWS:
                self._buffered = 0
                self._flush()
                starts, ends, positions_, partitions, events_, aggregates_ = (columns[name] for name in COLUMNS)
                size = 0
        self._buffered = size

    def _flush(self) -> None:
        if self._columns["start"]:
            assert self._parquet is not None
            import pyarrow as pa

            self._parquet.write_table(pa.table(self._columns, schema=parquet_schema()))
            self._columns = {name: [] for name in COLUMNS}

    def commit(self) -> None:
        """Finish the output: Parquet's last row group and footer, then the file renamed over the target (a text
        stream given is flushed, not closed)."""
        if self._aside is None:
            self.text.flush()
            return
        if self._parquet is not None:
            try:
                self._flush()
                self._parquet.close()
            except _write_errors() as exc:
                self.discard()
                if isinstance(exc, OSError):
                    raise failed(self.target, exc) from None  # type: ignore[arg-type]
                raise
        self._aside.commit()
        self._aside = None

    def discard(self) -> None:
        """Give up: the temporary file is removed and the target left as it was (idempotent; a device or a
        FIFO is closed)."""
        if self._aside is None:
            return
        if self._parquet is not None:
            try:
                self._parquet.close()
            except _write_errors():  # (a full disk: the file goes anyway)
                pass
        self._aside.discard()
        self._aside = None


class OutputFolder:
    """A folder output (Spark's part files) written aside: :attr:`partial`, a new empty folder beside
    ``target`` (a :class:`~cer_theory.core.outputs.Aside` folder), is filled by the caller; :meth:`commit`
    renames it over the target, :meth:`discard` removes it. The target is replaced only with ``replace`` (the
    caller decides whose folder may be replaced, docs/decisions.md D160)."""

    def __init__(self, target: str | os.PathLike, *, replace: bool) -> None:
        self.target = Path(target)
        self.replace = replace
        self._aside: Aside | None = Aside(self.target, folder=True)

    @property
    def partial(self) -> Path | None:
        """The temporary folder being filled (None once committed or discarded)."""
        return None if self._aside is None else self._aside.path

    def commit(self) -> None:
        """Rename the filled folder over the target (:meth:`cer_theory.core.outputs.Aside.commit`): an existing
        target, replaced only with ``replace``, is first renamed aside and removed once the new one is in place;
        the stopping signals wait until all of it is done, so a reader finds the old folder or the new one, and
        no temporary folder is left."""
        assert self._aside is not None, "committed or discarded already"
        aside, self._aside = self._aside, None
        aside.commit(replace=self.replace)

    def discard(self) -> None:
        """Give up: the temporary folder is removed and the target left as it was (idempotent)."""
        if self._aside is not None:
            self._aside.discard()
            self._aside = None


__all__ = ["CHUNK_ROWS", "COLUMNS", "FORMATS", "GROUP_BYTES", "GROUP_ROWS", "OutputFile", "OutputFolder",
           "parquet_schema", "signals_held"]
