"""The grader is bound by the one work budget (core.budget, docs/decisions.md D343): for every kind of exercise
the exercise model defines, an exercise or answer built to exhaust the grader is refused within ``--budget``, in
one line naming the option that exists, by ``check-exercise`` and, for that student only, by ``grade-answers``.

Each case runs the command in a subprocess with a timeout, so that a regression fails rather than hangs."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cer_theory.exercises.grading import bounded_cost
from cer_theory.exercises.model import KINDS

BUDGET = 20_000
SCHEMA = '[schema]\nT = ["id", "tmp"]\nH = ["id", "hum"]\n'


def _chain(n: int, *, final_labels: list[str]) -> dict:
    """A CEA whose subset construction has 2^n states: it guesses that a T is the n-th event from the end."""
    tr = [{"from": 0, "guard": "TRUE", "labels": [], "to": 0},
          {"from": 0, "guard": 'type = "T"', "labels": [], "to": 1}]
    tr += [{"from": i, "guard": "TRUE", "labels": [], "to": i + 1} for i in range(1, n - 1)]
    tr.append({"from": n - 1, "guard": "TRUE", "labels": final_labels, "to": n})
    return {"kind": "cea", "states": list(range(n + 1)), "initial": [0], "final": [n], "transitions": tr}


def _bounded_formula() -> tuple[str, str]:
    """Bounded testing over 4 events up to length 14: 4^14 streams, refused before the first is made."""
    alphabet = ", ".join(f'{{type = "{t}", id = {i}, tmp = 1, hum = 1}}' for t in "TH" for i in range(2))
    return (f'title = "t"\nlogic = "ceql"\nkind = "formula"\ndifficulty = 1\ntext = "t"\n'
            f'reference = "SELECT * FROM S WHERE T ; H"\nbound = 14\nalphabet = [{alphabet}]\n{SCHEMA}',
            "SELECT * FROM S WHERE T ; H")


def _automaton() -> tuple[str, str]:
    """An answer equivalent to T ; H with a junk branch whose subsets number 2^22: the product explores them."""
    answer = {"kind": "cea", "states": ["q0", "q1", "q2"] + [f"j{i}" for i in range(1, 23)], "initial": ["q0"],
              "final": ["q2"], "transitions": [
                  {"from": "q0", "guard": "TRUE", "labels": [], "to": "q0"},
                  {"from": "q0", "guard": 'type = "T"', "labels": ["T"], "to": "q1"},
                  {"from": "q1", "guard": "TRUE", "labels": [], "to": "q1"},
                  {"from": "q1", "guard": 'type = "H"', "labels": ["H"], "to": "q2"},
                  {"from": "q0", "guard": 'type = "T"', "labels": [], "to": "j1"},
                  *({"from": f"j{i}", "guard": "TRUE", "labels": [], "to": f"j{i + 1}"} for i in range(1, 22))]}
    return (f'title = "t"\nkind = "automaton"\ndifficulty = 1\ntext = "t"\nreference = "T ; H"\n{SCHEMA}',
            json.dumps(answer))


def _predict() -> tuple[str, str]:
    """T+ at the end of 40 T events: 2^39 complex events for the reference semantics to list."""
    stream = ", ".join(f'{{type = "T", id = 0, tmp = {i}}}' for i in range(40))
    return (f'title = "t"\nkind = "predict"\ndifficulty = 1\ntext = "t"\nreference = "T+"\nposition = 39\n'
            f'stream = [{stream}]\n{SCHEMA}', "[]")


def _construction() -> tuple[str, str]:
    """The subset construction of an automaton with 2^24 reachable subsets."""
    automaton = json.dumps(json.dumps(_chain(24, final_labels=["T"])))
    return (f'title = "t"\nkind = "construction"\nconstruction = "determinize"\ndifficulty = 3\ntext = "t"\n'
            f'reference = "T"\nautomaton = {automaton}\n{SCHEMA}', "{}")


PATHOLOGICAL = {"formula": _bounded_formula, "automaton": _automaton, "predict": _predict,
                "construction": _construction}
"""One exercise and answer per kind that no budget of BUDGET units can grade."""


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cer_theory.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=180)


def test_every_kind_of_exercise_has_a_pathological_case() -> None:
    assert set(PATHOLOGICAL) == set(KINDS), "a kind of exercise without a pathological case in this test"


@pytest.mark.parametrize("kind", KINDS)
def test_check_exercise_refuses_a_pathological_case_within_its_budget(kind: str, tmp_path: Path) -> None:
    exercise, answer = PATHOLOGICAL[kind]()
    (tmp_path / "ex.toml").write_text(exercise, encoding="utf-8")
    (tmp_path / "answer.txt").write_text(answer, encoding="utf-8")
    done = _cli("check-exercise", "ex.toml", "@answer.txt", "--budget", str(BUDGET), cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    err = done.stderr.strip()
    assert err.count("\n") == 0 and "Traceback" not in err
    assert f"past --budget {BUDGET}; give a larger --budget" in err, err


def test_grade_answers_marks_the_student_past_the_budget_and_grades_the_others(tmp_path: Path) -> None:
    exercise, answer = PATHOLOGICAL["automaton"]()
    (tmp_path / "cls" / "greedy").mkdir(parents=True)
    (tmp_path / "cls" / "modest").mkdir()
    (tmp_path / "cls" / "greedy" / "cel_11_automaton_seq.json").write_text(answer, encoding="utf-8")
    (tmp_path / "cls" / "modest" / "fire_01_later.txt").write_text("T ; H", encoding="utf-8")
    done = _cli("grade-answers", "cls", "-o", "g.csv", "--budget", str(BUDGET), cwd=tmp_path)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "1 answer could not be graded (over budget: 1)" in done.stderr
    rows = {r["student"]: r for r in csv.DictReader((tmp_path / "g.csv").open(encoding="utf-8", newline=""))}
    assert (rows["greedy"]["status"], rows["greedy"]["grade"]) == ("over budget", "0")
    assert f"past --budget {BUDGET}" in rows["greedy"]["feedback"]
    assert (rows["modest"]["status"], rows["modest"]["grade"]) == ("correct", "1")


def test_bounded_testing_is_priced_before_it_runs() -> None:
    assert bounded_cost(2, 3) == 1 * 2 + 2 * 4 + 3 * 8 + 20 * 6
    assert bounded_cost(4, 10**9, cap=1000) > 1000  # a huge bound is priced in a few steps, not enumerated
