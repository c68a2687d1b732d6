"""What an engine run produced, in a form two runs can be compared by: the matches up to the first error, and
the error. The differential tests of the engine's input paths compare these."""

from __future__ import annotations

import json
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


def printed(matches: Iterable[Match]) -> tuple[list[str], str | None]:
    """The matches as ``cer-theory run`` prints them (JSON text, so 1 and 1.0 differ, unlike Event equality) up
    to the first error, and the error as ``Class: message``."""
    got: list[str] = []
    try:
        for m in matches:
            got.append(json.dumps(m.to_json()))
    except CerError as error:
        return got, f"{type(error).__name__}: {error}"
    return got, None
