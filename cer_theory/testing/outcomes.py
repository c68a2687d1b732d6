"""What an engine run produced, in a form two runs can be compared by: the matches up to the first error, and
the error. The differential tests of the engine's input paths compare these."""

from __future__ import annotations

from collections.abc import Iterable

from cer_theory.core.errors import CerError
from cer_theory.engines.core import Match


def outcome(matches: Iterable[Match], *, exact: bool = True) -> tuple[list, tuple | None]:
    """The matches up to the first error, and the error (its class, and its message if ``exact``). A frame
    stores numbers as its columns do (1 in a column with a gap reads back as 1.0), so ``exact=False`` compares
    events by type and errors by class only."""
    got: list = []
    try:
        for m in matches:
            events = m.events if exact else tuple(e.type for e in m.events)
            got.append((m.complex_event, m.partition, events))
    except CerError as error:
        return got, (type(error), str(error)) if exact else (type(error),)
    return got, None
