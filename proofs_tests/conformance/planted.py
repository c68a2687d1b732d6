"""A fake engine for the findings tests: our tECS engine with bugs planted on purpose, each triggered by one feature
of the query (as real bugs are), so each has its own smallest witness.

* ``drop-last``: on a query whose pattern has a Kleene plus, the last complex event (greatest end) is dropped;
* ``window``: ``WITHIN n EVENTS`` (n ≥ 1) is evaluated as ``WITHIN n-1 EVENTS`` (off by one);
* ``strategy``: ``SELECT NEXT`` is evaluated as ``SELECT LAST`` (the wrong selection strategy);
* ``partition``: ``PARTITION BY`` is ignored (a lost partition);
* ``duplicate``: on a query whose pattern has OR, every complex event is reported twice.
"""

from __future__ import annotations

import dataclasses

from cer_theory.conformance.adapters import EngineAdapter
from cer_theory.conformance.protocol import Case, ComplexEvent
from cer_theory.core.windows import Window
from cer_theory.formalisms.cel.ast import CPlus, Disj, Plus

BUGS = ("drop-last", "window", "strategy", "partition", "duplicate")


def _has(node, kinds) -> bool:
    if isinstance(node, kinds):
        return True
    return any(_has(getattr(node, f.name), kinds) for f in dataclasses.fields(node)
               if dataclasses.is_dataclass(getattr(node, f.name)))


class PlantedAdapter(EngineAdapter):
    def __init__(self, bugs=BUGS) -> None:
        self.bugs = frozenset(bugs)
        self.name = "planted:" + ",".join(sorted(self.bugs))

    def run(self, case: Case) -> list[ComplexEvent]:
        q = case.ast
        if "window" in self.bugs and q.within is not None and q.within.kind == "events" and q.within.size >= 1:
            q = dataclasses.replace(q, within=Window("events", q.within.size - 1))
        if "strategy" in self.bugs and q.strategy == "NEXT":
            q = dataclasses.replace(q, strategy="LAST")
        if "partition" in self.bugs:
            q = dataclasses.replace(q, partition_by=())
        out = super().run(case.with_(query=q))
        if "drop-last" in self.bugs and _has(q.pattern, (Plus, CPlus)) and out:
            out.remove(max(out, key=lambda ce: (ce[1], ce[0], ce[2])))
        if "duplicate" in self.bugs and _has(q.pattern, Disj):
            out = out + out
        return out
