"""``cer-theory equiv`` (the exercise commands: proofs_tests/exercises/test_teacher.py): exit codes, the JSON
Lines stream (replayable by ``eval``), the one-line explanation, the product drawing, and bad input (exit 2 with the reason)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cer_theory.cli import main


def test_equiv_prints_equivalent_and_exits_0(capsys) -> None:
    assert main(["equiv", "R ; (T ; U)", "(R ; T) ; U"]) == 0
    out = capsys.readouterr()
    assert out.out == "equivalent\n" and "equivalent to" in out.err


def test_equiv_prints_a_replayable_stream_and_exits_1(capsys, tmp_path: Path) -> None:
    assert main(["equiv", "R ; T", "R : T", "--dot", str(tmp_path / "p.dot")]) == 1
    out = capsys.readouterr()
    events = [json.loads(line) for line in out.out.splitlines()]
    assert [e["type"] for e in events] == ["R", "R", "T"]
    assert "at position 2" in out.err and '{"R":[0],"T":[2]}' in out.err
    assert (tmp_path / "p.dot").read_text().count("->") >= 3
    # replaying the stream with eval shows the difference at position 2
    stream = tmp_path / "s.jsonl"
    stream.write_text(out.out)
    assert main(["eval", "R ; T", "--stream", str(stream), "--valuations"]) == 0
    seq = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert main(["eval", "R : T", "--stream", str(stream), "--valuations"]) == 0
    contig = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {"R": [0], "T": [2]} in seq[-1]["outputs"] and {"R": [0], "T": [2]} not in contig[-1]["outputs"]


def test_equiv_contained_and_levels(capsys) -> None:
    assert main(["equiv", "--contained", "R:+", "R+"]) == 0
    assert main(["equiv", "--contained", "R+", "R:+"]) == 1
    assert main(["equiv", "R IN A", "R IN B", "--level", "complex_events"]) == 0
    assert main(["equiv", "--logic", "socel", "R ; T", "(R ; T) OR (R ; T)"]) == 0
    assert main(["equiv", "--logic", "sremo", '<type = "a"> | <type = "b">', '<type = "b"> | <type = "a">']) == 0


@pytest.mark.parametrize("argv, reason", [
    (["equiv", "(R ; T) FILTER R.x = T.x", "R ; T"], "n-ary filter"),
    (["equiv", "--logic", "sremo", '<type = "a"> -> r1 . <x = r1.x>', '<type = "a">'], "registers"),
    (["equiv", "--logic", "focel", "R", "T"], "binary predicates"),
    (["equiv", "--logic", "ceql", "a", "b"], "windows"),
    (["equiv", "--schema", "R(x) T(x)", "R ; U", "R"], "not in the schema"),
    (["equiv", "R ;", "R"], "line 1"),
    (["equiv", "(R OR T)+ ; R ; (R OR T) ; (R OR T)", "((R OR T)+ ; R ; (R OR T) ; (R OR T)) OR ((R OR T)+ ; R ; (R OR T) ; (R OR T))", "--budget", "5"],
     "past --budget 5; give a larger --budget"),
])
def test_equiv_bad_input_exits_2_with_the_reason(capsys, argv: list[str], reason: str) -> None:
    assert main(argv) == 2
    assert reason in capsys.readouterr().err


def test_console_entry_point_runs_equiv() -> None:
    done = subprocess.run([sys.executable, "-m", "cer_theory.cli", "equiv", "T ; H", "H ; T"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1 and len(done.stdout.splitlines()) == 2, done.stderr
