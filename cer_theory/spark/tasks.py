"""What runs inside the Spark tasks: the single-process engine over one task's events, in stream order.

Each task receives Arrow batches (``mapInArrow``) sorted by ``(__slice, __pos)`` (``__slice`` is 0 except in time
slicing) and runs one :class:`~cer_theory.engines.core.Engine` per slice over them, feeding the engine whole batches
as Arrow tables (its columnar path: no per-row objects; an ``Event`` only for a reported match's rows). Engine positions are local to the task; the complex events go out in the stream's positions: ``__pos``
is the event's index among the events the stream keeps (what ``WITHIN n EVENTS`` counts), ``__row`` its row
in the input (what is reported).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from cer_theory.core.aggregates import NULL
from cer_theory.core.errors import CerError
from cer_theory.engines.core import Engine
from cer_theory.formalisms.ceql.ast import Query



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
    """What a task needs: the query it runs (EVENTS windows rewritten over ``__pos``), the event columns, for
    each slice the first ``__pos`` it reports (None: report everything), the PARTITION BY attributes reported
    with each match, the Arrow schema of the output batches and, when the output has an ``events`` column,
    the names of the fields of its rows (``type`` and the input's attributes)."""

    query: Query
    columns: tuple[str, ...]
    slice_starts: tuple[int, ...] | None = None
    partition: tuple[str, ...] = ()
    schema: pa.Schema | None = None
    event_fields: tuple[str, ...] | None = None


class _PositionMap:
    """Task-local engine position → (``__pos``, input position), batch by batch."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.pos: list = []
        self.position: list = []
        self.size = 0

    def add(self, pos: np.ndarray, position: np.ndarray) -> None:
        self.starts.append(self.size)
        self.pos.append(pos)
        self.position.append(position)
        self.size += len(pos)

    def lookup(self, local: int) -> tuple[int, int]:
        k = bisect.bisect_right(self.starts, local) - 1
        offset = local - self.starts[k]
        return int(self.pos[k][offset]), int(self.position[k][offset])


def _slices(batch: pa.RecordBatch, sliced: bool) -> Iterator[tuple[int, pa.Table]]:
    """The batch's runs of one ``__slice`` (the rows come sorted by slice, then position)."""
    table = pa.Table.from_batches([batch])
    if not sliced:
        yield 0, table
        return
    ids = table.column("__slice").to_numpy()
    cuts = [0, *(np.flatnonzero(ids[1:] != ids[:-1]) + 1).tolist(), len(ids)]
    for a, b in zip(cuts, cuts[1:]):
        yield int(ids[a]), table.slice(a, b - a)


def run_task(spec: TaskSpec, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` body: the complex events of the task's events, at most one output batch per input batch.

    Each Arrow batch goes to :meth:`Engine.process` as a table, so the engine takes its columnar path (bit vectors
    per batch, docs/decisions.md D87); an ``Event`` is built only for the rows a match reports, and those are the
    rows of the ``events`` column (docs/decisions.md D127)."""
    assert spec.schema is not None
    engine: Engine | None = None
    positions = _PositionMap()
    current = None
    first_reported = 0
    fields = spec.event_fields
    for batch in batches:
        if batch.num_rows == 0:
            continue
        for slice_id, part in _slices(batch, spec.slice_starts is not None):
            if engine is None or slice_id != current:
                engine, positions, current = Engine(spec.query), _PositionMap(), slice_id
                first_reported = spec.slice_starts[slice_id] if spec.slice_starts else 0
            positions.add(part.column("__pos").to_numpy(), part.column("__row").to_numpy())
            out: dict[str, list] = {"start": [], "end": [], "positions": []}
            keys: list[list] = [out.setdefault(name, []) for name in spec.partition]
            aggregates: list[list] = [out.setdefault(a.alias, []) for a in spec.query.aggregates]
            events: list | None = out.setdefault("events", []) if fields is not None else None
            for match in engine.process(part.select(list(spec.columns))):
                end_pos, end = positions.lookup(match.end)
                if end_pos < first_reported:
                    continue  # a match of the previous slice, seen again through the overlap
                out["start"].append(positions.lookup(match.start)[1])
                out["end"].append(end)
                out["positions"].append([positions.lookup(p)[1] for p in match.positions])
                for column, value in zip(keys, match.partition or ()):
                    column.append(value)
                for column, (alias, value) in zip(aggregates, getattr(match, "aggregates", ())):
                    column.append(_spark_value(alias, value))
                if events is not None:
                    events.append([{f: e.get(f) for f in fields} for e in match.events])
            if out["end"]:
                yield pa.RecordBatch.from_pydict(out, schema=spec.schema)
