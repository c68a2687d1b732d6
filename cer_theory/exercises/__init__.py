"""Exercises for teaching CEL (seed 000): exercise files and a checker that answers "correct" or shows the
shortest stream on which a student's formula differs from the reference (an application of
:mod:`cer_theory.formalisms.cel.equivalence`)."""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "Exercise": "checker",
    "Feedback": "checker",
    "sample_sheet": "teacher",
    "grade_folder": "teacher",
    "generate": "generate",
    "check": "checker",
    "check_file": "checker",
    "load_exercise": "checker",
    "parse_exercise": "checker",
    "bundled_exercises": "checker",
    "bundled_names": "checker",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
