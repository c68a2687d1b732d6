"""The exercise checker: load an exercise (a TOML file, or a bundled one by name) and grade an answer to it.

:func:`check` dispatches on the exercise's kind to :mod:`cer_theory.exercises.grading`: a wrong answer gets the
shortest stream found on which it differs, with what each side outputs there; answers that do not parse, or use
event types or attributes outside the schema, get an explanation instead of a traceback. The file format is
described in :mod:`cer_theory.exercises.model`.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from cer_theory.core.budget import DEFAULT_WORK, active, work_budget
from cer_theory.core.errors import ExerciseError
from cer_theory.core.textfiles import read_text_file
from cer_theory.exercises.grading import GRADERS, check_reference
from cer_theory.exercises.model import DIFFICULTIES, Exercise, Feedback, read_exercise


def parse_exercise(text: str, *, name: str = "exercise") -> Exercise:
    """An :class:`Exercise` from TOML text, checked to be gradable; :class:`ExerciseError` naming the field for
    every problem."""
    exercise = read_exercise(text, name=name)
    check_reference(exercise)
    return exercise


def load_exercise(path: str | Path) -> Exercise:
    """The exercise in a TOML file, or a bundled one by name (``fire_01_later``…, see :func:`bundled_names`)."""
    p = Path(path)
    if not p.exists():
        if p.suffix in ("", ".toml") and p.parent == Path(".") and p.stem in bundled_names():
            return load_bundled(p.stem)
        raise ExerciseError(f"{path}: no such exercise file (bundled ones: {', '.join(bundled_names())})")
    return parse_exercise(read_text_file(p, "exercise files", ExerciseError), name=p.stem)


def load_bundled(name: str) -> Exercise:
    """The bundled exercise ``name`` (one of :func:`bundled_names`), never a file of the working folder."""
    if name not in bundled_names():
        raise ExerciseError(f"{name}: no such bundled exercise (bundled ones: {', '.join(bundled_names())})")
    bundled = resources.files("cer_theory").joinpath(f"exercises/data/{name}.toml")
    return parse_exercise(bundled.read_text(encoding="utf-8"), name=name)


def bundled_names() -> list[str]:
    folder = resources.files("cer_theory").joinpath("exercises/data")
    return sorted(f.name[:-5] for f in folder.iterdir() if f.name.endswith(".toml"))


def bundled_exercises() -> list[Exercise]:
    """The exercises shipped with the toolkit, by paper (the CEL paper first), then easiest first."""
    return sorted((load_exercise(n) for n in bundled_names()),
                  key=lambda e: (e.formalism.paper.seed, e.difficulty, e.name))


def check(exercise: Exercise, answer: str | Any, *, budget: int | None = DEFAULT_WORK) -> Feedback:
    """Grade a student's ``answer`` to ``exercise`` (a formula, automaton JSON, JSON list of outputs, or yes/no
    as the exercise's kind asks), doing at most ``budget`` units of work (core.budget; None: no bound) or
    raising :class:`~cer_theory.core.errors.SizeBudgetExceeded`. Inside a ``with work_budget(...)`` block (a
    command's ``--budget``), that block's budget binds instead."""
    if active() is not None:
        return GRADERS[exercise.kind](exercise, answer)
    with work_budget(budget):
        return GRADERS[exercise.kind](exercise, answer)


def check_file(exercise: str | Path, answer: str) -> Feedback:
    """:func:`check` with the exercise loaded from a file or a bundled name (for notebooks)."""
    return check(load_exercise(exercise), answer)


__all__ = ["Exercise", "Feedback", "parse_exercise", "load_bundled", "load_exercise", "bundled_names", "bundled_exercises", "check",
           "check_file", "DIFFICULTIES"]
