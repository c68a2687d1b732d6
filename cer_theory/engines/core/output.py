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
from cer_theory.core.errors import CerError, UnsupportedError

FORMATS = ("jsonl", "csv", "parquet")
ROWS_PER_GROUP = 1 << 16
_CACHE_LIMIT = 1 << 16
_SCHEMA = pa.schema([("start", pa.int64()), ("end", pa.int64()), ("positions", pa.list_(pa.int64())),
                     ("partition", pa.string()), ("events", pa.string()), ("aggregates", pa.string())])


class _PositionTexts(dict):
    """Global position → the JSON text of the engine's event there (``Engine.event_text``), made when first
    looked up: every position a reported CE holds is still in the engine's event buffer then."""

    __slots__ = ("engine",)

    def __init__(self, engine: Any) -> None:
        super().__init__()
        self.engine = engine

    def __missing__(self, position: int) -> str:
        text = self[position] = self.engine.event_text(position)
        return text


class _Numbers(dict):
    """Position → its decimal text, made on first use (a reported position is written about three times)."""

    __slots__ = ()

    def __missing__(self, position: int) -> str:
        text = self[position] = str(position)
        return text


class MatchWriter:
    """``write(match)`` for each match, then ``close()``; ``out`` is a text stream (jsonl, csv) or a file path
    (any format; parquet needs one)."""

    def __init__(self, out: IO[str] | str, fmt: str = "jsonl", *, positions_only: bool = False) -> None:
        if fmt not in FORMATS:
            raise CerError(f"unknown output format {fmt!r} (expected one of {', '.join(FORMATS)})")
        self.fmt, self.positions_only = fmt, positions_only
        self._own = isinstance(out, str)
        self._events: dict[int, tuple[Any, str]] = {}  # id(event) → (event, its JSON text): kept alive here
        self._texts: dict[int, str] = {}  # position → its event's JSON text (attach)
        self._numbers = _Numbers()
        self.count = 0
        """Complex events written."""
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
            found = self._events[id(event)] = (event, event.to_json_text())
        return found[1]

    def write(self, match: Any) -> None:
        """Write one Match (or AggregatedMatch)."""
        pairs = getattr(match, "aggregates", None)  # (an AggregatedMatch: seed 003's created event)
        ce = match.complex_event
        self._rows_out([(ce.start, ce.end, ce.positions,
                         None if self.positions_only else [self._event_text(e) for e in match.events],
                         None if match.partition is None else json.dumps(list(match.partition)),
                         None if pairs is None else json.dumps({alias: json_value(v) for alias, v in pairs}))])
        self.count += 1

    def attach(self, engine: Any) -> bool:
        """Have ``engine`` (an :class:`~cer_theory.engines.core.Engine`) write its CEs here as it reports them,
        with no Match per CE (:meth:`Engine.report_to`; docs/decisions.md D155): each event's JSON text is made
        once per position and reused by every CE that reports it. The bytes are those of :meth:`write` on the
        Matches. The engine then yields nothing; :attr:`count` counts what was written. False (and nothing
        changed) for a query with aggregates: write its Matches."""
        try:
            engine.report_to(self._report)
        except UnsupportedError:
            return False
        self._texts = _PositionTexts(engine)
        return True

    def _report(self, ces: list, partition: tuple | None) -> tuple:
        part = None if partition is None else json.dumps(list(partition))
        self.count += len(ces)
        text = self._texts.__getitem__  # (an event's text, made on first use: _PositionTexts.__missing__)
        if len(self._texts) >= _CACHE_LIMIT:
            self._texts.clear()
            self._numbers.clear()
        if self.fmt == "jsonl":  # (_rows_out's jsonl, one f-string per CE: the hot path of `cer-theory run`)
            tail = "}\n" if part is None else f', "partition": {part}}}\n'
            number = self._numbers.__getitem__
            if self.positions_only:
                self._out.write("".join([f'{{"start": {c.start}, "end": {c.end}, "positions": '
                                         f'[{", ".join(map(number, c.positions))}]{tail}' for c in ces]))
            else:
                self._out.write("".join([f'{{"start": {c.start}, "end": {c.end}, "positions": '
                                         f'[{", ".join(map(number, ps := c.positions))}], "events": '
                                         f'[{", ".join(map(text, ps))}]{tail}' for c in ces]))
        elif self.positions_only:
            self._rows_out([(c.start, c.end, c.positions, None, part, None) for c in ces])
        else:
            self._rows_out([(c.start, c.end, c.positions, list(map(text, c.positions)), part, None) for c in ces])
        return ()

    def _rows_out(self, rows: list[tuple]) -> None:
        """Write ``(start, end, positions, event texts or None, partition JSON or None, aggregates JSON or None)``
        rows in the output format."""
        if self.fmt == "jsonl":
            lines = []
            for start, end, positions, events, partition, aggregates in rows:
                text = f'{{"start": {start}, "end": {end}, "positions": [{", ".join(map(str, positions))}]'
                if events is not None:
                    text += ', "events": [' + ", ".join(events) + "]"
                if partition is not None:
                    text += ', "partition": ' + partition
                if aggregates is not None:
                    text += ', "aggregates": ' + aggregates
                lines.append(text + "}\n")
            self._out.write("".join(lines))
        elif self.fmt == "csv":
            self._csv.writerows([[start, end, " ".join(map(str, positions)), partition or "",
                                  "" if events is None else "[" + ", ".join(events) + "]", aggregates or ""]
                                 for start, end, positions, events, partition, aggregates in rows])
        else:
            columns = self._rows
            for start, end, positions, events, partition, aggregates in rows:
                columns["start"].append(start)
                columns["end"].append(end)
                columns["positions"].append(list(positions))
                columns["partition"].append(partition)
                columns["events"].append(None if events is None else "[" + ", ".join(events) + "]")
                columns["aggregates"].append(aggregates)
            if len(columns["start"]) >= ROWS_PER_GROUP:
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
