"""How a query is spread over Spark tasks, and why (:class:`Plan`).

* **partitioned** — PARTITION BY: each key goes to one task (as many tasks as cores, at most one per key, keys
  balanced by :mod:`cer_theory.spark.layout`) and each task runs one engine over its keys, each key's events in
  stream order. Keys never interact (unless ``CONSUME BY ANY``), so the union of
  the tasks' outputs is the single-process output.
* **sliced** — no PARTITION BY, a ``WITHIN`` window: the stream is cut into slices of consecutive positions;
  each slice's task also reads the events of the window before the slice and reports only the matches that
  end inside the slice. A match ending at *j* lies inside the window before *j*, and, without consumption,
  LIMIT or a strategy that compares it with matches starting earlier, it depends only on those events, so
  each match is found by exactly one slice.
* **single** — everything else runs as one task, in stream order; :attr:`Plan.reason` says why.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from cer_theory.core.windows import Window
from cer_theory.formalisms.ceql.semantics import partition_attributes
from cer_theory.formalisms.ceql.ast import Query

POSITION_ATTRIBUTE = "__pos"
"""The column that carries stream positions into the tasks (``WITHIN n EVENTS`` is a window over it)."""


@dataclass(frozen=True)
class Plan:
    """``mode`` (partitioned, sliced, single), the query each task runs, and why this mode."""

    mode: str
    task_query: Query
    partition_attributes: tuple[str, ...]
    window_attribute: str | None
    reason: str

    def describe(self) -> str:
        return f"{self.mode}: {self.reason}"


def task_query(query: Query) -> Query:
    """The query the tasks run: ``WITHIN n EVENTS`` counts global positions, which a task sees only as the
    ``__pos`` column, so it becomes the same window over that attribute (inclusive or strict alike)."""
    window = query.within
    if window is None or window.kind != "events":
        return query
    return dataclasses.replace(query, within=Window("attribute", window.size, attribute=POSITION_ATTRIBUTE,
                                                    strict=window.strict))


def plan_query(query: Query) -> Plan:
    """Choose the mode for ``query`` (see the module docstring)."""
    parts = partition_attributes(query.partition_by)
    runs = task_query(query)
    window = runs.within
    window_attribute = None if window is None else (window.attribute or "time")
    consume = (query.consume or "NONE").upper()
    strategy = (query.strategy or "ALL").upper()
    if parts:
        if consume == "ANY":
            return Plan("single", runs, parts, window_attribute,
                        "CONSUME BY ANY: a match in one partition resets every other, so keys are not independent")
        return Plan("partitioned", runs, parts, window_attribute,
                    f"PARTITION BY {', '.join(parts)}: one engine per key, keys spread over the tasks")
    if window is None:
        return Plan("single", runs, parts, window_attribute,
                    "no PARTITION BY and no WITHIN: a match may span the whole stream, so it is one sequence")
    if consume != "NONE":
        return Plan("single", runs, parts, window_attribute,
                    f"CONSUME BY {consume}: a match forgets the partial matches before it, so slices depend on "
                    f"each other")
    if query.limit is not None:
        return Plan("single", runs, parts, window_attribute,
                    "LIMIT keeps the first n matches in the order of the whole stream's enumeration")
    if strategy in ("NEXT", "LAST", "MAX"):
        return Plan("single", runs, parts, window_attribute,
                    f"{strategy} compares a match with matches that start before the window")
    return Plan("sliced", runs, parts, window_attribute,
                "WITHIN without PARTITION BY: slices of the stream, each reading the window before it")

