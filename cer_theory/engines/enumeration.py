"""Counts for the enumeration algorithms of both engines, by counting, never timing: Algorithm 1 of the CEL paper
(§9.2, the CCES) and Algorithm 2 of the CORE paper (§4.2, Theorem 2, the tECS).

Both enumerate with *output-linear delay*: between two consecutive outputs the node visits are bounded by a
constant times ``|C| + 1`` for the later output C. Each engine's tests assert its own form of the bound on these
counts: the CCES ``visits − |C| ≤ 1`` (:attr:`EnumerationStats.max_excess`), the tECS ``visits / (|C| + 1) ≤ 4``
(:attr:`EnumerationStats.worst_ratio`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class EnumerationStats:
    """Totals over enumerations: ``visits`` (nodes visited), ``outputs``, and per output the visits since the
    previous one against the output's size ``|C|``: the worst ratio ``visits / (|C| + 1)`` and the worst excess
    ``visits − |C|``. ``tail`` = the most visits after the last output of one enumeration (0 when every branch
    an enumeration takes leads to an output). ``delays`` holds ``(visits since the previous output, |C|)`` per
    output once :meth:`record_delays` is called."""

    enumerations: int = 0
    visits: int = 0
    outputs: int = 0
    worst_ratio: float = 0.0
    max_excess: int = 0
    tail: int = 0
    delays: list[tuple[int, int]] | None = None

    def record_delays(self) -> EnumerationStats:
        """Keep every output's ``(visits since the previous output, |C|)`` in :attr:`delays`; returns self."""
        self.delays = []
        return self

    def output(self, since: int, size: int) -> None:
        """One output of size ``size`` after ``since`` node visits."""
        self.visits += since
        self.outputs += 1
        if since / (size + 1) > self.worst_ratio:
            self.worst_ratio = since / (size + 1)
        if since - size > self.max_excess:
            self.max_excess = since - size
        if self.delays is not None:
            self.delays.append((since, size))

    def finish(self, since: int) -> None:
        """The end of one enumeration, ``since`` visits after its last output."""
        self.visits += since
        if since > self.tail:
            self.tail = since


__all__ = ["EnumerationStats"]
