"""For the teacher: the exercise list by paper, kind and difficulty; problem sheets for a seed (Markdown, HTML);
a class's folder of answers graded into one CSV in one command, never overwriting an input."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from cer_theory.cli import main
from cer_theory.exercises.checker import bundled_names
from cer_theory.exercises.generate import generate
from cer_theory.exercises.teacher import exercise_named, grade_folder, seed_sheet, sheet_html, sheet_markdown


def test_exercises_lists_by_paper_kind_and_difficulty(capsys) -> None:
    assert main(["exercises"]) == 0
    out = capsys.readouterr().out
    papers = [line for line in out.splitlines() if not line.startswith(" ")]
    assert papers == ["CEL/CEA (the CEL paper)", "CEQL/tECS (the CORE paper)", "SREMO/SRT (the SRT paper)", "ACEL/ACEA (the ACEL paper)",
                      "SO-CEL/FO-CEL/UCEA (the SO-CEL paper)"]
    assert main(["exercises", "--kind", "predict", "--difficulty", "easy"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith(" ")]
    assert rows and all(r[1:3] == ["predict", "easy"] for r in rows)


def test_a_sheet_for_a_seed_has_every_kind_and_difficulty() -> None:
    exercises = seed_sheet(5)
    assert len(exercises) == 12 and {e.kind for e in exercises} == {"formula", "automaton", "predict",
                                                                     "construction"}
    md = sheet_markdown(exercises)
    assert md.count("\n## ") == 12 and "gen_predict_2_5.txt" in md and "Stream:" in md and "```json" in md
    assert "Solution" not in md and "Solution" in sheet_markdown(exercises, solutions=True)
    page = sheet_html(exercises)
    assert page.startswith("<!DOCTYPE html>") and page.count("<h2>") == 12 and "<script" not in page


def test_sheet_command_writes_aside_and_refuses_nothing_it_should_not(tmp_path: Path, capsys) -> None:
    out = tmp_path / "sheet.html"
    assert main(["exercise-sheet", "--seed", "3", "--format", "html", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").count("<h2>") == 12
    assert not list(tmp_path.glob(".*part"))
    assert main(["exercise-sheet", "fire_01_later", "ceql_07_predict"]) == 0
    assert capsys.readouterr().out.count("\n## ") == 2


def _class(folder: Path, students: int) -> dict[tuple[str, str], bool]:
    """A class where student k answers four generated instances, right when k is even."""
    truth = {}
    for k in range(students):
        d = folder / f"student{k:03}"
        d.mkdir(parents=True)
        for kind in ("formula", "predict", "automaton", "construction"):
            e = generate(kind, 1 + k % 3, k)
            answer = e.answer if k % 2 == 0 else {"formula": "T", "predict": "[]", "automaton": "{}",
                                                  "construction": "{}"}[kind]
            (d / f"{e.name}.txt").write_text(answer, encoding="utf-8")
            truth[(d.name, e.name)] = k % 2 == 0
    return truth


def test_grade_a_folder_into_a_csv_in_one_command(tmp_path: Path, capsys) -> None:
    truth = _class(tmp_path / "answers", 6)
    (tmp_path / "answers" / "student000" / "no_such_exercise.txt").write_text("T", encoding="utf-8")
    out = tmp_path / "grades.csv"
    assert main(["grade-answers", str(tmp_path / "answers"), "-o", str(out)]) == 0
    assert "graded 25 of 25 answers of 6 students" in capsys.readouterr().out
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r for r in rows if r["status"] == "unknown exercise"][0]["grade"] == "0"
    graded = {(r["student"], r["exercise"]): r["grade"] == "1" for r in rows if r["status"] != "unknown exercise"}
    assert graded == truth
    assert all(r["feedback"] for r in rows)


def test_grading_never_writes_into_the_answers(tmp_path: Path, capsys) -> None:
    _class(tmp_path / "answers", 1)
    assert main(["grade-answers", str(tmp_path / "answers"), "-o", str(tmp_path / "answers" / "g.csv")]) == 2
    assert "inside an input" in capsys.readouterr().err
    assert main(["grade-answers", str(tmp_path / "missing"), "-o", str(tmp_path / "g.csv")]) == 2


def test_check_exercise_grades_generated_instances_and_every_kind(capsys) -> None:
    e = generate("predict", 2, 11)
    assert main(["check-exercise", e.name, e.answer]) == 0
    assert main(["check-exercise", e.name, "[]"]) == 1
    assert main(["check-exercise", "ceql_01_later", "SELECT * FROM S WHERE T ; H"]) == 0
    assert "No difference found up to length 3" in capsys.readouterr().out
    assert exercise_named("gen_construction_3_4").construction == "star_property"
    with pytest.raises(Exception, match="no such exercise"):
        exercise_named("gen_essay_1_1")


def test_check_exercise_answers(capsys, tmp_path: Path) -> None:
    assert main(["check-exercise", "fire_01_later", "T ; H"]) == 0
    assert "Correct" in capsys.readouterr().out
    assert main(["check-exercise", "fire_01_later", "H ; T"]) == 1
    out = capsys.readouterr().out
    assert "shortest stream" in out and "it should output" in out
    assert main(["check-exercise", "fire_01_later", "T ;; H"]) == 2
    assert "does not parse" in capsys.readouterr().out
    bad = tmp_path / "bad.toml"
    bad.write_text('title = "x"\ntext = "y"\ndifficulty = 1\nreference = "T ; Q"\n[schema]\nT = ["id"]\n')
    assert main(["check-exercise", str(bad), "T"]) == 2
    assert "field 'reference'" in capsys.readouterr().err
    assert main(["exercises"]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  ")]
    assert len(listed) == len(bundled_names())


@pytest.mark.parametrize(("content", "status", "says"), [
    ("T ; H".encode("latin-1") + b"\xe9", "unreadable", "not UTF-8 text"),
    ("T ; H".encode("utf-16"), "unreadable", "a UTF-16 file"),
    (b"", "empty", "the file is empty"), (b" \n\t", "empty", "the file is empty"),
    (b"\x00\x01", "unreadable", "a binary file")])
def test_an_unreadable_answer_is_that_students_grade_not_the_end_of_the_batch(tmp_path: Path, capsys,
                                                                              content: bytes, status: str,
                                                                              says: str) -> None:
    truth = _class(tmp_path / "answers", 2)
    name = next(iter(truth))[1]
    bad = tmp_path / "answers" / "student000" / f"{name}.txt"
    bad.write_bytes(content)
    out = tmp_path / "grades.csv"
    assert main(["grade-answers", str(tmp_path / "answers"), "-o", str(out)]) == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    row = next(r for r in rows if r["student"] == "student000" and r["exercise"] == name)
    assert (row["status"], row["grade"]) == (status, "0")
    assert str(bad) in row["feedback"] and says in row["feedback"]
    assert len({r["student"] for r in rows}) == 2


def test_a_sheet_in_a_logic_without_generated_instances_is_one_line(capsys) -> None:
    assert main(["exercise-sheet", "--seed", "1", "--logic", "sremo"]) == 2
    err = capsys.readouterr().err
    assert "instances are generated for cel" in err and "Traceback" not in err
