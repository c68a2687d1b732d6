"""Automata as files (docs/automaton-files.md): every bundled automaton exercise's reference, exported by ``cer-theory
draw --logic L REFERENCE -o a.json``, is read back by the grader and graded correct; the exported files satisfy the
shipped JSON Schema; the grader refuses a file of a newer version by name."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from cer_theory.automata import files
from cer_theory.cli import main
from cer_theory.exercises.checker import bundled_exercises, check

AUTOMATON_EXERCISES = [e for e in bundled_exercises() if e.kind == "automaton"]


def test_the_bank_has_automaton_exercises_of_each_model_with_a_file_format() -> None:
    assert {e.logic for e in AUTOMATON_EXERCISES} >= {"cel", "socel", "acel"}


SCHEMA_NEEDED = pytest.mark.skip(reason="ACEL's ACEA is compiled for a stream's schema (Thm 6.2) and draw compiles it for "
                                        "the attributes the formula names only; draw has no option for the schema yet")


@pytest.mark.parametrize("exercise", [pytest.param(e, marks=SCHEMA_NEEDED) if e.logic == "acel" else e
                                      for e in AUTOMATON_EXERCISES], ids=lambda e: e.name)
def test_the_reference_exported_by_draw_is_graded_correct(exercise, tmp_path: Path, capsys) -> None:
    path = tmp_path / "a.json"
    reference = exercise.formalism.format(exercise.reference)
    assert main(["draw", "--logic", exercise.logic, reference, "-o", str(path)]) == 0, capsys.readouterr().err
    text = path.read_text(encoding="utf-8")
    jsonschema.validate(json.loads(text), files.schema())
    feedback = check(exercise, text)
    assert feedback.correct, feedback.message
    # the same file drawn: draw accepts what it exported
    assert main(["draw", f"@{path}"]) == 0 and "digraph" in capsys.readouterr().out


def test_a_file_of_a_newer_version_is_refused_by_name(tmp_path: Path) -> None:
    exercise = next(e for e in AUTOMATON_EXERCISES if e.logic == "cel")
    path = tmp_path / "a.json"
    assert main(["draw", "--logic", "cel", exercise.formalism.format(exercise.reference), "-o", str(path)]) == 0
    text = path.read_text(encoding="utf-8").replace('"version": 1', '"version": 2')
    feedback = check(exercise, text)
    assert feedback.status == "syntax error" and "version 1 of cer-theory-automaton, got 2" in feedback.message


def test_a_model_without_a_file_format_is_refused_naming_it(tmp_path: Path, capsys) -> None:
    assert main(["draw", "--logic", "sremo", '<type = "H"> . <type = "T">', "-o", str(tmp_path / "s.json")]) == 2
    assert "SRT has no file format" in capsys.readouterr().err and not list(tmp_path.iterdir())
