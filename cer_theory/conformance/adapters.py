"""The built-in adapters: the engines under test behind :class:`~cer_theory.conformance.protocol.Adapter`.

* ``reference`` — the brute-force CEQL semantics (:func:`cer_theory.formalisms.ceql.semantics.evaluate`, the CORE paper
  §2); LIMIT n keeps the first n CEs of each end position in sorted order (the semantics leaves the choice open);
* ``engine`` — the tECS engine (:class:`cer_theory.engines.core.engine.Engine`, the CORE paper §4);
* ``spark`` — the Spark pipeline in local mode (:func:`cer_theory.spark.batch.run`);
* ``command:CMD`` — any program speaking the JSON-lines protocol of :mod:`cer_theory.conformance.protocol`;
* ``pycer`` — CORE's C++ engine through its Python binding, as a ``command`` adapter running
  :mod:`cer_theory.conformance.pycer_driver` under a CPython 3.13 interpreter that has ``pycer``;
* ``flink-cep`` — Flink's CEP library on CEQL translated to its Pattern API
  (:class:`cer_theory.conformance.flink_cep.FlinkCepAdapter`; the ``[flink]`` extra and a JDK 17).

Every adapter passes on what its engine reports, never an answer made up for it (docs/decisions.md D190): an
engine that says it does not accept the query raises :class:`EngineRefusal` (an in-process engine's
:class:`~cer_theory.core.errors.UnsupportedError`, a ``refused`` answer); an engine that raises, crashes, hangs,
exits, writes on stderr, drops rows of the stream or answers what the adapter cannot parse raises
:class:`EngineFailure` for that case; the harness records it as an engine error and starts a program again for the
next case.
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cer_theory.core.errors import UnsupportedError
from cer_theory.engines.core.run import run_stream
from cer_theory.formalisms.ceql.semantics import evaluate
from cer_theory.spark.batch import run
from cer_theory.spark.session import spark_session
from cer_theory.conformance.flink_cep import FlinkCepAdapter
from cer_theory.conformance.pycer_env import PYCER_PYTHON, PYCER_VENV, untrusted_venv
from cer_theory.conformance.protocol import Case, ComplexEvent, ConformanceError, EngineFailure, EngineRefusal, \
    from_core, parse_answer

DEFAULT_PYCER_PYTHON = str(PYCER_PYTHON)
"""Where ``make test`` and ``benchmarks/run.py`` make the CPython 3.13 venv with pycer (:mod:`.pycer_env`)."""

DRIVER = Path(__file__).with_name("pycer_driver.py")

DEFAULT_TIMEOUT = 30.0
"""Seconds an external engine may take per case."""


def engine_failure(exc: Exception) -> EngineFailure:
    """What an in-process engine raised, as the harness records it: an
    :class:`~cer_theory.core.errors.UnsupportedError` is the engine refusing the query, anything else (our own
    errors, and any other exception: a bug in the engine is a finding too) an engine error."""
    text = f"{type(exc).__name__}: {exc}"
    return EngineRefusal(text) if isinstance(exc, UnsupportedError) else EngineFailure(text)


class ReferenceAdapter:
    """The reference semantics as an engine (for testing the harness, and as the ground truth)."""

    name = "reference"

    def run(self, case: Case) -> list[ComplexEvent]:
        query = case.ast
        out: list[ComplexEvent] = []
        try:
            for ces in evaluate(query, case.events):
                chosen = sorted(from_core(ces))
                out += chosen if query.limit is None else chosen[:query.limit]
        except Exception as exc:  # noqa: BLE001 - whatever the engine under test raises is reported, not raised
            raise engine_failure(exc) from exc
        return out

    def close(self) -> None:
        pass


class EngineAdapter:
    """The tECS engine; every reported match counts (a duplicate would be a difference)."""

    name = "engine"

    def run(self, case: Case) -> list[ComplexEvent]:
        try:
            return from_core(m.complex_event for m in run_stream(case.ast, case.events))
        except Exception as exc:  # noqa: BLE001 - whatever the engine under test raises is reported, not raised
            raise engine_failure(exc) from exc

    def close(self) -> None:
        pass


SMALL_INPUT_CONF = {
    "spark.sql.shuffle.partitions": "1",
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.adaptive.enabled": "false",
    "spark.scheduler.mode": "FAIR",
}
"""Session settings for streams of a few events (docs/decisions.md D134). A case's stream has at most a few dozen
rows, so one shuffle partition holds it; compiling whole-stage Java code for each new plan, and re-planning
after each stage (adaptive execution), cost more than they save on such inputs; FAIR scheduling lets the jobs of
cases run from several threads share the task slots. None of them may change a result: a difference they
caused would be a finding about the pipeline."""


class SparkAdapter:
    """The Spark batch pipeline in local mode (one session for the whole run; starting it takes seconds).

    ``concurrent``: :func:`~cer_theory.conformance.check.run_cases` may call :meth:`run` from several threads at
    once; each call is its own :func:`cer_theory.spark.batch.run` on the one session (Spark runs jobs submitted
    from several threads side by side). A session given is used as it is; one this adapter starts gets
    :data:`SMALL_INPUT_CONF`.
    """

    name = "spark"
    concurrent = True

    def __init__(self, master: str = "local[2]", *, session: Any = None) -> None:
        self.master = master
        self._spark: Any = session
        self._lock = threading.Lock()

    def session(self) -> Any:
        with self._lock:  # two threads must not both start a session
            if self._spark is None:
                self._spark = spark_session(self.master, conf=SMALL_INPUT_CONF)
            return self._spark

    def run(self, case: Case) -> list[ComplexEvent]:
        import pandas as pd  # the spark extra's: a plain install runs every other adapter without it

        spark = self.session()
        frame = pd.DataFrame([e.to_dict() for e in case.events])
        try:
            result = run(spark, spark.createDataFrame(frame), case.ast,
                         declaration=list(case.declarations), with_events=False)
            rows = result.matches.select("start", "end", "positions").collect()
            bad = result.bad_rows
            result.close()
        except Exception as exc:  # noqa: BLE001 - Spark's and Py4J's errors too: the pipeline failed on the case
            raise engine_failure(exc) from exc
        if bad:  # a rejected row is input the pipeline did not read: its answer is not about the case's stream
            raise EngineFailure(f"the pipeline rejected {bad} of the {len(case.events)} rows of the stream")
        return [(int(r[0]), int(r[1]), tuple(sorted(int(p) for p in r[2]))) for r in rows]

    def close(self) -> None:
        self._spark = None  # the session is shared with the process (getOrCreate); it ends with it


class CommandAdapter:
    """An external engine as a long-lived subprocess: one request line in, one answer line out, per case.

    ``command`` is an argv list or a shell-like string. A ``refused`` answer raises :class:`EngineRefusal`; an
    ``error`` answer, a process that exits, hangs past ``timeout`` seconds, answers a line that is not the
    protocol's, or writes on stderr while it works on a case (a program that answers and also complains has not
    given a clean answer) raises :class:`EngineFailure` (with the tail of its stderr) and is started again on the
    next case. :meth:`close` raises :class:`EngineFailure` when the program ends with a non-zero exit status or
    writes on stderr after its last answer.
    """

    def __init__(self, command: Sequence[str] | str, *, name: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 cwd: str | None = None, env: dict[str, str] | None = None) -> None:
        try:
            self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        except ValueError as exc:  # shlex: "No closing quotation", "No escaped character"
            raise ConformanceError(f"command: cannot split {command!r} into words: {exc}") from None
        if not self.argv:
            raise ConformanceError("command: give the engine's command line, e.g. command:'python my_engine.py'")
        if not 0 < timeout <= threading.TIMEOUT_MAX:  # also refuses NaN: a timeout that never fires is a hang
            raise ConformanceError(f"timeout: expected a positive number of seconds a wait can take "
                                   f"(at most {threading.TIMEOUT_MAX:g}), got {timeout!r}")
        self.name = name or f"command:{shlex.join(self.argv)}"
        self.timeout, self.cwd, self.env = timeout, cwd, env
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._stderr: Any = None
        self._stderr_seen = 0  # bytes of stderr already reported or accounted for
        self._count = 0

    @property
    def replay(self) -> str:
        """The command line that replays a request file: the engine reads it on stdin."""
        return shlex.join(self.argv)

    def _start(self) -> subprocess.Popen:
        self._stderr = tempfile.TemporaryFile(mode="w+b")  # bytes: offsets into it are exact
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                    text=True, bufsize=1, cwd=self.cwd, env=self.env)
        except OSError as exc:
            raise ConformanceError(f"cannot start the engine {shlex.join(self.argv)!r}: {exc}") from exc
        lines: queue.Queue = queue.Queue()

        def pump() -> None:  # a thread reads the answers, so a hung engine meets a timeout, not a blocked read
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        self._proc, self._lines, self._stderr_seen = proc, lines, 0
        return proc

    def _stderr_tail(self, since: int = 0) -> str:
        """The last lines of what the program wrote on stderr after byte ``since``."""
        if self._stderr is None:
            return ""
        self._stderr.seek(since)
        text = self._stderr.read().decode("utf-8", "replace")
        tail = [line.strip() for line in text.splitlines() if line.strip()][-3:]
        return " | ".join(tail)

    def _new_stderr(self) -> str:
        """What the program wrote on stderr since the last call (its last lines), and mark it seen."""
        if self._stderr is None:
            return ""
        size = os.fstat(self._stderr.fileno()).st_size
        if size == self._stderr_seen:
            return ""
        text, self._stderr_seen = self._stderr_tail(self._stderr_seen), size
        return text

    def _fail(self, why: str) -> EngineFailure:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
        status = proc.wait() if proc is not None else None
        tail = self._stderr_tail()
        self._proc = None
        detail = f"{why} (exit status {status})" if status is not None else why
        return EngineFailure(detail + (f"; stderr: {tail}" if tail else ""))

    def run(self, case: Case) -> list[ComplexEvent]:
        proc = self._proc if self._proc is not None and self._proc.poll() is None else self._start()
        self._count += 1
        request = case.request(self._count)
        try:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._fail("the engine exited before reading the case") from None
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            raise self._fail(f"no answer within {self.timeout:g} s") from None
        if line is None:
            raise self._fail("the engine exited without answering")
        try:
            answer = json.loads(line)
        except json.JSONDecodeError:
            raise EngineFailure(f"the answer is not JSON: {line.strip()[:120]!r}") from None
        if not isinstance(answer, dict):
            raise EngineFailure(f"the answer is not a JSON object: {line.strip()[:120]!r}")
        if type(answer.get("id")) is not int or answer["id"] != request["id"]:  # true and 1.0 equal 1
            raise self._fail(f"the answer has id {answer.get('id')!r}, expected {request['id']}")
        complaint = self._new_stderr()
        if "refused" in answer:
            raise EngineRefusal(f"the engine refused the query: {answer['refused']}"
                                + (f"; stderr: {complaint}" if complaint else ""))
        if "error" in answer:
            raise EngineFailure(f"the engine reported: {answer['error']}" + (f"; stderr: {complaint}" if complaint
                                                                             else ""))
        if complaint:
            raise EngineFailure(f"the engine wrote on stderr: {complaint}")
        if "complex_events" not in answer:
            raise EngineFailure(f"the answer has none of 'complex_events', 'refused', 'error': {line.strip()[:120]!r}")
        return parse_answer(answer["complex_events"], len(case.events))

    def close(self) -> None:
        """End the program (its stdin closed: the end of the cases); :class:`EngineFailure` if it then exits with
        a non-zero status or writes on stderr."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            assert proc.stdin is not None
            try:
                proc.stdin.close()
            except OSError:  # it has just exited: its status says how
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise EngineFailure("the engine did not exit within 5 s of the end of its input") from None
        complaint = self._new_stderr()
        if proc.returncode != 0 or complaint:
            raise EngineFailure(f"after the last case the engine exited with status {proc.returncode}"
                                + (f"; stderr: {complaint}" if complaint else ""))


def pycer_adapter(python: str | None = None, *, timeout: float = DEFAULT_TIMEOUT,
                  env: dict[str, str] | None = None) -> CommandAdapter:
    """CORE's engine through pycer, under ``python`` (default :data:`DEFAULT_PYCER_PYTHON`; ``env``: its
    environment), in a scratch working directory (pycer writes ``logs/`` there). Raises :class:`ConformanceError`
    when the interpreter is missing or cannot import pycer, or when it is the default venv's and that venv could
    have been written by another user (an interpreter given by path is the caller's own choice)."""
    python = python or DEFAULT_PYCER_PYTHON
    if not os.path.exists(python):
        raise ConformanceError(f"no interpreter at {python}: pycer needs CPython 3.13 with `pip install pycer`; "
                               f"give one with --pycer-python PATH")
    if python == DEFAULT_PYCER_PYTHON:
        refusal = untrusted_venv(PYCER_VENV)
        if refusal is not None:
            raise ConformanceError(refusal)
    scratch = tempfile.mkdtemp(prefix="cer_conformance_pycer_")
    probe = subprocess.run([python, "-c", "import pycer"], capture_output=True, text=True, cwd=scratch, timeout=60,
                           env=env)
    if probe.returncode != 0:
        tail = (probe.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise ConformanceError(f"{python} cannot import pycer: {tail}")
    return CommandAdapter([python, str(DRIVER)], name="pycer", timeout=timeout, cwd=scratch, env=env)


ENGINES = ("reference", "engine", "spark", "pycer", "flink-cep", "command:CMD")


def make_adapter(spec: str, *, pycer_python: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> Any:
    """The adapter an ``--engine`` value names (:data:`ENGINES`)."""
    if spec == "reference":
        return ReferenceAdapter()
    if spec == "engine":
        return EngineAdapter()
    if spec == "spark":
        return SparkAdapter()
    if spec == "pycer":
        return pycer_adapter(pycer_python, timeout=timeout)
    if spec == "flink-cep":  # (a missing extra or JDK: one line, from the driver)
        return FlinkCepAdapter(timeout=timeout)
    if spec.startswith("command:"):
        return CommandAdapter(spec[len("command:"):], timeout=timeout)
    raise ConformanceError(f"unknown engine {spec!r}; expected one of {', '.join(ENGINES)}")


__all__ = ["CommandAdapter", "DEFAULT_PYCER_PYTHON", "DEFAULT_TIMEOUT", "ENGINES", "EngineAdapter", "ReferenceAdapter",
           "SMALL_INPUT_CONF", "SparkAdapter", "engine_failure", "make_adapter", "pycer_adapter"]
