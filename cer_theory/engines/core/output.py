"""Writing reported matches (seed 001's complex events ``([i, j], D)`` with their events) as JSON Lines, CSV or
Parquet, fast enough not to dominate a run (docs/decisions.md D90).

* ``jsonl`` — one object per match, byte for byte ``json.dumps(match.to_json())``: ``start``, ``end``,
  ``positions``, ``events`` (each event's JSON text is encoded once and reused by every match that reports it),
  ``partition`` with PARTITION BY, ``aggregates`` (alias → value) for a query with aggregates.
* ``csv`` — a header ``start,end,positions,partition,events,aggregates``; positions space-separated, partition,
  events and aggregates as JSON text (empty when absent).
* ``parquet`` — columns ``start``, ``end`` (int64), ``positions`` (list of int64), ``partition``, ``events`` and
  ``aggregates`` (JSON text, null when absent), written in row groups of :data:`ROWS_PER_GROUP`.

``positions_only`` leaves the events out (the positions index the input stream, 0-based).
"""

from __future__ import annotations

import csv
import json
from typing import IO, Any

import pyarrow as pa
import pyarrow.parquet as pq

from cer_theory.core.aggregates import json_value
from cer_theory.core.errors import CerError

FORMATS = ("jsonl", "csv", "parquet")
ROWS_PER_GROUP = 1 << 16
_CACHE_LIMIT = 1 << 16
_SCHEMA = pa.schema([("start", pa.int64()), ("end", pa.int64()), ("positions", pa.list_(pa.int64())),
                     ("partition", pa.string()), ("events", pa.string()), ("aggregates", pa.string())])


class MatchWriter:
    """``write(match)`` for each match, then ``close()``; ``out`` is a text stream (jsonl, csv) or a file path
    (any format; parquet needs one)."""

    def __init__(self, out: IO[str] | str, fmt: str = "jsonl", *, positions_only: bool = False) -> None:
        if fmt not in FORMATS:
            raise CerError(f"unknown output format {fmt!r} (expected one of {', '.join(FORMATS)})")
        self.fmt, self.positions_only = fmt, positions_only
        self._own = isinstance(out, str)
        self._events: dict[int, tuple[Any, str]] = {}  # id(event) → (event, its JSON text): kept alive here
        if fmt == "parquet":
            if not self._own:
                raise CerError("--output-format parquet needs --output FILE")
            self._parquet = pq.ParquetWriter(out, _SCHEMA)
            self._rows: dict[str, list] = {name: [] for name in _SCHEMA.names}
            return
        self._out: IO[str] = open(out, "w", encoding="utf-8", newline="") if isinstance(out, str) else out
        if fmt == "csv":
            self._csv = csv.writer(self._out)
            self._csv.writerow(["start", "end", "positions", "partition", "events", "aggregates"])

    def _event_text(self, event: Any) -> str:
        found = self._events.get(id(event))
        if found is None:
            if len(self._events) >= _CACHE_LIMIT:
                self._events.clear()
            found = self._events[id(event)] = (event, json.dumps(event.to_dict()))
        return found[1]

    def _events_text(self, match: Any) -> str:
        return "[" + ", ".join([self._event_text(e) for e in match.events]) + "]"

    def write(self, match: Any) -> None:
        positions = match.complex_event.positions
        partition = None if match.partition is None else json.dumps(list(match.partition))
        pairs = getattr(match, "aggregates", None)  # (an AggregatedMatch: seed 003's created event)
        aggregates = None if pairs is None else json.dumps({alias: json_value(v) for alias, v in pairs})
        if self.fmt == "jsonl":
            text = f'{{"start": {match.complex_event.start}, "end": {match.complex_event.end}, "positions": ' \
                   f'[{", ".join(map(str, positions))}]'
            if not self.positions_only:
                text += ', "events": ' + self._events_text(match)
            if partition is not None:
                text += ', "partition": ' + partition
            if aggregates is not None:
                text += ', "aggregates": ' + aggregates
            self._out.write(text + "}\n")
            return
        events = None if self.positions_only else self._events_text(match)
        if self.fmt == "csv":
            self._csv.writerow([match.complex_event.start, match.complex_event.end, " ".join(map(str, positions)),
                                partition or "", events or "", aggregates or ""])
            return
        rows = self._rows
        rows["start"].append(match.complex_event.start)
        rows["end"].append(match.complex_event.end)
        rows["positions"].append(list(positions))
        rows["partition"].append(partition)
        rows["events"].append(events)
        rows["aggregates"].append(aggregates)
        if len(rows["start"]) >= ROWS_PER_GROUP:
            self._flush()

    def _flush(self) -> None:
        if self._rows["start"]:
            self._parquet.write_table(pa.table(self._rows, schema=_SCHEMA))
            self._rows = {name: [] for name in _SCHEMA.names}

    def close(self) -> None:
        if self.fmt == "parquet":
            self._flush()
            self._parquet.close()
        elif self._own:
            self._out.close()
        else:
            self._out.flush()

    def __repr__(self) -> str:
        return f"MatchWriter({self.fmt!r}, positions_only={self.positions_only})"


__all__ = ["FORMATS", "MatchWriter", "ROWS_PER_GROUP"]
