"""What a course's exercise is for one student, and what a student may see of it.

A bundled exercise is the same for everyone; a generated one (:func:`cer_theory.exercises.generate.generate`) is
drawn for each student from a seed derived from (course, student, exercise), so two students get different
instances and the teacher, or a restarted server, rebuilds the same one. Nothing here reads a path: a bundled
exercise is named, and only names of the bundled set are accepted.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from cer_theory.core.errors import ExerciseError
from cer_theory.exercises.checker import bundled_names, load_exercise
from cer_theory.exercises.generate import LOGICS, generate
from cer_theory.exercises.model import DIFFICULTIES, Exercise, events_json

HAND_IN = {"formula": "a formula (or a CEQL query)", "automaton": "an automaton as JSON (docs: automaton files)",
           "predict": "a JSON list of outputs", "construction": "an automaton as JSON, or yes / no"}


@dataclass(frozen=True)
class Spec:
    """How to build an exercise: ``bundled`` names one of the bundled set; otherwise ``kind``, ``difficulty`` and
    ``logic`` of a generated one, with ``seed`` the student's."""

    bundled: str | None = None
    kind: str | None = None
    difficulty: int | None = None
    logic: str | None = None
    seed: int | None = None

    def build(self) -> Exercise:
        if self.bundled is not None:
            if self.bundled not in bundled_names():  # a name, never a path
                raise ExerciseError(f"no bundled exercise named {self.bundled!r}")
            return load_exercise(self.bundled)
        assert self.kind is not None and self.difficulty is not None and self.seed is not None
        return generate(self.kind, self.difficulty, self.seed, self.logic or "cel")


def student_seed(course_id: int, user_id: int, exercise_id: int) -> int:
    """The seed of a student's instance: reproducible from (course, student, exercise), different across them."""
    digest = hashlib.sha256(f"cer-theory-course/{course_id}/{user_id}/{exercise_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 1_000_000


def spec_of(course_exercise: Any, course_id: int, user_id: int) -> Spec:
    """The :class:`Spec` of a course's exercise for one student (a ``db.CourseExercise``)."""
    if course_exercise.bundled:
        return Spec(bundled=course_exercise.bundled)
    return Spec(kind=course_exercise.kind, difficulty=course_exercise.difficulty, logic=course_exercise.logic,
                seed=student_seed(course_id, user_id, course_exercise.id))


def check_generated(kind: str, difficulty: int, logic: str) -> None:
    """Refuse a generated exercise the generator cannot make, before it is added to a course."""
    if logic not in LOGICS or kind not in LOGICS[logic] or difficulty not in DIFFICULTIES:
        offered = "; ".join(f"{logic}: {', '.join(kinds)}" for logic, kinds in LOGICS.items())
        raise ExerciseError(f"exercises are generated for {offered}, at difficulty 1, 2 or 3")


def statement(exercise: Exercise, *, solutions: bool) -> dict[str, Any]:
    """What a student sees of ``exercise``: title, text, schema, the stream or automaton it is about and what to
    hand in; the worked solution only when the teacher has published it. Never the reference or the mistakes."""
    shown: dict[str, Any] = {
        "title": exercise.title, "text": exercise.text.strip(), "difficulty": DIFFICULTIES[exercise.difficulty],
        "logic": exercise.logic, "kind": exercise.kind,
        "schema": [(rel, ", ".join(attrs)) for rel, attrs in exercise.schema.items()],
        "hand_in": HAND_IN[exercise.kind], "stream": None, "position": exercise.position,
        "automaton": exercise.automaton or None, "solution": None, "answer": None}
    if exercise.stream is not None:
        shown["stream"] = events_json(exercise.stream)
    if solutions:
        shown["solution"], shown["answer"] = exercise.solution, exercise.answer
    return shown


def secrets_of(exercise: Exercise) -> list[str]:
    """The texts a student must not see before the solutions are published: the reference, the worked answer and
    the listed mistakes (the tests look for each in every page a student can reach)."""
    return [t for t in (exercise.reference_text, exercise.answer, *exercise.mistakes) if t and len(t) > 3]


__all__ = ["HAND_IN", "Spec", "check_generated", "secrets_of", "spec_of", "statement", "student_seed"]
