"""The "your turn" cells of the notebooks: :func:`check` grades an answer in place and shows the grader's
:class:`~cer_theory.exercises.model.Feedback` as a table (an HTML table through ``_repr_html_``, no pandas) and,
when the answer is wrong, the run of the student's automaton stepped over the distinguishing stream (the stepper of
:mod:`cer_theory.stepper`), so that the student sees where the run goes wrong.

The grading itself is :func:`cer_theory.exercises.checker.check`; nothing here decides anything.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Any

from cer_theory.core.errors import CerError
from cer_theory.core.events import Stream
from cer_theory.exercises import checker
from cer_theory.exercises.grading import answer_automaton, level_of
from cer_theory.exercises.model import DIFFICULTIES, Exercise, Feedback, events_json
from cer_theory.stepper import Run
from cer_theory.stepper.models import step


def exercise(name: str | Exercise) -> Exercise:
    """A bundled exercise by name (``fire_03_hot``…) or an exercise already loaded."""
    return name if isinstance(name, Exercise) else checker.load_exercise(name)


def stepped_run(ex: Exercise, answer: Any, stream: Stream, title: str) -> Run | None:
    """The run to step over the distinguishing stream: of the student's own formula (its compiled automaton, by
    the ``step`` construction of the exercise's formalism: an SRT for SREMO, registers and all; an ACEA over the
    stream's schema for ACEL), of the student's own automaton for an automaton exercise (the reference's would
    draw a right answer), else of the reference (whose formula the statement gives); None when the formalism has
    no stepper."""
    if ex.kind == "automaton":
        return step(answer_automaton(ex, answer) if isinstance(answer, str) else answer, stream, title=title)
    record = ex.formalism
    if not record.supports("step"):
        return None
    formula = (record.parse(answer) if isinstance(answer, str) else answer) if ex.kind == "formula" else ex.reference
    return record.construction("step")(formula, stream, title=title)


def _outputs(ex: Exercise, outs: frozenset) -> str:
    level = level_of(ex)
    try:
        shown = sorted(json.dumps(level.to_json(o), sort_keys=True) for o in outs)
    except (TypeError, AttributeError, CerError):
        shown = sorted(map(str, outs))
    return ", ".join(shown) or "nothing"


@dataclass(frozen=True, repr=False)
class Graded:
    """An answer graded in a notebook: the exercise, the answer, the grader's feedback and, for a wrong answer
    with a distinguishing stream, the stepped run over it (None when there is nothing to step).

    Every way a notebook shows it (``repr``, ``str``, the HTML table) shows what the student may see: never the
    reference, the known mistakes or the solution, which a teacher reads as ``graded.exercise.reference``,
    ``.mistakes`` and ``.solution``."""

    exercise: Exercise
    answer: Any
    feedback: Feedback
    run: Run | None = None

    @property
    def accepted(self) -> bool:
        return self.feedback.accepted

    def rows(self) -> list[tuple[str, str]]:
        """The table as (field, value) rows: what the student sees, in this order."""
        fb, ex = self.feedback, self.exercise
        rows = [("exercise", f"{ex.title} ({DIFFICULTIES[ex.difficulty]}; {ex.paper}, {ex.kind})"),
                ("your answer", str(self.answer)), ("verdict", fb.status)]
        stream = fb.stream
        if not fb.accepted and stream is not None:
            rows += [(f"event {k}", line) for k, line in enumerate(events_json(stream))]
            if fb.position is not None:
                rows.append(("position", str(fb.position)))
            if fb.answer_outputs or fb.expected_outputs:
                rows += [("your answer outputs", _outputs(ex, fb.answer_outputs)),
                         ("expected", _outputs(ex, fb.expected_outputs))]
        rows.append(("feedback", fb.message))
        return rows

    def _repr_html_(self) -> str:
        colour = "#2e7d32" if self.accepted else "#c62828"
        body = "".join(f"<tr><th style='text-align:left;vertical-align:top'>{html.escape(k)}</th>"
                       f"<td style='text-align:left;white-space:pre-wrap;font-family:monospace'>{html.escape(v)}</td>"
                       f"</tr>" for k, v in self.rows())
        table = (f"<table class='cer-feedback' style='border-left:4px solid {colour}'>"
                 f"<tbody>{body}</tbody></table>")
        if self.run is None:
            return table
        whose = "your answer" if self.exercise.kind in ("formula", "automaton") else "the expected answer"
        return table + f"<p>The run of {whose} over that stream, step by step:</p>" + self.run._repr_html_()

    def __str__(self) -> str:
        return "\n".join(f"{k}: {v}" for k, v in self.rows())

    def __repr__(self) -> str:
        return f"Graded({self.exercise.name}: {self.feedback.status}, answer {str(self.answer)!r})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))


def check(name: str | Exercise, answer: Any) -> Graded:
    """Grade ``answer`` to the exercise ``name`` (bundled name or :class:`Exercise`); a wrong answer comes with
    its run stepped over the distinguishing stream, when the stepper can draw it."""
    ex = exercise(name)
    fb = checker.check(ex, answer)
    run = None
    if not fb.accepted and fb.stream is not None:
        try:
            title = (f"your answer: {answer}" if ex.kind == "formula" else "your automaton" if ex.kind == "automaton"
                     else f"the expected answer: {ex.reference_text}")
            run = stepped_run(ex, answer, fb.stream, title)
        except (CerError, TypeError):
            run = None  # the table alone still shows the stream and both outputs
    return Graded(ex, answer, fb, run)


__all__ = ["Graded", "check", "exercise", "stepped_run"]
