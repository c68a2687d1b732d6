"""One grammar of durations (:mod:`cer_theory.core.durations`, docs/decisions.md D170) at every place that takes one:
``run --lateness``, ``spark --stream --lateness`` (Spark's watermark delay), and in CEQL ``WITHIN`` and ``CREATE
QUARANTINE`` (the CORE paper, *CORE: a Complex Event Recognition Engine*, §2.2), whose text keeps the paper's units
(hours, minutes, seconds) and reads them through the same table. Every place accepts the same texts with the same
value, and refuses the same texts with exit status 2 and one line on stderr, before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cer_theory.cli import main
from cer_theory.core.durations import UNITS, seconds
from cer_theory.core.errors import CerError
from cer_theory.formalisms.ceql.declarations import declared_lateness
from cer_theory.formalisms.ceql.parser import parse, parse_declarations
from cer_theory.spark.streaming import _delay_ms

GOOD = {"2": 2.0, "2.5": 2.5, "0": 0.0, "2 s": 2.0, "2 seconds": 2.0, "2 SECONDS": 2.0, "500 ms": 0.5,
        "500ms": 0.5, "1 minute 30 seconds": 90.0, "1 min, 30 s": 90.0, "1 hour": 3600.0, "2 h 1 m": 7260.0,
        "1 day": 86_400.0, "1.5e3 ms": 1.5}
BAD = ["", "   ", "abc", "seconds", "2 parsecs", "-1", "-2 seconds", "inf", "nan", "1e400", "2 2", "2 seconds 3",
       ", 2", "2 s s"]
PAPER = {"2 seconds": 2, "1 second": 1, "1 minute 30 seconds": 90, "1 hours 1 minutes 1 seconds": 3661,
         "3 MINUTES": 180}
"""Durations in CEQL's own syntax (the units of the CORE paper: hours, minutes, seconds)."""


@pytest.mark.parametrize("text", sorted(GOOD))
def test_the_grammar_reads_a_duration_in_seconds(text: str) -> None:
    assert seconds(text) == GOOD[text]
    assert _delay_ms(text) == int(GOOD[text] * 1000)  # Spark's watermark delay: the same value, in ms


@pytest.mark.parametrize("text", BAD)
def test_the_grammar_refuses_what_is_not_a_finite_duration(text: str) -> None:
    with pytest.raises(CerError, match="--lateness"):
        seconds(text, "--lateness")
    with pytest.raises(CerError):
        _delay_ms(text)


def test_numbers_are_seconds_and_every_unit_is_singular_or_plural() -> None:
    assert seconds(3) == 3.0 and seconds(0.25) == 0.25
    with pytest.raises(CerError):
        seconds(True)
    for unit, value in UNITS.items():
        assert seconds(f"2 {unit}") == 2 * value


@pytest.mark.parametrize("text", sorted(PAPER))
def test_within_and_quarantine_read_the_papers_units_through_the_same_table(text: str) -> None:
    assert parse(f"SELECT * FROM S WHERE A ; B WITHIN {text}").within.size == PAPER[text] == seconds(text)
    declared = parse_declarations(f"CREATE QUARANTINE {{ FIXED_TIME {text} {{S}} }}")
    assert declared_lateness(declared) == PAPER[text]


def _stream(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps({"type": t, "time": k}) + "\n" for k, t in enumerate("ABAB")))
    return path


@pytest.mark.parametrize("text", ["2", "500 ms", "1 min, 30 s"])
def test_run_lateness_accepts_the_grammar(capsys, tmp_path: Path, text: str) -> None:
    code = main(["run", "--query", "SELECT * FROM S WHERE A ; B", "--stream", str(_stream(tmp_path)),
                 "--lateness", text, "--late", str(tmp_path / "late.jsonl")])
    out, err = capsys.readouterr()
    assert code == 0 and len(out.splitlines()) == 3, err


@pytest.mark.parametrize("command", ["run", "spark --stream"])
@pytest.mark.parametrize("text", ["2 parsecs", "-1", "abc"])
def test_every_command_refuses_a_bad_lateness_alike(capsys, tmp_path: Path, command: str, text: str) -> None:
    stream = _stream(tmp_path)
    if command == "run":
        argv = ["run", "--stream", str(stream)]
    else:
        pytest.importorskip("pyspark")
        argv = ["spark", "--stream", "--input", str(tmp_path), "--output", str(tmp_path.parent / "out")]
    code = main([*argv, "--query", "SELECT * FROM S WHERE A ; B WITHIN 2 [time]", "--lateness", text])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and f"--lateness {text!r}" in err, err
