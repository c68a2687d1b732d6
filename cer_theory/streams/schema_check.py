"""A stream's schema checked batch by batch, column-wise (:class:`SchemaCheck`), with the messages of the event
by event check (:class:`cer_theory.streams.schema.Schema`; docs/decisions.md D88). Its own module because it
reads numpy columns: a run that reads events one at a time does not load numpy (docs/decisions.md D174)."""

from __future__ import annotations

import numpy as np

from cer_theory.core.events import Event
from cer_theory.core.predicates.vectorized import BOOL, MISSING, NUM, STR
from cer_theory.streams.batch import Fallback, Rows
from cer_theory.streams.schema import Schema

_KIND_OF_CODE = {NUM: "num", STR: "str", BOOL: "bool"}


class SchemaCheck:
    """A schema (declared, or inferred in the same pass) checked batch by batch, column-wise, or event by event
    on the row path — with the messages of :class:`Schema`."""

    def __init__(self, schema: Schema | None, source: str) -> None:
        self.declared = schema is not None
        self.schema = schema if schema is not None else Schema()
        self.source = source

    def batch(self, rows: Rows) -> None:
        """Raise :class:`~cer_theory.streams.batch.Fallback` if some row of ``rows`` breaks the schema (the row
        path then names it); else record the kinds it infers, with the line each was first seen on."""
        kinds = self.schema.kinds
        pending: list[tuple[str, str, str, int]] = []
        types = rows.types.tolist()
        # a column whose every row has one kind code (the usual case) has that kind for every type: one pass over
        # it instead of a sort per type (np.unique); None: look type by type
        single = {name: int(codes[0]) if len(codes) and codes.min() == codes.max() else None
                  for name, codes in rows.kinds.items()}
        for t in set(types):
            sel = None
            declared = kinds.get(t)
            if declared is None and self.declared:
                raise Fallback("undeclared type")
            for name, codes_all in rows.kinds.items():
                one = single[name]
                if one is None:
                    if sel is None:
                        sel = rows.types == t
                    present = sorted(set(np.unique(codes_all[sel]).tolist()) - {MISSING})
                else:
                    present = [] if one == MISSING else [one]
                if not present:
                    continue
                if len(present) > 1:
                    raise Fallback("two kinds")
                k = _KIND_OF_CODE[present[0]]
                seen = None if declared is None else declared.get(name, "absent")
                if self.declared:
                    if seen == "absent" or (seen is not None and seen != k):
                        raise Fallback("declaration")
                elif seen is None or seen == "absent":
                    first = types.index(t) if one is not None else \
                        int(np.flatnonzero((rows.types == t) & (codes_all == present[0]))[0])
                    pending.append((t, name, k, rows.line(first)))
                elif seen != k:
                    raise Fallback("kind change")
        for t, name, k, line in pending:
            self.schema.record(t, name, k, line)

    def event(self, line: int, event: Event) -> Event:
        """The row path's check of one event: :meth:`Schema.check` against a declaration, else
        :meth:`Schema.learn` (the inference continued)."""
        if self.declared:
            for checked in self.schema.check(((line, event),), source=self.source):
                return checked
        self.schema.learn(line, event, source=self.source)
        return event


__all__ = ["SchemaCheck"]
