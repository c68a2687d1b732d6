"""The query plan of the CORE engine: what a CEQL query compiles to before any event is read (the CORE paper, *CORE: a
Complex Event Recognition Engine*, §4 and §4.4) — the automaton, its lazy determinization, the clauses the
automaton leaves to the engine, and which loop may run it.

* Without selection strategy or aggregates: ``compile_automaton`` (Theorem 1) and CORE's lazy determinization.
* ``NEXT``/``LAST``/``MAX``: the CEL paper's ``A_SEL`` built into the determinization
  (:mod:`cer_theory.engines.core.selection`), so the strategy keeps output-linear enumeration (D20).
* Aggregates: the letters of :mod:`cer_theory.engines.core.labelled` (D77), under ALL and ANY only.
"""

from __future__ import annotations

from cer_theory.automata.cea import CEA
from cer_theory.core.errors import DEFAULT_BUDGET, UnsupportedError
from cer_theory.core.events import TYPE_KEY
from cer_theory.core.windows import Window
from cer_theory.engines.core.evaluator import Determinizer, Evaluator
from cer_theory.engines.core.inert import Inertness
from cer_theory.engines.core.labelled import LabelledDeterminizer, LabelledEvaluator
from cer_theory.engines.core.matches import Aggregation
from cer_theory.engines.core.compiled import evaluator_class
from cer_theory.engines.core.selection import BUILT_KEYWORDS, SelectEvaluator, SelectionDeterminizer
from cer_theory.formalisms.ceql.ast import Query
from cer_theory.formalisms.ceql.compile import compile_automaton, compile_pattern
from cer_theory.formalisms.ceql.semantics import partition_attributes

SELECT_STRATEGIES = BUILT_KEYWORDS
"""Strategies built into the determinization by :mod:`cer_theory.engines.core.selection`."""


class QueryPlan:
    """A compiled CEQL query: ``cea`` and its determinizer ``det`` (shared by every partition's evaluator, §4.4),
    the window, the PARTITION BY attributes, CONSUME BY, LIMIT, the aggregation (None without aggregates), and
    the two flags that choose the loop:

    * ``fast`` — the one fast loop (:mod:`cer_theory.engines.core.loop`) applies: evaluators need no strategy
      history (not NEXT/LAST/MAX) and the window and partition keys are attributes (not the event type);
    * ``inert`` — bit vectors that may be skipped in bulk on the columnar path (D120), or None."""

    def __init__(self, query: Query, *, budget: int | None = DEFAULT_BUDGET, debug: bool = False,
                 instrument: bool = False) -> None:
        self.query = query
        self.strategy = (query.strategy or "ALL").upper()
        self.select = self.strategy in SELECT_STRATEGIES
        self.aggregation: Aggregation | None = None
        self.det: Determinizer
        if query.aggregated:
            if self.strategy not in ("ALL", "ANY"):
                raise UnsupportedError(f"SELECT {self.strategy} with aggregates: the engine evaluates aggregates "
                                       f"under ALL and ANY only (docs/decisions.md D77)")
            self.cea: CEA = compile_pattern(query.pattern)  # the labels are kept: the letters project them
            labelled = LabelledDeterminizer(self.cea, select=query.select,
                                            aggregated=[a.variable for a in query.aggregates], budget=budget)
            self.det = labelled
            self.aggregation = Aggregation(query, labelled)
            self.select = False
        elif self.select:
            self.cea = compile_pattern(query.pattern, select=query.select)
            self.det = SelectionDeterminizer(self.cea, self.strategy, budget=budget)
        else:
            self.cea = compile_automaton(query, budget=budget)
            self.det = Determinizer(self.cea, budget=budget)
        self.window: Window | None = query.within
        self.partition_attributes: tuple[str, ...] = partition_attributes(query.partition_by)
        self.consume = (query.consume or "NONE").upper()
        self.limit: int | None = query.limit
        self.time_attribute: str | None = (None if self.window is None or self.window.kind == "events"
                                           else self.window.attribute or "time")
        self._options = {"debug": debug, "instrument": instrument}
        self.chunk: int | None = None
        """CEs per piece in which new evaluators hand over a position's output (None: one list; D282)."""
        self.fast = (not self.select and self.time_attribute != TYPE_KEY
                     and TYPE_KEY not in self.partition_attributes)
        self.inert: Inertness | None = None
        window = self.window
        if (self.fast and self.aggregation is None and type(self.det) is Determinizer
                and (window is None or (window.size > 0 if window.strict else window.size >= 0))):
            inert = Inertness(self.det)
            self.inert = inert if inert.possible else None

    def new_evaluator(self) -> Evaluator:
        """A fresh evaluator for one partition, sharing the determinizer."""
        if self.aggregation is not None:  # LIMIT is applied after HAVING, by the aggregation
            return LabelledEvaluator(determinizer=self.det, window=self.window, **self._options)
        if self.select:
            return SelectEvaluator(determinizer=self.det, window=self.window, limit=self.limit,  # type: ignore
                                   chunk=self.chunk, **self._options)
        return evaluator_class(**self._options)(determinizer=self.det, window=self.window, limit=self.limit,
                                                chunk=self.chunk, **self._options)


__all__ = ["QueryPlan", "SELECT_STRATEGIES"]
