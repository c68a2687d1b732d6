"""Conformance of Apache Flink's ``MATCH_RECOGNIZE`` with the reference semantics of row pattern recognition
(:mod:`cer_theory.formalisms.rpr`: ISO/IEC TR 19075-5 in Flink's fragment).

One long-lived PyFlink :class:`~pyflink.table.TableEnvironment` in streaming mode (batch mode refuses
``MATCH_RECOGNIZE``) runs every case. A JVM start and a job cost seconds, so cases come in *groups*: one query
and several streams, each stream a partition of its own (the table's ``cid`` column, prepended to the query's
``PARTITION BY``), written as one CSV file whose ``ts`` column (seconds) becomes the event-time attribute with a
watermark; the job's rows are read back with ``collect()``. A group whose job fails is an *engine error* for each
of its cases, never an empty answer.

Each case is then **agree** (the same output rows, as multisets: partition key and measures, what ``ONE ROW PER
MATCH`` outputs), **explained** (Flink's rows are exactly those of the executable model of its matcher,
:mod:`cer_theory.conformance.flink_model`, or its refusal is one of the :data:`READINGS`), **unexplained** (a
finding) or **engine error**. Findings are shrunk (rows of the stream, then measures and conditions dropped) by
re-running Flink, and written with a report, replay files and a script pasteable into Flink's SQL client.

Needs the optional extra ``cer_theory[flink]`` (``apache-flink``) and a Java 17 runtime: without them
:func:`open_session` raises a :class:`~cer_theory.conformance.protocol.ConformanceError` naming what is missing.
"""

from __future__ import annotations

import csv
import dataclasses
import importlib.util
import json
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from cer_theory.core.events import Event
from cer_theory.core.outputs import open_output
from cer_theory.formalisms.rpr.ast import And, Col, Concat, Measure, Nav, Not, Or, Quant, Query, Skip, Truth, check, \
    variables
from cer_theory.formalisms.rpr.parser import parse
from cer_theory.formalisms.rpr.printer import format
from cer_theory.formalisms.rpr.semantics import SkipError, evaluate, run_with
from cer_theory.conformance.flink_model import EVIDENCE, MEASURED, FlinkModel, elements
from cer_theory.testing.harness import conformance_cases
from cer_theory.testing.strategies.rpr import queries, streams
from cer_theory.conformance.check import AGREE, ENGINE_ERROR, EXPLAINED, UNEXPLAINED
from cer_theory.conformance.protocol import ConformanceError, EngineFailure
from cer_theory.conformance.report import clear_findings, fenced, heading, write_cases, write_finding, write_text
from cer_theory.testing.findings import Finding, cases_text, group, reduce, shape, shape_text

Row = tuple[tuple[Any, ...], tuple[tuple[str, Any], ...]]
"""One output row: (the query's partition key, the measures as (name, value) pairs)."""

COLUMNS = (("cid", "INT"), ("id", "INT"), ("type", "STRING"), ("k", "INT"), ("x", "INT"), ("ts_s", "BIGINT"))
"""The CSV columns of a group's table; ``ts`` is computed from ``ts_s`` as the event-time attribute."""

IDENTIFY = (Measure(Nav(True, Col(None, "id")), "first_id"), Measure(Nav(False, Col(None, "id")), "last_id"))
"""Measures every conformance query carries so that each output row names its match's first and last row."""


# ------------------------------------------------------------------------------------------ the cases


@dataclass(frozen=True)
class Case:
    """One query and one stream (a partition of its group's table)."""

    query: Query
    events: tuple[Event, ...]
    name: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "query": format(self.query), "events": [e.to_dict() for e in self.events]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Case:
        return cls(parse(data["query"]), tuple(Event.from_dict(e, line=k) for k, e in enumerate(data["events"])),
                   data.get("name", ""))


def identified(q: Query) -> Query:
    """``q`` with :data:`IDENTIFY`'s measures first (kept when already there)."""
    names = {m.name for m in q.measures}
    return dataclasses.replace(q, measures=tuple(m for m in IDENTIFY if m.name not in names) + q.measures)


def flink_queries() -> st.SearchStrategy[Query]:
    """Generated queries in Flink's pattern fragment (:func:`cer_theory.testing.strategies.rpr.queries`) with the
    identifying measures."""
    return queries(flink=True).map(identified)


def generate_groups(groups: int, per_group: int, seed: int) -> list[list[Case]]:
    """``groups`` queries, each with ``per_group`` non-empty streams: the same seed gives the same cases."""
    pairs = conformance_cases(groups, seed=seed, logic="rpr", formulas=flink_queries(),
                              streams=st.lists(streams(max_length=7).filter(bool), min_size=per_group,
                                               max_size=per_group))
    return [[Case(q, tuple(s), f"case {g * per_group + i}") for i, s in enumerate(group)]
            for g, (q, group) in enumerate(pairs)]


def expected_rows(q: Query, events: Sequence[Event], find: Callable | None = None) -> Counter:
    """The reference's output rows (a multiset); :class:`SkipError` propagates (the standard's exception)."""
    outputs = evaluate(q, events) if find is None else run_with(q, events, find)
    return Counter((m.partition, m.measures) for ms in outputs for m in ms)


# ------------------------------------------------------------------------------------------ the engine


def missing_requirements() -> str | None:
    """What this machine lacks to run Flink, in one line; None when nothing is missing."""
    if importlib.util.find_spec("pyflink") is None:
        return "the flink engine needs the optional extra: from a checkout, pip install '.[flink]' (apache-flink)"
    if shutil.which("java") is None:
        return "the flink engine needs a Java 17 runtime on PATH (java not found)"
    return None


def flink_sql(q: Query, table: str) -> str:
    """The ``SELECT`` Flink runs for ``q`` over ``table``: partitioned by case first."""
    # Flink's parser needs a DEFINE clause: an undefined variable is TRUE (TR 19075-5 §4.8), so say so
    defines = q.defines or ((next(variables(q.pattern)), Truth(True)),)
    text = format(dataclasses.replace(q, partition_by=("cid", *q.partition_by), defines=defines))
    text = re.sub(r"(?<![.'\w])type\b(?!')", "`type`", text)  # TYPE is a keyword of Flink's SQL
    return f"SELECT * FROM {table} {text}"


def table_ddl(table: str, path: str) -> str:
    cols = ", ".join(f"`{c}` {t}" for c, t in COLUMNS)
    # the watermark trails by a second: Flink drops a row whose time is not after the last watermark as late, and
    # rows of different cases (and of one case's partitions) share times
    return (f"CREATE TABLE {table} ({cols}, ts AS TO_TIMESTAMP_LTZ(ts_s * 1000, 3), "
            f"WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
            f"WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')")


def csv_rows(cases: Sequence[Case]) -> list[list[Any]]:
    """The group's rows, case ``cid`` = index, in time order across cases (so no row is late for the
    watermark); within a case the stream's order."""
    rows = [[cid, e["id"], e.type, e["k"], e["x"], e["ts"]] for cid, c in enumerate(cases) for e in c.events]
    return sorted(rows, key=lambda r: r[5])


class FlinkSession:
    """One PyFlink table environment in streaming mode, parallelism 1, reused by every group."""

    name = "flink"

    def __init__(self) -> None:
        from pyflink.table import EnvironmentSettings, TableEnvironment  # the optional extra, imported on use

        self.env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
        self.env.get_config().set("parallelism.default", "1")
        self.scratch = Path(tempfile.mkdtemp(prefix="cer_conformance_flink_"))
        self.jobs = 0

    def run_group(self, cases: Sequence[Case]) -> list[Counter]:
        """Every case's output rows (cases share the query), or :class:`EngineFailure` with Flink's message."""
        q = cases[0].query
        self.jobs += 1
        table, folder = f"ev{self.jobs}", self.scratch / f"g{self.jobs}"
        folder.mkdir()
        with open_output(folder / "rows.csv", private=True) as f:  # (a scratch file Flink reads)
            csv.writer(f).writerows(csv_rows(cases))
        names = [m.name for m in q.measures]
        out = [Counter() for _ in cases]
        try:
            self.env.execute_sql(table_ddl(table, str(folder)))
            with self.env.execute_sql(flink_sql(q, table)).collect() as results:
                for r in results:
                    values = list(r)
                    cid, key, measures = values[0], tuple(values[1:1 + len(q.partition_by)]), values[1 + len(
                        q.partition_by):]
                    out[cid][(key, tuple(zip(names, map(_plain, measures))))] += 1
        except Exception as exc:  # py4j wraps every Java exception: each is Flink's refusal or failure
            raise EngineFailure(flink_message(exc)) from None
        finally:
            self.env.execute_sql(f"DROP TABLE IF EXISTS {table}")
            shutil.rmtree(folder, ignore_errors=True)
        return out

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)


def _plain(v: Any) -> Any:
    """A value as the reference writes it (Flink's BIGINT/INT are Python ints already; decimals become ints)."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    try:
        f = float(v)
        return int(f) if f.is_integer() else f
    except (TypeError, ValueError):
        return str(v)


def flink_message(exc: BaseException) -> str:
    """The most specific line of a (py4j-wrapped) Flink exception: its innermost ``Caused by``, else the Java
    exception's own line (py4j writes it after ``\n: ``), else the first line."""
    text = str(exc)
    causes = re.findall(r"Caused by: ([^\n]+)", text) or re.findall(r"^: ([^\n]+)", text, flags=re.M)
    line = causes[-1] if causes else (text.strip().splitlines() or [type(exc).__name__])[0]
    return line.strip()[:400]


def open_session() -> FlinkSession:
    missing = missing_requirements()
    if missing is not None:
        raise ConformanceError(missing)
    return FlinkSession()


# ------------------------------------------------------------------------------------------ the dialect


@dataclass(frozen=True)
class Reading:
    """A documented or established way Flink refuses a query: it explains an engine error whose message matches
    ``refuses`` (the message is the model: the planner's own words, quoted by its documentation or its code)."""

    name: str
    description: str
    refuses: str


READINGS = (
    Reading("greedy-last", "Flink refuses a greedy quantifier as the pattern's last element (documentation, "
                           "Greedy & Reluctant Quantifiers)", refuses=r"(?i)greedy quantifiers are not allowed as "
                                                                      r"the last element"),
    Reading("reluctant-optional", "Flink refuses the reluctant optional quantifier A?? / A{0,1}? (documentation, "
                                  "Greedy & Reluctant Quantifiers)", refuses=r"(?i)reluctant optional"),
    Reading("branching", "Flink refuses alternation (\"CEP doesn't support branching patterns\")",
            refuses=r"(?i)doesn't support branching"),
    Reading("unique-variables", "Flink refuses a pattern variable used twice (\"Pattern variables must be unique\")",
            refuses=r"(?i)pattern variables must be unique"),
    Reading("optional-after-greedy", "FlinkCEP refuses an optional element after a greedy one (\"Optional pattern "
                                     "cannot be preceded by greedy pattern\"; not in the SQL documentation)",
            refuses=r"(?i)optional pattern cannot be preceded by greedy pattern"),
    Reading("physical-offsets", "Flink refuses PREV over a variable's column or with some offsets (\"Flink does not "
                                "support physical offsets within partition\"; not in the SQL documentation)",
            refuses=r"(?i)does not support physical offsets within partition"),
)
"""The ``flink`` dialect's refusals. Rows are explained by one model, :data:`MODEL`."""

MODEL = "flink-nfa"
"""The name of the executable model of Flink's matcher (:mod:`cer_theory.conformance.flink_model`): a case whose
rows Flink gives differently from the reference is *explained* only when the model gives Flink's rows exactly."""


def model_rows(q: Query, events: Sequence[Event]) -> Counter | None:
    """The rows :mod:`~cer_theory.conformance.flink_model` gives (a multiset, as :func:`expected_rows`), or None
    when the query is outside the modelled fragment."""
    parts = elements(q)
    return None if parts is None else expected_rows(q, events, FlinkModel(q, parts).find)


# ------------------------------------------------------------------------------------------ checking


@dataclass
class Outcome:
    case: Case
    kind: str
    expected: Counter | None
    got: Counter | None = None
    readings: tuple[str, ...] = ()
    error: str = ""
    minimal: Outcome | None = None

    @property
    def finding(self) -> bool:
        return self.kind in (UNEXPLAINED, ENGINE_ERROR)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {**self.case.to_json(), "kind": self.kind,
                               "expected": None if self.expected is None else rows_json(self.expected)}
        if self.got is not None:
            out["got"] = rows_json(self.got)
        if self.readings:
            out["readings"] = list(self.readings)
        if self.error:
            out["error"] = self.error
        if self.minimal is not None:
            out["minimal"] = self.minimal.to_json()
        return out


def rows_json(rows: Counter) -> list[dict[str, Any]]:
    out = [{"partition": list(key), **dict(measures)} for (key, measures), n in rows.items() for _ in range(n)]
    return sorted(out, key=lambda r: json.dumps(r, sort_keys=True, default=str))


def classify(case: Case, got: Counter | None, error: str = "") -> Outcome:
    """One case's class (module docstring), given Flink's rows or its error."""
    try:
        expected: Counter | None = expected_rows(case.query, case.events)
    except SkipError as exc:
        expected, error = None, error or ""
        if got is None:
            return Outcome(case, AGREE, None, None, error=f"both raise; reference: {exc}")
        return Outcome(case, UNEXPLAINED, None, got, error=f"the standard raises ({exc}); Flink answers")
    if got is None:
        named = tuple(r.name for r in READINGS if re.search(r.refuses, error))
        return Outcome(case, EXPLAINED if named else ENGINE_ERROR, expected, None, named, error)
    if got == expected:
        return Outcome(case, AGREE, expected, got)
    if model_rows(case.query, case.events) == got:
        return Outcome(case, EXPLAINED, expected, got, (MODEL,))
    return Outcome(case, UNEXPLAINED, expected, got)


def run_group(session: FlinkSession, cases: Sequence[Case]) -> list[Outcome]:
    try:
        answers = session.run_group(cases)
    except EngineFailure as exc:
        return [classify(c, None, str(exc)) for c in cases]
    return [classify(c, rows) for c, rows in zip(cases, answers)]


# ------------------------------------------------------------------------------------------ shrinking

SHRINK_JOBS = 60
"""At most this many Flink jobs to shrink one finding (a job costs about a second, more on a loaded machine). Each
candidate query is a job of its own, and a step of reduction often tries six before one keeps the difference: with
30, a fresh run left one finding (case 240's WITHIN) four steps short of its canonical form, so the one departure
showed as two findings."""


def outcome_shape(o: Outcome) -> frozenset[str]:
    """The shape of a Flink case's difference (:func:`cer_theory.testing.findings.shape`) over output rows; an
    engine error is its class."""
    if o.kind != UNEXPLAINED:
        return frozenset({o.kind})
    if o.expected is None:
        return frozenset({"standard raises"})
    last = max((e["id"] for e in o.case.events), default=-1)
    return shape(o.expected.elements(), None if o.got is None else o.got.elements(),
                 end=lambda row: dict(row[1]).get("last_id"), last=last)


class FlinkReducer:
    """The Flink harness's :class:`~cer_theory.testing.findings.Reducer`: a row dropped, a DEFINE condition dropped
    or replaced by TRUE or by one of its operands (AND, OR, NOT), an extra measure, WITHIN, PARTITION BY or the
    skip mode dropped, a pattern element dropped or unquantified, the WITHIN interval lowered (alone, or with the
    time it spans), a quantifier made greedy or its upper bound lowered to its lower one, the variables renamed
    A, B, … in first-use order, then ``x`` and ``k`` lowered to 0, the partition keys renamed 0, 1, … in
    first-use order, ``id`` renumbered 0, 1, …, and each row moved back in time (with those after it) to one
    second after the previous."""

    def candidates(self, case: Case) -> Iterator[Case]:
        yield from _fewer_rows(case)
        yield from _simpler_queries(case)
        q = case.query
        parts = q.pattern.parts if isinstance(q.pattern, Concat) else (q.pattern,)
        for k, p in enumerate(parts):  # an element dropped (with its DEFINE), or a quantified one unquantified
            options = ([parts[:k] + parts[k + 1:]] if len(parts) > 1 else []) + (
                [parts[:k] + (p.body,) + parts[k + 1:]] if isinstance(p, Quant) else [])
            for rest in options:
                pattern = rest[0] if len(rest) == 1 else Concat(tuple(rest))
                names = set(variables(pattern))
                smaller = dataclasses.replace(case, query=dataclasses.replace(
                    q, pattern=pattern, defines=tuple(d for d in q.defines if d[0] in names)))
                yield smaller
                yield from _fewer_rows(smaller)  # a shorter pattern often needs a shorter stream: both at once
        events = list(case.events)
        if q.within is not None and q.within > 1:
            shorter = dataclasses.replace(case, query=dataclasses.replace(q, within=q.within - 1))
            yield shorter
            if all(b["ts"] - a["ts"] >= 2 for a, b in zip(events, events[1:2])):  # the window and the time
                yield dataclasses.replace(shorter, events=tuple(  # it spans, shorter together
                    e if k == 0 else Event(e.type, {**e.attributes, "ts": e["ts"] - 1}) for k, e in enumerate(events)))
        for k, p in enumerate(parts):  # a quantifier made greedy, or its upper bound lowered to its lower one
            for simpler in ([dataclasses.replace(p, greedy=True)] if isinstance(p, Quant) and not p.greedy else []) \
                    + ([dataclasses.replace(p, high=p.low)] if isinstance(p, Quant) and p.low >= 1 and p.high != p.low
                       else []):
                rest = parts[:k] + (simpler,) + parts[k + 1:]
                yield dataclasses.replace(case, query=dataclasses.replace(
                    q, pattern=rest[0] if len(rest) == 1 else Concat(tuple(rest))))
        names = list(dict.fromkeys(variables(q.pattern)))
        canonical = {v: chr(ord("A") + k) for k, v in enumerate(names) if k < 26}
        if any(a != b for a, b in canonical.items()):
            yield dataclasses.replace(case, query=rename_variables(q, canonical))
        for k, e in enumerate(events):
            if e.type != "a":  # the least type name
                yield dataclasses.replace(case, events=tuple(events[:k] + [Event("a", e.attributes)] + events[k + 1:]))
            for attr in ("x", "k"):
                if e.get(attr):
                    changed = Event(e.type, {**e.attributes, attr: 0})
                    yield dataclasses.replace(case, events=tuple(events[:k] + [changed] + events[k + 1:]))
        keys = list(dict.fromkeys(e.get("k") for e in events))  # partition keys renamed 0, 1, … in first-use order
        if keys != sorted(keys) and all(isinstance(v, int) for v in keys):
            rank = {v: r for r, v in enumerate(keys)}
            yield dataclasses.replace(case, events=tuple(Event(e.type, {**e.attributes, "k": rank[e["k"]]})
                                                         for e in events))
        renumbered = tuple(Event(e.type, {**e.attributes, "id": k}) for k, e in enumerate(events))
        if renumbered != case.events:
            yield dataclasses.replace(case, events=renumbered)
        for k in range(len(events)):  # a row moved back in time, down to one second after the previous
            earliest = events[k - 1]["ts"] + 1 if k else 1
            if events[k]["ts"] > earliest:
                moved = [Event(e.type, {**e.attributes, "ts": e["ts"] - (events[k]["ts"] - earliest)})
                         if j >= k else e for j, e in enumerate(events)]
                yield dataclasses.replace(case, events=tuple(moved))

    def measure(self, case: Case) -> tuple:
        values = tuple(abs(e.get(a) or 0) for e in case.events for a in ("x", "k", "id", "ts"))
        q = case.query
        names = tuple(dict.fromkeys(variables(q.pattern)))
        size = len(format(dataclasses.replace(q, skip=Skip()))) + (q.skip != Skip())  # the printer writes the default
        return len(case.events), size, q.within or 0, names, tuple(e.type for e in case.events), values

    def key(self, case: Case) -> str:
        return json.dumps(case.to_json()["query"]) + json.dumps([e.to_dict() for e in case.events], default=str)


FLINK_REDUCER = FlinkReducer()


def rename_variables(q: Query, names: dict[str, str]) -> Query:
    """``q`` with its pattern variables renamed by ``names`` (a permutation or a renaming into fresh names):
    in the pattern, DEFINE, MEASURES and the skip mode."""
    def walk(node: Any) -> Any:
        if isinstance(node, tuple):
            return tuple(walk(x) for x in node)
        if not dataclasses.is_dataclass(node) or isinstance(node, type):
            return node
        changes = {f.name: walk(getattr(node, f.name)) for f in dataclasses.fields(node)}
        for f in ("name", "var"):
            if f in changes and isinstance(changes[f], str) and not isinstance(node, Measure):
                changes[f] = names.get(changes[f], changes[f])
        return dataclasses.replace(node, **changes)

    out = walk(dataclasses.replace(q, defines=()))
    return dataclasses.replace(out, defines=tuple((names.get(v, v), walk(c)) for v, c in q.defines))


def _fewer_rows(case: Case) -> Iterator[Case]:
    for i in range(len(case.events)):
        events = case.events[:i] + case.events[i + 1:]
        if events:
            yield dataclasses.replace(case, events=events)


def _simpler_queries(case: Case) -> Iterator[Case]:
    q = case.query
    for i in range(len(q.defines)):
        yield dataclasses.replace(case, query=dataclasses.replace(q, defines=q.defines[:i] + q.defines[i + 1:]))
    for i, (v, c) in enumerate(q.defines):  # a condition replaced by TRUE or by one of its operands
        for sub in (Truth(True), *((c.left, c.right) if isinstance(c, (And, Or)) else (c.arg,) if isinstance(c, Not)
                                   else ())):
            yield dataclasses.replace(case, query=dataclasses.replace(
                q, defines=q.defines[:i] + ((v, sub),) + q.defines[i + 1:]))
    extra = [m for m in q.measures if m not in IDENTIFY]
    for m in extra:
        yield dataclasses.replace(case, query=dataclasses.replace(q, measures=tuple(x for x in q.measures if x != m)))
    for simpler in (dataclasses.replace(q, within=None), dataclasses.replace(q, partition_by=()),
                    dataclasses.replace(q, skip=Skip())):
        if simpler != q:
            yield dataclasses.replace(case, query=simpler)


def same_query(cases: Sequence[Case]) -> Iterator[list[Case]]:
    """The cases in batches that share a query (one Flink job each), in order of each query's first case; the
    cases of a batch in their order. Reduction runs its candidates so."""
    batches: dict[Query, list[Case]] = {}
    for c in cases:
        batches.setdefault(c.query, []).append(c)
    yield from batches.values()


def shrink(session: FlinkSession, outcome: Outcome) -> Outcome:
    """A minimal case of the same class and kinds of difference (:func:`cer_theory.testing.findings.reduce` with
    :data:`FLINK_REDUCER`), within :data:`SHRINK_JOBS` Flink jobs: candidates with the query of the case run as
    one job (each a partition of its own), every other candidate as a job of its own."""
    jobs = 0

    def run_all(cases: Sequence[Case]) -> Iterator[Outcome | None]:
        nonlocal jobs
        for same in same_query(cases):
            if jobs >= SHRINK_JOBS:
                return
            valid = []
            for c in same:
                try:
                    check(c.query)
                    valid.append(c)
                except Exception:  # noqa: BLE001 - a dropped DEFINE or measure can leave the query invalid
                    yield None
            if valid:
                jobs += 1
                yield from run_group(session, valid)

    best, _ = reduce(outcome, run_all, FLINK_REDUCER, outcome_shape, budget=SHRINK_JOBS * 40)
    return dataclasses.replace(best, minimal=None)  # its own object, even when nothing could go


# ------------------------------------------------------------------------------------------ the run


def run(groups: Sequence[Sequence[Case]], session: FlinkSession, *, shrink_findings: bool = True,
        progress: Callable[[int, int, Counter], None] | None = None) -> list[Outcome]:
    outcomes: list[Outcome] = []
    counts: Counter = Counter()
    total = sum(len(g) for g in groups)
    for group in groups:
        shrunk: dict[str, Outcome] = {}  # one shrink per kind of finding per group: the cases share the query
        for o in run_group(session, group):
            if o.finding and shrink_findings:
                if o.kind not in shrunk:
                    shrunk[o.kind] = shrink(session, o)
                o.minimal = shrunk[o.kind]
            outcomes.append(o)
            counts[o.kind] += 1
        if progress is not None:
            progress(len(outcomes), total, counts)
    return outcomes


def summary_line(outcomes: Sequence[Outcome]) -> str:
    c = Counter(o.kind for o in outcomes)
    return (f"{len(outcomes)} cases: {c[AGREE]} agree, {c[EXPLAINED]} explained, {c[UNEXPLAINED]} unexplained, "
            f"{c[ENGINE_ERROR]} engine errors")


def sql_script(case: Case, csv_path: str = "/tmp/rpr_case", table: str = "ev") -> str:
    """A reproduction pasteable into Flink's SQL client: the table, its rows (to save as a CSV file), the query."""
    rows = "\n".join("-- " + ",".join(map(str, r)) for r in csv_rows([case]))
    return (f"-- save these lines (without '-- ') as {csv_path}/rows.csv\n{rows}\n"
            f"{table_ddl(table, csv_path)};\n"
            f"SET 'execution.runtime-mode' = 'streaming';\n{flink_sql(case.query, table)};\n")


def findings(outcomes: Sequence[Outcome]) -> list[Finding[Outcome]]:
    """The run's findings: failing cases grouped by their reduced case and shape, numbered F1, F2, …"""
    return group((o for o in outcomes if o.finding), FLINK_REDUCER, outcome_shape, minimal=lambda o: o.minimal or o,
                 name=lambda o: o.case.name)


FLINK_RULES = {
    "within": "Flink's documentation, Table API & SQL, Pattern Recognition, *Time constraint*: a match is dropped "
              "when the time between its first and last rows is longer than the interval; its example keeps a "
              "match exactly as long as the interval (`WITHIN INTERVAL '1' HOUR`).",
    "rows": "ISO/IEC 9075-2:2016 §7.6 and ISO/IEC TR 19075-5:2016 §4.12–4.13: at each start row the most preferred "
            "match (the least in the order of the parenthesized language), then the AFTER MATCH SKIP mode.",
    "error": "Flink's documentation does not announce this refusal; the query is in the fragment it documents.",
}


def _rule(o: Outcome) -> str:
    if o.kind != UNEXPLAINED:
        return FLINK_RULES["error"]
    return FLINK_RULES["within" if o.case.query.within is not None else "rows"]


def _what(o: Outcome) -> str:
    rows = " ".join(f"{e.type}(id={e['id']},k={e['k']},x={e['x']},ts={e['ts']})" for e in o.case.events)
    return "\n".join([format(o.case.query), "", "rows: " + rows,
                      "standard: " + json.dumps(None if o.expected is None else rows_json(o.expected)),
                      "flink:    " + json.dumps(None if o.got is None else rows_json(o.got), default=str)
                      + (f" error: {o.error}" if o.error else "")])



def write_report(directory: str | Path, outcomes: Sequence[Outcome], meta: dict[str, Any]) -> Path:
    """``cases.json`` (every case, its class, both outputs, its finding), ``report.md`` and one folder per finding
    (:func:`cer_theory.conformance.report.write_finding`: ``case.json`` for ``--replay``, ``repro.sql`` for
    Flink's SQL client, ``README.md``)."""
    out = Path(directory)
    found = findings(outcomes)
    clear_findings(out, found)
    readings = Counter(r for o in outcomes if o.kind == EXPLAINED for r in o.readings)
    head = {"meta": meta, "summary_line": summary_line(outcomes), "findings": len(found),
            "explained_by": dict(readings)}
    write_cases(out, head, outcomes, found)
    lines = ["# Conformance report: Flink MATCH_RECOGNIZE against the RPR reference", "",
             f"`{meta.get('command')}`", "", f"**{summary_line(outcomes)}; {len(found)} findings**", "",
             "Explained by the model of Flink's matcher (`flink-nfa`) and the `flink` dialect's refusals: "
             + (", ".join(f"{r} ({n})" for r, n in readings.most_common()) or "none"), "",
             f"## Findings ({len(found)})", ""]
    for f in found:
        m = f.minimal
        folder = write_finding(out, f, engine="Apache Flink MATCH_RECOGNIZE", case_json=m.case.to_json(),
                               what=_what(m), rule=_rule(m), reproduction=("repro.sql", sql_script(m.case)),
                               replay=str(meta.get("replay", "{file}")))
        lines += [f"### Finding {f.label}: {heading(f)} ({f.count} "
                  f"{'case' if f.count == 1 else 'cases'}: {cases_text(f.cases)})", "", fenced(_what(m), "sql"), "",
                  f"Folder: `{folder.relative_to(out)}/` (`repro.sql` for Flink's SQL client)", ""]
    write_text(out / "report.md", "\n".join(lines) + "\n")
    return out / "report.md"


def rejudge(directory: str | Path) -> list[Outcome]:
    """The outcomes of a committed run's ``cases.json``, classified again from Flink's recorded answers (rows or
    error) under the current model and readings; each finding keeps its recorded minimal case, re-classified
    too. No Flink is needed: what changes is the judgement, not Flink's answers."""
    data = json.loads(Path(directory, "cases.json").read_text(encoding="utf-8"))

    def one(c: dict[str, Any]) -> Outcome:
        c = {**c, "name": re.sub(r"^generated #", "case ", c.get("name", ""))}  # the old runs' names
        got = None if "got" not in c else Counter(
            (tuple(r["partition"]), tuple((k, v) for k, v in r.items() if k != "partition")) for r in c["got"])
        return classify(Case.from_json(c), got, c.get("error", "") if got is None else "")

    out = []
    for c in data["cases"]:
        o = one(c)
        if o.finding and "minimal" in c:
            m = one(c["minimal"])
            o.minimal = m if m.kind == o.kind else None  # a minimal case now explained no longer stands for it
        out.append(o)
    return out


DEPARTURE_RULES = {
    "possessive-greedy": "ISO/IEC 9075-2:2016 §7.6 and TR 19075-5:2016 §4.12: the preferred match is the least in the "
                         "order of the parenthesized language; a greedy quantifier prefers more iterations but falls "
                         "back to fewer when the rest of the pattern needs the row.",
    "possessive-greedy-bounded": "ISO/IEC TR 19075-5:2016 §4.12: after m iterations of B{n,m} the pattern goes on; a "
                                 "row B's condition accepts may be classified as the next variable.",
    "optional-not-greedy": "ISO/IEC TR 19075-5:2016 §4.12: a greedy ? prefers one iteration (A X B) to none (A B).",
    "end-of-input": "ISO/IEC TR 19075-5:2016 §4.13: the pattern is matched against the whole (finite) partition.",
}


def write_departures(directory: str | Path) -> list[Path]:
    """One folder per rule of the model that departs from the standard (``departures/<rule>/``, names from
    :data:`DEPARTURE_RULES`, never from an engine): ``case.json``, ``repro.sql`` for Flink's SQL client and a
    ``README.md`` with the standard's rows against Flink's measured ones (:data:`~cer_theory.conformance.
    flink_model.MEASURED`) and the rule."""
    folders = []
    for rule, text in DEPARTURE_RULES.items():
        query, types, xs, answer = MEASURED[rule]
        case = Case(identified(parse(query)), tuple(Event(t, id=i, k=0, x=x, ts=i + 1)
                                                    for i, (t, x) in enumerate(zip(types, xs))), rule)
        standard = sorted((dict(m)["first_id"], dict(m)["last_id"]) for (_, m) in expected_rows(case.query,
                                                                                                case.events))
        folder = Path(directory) / "departures" / rule
        folder.mkdir(parents=True, exist_ok=True)
        write_text(folder / "case.json", json.dumps(case.to_json()) + "\n")
        write_text(folder / "repro.sql", sql_script(case))
        rows = " ".join(f"{e.type}(id={e['id']},x={e['x']},ts={e['ts']})" for e in case.events)
        what = "\n".join([format(case.query), "", "rows: " + rows,
                          "standard (first_id, last_id): " + (" ".join(map(str, standard)) or "none"),
                          "Flink 2.3 (first_id, last_id): " + (" ".join(map(str, answer)) or "none")])
        key = rule if rule in EVIDENCE else "possessive-greedy"
        write_text(folder / "README.md", "\n".join([
            f"# Apache Flink MATCH_RECOGNIZE departs from the standard: {rule}", "", fenced(what), "",
            f"**Rule.** {text}", "", f"**What Flink does** (measured; the model's rule): {EVIDENCE[key]}.", "",
            "- `repro.sql`: the table, its rows and the query for Flink's SQL client", "- `case.json`: the case", ""]))
        folders.append(folder)
    return folders


def rejudge_report(directory: str | Path, session: FlinkSession | None = None) -> Path:
    """Rewrite a committed run's report in place from its recorded answers (:func:`rejudge`), its meta data
    kept and the re-judgement dated: ``python -c "from cer_theory.conformance.flink import rejudge_report;
    rejudge_report('benchmarks/conformance/flink')"``. With a ``session``, each finding's recorded minimal case is
    run on Flink again and reduced further (:func:`shrink`)."""
    import datetime as _dt

    meta = json.loads(Path(directory, "cases.json").read_text(encoding="utf-8"))["meta"]
    meta["rejudged"] = (_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
                        + ": Flink's recorded answers classified under the flink-nfa model (docs/decisions.md D362)")
    outcomes = rejudge(directory)
    if session is not None:
        meta["rejudged"] += "; findings reduced again on Flink"
        for f in findings(outcomes):
            (fresh,) = run_group(session, [f.minimal.case])
            if fresh.kind == f.kind:
                smaller = shrink(session, fresh)
                for o in outcomes:
                    if o.finding and o.case.name in f.cases:
                        o.minimal = smaller
    return write_report(directory, outcomes, meta)


# ------------------------------------------------------------------------------------------ the command

PER_GROUP = 10
"""Streams per query (one Flink job)."""


def main(args: Any) -> int:
    """``cer-theory conformance --engine flink``: generated groups (``--cases`` rounded up to whole groups of
    :data:`PER_GROUP`) or one ``--replay`` file; the summary line last; 0 iff nothing is unexplained and Flink
    never failed unexpectedly."""
    import datetime as _dt
    import math
    import shlex
    import sys

    if args.replay:
        try:
            groups = [[Case.from_json(json.loads(Path(args.replay).read_text(encoding="utf-8")))]]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ConformanceError(f"--replay {args.replay}: not a case file ({exc})") from None
    else:
        groups = generate_groups(math.ceil((args.cases or 200) / PER_GROUP), PER_GROUP, args.seed)
    session = open_session()

    def progress(done: int, total: int, counts: Counter) -> None:
        if not args.quiet:
            print(f"\r{done}/{total}  unexplained {counts[UNEXPLAINED]}, engine errors {counts[ENGINE_ERROR]}",
                  end="\n" if done == total else "", file=sys.stderr, flush=True)

    try:
        outcomes = run(groups, session, shrink_findings=not args.no_shrink, progress=progress)
    finally:
        session.close()
    if args.replay or args.verbose:
        for o in outcomes:
            if o.finding or args.replay:
                m = o.minimal or o
                print(f"{o.kind}: {o.case.name}\n{format(m.case.query)}\nreference: "
                      f"{None if m.expected is None else rows_json(m.expected)}\nflink: "
                      f"{None if m.got is None else rows_json(m.got)} {m.error}")
    if args.report:
        options = ["--engine", "flink"]
        meta = {"engine": "flink", "seed": args.seed, "cases": len(outcomes), "per_group": PER_GROUP,
                "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                "command": "cer-theory conformance " + shlex.join(sys.argv[2:] if len(sys.argv) > 2 else options),
                "replay": "cer-theory conformance --engine flink --replay {file}"}
        print(f"report: {write_report(args.report, outcomes, meta)}", file=sys.stderr)
    print(summary_line(outcomes))
    return 0 if not any(o.finding for o in outcomes) else 1


__all__ = ["Case", "classify", "COLUMNS", "csv_rows", "DEPARTURE_RULES", "expected_rows", "findings", "flink_queries",
           "flink_sql", "FlinkSession", "generate_groups", "identified", "IDENTIFY", "main", "missing_requirements",
           "MODEL", "model_rows", "open_session", "Outcome", "PER_GROUP", "Reading", "READINGS", "rejudge",
           "rejudge_report", "rename_variables", "rows_json", "run", "run_group", "same_query", "shrink", "sql_script",
           "summary_line", "table_ddl", "write_departures", "write_report"]
