"""The columnar path of the CORE engine: a batch of :mod:`cer_theory.streams.batch` read as columns (seed
001, *CORE: a Complex Event Recognition Engine*, §4.4: nothing of an event is read but its bit vector, its window
key and its PARTITION BY values), the rows that may be skipped in bulk (docs/decisions.md D120), and the batch
through the fast loop (:mod:`cer_theory.engines.core.loop`) as a :func:`column_cursor`.

The engine imports this module when the first batch comes: numpy and Arrow are not loaded for a stream read one
event at a time (docs/decisions.md D174).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain, repeat

import numpy as np

from cer_theory.core.events import TYPE_KEY
from cer_theory.core.predicates.ast import Predicate
from cer_theory.core.predicates.vectorized import bitmasks
from cer_theory.engines.core.inert import Inertness
from cer_theory.engines.core.loop import Skipped, fast_loop
from cer_theory.engines.core.matches import Match
from cer_theory.engines.core.state import EngineState
from cer_theory.streams.batch import DictRows, Rows


def column_keys(rows: Rows, predicates: Sequence[Predicate], time_attribute: str | None,
                partition_attributes: Sequence[str], dict_mask: Callable[[dict], int] | None = None
                ) -> tuple[list[int], list | None, list[list] | None]:
    """What the engine reads of each row: its bit vector over ``predicates`` (the CORE paper §4.4), its window key
    value (None without a time window) and the values of the PARTITION BY attributes (one list per attribute,
    None where absent; None without PARTITION BY), computed column-wise (docs/decisions.md D87–D89).
    ``dict_mask``: the mask compiled for dicts (:func:`cer_theory.core.predicates.masks.compile_mask`), for
    :class:`~cer_theory.streams.batch.DictRows`."""
    n = len(rows)
    if isinstance(rows, DictRows):
        masks = [dict_mask(d) for d in rows.dicts] if dict_mask is not None and predicates else [0] * n
    else:
        masks = bitmasks(list(predicates), rows) if predicates else [0] * n
    times = None if time_attribute is None else _key_values(rows, time_attribute)
    parts = [_key_values(rows, a) for a in partition_attributes] if partition_attributes else None
    return masks, times, parts


def _key_values(rows: Rows, name: str) -> list:
    if name == TYPE_KEY and not isinstance(rows, DictRows):
        return rows.types.tolist()
    return rows.values(name)


class Columns:
    """What the engine reads of each row of a batch at positions ``rows.first``…: the bit vectors, the window
    values (None without a time window), the partition values (one list per attribute; None without
    PARTITION BY), which rows are in no partition, and the key each row keeps in the event buffer."""

    __slots__ = ("rows", "masks", "times", "parts", "null", "keys")

    def __init__(self, state: EngineState, rows: Rows, dict_mask: Callable[[dict], int] | None) -> None:
        plan = state.plan
        self.rows = rows
        self.masks, self.times, self.parts = column_keys(rows, plan.det.predicates, plan.time_attribute,
                                                         plan.partition_attributes, dict_mask)
        n = len(self.masks)
        self.null = null_rows(self.parts, n)
        self.keys = batch_keys(rows.first, n, self.times, self.null, state.last_key)

    def __len__(self) -> int:
        return len(self.masks)


def batch_keys(first: int, n: int, times: list | None, null: np.ndarray | None, last_key: float) -> Sequence:
    """The key the event buffer keeps for each row of a batch at positions ``first``…: its window key
    (``times[k]``; its position without a time window), or for a row in no partition (``null``) the previous
    row's, as the one step keeps (``last_key``, the engine's last key before the batch, for the first rows). A
    row whose key is not a number never enters the buffer (its visit raises), so its entry is never read."""
    own: Sequence = times if times is not None else range(first, first + n)
    if null is None or not null.any():
        return own
    held = np.empty(n + 1, dtype=object)
    held[0] = last_key
    held[1:] = list(own)
    source = np.where(null, 0, np.arange(1, n + 1))
    np.maximum.accumulate(source, out=source)
    return held[source].tolist()


def null_rows(parts: list[list] | None, n: int) -> np.ndarray | None:
    """Which rows have a NULL partition value (in no partition), or None without PARTITION BY."""
    if not parts:
        return None
    null = np.zeros(n, dtype=bool)
    for column in parts:
        null |= np.equal(np.array(column, dtype=object), None)
    return null


def skip_plan(inert: Inertness, masks: list[int], times: list | None, null: np.ndarray | None, last_key: float
              ) -> tuple[list[int], int, list[int] | None] | None:
    """Which rows of a batch must be visited, or None to visit them all (``times``: the window keys, None
    without a time window; ``last_key``: the engine's last key before the batch).

    Rows ``k < stop`` are skipped unless their bit vector is not inert and their partition values are not
    NULL (``null``; ``visit``); every row from ``stop`` on is visited, ``stop`` being the first non-NULL row
    whose window key is not a number or decreases (its error is then raised by the visit, after the matches
    of the rows before it, as on every path). ``nulls[k]`` counts the NULL rows before k.

    **Exactness** (docs/decisions.md D120). A skipped row is either NULL-partitioned (it only counts as
    unpartitioned and enters the event buffer) or inert: by :mod:`cer_theory.engines.core.inert` it starts no run, marks
    nothing, outputs nothing, and changes an evaluator's T only by dropping det-states made of sinks, which
    have no successor on any event, so the next update from T or from the dropped T builds the same T′ with the
    same union-lists in the same order and outputs the same CEs in the same order (while no det-state mixes
    sinks and waiting states: :meth:`Inertness.refresh`, checked after every visit). The window's pruning is
    monotone in τ, so pruning at the next visited row's τ alone cuts the union-lists as pruning at every row
    would. The skipped rows' keys are checked here, column-wise, with the comparisons of the row loop (exact:
    ints compared as int64, floats as float64, a mix only below 2**53), so no check is lost. CONSUME BY and
    LIMIT act on outputs only. What differs is bookkeeping of PARTITION BY's evaluators: a skipped row touches
    no partition, so an evaluator may be dropped for its window at another row (its last *visited* event
    leaves the window, after which all its runs have expired) and one holding only sinks is dropped at its
    next visit; without PARTITION BY the one evaluator is dropped exactly where the row loop drops it (when a
    gap is skipped). Windows that admit no span at all are not skipped
    (:class:`~cer_theory.engines.core.plan.QueryPlan` builds no Inertness for them)."""
    n = len(masks)
    codes = np.asarray(masks)
    if codes.dtype == object:  # more than 63 predicates: Python ints
        quiet = np.fromiter(map(inert.inert, masks), dtype=bool, count=n)
    else:  # (a batch has few distinct bit vectors: found by a dict in C, then one comparison per loud one)
        loud = [m for m in dict.fromkeys(masks) if not inert.inert(m)]
        quiet = ~np.isin(codes, loud)
    stop = n
    if times is not None:
        keyed = None if null is None else np.flatnonzero(~null)
        values = times if keyed is None else [times[i] for i in keyed.tolist()]
        found = total = len(values)
        classes = set(map(type, values))
        if not classes <= {int, float}:  # the first key that is not a number stops the plan
            found = next(i for i, v in enumerate(values) if v.__class__ is not int and v.__class__ is not float)
            values = values[:found]
            classes = set(map(type, values))
        if values:
            if classes == {int}:
                try:
                    keys = np.array(values, dtype=np.int64)
                except OverflowError:
                    return None
            elif int in classes and any(abs(v) > 2 ** 53 for v in values if v.__class__ is int):
                return None  # float64 would round them: not the row loop's exact comparison
            else:
                keys = np.array(values, dtype=np.float64)
            if values[0] < last_key:
                found = 0
            else:
                down = np.flatnonzero(keys[1:] < keys[:-1])
                if len(down):
                    found = min(found, int(down[0]) + 1)
        if found < total:
            stop = found if keyed is None else int(keyed[found])
    if null is None:
        return np.flatnonzero(~quiet[:stop]).tolist(), stop, None
    nulls = np.concatenate(([0], np.cumsum(null[:stop]))).tolist()
    return np.flatnonzero(~(quiet[:stop] | null[:stop])).tolist(), stop, nulls


def column_cursor(rows: Rows, masks: list[int], times: list | None, parts: list[list] | None,
                  visit: Iterable[int] | None = None) -> Iterator[tuple]:
    """The rows ``visit`` of a batch (all of them by default), with their precomputed columns."""
    first = rows.first
    if visit is None:
        n = len(masks)
        return zip(range(first, first + n), repeat(None), masks, repeat(None) if times is None else times,
                   repeat(None) if not parts else zip(*parts))
    ks = list(visit)  # (the columns picked by C-level maps, as above: no generator frame per visited row)
    return zip(map(first.__add__, ks), repeat(None), map(masks.__getitem__, ks),
               repeat(None) if times is None else map(times.__getitem__, ks),
               repeat(None) if not parts else zip(*[map(c.__getitem__, ks) for c in parts]))


def column_loop(state: EngineState, columns: Columns) -> Iterator[Match]:
    """:func:`~cer_theory.engines.core.loop.fast_loop` over one batch (already in the event buffer): every row,
    or the rows :func:`skip_plan` visits, and every row from where skipping stops being exact."""
    rows, masks, times, parts = columns.rows, columns.masks, columns.times, columns.parts
    n = len(masks)
    inert, plan = state.inert, None
    if inert is not None:
        if inert.refresh():
            plan = skip_plan(inert, masks, times, columns.null, state.last_key)
        else:
            state.inert = None
    if plan is None:
        yield from fast_loop(state, column_cursor(rows, masks, times, parts), events=False)
        return
    visit, stop, nulls = plan
    skipped = Skipped(rows, n, nulls, columns.keys, inert)  # type: ignore[arg-type]
    resume = yield from fast_loop(state, column_cursor(rows, masks, times, parts, chain(visit, range(stop, n))),
                                  events=False, skipped=skipped)
    if resume is not None:
        k = resume - rows.first
        yield from fast_loop(state, column_cursor(rows, masks, times, parts, range(k, n)), events=False)




def dict_rows(rows: Rows) -> bool:
    return isinstance(rows, DictRows)


__all__ = ["Columns", "Rows", "batch_keys", "column_cursor", "column_loop", "dict_rows", "null_rows", "skip_plan"]
