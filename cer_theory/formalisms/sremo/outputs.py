"""The outputs of SREMO and SRT over a stream (the SRT paper, Def. 32): matches are sets of 0-based positions, and
the streaming output at position ``k`` is a set of matches."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from cer_theory.core.events import Event

Match = frozenset[int]


@dataclass(frozen=True)
class StreamOutput:
    """The streaming output at position ``k`` (the SRT paper, Def. 32): a non-empty set of matches."""

    k: int
    matches: frozenset[Match]

    def to_json(self) -> dict[str, object]:
        """``{"k": 3, "matches": [[0, 3], [1, 3]]}``: each match sorted, the list sorted."""
        return {"k": self.k, "matches": sorted(sorted(m) for m in self.matches)}


def per_position(outputs: Iterable[StreamOutput], n: int) -> list[frozenset[Match]]:
    """The outputs as one set per position ``0..n-1`` (empty where nothing is reported)."""
    out: list[frozenset[Match]] = [frozenset()] * n
    for o in outputs:
        out[o.k] = o.matches
    return out


class StreamingRecognizer:
    """What SREMO's recognizers share: ``feed`` consumes ``t_k`` and returns the matches reported at ``k``
    (Def. 32); ``run`` turns that into the stream of non-empty outputs."""

    k: int

    def feed(self, event: Event) -> frozenset[Match]:
        raise NotImplementedError  # each recognizer implements its own step

    def run(self, stream: Iterable[Event]) -> Iterator[StreamOutput]:
        """The non-empty outputs, by increasing ``k``."""
        for event in stream:
            k = self.k
            found = self.feed(event)
            if found:
                yield StreamOutput(k, found)
