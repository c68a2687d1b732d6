"""One picture of an automaton (D384): ``draw``, the stepper and the grader's feedback show φ3's automaton (the CEL
paper, Example 3.2) with the same states and the same numbers; the states no accepting run visits are drawn grey,
never hidden, and the caption says so."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from cer_theory.cli import main
from cer_theory.core.drawing.dot import USELESS_CAPTION
from cer_theory.core.protocols import get
from cer_theory.examples.seed000 import FORMULAS, fire_stream
from cer_theory.exercises.checker import check, parse_exercise
from cer_theory.exercises.grading import construction_input

PHI3 = FORMULAS["φ3"]
SVG = "{http://www.w3.org/2000/svg}"

TRIM_PHI3 = f'''
title = "Trim the CEA of φ3"
logic = "cel"
kind = "construction"
difficulty = 2
text = "Remove every state of the CEA below that no accepting run visits."
reference = {json.dumps(PHI3)}
construction = "trim"

[solution]
text = "Keep the states on some run from an initial to a final state."

[schema]
T = ["id", "tmp"]
H = ["id", "hum"]
'''


def _drawn(dot: str) -> tuple[dict[str, str], set[str]]:
    """DOT node id → the number drawn in it, and the numbers drawn grey."""
    nodes = dict(re.findall(r'^  (q\d+) \[label="([^"]+)"', dot, re.M))
    grey = {nodes[q] for q, attrs in re.findall(r'^  (q\d+) \[(.*)\];$', dot, re.M) if "dashed" in attrs}
    return nodes, grey


def _svg_nodes(svg: str) -> dict[str, str]:
    """SVG node id (its <title>) → the number drawn in it."""
    root = ET.fromstring(svg)
    out = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "node":
            title, text = g.find(f"{SVG}title"), g.find(f"{SVG}text")
            if title is not None and text is not None and title.text.startswith("q"):
                out[title.text] = text.text
    return out


def test_draw_the_stepper_and_the_grader_number_phi3_alike(tmp_path: Path, capsys) -> None:
    # draw: every state, with its number; the useless ones grey, and the caption says so
    assert main(["draw", PHI3]) == 0
    dot = capsys.readouterr().out
    drawn, grey = _drawn(dot)
    assert sorted(drawn.values()) == ["0", "1", "2", "3", "4", "5"] and grey == {"1", "3"}
    assert USELESS_CAPTION in dot

    # the stepper: the same picture (same ids, same numbers), and every state it shades is one of them
    record = get("cel")
    run = record.construction("step")(record.parse(PHI3), fire_stream())
    assert _svg_nodes(run.svg) == drawn
    assert USELESS_CAPTION in run.svg
    active = set().union(*(f.active for f in run.frames))
    assert active <= set(drawn) and {drawn[q] for q in active} & grey, "a run passes through a grey state"

    # the grader: the exercise sheet's automaton and the feedback name the same states by the same numbers
    exercise = parse_exercise(TRIM_PHI3, name="trim_phi3")
    sheet = construction_input(exercise)
    assert sorted(map(str, sheet.states)) == sorted(drawn.values())
    path = tmp_path / "a.json"
    assert main(["draw", PHI3, "-o", str(path)]) == 0  # the student starts from the exported automaton
    feedback = check(exercise, path.read_text(encoding="utf-8"))
    assert feedback.status == "wrong" and "2 states of yours no accepting run visits: {1, 3}" in feedback.message
