"""Metamorphic relations for ``MATCH_RECOGNIZE`` engines: properties of an engine's output rows that hold *whatever*
reading of row pattern recognition it chose (greedy or possessive loops, which partial match wins, what happens at
the end of the input), so they find bugs even where an engine and the reference legitimately part (SQLancer's
idea, Rigger and Su, *Testing Database Engines via Query Partitioning*, OOPSLA 2020; the CEQL relations are in
:mod:`cer_theory.conformance.metamorphic`).

Each relation takes a source case of the ``flink`` harness (:class:`~cer_theory.conformance.flink.Case`: a query
and one stream), builds one follow-up case, runs the engine on both and compares the output rows of ``ONE ROW PER
MATCH`` as multisets (partition key and measures; every query carries ``first_id`` and ``last_id``). The rules are
those of ISO/IEC 9075-2:2016 §7.6 and ISO/IEC TR 19075-5:2016 ("TR 19075-5") that no reading of preferment
touches:

* ``partition-interleave`` — under ``PARTITION BY``, the rows of the first row's partition are moved later in time
  (each row's ``ts`` plus the stream's span, the gaps inside the partition kept), so the partitions interleave
  differently: the same rows (TR 19075-5 §4.4: each partition is matched separately; ``WITHIN`` and ``ORDER BY``
  see time differences inside a partition only);
* ``time-shift`` — every row's ``ts`` plus a constant: the same rows (§4.5: ``ORDER BY`` orders, and Flink's
  ``WITHIN`` measures the time between a match's first and last rows);
* ``rename`` — the pattern variables renamed (first-used → ``Z``, ``Y``, ``W``) in the pattern, ``DEFINE``,
  ``MEASURES`` and ``AFTER MATCH SKIP TO``, and the ``DEFINE`` entries listed in reverse: the same rows (§4.8: a
  variable's condition is found by its name; the output names measures, not variables);
* ``condition-law`` — every ``DEFINE`` condition replaced by one equal to it in SQL's three-valued logic
  (ISO/IEC 9075-2:2016 §6.39 ``<boolean value expression>``, its truth tables): ``NOT NOT (P' OR FALSE)`` where
  ``P'`` is ``P`` with AND or OR commuted, De Morgan applied, a comparison written the other way round, or ``P
  AND TRUE``; and every undefined variable defined as ``TRUE`` (TR 19075-5 §4.8): the same rows, since a row is
  mapped exactly when its condition is TRUE;
* ``measures`` — the measures other than ``first_id``/``last_id`` dropped (or ``COUNT(*)`` added when there are
  none): the rows, restricted to the measures both runs have, are the same (§4.9: measures are computed from a
  match once it is found; matching never reads them);
* ``skip-subset`` — ``AFTER MATCH SKIP TO NEXT ROW`` in place of any other mode keeps every row (§4.13: the match
  found at a start row does not depend on the skip mode, which only chooses the next start row; ``TO NEXT ROW``
  tries every row).

Not claimed: that the rows ending before row i depend on the rows up to i only, or that a longer ``WITHIN`` keeps
every match. Preferment looks at later rows (a greedy ``B+`` prefers the match that takes them), so both fail for
the standard itself (docs/decisions.md D363).

A violation is a finding (:mod:`cer_theory.testing.findings`): reduced by the ``flink`` harness's reducer
(:data:`~cer_theory.conformance.flink.FLINK_REDUCER`) while the relation still fails, and grouped by canonical
case and relation. A run the engine fails on is not checked (the conformance run reports those).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

from cer_theory.core.events import Event
from cer_theory.formalisms.rpr.ast import And, Agg, Cmp, Condition, Measure, Not, Or, Query, Skip, Truth, check, \
    variables
from cer_theory.formalisms.rpr.printer import format
from cer_theory.conformance.flink import FLINK_REDUCER, IDENTIFY, READINGS, Case, expected_rows, model_rows, \
    rename_variables, rows_json, same_query
from cer_theory.conformance import metamorphic
from cer_theory.conformance.metamorphic import VIOLATION, Run
from cer_theory.conformance.protocol import EngineFailure
from cer_theory.testing.findings import Finding, group, reduce

Rows = Counter
"""One run's output rows: a multiset of (partition key, measures as (name, value) pairs)."""

RULES = {
    "partition-interleave": "ISO/IEC TR 19075-5:2016 §4.4 (and ISO/IEC 9075-2:2016 §7.6): rows are partitioned "
                            "by PARTITION BY and each partition is matched on its own; moving one partition's rows "
                            "in time, their order and gaps kept, changes no partition's rows.",
    "time-shift": "ISO/IEC TR 19075-5:2016 §4.5: ORDER BY orders the rows of a partition; Flink's WITHIN bounds the "
                  "time between a match's first and last rows. Adding a constant to every time changes neither.",
    "rename": "ISO/IEC TR 19075-5:2016 §4.8: a pattern variable's condition is the DEFINE entry of that name, in "
              "any order; the output row holds the measures, named by MEASURES, not by variables.",
    "condition-law": "ISO/IEC 9075-2:2016 §6.39 (the truth tables of SQL's three-valued logic) and TR 19075-5:2016 "
                     "§4.8: a row is mapped to a variable exactly when its condition is TRUE, and an undefined "
                     "variable's condition is TRUE; a condition equal to another in three-valued logic maps the "
                     "same rows.",
    "measures": "ISO/IEC TR 19075-5:2016 §4.9: the measures are computed from a match once it is found; the "
                "matching never reads them, so dropping or adding a measure changes no other measure's values.",
    "skip-subset": "ISO/IEC TR 19075-5:2016 §4.13: the match found at a start row does not depend on AFTER MATCH "
                   "SKIP, which chooses the next start row only; SKIP TO NEXT ROW tries every row, so it finds every "
                   "match another mode finds.",
}
"""The rule each relation rests on, as a finding's report states it."""

RELATIONS = tuple(RULES)

SHIFT = 7
"""Seconds ``time-shift`` adds (odd: not a multiple of the generated ``WITHIN`` intervals, 2 and 4)."""


# ------------------------------------------------------------------------------------------ follow-up cases


def _with_times(events: Sequence[Event], shift: Callable[[Event], int]) -> tuple[Event, ...]:
    """The rows with ``ts`` moved by ``shift(row)``, in time order (stable: rows with equal times keep theirs)."""
    moved = [Event(e.type, {**e.attributes, "ts": e["ts"] + shift(e)}) for e in events]
    return tuple(sorted(moved, key=lambda e: e["ts"]))


def partition_interleave(case: Case) -> tuple[str, Case] | None:
    q = case.query
    if not q.partition_by or not case.events:
        return None
    key = lambda e: tuple(e.get(a) for a in q.partition_by)  # noqa: E731
    first = key(case.events[0])
    if all(key(e) == first for e in case.events):
        return None
    span = case.events[-1]["ts"] - case.events[0]["ts"] + 1
    events = _with_times(case.events, lambda e: span if key(e) == first else 0)
    if [e["id"] for e in events] == [e["id"] for e in case.events]:
        return None
    return f"partition {first} moved {span} s later", dataclasses.replace(case, events=events)


def time_shift(case: Case) -> tuple[str, Case] | None:
    if not case.events:
        return None
    return f"every ts + {SHIFT}", dataclasses.replace(case, events=_with_times(case.events, lambda e: SHIFT))


RENAMES = ("Z", "Y", "W", "V", "U")


def rename(case: Case) -> tuple[str, Case] | None:
    q = case.query
    names = list(dict.fromkeys(variables(q.pattern)))
    if len(names) > len(RENAMES):
        return None
    mapping = dict(zip(names, RENAMES))
    renamed = rename_variables(q, mapping)
    renamed = dataclasses.replace(renamed, defines=tuple(reversed(renamed.defines)))
    label = ", ".join(f"{a}→{b}" for a, b in mapping.items()) + "; DEFINE reversed"
    return label, dataclasses.replace(case, query=renamed)


FLIP = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _top_law(c: Condition) -> tuple[str, Condition]:
    """A law of SQL's three-valued logic at ``c``'s outermost operator: AND or OR commuted, De Morgan under NOT,
    a comparison written the other way round, else ``c AND TRUE``."""
    if isinstance(c, (And, Or)):
        return f"{type(c).__name__.upper()} commutes", type(c)(c.right, c.left)
    if isinstance(c, Not) and isinstance(c.arg, (And, Or)):
        dual = Or if isinstance(c.arg, And) else And
        return "De Morgan", dual(Not(c.arg.left), Not(c.arg.right))
    if isinstance(c, Cmp):
        return "a op b = b op' a", Cmp(c.right, FLIP[c.op], c.left)
    return "P AND TRUE = P", And(c, Truth(True))


def law(c: Condition) -> tuple[str, Condition]:
    """``NOT NOT (c' OR FALSE)``, where ``c'`` is ``c`` under :func:`_top_law`: equal to ``c`` (TRUE, FALSE and
    UNKNOWN alike) by the truth tables of ISO/IEC 9075-2:2016 §6.39; the laws used, named."""
    name, inner = _top_law(c)
    return f"{name}, P OR FALSE = P, NOT NOT P = P", Not(Not(Or(inner, Truth(False))))


def condition_law(case: Case) -> tuple[str, Case] | None:
    """Every ``DEFINE`` condition rewritten by :func:`law`, and every undefined variable defined as ``TRUE``
    (TR 19075-5 §4.8). The laws depend on the condition only, so a reduced case keeps its laws."""
    q = case.query
    named = dict(q.defines)
    defines, used = [], []
    for v in dict.fromkeys(variables(q.pattern)):
        if v in named:
            name, c = law(named[v])
            used.append(f"{v}: {name}")
            defines.append((v, c))
        else:
            used.append(f"{v} AS TRUE (undefined is TRUE)")
            defines.append((v, Truth(True)))
    return "; ".join(used), dataclasses.replace(case, query=dataclasses.replace(q, defines=tuple(defines)))


EXTRA = Measure(Agg("COUNT", None), "n_rows")
"""The measure ``measures`` adds to a query that has only the identifying ones."""


def measures(case: Case) -> tuple[str, Case] | None:
    q = case.query
    extra = [m for m in q.measures if m not in IDENTIFY]
    if extra:
        return "measures other than first_id, last_id dropped", dataclasses.replace(
            case, query=dataclasses.replace(q, measures=tuple(m for m in q.measures if m in IDENTIFY)))
    return "COUNT(*) AS n_rows added", dataclasses.replace(case, query=dataclasses.replace(
        q, measures=(*q.measures, EXTRA)))


def skip_subset(case: Case) -> tuple[str, Case] | None:
    q = case.query
    if q.skip.kind == "TO NEXT ROW":
        return None
    return "AFTER MATCH SKIP TO NEXT ROW", dataclasses.replace(case, query=dataclasses.replace(
        q, skip=Skip("TO NEXT ROW")))


FOLLOW_UPS: dict[str, Callable[[Case], tuple[str, Case] | None]] = {
    "partition-interleave": partition_interleave, "time-shift": time_shift, "rename": rename,
    "condition-law": condition_law, "measures": measures, "skip-subset": skip_subset}


def holds(relation: str, source: Rows, follow: Rows) -> str:
    """Why ``relation`` fails on a source's and its follow-up's rows ('' when it holds)."""
    if relation == "measures":  # compared on the measures both runs have
        common = {m.name for m in IDENTIFY}
        a, b = (Counter({(key, tuple(m for m in ms if m[0] in common)): n for (key, ms), n in rows.items()})
                for rows in (source, follow))
        return "" if a == b else "the matches change with the measures"
    if relation == "skip-subset":
        lost = source - follow
        return "" if not lost else f"SKIP TO NEXT ROW loses {sum(lost.values())} of the rows"
    return "" if source == follow else "the output rows change"


# ------------------------------------------------------------------------------------------ engines


class RowsEngine(Protocol):
    """A ``MATCH_RECOGNIZE`` engine as the relations run it: the output rows of a batch of cases that share a
    query (Flink runs them as one job), None for a case it failed on. ``name`` names it in reports."""

    name: str

    def run_group(self, cases: Sequence[Case]) -> list[Rows | None]: ...


class ReferenceRows:
    """The reference semantics of :mod:`cer_theory.formalisms.rpr` (the standard's preferment, by brute force);
    a case on which the standard raises (``AFTER MATCH SKIP TO`` a row it may not) has no rows."""

    name = "rpr-reference"

    def run_group(self, cases: Sequence[Case]) -> list[Rows | None]:
        return [_or_none(lambda c=c: expected_rows(c.query, c.events)) for c in cases]


class ModelRows:
    """The executable model of Flink's matcher (:mod:`cer_theory.conformance.flink_model`): Flink's reading of
    preferment and of the end of the input. A case outside its fragment has no rows."""

    name = "flink-nfa model"

    def run_group(self, cases: Sequence[Case]) -> list[Rows | None]:
        return [_or_none(lambda c=c: model_rows(c.query, c.events)) for c in cases]


def _or_none(f: Callable[[], Rows | None]) -> Rows | None:
    try:
        return f()
    except Exception:  # noqa: BLE001 - the standard's exception, or a query outside the fragment: not checked
        return None


class FlinkRows:
    """Flink through a :class:`~cer_theory.conformance.flink.FlinkSession`: one job per batch; a job that fails
    leaves every case of the batch without rows (not checked; ``failures`` counts them, ``errors`` counts them
    by Flink's message)."""

    name = "flink"

    def __init__(self, session: Any) -> None:
        self.session = session
        self.failures = 0
        self.errors: Counter = Counter()  # Flink's messages, with the number of runs each failed

    def run_group(self, cases: Sequence[Case]) -> list[Rows | None]:
        try:
            return list(self.session.run_group(cases))
        except EngineFailure as exc:
            self.failures += len(cases)
            self.errors[str(exc)] += len(cases)
            return [None] * len(cases)

    def note(self) -> str:
        """The runs not checked, for the summary line: those Flink refuses as documented (the ``flink``
        dialect's :data:`~cer_theory.conformance.flink.READINGS`, by name) and those it failed on otherwise."""
        if not self.failures:
            return ""
        documented: Counter = Counter()
        other = 0
        for message, n in self.errors.items():
            names = [r.name for r in READINGS if re.search(r.refuses, message)]
            if names:
                documented[names[0]] += n
            else:
                other += n
        parts = [f"{sum(documented.values())} runs Flink refuses as documented ("
                 + ", ".join(f"{k} {n}" for k, n in documented.most_common()) + ")"] if documented else []
        parts += [f"{other} runs Flink failed on otherwise"] if other else []
        return "; not checked: " + ", ".join(parts)


# ------------------------------------------------------------------------------------------ checking


class Check(metamorphic.Check):
    """One relation checked on one source case (:class:`cer_theory.conformance.metamorphic.Check`), its runs'
    outputs being rows and its case a ``flink`` harness case."""

    def text(self) -> str:
        lines = [f"{self.relation} violated: {self.why}" if self.finding else f"{self.relation} holds"]
        for r in self.runs:
            rows = " ".join(f"{e.type}(id={e['id']},k={e['k']},x={e['x']},ts={e['ts']})" for e in r.case.events)
            out = "failed" if r.out is None else " ".join(
                "(" + ", ".join(f"{k}={v}" for k, v in row.items()) + ")" for row in rows_json(r.out)) or "∅"
            lines += [f"  {r.label}:", *("    " + line for line in format(r.case.query).splitlines()),
                      "    rows: " + rows, "    output: " + out]
        return "\n".join(lines)

    def case_json(self, number: int) -> dict[str, Any]:
        """The source case, as ``--engine flink --metamorphic --replay`` reads it."""
        return self.case.to_json()

    def runs_json(self) -> list[dict[str, Any]]:
        return [{"label": r.label, **r.case.to_json(), "output": None if r.out is None else rows_json(r.out)}
                for r in self.runs]


def _valid(q: Query) -> bool:
    try:
        check(q)
        return True
    except Exception:  # noqa: BLE001 - a reduced query the fragment's static rules refuse
        return False


def check_cases(cases: Sequence[Case], engine: RowsEngine, relations: Sequence[str] = RELATIONS
                ) -> list[Check | None]:
    """Every relation of ``relations`` on every case, the runs batched by query (each batch one call of the
    engine, one Flink job): one entry per (case, relation) in that order, None where the relation does not apply
    or a run failed."""
    plan: list[tuple[str, Case, str, Case] | None] = []
    for c in cases:
        for r in relations:
            made = FOLLOW_UPS[r](c) if _valid(c.query) else None
            plan.append(None if made is None or not _valid(made[1].query) else (r, c, *made))
    wanted: dict[Query, list[Case]] = {}
    for p in plan:
        if p is not None:
            for c in (p[1], p[3]):
                same = wanted.setdefault(c.query, [])
                if c not in same:
                    same.append(c)
    answers: dict[tuple[Query, tuple[Event, ...]], Rows | None] = {}
    for q, batch in wanted.items():
        for c, rows in zip(batch, engine.run_group(batch)):
            answers[(q, c.events)] = rows
    out: list[Check | None] = []
    for p in plan:
        if p is None:
            out.append(None)
            continue
        relation, source, label, follow = p
        a, b = answers[(source.query, source.events)], answers[(follow.query, follow.events)]
        if a is None or b is None:
            out.append(None)
            continue
        why = holds(relation, a, b)
        out.append(Check(relation, source, VIOLATION if why else "holds",
                         [Run("source", source, a), Run(label, follow, b)], why))
    return out


def relation_shape(c: Check) -> frozenset[str]:
    return frozenset({c.relation})


SHRINK_CALLS = 40
"""At most this many engine calls (Flink jobs) to reduce one violation."""


def shrink(violation: Check, engine: RowsEngine, *, budget: int = SHRINK_CALLS) -> Check:
    """The violation on a reduced source case, the relation still failing (:data:`FLINK_REDUCER`'s canonical
    form); the candidates that share a query are checked together (one engine call per query of the runs)."""
    calls = 0

    def run(candidates: Sequence[Case]) -> Iterator[Check | None]:
        nonlocal calls
        for same in same_query(candidates):
            if calls >= budget:
                return
            calls += 2
            yield from check_cases(same, engine, (violation.relation,))

    best, _ = reduce(violation, run, FLINK_REDUCER, relation_shape, budget=budget * 20)
    return dataclasses.replace(best, minimal=None)


def run_relations(groups: Sequence[Sequence[Case]], engine: RowsEngine, *, relations: Sequence[str] = RELATIONS,
                  shrink_violations: bool = True, shrink_calls: int = SHRINK_CALLS,
                  progress: Callable[[int, int, Counter], None] | None = None) -> tuple[list[Check], Counter]:
    """Every applicable relation on every case of every group (the cases of a group share their query, so each
    relation costs one engine call per group); each violation reduced (once per relation and group: the cases
    share the query). Returns the checks and the counts per (relation, holds|violation)."""
    checks: list[Check] = []
    counts: Counter = Counter()
    done, total = 0, sum(len(g) for g in groups)
    for g in groups:
        reduced: dict[str, Check] = {}
        for c in check_cases(g, engine, relations):
            if c is None:
                continue
            if c.finding and shrink_violations:
                if c.relation not in reduced:
                    reduced[c.relation] = shrink(c, engine, budget=shrink_calls)
                c.minimal = reduced[c.relation]
            checks.append(c)
            counts[(c.relation, c.kind)] += 1
        done += len(g)
        if progress is not None:
            progress(done, total, counts)
    return checks, counts


def findings(checks: Sequence[Check]) -> list[Finding[Check]]:
    return group((c for c in checks if c.finding), FLINK_REDUCER, relation_shape, minimal=lambda c: c.minimal or c,
                 name=lambda c: f"{c.case.name} ({c.relation})")


def summary_line(counts: Counter) -> str:
    return metamorphic.summary_line(counts, RELATIONS)


__all__ = ["Check", "FOLLOW_UPS", "FlinkRows", "law", "ModelRows", "RELATIONS", "RULES", "ReferenceRows", "Rows",
           "RowsEngine", "Run", "check_cases", "condition_law", "findings", "holds", "measures",
           "partition_interleave", "rename", "run_relations", "shrink", "skip_subset", "summary_line", "time_shift"]
