"""Windows (``WITHIN``) of the CORE paper (CORE, §2.2 and §4), shared by the CEQL semantics, its compiler and the engines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import Event

WindowKind = Literal["events", "time", "attribute"]


@dataclass(frozen=True, slots=True)
class Window:
    """``WITHIN``: ``n EVENTS`` (positions), a duration (``time``, over ``attribute``, default ``"time"``) or
    ``n [attr]`` (the values of an attribute). Inclusive by default, as in the paper (``end − start ≤ size``);
    ``strict=True`` gives ``end − start < size``, which CORE's engine applies to ``n [attr]`` windows only
    (``cer-theory run --windows core``; docs/decisions.md D102)."""

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
        attribute = self.attribute or "time"
        return window_value(position, event.get(attribute), attribute)


def window_value(position: int, value: object, attribute: str) -> float:
    """A timestamp attribute's value as a window key: a number (a missing value is an error, docs/decisions.md
    D30), named by the event's position and the attribute."""
    if value is None or isinstance(value, (bool, str)) or not isinstance(value, (int, float)):
        raise StreamFormatError(f"the window needs a numeric {attribute!r} on every event", line=position,
                                field=attribute)
    return value


def time_like(event: Event) -> list[str]:
    """The numeric attributes of ``event`` whose name reads as a timestamp (``time``, ``ts``, ``timestamp``, or a
    name with ``time`` or ``ts`` as one of its ``_``-separated words, as ``stock_time``): the candidates an error
    about a missing window timestamp suggests."""
    names = []
    for name, value in event.attributes.items():
        words = name.lower().split("_")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and (
                {"time", "ts", "timestamp"} & set(words)):
            names.append(name)
    return names
