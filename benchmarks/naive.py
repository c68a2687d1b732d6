"""The naive run-based evaluator: the textbook NFA-runs approach that CORE is compared against (the CORE paper, §1 and §5).

Systems such as SASE, Esper and FlinkCEP keep every *partial match* explicitly: one run per (automaton state,
start position, positions marked so far). Each event extends every live run along every enabled transition, a run
that reaches a final state is a complex event, and runs are dropped once their start leaves the window. The work
per event is therefore proportional to the number of partial matches, which grows with the window and, for
sequences of n events, like the window size to the power n−1. CORE's point is that the tECS makes the update
independent of it (the CORE paper §4.3, Theorem 3; §5, Figs. 7–9).

This peer evaluates the *same* automaton as the engine (``compile_automaton``, the CORE paper Theorem 1) and applies the
query clauses exactly as :func:`cer_theory.formalisms.ceql.semantics.evaluate` does, so both report the same complex
events and the benchmark compares only the evaluation strategy:

* runs may start at any position, in the single initial state (the CORE paper §3);
* a run is the key ``(state, start, marked positions)``; a dict keyed by it merges runs of the non-deterministic
  automaton that agree, so every complex event is reported once (CE semantics are sets, the CORE paper §2.2);
* the window keeps a run while ``window.admits(key(start), key(j))``; the keys never decrease, so a run that
  fails once is dropped for good;
* each distinct transition predicate is evaluated at most once per event, and each state's enabled transitions
  once per event (the cost every NFA engine pays too); dict events are read in place, not copied into Events;
* PARTITION BY keeps one run table per key (``partition_attributes``; a tuple missing an attribute belongs to no
  partition); CONSUME BY ANY clears every table after an output, PARTITION the producing one (the reference's
  reading, docs/decisions.md D21); LIMIT n reports n of the CEs ending at a position.

Selection strategies other than ALL/ANY are not supported (the compiler rejects NEXT/LAST/MAX for any-start
runs).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from cer_theory.formalisms.ceql.compile import compile_automaton
from cer_theory.core.events import CoreComplexEvent
from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import TYPE_KEY, Event
from cer_theory.core.predicates.ast import Predicate, kind
from cer_theory.formalisms.ceql.semantics import partition_attributes
from cer_theory.formalisms.ceql.ast import Query
from cer_theory.formalisms.ceql.parser import parse

Run = tuple[Any, int, tuple[int, ...]]
"""(automaton state, start position, marked positions)."""


class _Row:
    """A dict event seen as an :class:`Event` by the predicates (``.type`` and ``.get``), without the copy and
    validation of ``Event.from_dict``: the peer should pay for its runs, not for input conversion."""

    __slots__ = ("type", "_data")

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.type = data["type"]
        self._data = data

    def get(self, name: str) -> Any:
        return self.type if name == TYPE_KEY else self._data.get(name)


class NaiveEvaluator:
    """Explicit partial runs of ``compile_automaton(query)``, expired by the window. ``process`` yields
    :class:`CoreComplexEvent` values, grouped by end position in stream order."""

    def __init__(self, query: str | Query) -> None:
        self.query = parse(query) if isinstance(query, str) else query
        if self.query.strategy not in ("ALL", "ANY"):
            raise UnsupportedError(f"the naive peer evaluates SELECT ALL/ANY only, not {self.query.strategy}")
        self.cea = compile_automaton(self.query)
        (self.initial,) = self.cea.initial
        self.final = self.cea.final
        self.predicates: list[Predicate] = list(dict.fromkeys(t.predicate for t in self.cea.transitions))
        index = {p: k for k, p in enumerate(self.predicates)}
        # Per state: its outgoing transitions as (predicate index, target, marks?).
        self.moves: dict[Any, tuple[tuple[int, Any, bool], ...]] = {
            q: tuple((index[t.predicate], t.target, bool(t.labels)) for t in self.cea.out(q))
            for q in self.cea.states}
        self.window = self.query.within
        self.attributes = partition_attributes(self.query.partition_by)
        self.consume = (self.query.consume or "NONE").upper()
        self.limit = self.query.limit
        self.peak_runs = 0
        """The largest number of live runs after an event, over all partitions: the work this approach scales with."""

    def _partition(self, event: Any) -> tuple | None:
        values = [event.get(a) for a in self.attributes]
        if any(v is None for v in values):
            return None
        return tuple((kind(v), v) for v in values)  # 1 and 1.0 share a partition, 1 and "1" do not

    def _enabled(self, state: Any, truth: list, event: Any) -> list[tuple[Any, bool]]:
        found = []
        predicates = self.predicates
        for k, target, marks in self.moves[state]:
            ok = truth[k]
            if ok is None:
                ok = truth[k] = predicates[k](event)
            if ok:
                found.append((target, marks))
        return found

    def process(self, events: Iterable[Mapping[str, Any] | Event]) -> Iterator[CoreComplexEvent]:
        window, final, initial, enabled_moves = self.window, self.final, self.initial, self._enabled
        size = window.size if window is not None else None
        strict = window is not None and window.strict
        n_predicates = len(self.predicates)
        tables: dict[tuple | None, dict[Run, float]] = {}  # partition → run → window key of its start
        live = 0
        for j, raw in enumerate(events):
            event = raw if isinstance(raw, Event) else _Row(raw)
            part: tuple | None = ()
            if self.attributes:
                part = self._partition(event)
                if part is None:
                    continue
            key = window.key(j, event) if window is not None else j  # type: ignore[arg-type]
            runs = tables.get(part, {})
            truth: list[bool | None] = [None] * n_predicates
            enabled: dict[Any, list[tuple[Any, bool]]] = {}

            new: dict[Run, float] = {}
            for target, marks in enabled_moves(initial, truth, event):  # a run may start at every position
                new[(target, j, (j,) if marks else ())] = key
            for (state, start, marked), start_key in runs.items():
                if size is not None and (key - start_key >= size if strict else key - start_key > size):
                    continue  # outside the window: the keys never decrease, so it never fits again
                steps = enabled.get(state)
                if steps is None:
                    steps = enabled[state] = enabled_moves(state, truth, event)
                for target, marks in steps:
                    new[(target, start, marked + (j,) if marks else marked)] = start_key
            live += len(new) - len(runs)
            if live > self.peak_runs:
                self.peak_runs = live

            found = {CoreComplexEvent(start, j, marked) for (state, start, marked) in new if state in final}
            if found:
                if self.consume == "ANY":
                    tables.clear()  # forget every run in every partition
                    live, new = 0, {}
                elif self.consume == "PARTITION":
                    live, new = live - len(new), {}
                ordered = sorted(found)
                yield from ordered if self.limit is None else ordered[:self.limit]
            if new:
                tables[part] = new
            else:
                tables.pop(part, None)


def naive_evaluate(query: str | Query, events: Iterable[Mapping[str, Any] | Event]) -> list[CoreComplexEvent]:
    """All CEs of ``query`` on ``events`` by the naive peer (for tests and small streams)."""
    return list(NaiveEvaluator(query).process(events))
