"""An executable model of how Flink runs ``MATCH_RECOGNIZE``: its CEP library's NFA, as far as the generated
fragment reaches (a concatenation of distinct variables, each maybe quantified). A difference between Flink and
the reference is *explained* only when this model gives Flink's exact rows (docs/decisions.md D362); a case the
model does not reproduce is a finding.

The model differs from the standard's matcher (TR 19075-5 §4.12: among the matches at a start row, the preferred
one, found by backtracking) in five rules, each with its evidence:

1. **A greedy loop never stops while its condition still accepts the row** (``possessive-greedy``). Flink's
   planner translates a greedy ``B+``, ``B*``, ``B{n,}``, ``B{n,m}`` (n < m) with ``.greedy()``, and FlinkCEP's
   ``NFACompiler`` gives the transitions leaving a greedy loop the extra condition *not (B's condition)*: there
   is no backtracking into a shorter iteration, and once ``B{n,m}`` has m rows, a row that B's condition accepts
   can be taken by nothing (measured: ``PATTERN (A X{1,2} B) DEFINE A AS type = 'a', B AS type = 'b'`` on rows
   a, b, b, b returns no row; the standard matches all four). Minimal reproduction: ``PATTERN (B+ C) DEFINE B AS
   v > 0, C AS v >= LAST(B.v)`` on v = 1, 1, 3, 0, 1, 1, 2, 0 (one partition, SKIP PAST LAST ROW): the standard
   matches B = rows 1–2, C = 3 and B = 5–6, C = 7; Flink returns nothing (its SQL client, Flink 2.3), and so does
   this model: B takes 1, 1, 3 while ``v > 0`` holds and no row is left for C.
2. **``?`` and ``{n}`` are not greedy** (``optional-not-greedy``): the planner adds ``.greedy()`` only to a
   quantifier that is neither optional (``{0,1}``) nor fixed (``{n,n}``), so both branches of ``X?`` run side by
   side and the first one to complete wins. Minimal reproduction: ``PATTERN (A X? B) DEFINE A AS type = 'a',
   B AS type = 'b'`` on rows a, b, b: Flink returns A = 1, B = 2; the standard prefers A = 1, X = 2, B = 3.
3. **The first completed match at a start row wins**: FlinkCEP runs the partial matches of a start row side by
   side and emits one when it reaches the final state (an ``AFTER MATCH`` strategy then prunes the others of that
   start row). Among partial matches that complete on the same row, the model takes the standard's preferred.
4. **Matches wait for earlier partial matches, and the input's end drops them** (``end-of-input``, D229): a
   completed match is emitted only when no partial match that started earlier is still running; a bounded source
   ends without a verdict on a running one, so without ``WITHIN`` every later match of the partition is lost. With
   ``WITHIN`` the final watermark times the running ones out, and the waiting matches are emitted.
5. **``PREV`` does not reach before the match** (``prev-within-match``, D226): at a match's first row ``PREV(x)``
   is NULL (measured: ``PATTERN (A) DEFINE A AS x >= PREV(x)`` matches nothing).

``WITHIN`` keeps the documented reading (a match as long as the interval is kept, D225): Flink's own answer there
contradicts its documentation, so it stays a finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cer_theory.core.events import Event
from cer_theory.formalisms.rpr.ast import Concat, Quant, Query, Var
from cer_theory.formalisms.rpr.semantics import Labels, run_with, running_term, truth, within

EVIDENCE = {
    "possessive-greedy": "FlinkCEP's NFACompiler (a greedy loop's exit requires that the loop's condition rejects "
                         "the row); measured on Flink 2.3: PATTERN (B+ C) DEFINE B AS v > 0, C AS v >= LAST(B.v) "
                         "over v = 1,1,3,0,1,1,2,0 returns no row, and PATTERN (A X{1,2} B) on rows a, b, b, b none",
    "optional-not-greedy": "Flink's planner applies greedy() only to quantifiers that are neither {0,1} nor {n,n}; "
                           "reproduced: PATTERN (A X? B) on rows a, b, b returns A = 1, B = 2",
    "end-of-input": "FlinkCEP emits a completed match only when no earlier partial match is running; a bounded "
                    "source ends without timing them out (docs/decisions.md D229, D362)",
    "prev-within-match": "measured: PATTERN (A) DEFINE A AS x >= PREV(x) matches nothing (docs/decisions.md D226)",
}
"""The model's rules and the evidence each rests on (the module docstring)."""


@dataclass(frozen=True)
class Element:
    """One element of the pattern as FlinkCEP sees it: a variable and its iterations ``low..high`` (None:
    unbounded); ``greedy`` is Flink's, not the query's (rule 2)."""

    var: str
    low: int
    high: int | None
    greedy: bool


def elements(q: Query) -> list[Element] | None:
    """The pattern as a list of :class:`Element`, or None when it is outside the modelled fragment (an
    alternation, a quantified group: Flink refuses most of them, and the model does not claim them)."""
    parts = q.pattern.parts if isinstance(q.pattern, Concat) else (q.pattern,)
    out = []
    for p in parts:
        if isinstance(p, Var):
            out.append(Element(p.name, 1, 1, False))
        elif isinstance(p, Quant) and isinstance(p.body, Var):
            fixed = p.high is not None and (p.low == p.high or (p.low, p.high) == (0, 1))
            out.append(Element(p.body.name, p.low, p.high, p.greedy and not fixed))
        else:
            return None
    return out


@dataclass(frozen=True)
class _Thread:
    """A partial match: the element it is in, its iterations there, the rows' labels so far."""

    at: int
    count: int
    labels: Labels


class FlinkModel:
    """The matcher of one query under the model; :meth:`find` is a :data:`~cer_theory.formalisms.rpr.semantics.
    Matcher` with memory across the start rows of one partition (rule 4), so use one instance per partition
    (:func:`model_outputs` does)."""

    def __init__(self, q: Query, parts: list[Element]) -> None:
        self.q, self.parts = q, parts
        self.blocked = False
        self.rows: Sequence[Event] | None = None

    def _accepts(self, rows: Sequence[Event], start: int, labels: Labels, var: str) -> bool:
        here = start + len(labels)
        longer = labels + (var,)
        return (truth(self.q.define(var), lambda t: running_term(t, rows, start, longer, prev_within_match=True))
                is True and within(self.q, rows, start, here))

    def _takes(self, rows: Sequence[Event], start: int, t: _Thread) -> list[_Thread]:
        """The threads after ``t`` consumes the next row, in the standard's order of preference: staying in
        its element first when greedy, leaving it first when not (rules 1–2)."""
        e = self.parts[t.at]
        accepts = self._accepts(rows, start, t.labels, e.var)
        stay = [_Thread(t.at, t.count + 1, t.labels + (e.var,))] if accepts and (e.high is None or t.count < e.high) \
            else []
        leave: list[_Thread] = []
        # a greedy element's exit requires that its condition rejects the row, even once its bound is reached
        if t.count >= e.low and t.at + 1 < len(self.parts) and not (e.greedy and accepts):
            leave = self._takes(rows, start, _Thread(t.at + 1, 0, t.labels))
        return stay + leave if e.greedy or t.count < e.low else leave + stay

    def _complete(self, t: _Thread) -> bool:
        """Whether ``t`` is in the final state: every element after it can be skipped (FlinkCEP reaches the final
        state by ε-transitions right after the row that makes it reachable, rule 3)."""
        return t.count >= self.parts[t.at].low and all(e.low == 0 for e in self.parts[t.at + 1:])

    def find(self, q: Query, rows: Sequence[Event], start: int) -> Labels | None:
        if self.rows is not rows:  # a new partition
            self.rows, self.blocked = rows, False
        if self.blocked:
            return None
        threads = [_Thread(0, 0, ())]
        for _ in range(start, len(rows)):
            stepped: list[_Thread] = []
            for t in threads:
                for n in self._takes(rows, start, t):
                    if n not in stepped:
                        stepped.append(n)
            done = [t for t in stepped if self._complete(t)]
            if done:
                return done[0].labels
            if not stepped:
                return None
            threads = stepped
        if q.within is None:  # running at the end of a bounded input: never settled (rule 4)
            self.blocked = True
        return None


def model_outputs(q: Query, stream: Sequence[Event]) -> list[frozenset] | None:
    """The model's per-position outputs (as :func:`~cer_theory.formalisms.rpr.semantics.evaluate`'s), or None when
    the query is outside the modelled fragment."""
    parts = elements(q)
    if parts is None:
        return None
    return run_with(q, stream, FlinkModel(q, parts).find)


__all__ = ["EVIDENCE", "Element", "FlinkModel", "elements", "model_outputs"]
