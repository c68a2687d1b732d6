"""The partition table of the CORE engine: one evaluator per PARTITION BY key (the CORE paper, *CORE: a Complex Event
Recognition Engine*, §2.2 and §4.4), created only for an event on which a run starts and discarded once nothing
can come of it (docs/decisions.md D22, D27).

A key is the tuple of the listed attributes' values, each tagged with its kind (``[a],[b]`` ≡ ``[a,b]``;
numbers compare as numbers, never equal to a string or a boolean: 1 and 1.0 share a partition, 1 and True do
not). A missing (NULL) value puts the event in no partition. Without PARTITION BY the one key is ``()``.
Evaluators are kept least recently used first, so that window expiry (an evaluator whose last event has left
the window holds only expired runs) is O(1) amortized and a partition read at every event never shields an
idle one.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from cer_theory.core.predicates.ast import kind
from cer_theory.core.windows import Window
from cer_theory.engines.core.evaluator import Evaluator

KINDS = {int: "num", float: "num", str: "str", bool: "bool"}
"""``kind`` of the exact built-in classes, looked up without the isinstance chain (subclasses go to ``kind``)."""


def partition_key(values: Sequence) -> tuple | None:
    """The partition key of the listed attributes' values, or None if one is NULL (the event is in no
    partition)."""
    out = []
    for v in values:
        if v is None:
            return None
        k = KINDS.get(v.__class__)
        out.append((k if k is not None else kind(v), v))
    return tuple(out)


class PartitionTable:
    """The live evaluators by partition key, least recently used first, each with the partition's values; and
    how many were created and discarded."""

    __slots__ = ("evaluators", "created", "discarded")

    def __init__(self) -> None:
        self.evaluators: OrderedDict[tuple, tuple[Evaluator, tuple]] = OrderedDict()
        self.created = self.discarded = 0

    def add(self, pkey: tuple, evaluator: Evaluator) -> tuple[Evaluator, tuple]:
        entry = (evaluator, tuple(v for _, v in pkey))
        self.evaluators[pkey] = entry
        self.created += 1
        return entry

    def discard(self, pkey: tuple) -> None:
        del self.evaluators[pkey]
        self.discarded += 1

    def discard_all(self) -> None:
        self.discarded += len(self.evaluators)
        self.evaluators.clear()

    def expire(self, window: Window, now: float) -> None:
        """Discard the evaluators whose last event the window no longer admits at ``now``, oldest first."""
        evaluators, admits = self.evaluators, window.admits
        by_position = window.kind == "events"
        while evaluators:
            pkey, (evaluator, _) = next(iter(evaluators.items()))
            if admits(evaluator.position if by_position else evaluator.last_key, now):
                break
            self.discard(pkey)

    def __len__(self) -> int:
        return len(self.evaluators)


__all__ = ["KINDS", "PartitionTable", "partition_key"]
