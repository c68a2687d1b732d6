"""Exercises for a course in complex event recognition, over the five papers' formalisms: exercise files, a
grader that answers "correct" (or "no difference found up to length n" where equivalence is not decided) or
shows the shortest stream found on which an answer differs, seeded fresh instances, problem sheets and the
grading of a class's folder of answers."""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "Exercise": "model",
    "Feedback": "model",
    "check": "checker",
    "check_file": "checker",
    "load_exercise": "checker",
    "parse_exercise": "checker",
    "bundled_exercises": "checker",
    "bundled_names": "checker",
    "generate": "generate",
    "exercise_named": "teacher",
    "grade_folder": "teacher",
    "sheet_markdown": "teacher",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
