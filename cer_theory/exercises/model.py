"""What an exercise is, for every formalism of the toolkit, and what the grader answers.

An exercise is a TOML file: ``title``, ``text``, ``difficulty`` (1 easy, 2 medium, 3 hard), the stream
``[schema]`` (each event type with its attributes) and ``reference``, a formula or query of ``logic`` (``cel`` by
default; ``ceql``, ``socel``, ``focel``, ``acel``, ``sremo``: the names of :func:`cer_theory.core.protocols.get`).
``kind`` says what the student hands in (docs/decisions.md D250):

* ``formula`` (the default): a formula or query with the reference's outputs;
* ``automaton``: an automaton as JSON (CEA or UCEA in the format of
  :mod:`cer_theory.formalisms.socel.automaton_json`, ACEA in that of :mod:`cer_theory.formalisms.acel.acea_json`)
  with the reference's outputs;
* ``predict``: the outputs of the reference at ``position`` of the exercise's ``stream``, as a JSON list;
* ``construction``: ``determinize``, ``trim`` or ``star_property`` applied to the reference's automaton, or to
  the JSON ``automaton`` of the exercise (the answer is a JSON automaton, or ``yes``/``no`` for the *-property).

``[solution]`` is the worked solution: ``text`` explains it and ``answer`` is the answer it arrives at (the tests
grade it). ``mistakes`` are plausible wrong answers that the tests check are caught. Answers where equivalence is
not decided are tested on every stream over ``alphabet`` (a list of events) up to length ``bound``, and on
seeded random longer ones.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from cer_theory.core.errors import CerError, ExerciseError
from cer_theory.core.events import Event, Stream
from cer_theory.core.protocols import Formalism, get, names

DIFFICULTIES = {1: "easy", 2: "medium", 3: "hard"}
KINDS = ("formula", "automaton", "predict", "construction")
CONSTRUCTIONS = ("determinize", "trim", "star_property")
PAPERS = {"cel": "CEL/CEA (the CEL paper)", "ceql": "CEQL/tECS (the CORE paper)", "sremo": "SREMO/SRT (the SRT paper)",
          "acel": "ACEL/ACEA (the ACEL paper)", "socel": "SO-CEL/FO-CEL/UCEA (the SO-CEL paper)",
          "focel": "SO-CEL/FO-CEL/UCEA (the SO-CEL paper)"}
"""The paper each logic comes from, as the exercise list groups them (in the order of the seeds)."""

Status = Literal["correct", "no difference found", "wrong", "syntax error", "outside the schema", "unsupported"]


@dataclass(frozen=True)
class Exercise:
    """One exercise: a task in words (``text``) over events of ``schema``, graded against ``reference``.

    The reference, the known ``mistakes``, the ``solution`` and its ``answer`` are the teacher's: they are read by
    their attributes and never shown by ``repr`` (a student's notebook prints an exercise or a graded answer)."""

    name: str
    title: str
    text: str
    reference: Any = field(repr=False)
    schema: Mapping[str, tuple[str, ...]]
    difficulty: int
    level: str = "complex_events"
    mistakes: tuple[str, ...] = field(default=(), repr=False)
    logic: str = "cel"
    kind: str = "formula"
    solution: str = field(default="", repr=False)
    answer: str = field(default="", repr=False)
    stream: Stream | None = None
    position: int | None = None
    construction: str | None = None
    alphabet: tuple[Event, ...] = ()
    bound: int = 4
    automaton: str = ""
    """For a construction: the input automaton as JSON, when it is not the reference's own automaton."""

    @property
    def formalism(self) -> Formalism:
        return get(self.logic)

    @property
    def reference_text(self) -> str:
        return self.formalism.format(self.reference)

    @property
    def paper(self) -> str:
        return PAPERS.get(self.logic, self.logic)

    def __str__(self) -> str:
        schema = " ".join(f"{rel}({','.join(attrs)})" for rel, attrs in self.schema.items())
        return (f"{self.title} ({DIFFICULTIES[self.difficulty]}; {self.paper}, {self.kind})\n{self.text.strip()}\n"
                f"Events: {schema}")


@dataclass(frozen=True)
class Feedback:
    """The grader's answer: ``status``, a message for the student and, when wrong, the evidence: a ``stream``
    (shortest found), the ``position`` where the outputs differ and both sides' outputs there."""

    status: Status
    message: str
    verdict: Any = None
    answer_outputs: frozenset = field(default=frozenset())
    expected_outputs: frozenset = field(default=frozenset())
    evidence: Stream | None = None
    position: int | None = None

    @property
    def correct(self) -> bool:
        """Proven right (equivalence decided, outputs equal, structure isomorphic)."""
        return self.status == "correct"

    @property
    def accepted(self) -> bool:
        """Right as far as the grader can tell: proven, or no difference found by bounded testing."""
        return self.status in ("correct", "no difference found")

    @property
    def stream(self) -> Stream | None:
        if self.evidence is not None:
            return self.evidence
        return getattr(self.verdict, "stream", None)

    def __str__(self) -> str:
        return self.message

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # Jupyter shows the message, not a dataclass
        printer.text(self.message)


def _field(data: Mapping[str, Any], key: str, kind: type, where: str, default: Any = None) -> Any:
    if key not in data:
        if default is not None:
            return default
        raise ExerciseError(f"{where}: missing field {key!r}")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
        raise ExerciseError(f"{where}: field {key!r} must be a {kind.__name__}, got {value!r}")
    return value


def _events(rows: Any, where: str, key: str) -> Stream:
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ExerciseError(f"{where}: field {key!r} must be a list of events ({{type = \"T\", …}})")
    try:
        return Stream.from_dicts(rows, source=f"{where}: {key}")
    except CerError as e:
        raise ExerciseError(f"{where}: field {key!r}: {e}") from None


def read_exercise(text: str, *, name: str = "exercise") -> Exercise:
    """An :class:`Exercise` from TOML text; :class:`ExerciseError` naming the field for every problem of form
    (:func:`cer_theory.exercises.checker.parse_exercise` also checks the reference against the schema)."""
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
    logic = _field(data, "logic", str, name, "cel")
    if logic not in names():
        raise ExerciseError(f"{name}: field 'logic' must be one of {', '.join(names())}, got {logic!r}")
    kind = _field(data, "kind", str, name, "formula")
    if kind not in KINDS:
        raise ExerciseError(f"{name}: field 'kind' must be one of {', '.join(KINDS)}, got {kind!r}")
    level = _field(data, "level", str, name, "complex_events")
    if level not in ("valuations", "complex_events"):
        raise ExerciseError(f"{name}: field 'level' must be one of valuations, complex_events, got {level!r}")
    mistakes = data.get("mistakes", [])
    if not isinstance(mistakes, list) or not all(isinstance(m, str) for m in mistakes):
        raise ExerciseError(f"{name}: field 'mistakes' must be a list of answers")
    solution = _field(data, "solution", dict, name, {})
    source = _field(data, "reference", str, name)
    try:
        reference = get(logic).parse(source)
    except CerError as e:
        raise ExerciseError(f"{name}: field 'reference': {e}") from None
    stream = _events(data["stream"], name, "stream") if "stream" in data else None
    position = _field(data, "position", int, name, -1)
    construction = data.get("construction")
    if kind == "predict" and (stream is None or not 0 <= position < len(stream)):
        raise ExerciseError(f"{name}: a predict exercise needs a 'stream' and a 'position' inside it")
    if kind == "construction" and construction not in CONSTRUCTIONS:
        raise ExerciseError(f"{name}: field 'construction' must be one of {', '.join(CONSTRUCTIONS)}, "
                            f"got {construction!r}")
    alphabet = tuple(_events(data["alphabet"], name, "alphabet")) if "alphabet" in data else ()
    bound = _field(data, "bound", int, name, 4)
    if bound < 1:
        raise ExerciseError(f"{name}: field 'bound' must be at least 1 (the longest stream tested), got {bound}")
    return Exercise(name, title, body, reference, schema, difficulty, level, tuple(mistakes), logic, kind,
                        str(solution.get("text", "")), str(solution.get("answer", "")), stream,
                        position if kind == "predict" else None, construction, alphabet,
                        bound, _field(data, "automaton", str, name, ""))


def events_json(stream: Stream) -> list[str]:
    """One JSON object per event, as the feedback and the problem sheets print streams."""
    return [json.dumps(e.to_dict(), sort_keys=True) for e in stream]


__all__ = ["CONSTRUCTIONS", "DIFFICULTIES", "Exercise", "Feedback", "KINDS", "PAPERS", "Status", "events_json",
           "read_exercise"]
