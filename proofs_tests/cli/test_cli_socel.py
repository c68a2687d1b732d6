"""The SO-CEL paper on the command line: ``star-property --logic socel`` / ``--automaton`` and ``to-socel``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cer_theory.cli import main
from cer_theory.core.events import Stream
from cer_theory.formalisms.socel.automaton_json import automaton_to_json, save_automaton
from cer_theory.formalisms.socel.compile import compile_automaton
from cer_theory.formalisms.socel.examples import fig2_ucea
from cer_theory.formalisms.socel.parser import parse
from cer_theory.formalisms.socel.semantics import evaluate
from cer_theory.formalisms.socel.ucea import UCEA


@pytest.fixture
def fig2(tmp_path: Path) -> Path:
    path = tmp_path / "fig2.json"
    save_automaton(fig2_ucea(), path)
    return path


def test_star_property_of_fig2_file_prints_the_shortest_counterexample(capsys, fig2: Path) -> None:
    assert main(["star-property", "--automaton", str(fig2)]) == 0
    out = capsys.readouterr().out
    assert "lacks the *-property (condition (a) fails)" in out
    assert "word: (R,{R}) (T,∅)" in out and "stream: Stream([R(), T()])" in out


def test_star_property_of_socel_formulas(capsys, tmp_path: Path) -> None:
    assert main(["star-property", "--logic", "socel", "R ; T+"]) == 0
    assert "has the *-property" in capsys.readouterr().out
    assert main(["star-property", "--logic", "socel", "R UNLESS T", "--dot", str(tmp_path / "u.dot")]) == 0
    out = capsys.readouterr().out
    assert "lacks the *-property (condition (b) fails)" in out and "word: (T,∅) (R,{R})" in out
    assert (tmp_path / "u.dot").read_text().startswith("digraph")


def test_star_property_of_a_cea_file_reads_it_as_a_ucea(capsys, tmp_path: Path) -> None:
    data = automaton_to_json(fig2_ucea())
    data["kind"] = "cea"
    (tmp_path / "a.json").write_text(json.dumps(data))
    assert main(["star-property", "--automaton", str(tmp_path / "a.json")]) == 0
    assert "word: (R,{R}) (T,∅)" in capsys.readouterr().out


def test_to_socel_round_trips_by_evaluation(capsys, tmp_path: Path) -> None:
    """Thm 6.2 through the file format: the printed SO-CEL+ formula has the automaton's outputs at every n."""
    a = UCEA.of(compile_automaton(parse("(R IN A ; T+ IN B) FILTER A[x > 1]")).trim().relabel_states())
    save_automaton(a, tmp_path / "a.json")
    assert main(["to-socel", str(tmp_path / "a.json"), "--relations", "R,T,X"]) == 0
    header, text = capsys.readouterr().out.splitlines()
    assert header.startswith("# Thm 6.2: SO-CEL+") and "R,T,X" in header
    s = Stream.from_dicts([{"type": "R", "x": 2}, {"type": "X"}, {"type": "T"}, {"type": "R", "x": 0},
                           {"type": "T"}, {"type": "T"}])
    assert evaluate(parse(text), s) == a.run(s)


def test_to_socel_core_needs_the_star_property(capsys, tmp_path: Path, fig2: Path) -> None:
    a = UCEA.of(compile_automaton(parse("R IN A ; T IN B")).trim().relabel_states())
    save_automaton(a, tmp_path / "a.json")
    assert main(["to-socel", str(tmp_path / "a.json"), "--core"]) == 0
    header, text = capsys.readouterr().out.splitlines()
    assert "core SO-CEL" in header and "relations R,T,Other" in header
    s = Stream.from_types("R X T R T T")
    assert evaluate(parse(text), s) == a.run(s)
    assert main(["to-socel", str(fig2), "--core"]) == 2
    err = capsys.readouterr().err
    assert "--core needs the *-property" in err and "(R,{R}) (T,∅)" in err


@pytest.mark.parametrize("content, message", [
    ("{,}", "line 1, column 2: not JSON"),
    ('[1, 2]', "expected a JSON object, got list"),
    ('{"type": "R", "x": 1}', "missing field 'states'"),
])
def test_bad_automaton_files_exit_2_naming_the_place(capsys, tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    for argv in (["star-property", "--automaton", str(path)], ["to-socel", str(path)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and str(path) in err


def test_bad_arguments_exit_2(capsys, fig2: Path) -> None:
    assert main(["star-property"]) == 2
    assert "a formula is needed" in capsys.readouterr().err
    assert main(["star-property", "R", "--automaton", str(fig2)]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["star-property", "--logic", "socel", "R ;"]) == 2
    assert "line 1, column" in capsys.readouterr().err
    assert main(["to-socel", str(fig2), "--relations", ","]) == 2
    assert main(["to-socel", str(fig2.parent / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_console_script_has_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"kind": "ucea", "states": ["q"], "initial": ["q"], "final": ["q"], '
                                       '"transitions": [{"from": "q", "guard": "x >", "labels": [], "to": "q"}]}')
    r = subprocess.run([sys.executable, "-m", "cer_theory.cli", "to-socel", str(tmp_path / "bad.json")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "transitions[0].guard" in r.stderr
