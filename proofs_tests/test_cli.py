"""The ``cer-theory`` command-line contract: eval's JSON lines, draw, demo, and the error cases."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from cer_theory.cli import main
from cer_theory.examples import FORMULAS

FIRE = str(resources.files("cer_theory").joinpath("data/fire.jsonl"))
FIRE_CSV = str(resources.files("cer_theory").joinpath("data/fire.csv"))


def _lines(capsys) -> list[dict]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize("via", ["semantics", "cea"])
def test_eval_complex_events_contract(capsys, via: str) -> None:
    assert main(["eval", FORMULAS["φ1"], "--stream", FIRE, "--via", via]) == 0
    assert _lines(capsys) == [{"n": 2, "complex_events": [[1, 2]]}, {"n": 8, "complex_events": [[1, 8], [5, 8]]}]


def test_eval_valuations_contract(capsys) -> None:
    assert main(["eval", FORMULAS["φ1"], "--stream", FIRE_CSV, "--valuations"]) == 0
    assert _lines(capsys) == [{"n": 2, "valuations": [{"H": [2], "T": [1]}]},
                              {"n": 8, "valuations": [{"H": [8], "T": [1]}, {"H": [8], "T": [5]}]}]


def test_eval_prints_empty_complex_events_and_omits_empty_variables(capsys, tmp_path: Path) -> None:
    stream = tmp_path / "s.jsonl"
    stream.write_text('{"type": "R"}\n{"type": "T"}\n{"type": "R"}\n')
    assert main(["eval", "PI[](R)", "--stream", str(stream), "--via", "cea"]) == 0
    assert _lines(capsys) == [{"n": 0, "complex_events": [[]]}, {"n": 2, "complex_events": [[]]}]
    assert main(["eval", "PI[](R)", "--stream", str(stream), "--valuations"]) == 0
    assert _lines(capsys) == [{"n": 0, "valuations": [{}]}, {"n": 2, "valuations": [{}]}]


def test_eval_formula_from_file(capsys, tmp_path: Path) -> None:
    f = tmp_path / "phi.cel"
    f.write_text(FORMULAS["φ3"] + "\n")
    assert main(["eval", f"@{f}", "--stream", FIRE]) == 0
    assert _lines(capsys) == [{"n": 7, "complex_events": [[3, 4, 6, 7], [3, 4, 7], [3, 6, 7]]}]


def test_syntax_error_exits_2_naming_line_and_column(capsys) -> None:
    assert main(["eval", "(T ;\n ; H)", "--stream", FIRE]) == 2
    err = capsys.readouterr().err
    assert "line 2, column 2" in err and "expected" in err


def test_bad_stream_exits_2_naming_line_and_field(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "R"}\n{"x": 1}\n')
    assert main(["eval", "R", "--stream", str(bad)]) == 2
    assert "line 2, field 'type'" in capsys.readouterr().err


def test_binary_filter_via_cea_exits_2(capsys) -> None:
    assert main(["eval", FORMULAS["φ5"], "--stream", FIRE, "--via", "cea"]) == 2
    assert "not unary" in capsys.readouterr().err
    assert main(["eval", FORMULAS["φ5"], "--stream", FIRE]) == 0  # the semantics handles n-ary filters


def test_draw_writes_svg_and_dot(tmp_path: Path, capsys) -> None:
    if shutil.which("dot") is None:
        pytest.skip("Graphviz 'dot' not installed")
    svg, dot = tmp_path / "a.svg", tmp_path / "a.dot"
    assert main(["draw", FORMULAS["φ3"], "-o", str(svg)]) == 0
    assert "<svg" in svg.read_text()
    assert main(["draw", "R ; T", "-o", str(dot)]) == 0
    assert dot.read_text().startswith("digraph")
    assert main(["draw", "R ;; T"]) == 2


def test_demo_runs_the_running_example(tmp_path: Path, capsys) -> None:
    if shutil.which("dot") is None:
        pytest.skip("Graphviz 'dot' not installed")
    assert main(["demo", "--figures", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "agree on every position" in out and "{1,8}, {5,8}" in out
    assert (tmp_path / "phi3_cea.svg").exists()


def test_console_script_entry_point() -> None:
    exe = Path(sys.executable).with_name("cer-theory")
    if not exe.exists():
        pytest.skip("package not installed as a console script")
    proc = subprocess.run([str(exe), "eval", "R ; T", "--stream", FIRE], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout == ""
    proc = subprocess.run([str(exe), "eval", "R ;", "--stream", FIRE], capture_output=True, text=True)
    assert proc.returncode == 2 and "line 1, column" in proc.stderr
