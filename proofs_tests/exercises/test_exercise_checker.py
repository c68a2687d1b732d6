"""The exercise checker on the CEL paper's ten S_fire exercises: every one's reference is correct against itself and each of its listed
mistakes gets a stream on which, by the reference semantics, the answer and the reference differ; malformed
exercise files and answers get explanations."""

from __future__ import annotations

import pytest

from cer_theory.core.errors import ExerciseError
from cer_theory.examples.running_example import fire_stream
from cer_theory.exercises.checker import (DIFFICULTIES, bundled_exercises, bundled_names, check, check_file,
                                          parse_exercise)
from cer_theory.formalisms.cel.parser import parse
from cer_theory.formalisms.cel.printer import format
from cer_theory.formalisms.cel.semantics import complex_events

EXERCISES = [e for e in bundled_exercises() if e.name.startswith("fire_")]
GOOD = 'title = "t"\ntext = "x"\ndifficulty = 1\nreference = "T ; H"\n[schema]\nT = ["id"]\nH = ["id"]\n'


def test_ten_fire_exercises_graded_by_difficulty() -> None:
    assert len(EXERCISES) == 10 and len([n for n in bundled_names() if n.startswith("fire_")]) == 10
    assert {e.difficulty for e in EXERCISES} == set(DIFFICULTIES)
    assert [e.difficulty for e in EXERCISES] == sorted(e.difficulty for e in EXERCISES)
    assert all(set(e.schema) == {"T", "H"} for e in EXERCISES)  # S_fire's schema (the CEL paper, Fig. 1)


@pytest.mark.parametrize("exercise", EXERCISES, ids=[e.name for e in EXERCISES])
def test_reference_is_correct_and_mistakes_are_caught(exercise) -> None:
    assert check(exercise, format(exercise.reference)).correct
    assert exercise.mistakes, f"{exercise.name} lists no plausible wrong answer"
    for mistake in exercise.mistakes:
        feedback = check(exercise, mistake)
        assert feedback.status == "wrong", f"{exercise.name}: {mistake} judged {feedback.status}"
        v = feedback.verdict
        answer = complex_events(parse(mistake), v.stream, v.position)
        expected = complex_events(exercise.reference, v.stream, v.position)
        assert answer != expected and (v.output in answer) != (v.output in expected), feedback.message
        assert "it should output" in feedback.message


def test_references_match_on_s_fire_where_the_paper_says() -> None:
    """φ1 of the CEL paper outputs {1,2} at n=2 on S_fire (Example §4): the shipped reference does too."""
    phi1 = next(e for e in EXERCISES if e.name == "fire_05_phi1")
    assert complex_events(phi1.reference, fire_stream(), 2) == {frozenset({1, 2})}


def test_answers_outside_the_language_get_explanations() -> None:
    ex = EXERCISES[0]
    syntax = check(ex, "T ;; H")
    assert syntax.status == "syntax error" and "column 4" in syntax.message and "CEL in brief" in syntax.message
    assert check(ex, "T ; X").status == "outside the schema"
    assert check(ex, "(T ; H) FILTER T.id = H.id").status == "unsupported"
    assert check_file("fire_01_later", "T ; H").correct


@pytest.mark.parametrize("text, field", [
    ("title = ", "not valid TOML"),
    (GOOD.replace('title = "t"\n', ""), "missing field 'title'"),
    (GOOD.replace("difficulty = 1", "difficulty = 7"), "'difficulty'"),
    (GOOD.replace("difficulty = 1", 'difficulty = "easy"'), "'difficulty' must be a int"),
    (GOOD.replace('"T ; H"', '"T ;"'), "field 'reference'"),
    (GOOD.replace('"T ; H"', '"T ; Q"'), "not in the schema"),
    ('level = "matches"\n' + GOOD, "'level' must be one of"),
    (GOOD.replace('T = ["id"]', "T = 3"), "schema.T"),
])
def test_malformed_exercise_files_name_the_field(text: str, field: str) -> None:
    with pytest.raises(ExerciseError, match=field):
        parse_exercise(text)
    assert parse_exercise(GOOD).title == "t"


def test_unknown_exercise_lists_the_bundled_ones() -> None:
    with pytest.raises(ExerciseError, match="fire_01_later"):
        check_file("no_such_exercise", "T")


def test_an_exercise_file_in_latin_1_is_refused_naming_the_file(tmp_path) -> None:
    """A Latin-1 exercise file was a UnicodeDecodeError; it is an ExerciseError that names the file and the byte."""
    from cer_theory.core.errors import ExerciseError
    from cer_theory.exercises.checker import load_exercise

    path = tmp_path / "ex.toml"
    path.write_bytes('title = "Fenêtre"\ntext = "R"\nreference = "R"\ndifficulty = 1\n[schema]\nR = []\n'
                     .encode("latin-1"))
    with pytest.raises(ExerciseError, match=None) as info:
        load_exercise(path)
    assert str(info.value).startswith(f"{path}: not UTF-8 text (byte 0xea at offset 12, line 1)"), str(info.value)


def test_feedback_echoes_the_answer_as_the_student_wrote_it() -> None:
    """``AS`` is CEL's synonym of ``IN``: the feedback quotes ``AS``, as typed, not the printer's ``IN``."""
    from cer_theory.exercises.checker import bundled_exercises, check

    exercise = next(e for e in bundled_exercises() if e.name == "fire_01_later")
    feedback = check(exercise, "T AS X ;  H")
    assert feedback.correct and "Correct: T AS X ; H matches" in feedback.message and " IN " not in feedback.message
