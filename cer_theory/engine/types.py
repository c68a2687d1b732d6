"""Types shared by the CORE engine (seed 001), its reference semantics and its compiler.

A CORE complex event is ``C = ([i, j], D)`` with ``i ≤ j`` and ``D ⊆ {i..j}`` (spec core-tecs-ceql.md §1.1): unlike
seed 000, the interval is part of the output, so equal data with different starts are different CEs (oracle E4),
and under projection ``i`` need not be in D.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..events import Event

WindowKind = Literal["events", "time", "attribute"]


@dataclass(frozen=True, slots=True)
class Window:
    """``WITHIN``: ``n EVENTS`` (positions), a duration (``time``, over ``attribute``, default ``"time"``) or
    ``n [attr]`` (the values of an attribute). Inclusive by default, as in the paper (``end − start ≤ size``);
    ``strict=True`` is CORE's reading (``end − start < size``), spec §7.4."""

    kind: WindowKind
    size: float
    attribute: str | None = None
    strict: bool = False

    def admits(self, start_key: float, end_key: float) -> bool:
        """Whether a match from ``start_key`` to ``end_key`` (positions or timestamps) fits the window."""
        span = end_key - start_key
        return span < self.size if self.strict else span <= self.size

    def key(self, position: int, event: Event) -> float:
        """The window coordinate of an event: its position, or its timestamp attribute."""
        if self.kind == "events":
            return position
        value = event.get(self.attribute or "time")
        if value is None or isinstance(value, (bool, str)):
            from ..errors import StreamFormatError

            raise StreamFormatError(f"the window needs a numeric '{self.attribute or 'time'}' on every event",
                                    line=position, field=self.attribute or "time")
        return value


@dataclass(frozen=True, slots=True, order=True)
class CoreComplexEvent:
    """``([start, end], positions)``: positions are global stream positions, sorted."""

    start: int
    end: int
    positions: tuple[int, ...] = field(default=())

    def to_json(self, stream: Sequence[Event] | None = None) -> dict:
        out: dict = {"start": self.start, "end": self.end, "positions": list(self.positions)}
        if stream is not None:
            out["events"] = [stream[p].to_dict() for p in self.positions]
        return out

    def __repr__(self) -> str:
        return f"([{self.start},{self.end}], {{{','.join(map(str, self.positions))}}})"
