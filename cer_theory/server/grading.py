"""Grading in worker processes: one hostile answer cannot stall the server.

Each worker thread of :class:`GradingPool` owns one child process and hands it one submission at a time. The
child grades under the toolkit's work budget (:mod:`cer_theory.core.budget`: one bound on every construction and
semantics the grader runs) and an address-space limit; the thread waits at most ``seconds`` for the answer and
otherwise kills the child and starts another. A submission is claimed in the database before it is graded and its
result written in the same row, so every submission is graded exactly once, and one a stopped server left is
graded when it comes back (:func:`cer_theory.server.db.unfinished`).

What the child sends back is plain data for the page: the verdict, the grader's message, the separating stream
as rows, what each side outputs there, and the stepped run of the answer over that stream as one HTML page.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import resource
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from cer_theory.core.budget import DEFAULT_WORK, work_budget
from cer_theory.core.drawing.render import render_svg
from cer_theory.core.errors import CerError, SizeBudgetExceeded
from cer_theory.exercises import checker, notebook
from cer_theory.exercises.grading import level_of
from cer_theory.formalisms.acel.acea_json import loads_acea
from cer_theory.formalisms.socel.automaton_json import loads_automaton
from cer_theory.server import db
from cer_theory.server.instances import Spec, spec_of

LOG = logging.getLogger("cer_theory.server.grading")

MEMORY = 6 << 30
"""The address space a grading child may take (bytes): past it an allocation fails in that child alone."""


def grade(spec: Spec, answer: str, budget: int) -> dict[str, Any]:
    """Grade ``answer`` to the exercise of ``spec`` within ``budget`` units of work: the feedback a student sees
    (status ``graded``), or why there is none (status ``failed``)."""
    exercise = spec.build()
    try:
        with work_budget(budget):
            feedback = checker.check(exercise, answer)
            level = level_of(exercise)
            shown = {"verdict": feedback.status, "accepted": feedback.accepted, "message": feedback.message,
                     "stream": None, "position": feedback.position, "answer_outputs": [], "expected_outputs": []}
            stream = feedback.stream
            stepper = None
            if not feedback.accepted and stream is not None:
                shown["stream"] = [e.to_dict() for e in stream]
                shown["answer_outputs"] = _outputs(level, feedback.answer_outputs)
                shown["expected_outputs"] = _outputs(level, feedback.expected_outputs)
                title = {"formula": "your answer", "automaton": "your automaton"}.get(exercise.kind,
                                                                                       "the expected automaton")
                try:
                    run = notebook.stepped_run(exercise, answer, stream, title)
                    stepper = None if run is None else run.to_html()
                except (CerError, TypeError, ValueError):
                    stepper = None  # the table alone still shows the stream and both outputs
    except SizeBudgetExceeded:
        return {"status": "failed", "verdict": "past the budget", "accepted": False,
                "message": f"Grading your answer needs more than the {budget:,} units of work each answer may use. "
                           f"Simplify it (fewer nested operators or states) and submit again."}
    return {"status": "graded", **shown, "stepper": stepper}


def _outputs(level: Any, outputs: frozenset) -> list[str]:
    try:
        return sorted(json.dumps(level.to_json(o), sort_keys=True) for o in outputs)
    except (TypeError, AttributeError, CerError):
        return sorted(map(str, outputs))


MAX_DRAWN = 30
"""The most states (and three times as many transitions) a live drawing lays out: a course automaton has a
handful. Graphviz's layout time grows fast with the edges: 60 states with 180 transitions took 26 s on the test
machine, 30 states with 90 under one."""


def draw(text: str, kind: str) -> dict[str, Any]:
    """The drawing of an automaton answer as SVG (``{"svg": …}``), or why there is none (``{"error": …}``)."""
    try:
        automaton = loads_acea(text, source="your automaton") if kind == "acea" else \
            loads_automaton(text, source="your automaton")
    except ValueError as e:  # json's own errors, AutomatonError
        return {"error": str(e)}
    except CerError as e:
        return {"error": str(e)}
    if len(automaton.states) > MAX_DRAWN or len(automaton.transitions) > 3 * MAX_DRAWN:
        return {"error": f"too large to draw here (at most {MAX_DRAWN} states and {3 * MAX_DRAWN} transitions)"}
    try:
        return {"svg": render_svg(automaton.to_dot(title="your automaton"))}
    except CerError as e:
        return {"error": str(e)}


def _answer(task: dict[str, Any]) -> dict[str, Any]:
    """One task of a grading child: the feedback (or why there is none), or a drawing."""
    if "draw" in task:
        return draw(task["draw"], task.get("kind", "cea"))
    try:
        return grade(Spec(**task["spec"]), task["answer"], task["budget"])
    except MemoryError:
        return {"status": "failed", "verdict": "past the memory limit", "accepted": False,
                "message": "Grading your answer needs more memory than each answer may use."}
    except Exception as e:  # noqa: BLE001 - a grader bug is that submission's failure, never the server's
        return {"status": "failed", "verdict": "grader error", "accepted": False,
                "message": f"The grader could not grade this answer ({type(e).__name__}); your teacher can see it."}


WARM_UP = {"spec": {"bundled": "fire_01_later"}, "answer": "H ; T", "budget": DEFAULT_WORK}
"""A wrong answer a new grading process grades before it says it is ready: the imports, the stepper and the
drawing engine's first use take seconds, which would otherwise count against the first answer it is given."""
READY = {"ready": True}
"""What a grading process sends once it is ready for tasks."""
STARTING = 300.0
"""The longest a grading process may take to become ready (seconds; a few on an idle machine)."""


def child(memory: int) -> None:
    """A grading process (``python -m cer_theory.server.grading MEMORY``): one JSON task a line on stdin, one
    JSON answer a line on its stdout; whatever the grader prints goes to stderr. JSON both ways: the server
    unpickles nothing a child sends."""
    try:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (ValueError, OSError):  # pragma: no cover - a platform without the limit
        pass
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # the protocol has the old stdout to itself
    sys.stdout = sys.stderr
    _answer(WARM_UP)  # load what grading and drawing load on first use, before the first answer's clock starts
    out.write(json.dumps(READY) + "\n")
    out.flush()
    for line in sys.stdin:
        out.write(json.dumps(_answer(json.loads(line)), ensure_ascii=False) + "\n")
        out.flush()


class _Worker:
    """One child process, started on first use and replaced after a timeout or a crash."""

    def __init__(self, memory: int) -> None:
        self._memory = memory
        self._process: subprocess.Popen[bytes] | None = None
        self._buffer = b""

    def run(self, task: dict[str, Any], seconds: float) -> dict[str, Any] | None:
        """The child's answer, or None when it took longer than ``seconds`` or died (it is then replaced)."""
        if self._process is None or self._process.poll() is not None:
            self.start()
        if self._process is None or self._process.stdin is None:
            return None  # no grading process could be started
        try:
            self._process.stdin.write(json.dumps(task).encode() + b"\n")
            self._process.stdin.flush()
            line = self._line(time.monotonic() + seconds)
            if line is not None:
                return json.loads(line)
        except (OSError, ValueError):
            pass
        self.stop()
        return None

    def _line(self, deadline: float) -> bytes | None:
        assert self._process is not None and self._process.stdout is not None
        fd = self._process.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None  # the child died
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def start(self) -> None:
        """A new child, returned once it is ready (:data:`READY`), so that its start is not charged to the time
        of the answer it is then given; one that does not become ready within :data:`STARTING` is stopped."""
        self._buffer = b""
        self._process = subprocess.Popen([sys.executable, "-m", "cer_theory.server.grading", str(self._memory)],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        line = self._line(time.monotonic() + STARTING)
        if line is None or json.loads(line) != READY:
            self.stop()

    def stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait(5)
            for stream in (self._process.stdin, self._process.stdout):
                if stream is not None:
                    stream.close()
        self._process = None


class Drawer:
    """Live drawings of automaton answers, one at a time in a child process of their own, each within ``seconds``."""

    def __init__(self, *, seconds: float = 10.0, memory: int = MEMORY) -> None:
        self.seconds = seconds
        self._worker = _Worker(memory)
        self._lock = threading.Lock()

    def draw(self, text: str, kind: str) -> dict[str, Any]:
        """The drawing, or why there is none; gives up when another drawing holds the child for ``seconds``, so
        that waiting drawings cannot take every thread of the server (the page asks again as the student types)."""
        if not self._lock.acquire(timeout=self.seconds):
            return {"error": "the drawing service is busy: the drawing comes when you next stop typing"}
        try:
            result = self._worker.run({"draw": text, "kind": kind}, self.seconds)
        finally:
            self._lock.release()
        return result if result is not None else {"error": "the drawing took too long"}

    def stop(self) -> None:
        with self._lock:
            self._worker.stop()


class GradingPool:
    """``workers`` graders, each a thread with its own child process, fed from one queue of submission ids."""

    def __init__(self, factory: sessionmaker[Session], *, workers: int = 2, budget: int = DEFAULT_WORK,
                 seconds: float = 30.0, memory: int = MEMORY,
                 on_graded: Callable[[int], None] | None = None) -> None:
        self.factory, self.budget, self.seconds, self.memory = factory, budget, seconds, memory
        self._queue: queue.Queue[int | None] = queue.Queue()
        self._threads = [threading.Thread(target=self._serve, name=f"grader-{k}", daemon=True)
                         for k in range(workers)]
        self._on_graded = on_graded

    def start(self) -> None:
        """Start the graders, first queueing what a stopped server left ungraded."""
        with db.transaction(self.factory) as session:
            for submission_id in db.unfinished(session):
                self._queue.put(submission_id)
        for thread in self._threads:
            thread.start()

    def submit(self, submission_id: int) -> None:
        """Grade a submission already written to the database (status ``pending``)."""
        self._queue.put(submission_id)

    def stop(self) -> None:
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            thread.join(self.seconds + 10)

    def waiting(self) -> int:
        return self._queue.qsize()

    def _serve(self) -> None:
        worker = _Worker(self.memory)
        worker.start()  # before the first answer arrives: a child takes a second or two to import the grader
        try:
            while (submission_id := self._queue.get()) is not None:
                try:
                    self._grade(worker, submission_id)
                except Exception:  # noqa: BLE001 - the database failed us: this submission waits for the next start
                    LOG.exception("submission %d left ungraded until the server starts again", submission_id)
        finally:
            worker.stop()

    def _grade(self, worker: _Worker, submission_id: int) -> None:
        with db.transaction(self.factory) as session:
            if not db.claim(session, submission_id):
                return  # graded already, or held by another grader
            submission = session.get(db.Submission, submission_id)
            assert submission is not None
            exercise = session.get(db.CourseExercise, submission.exercise_id)
            assert exercise is not None
            task = {"spec": asdict(spec_of(exercise, exercise.course_id, submission.user_id)),
                    "answer": submission.answer, "budget": self.budget}
        started = time.monotonic()
        result = worker.run(task, self.seconds)
        if result is None:
            result = {"status": "failed", "verdict": "past the time limit", "accepted": False,
                      "message": f"Grading your answer took longer than the {self.seconds:g} s each answer may use "
                                 f"(or crashed the grader). Simplify it and submit again."}
        stepper = result.pop("stepper", None)
        status = result.pop("status")
        with db.transaction(self.factory) as session:  # written once: only over the claim this grader holds
            session.execute(update(db.Submission).where(db.Submission.id == submission_id,
                                                         db.Submission.status == "grading").values(
                status=status, verdict=result["verdict"], accepted=bool(result["accepted"]),
                feedback=json.dumps(result, ensure_ascii=False), stepper=stepper, graded=db.now(),
                seconds=time.monotonic() - started))
        if self._on_graded is not None:
            self._on_graded(submission_id)


__all__ = ["Drawer", "GradingPool", "MAX_DRAWN", "MEMORY", "child", "draw", "grade"]


if __name__ == "__main__":
    child(int(sys.argv[1]))
