"""An exercise checker for teaching CEL (seed 000): is a student's formula equivalent to the reference?

An exercise is a TOML file: ``title``, ``text``, ``reference`` (a unary CEL formula), ``difficulty`` (1 easy,
2 medium, 3 hard), the stream ``[schema]`` (each event type with its attributes), optionally the output
``level`` (``complex_events`` by default: what the pattern matches, whatever the student names its variables;
docs/decisions.md D110) and ``mistakes``, plausible wrong answers that the tests check are caught.

:func:`check` decides equivalence with :func:`cer_theory.formalisms.cel.equivalence.equivalent` and answers
"correct", or shows the shortest stream on which the answer differs, what the answer outputs at its last
position and what it should output. Answers that do not parse, or that use event types or attributes outside
the schema, get an explanation instead of a traceback.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from cer_theory.automata.equivalence import LEVELS, LevelName, Verdict, show_output
from cer_theory.core.errors import CerError, ExerciseError, SyntaxErrorCER, UnsupportedError
from cer_theory.core.events import Stream
from cer_theory.core.textfiles import read_text_file
from cer_theory.formalisms.cel.ast import Formula
from cer_theory.formalisms.cel.equivalence import automaton, check_schema, equivalent, format_schema
from cer_theory.formalisms.cel.parser import parse
from cer_theory.formalisms.cel.printer import format

DIFFICULTIES = {1: "easy", 2: "medium", 3: "hard"}


@dataclass(frozen=True)
class Exercise:
    """One exercise: a pattern in words (``text``) and the formula that expresses it (``reference``)."""

    name: str
    title: str
    text: str
    reference: Formula
    schema: Mapping[str, tuple[str, ...]]
    difficulty: int
    level: LevelName = "complex_events"
    mistakes: tuple[str, ...] = ()

    def __str__(self) -> str:
        return (f"{self.title} ({DIFFICULTIES[self.difficulty]})\n{self.text.strip()}\n"
                f"Events: {format_schema(self.schema)}")


def _field(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in data:
        raise ExerciseError(f"{where}: missing field {key!r}")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
        raise ExerciseError(f"{where}: field {key!r} must be a {kind.__name__}, got {value!r}")
    return value


def parse_exercise(text: str, *, name: str = "exercise") -> Exercise:
    """An :class:`Exercise` from TOML text; :class:`ExerciseError` naming the field for every problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ExerciseError(f"{name}: not valid TOML: {e}") from None
    title = _field(data, "title", str, name)
    body = _field(data, "text", str, name)
    difficulty = _field(data, "difficulty", int, name)
    if difficulty not in DIFFICULTIES:
        raise ExerciseError(f"{name}: field 'difficulty' must be 1 (easy), 2 (medium) or 3 (hard), got {difficulty}")
    raw_schema = _field(data, "schema", dict, name)
    schema: dict[str, tuple[str, ...]] = {}
    for rel, attrs in raw_schema.items():
        if not isinstance(attrs, list) or not all(isinstance(a, str) for a in attrs):
            raise ExerciseError(f"{name}: schema.{rel} must be a list of attribute names, got {attrs!r}")
        schema[rel] = tuple(attrs)
    level = data.get("level", "complex_events")
    if level not in LEVELS:
        raise ExerciseError(f"{name}: field 'level' must be one of {', '.join(LEVELS)}, got {level!r}")
    mistakes = data.get("mistakes", [])
    if not isinstance(mistakes, list) or not all(isinstance(m, str) for m in mistakes):
        raise ExerciseError(f"{name}: field 'mistakes' must be a list of formulas")
    source = _field(data, "reference", str, name)
    try:
        reference = parse(source)
        check_schema(reference, automaton(reference), schema, role="reference")
    except CerError as e:
        raise ExerciseError(f"{name}: field 'reference': {e}") from None
    return Exercise(name, title, body, reference, schema, difficulty, level, tuple(mistakes))


def load_exercise(path: str | Path) -> Exercise:
    """The exercise in a TOML file, or a bundled one by name (``fire_01``…, see :func:`bundled_exercises`)."""
    p = Path(path)
    if not p.exists():
        bundled = resources.files("cer_theory").joinpath(f"exercises/data/{p.stem}.toml")
        if p.suffix in ("", ".toml") and p.parent == Path(".") and bundled.is_file():
            return parse_exercise(bundled.read_text(encoding="utf-8"), name=p.stem)
        raise ExerciseError(f"{path}: no such exercise file (bundled ones: {', '.join(bundled_names())})")
    return parse_exercise(read_text_file(p, "exercise files", ExerciseError), name=p.stem)


def bundled_names() -> list[str]:
    folder = resources.files("cer_theory").joinpath("exercises/data")
    return sorted(f.name[:-5] for f in folder.iterdir() if f.name.endswith(".toml"))


def bundled_exercises() -> list[Exercise]:
    """The exercises shipped with the toolkit, over seed 000's running example, easiest first."""
    return sorted((load_exercise(n) for n in bundled_names()), key=lambda e: (e.difficulty, e.name))


# ---------------------------------------------------------------------------------------------- feedback

Status = Literal["correct", "wrong", "syntax error", "outside the schema", "unsupported"]


@dataclass(frozen=True)
class Feedback:
    """The checker's answer: ``status``, a message for the student and, when wrong, the evidence."""

    status: Status
    message: str
    verdict: Verdict | None = None
    answer_outputs: frozenset = field(default=frozenset())
    expected_outputs: frozenset = field(default=frozenset())

    @property
    def correct(self) -> bool:
        return self.status == "correct"

    @property
    def stream(self) -> Stream | None:
        return self.verdict.stream if self.verdict is not None else None

    def __str__(self) -> str:
        return self.message

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # Jupyter shows the message, not a dataclass
        printer.text(self.message)


_SYNTAX_HELP = ("CEL in brief: an event type (T), sequence φ ; ψ, contiguous sequence φ : ψ, φ OR ψ, φ AND ψ, "
                "iteration φ+ (or φ:+), φ IN X, φ FILTER (X.attr > 40 AND …), PI[X,Y](φ), STRICT/NXT/LAST/MAX(φ); "
                "parentheses group.")


def _outputs(outs: frozenset) -> str:
    return ", ".join(sorted(map(show_output, outs))) or "nothing"


def check(exercise: Exercise, answer: str | Formula, *, budget: int | None = None) -> Feedback:
    """Check a student's ``answer`` against ``exercise.reference`` (equivalence at ``exercise.level``)."""
    try:
        phi = parse(answer) if isinstance(answer, str) else answer
    except SyntaxErrorCER as e:
        return Feedback("syntax error", f"Your answer does not parse: {e}\n{_SYNTAX_HELP}")
    try:
        check_schema(phi, automaton(phi), exercise.schema, role="answer")
    except UnsupportedError as e:
        status: Status = "outside the schema" if "schema" in str(e) else "unsupported"
        return Feedback(status, f"Your answer cannot be checked: {e}.")
    kwargs = {} if budget is None else {"budget": budget}
    v = equivalent(phi, exercise.reference, level=exercise.level, **kwargs)
    if v.holds:
        return Feedback("correct", f"Correct: {format(phi)} matches exactly what the exercise asks for.", v)
    assert v.stream is not None and v.output is not None
    what = "complex event" if v.level == "complex_events" else "valuation"
    lines = [f"Not quite. Here is a shortest stream on which your answer and the expected one differ "
             f"({len(v.stream)} events):"]
    lines += [f"  {k}: {json.dumps(e.to_dict(), sort_keys=True)}" for k, e in enumerate(v.stream)]
    lines.append(f"At position {v.position} (the last event) your answer outputs {_outputs(v.left_outputs)}; "
                 f"it should output {_outputs(v.right_outputs)}.")
    if v.in_left:
        lines.append(f"Your answer outputs the {what} {show_output(v.output)}, which the exercise does not ask for.")
    else:
        lines.append(f"Your answer misses the {what} {show_output(v.output)}.")
    return Feedback("wrong", "\n".join(lines), v, v.left_outputs, v.right_outputs)


def check_file(exercise: str | Path, answer: str) -> Feedback:
    """:func:`check` with the exercise loaded from a file or a bundled name (for notebooks)."""
    return check(load_exercise(exercise), answer)


__all__ = ["Exercise", "Feedback", "parse_exercise", "load_exercise", "bundled_names", "bundled_exercises", "check",
           "check_file", "DIFFICULTIES"]
