"""Metamorphic relations for CER engines: properties an engine's outputs must satisfy *whatever* reading of the
semantics it chose, so they find bugs even where an engine and the reference legitimately differ (SQLancer's
idea, Rigger and Su, *Testing Database Engines via Query Partitioning*, OOPSLA 2020, applied to CEQL).

Each relation takes a source case, builds one or two follow-up cases, runs the engine on all of them and checks
a relation between the outputs (complex events as ``(start, end, positions)``, compared as multisets):

* ``filter-split`` — ``φ FILTER v[P]`` and ``φ FILTER v[NOT P]`` partition the output of ``φ``, for a variable v
  bound to exactly one event in every complex event (an atom that occurs once, not under OR or ``+``) and every
  event carrying the attribute P reads (no nulls); under ``SELECT *`` and no strategy, LIMIT or CONSUME BY
  (the CEL paper, Grez, Riveros, Ugarte, Vansummeren, *A formal framework for complex event recognition*, §3:
  a FILTER keeps the valuations whose events satisfy it);
* ``law`` — a pattern and one equal to it by a proven law of docs/laws.md (OR commutative, ``;`` and ``:``
  associative, ``R+ ≡ R OR (R ; R+)``, ``;`` distributing over OR, OR idempotent) give the same output: the laws
  hold for valuations, so for every clause of the query (not under LIMIT, whose choice is free);
* ``partition-interleave`` — under PARTITION BY, reordering events of *different* partitions that share a time
  (each partition's order and the time order kept) changes nothing but positions (the CORE paper §2: the query
  runs on each partition's substream; a complex event's interval and positions are those of its partition's
  events, mapped back); not under ``WITHIN n EVENTS`` (positions), LIMIT or CONSUME BY;
* ``window-monotone`` — ``WITHIN n+1`` keeps every complex event ``WITHIN n`` finds (the window admits more
  intervals; no strategy, LIMIT or CONSUME BY, under which a longer window may replace a complex event);
* ``prefix`` — the complex events ending before position k are those of the stream's first k events: the output
  at position i does not depend on events after i (not under LIMIT, whose choice is free).

A relation is about queries, so the engine must read the texts as the harness means them: under a dialect whose
``core-precedence`` reading applies to a run's query (CORE groups ``;``, ``:`` and OR differently from our
printer's text), the relation is not checked on that case. A violation is a finding (:mod:`cer_theory.testing.findings`): it is reduced (the source case, by
:data:`~cer_theory.conformance.check.CEQL_REDUCER`, while the relation still fails) and grouped by canonical case
and relation. A follow-up the engine refuses or fails on is no violation (the conformance run reports those).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import Not, On
from cer_theory.formalisms.cel.ast import Atom, Contig, Disj, Filter, Formula, In, Plus, Seq
from cer_theory.conformance.check import CEQL_REDUCER
from cer_theory.conformance.dialects import CORE_PRECEDENCE, PAPER, Dialect
from cer_theory.conformance.generate import _body
from cer_theory.conformance.protocol import Adapter, Case, ComplexEvent, EngineFailure, ce_text, to_json_ce
from cer_theory.testing.findings import Finding, group, reduce

VIOLATION = "violation"

RULES = {
    "filter-split": "The CEL paper (Grez, Riveros, Ugarte, Vansummeren, A formal framework for complex event "
                    "recognition, TODS 2021) §3: φ FILTER v[P] keeps the valuations whose v-event satisfies P, so "
                    "with P and NOT P (no nulls) the two outputs partition φ's; the CORE paper §2 evaluates CEQL's "
                    "FILTER so.",
    "law": "A law of CEL (docs/laws.md; the CEL paper Fig. 3, §4, §8.2): both patterns have the same valuations, "
           "so every CEQL clause gives the same complex events on both.",
    "partition-interleave": "The CORE paper §2: PARTITION BY evaluates the query on each partition's substream "
                            "separately, so the order of events of different partitions does not matter.",
    "window-monotone": "The CORE paper §2: WITHIN keeps the complex events whose interval fits the window; a "
                       "longer window admits every interval a shorter one does (no selection strategy).",
    "prefix": "The CORE paper §2 (and every streaming semantics): the complex events ending at position i are "
              "a function of the events up to i.",
}
"""The rule each relation rests on, as a finding's report states it."""

RELATIONS = ("filter-split", "law", "partition-interleave", "window-monotone", "prefix")


@dataclass
class Run:
    """One run of the engine in a relation: the case and its output (None: the engine refused or failed): complex
    events here, output rows for ``MATCH_RECOGNIZE`` (:mod:`cer_theory.conformance.rpr_metamorphic`)."""

    label: str
    case: Any
    out: Any


@dataclass
class Check:
    """One relation checked on one source case: ``kind`` is ``violation`` or ``holds``; ``runs`` the source run
    first, then the follow-ups; ``why`` says what part of the relation failed."""

    relation: str
    case: Case
    kind: str
    runs: list[Run] = field(default_factory=list)
    why: str = ""
    minimal: Check | None = None

    @property
    def finding(self) -> bool:
        return self.kind == VIOLATION

    def case_json(self, number: int) -> dict[str, Any]:
        """The source case as a protocol request (``--replay`` reads it)."""
        return self.case.request(number)

    def runs_json(self) -> list[dict[str, Any]]:
        return [{"label": r.label, "query": r.case.query, "events": [e.to_dict() for e in r.case.events],
                 "output": [to_json_ce(x) for x in sorted(r.out or [])]} for r in self.runs]

    def text(self) -> str:
        lines = [f"{self.relation} violated: {self.why}"]
        for r in self.runs:
            lines += [f"  {r.label}: {r.case.query}",
                      "    stream: " + " ".join(f"{k}:{_event_text(e)}" for k, e in enumerate(r.case.events)),
                      "    output: " + ("refused or failed" if r.out is None else
                                        " ".join(ce_text(c) for c in sorted(r.out)) or "∅")]
        return "\n".join(lines)


def _event_text(e: Event) -> str:
    return e.type + "(" + ", ".join(f"{a}={v!r}" for a, v in e.attributes.items()) + ")"


# ------------------------------------------------------------------------------------------ follow-up cases


def _nodes(phi: Any) -> Iterator[Any]:
    yield phi
    for f in dataclasses.fields(phi):
        v = getattr(phi, f.name)
        if isinstance(v, Formula):
            yield from _nodes(v)


def _single_atoms(phi: Formula) -> list[str]:
    """Atoms bound to exactly one event in every output: occurring once, reached without OR, ``+`` or ``:+``."""
    counts = Counter(n.name for n in _nodes(phi) if isinstance(n, Atom))

    def spine(p: Formula) -> Iterator[str]:
        if isinstance(p, Atom):
            yield p.name
        elif isinstance(p, (Seq, Contig)):
            yield from spine(p.left)
            yield from spine(p.right)
        elif isinstance(p, (Filter, In)):
            yield from spine(p.body)

    return [a for a in spine(phi) if counts[a] == 1]


SPLIT = "x <= 1"
"""The predicate P of ``filter-split`` (the generated streams' ``x`` is 0..3 on every event)."""


def filter_split(case: Case) -> list[tuple[str, Case]] | None:
    q = case.ast
    if q.strategy != "ALL" or q.limit is not None or q.consume is not None or q.select is not None:
        return None
    atoms = _single_atoms(q.pattern)
    if not atoms or any("x" not in e.attributes for e in case.events):
        return None
    p = _body(SPLIT)
    return [(f"FILTER {atoms[0]}[{SPLIT}]", case.with_(query=dataclasses.replace(
                q, pattern=Filter(q.pattern, On(atoms[0], p))))),
            (f"FILTER {atoms[0]}[NOT {SPLIT}]", case.with_(query=dataclasses.replace(
                q, pattern=Filter(q.pattern, On(atoms[0], Not(p))))))]


def _law_rewrites(phi: Formula) -> Iterator[tuple[str, Formula]]:
    """``phi`` with one subformula rewritten by a law of docs/laws.md, outermost first; the law's name."""
    if isinstance(phi, Disj):
        yield "OR is commutative", Disj(phi.right, phi.left)
    if isinstance(phi, Seq) and isinstance(phi.left, Seq):
        yield "; is associative", Seq(phi.left.left, Seq(phi.left.right, phi.right))
    if isinstance(phi, Contig) and isinstance(phi.left, Contig):
        yield ": is associative", Contig(phi.left.left, Contig(phi.left.right, phi.right))
    if isinstance(phi, Seq) and isinstance(phi.right, Disj):
        yield "; distributes over OR (left)", Disj(Seq(phi.left, phi.right.left), Seq(phi.left, phi.right.right))
    if isinstance(phi, Plus) and isinstance(phi.body, Atom):
        yield "+ unfolds", Disj(phi.body, Seq(phi.body, phi))
    for f in dataclasses.fields(phi):
        sub = getattr(phi, f.name)
        if isinstance(sub, Formula):
            for name, new in _law_rewrites(sub):
                yield name, dataclasses.replace(phi, **{f.name: new})


def law(case: Case) -> list[tuple[str, Case]] | None:
    q = case.ast
    if q.limit is not None:
        return None
    name, pattern = next(_law_rewrites(q.pattern), ("OR is idempotent", Disj(q.pattern, q.pattern)))
    return [(name, case.with_(query=dataclasses.replace(q, pattern=pattern)))]


def interleaving(case: Case) -> list[int] | None:
    """A reordering of the stream (new position → old position) that reverses, within each run of events with
    equal ``time``, the order of the partitions (keeping each partition's own order); None when it is the
    identity."""
    q = case.ast
    events = case.events
    key = lambda e: tuple(tuple(e.get(a) for a in g) for g in q.partition_by)  # noqa: E731
    order: list[int] = []
    k = 0
    while k < len(events):
        j = k
        while j < len(events) and events[j].get("time") == events[k].get("time"):
            j += 1
        parts: dict[Any, list[int]] = {}
        for n in range(k, j):
            parts.setdefault(key(events[n]), []).append(n)
        for group_ in reversed(list(parts.values())):
            order += group_
        k = j
    return None if order == list(range(len(events))) else order


def partition_interleave(case: Case) -> list[tuple[str, Case]] | None:
    q = case.ast
    if (not q.partition_by or q.limit is not None or q.consume is not None
            or (q.within is not None and q.within.kind == "events")):
        return None
    order = interleaving(case)
    if order is None:
        return None
    return [("partitions interleaved: " + ",".join(map(str, order)),
             case.with_(events=[case.events[n] for n in order]))]


def window_monotone(case: Case) -> list[tuple[str, Case]] | None:
    q = case.ast
    if q.within is None or q.strategy != "ALL" or q.limit is not None or q.consume is not None:
        return None
    longer = dataclasses.replace(q.within, size=q.within.size + 1)
    return [(f"WITHIN {longer.size:g}", case.with_(query=dataclasses.replace(q, within=longer)))]


def prefix(case: Case) -> list[tuple[str, Case]] | None:
    if case.ast.limit is not None or len(case.events) < 2:
        return None
    k = len(case.events) // 2
    return [(f"first {k} events", case.with_(events=case.events[:k]))]


FOLLOW_UPS: dict[str, Callable[[Case], list[tuple[str, Case]] | None]] = {
    "filter-split": filter_split, "law": law, "partition-interleave": partition_interleave,
    "window-monotone": window_monotone, "prefix": prefix}


# ------------------------------------------------------------------------------------------ the relations


def holds(relation: str, source: Case, out: list[ComplexEvent], follow: list[tuple[str, Case]],
          outs: list[list[ComplexEvent]]) -> str:
    """Why ``relation`` fails on these outputs ('' when it holds)."""
    have = Counter(out)
    if relation == "filter-split":
        parts = Counter(outs[0]) + Counter(outs[1])
        return "" if parts == have else "the two filtered outputs do not add up to the unfiltered one"
    if relation == "law":
        return "" if Counter(outs[0]) == have else f"the output changes under the law '{follow[0][0]}'"
    if relation == "partition-interleave":
        order = interleaving(source)
        assert order is not None
        back = Counter((order[s], order[e], tuple(sorted(order[p] for p in ps))) for s, e, ps in outs[0])
        return "" if back == have else "reordering events of different partitions changes the output"
    if relation == "window-monotone":
        lost = have - Counter(outs[0])
        return "" if not lost else "the longer window loses " + " ".join(ce_text(c) for c in sorted(lost.elements()))
    k = len(follow[0][1].events)
    early = Counter(c for c in out if c[1] < k)
    return "" if early == Counter(outs[0]) else f"the output before position {k} depends on later events"


def check(relation: str, case: Case, adapter: Adapter, dialect: Dialect = PAPER) -> Check | None:
    """``relation`` on ``case``: a :class:`Check`, or None when it does not apply, when the engine reads a run's
    query text with another grouping (the dialect's ``core-precedence``: the runs would not be the queries the
    relation is about), or when the engine refuses or fails on a run (nothing to compare)."""
    follow = FOLLOW_UPS[relation](case)
    if follow is None:
        return None
    if any(CORE_PRECEDENCE in dialect.applicable(c.ast) for c in (case, *(c for _, c in follow))):
        return None
    runs = [Run("source", case, _run(adapter, case))] + [Run(label, c, _run(adapter, c)) for label, c in follow]
    if any(r.out is None for r in runs):
        return None
    why = holds(relation, case, runs[0].out or [], follow, [r.out or [] for r in runs[1:]])
    return Check(relation, case, VIOLATION if why else "holds", runs, why)


def _run(adapter: Adapter, case: Case) -> list[ComplexEvent] | None:
    try:
        return adapter.run(case)
    except EngineFailure:
        return None


def relation_shape(c: Check) -> frozenset[str]:
    return frozenset({c.relation})


def shrink(violation: Check, adapter: Adapter, dialect: Dialect = PAPER, *, budget: int = 200) -> Check:
    """The violation on a reduced source case (the relation still failing), :data:`CEQL_REDUCER`'s canonical
    form."""
    def run(cases: Sequence[Case]) -> Iterator[Check | None]:
        for c in cases:
            try:
                yield check(violation.relation, c, adapter, dialect)
            except Exception:  # noqa: BLE001 - a smaller case the reference or the harness cannot take
                yield None

    best, _ = reduce(violation, run, CEQL_REDUCER, relation_shape, budget=budget)
    return dataclasses.replace(best, minimal=None)


def run_relations(cases: Sequence[Case], adapter: Adapter, dialect: Dialect = PAPER, *,
                  relations: Sequence[str] = RELATIONS,
                  shrink_violations: bool = True,
                  progress: Callable[[int, int, Counter], None] | None = None) -> tuple[list[Check], Counter]:
    """Every applicable relation on every case; violations reduced. Returns the checks and the counts per
    (relation, holds|violation)."""
    checks: list[Check] = []
    counts: Counter = Counter()
    for k, case in enumerate(cases, 1):
        for relation in relations:
            c = check(relation, case, adapter, dialect)
            if c is None:
                continue
            if c.finding and shrink_violations:
                c.minimal = shrink(c, adapter, dialect)
            checks.append(c)
            counts[(relation, c.kind)] += 1
        if progress is not None:
            progress(k, len(cases), counts)
    return checks, counts


def findings(checks: Sequence[Check]) -> list[Finding[Check]]:
    return group((c for c in checks if c.finding), CEQL_REDUCER, relation_shape, minimal=lambda c: c.minimal or c,
                 name=lambda c: f"{c.case.name} ({c.relation})")


def summary_line(counts: Counter, relations: Sequence[str] = RELATIONS) -> str:
    """``N relation checks: H hold, V violated (…)``: the counts per (relation, holds|violation), per relation in
    the order of ``relations``."""
    held, violated = sum(n for (r, k), n in counts.items() if k != VIOLATION), sum(
        n for (r, k), n in counts.items() if k == VIOLATION)
    per = ", ".join(f"{r} {counts[(r, 'holds')]}/{counts[(r, 'holds')] + counts[(r, VIOLATION)]}"
                    for r in relations if counts[(r, 'holds')] + counts[(r, VIOLATION)])
    return f"{held + violated} relation checks: {held} hold, {violated} violated ({per} hold)"


__all__ = ["Check", "FOLLOW_UPS", "RELATIONS", "RULES", "Run", "VIOLATION", "check", "filter_split", "findings", "holds",
           "interleaving", "law", "partition_interleave", "prefix", "run_relations", "shrink", "summary_line",
           "window_monotone"]
