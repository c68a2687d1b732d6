"""Reported matches (the CORE paper's complex events ``([i, j], D)`` with their events) as the rows of an output file
(:mod:`cer_theory.streams.writers`: JSON Lines, CSV or Parquet, written aside and renamed into place), fast
enough not to dominate a run (docs/decisions.md D90).

* ``jsonl`` — one object per match, byte for byte ``json.dumps(match.to_json())``: ``start``, ``end``,
  ``positions``, ``events`` (each event's JSON text is encoded once and reused by every match that reports it),
  ``partition`` with PARTITION BY, ``aggregates`` (alias → value) for a query with aggregates.
* ``csv`` and ``parquet`` — the columns of :mod:`cer_theory.streams.writers`.

``positions_only`` leaves the events out (the positions index the input stream, 0-based). ``max_output``: past
that many complex events the writer raises :class:`OutputLimitExceeded` (docs/decisions.md D163).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import IO, Any

from cer_theory.core.aggregates import json_value
from cer_theory.core.errors import CerError, UnsupportedError
from cer_theory.engines.core import compiled
from cer_theory.engines.core.evaluator import Outputs
from cer_theory.streams.writers import CHUNK_ROWS, OutputFile

_CACHE_LIMIT = 1 << 16


class OutputLimitExceeded(CerError):
    """More complex events than ``--max-output`` allows: the query's output explodes (the output so far is
    discarded, an earlier output file left as it was)."""


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


def jsonl_lines(ces: list, texts: dict[int, str], text: Callable[[int], str], tail: str,
                positions_only: bool) -> str:
    """The JSON Lines of ``ces`` (objects with ``start``, ``end`` and ``positions``: the CORE paper's ``([i, j],
    D)``), one per complex event, joined: byte for byte :meth:`MatchWriter.write`'s line of the same CE, whose
    ``events`` are the texts of its positions, ``text(p)`` (``texts``: those made so far, which ``text`` makes and
    keeps; the compiled twin reads them without a call); ``tail`` closes each line (``}\\n``, or the partition's
    member and ``}\\n``). The readable form of :mod:`~cer_theory.engines.core.output_compiled`, the hot path of
    ``cer-theory run`` (docs/decisions.md D455)."""
    if positions_only:
        return "".join([f'{{"start": {c.start}, "end": {c.end}, "positions": [{", ".join(map(str, c.positions))}]'
                        f'{tail}' for c in ces])
    return "".join([f'{{"start": {c.start}, "end": {c.end}, "positions": [{", ".join(map(str, ps := c.positions))}], '
                    f'"events": [{", ".join(map(text, ps))}]{tail}' for c in ces])


COMPILED_LINES: Callable[..., str | None] | None = None
""":func:`jsonl_lines` compiled (``output_compiled``, built with the hot loop by ``setup.py``; it answers None when a
text is not ASCII) when it is built and current, else None; a writer made with ``CER_THEORY_PURE`` set uses the
readable function (docs/decisions.md D455)."""
if compiled.current(("output_compiled",), "JSON Lines writer"):
    try:
        from cer_theory.engines.core.output_compiled import jsonl_lines as COMPILED_LINES  # type: ignore
    except ImportError:  # (a build for another layout of the package: the readable function writes)
        COMPILED_LINES = None


class MatchWriter:
    """``write(match)`` for each match, then ``close()`` (the output complete: a file is renamed into place) or
    ``discard()`` (an error or an interrupt: a file output is not replaced); ``out`` is a text stream (jsonl,
    csv) or a file path (any format; parquet needs one)."""

    def __init__(self, out: IO[str] | str, fmt: str = "jsonl", *, positions_only: bool = False,
                 max_output: int | None = None) -> None:
        self._file = OutputFile(out, fmt)
        self._write = self._file.write if fmt != "jsonl" else self._file.text.write  # (the hot path's call)
        self.fmt, self.positions_only, self.max_output = fmt, positions_only, max_output
        self._events: dict[int, tuple[Any, str]] = {}  # id(event) → (event, its JSON text): kept alive here
        self._texts: dict[int, str] = {}  # position → its event's JSON text (attach)
        self._lines = None if compiled.pure_forced() else COMPILED_LINES  # (the same bytes, D455)
        self.count = 0
        """Complex events written."""

    def _counted(self, n: int) -> None:
        self.count += n
        if self.max_output is not None and self.count > self.max_output:
            raise self._exceeded()

    def _exceeded(self) -> OutputLimitExceeded:
        return OutputLimitExceeded(f"more than --max-output {self.max_output:,} complex events: the query's output "
                                   f"explodes (a Kleene plus in a long window?); nothing was written")

    def _event_text(self, event: Any) -> str:
        found = self._events.get(id(event))
        if found is None:
            if len(self._events) >= _CACHE_LIMIT:
                self._events.clear()
            found = self._events[id(event)] = (event, event.to_json_text())
        return found[1]

    def write(self, match: Any) -> None:
        """Write one Match (or AggregatedMatch)."""
        self._counted(1)
        pairs = getattr(match, "aggregates", None)  # (an AggregatedMatch: the ACEL paper's created event)
        ce = match.complex_event
        self._rows_out([(ce.start, ce.end, ce.positions,
                         None if self.positions_only else "[" + ", ".join(self._event_text(e) for e in match.events)
                         + "]",
                         None if match.partition is None else json.dumps(list(match.partition)),
                         None if pairs is None else json.dumps({alias: json_value(v) for alias, v in pairs}))])

    def attach(self, engine: Any) -> bool:
        """Have ``engine`` (an :class:`~cer_theory.engines.core.Engine`) write its CEs here as it reports them,
        with no Match per CE (:meth:`Engine.report_to`; docs/decisions.md D155): each event's JSON text is made
        once per position and reused by every CE that reports it. The bytes are those of :meth:`write` on the
        Matches. The engine then yields nothing; :attr:`count` counts what was written. False (and nothing
        changed) for a query with aggregates: write its Matches."""
        try:
            engine.report_to(self._report, chunk=CHUNK_ROWS)
        except UnsupportedError:
            return False
        self._texts = _PositionTexts(engine)
        return True

    def _report(self, ces: list | Outputs, partition: tuple | None) -> tuple:
        if isinstance(ces, Outputs):  # (bounded pieces, enumerated as they are written: a position may report
            for chunk in ces.chunks():  # millions, D282)
                self._report(chunk, partition)
            return ()
        if len(ces) > CHUNK_ROWS:  # (a list handed over whole: written in bounded pieces all the same)
            for k in range(0, len(ces), CHUNK_ROWS):
                self._report(ces[k:k + CHUNK_ROWS], partition)
            return ()
        self.count += len(ces)  # (_counted, inlined)
        if self.max_output is not None and self.count > self.max_output:
            raise self._exceeded()
        part = None if partition is None else json.dumps(list(partition))
        text = self._texts.__getitem__  # (an event's text, made on first use: _PositionTexts.__missing__)
        if len(self._texts) >= _CACHE_LIMIT:
            self._texts.clear()
        if self.fmt == "jsonl":  # (the hot path of `cer-theory run`)
            ces = ces if ces.__class__ is list else list(ces)
            tail = "}\n" if part is None else f', "partition": {part}}}\n'
            lines = None if self._lines is None else self._lines(ces, self._texts, text, tail, self.positions_only)
            self._write(lines if lines is not None else jsonl_lines(ces, self._texts, text, tail,
                                                                     self.positions_only))
        elif self.positions_only:
            self._file.write_rows([(c.start, c.end, c.positions, None, part, None) for c in ces])
        else:
            self._file.write_rows([(c.start, c.end, c.positions, "[" + ", ".join(map(text, c.positions)) + "]",
                                    part, None) for c in ces])
        return ()

    def _rows_out(self, rows: list[tuple]) -> None:
        """Write ``(start, end, positions, events JSON or None, partition JSON or None, aggregates JSON or None)``
        rows in the output format."""
        if self.fmt != "jsonl":
            self._file.write_rows(rows)
            return
        lines = []
        for start, end, positions, events, partition, aggregates in rows:
            text = f'{{"start": {start}, "end": {end}, "positions": [{", ".join(map(str, positions))}]'
            if events is not None:
                text += ', "events": ' + events
            if partition is not None:
                text += ', "partition": ' + partition
            if aggregates is not None:
                text += ', "aggregates": ' + aggregates
            lines.append(text + "}\n")
        self._file.write("".join(lines))

    def close(self) -> None:
        """The output complete: a file output is renamed into place."""
        self._file.commit()

    def discard(self) -> None:
        """The run failed or was interrupted: a file output is left as it was before the run."""
        self._file.discard()

    def __repr__(self) -> str:
        return f"MatchWriter({self.fmt!r}, positions_only={self.positions_only})"


__all__ = ["MatchWriter", "OutputLimitExceeded"]
