"""Running cases: compare an engine with the reference, classify, and shrink every failure.

Each case ends in one of five classes:

* **agree** — the engine's complex events are the reference's (the CORE paper §2, :func:`~cer_theory.formalisms.ceql.
  semantics.evaluate`), as multisets; under ``LIMIT n`` every end position holds ``min(n, |expected|)`` distinct
  expected CEs (:func:`~cer_theory.formalisms.ceql.semantics.limit_conforms`: the paper leaves the choice open);
* **explained** — not so, but they are the reference output of the query under the dialect's applicable readings
  (:mod:`cer_theory.conformance.dialects`), which are named;
* **unexplained** — neither: a finding;
* **refused** — the engine said it does not accept the query
  (:class:`~cer_theory.conformance.protocol.EngineRefusal`): no answer, so neither agreement nor a wrong answer,
  but a finding, since the query is CEQL (docs/decisions.md D190);
* **engine error** — the engine failed on the case (:class:`~cer_theory.conformance.protocol.EngineFailure`:
  an error it reported, a crash, a non-empty stderr, an exit status, output the adapter cannot parse). Neither
  class is ever turned into an answer: an engine that says nothing usable has not answered "no complex events".

Every unexplained case, refusal and engine error is **shrunk** by our own delta debugging (not hypothesis's shrinker: the
engine may be an external process and a corpus case has no hypothesis choice sequence; docs/decisions.md D81):
greedily, clauses are dropped, pattern subformulas replaced by their operands and chunks of the stream removed
(halves down to single events), keeping each change under which the case stays in its class, until nothing
more can go. The result is a local minimum: no single one of those steps keeps the failure.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from cer_theory.core.errors import CerError
from cer_theory.core.events import CoreComplexEvent
from cer_theory.formalisms.cel.ast import Filter, Formula
from cer_theory.core.predicates.ast import And, Or
from cer_theory.formalisms.ceql.ast import Query
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.formalisms.ceql.semantics import evaluate, limit_conforms
from cer_theory.conformance.dialects import Dialect
from cer_theory.conformance.protocol import Adapter, Case, ComplexEvent, ConformanceError, EngineFailure, \
    EngineRefusal, ce_text, from_core, to_json_ce

AGREE, EXPLAINED, UNEXPLAINED, REFUSED, ENGINE_ERROR = "agree", "explained", "unexplained", "refused", "engine error"
KINDS = (AGREE, EXPLAINED, UNEXPLAINED, REFUSED, ENGINE_ERROR)

SHRINK_BUDGET = 400
"""At most this many engine runs to shrink one failure."""


@dataclass
class Outcome:
    """One case's result; ``minimal`` is the shrunk case (same class) for every finding."""

    case: Case
    kind: str
    expected: list[ComplexEvent]
    got: list[ComplexEvent] | None = None
    readings: tuple[str, ...] = ()
    error: str = ""
    minimal: Outcome | None = None
    shrink_runs: int = 0

    @property
    def finding(self) -> bool:
        return self.kind in (UNEXPLAINED, REFUSED, ENGINE_ERROR)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.case.name, "kind": self.kind, "query": self.case.query,
                               "events": [e.to_dict() for e in self.case.events],
                               "expected": [to_json_ce(c) for c in sorted(self.expected)]}
        if self.got is not None:
            out["got"] = [to_json_ce(c) for c in sorted(self.got)]
        if self.readings:
            out["readings"] = list(self.readings)
        if self.error:
            out["error"] = self.error
        if self.minimal is not None:
            out["minimal"] = self.minimal.to_json()
            out["shrink_runs"] = self.shrink_runs
        return out

    def difference(self) -> str:
        """What only one side has, one line each, per end position (empty when they agree)."""
        exp, got = Counter(self.expected), Counter(self.got or ())
        missing, extra = exp - got, got - exp
        lines = []
        if missing:
            lines.append("only expected: " + " ".join(ce_text(c) for c in sorted(missing.elements())))
        if extra:
            lines.append("only got:      " + " ".join(ce_text(c) for c in sorted(extra.elements())))
        return "\n".join(lines)


def per_position(ces: Iterable[ComplexEvent], size: int) -> list[list[CoreComplexEvent]] | None:
    """Group by end position; None when a CE is not inside the stream (``0 ≤ start ≤ end < size``)."""
    out: list[list[CoreComplexEvent]] = [[] for _ in range(size)]
    for start, end, positions in ces:
        if not (0 <= start <= end < size) or any(not 0 <= p < size for p in positions):
            return None
        out[end].append(CoreComplexEvent(start, end, positions))
    return out


def conforms(expected: Sequence[frozenset[CoreComplexEvent]], got: Sequence[ComplexEvent], limit: int | None) -> bool:
    """Whether ``got`` is the reference output ``expected`` (multisets; under LIMIT, ``limit_conforms``)."""
    grouped = per_position(got, len(expected))
    if grouped is None:
        return False
    if limit is None:
        return Counter(got) == Counter(from_core(c for ces in expected for c in ces))
    return limit_conforms(expected, grouped, limit)


def judge(case: Case, got: list[ComplexEvent] | None, dialect: Dialect, *, error: str = "",
          refused: bool = False) -> Outcome:
    """Classify one engine answer (``got``; None with ``error`` for an engine failure, and ``refused`` when
    the failure is the engine refusing the query)."""
    query = case.ast
    expected = evaluate(query, case.events)
    flat = from_core(c for ces in expected for c in ces)
    if got is None:
        return Outcome(case, REFUSED if refused else ENGINE_ERROR, flat, None, error=error)
    if conforms(expected, got, query.limit):
        return Outcome(case, AGREE, flat, got)
    rewritten, used = dialect.rewrite(query)
    if used and conforms(evaluate(rewritten, case.events), got, rewritten.limit):
        return Outcome(case, EXPLAINED, flat, got, readings=tuple(r.name for r in used))
    return Outcome(case, UNEXPLAINED, flat, got)


def run_case(case: Case, adapter: Adapter, dialect: Dialect) -> Outcome:
    try:
        got = adapter.run(case)
    except EngineFailure as exc:
        return judge(case, None, dialect, error=str(exc), refused=isinstance(exc, EngineRefusal))
    return judge(case, got, dialect)


# ---------------------------------------------------------------------------------------------- shrinking


def _operands(phi: Formula) -> list[Formula]:
    return [getattr(phi, f.name) for f in dataclasses.fields(phi) if isinstance(getattr(phi, f.name), Formula)]


def smaller_patterns(phi: Formula) -> Iterator[Formula]:
    """Each pattern one step smaller: a subformula replaced by one of its operands, or a FILTER's AND/OR
    condition by one of its parts."""
    yield from _operands(phi)
    if isinstance(phi, Filter) and isinstance(phi.condition, (And, Or)):
        for part in phi.condition.args:
            yield dataclasses.replace(phi, condition=part)
    for f in dataclasses.fields(phi):
        sub = getattr(phi, f.name)
        if isinstance(sub, Formula):
            for smaller in smaller_patterns(sub):
                yield dataclasses.replace(phi, **{f.name: smaller})


def smaller_queries(q: Query) -> Iterator[Query]:
    """Each query one step smaller (clauses dropped first, then the pattern), keeping only valid CEQL."""
    drops: list[dict[str, Any]] = [{"within": None}, {"consume": None}, {"limit": None}, {"partition_by": ()},
                                   {"strategy": "ALL"}, {"select": None}]
    for change in drops:
        candidate = dataclasses.replace(q, **change)
        if candidate != q:
            yield candidate
    for phi in smaller_patterns(q.pattern):
        candidate = dataclasses.replace(q, pattern=phi)
        try:
            if parse(str(candidate)) == candidate:  # a dropped AS may leave SELECT or FILTER names unbound
                yield candidate
        except (CerError, ValueError, TypeError):
            continue


def shrink(outcome: Outcome, adapter: Adapter, dialect: Dialect, *, budget: int = SHRINK_BUDGET
           ) -> tuple[Outcome, int]:
    """A minimal case of the same class as ``outcome`` (the module docstring), and the engine runs it took."""
    # A copy: when no step keeps the failure, the case is its own minimal case, and an outcome that were its own
    # ``minimal`` would make to_json recurse forever.
    best, runs = dataclasses.replace(outcome, minimal=None), 0

    def attempt(case: Case) -> bool:
        nonlocal best, runs
        if runs >= budget:
            return False
        runs += 1
        try:
            trial = run_case(case, adapter, dialect)
        except CerError:  # the reference rejects the smaller case (e.g. a window key now missing): not a step
            return False
        if trial.kind == outcome.kind:
            best = trial
            return True
        return False

    progress = True
    while progress and runs < budget:
        progress = False
        for q in smaller_queries(best.case.ast):
            if attempt(best.case.with_(query=q)):
                progress = True
                break
        if progress:
            continue
        events = list(best.case.events)
        chunk = max(1, len(events) // 2)
        while chunk >= 1 and not progress:
            for at in range(0, len(events), chunk):
                rest = events[:at] + events[at + chunk:]
                if rest and attempt(best.case.with_(events=rest)):
                    progress = True
                    break
            chunk //= 2
    return best, runs


# ---------------------------------------------------------------------------------------------- a run


@dataclass
class Summary:
    counts: Counter = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def passed(self) -> bool:
        return not any(self.counts[k] for k in (UNEXPLAINED, REFUSED, ENGINE_ERROR))

    def line(self) -> str:
        c = self.counts
        return (f"{self.total} cases: {c[AGREE]} agree, {c[EXPLAINED]} explained, {c[UNEXPLAINED]} unexplained, "
                f"{c[REFUSED]} refused, {c[ENGINE_ERROR]} engine errors")


Progress = Callable[[int, int, Summary], None]


def run_cases(cases: Sequence[Case], adapter: Adapter, dialect: Dialect, *, shrink_findings: bool = True,
              progress: Progress | None = None, jobs: int = 1) -> tuple[list[Outcome], Summary]:
    """Run every case, shrink every finding; ``progress(done, total, summary)`` after each case, in case order.

    ``jobs`` > 1 runs that many cases at once from a thread pool (each case with its shrinking in one thread), for
    an adapter whose ``concurrent`` attribute is true (the Spark pipeline: each case is a Spark job that mostly
    waits on the JVM). The outcomes are the same as with ``jobs=1``, in the same order."""
    if jobs < 1:
        raise ConformanceError(f"jobs must be at least 1, not {jobs}")
    if jobs > 1 and not getattr(adapter, "concurrent", False):
        raise ConformanceError(f"the {adapter.name} adapter runs one case at a time; run it with one job")

    def one(case: Case) -> Outcome:
        outcome = run_case(case, adapter, dialect)
        if outcome.finding and shrink_findings:
            outcome.minimal, outcome.shrink_runs = shrink(outcome, adapter, dialect)
        return outcome

    outcomes: list[Outcome] = []
    summary = Summary()
    with ThreadPoolExecutor(jobs) if jobs > 1 else nullcontext() as pool:
        results = pool.map(one, cases) if pool is not None else map(one, cases)
        for k, outcome in enumerate(results, 1):
            outcomes.append(outcome)
            summary.counts[outcome.kind] += 1
            if progress is not None:
                progress(k, len(cases), summary)
    return outcomes, summary


def outcome_text(outcome: Outcome) -> str:
    """A finding as text: the query, the stream, expected and got (the report's and the notebook's form)."""
    case = outcome.case
    lines = [f"{outcome.kind}: {case.query}",
             "  stream:   " + " ".join(f"{k}:{json.dumps(e.to_dict())}" for k, e in enumerate(case.events)),
             "  expected: " + (" ".join(ce_text(c) for c in sorted(outcome.expected)) or "∅")]
    if outcome.got is not None:
        lines.append("  got:      " + (" ".join(ce_text(c) for c in sorted(outcome.got)) or "∅"))
    if outcome.error:
        lines.append(f"  error:    {outcome.error}")
    if outcome.readings:
        lines.append(f"  explained by: {', '.join(outcome.readings)}")
    return "\n".join(lines)


__all__ = ["AGREE", "ENGINE_ERROR", "EXPLAINED", "KINDS", "Outcome", "REFUSED", "Summary", "UNEXPLAINED",
           "conforms", "judge", "outcome_text", "run_case", "run_cases", "shrink", "smaller_patterns",
           "smaller_queries"]
