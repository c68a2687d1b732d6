"""For the teacher: problem sheets (Markdown or HTML) and the grading of a whole class's answers into one CSV.

A class's answers are a folder with one sub-folder per student and, in it, one file per exercise named after the
exercise (``fire_01_later.txt``, ``ceql_03_window.json``, ``gen_formula_2_17.txt``…): a bundled name, or the
name of a generated instance, ``gen_<kind>_<difficulty>_<seed>``, which :func:`exercise_named` rebuilds from the
seed. The folder is hostile input (:mod:`cer_theory.exercises.classfolder`: no link followed, a size cap, names
only displayed) and an answer's name is only a key (:func:`answer_exercise`). :func:`grade_folder` gives one row
per answer file: student, exercise, status, grade (1 when the answer is accepted), and the feedback the student
would see; each answer is graded within its own work budget and time limit, and one that runs past them or makes
the grader fail is marked (:data:`NOT_GRADED`) while the class goes on. :func:`grades_csv` writes the rows so that
no cell is a spreadsheet formula.
"""

from __future__ import annotations

import os
import re
import signal
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from cer_theory.automata import files
from cer_theory.core.budget import DEFAULT_WORK, work_budget
from cer_theory.core.errors import CerError, ExerciseError, SizeBudgetExceeded
from cer_theory.core.signals import stopping_cause
from cer_theory.core.spreadsheet import spreadsheet_csv
from cer_theory.core.textfiles import decode_text
from cer_theory.exercises.checker import bundled_names, check, load_bundled, load_exercise
from cer_theory.exercises.classfolder import MAX_ANSWER_BYTES, TIME_LIMIT, class_answers
from cer_theory.core.pages import html_text
from cer_theory.exercises.generate import LOGICS, generate
from cer_theory.exercises.grading import construction_input
from cer_theory.exercises.model import DIFFICULTIES, Exercise, events_json

FILE_FORMAT = ("an automaton file (JSON, docs/automaton-files.md; start from `cer-theory draw --logic LOGIC FORMULA -o "
               "a.json`)")
"""What an automaton answer is, as the sheet says it: the format's page, and how to start from a compiled automaton."""

GENERATED = re.compile(r"gen_(?:(?P<logic>[a-z]+)_)?(?P<kind>formula|automaton|predict|construction)_"
                       r"(?P<difficulty>[123])_(?P<seed>\d+)")
COLUMNS = ("student", "exercise", "status", "grade", "feedback")
LANGUAGE = {"cel": "CEL", "ceql": "CEQL", "socel": "SO-CEL", "focel": "FO-CEL", "acel": "ACEL", "sremo": "SREMO"}


def _generated(name: str) -> Exercise | None:
    """The generated instance ``gen_[<logic>_]<kind>_<difficulty>_<seed>`` (CEL when no logic is named), or
    None when ``name`` is not one."""
    m = GENERATED.fullmatch(name)
    if m and m["kind"] in LOGICS.get(m["logic"] or "cel", ()):
        return generate(m["kind"], int(m["difficulty"]), int(m["seed"]), m["logic"] or "cel")
    return None


def exercise_named(name: str) -> Exercise:
    """A bundled exercise, an exercise file, or the generated instance ``gen_[<logic>_]<kind>_<difficulty>_<seed>``
    (CEL when no logic is named): what the teacher names on the command line. An answer file's name is not read
    this way but by :func:`answer_exercise`."""
    return _generated(name) or load_exercise(name)


def seed_sheet(seed: int, logic: str = "cel") -> list[Exercise]:
    """The instances of ``seed`` in ``logic``: one per kind and difficulty."""
    if logic not in LOGICS:
        raise ExerciseError(f"--logic {logic}: instances are generated for {', '.join(LOGICS)}")
    return [generate(kind, d, seed, logic) for kind in LOGICS[logic] for d in DIFFICULTIES]


def _what_to_hand_in(e: Exercise) -> str:
    return {"formula": "a CEQL query" if e.logic == "ceql" else f"a {LANGUAGE[e.logic]} formula", "automaton": FILE_FORMAT,
            "predict": "a JSON list of outputs",
            "construction": "yes or no" if e.construction == "star_property" else FILE_FORMAT}[e.kind]


def sheet_markdown(exercises: Iterable[Exercise], title: str = "Complex event recognition: exercises",
                   solutions: bool = False) -> str:
    """A problem sheet: per exercise its statement, the schema, the stream or automaton it is about, what to hand
    in and the file name to hand it in under; with ``solutions``, the worked solution after each."""
    out = [f"# {title}", ""]
    for k, e in enumerate(exercises, 1):
        out += [f"## {k}. {e.title}", "",
                f"*{e.paper}; {e.kind}; {DIFFICULTIES[e.difficulty]}.* Hand in {_what_to_hand_in(e)} as "
                f"`{e.name}.txt`.", "", e.text.strip(), "",
                "Events: " + ", ".join(f"`{t}({', '.join(a)})`" for t, a in e.schema.items()), ""]
        if e.kind == "predict" and e.stream is not None:
            out += ["Stream:", "", "```"] + [f"{n}: {line}" for n, line in enumerate(events_json(e.stream))]
            out += ["```", ""]
        if e.kind == "construction":
            # one field and one transition per line, the numbers cer-theory draw shows (docs/automaton-files.md)
            automaton = files.dumps(construction_input(e), name=e.reference_text).rstrip("\n")
            out += ["The automaton (its drawing: `cer-theory draw @automaton.json`):", "", "```json", automaton,
                    "```", ""]
        if solutions:
            out += [f"**Solution.** {e.solution.strip()}", "", "```", e.answer, "```", ""]
    return "\n".join(out)


def sheet_html(exercises: Iterable[Exercise], title: str = "Complex event recognition: exercises",
               solutions: bool = False) -> str:
    """The Markdown sheet as a self-contained HTML page (paragraphs, headings and code blocks; no scripts)."""
    body, code = [], False
    for line in sheet_markdown(exercises, title, solutions).split("\n"):
        if line.startswith("```"):
            body.append("</pre>" if code else "<pre>")
            code = not code
        elif code:
            body.append(html_text(line))
        elif line.startswith("## "):
            body.append(f"<h2>{html_text(line[3:])}</h2>")
        elif line.startswith("# "):
            body.append(f"<h1>{html_text(line[2:])}</h1>")
        elif line:
            text = re.sub(r"`([^`]*)`", r"<code>\1</code>", html_text(line))
            body.append("<p>" + re.sub(r"\*\*?([^*]+)\*\*?", r"<em>\1</em>", text) + "</p>")
    style = ("body{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.4}"
             "pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap;word-break:break-all}")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html_text(title)}</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


NOT_GRADED = ("refused", "over budget", "timed out", "grader error")
"""The statuses of an answer the grader could not grade (grade 0, and ``grade-answers`` exits 1): the file was
not read (a link, too large, not a regular file), or its grading ran past the work budget or the time limit, or
failed. Every other status is a grade: ``unknown exercise``, ``unreadable`` (binary, not UTF-8), ``empty`` and
``no answers`` are the student's, as are the grader's own statuses (:data:`cer_theory.exercises.model.Status`)."""

def answer_exercise(file_name: str) -> Exercise:
    """The exercise an answer file is for, by a pure rule on its name, never by opening it as a path: the name up
    to its first dot, which must be a bundled exercise's name or a generated instance's
    (``gen_[<logic>_]<kind>_<difficulty>_<seed>``). So ``exam.toml.txt`` is an answer to the exercise ``exam``,
    which does not exist, whatever the working folder holds (docs/decisions.md D341)."""
    key = file_name.partition(".")[0]
    generated = _generated(key)
    if generated is not None:
        return generated
    if key in bundled_names():
        return load_bundled(key)
    raise ExerciseError(f"no exercise is named {key!r}: an answer file is named after its exercise, e.g. "
                        f"fire_01_later.txt or gen_formula_2_17.txt")


class _OutOfTime(BaseException):
    """An answer's time limit ran out. A BaseException, so that no grader's ``except`` takes it for something
    wrong with the answer."""


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`_OutOfTime` in the block after ``seconds`` of wall-clock time (a timer signal). Python runs
    signal handlers in the main thread only: elsewhere, and where there is no timer signal, the block is not
    limited (the work budget still binds it)."""
    if seconds is None or not hasattr(signal, "setitimer") or threading.current_thread() is not \
            threading.main_thread():
        yield
        return

    rang = False

    def ring(signum: int, frame: object) -> None:
        nonlocal rang
        rang = True
        raise _OutOfTime

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    if rang:  # the handler ran where Python ignores exceptions (a __del__, a garbage collector's callback): the limit
        raise _OutOfTime  # binds all the same (D444)


@contextmanager
def _limits(budget: int | None, seconds: float | None) -> Iterator[None]:
    with time_limit(seconds), work_budget(budget):
        yield


def _not_graded(e: BaseException, seconds: float | None) -> tuple[str, str]:
    """The status (one of :data:`NOT_GRADED`) and feedback of an answer whose grading ended in ``e``."""
    if isinstance(e, _OutOfTime):
        return "timed out", (f"Not graded: grading this answer took longer than {seconds:g} s (--time-limit); "
                             f"the teacher may give it more time.")
    if isinstance(e, SizeBudgetExceeded):
        return "over budget", (f"Not graded: {e.for_command_line()}. The answer needs more work to check than the "
                               f"grader may do; the teacher may give a larger --budget.")
    if isinstance(e, CerError):
        return "grader error", f"Not graded: the grader cannot check this answer: {e}"
    return "grader error", f"Not graded: the grader failed on this answer ({type(e).__name__}: {e}); please report it"


def grade_answer(exercise: Exercise, text: str, *, budget: int | None = DEFAULT_WORK,
                 seconds: float | None = TIME_LIMIT) -> tuple[str, str, str]:
    """``(status, grade, feedback)`` for one answer, within its own work budget and time limit: running past
    either, or the grader failing, is a status of :data:`NOT_GRADED` for this answer, never the end of the
    class's grading."""
    try:
        with _limits(budget, seconds):
            feedback = check(exercise, text)
    except (_OutOfTime, Exception) as e:  # noqa: BLE001 - one answer's crash is that answer's, not the class's
        if stopping_cause(e) is not None:  # (Ctrl-C handed on wrapped: the teacher stopped the grading)
            raise
        status, message = _not_graded(e, seconds)
        return status, "0", message
    return feedback.status, str(int(feedback.accepted)), feedback.message


def grade_folder(folder: str | Path, *, budget: int | None = DEFAULT_WORK, max_bytes: int = MAX_ANSWER_BYTES,
                 seconds: float | None = TIME_LIMIT) -> list[dict[str, str]]:
    """One row per answer file of every student sub-folder, sorted by student and file, read as hostile input
    (:mod:`cer_theory.exercises.classfolder`); each answer graded within its own ``budget`` and ``seconds``
    (the making of a generated instance its name asks for too). A student folder without answers, or one that is
    refused, is one row with no exercise. Rows whose status is in :data:`NOT_GRADED` were not graded."""
    exercises: dict[str, Exercise | tuple[str, str]] = {}
    rows = []
    for sub in class_answers(str(folder), max_bytes):
        key = sub.file.partition(".")[0]
        source = os.path.join(str(folder), sub.student, sub.file)
        if sub.refused is not None:
            status, grade, feedback = "refused", "0", f"Not graded: {sub.refused}."
        elif sub.data is None:
            status, grade, feedback = "no answers", "0", "No answer files in this student's folder."
        else:
            if key not in exercises:
                exercises[key] = _exercise_for(sub.file, source, budget, seconds)
            status, grade, feedback = _graded(exercises[key], sub.data, source, budget, seconds)
        rows.append({"student": sub.student, "exercise": key, "status": status, "grade": grade,
                     "feedback": feedback})
    return rows


def _exercise_for(file: str, source: str, budget: int | None, seconds: float | None) -> Exercise | tuple[str, str]:
    """The exercise the answer file ``file`` is for, or the status and feedback saying why there is none."""
    try:
        with _limits(budget, seconds):
            return answer_exercise(file)
    except ExerciseError as e:
        return "unknown exercise", f"{source}: {e}"
    except (_OutOfTime, Exception) as e:  # noqa: BLE001 - a generated instance that cannot be made
        if stopping_cause(e) is not None:  # (Ctrl-C handed on wrapped: the teacher stopped the grading)
            raise
        return _not_graded(e, seconds)


def _graded(exercise: Exercise | tuple[str, str], data: bytes, source: str, budget: int | None,
            seconds: float | None) -> tuple[str, str, str]:
    if isinstance(exercise, tuple):
        return exercise[0], "0", exercise[1]
    try:
        text = decode_text(data, source, "answer files", ExerciseError)
    except CerError as e:
        return "unreadable", "0", str(e)
    if not text.strip():
        return "empty", "0", f"{source}: the file is empty: nothing was handed in for this exercise."
    return grade_answer(exercise, text.strip(), budget=budget, seconds=seconds)


def grades_csv(rows: Iterable[dict[str, str]]) -> str:
    """The grades as CSV (RFC 4180), every cell safe to open in a spreadsheet (:mod:`cer_theory.core.spreadsheet`:
    a name like ``=HYPERLINK(…)`` is text, not a formula)."""
    return spreadsheet_csv(COLUMNS, rows)


__all__ = ["COLUMNS", "NOT_GRADED", "answer_exercise", "exercise_named", "grade_answer", "grade_folder",
           "grades_csv", "seed_sheet", "sheet_html", "sheet_markdown", "time_limit"]
