"""A class's folder of answers is hostile input (docs/decisions.md D340-D342): the acceptance test of issue 35's
batch grading, and one test per rule of the walk.

A folder with formula-named students and files, links out of it (a file and a student folder), a file named after
a TOML of the teacher's working folder, an oversized answer, an answer past the budget, binary and empty files,
a hard link, a FIFO and a name that is not UTF-8 gives a grades.csv with a row for every student, no cell a
spreadsheet would run, nothing from outside the folder, and the students whose answers could not be graded
marked as such (and exit status 1)."""

from __future__ import annotations

import csv
import io
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.cli import main
from cer_theory.core.spreadsheet import DANGEROUS, from_spreadsheet_cell
from cer_theory.exercises import classfolder, grading
from cer_theory.exercises.checker import load_bundled
from cer_theory.exercises.classfolder import MAX_ANSWER_BYTES, TIME_LIMIT, class_answers, shown
from cer_theory.exercises.teacher import NOT_GRADED, answer_exercise, grade_answer, grade_folder, grades_csv

from proofs_tests.exercises.test_grading_budget import PATHOLOGICAL

SECRET = "TOPSECRET-4f2a"
"""Planted outside the class folder: it must appear nowhere in what grading writes or prints."""

UNPUBLISHED = "UNPUBLISHED-EXAM"

FORMULA_NAMES = ['=HYPERLINK("evil.example","click")', "-2+3", "@SUM(A1)", "+1", "\t=1+1", "\r=1+1"]


def _hostile(work: Path) -> dict[str, str]:
    """The class folder ``work/cls`` and the teacher's files around it; the expected status of each student."""
    (work / "outside").mkdir(parents=True)
    (work / "secret.txt").write_text(f"{SECRET} ; H\n", encoding="utf-8")
    (work / "outside" / "fire_01_later.txt").write_text(f"{SECRET} ; H\n", encoding="utf-8")
    (work / "exam.toml").write_text(f'title = "{UNPUBLISHED}"\ntext = "{UNPUBLISHED}"\ndifficulty = 1\n'
                                    f'reference = "H ; T"\n[schema]\nT = ["id", "tmp"]\nH = ["id", "hum"]\n',
                                    encoding="utf-8")
    cls = work / "cls"
    expected = {}

    def student(name: str, files: dict[str, bytes], status: str) -> Path:
        d = cls / name
        d.mkdir(parents=True)
        for file, data in files.items():
            (d / file).write_bytes(data)
        expected[name] = status
        return d

    for k, name in enumerate(FORMULA_NAMES):  # formula-named students handing in formula-named files
        student(name, {"fire_01_later.txt": b"T ; H", f"{FORMULA_NAMES[-1 - k]}.txt": b"T"}, "correct")
    student("mallory", {}, "refused")
    (cls / "mallory" / "fire_01_later.txt").symlink_to(work / "secret.txt")  # a file link out
    (cls / "eve").symlink_to(work / "outside", target_is_directory=True)  # a student folder link out
    expected["eve"] = "refused"
    student("trudy", {"exam.toml.txt": b"H ; T"}, "unknown exercise")  # ./exam.toml must not be loaded
    student("oscar", {"fire_01_later.txt": b"T ; H " + b" " * 70_000}, "refused")  # past the size cap
    exercise, answer = PATHOLOGICAL["automaton"]()
    student("greedy", {"cel_11_automaton_seq.json": answer.encode()}, "over budget")
    student("binary", {"fire_01_later.txt": b"\x00\x01T ; H"}, "unreadable")
    student("latin", {"fire_01_later.txt": "T ; H é".encode("latin-1")}, "unreadable")
    student("empty", {"fire_01_later.txt": b""}, "empty")
    student("nothing", {}, "no answers")
    os.link(work / "secret.txt", student("harry", {}, "refused") / "fire_01_later.txt")  # a hard link out
    os.mkfifo(student("fifi", {}, "refused") / "fire_01_later.txt")  # would block a reader
    copier = student("copier", {}, "refused")  # a link inside, to another student's answer
    (copier / "fire_01_later.txt").symlink_to(cls / "-2+3" / "fire_01_later.txt")
    bytes_name = os.fsdecode(b"\xff\xfe=x")
    student(bytes_name, {"fire_01_later.txt": b"T ; H"}, "correct")
    (cls / "README").write_text("not a student", encoding="utf-8")
    (cls / ".git").mkdir()
    return expected


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], subprocess.CompletedProcess,
                                                              list[list[str]], str]:
    work = tmp_path_factory.mktemp("teacher")
    expected = _hostile(work)
    done = subprocess.run([sys.executable, "-m", "cer_theory.cli", "grade-answers", "cls", "-o", "grades.csv",
                           "--budget", "20000"], cwd=work, capture_output=True, text=True, timeout=300)
    raw = (work / "grades.csv").read_text(encoding="utf-8")
    return expected, done, list(csv.reader((work / "grades.csv").open(encoding="utf-8", newline=""))), raw


def test_every_student_has_a_row_and_the_failing_ones_are_marked(graded) -> None:
    expected, done, table, _ = graded
    assert done.returncode == 1, done.stderr
    assert "could not be graded" in done.stderr and "Traceback" not in done.stderr
    header, rows = table[0], [dict(zip(table[0], map(from_spreadsheet_cell, r))) for r in table[1:]]
    assert header == ["student", "exercise", "status", "grade", "feedback"]
    by_student: dict[str, set[str]] = {}
    for r in rows:
        by_student.setdefault(r["student"], set()).add(r["status"])
    assert set(by_student) == {shown(name) for name in expected}
    for name, status in expected.items():
        assert status in by_student[shown(name)], (name, by_student[shown(name)])
    assert all(r["grade"] == "0" for r in rows if r["status"] != "correct")


def test_no_cell_is_a_formula(graded) -> None:
    _, _, table, _ = graded
    cells = [c for row in table for c in row]
    assert not [c for c in cells if c.startswith(tuple(DANGEROUS))]
    assert '\'=HYPERLINK("evil.example","click")' in cells and "'-2+3" in cells and "'@SUM(A1)" in cells


def test_nothing_from_outside_the_folder_is_read(graded) -> None:
    _, done, _, raw = graded
    for text in (raw, done.stdout, done.stderr):
        assert SECRET not in text and UNPUBLISHED not in text


def test_an_answer_name_is_a_key_never_a_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fire_01_later").write_text("not TOML", encoding="utf-8")  # a cwd file named like a bundled one
    (tmp_path / "exam.toml").write_text("not TOML", encoding="utf-8")
    assert answer_exercise("fire_01_later.txt").name == "fire_01_later"
    assert answer_exercise("fire_01_later").name == "fire_01_later"
    assert answer_exercise("gen_formula_2_17.txt").name == "gen_formula_2_17"
    for name in ("exam.toml.txt", "exam.toml", "../exam.toml.txt", "/etc/passwd", "fire_01_later/x"):
        with pytest.raises(Exception, match="no exercise is named"):
            answer_exercise(name)


def test_the_walk_reads_only_regular_files_of_the_folder_within_the_cap(tmp_path: Path) -> None:
    (tmp_path / "cls" / "ann").mkdir(parents=True)
    (tmp_path / "cls" / "ann" / "a.txt").write_bytes(b"x" * 10)
    (tmp_path / "cls" / "ann" / "b.txt").write_bytes(b"x" * 11)
    (tmp_path / "cls" / "ann" / "c").mkdir()
    (tmp_path / "cls" / "ann" / ".hidden").write_bytes(b"x")
    got = {s.file: s for s in class_answers(str(tmp_path / "cls"), max_bytes=10)}
    assert set(got) == {"a.txt", "b.txt", "c"}
    assert got["a.txt"].data == b"x" * 10 and got["a.txt"].refused is None
    assert got["b.txt"].data is None and "larger than 10 bytes" in got["b.txt"].refused
    assert "a folder" in got["c"].refused
    with pytest.raises(Exception, match="not a folder of answers"):
        list(class_answers(str(tmp_path / "missing")))


def test_one_answer_out_of_time_or_crashing_the_grader_is_marked_and_the_class_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    slow = load_bundled("ceql_01_later")  # bounded testing: far more than a millisecond
    status, grade, feedback = grade_answer(slow, "SELECT * FROM S WHERE T ; H", seconds=0.001)
    assert (status, grade) == ("timed out", "0") and "--time-limit" in feedback
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL and signal.getitimer(signal.ITIMER_REAL)[0] == 0
    assert grade_answer(slow, "SELECT * FROM S WHERE T ; H")[:2] == ("no difference found", "1")

    def crash(exercise: object, answer: object) -> None:
        raise ZeroDivisionError("a construction's bug")

    monkeypatch.setitem(grading.GRADERS, "formula", crash)
    (tmp_path / "cls" / "ann").mkdir(parents=True)
    (tmp_path / "cls" / "bob").mkdir()
    (tmp_path / "cls" / "ann" / "fire_01_later.txt").write_text("T ; H", encoding="utf-8")
    (tmp_path / "cls" / "bob" / "cel_12_predict_seq.txt").write_text("[[0, 3], [2, 3]]", encoding="utf-8")
    rows = {r["student"]: r for r in grade_folder(tmp_path / "cls")}
    assert rows["ann"]["status"] == "grader error" and "ZeroDivisionError: a construction's bug" in \
        rows["ann"]["feedback"]
    assert (rows["bob"]["status"], rows["bob"]["grade"]) == ("correct", "1")
    assert "grader error" in NOT_GRADED and "correct" not in NOT_GRADED


@settings(max_examples=25, deadline=None)
@given(st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="/\0"), min_size=1, max_size=40)
       .filter(lambda n: n not in (".", "..") and not n.startswith(".") and len(n.encode()) < 200))
def test_any_name_is_a_safe_cell_that_reads_back(name: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / name).mkdir()
        (Path(d) / name / f"{name}.txt").write_text("T", encoding="utf-8")
        text = grades_csv(grade_folder(d))
    (row,) = list(csv.DictReader(io.StringIO(text, newline="")))
    assert not any(cell.startswith(tuple(DANGEROUS)) for cell in row.values())
    assert from_spreadsheet_cell(row["student"]) == name
    assert from_spreadsheet_cell(row["exercise"]) == name.partition(".")[0]


def test_the_help_states_the_defaults_the_grader_uses(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        main(["grade-answers", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"(default {MAX_ANSWER_BYTES:,})" in text and f"(default {TIME_LIMIT:g})" in text
    assert "--budget N" in text


def test_without_dir_fd_the_walk_refuses_the_same_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the system cannot open a file relative to an open folder (Windows), paths are resolved and checked
    to be inside the class folder: the same entries are refused, the same ones read."""
    expected = _hostile(tmp_path)
    at_fd = [(s.student, s.file, s.data, s.refused) for s in class_answers(str(tmp_path / "cls"))]
    monkeypatch.setattr(classfolder, "_AT", False)
    by_path = [(s.student, s.file, s.data, s.refused) for s in class_answers(str(tmp_path / "cls"))]
    assert by_path == at_fd
    assert {s for s, _, _, why in by_path if why} == {shown(n) for n, status in expected.items() if status == "refused"}
    assert SECRET.encode() not in b"".join(data or b"" for _, _, data, _ in by_path)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_time_limit_binds_even_when_its_signal_lands_where_exceptions_are_ignored() -> None:
    """The timer's handler may run inside a ``__del__`` or a garbage collector's callback, where Python prints the
    exception it raises and goes on (a CI run saw a 1 ms limit answer "no difference found" that way): the limit
    binds all the same when the block ends (D444)."""
    from cer_theory.exercises.teacher import _OutOfTime, time_limit

    class Rings:
        def __del__(self) -> None:
            signal.raise_signal(signal.SIGALRM)  # the handler runs here; its exception is ignored

    with pytest.raises(_OutOfTime):
        with time_limit(60):
            Rings()  # made and deleted at once
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL and signal.getitimer(signal.ITIMER_REAL)[0] == 0
