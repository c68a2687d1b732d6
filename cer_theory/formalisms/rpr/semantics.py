"""The reference semantics of ``MATCH_RECOGNIZE`` (ONE ROW PER MATCH), by brute force.

Rule by rule, from ISO/IEC TR 19075-5:2016 (*Row Pattern Recognition in SQL*, "TR 19075-5") and ISO/IEC
9075-2:2016 §7.6, with the restrictions of Flink's documentation (*Table API & SQL — Pattern Recognition*):

1. :func:`partitions` — rows are split by ``PARTITION BY`` and each partition is ordered by ``ORDER BY``
   (TR 19075-5 §4.4, §4.5); matching never crosses a partition.
2. :func:`derivations` — the pattern's words of row-pattern variables, each with its *choice sequence*: the
   branch taken at every alternation and the continue/stop decision at every optional iteration of a quantifier.
   The standard orders the matches starting at a row by *preferment*, the lexicographic order of the
   parenthesized language (TR 19075-5 §4.12): the left branch of ``|`` first, a greedy quantifier prefers one
   more iteration, a reluctant one fewer. Comparing choice sequences lexicographically is that order, since the
   sequences of a pattern form a prefix-free code (each is a path to a leaf of one decision tree).
   An iteration beyond the quantifier's minimum that consumes no row is not a derivation (D222).
3. :func:`satisfied` — a candidate mapping of rows ``r … r+k-1`` to variables is a match iff every row satisfies
   its variable's ``DEFINE`` condition under *running* semantics: evaluated when the row is classified, seeing
   the rows mapped so far and the current row (TR 19075-5 §4.8, §4.14), with SQL's three-valued logic (a row is
   mapped only when its condition is TRUE; NULL comparisons are UNKNOWN); and, under Flink's ``WITHIN``, the
   last row's time minus the first's is at most the interval (Flink's documentation, *Time constraint*; D225).
4. :func:`preferred_match` — among the matches starting at row r the most preferred one is taken (TR 19075-5
   §4.12). :func:`matches_in` — attempts start at the partition's first row; after no match at r the next
   attempt is at r+1, after a match at the row :func:`next_start` says (``AFTER MATCH SKIP``, TR 19075-5 §4.13).
5. :func:`measure` — ``MEASURES`` under *final* semantics over the whole match (TR 19075-5 §4.14, §4.16).

The outputs at stream position n are the matches whose last row is at n.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from cer_theory.core.budget import active, charge
from cer_theory.core.contract import json_order
from cer_theory.core.errors import CerError, UnsupportedError
from cer_theory.core.events import TYPE_KEY, Event
from cer_theory.formalisms.rpr.ast import (Agg, Alt, And, Arith, Cmp, Col, Concat, Condition, Const, IsNull, Nav,
                                           Not, Pattern, Prev, Quant, Query, Skip, Term, Truth, Value, Var)

Key = tuple[int, ...]
Labels = tuple[str, ...]


class SkipError(CerError, RuntimeError):
    """``AFTER MATCH SKIP TO FIRST/LAST v`` with ``v`` absent from the match, or pointing at the match's first
    row (an endless loop): an exception condition of the standard (TR 19075-5 §4.13)."""


@dataclass(frozen=True, slots=True)
class Match:
    """One match: its rows as ``(stream position, variable)`` pairs, the partition's key and the measures'
    values (the row ``ONE ROW PER MATCH`` outputs is ``partition`` + ``measures``, TR 19075-5 §4.10)."""

    rows: tuple[tuple[int, str], ...]
    partition: tuple[Value | None, ...] = ()
    measures: tuple[tuple[str, Value | None], ...] = ()

    @property
    def end(self) -> int:
        return self.rows[-1][0]

    def to_json(self) -> dict[str, Any]:
        return {"rows": [list(r) for r in self.rows], "partition": list(self.partition),
                "measures": dict(self.measures)}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Match:
        return Match(tuple((int(p), str(v)) for p, v in data["rows"]), tuple(data.get("partition", ())),
                     tuple(data.get("measures", {}).items()))

    def sort_key(self) -> tuple[Any, ...]:
        """Matches in the order of their rows (positions compared as numbers), then partition and measures."""
        return json_order([self.to_json()[k] for k in ("rows", "partition", "measures")])


# ------------------------------------------------------------------------------------- rule 1: partitions


def value(row: Event, attr: str) -> Value | None:
    """A column of a row; the event type is the column ``type``; NULL (None) when absent."""
    return row.type if attr == TYPE_KEY else row.get(attr)


def partitions(q: Query, stream: Sequence[Event]) -> list[tuple[tuple[Value | None, ...], list[int]]]:
    """The partitions in order of first row: key and stream positions, ordered by ``ORDER BY`` (stably: rows with
    equal times keep the stream's order, D224) (TR 19075-5 §4.4–4.5)."""
    groups: dict[tuple[Value | None, ...], list[int]] = {}
    for n, e in enumerate(stream):
        groups.setdefault(tuple(value(e, c) for c in q.partition_by), []).append(n)
    if q.order_by is not None:
        order = q.order_by
        for key, positions in groups.items():
            try:
                positions.sort(key=lambda n: _order_key(value(stream[n], order)))
            except TypeError:
                raise UnsupportedError(f"ORDER BY {order}: the column's values do not compare") from None
    return list(groups.items())


def _order_key(v: Value | None) -> tuple[bool, Any]:
    return (v is not None, v if v is not None else 0)  # NULLs first


def time(rows: Sequence[Event], q: Query, i: int) -> Value | None:
    return value(rows[i], q.order_by) if q.order_by is not None else None


# ------------------------------------------------------------------------------------ rule 2: derivations

CONTINUE_GREEDY, STOP_GREEDY = 0, 1
"""A greedy quantifier's choices: one more iteration is preferred (TR 19075-5 §4.12); a reluctant one's are
swapped."""


SEMANTICS = "the reference semantics of MATCH_RECOGNIZE (derivations of the pattern)"
"""What the work budget's messages call the brute force: one unit per derivation built (core.budget)."""


def _charged(derived: Iterable[tuple[Key, Labels]]) -> tuple[tuple[Key, Labels], ...]:
    """``derived`` built one derivation at a time, each charged to the work budget as it is built, so that a
    pattern with exponentially many words stops at the budget rather than after filling memory."""
    budget = active()
    if budget is None:
        return tuple(derived)
    out = []
    for d in derived:
        budget.charge(SEMANTICS)
        out.append(d)
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def derivations(p: Pattern, budget: int) -> tuple[tuple[Key, Labels], ...]:
    """Every word of ``p`` of at most ``budget`` rows, each with its choice sequence (rule 2)."""
    if isinstance(p, Var):
        return (((), (p.name,)),) if budget >= 1 else ()
    if isinstance(p, Alt):
        return _charged(((i, *k), w) for i, b in enumerate(p.branches) for k, w in derivations(b, budget))
    if isinstance(p, Concat):
        return _concat(p.parts, budget)
    return _iterations(p, 0, budget)


def _concat(parts: tuple[Pattern, ...], budget: int) -> tuple[tuple[Key, Labels], ...]:
    if not parts:
        return (((), ()),)
    return _charged((k1 + k2, w1 + w2) for k1, w1 in derivations(parts[0], budget)
                    for k2, w2 in _concat(parts[1:], budget - len(w1)))


def _iterations(p: Quant, done: int, budget: int) -> tuple[tuple[Key, Labels], ...]:
    """The words of ``p`` after ``done`` iterations. Below the minimum another iteration is forced (no choice);
    at the maximum the quantifier stops (no choice); in between it chooses, and the iteration must consume a row
    (D222). Past the rows left (``budget``) no derivation exists: a mandatory iteration that would need more rows
    than are left ends the recursion at once (``A{1000000000}`` on ten rows is no word, found in one step)."""
    more: list[tuple[Key, Labels]] = []
    if done < p.low and (p.low - done) * min_rows(p.body) > budget:
        return ()
    if p.high is None or done < p.high:
        for k, w in derivations(p.body, budget):
            if done >= p.low and not w:
                continue
            more.extend(_charged((k + k2, w + w2) for k2, w2 in _iterations(p, done + 1, budget - len(w))))
    if done < p.low:
        return tuple(more)
    if p.high is not None and done == p.high:
        return (((), ()),)
    go, stop = (CONTINUE_GREEDY, STOP_GREEDY) if p.greedy else (STOP_GREEDY, CONTINUE_GREEDY)
    return tuple([((stop,), ())] + [((go, *k), w) for k, w in more])


@functools.lru_cache(maxsize=4096)
def min_rows(p: Pattern) -> int:
    """The fewest rows a word of ``p`` has (a quantifier's minimum times its body's)."""
    if isinstance(p, Var):
        return 1
    if isinstance(p, Alt):
        return min(min_rows(b) for b in p.branches)
    if isinstance(p, Concat):
        return sum(min_rows(q) for q in p.parts)
    return p.low * min_rows(p.body)


# ------------------------------------------------------------------------ rule 3: DEFINE, running semantics


def compare(a: Value | None, op: str, b: Value | None) -> bool | None:
    """SQL comparison: UNKNOWN (None) with a NULL operand or operands of different kinds."""
    if a is None or b is None:
        return None
    if isinstance(a, str) != isinstance(b, str) or isinstance(a, bool) != isinstance(b, bool):
        return None
    return {"=": a == b, "<>": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]  # type: ignore


def truth(c: Condition, term: Callable[[Term], Value | None]) -> bool | None:
    """Kleene's three-valued logic of SQL (None is UNKNOWN)."""
    if isinstance(c, Truth):
        return c.value
    if isinstance(c, Cmp):
        return compare(term(c.left), c.op, term(c.right))
    if isinstance(c, IsNull):
        return (term(c.term) is None) != c.negated
    if isinstance(c, Not):
        v = truth(c.arg, term)
        return None if v is None else not v
    a, b = truth(c.left, term), truth(c.right, term)  # type: ignore[union-attr]
    if isinstance(c, And):
        return False if a is False or b is False else (None if a is None or b is None else True)
    return True if a is True or b is True else (None if a is None or b is None else False)


def aggregate(func: str, values: Sequence[Value | None]) -> Value | None:
    """``COUNT`` counts the non-NULL values; ``SUM``/``MIN``/``MAX`` of no non-NULL value is NULL (ISO/IEC
    9075-2:2016 §10.9, ``<aggregate function>``)."""
    present = [v for v in values if v is not None]
    if func == "COUNT":
        return len(present)
    if not present:
        return None
    try:
        return {"SUM": sum, "MIN": min, "MAX": max}[func](present)  # type: ignore[operator]
    except TypeError:
        return None


def running_term(t: Term, rows: Sequence[Event], start: int, labels: Labels, *,
                 prev_within_match: bool = False) -> Value | None:
    """A term at the row ``start + len(labels) - 1`` just classified as ``labels[-1]``, seeing the rows mapped so
    far (running semantics, TR 19075-5 §4.14; for ``MEASURES`` the labels are the whole match, which is final
    semantics). The rows a column designates are those mapped to its variable, or every row so far for an
    unqualified column (the universal row pattern variable):

    * a column reads the last of them (for an unqualified one, the current row);
    * ``FIRST(c, k)`` / ``LAST(c, k)`` the k-th after the first / before the last (§4.15.2);
    * ``PREV(c, k)`` the row k physical rows before the one ``c`` designates, within the partition: before the
      match's start too (§4.15.3);
    * an aggregate runs over all of them (§4.16), ``COUNT(*)`` counts every row so far.

    NULL when the row does not exist. ``prev_within_match`` is Flink's reading (D226): ``PREV`` does not reach
    before the match's first row."""
    if isinstance(t, Const):
        return t.value
    if isinstance(t, Arith):
        a = running_term(t.left, rows, start, labels, prev_within_match=prev_within_match)
        b = running_term(t.right, rows, start, labels, prev_within_match=prev_within_match)
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)):
            return None
        return a + b if t.op == "+" else a - b  # type: ignore[operator]
    if isinstance(t, Agg) and t.col is None:
        return len(labels)
    col = t if isinstance(t, Col) else t.col
    assert col is not None
    mapped = [start + i for i, v in enumerate(labels) if col.var is None or v == col.var]
    if isinstance(t, Agg):
        return aggregate(t.func, [value(rows[i], col.attr) for i in mapped])
    k = t.offset if isinstance(t, Nav) else 0
    row: int | None = None
    if k < len(mapped):
        row = mapped[k] if isinstance(t, Nav) and t.first else mapped[-1 - k]
    if isinstance(t, Prev) and row is not None:
        floor = start if prev_within_match else 0
        row = row - t.offset if row - t.offset >= floor else None
    return None if row is None else value(rows[row], col.attr)


def satisfied(q: Query, rows: Sequence[Event], start: int, labels: Labels, *, prev_within_match: bool = False) -> bool:
    """Whether mapping rows ``start …`` to ``labels`` is a match (rule 3): every row's condition is TRUE when the
    row is classified, and the match fits Flink's ``WITHIN``."""
    if start + len(labels) > len(rows):
        return False
    for i in range(len(labels)):
        prefix = labels[:i + 1]
        if truth(q.define(labels[i]), lambda t: running_term(t, rows, start, prefix,
                                                             prev_within_match=prev_within_match)) is not True:
            return False
    return within(q, rows, start, start + len(labels) - 1)


def within(q: Query, rows: Sequence[Event], first: int, last: int) -> bool:
    """Flink's ``WITHIN``: the time of row ``last`` minus that of row ``first`` is at most the interval (Flink's
    documentation, *Time constraint*: a match is dropped when that time is *longer* than the interval, and its
    example keeps a match exactly one hour long under ``WITHIN INTERVAL '1' HOUR``; D225)."""
    if q.within is None:
        return True
    t0, t1 = time(rows, q, first), time(rows, q, last)
    if not isinstance(t0, (int, float)) or not isinstance(t1, (int, float)):
        return False
    return t1 - t0 <= q.within


# -------------------------------------------------------------------------- rule 4: preferment and skipping


def preferred_match(q: Query, rows: Sequence[Event], start: int, *, prev_within_match: bool = False) -> Labels | None:
    """The most preferred match starting at row ``start`` (TR 19075-5 §4.12), or None: the least choice sequence
    among the derivations that are matches."""
    best: tuple[Key, Labels] | None = None
    candidates = derivations(q.pattern, len(rows) - start)
    charge(SEMANTICS, len(candidates))  # each is checked against the rows (derivations are cached across starts)
    for key, labels in candidates:
        if labels and (best is None or key < best[0]) and satisfied(q, rows, start, labels,
                                                                    prev_within_match=prev_within_match):
            best = (key, labels)
    return None if best is None else best[1]


def next_start(skip: Skip, start: int, labels: Labels) -> int:
    """Where the next attempt begins after a match of ``labels`` at ``start`` (TR 19075-5 §4.13): past its last
    row, at the row after its first, or at the first/last row mapped to a variable, which must exist and must not
    be the match's first row (else :class:`SkipError`)."""
    if skip.kind == "PAST LAST ROW":
        return start + len(labels)
    if skip.kind == "TO NEXT ROW":
        return start + 1
    mapped = [i for i, v in enumerate(labels) if v == skip.var]
    if not mapped:
        raise SkipError(f"AFTER MATCH SKIP {skip.kind} {skip.var}: the match maps no row to {skip.var}")
    target = mapped[0] if skip.kind == "TO FIRST" else mapped[-1]
    if target == 0:
        raise SkipError(f"AFTER MATCH SKIP {skip.kind} {skip.var}: the match's first row again (an endless loop)")
    return start + target


Matcher = Callable[[Query, Sequence[Event], int], "Labels | None"]


def matches_in(q: Query, rows: Sequence[Event], find: Matcher = preferred_match) -> list[tuple[int, Labels]]:
    """The matches of one ordered partition as ``(start, labels)`` (rule 4), each found by ``find``."""
    found, start = [], 0
    while start < len(rows):
        labels = find(q, rows, start)
        if labels is None:
            start += 1
            continue
        found.append((start, labels))
        start = next_start(q.skip, start, labels)
    return found


# ------------------------------------------------------------------------------ rule 5: final semantics


def measure(t: Term, rows: Sequence[Event], start: int, labels: Labels) -> Value | None:
    """A ``MEASURES`` expression under final semantics (TR 19075-5 §4.14): as in ``DEFINE``, over the whole match
    (:func:`running_term` with every label)."""
    return running_term(t, rows, start, labels)


def to_match(q: Query, positions: Sequence[int], rows: Sequence[Event], key: tuple[Value | None, ...],
             start: int, labels: Labels) -> Match:
    return Match(tuple((positions[start + i], v) for i, v in enumerate(labels)), key,
                 tuple((m.name, measure(m.expr, rows, start, labels)) for m in q.measures))


def run_with(q: Query, stream: Sequence[Event], find: Matcher) -> list[frozenset]:
    """The per-position outputs when the matches of each partition are found by ``find``."""
    out: list[set[Match]] = [set() for _ in stream]
    for key, positions in partitions(q, stream):
        rows = [stream[n] for n in positions]
        for start, labels in matches_in(q, rows, find):
            m = to_match(q, positions, rows, key, start, labels)
            out[m.end].add(m)
    return [frozenset(s) for s in out]


def evaluate(q: Query, stream: Sequence[Event]) -> list[frozenset]:
    """The reference outputs: at stream position n, the matches whose last row is at n."""
    return run_with(q, stream, preferred_match)


__all__ = ["Match", "SkipError", "aggregate", "compare", "derivations", "evaluate", "min_rows", "matches_in", "measure", "next_start",
           "partitions", "preferred_match", "run_with", "running_term", "satisfied", "to_match", "truth", "value",
           "within"]
