"""Apache Flink's CEP library as an engine under test: ``cer-theory conformance --engine flink-cep``.

CEQL cases in the fragment :mod:`.cep_translate` translates become Flink CEP patterns (:mod:`.cep`), run by a Java
driver (``java/CerFlinkCepDriver.java``) compiled at run time with ``javac`` against the ``flink-cep`` and
``flink-dist`` jars inside the ``apache-flink`` Python package (the ``[flink]`` extra; nothing is downloaded).
The compiled classes are kept in the user's cache (:mod:`cer_theory.core.user_cache`) and run only when nobody
else can write them; otherwise they are compiled again into a private temporary folder.

One JVM runs a whole conformance run: it starts one in-process Flink cluster and runs each *batch* of cases as one
DataStream job (a bounded source per case, event time, ``keyBy`` on the partition, ``CEP.pattern``), answering a
JSON line per case. A Java exception, a batch that does not answer within its time, a JVM that exits, or an answer
the adapter cannot read is an **engine error** for the cases it concerns, never an empty answer; a query the
dialect cannot translate is **refused** (:class:`~.cep_translate.Untranslatable`), as is a pattern Flink refuses
(``MalformedPatternException``).

Each case is then **agree** (Flink's matches, as complex events, are the reference's), **explained** (they are
what the executable model of Flink CEP, :func:`~.cep.model_matches`, computes on the translated pattern, and the
translation names why that differs from the reference), **unexplained**, **refused** or **engine error**.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import importlib.util
from importlib import metadata
import json
import os
import queue
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cer_theory.core.errors import CerError
from cer_theory.core.outputs import write_output
from cer_theory.core.user_cache import cache_dir, untrusted_in_tree
from cer_theory.formalisms.ceql.semantics import evaluate
from cer_theory.conformance.check import AGREE, CEQL_REDUCER, ENGINE_ERROR, EXPLAINED, REFUSED, UNEXPLAINED, \
    Outcome, Summary, conforms, findings, outcome_shape, outcome_text
from cer_theory.conformance.report import CEQL_RULE, clear_findings, heading, write_cases, write_finding, write_text
from cer_theory.testing.findings import Finding, cases_text, reduce
from cer_theory.conformance.protocol import Case, ComplexEvent, ConformanceError, EngineFailure, EngineRefusal, \
    from_core
from cer_theory.testing.harness import conformance_cases
from cer_theory.conformance.cep import CepPattern, model_matches, native_patterns
from cer_theory.conformance.cep_translate import Translation, Untranslatable, complex_events, event_streams, \
    generate_cases, model_complex_events, translate

DRIVER_SOURCE = Path(__file__).with_name("java") / "CerFlinkCepDriver.java"
DRIVER_CLASS = "CerFlinkCepDriver"
JARS = ("flink-cep", "flink-dist", "log4j-api", "log4j-core", "log4j-slf4j-impl", "log4j-1.2-api")
"""The jars of ``pyflink/lib`` the driver is compiled and run against."""

BATCH = 100
"""Cases per Flink job."""

START_SECONDS = 240.0
"""How long the JVM and its cluster may take to start, on top of a batch's time."""

JVM_OPTIONS = ("-XX:+UseSerialGC", "-Xmx768m", "-XX:TieredStopAtLevel=1", "-Xshare:auto")
"""A small JVM: the machine is shared, and a batch's job is a few dozen events per case."""


# ---------------------------------------------------------------------------------------------- the driver


def missing_requirements() -> str | None:
    """What this machine lacks to run Flink CEP, in one line; None when nothing is missing."""
    if importlib.util.find_spec("pyflink") is None:
        return "the flink-cep engine needs the optional extra: pip install 'cer_theory[flink]' (apache-flink)"
    for tool in ("java", "javac"):
        if shutil.which(tool) is None:
            return f"the flink-cep engine needs a Java 17 JDK on PATH ({tool} not found)"
    return None


def flink_jars() -> list[Path]:
    """The jars the driver needs, from the installed ``apache-flink`` package."""
    spec = importlib.util.find_spec("pyflink")
    if spec is None or spec.origin is None:
        raise ConformanceError(missing_requirements() or "pyflink not found")
    lib = Path(spec.origin).parent / "lib"
    jars = []
    for name in JARS:
        found = sorted(lib.glob(f"{name}-[0-9]*.jar"))
        if not found:
            raise ConformanceError(f"the apache-flink package has no {name} jar in {lib}")
        jars.append(found[-1])
    return jars


def _fingerprint(jars: Sequence[Path]) -> str:
    h = hashlib.sha256(DRIVER_SOURCE.read_bytes())
    for j in jars:
        info = j.stat()
        h.update(f"{j}:{info.st_size}:{info.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


def _compile(into: Path, jars: Sequence[Path]) -> None:
    classpath = os.pathsep.join(str(j) for j in jars)
    proc = subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "-d", str(into), "-cp", classpath,
                           str(DRIVER_SOURCE)], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise ConformanceError(f"javac could not compile the Flink CEP driver: {proc.stderr.strip()[-400:]}")
    write_output(into / "log4j2.properties", "rootLogger.level = OFF\n", private=True)


def driver_classes(jars: Sequence[Path]) -> Path:
    """The folder of the compiled driver: the user cache's ``flink-cep-driver/<fingerprint>`` when it exists or can
    be made and only this user can write it (:func:`~cer_theory.core.user_cache.untrusted_in_tree`), else a fresh
    private temporary folder. Compiled aside and renamed into place."""
    key = _fingerprint(jars)
    base = cache_dir()
    if base is not None:
        home = base / "flink-cep-driver"
        try:
            home.mkdir(parents=True, exist_ok=True, mode=0o700)
            target = home / key
            if not target.exists():
                work = Path(tempfile.mkdtemp(prefix="build-", dir=home))
                _compile(work, jars)
                try:
                    work.rename(target)
                except OSError:  # another run renamed its build first: use that one, if it is trusted
                    shutil.rmtree(work, ignore_errors=True)
            if untrusted_in_tree(target) is None and untrusted_in_tree(home) is None:
                return target
        except OSError:
            pass
    private = Path(tempfile.mkdtemp(prefix="cer_flink_cep_"))  # mode 0700: this user's only
    _compile(private, jars)
    return private


class CepDriver:
    """One JVM running the driver; :meth:`run_batch` sends a batch and reads its answers. ``argv`` replaces the
    JVM's command line (the tests run stand-ins that hang, exit or answer garbage); a batch may take
    ``timeout · √cases`` seconds, the first one ``start_seconds`` more."""

    def __init__(self, *, timeout: float = 30.0, java: str = "java", argv: Sequence[str] | None = None,
                 start_seconds: float = START_SECONDS) -> None:
        self._scratch: Path | None = None
        if argv is None:
            missing = missing_requirements()
            if missing is not None:
                raise ConformanceError(missing)
            jars = flink_jars()
            classes = driver_classes(jars)
            base = cache_dir()
            if base is None or not classes.is_relative_to(base):
                self._scratch = classes  # a private build of this run: removed at close
            argv = [java, *JVM_OPTIONS, f"-Dlog4j2.configurationFile={classes / 'log4j2.properties'}", "-cp",
                    os.pathsep.join([str(classes), *map(str, jars)]), DRIVER_CLASS]
        self.argv = list(argv)
        self.timeout, self.start_seconds = timeout, start_seconds
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._stderr: Any = None
        self._fresh = True
        self.jobs = 0

    def _start(self) -> subprocess.Popen:
        self._stderr = tempfile.TemporaryFile(mode="w+b")
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                    text=True, encoding="utf-8", bufsize=1)
        except OSError as exc:
            raise ConformanceError(f"cannot start the Flink CEP driver: {exc}") from exc
        lines: queue.Queue = queue.Queue()

        def pump() -> None:  # answers are read by a thread, so a hung JVM meets a timeout
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        self._proc, self._lines = proc, lines
        self._fresh = True
        return proc

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        text = self._stderr.read().decode("utf-8", "replace")
        return " | ".join([x.strip() for x in text.splitlines() if x.strip()][-3:])[:600]

    def _fail(self, why: str) -> EngineFailure:
        proc, self._proc = self._proc, None
        status = None
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            status = proc.wait()
        tail = self._stderr_tail()
        return EngineFailure(f"{why} (exit status {status})" + (f"; stderr: {tail}" if tail else ""))

    def run_batch(self, requests: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The driver's answer objects, one per request in order, or :class:`EngineFailure` for the batch."""
        proc = self._proc if self._proc is not None and self._proc.poll() is None else self._start()
        budget = self.timeout * max(1, len(requests)) ** 0.5 + (self.start_seconds if self._fresh else 0)
        self._fresh = False
        try:
            assert proc.stdin is not None
            for r in requests:
                proc.stdin.write(json.dumps(r) + "\n")
            proc.stdin.write('{"run": true}\n')
            proc.stdin.flush()
        except OSError:
            raise self._fail("the driver exited before reading the batch") from None
        self.jobs += 1
        deadline = time.monotonic() + budget
        answers: list[dict[str, Any]] = []
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise self._fail(f"no answer within {budget:.0f} s") from None
            if line is None:
                raise self._fail("the driver exited without answering")
            try:
                answer = json.loads(line)
            except json.JSONDecodeError:
                raise self._fail(f"the driver's answer is not JSON: {line.strip()[:120]!r}") from None
            if not isinstance(answer, dict):
                raise self._fail(f"the driver's answer is not a JSON object: {line.strip()[:120]!r}")
            if "done" in answer:
                break
            answers.append(answer)
        if len(answers) != len(requests) or any(a.get("id") != r["id"] for a, r in zip(answers, requests)):
            raise self._fail(f"the driver answered {len(answers)} cases for {len(requests)}, or out of order")
        return answers

    def close(self) -> None:
        """End the JVM (its stdin closed), and remove a private build of the classes (the driver is then done)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                assert proc.stdin is not None
                proc.stdin.close()
                proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None


# ---------------------------------------------------------------------------------------------- the adapter


def read_matches(answer: dict[str, Any], stages: int, sent: set[int]) -> list[ComplexEvent]:
    """A ``matches`` answer as complex events; :class:`EngineFailure` for anything but a list of objects mapping
    the pattern's stage names to non-empty lists of positions of events the driver was sent."""
    matches = answer.get("matches")
    names = {f"e{k}" for k in range(stages)}
    if not isinstance(matches, list):
        raise EngineFailure(f"the driver's answer has no list of matches: {json.dumps(answer)[:160]}")
    for m in matches:
        ok = isinstance(m, dict) and set(m) <= names and m and all(
            isinstance(ps, list) and ps and all(type(p) is int and p in sent for p in ps) for ps in m.values())
        if not ok:
            raise EngineFailure(f"a match the adapter cannot read: {json.dumps(m)[:160]}")
    return complex_events(matches)


Result = list[ComplexEvent] | EngineFailure


class FlinkCepAdapter:
    """Flink CEP behind the harness's :class:`~cer_theory.conformance.protocol.Adapter` protocol; :meth:`run_many`
    runs a batch of cases as one job (what the ``flink-cep`` command does)."""

    name = "flink-cep"

    def __init__(self, *, timeout: float = 30.0, driver: CepDriver | None = None) -> None:
        self.driver = driver if driver is not None else CepDriver(timeout=timeout)
        self._ids = 0

    def run(self, case: Case) -> list[ComplexEvent]:
        (result,) = self.run_many([case])
        if isinstance(result, EngineFailure):
            raise result
        return result

    def run_many(self, cases: Sequence[Case]) -> list[Result]:
        results: list[Result | None] = [None] * len(cases)
        requests, waiting = [], []
        for k, case in enumerate(cases):
            try:
                t = translate(case.ast)
                sent = t.events(case.events)
            except Untranslatable as exc:
                results[k] = exc
                continue
            self._ids += 1
            requests.append({"id": self._ids, "pattern": t.pattern.to_json(), "events": sent})
            waiting.append((k, len(t.pattern.stages), {e["pos"] for e in sent}))
        for at in range(0, len(requests), BATCH):
            chunk, who = requests[at:at + BATCH], waiting[at:at + BATCH]
            try:
                answers = self.driver.run_batch(chunk)
            except EngineFailure as exc:
                for k, _, _ in who:
                    results[k] = exc
                continue
            for (k, stages, sent), answer in zip(who, answers):
                if "refused" in answer:
                    results[k] = EngineRefusal(f"Flink refused the pattern: {answer['refused']}")
                elif "error" in answer:
                    results[k] = EngineFailure(f"Flink CEP failed: {answer['error']}")
                else:
                    try:
                        results[k] = read_matches(answer, stages, sent)
                    except EngineFailure as exc:
                        results[k] = exc
        return [r if r is not None else EngineFailure("no answer") for r in results]

    def close(self) -> None:
        self.driver.close()


# ---------------------------------------------------------------------------------------------- classifying

UNTRANSLATABLE = "untranslatable: "
"""The prefix of a refusal of the dialect's own (a query outside the fragment): nothing about Flink, never a
finding."""

MATCH_PER_ASSIGNMENT = "match-per-assignment"
"""Flink reports a match per assignment of events to stages; CEQL's output is a set of complex events, so two
assignments of the same events (``R+ ; R+`` on three Rs) are one complex event for CEQL and two matches for Flink."""


def explanation(case: Case, t: Translation, got: Sequence[ComplexEvent], expected: Sequence[ComplexEvent]
                ) -> tuple[str, ...] | None:
    """The readings that explain Flink's output, when the model of Flink CEP reproduces it exactly; else None."""
    model = model_complex_events(t, case.events)
    if Counter(model) != Counter(got):
        return None
    readings = list(t.departures)
    if Counter(model) != Counter(set(model)):
        readings.append(MATCH_PER_ASSIGNMENT)
    return tuple(readings) if readings else None


def classify(case: Case, result: Result) -> Outcome:
    """One case's class (the module docstring)."""
    query = case.ast
    expected_sets = evaluate(query, case.events)
    expected = from_core(c for ces in expected_sets for c in ces)
    if isinstance(result, EngineFailure):
        kind = REFUSED if isinstance(result, EngineRefusal) else ENGINE_ERROR
        prefix = UNTRANSLATABLE if isinstance(result, Untranslatable) else ""
        return Outcome(case, kind, expected, None, error=prefix + str(result))
    if conforms(expected_sets, result, None):
        return Outcome(case, AGREE, expected, result)
    readings = explanation(case, translate(query), result, expected)
    if readings is not None:
        return Outcome(case, EXPLAINED, expected, result, readings=readings)
    return Outcome(case, UNEXPLAINED, expected, result)


# ---------------------------------------------------------------------------------------------- shrinking

SHRINK_ROUNDS = 12
"""At most this many jobs to shrink one finding."""


def _translatable(case: Case) -> bool:
    try:
        translate(case.ast)
        return True
    except (Untranslatable, CerError):
        return False


def shrink(outcome: Outcome, adapter: FlinkCepAdapter, *, rounds: int = SHRINK_ROUNDS) -> tuple[Outcome, int]:
    """A minimal case of the same class and shape (:func:`cer_theory.testing.findings.reduce` with the CEQL
    harness's :data:`~cer_theory.conformance.check.CEQL_REDUCER` and shape): each round runs every one-step-smaller
    case the dialect can translate as one job, at most ``rounds`` jobs; returns the case and the jobs it took."""
    jobs = 0

    def run(cases: Sequence[Case]) -> Iterator[Outcome | None]:
        nonlocal jobs
        if jobs >= rounds:
            return
        jobs += 1
        runnable = [c for c in cases if _translatable(c)]
        results = dict(zip(map(id, runnable), adapter.run_many(runnable)))
        for c in cases:
            try:
                yield classify(c, results[id(c)]) if id(c) in results else None
            except CerError:  # the reference rejects the smaller case
                yield None

    best, _ = reduce(outcome, run, CEQL_REDUCER, outcome_shape, budget=rounds * 100_000)
    return dataclasses.replace(best, minimal=None), jobs


# ---------------------------------------------------------------------------------------------- the run


def run_cases(cases: Sequence[Case], adapter: FlinkCepAdapter, *, shrink_findings: bool = True,
              progress: Callable[[int, int, Summary], None] | None = None) -> tuple[list[Outcome], Summary]:
    """Every case in batches, then each distinct finding shrunk once (findings with the same query and class
    share the shrinking)."""
    outcomes: list[Outcome] = []
    summary = Summary()
    for at in range(0, len(cases), BATCH):
        chunk = cases[at:at + BATCH]
        for c, r in zip(chunk, adapter.run_many(chunk)):
            o = classify(c, r)
            outcomes.append(o)
            summary.counts[o.kind] += 1
        if progress is not None:
            progress(len(outcomes), len(cases), summary)
    if shrink_findings:
        shrunk: dict[tuple[str, str], tuple[Outcome, int]] = {}
        for o in outcomes:
            if o.finding and o.error.startswith(UNTRANSLATABLE):
                continue  # a refusal of the dialect's own: nothing about Flink to shrink
            if o.finding:
                key = (o.kind, o.case.query)
                if key not in shrunk:
                    shrunk[key] = shrink(o, adapter)
                o.minimal, o.shrink_runs = shrunk[key]
    return outcomes, summary


# ---------------------------------------------------------------------------------------------- the model


@dataclass
class ModelCheck:
    """Flink against the model of Flink CEP on native patterns (:func:`~.cep.native_patterns`): the number of
    patterns run and each one where they part (pattern, stream, Flink's matches and the model's, or the error)."""

    cases: int = 0
    refused: int = 0
    differences: list[dict[str, Any]] = dataclasses.field(default_factory=list)


FINDINGS = {
    "held-back-match": "benchmarks/conformance/flink-cep/finding-held-back-match (FLINK-15873): under a skip "
                       "strategy a completed match waits behind an earlier partial match and is lost at the end",
    "notnext-after-loop": "benchmarks/conformance/flink-cep/finding-notnext-after-loop: notNext after a relaxed "
                          "loop kills the loop at an event the loop skips",
}
"""The findings the model check has made, by name (each with its folder and a test pinning Flink's behaviour)."""


def known_finding(pattern: CepPattern, every_match: list, flink: list) -> str | None:
    """The finding a difference between the model and Flink is an instance of, when its pattern has the finding's
    shape and each match Flink reports is a match (``every_match``: the model's matches without a skip strategy;
    both findings lose matches, neither invents one); None otherwise (a new difference)."""
    if Counter(map(repr, flink)) - Counter(map(repr, every_match)):
        return None  # Flink reports something that is not a match
    if any(s.quantifier is not None and s.quantifier.inner == "relaxed" and n.edge == "notNext"
           for s, n in zip(pattern.stages, pattern.stages[1:])):
        return "notnext-after-loop"
    if pattern.skip != "noSkip":
        return "held-back-match"
    return None


def model_check(driver: CepDriver, count: int, seed: int) -> ModelCheck:
    """Run ``count`` seeded native patterns, each on a stream of :func:`~.cep_translate.event_streams`, through
    Flink and through :func:`~.cep.model_matches`; every difference is recorded (the model's claims about Flink
    CEP are checked here, beyond the patterns the dialect produces)."""
    pairs = conformance_cases(count, seed=seed, logic="ceql", formulas=native_patterns(), streams=event_streams())
    requests = []
    for k, (p, stream) in enumerate(pairs):
        events = [{"pos": i, "ts": i, "key": "", "type": e.type, "attrs": {a: v for a, v in e.to_dict().items()
                                                                             if a != "type"}}
                  for i, e in enumerate(stream)]
        requests.append({"id": k, "pattern": p.to_json(), "events": events})
    out = ModelCheck()
    for at in range(0, len(requests), BATCH):
        chunk = requests[at:at + BATCH]
        try:
            answers = driver.run_batch(chunk)
        except EngineFailure as exc:
            answers = [{"id": r["id"], "error": str(exc)} for r in chunk]
        for r, a in zip(chunk, answers):
            p = pairs[r["id"]][0]
            model = model_matches(p, [{"type": e["type"], **e["attrs"]} for e in r["events"]],
                                  keys=[""] * len(r["events"]), timestamps=[e["ts"] for e in r["events"]])
            out.cases += 1
            want = sorted([list(ps) for ps in m] for m in model)
            if "refused" in a:
                out.refused += 1  # Flink does not accept this combination (its own exception)
                continue
            if "matches" not in a:
                out.differences.append({**r, "model": want, "error": a.get("error") or a.get("refused")})
                continue
            got = sorted([list(m.get(s.name, [])) for s in p.stages] for m in a["matches"])
            if got != want:
                every = model_matches(dataclasses.replace(p, skip="noSkip"), [{"type": e["type"], **e["attrs"]}
                                                                                for e in r["events"]],
                                      keys=[""] * len(r["events"]), timestamps=[e["ts"] for e in r["events"]])
                every_match = [[list(ps) for ps in m] for m in every]
                out.differences.append({**r, "model": want, "flink": got,
                                        "finding": known_finding(p, every_match, got)})
    return out


# ---------------------------------------------------------------------------------------------- reports

JAVA_TEMPLATE = """\
// {title}
// A standalone reproduction with Flink CEP {version} (DataStream API, event time); compile and run with the jars of
// a Flink distribution on the class path (flink-dist and flink-cep), e.g.
//   javac -cp "$FLINK_HOME/lib/*:flink-cep.jar" {cls}.java && java -cp ".:$FLINK_HOME/lib/*:flink-cep.jar" {cls}
//
// CEQL query:  {query}
// As Flink CEP, the pattern below; events carry their position in the stream.
// Expected (the CEQL reference semantics, or Flink's documentation for a native pattern):
//   {expected}
// Flink CEP 2.3 reports:
//   {got}
{why}
import java.time.Duration;
import java.util.*;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.cep.CEP;
import org.apache.flink.cep.functions.PatternProcessFunction;
import org.apache.flink.cep.nfa.aftermatch.AfterMatchSkipStrategy;
import org.apache.flink.cep.pattern.Pattern;
import org.apache.flink.cep.pattern.conditions.SimpleCondition;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;

public class {cls} {{
    public static class Ev {{
        public int pos; public long ts; public String key; public String type;
        public HashMap<String, Object> attrs = new HashMap<>();
        public Ev() {{}}
        Ev(int pos, long ts, String key, String type, Object... kv) {{
            this.pos = pos; this.ts = ts; this.key = key; this.type = type;
            for (int i = 0; i < kv.length; i += 2) attrs.put((String) kv[i], kv[i + 1]);
        }}
        Long num(String a) {{ Object v = attrs.get(a); return v instanceof Long ? (Long) v : null; }}
        String str(String a) {{ Object v = attrs.get(a); return v instanceof String ? (String) v : null; }}
        public String toString() {{ return type + "@" + pos + attrs; }}
    }}

    public static void main(String[] args) throws Exception {{
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        List<Ev> events = List.of(
{events});
        Pattern<Ev, Ev> pattern = {pattern};
        CEP.pattern(env.fromData(events)
                    .assignTimestampsAndWatermarks(WatermarkStrategy.<Ev>forMonotonousTimestamps()
                        .withTimestampAssigner((e, t) -> e.ts))
                    .keyBy(e -> e.key), pattern)
            .inEventTime()
            .process(new PatternProcessFunction<Ev, String>() {{
                @Override public void processMatch(Map<String, List<Ev>> m, Context ctx, Collector<String> out) {{
                    out.collect(m.toString());
                }}
            }})
            .print();
        env.execute("{cls}");
    }}
}}
"""


def java_reproduction(outcome: Outcome, cls: str, title: str) -> str:
    """A standalone Java file using Flink CEP that shows a finding (:data:`JAVA_TEMPLATE`)."""
    case = outcome.case
    t = translate(case.ast)
    events = []
    for e in t.events(case.events):
        kv = ", ".join(f"\"{k}\", " + (json.dumps(v) if isinstance(v, str) else f"{v}L") for k, v in e["attrs"].items())
        events.append(f"            new Ev({e['pos']}, {e['ts']}L, {json.dumps(e['key'])}, \"{e['type']}\""
                      + (f", {kv}" if kv else "") + ")")

    def show(ces: Sequence[ComplexEvent] | None) -> str:
        return " ".join(f"[{a},{b}]{{{','.join(map(str, ps))}}}" for a, b, ps in sorted(ces or [])) or "nothing"

    why = ("// " + outcome.error) if outcome.error else ""
    return JAVA_TEMPLATE.format(title=title, version="2.3", cls=cls, query=case.query, expected=show(outcome.expected),
                                got=show(outcome.got) if outcome.got is not None else "(an error)", why=why,
                                events=",\n".join(events), pattern=t.pattern.java().replace("\n", "\n        "))


def native_reproduction(pattern: CepPattern, types: str, cls: str, title: str, expected: str, got: str) -> str:
    """A standalone Java file running a native Flink CEP pattern on events of the given types (positions 0, 1, …
    as timestamps), with the documented and the reported output in its header."""
    events = ",\n".join(f"            new Ev({k}, {k}L, \"\", \"{t}\")" for k, t in enumerate(types))
    return JAVA_TEMPLATE.format(title=title, version="2.3", cls=cls, query="(none: a Flink CEP pattern)",
                                expected=expected, got=got, why="", events=events,
                                pattern=pattern.java().replace("\n", "\n        "))


CEP_RULES = {
    UNEXPLAINED: CEQL_RULE + " The translation to Flink CEP is exact here (docs/conformance.md, \"Flink CEP\"), and "
                 "the executable model of Flink CEP's documented rules does not give Flink's output either.",
    REFUSED: "Flink's documentation of the Pattern API (\"Individual Patterns\", \"Combining Patterns\", \"After "
             "Match Skip Strategy\") accepts every construct of this pattern.",
    ENGINE_ERROR: "Flink's documentation of the Pattern API: the pattern is valid and the job should run.",
}
"""The rule each class of finding breaks, as its report states it."""


def cep_findings(outcomes: Sequence[Outcome]) -> list[Finding[Outcome]]:
    """The run's findings (:func:`cer_theory.conformance.check.findings`), without the dialect's own refusals."""
    return findings(o for o in outcomes if not o.error.startswith(UNTRANSLATABLE))


def _what(m: Outcome) -> str:
    """A minimal case as text, with the model of Flink CEP's output beside Flink's."""
    lines = [outcome_text(m)]
    if m.got is not None:
        try:
            model = model_complex_events(translate(m.case.ast), m.case.events)
            lines.append("  model:    " + (" ".join(f"[{a},{b}]{{{','.join(map(str, ps))}}}"
                                                    for a, b, ps in sorted(model)) or "∅"))
        except Untranslatable:
            pass
    return "\n".join(lines)


def write_report(directory: str | Path, outcomes: Sequence[Outcome], summary: Summary, meta: dict[str, Any],
                 checked: ModelCheck | None = None) -> Path:
    """``report.md``, ``cases.json`` (every case: class, both outputs, readings, minimal case, finding) and one
    folder per finding (:func:`cer_theory.conformance.report.write_finding`): ``findings/F1/case.json`` (to
    ``--replay``), ``README.md`` and ``Finding1.java`` (Flink CEP alone)."""
    out = Path(directory)
    found = cep_findings(outcomes)
    clear_findings(out, found)
    readings = Counter(r for o in outcomes if o.kind == EXPLAINED for r in o.readings)
    untranslatable = sum(1 for o in outcomes if o.error.startswith(UNTRANSLATABLE))
    head = {"meta": meta, "summary": dict(summary.counts), "summary_line": summary.line(),
            "explained_by": dict(readings)}
    write_cases(out, head, outcomes, found)
    lines = ["# Conformance report: Flink CEP against the CEQL reference", "", f"`{meta.get('command')}`", "",
             f"**{summary.line()}**", ""]
    for key in ("seed", "engine_version", "wall_seconds", "jobs", "date"):
        if meta.get(key) is not None:
            lines.append(f"- {key}: {meta[key]}")
    lines += ["", "Every case's query is translated to a Flink CEP pattern by the `flink-cep` dialect "
              "(`cer_theory/conformance/cep_translate.py`; docs/conformance.md, \"Flink CEP\"). A case is "
              "*explained* only when the executable model of Flink CEP (`cer_theory/conformance/cep.py`) "
              "reproduces Flink's exact output; the readings say why the model departs from CEQL there."]
    if readings:
        lines += ["", "## Explained differences", "", "| reading | cases |", "|---|---|"]
        lines += [f"| `{r}` | {n} |" for r, n in readings.most_common()]
    if untranslatable:
        lines += ["", f"{untranslatable} cases were refused as untranslatable (outside the dialect's fragment)."]
    if checked is not None:
        lines += ["", "## The model against Flink", "",
                  f"{checked.cases} native Flink CEP patterns (every edge, `notNext`/`notFollowedBy` between two "
                  f"stages, `times`/`timesOrMore`/`oneOrMore` loops in every inner contiguity, `optional()`, "
                  f"`greedy()`, `within`, `noSkip`/`skipToNext`/`skipPastLastEvent`; "
                  f"`cer_theory.conformance.cep.native_patterns`), each on one stream: Flink refused "
                  f"{checked.refused} (combinations it does not accept), and its matches equal the model's on "
                  f"{checked.cases - checked.refused - len(checked.differences)} of the other "
                  f"{checked.cases - checked.refused}."]
        known = Counter(d.get("finding") for d in checked.differences)
        if checked.differences:
            lines += ["", "Each difference, and the finding it is an instance of (`null`: a new one): "
                      + ", ".join(f"`{k}` {n}" for k, n in known.items()) + ". The findings: "
                      + "; ".join(f"`{k}` — {v}" for k, v in FINDINGS.items()) + "."]
        for d in checked.differences:
            lines += ["", "```", json.dumps({k: d[k] for k in ("finding", "pattern", "model", "flink", "error")
                                             if k in d}),
                      "events: " + " ".join(f"{e['type']}{e['attrs'].get('x', '')}" for e in d["events"]), "```"]
        write_text(out / "model-check.json", json.dumps({"cases": checked.cases, "refused": checked.refused,
                                                         "differences": checked.differences}, indent=1) + "\n")
    lines += ["", f"## Findings on the translated CEQL cases ({len(found)})", ""]
    if not found:
        lines.append("None: every case agrees with the reference or is explained by the model of Flink CEP.")
    replay = str(meta.get("replay", "{file}"))
    for f in found:
        m, o = f.minimal, f.original
        assert o is not None
        cls = f"Finding{f.number}"
        folder = write_finding(out, f, engine="Apache Flink CEP", case_json=m.case.request(f.number), what=_what(m),
                               rule=CEP_RULES.get(m.kind, CEP_RULES[ENGINE_ERROR]),
                               reproduction=(f"{cls}.java", java_reproduction(
                                   m, cls, f"Finding {f.label}: {m.kind} (cer_theory conformance, flink-cep)")),
                               replay=replay)
        lines += [f"### Finding {f.label}: {heading(f)} ({f.count} {'case' if f.count == 1 else 'cases'}: "
                  f"{cases_text(f.cases)})", "",
                  f"Reduced from {len(o.case.events)} to {len(m.case.events)} events in {o.shrink_runs} jobs (from "
                  f"{o.case.name}: `{o.case.query}`).", "", "```", _what(m), "```", "",
                  f"Folder: `{folder.relative_to(out)}/` (Flink CEP alone: `{cls}.java`)", ""]
    page = out / "report.md"
    write_text(page, "\n".join(lines) + "\n")
    return page


def flink_version() -> str | None:
    try:
        return f"apache-flink {metadata.version('apache-flink')}"
    except metadata.PackageNotFoundError:
        return None


def main(args: Any, replay: Case | None = None) -> int:
    """``cer-theory conformance --engine flink-cep``: ``--cases`` generated translatable cases (default 200) or
    the ``--replay`` case; the summary line last; 0 iff nothing is unexplained, refused or failed."""
    started = time.monotonic()
    adapter = FlinkCepAdapter(timeout=args.timeout)  # first: a missing extra or JDK is told before any work
    cases = [replay] if replay is not None else generate_cases(args.cases or 200, seed=args.seed)

    def progress(done: int, total: int, summary: Summary) -> None:
        if not args.quiet:
            c = summary.counts
            print(f"\r{done}/{total}  unexplained {c[UNEXPLAINED]}, refused {c[REFUSED]}, engine errors "
                  f"{c[ENGINE_ERROR]}  {time.monotonic() - started:.0f}s", end="\n" if done == total else "",
                  file=sys.stderr, flush=True)

    checked = None
    try:
        outcomes, summary = run_cases(cases, adapter, shrink_findings=not args.no_shrink, progress=progress)
        if replay is None:
            checked = model_check(adapter.driver, max(20, len(cases) // 5), args.seed)
    finally:
        adapter.close()
    if replay is not None or args.verbose:
        for o in outcomes:
            if o.finding or replay is not None:
                print(outcome_text(o.minimal or o))
    if args.report:
        meta = {"engine": "flink-cep", "seed": None if replay else args.seed, "cases": len(cases),
                "engine_version": flink_version(), "jobs": adapter.driver.jobs,
                "wall_seconds": round(time.monotonic() - started),
                "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                "command": "cer-theory conformance " + shlex.join(sys.argv[2:] if len(sys.argv) > 2 else
                                                                  ["--engine", "flink-cep"]),
                "replay": "cer-theory conformance --engine flink-cep --replay {file}"}
        print(f"report: {write_report(args.report, outcomes, summary, meta, checked)}", file=sys.stderr)
    print(summary.line())
    if checked is not None:
        print(f"the model of Flink CEP against Flink: {checked.cases - checked.refused - len(checked.differences)} "
              f"of {checked.cases - checked.refused} native patterns agree ({checked.refused} refused by Flink)")
    return 0 if summary.passed and (checked is None or all(d.get("finding") for d in checked.differences)) else 1


__all__ = ["BATCH", "cep_findings", "CEP_RULES", "CepDriver", "classify", "driver_classes", "explanation", "FINDINGS",
           "flink_jars", "FlinkCepAdapter", "java_reproduction", "known_finding", "main", "MATCH_PER_ASSIGNMENT",
           "missing_requirements", "model_check", "ModelCheck", "native_reproduction", "read_matches", "run_cases",
           "shrink", "UNTRANSLATABLE", "write_report"]
