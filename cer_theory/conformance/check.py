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
engine may be an external process and a corpus case has no hypothesis choice sequence; docs/decisions.md D81) to a
canonical form (:class:`CeqlReducer`, D360): clauses dropped, pattern subformulas replaced by their operands, chunks
of the stream removed, then event types merged and renamed in first-use order, attributes the query never names
dropped, attribute values lowered; each step kept when the case keeps its class and the shape of its difference
(:func:`cer_theory.testing.findings.reduce`). The result is a local minimum: no single one of those steps keeps
the failure. :func:`findings` then groups the failing cases of a run by their canonical case: one finding per bug.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from cer_theory.core.errors import CerError
from cer_theory.core.events import CoreComplexEvent, Event
from cer_theory.formalisms.cel.ast import Atom, Contig, CPlus, Filter, Formula, In, Plus, Seq
from cer_theory.core.predicates.ast import And, On, Or
from cer_theory.formalisms.ceql.ast import Query
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.formalisms.ceql.semantics import evaluate, limit_conforms
from cer_theory.conformance.dialects import Dialect
from cer_theory.testing.findings import Finding, group, reduce, shape
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


def outcome_shape(o: Outcome) -> frozenset[str]:
    """The shape of a finding's difference (:func:`cer_theory.testing.findings.shape`); a refusal or an engine
    error is its class alone (its message may quote the query, which shrinks)."""
    if o.kind != UNEXPLAINED:
        return frozenset({o.kind})
    return shape(o.expected, o.got, end=lambda ce: ce[1], last=len(o.case.events) - 1)


def _walk(node: Any, f: Callable[[Any], Any]) -> Any:
    """``node`` rebuilt bottom-up with ``f`` applied to every dataclass node (tuples of nodes too)."""
    if isinstance(node, tuple):
        return tuple(_walk(x, f) for x in node)
    if not dataclasses.is_dataclass(node) or isinstance(node, type):
        return node
    changes = {}
    for fl in dataclasses.fields(node):
        value = getattr(node, fl.name)
        new = _walk(value, f)
        if new is not value and new != value:
            changes[fl.name] = new
    return f(dataclasses.replace(node, **changes) if changes else node)


def _nodes(node: Any) -> Iterator[Any]:
    """The dataclass nodes below ``node``, parents first, operands left to right (the printed order)."""
    if isinstance(node, tuple):
        for x in node:
            yield from _nodes(x)
    elif dataclasses.is_dataclass(node) and not isinstance(node, type):
        yield node
        for fl in dataclasses.fields(node):
            yield from _nodes(getattr(node, fl.name))


def rename_types(q: Query, names: dict[str, str]) -> Query:
    """``q`` with event types renamed by ``names``, and with them the variables named after them (an atom ``R``
    binds the variable ``R``; FILTER, AS and SELECT name it)."""
    def one(node: Any) -> Any:
        if isinstance(node, Atom) and node.name in names:
            return Atom(names[node.name])
        if isinstance(node, (In, On)) and node.var in names:
            return dataclasses.replace(node, var=names[node.var])
        return node

    out = _walk(q, one)
    if out.select:
        out = dataclasses.replace(out, select=tuple(names.get(v, v) for v in out.select))
    return out


def _types_in_use(case: Case) -> list[str]:
    """The event types a case uses, in first-use order: the query's atoms as printed, then the stream's."""
    seen = [n.name for n in _nodes(case.ast.pattern) if isinstance(n, Atom)]
    seen += [e.type for e in case.events]
    return list(dict.fromkeys(seen))


def _declared_types(case: Case) -> list[str]:
    return list(dict.fromkeys(t for d in case.declarations for t in d.events))


def _value_size(v: Any) -> tuple[int, str]:
    return (len(v), v) if isinstance(v, str) else (abs(int(v)) * 2 + (v < 0), "")


def _lower(v: Any) -> list[Any]:
    """Smaller values to try for ``v``, smallest first."""
    if isinstance(v, bool):
        return [False] if v else []
    if isinstance(v, int):
        return list(dict.fromkeys(x for x in (0, v // 2, v - 1 if v > 0 else v + 1) if abs(x) < abs(v)))
    if isinstance(v, float):
        return [x for x in (0.0, float(int(v))) if abs(x) < abs(v)]
    if isinstance(v, str):
        return list(dict.fromkeys(x for x in ("", "a", v[:-1]) if (len(x), x) < (len(v), v)))
    return []


class CeqlReducer:
    """The CEQL harness's :class:`~cer_theory.testing.findings.Reducer` (docs/decisions.md D360): clauses
    dropped and pattern subformulas replaced by an operand (:func:`smaller_queries`), chunks of the stream removed
    (halves down to single events), then the canonical steps: an event type replaced by one used earlier, the types
    renamed to the declared ones in first-use order, an attribute the query never names dropped from the events
    and the declarations, and attribute values lowered (``time``, the protocol's time, never below the previous
    event's)."""

    def candidates(self, case: Case) -> Iterator[Case]:
        for q in smaller_queries(case.ast):
            yield case.with_(query=q)
        for q in plainer_queries(case.ast):
            yield case.with_(query=q)
        events = list(case.events)
        chunk = max(1, len(events) // 2)
        while chunk >= 1:
            for at in range(0, len(events), chunk):
                rest = events[:at] + events[at + chunk:]
                if rest:
                    yield case.with_(events=rest)
            chunk //= 2
        used, declared = _types_in_use(case), _declared_types(case)
        for k, t in enumerate(used):
            for u in used[:k]:
                yield self._retyped(case, {t: u})
        canonical = dict(zip([t for t in used if t in declared], declared))
        if any(a != b for a, b in canonical.items()):
            yield self._retyped(case, {**canonical, **{b: a for a, b in canonical.items() if b not in canonical}})
        text = str(case.ast)
        named = set(re.findall(r"[A-Za-z_]\w*", text)) | ({"time"} if case.ast.within is not None
                                                              and case.ast.within.kind == "time" else set())
        for attr in sorted({a for e in case.events for a in e.attributes} - named):
            yield self._without(case, attr)
        for k, e in enumerate(events):
            for a, v in e.attributes.items():
                for lower in _lower(v):
                    if a == "time" and k and isinstance(lower, (int, float)) and lower < (events[k - 1].get(a) if events[k - 1].get(a) is not None else lower):
                        continue
                    changed = Event(e.type, {**e.attributes, a: lower})
                    yield case.with_(events=events[:k] + [changed] + events[k + 1:])

    @staticmethod
    def _retyped(case: Case, names: dict[str, str]) -> Case:
        events = [Event(names.get(e.type, e.type), e.attributes) for e in case.events]
        return case.with_(query=rename_types(case.ast, names), events=events)

    @staticmethod
    def _without(case: Case, attr: str) -> Case:
        decls = tuple(dataclasses.replace(d, events={t: {a: k for a, k in attrs.items() if a != attr}
                                                     for t, attrs in d.events.items()}) for d in case.declarations)
        events = tuple(Event(e.type, {a: v for a, v in e.attributes.items() if a != attr}) for e in case.events)
        return dataclasses.replace(case, declarations=decls, events=events)

    def measure(self, case: Case) -> tuple:
        used, declared = _types_in_use(case), _declared_types(case)
        ranks = tuple(declared.index(t) if t in declared else len(declared) for t in used)
        attrs = {a for d in case.declarations for attrs in d.events.values() for a in attrs}
        values = tuple(_value_size(v) for e in case.events for _, v in sorted(e.attributes.items()))
        q = case.ast
        numbers = (q.within.size if q.within is not None else 0, q.limit or 0)
        return len(case.events), query_size(q), len(case.query), case.query.count(":"), numbers, len(used), len(attrs), ranks, values

    def key(self, case: Case) -> str:
        return json.dumps([case.declarations_text(), case.query, [e.to_dict() for e in case.events]])


CEQL_REDUCER = CeqlReducer()


def query_size(q: Query) -> int:
    """The nodes of the pattern (its conditions' too) and the clauses that are there: SELECT's variables, a
    strategy other than ALL, each PARTITION BY group, WITHIN, CONSUME BY, LIMIT."""
    clauses = ((len(q.select) + 1 if q.select is not None else 0) + (q.strategy != "ALL") + len(q.partition_by)
               + (q.within is not None) + (q.consume is not None) + (q.limit is not None))
    return sum(1 for _ in _nodes(q.pattern)) + clauses


def plainer_queries(q: Query) -> Iterator[Query]:
    """``q`` with one strict-contiguity operator made plain (a ``:+`` a ``+``, a ``:`` a ``;``), or its window or
    LIMIT lowered: canonical forms of failing queries that differ only there."""
    if q.within is not None:
        for size in dict.fromkeys((0, q.within.size // 2, q.within.size - 1)):
            if 0 <= size < q.within.size:
                yield dataclasses.replace(q, within=dataclasses.replace(q.within, size=size))
    if q.limit is not None and q.limit > 1:
        yield dataclasses.replace(q, limit=1)
    for node in _nodes(q.pattern):
        if isinstance(node, (CPlus, Contig)):
            plain = Plus(node.body) if isinstance(node, CPlus) else Seq(node.left, node.right)
            yield _walk(q, lambda n, old=node, new=plain: new if n is old else n)


def shrink(outcome: Outcome, adapter: Adapter, dialect: Dialect, *, budget: int = SHRINK_BUDGET
           ) -> tuple[Outcome, int]:
    """A minimal case of the same class and shape as ``outcome`` (:func:`cer_theory.testing.findings.reduce`
    with :data:`CEQL_REDUCER`), and the engine runs it took."""
    def run(cases: Sequence[Case]) -> Iterator[Outcome | None]:
        for case in cases:
            try:
                yield run_case(case, adapter, dialect)
            except Exception:  # noqa: BLE001 - the reference rejects the smaller case (a window key now missing)
                yield None

    best, runs = reduce(outcome, run, CEQL_REDUCER, outcome_shape, budget=budget)
    # A copy: an outcome that were its own ``minimal`` would make to_json recurse forever.
    return dataclasses.replace(best, minimal=None), runs


def findings(outcomes: Iterable[Outcome]) -> list[Finding[Outcome]]:
    """The run's findings: its failing cases grouped by their reduced case and shape, numbered F1, F2, …"""
    return group((o for o in outcomes if o.finding), CEQL_REDUCER, outcome_shape,
                 minimal=lambda o: o.minimal or o, name=lambda o: o.case.name)


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


__all__ = ["AGREE", "CEQL_REDUCER", "CeqlReducer", "ENGINE_ERROR", "EXPLAINED", "KINDS", "Outcome", "REFUSED",
           "Summary", "UNEXPLAINED", "conforms", "findings", "judge", "outcome_shape", "outcome_text", "rename_types",
           "run_case", "run_cases", "shrink", "smaller_patterns", "smaller_queries"]
