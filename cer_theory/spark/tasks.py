"""What runs inside the Spark tasks: the single-process engine over one task's events, in stream order.

Each task receives pandas batches sorted by ``(__slice, __pos)`` (``__slice`` is 0 except in time slicing) and
runs one :class:`~cer_theory.engines.core.Engine` per slice over them, feeding the engine whole batches (its vectorized
path). Engine positions are local to the task; the complex events go out in the stream's positions: ``__pos``
is the event's index among the events the stream keeps (what ``WITHIN n EVENTS`` counts), ``__row`` its row
in the input (what is reported).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass

import pandas as pd

from cer_theory.core.aggregates import NULL
from cer_theory.core.errors import CerError
from cer_theory.engines.core import Engine
from cer_theory.formalisms.ceql.ast import Query

OUTPUT_SCHEMA = "start long, end long, positions array<long>"


def aggregate_columns(query: Query) -> list[tuple[str, str]]:
    """The output columns of a query's aggregates (docs/decisions.md D79): one per alias, ``long`` for COUNT and
    ``double`` otherwise (NULL is null, the identities ±inf are ±Infinity)."""
    return [(a.alias, "long" if a.function == "COUNT" else "double") for a in query.aggregates]


def _spark_value(alias: str, value: object) -> object:
    if value is NULL:
        return None
    if isinstance(value, str):
        raise CerError(f"aggregate {alias!r} has the string value {value!r}; on Spark aggregates are numeric "
                       f"columns (docs/decisions.md D79)")
    return value


@dataclass(frozen=True)
class TaskSpec:
    """What a task needs: the query it runs (EVENTS windows rewritten over ``__pos``), the event columns, and
    for each slice the first ``__pos`` it reports (None: report everything)."""

    query: Query
    columns: tuple[str, ...]
    slice_starts: tuple[int, ...] | None = None
    partition: tuple[tuple[str, bool], ...] = ()
    """The PARTITION BY attributes reported with each match, each with whether its column is integral (pandas
    turns an integer column with NULLs into floats)."""


class _PositionMap:
    """Task-local engine position → (``__pos``, input position), batch by batch."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.pos: list = []
        self.position: list = []
        self.size = 0

    def add(self, pos: object, position: object) -> None:
        self.starts.append(self.size)
        self.pos.append(pos)
        self.position.append(position)
        self.size += len(pos)  # type: ignore[arg-type]

    def lookup(self, local: int) -> tuple[int, int]:
        k = bisect.bisect_right(self.starts, local) - 1
        offset = local - self.starts[k]
        return int(self.pos[k][offset]), int(self.position[k][offset])


def run_task(spec: TaskSpec, batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """``mapInPandas`` body: the complex events of the task's events, one output batch per input batch."""
    engine: Engine | None = None
    positions = _PositionMap()
    current = None
    first_reported = 0
    for batch in batches:
        if batch.empty:
            continue
        for slice_id, part in (batch.groupby("__slice", sort=True) if spec.slice_starts else [(0, batch)]):
            if engine is None or slice_id != current:
                engine, positions, current = Engine(spec.query), _PositionMap(), slice_id
                first_reported = spec.slice_starts[int(slice_id)] if spec.slice_starts else 0
            positions.add(part["__pos"].to_numpy(), part["__row"].to_numpy())
            starts, ends, sets = [], [], []
            keys: list[list] = [[] for _ in spec.partition]
            aggregates: list[list] = [[] for _ in spec.query.aggregates]
            for match in engine.process(part.loc[:, list(spec.columns)].reset_index(drop=True)):
                end_pos, end = positions.lookup(match.end)
                if end_pos < first_reported:
                    continue  # a match of the previous slice, seen again through the overlap
                starts.append(positions.lookup(match.start)[1])
                ends.append(end)
                sets.append([positions.lookup(p)[1] for p in match.positions])
                for column, value, (_, integral) in zip(keys, match.partition or (), spec.partition):
                    column.append(int(value) if integral else value)
                for column, (alias, value) in zip(aggregates, getattr(match, "aggregates", ())):
                    column.append(_spark_value(alias, value))
            if ends:
                out = {"start": starts, "end": ends, "positions": sets}
                out.update({name: column for (name, _), column in zip(spec.partition, keys)})
                out.update({a.alias: column for a, column in zip(spec.query.aggregates, aggregates)})
                yield pd.DataFrame(out)
