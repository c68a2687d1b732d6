"""Tables in memory as batches: a pandas DataFrame or a pyarrow Table/RecordBatch cut into
:class:`~cer_theory.streams.batch.Rows` through Arrow's columns (checked at once, docs/decisions.md D89), or, for a
batch that cannot be read exactly, its Events built lazily by :meth:`~cer_theory.core.events.Event.from_dict` with
the Event path's errors. pandas is never imported here: a DataFrame is recognised by its module and converted by
Arrow. :mod:`cer_theory.streams.convert` loads this module only when such a table comes, so that a list of dicts
never loads Arrow (docs/decisions.md D174, D280).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pyarrow as pa

from cer_theory.core.events import Event
from cer_theory.streams.arrow import table_rows
from cer_theory.streams.batch import Fallback, Rows


def table_batches(data: Any, first_line: int, rows: int) -> Iterator[Rows | Iterator[Event]]:
    """Batches of at most ``rows`` rows of a pandas DataFrame or a pyarrow Table/RecordBatch, the first at
    position ``first_line``."""
    if type(data).__module__.startswith("pandas"):
        try:  # the whole frame at once (Arrow's conversion is column-wise), else chunk by chunk
            whole = pa.Table.from_pandas(data, preserve_index=False)
        except (pa.ArrowException, TypeError, ValueError):
            whole = None
        for start in range(0, len(data), rows):
            if whole is not None:
                yield _table_batch(whole.slice(start, rows), first_line + start)
            else:
                yield _frame_rows(data.iloc[start:start + rows], first_line + start)
        return
    table = pa.Table.from_batches([data]) if isinstance(data, pa.RecordBatch) else data
    for start in range(0, table.num_rows, rows):
        yield _table_batch(table.slice(start, rows), first_line + start)


def table_as_rows(data: Any) -> Rows | list[Event]:
    """A whole DataFrame or Table as one batch, or as its Events when it is not exactly columnar (read row by
    row: None, NaN and NA cells are absent)."""
    if type(data).__module__.startswith("pandas"):
        try:
            data = pa.Table.from_pandas(data, preserve_index=False)
        except (pa.ArrowException, TypeError, ValueError):  # (a column of mixed kinds: row by row)
            return [Event.from_dict(_row_dict(r), line=k) for k, r in enumerate(data.to_dict("records"))]
    table = pa.Table.from_batches([data]) if isinstance(data, pa.RecordBatch) else data
    try:
        return table_rows(table, nan_missing=True)
    except Fallback:
        return [Event.from_dict(_row_dict(r), line=k) for k, r in enumerate(table.to_pylist())]


def _row_dict(row: Mapping[str, Any]) -> dict:
    """A DataFrame/Table row as ``Event.from_dict`` input: None, NaN and NA cells are absent, numpy scalars are
    Python values."""
    out = {}
    for k, v in row.items():
        if v is None or (isinstance(v, float) and v != v) or type(v).__name__ in ("NAType", "NaTType"):
            continue
        out[str(k)] = v.item() if hasattr(v, "item") else v
    return out


def _table_batch(table: pa.Table, first: int) -> Rows | Iterator[Event]:
    try:  # (NaN and None cells: absent attributes, in the columns as in _row_dict)
        return table_rows(table, nan_missing=True)
    except Fallback:
        return (Event.from_dict(_row_dict(r), line=first + k) for k, r in enumerate(table.to_pylist()))


def _frame_rows(chunk: Any, first: int) -> Rows | Iterator[Event]:
    try:
        table = pa.Table.from_pandas(chunk, preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError):
        return (Event.from_dict(_row_dict(r), line=first + k) for k, r in enumerate(chunk.to_dict("records")))
    return _table_batch(table, first)


__all__ = ["table_as_rows", "table_batches"]
