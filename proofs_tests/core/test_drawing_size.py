"""Drawings sized for the room (docs/decisions.md D394): an SVG fills the width it is given, up as well as down; its
labels read at projector size when it fills a 1920 px page; ``scale`` (``--scale`` on the command line) fixes a
drawing at a multiple of its natural size; the tECS's ``max`` labels sit inside their nodes, where no edge runs."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import cer_theory as ct
from cer_theory.core.drawing import LABEL_FONT, graphviz_available
from cer_theory.core.drawing.render import _with_dpi, render_svg, scalable, write_drawing
from cer_theory.core.errors import CerError
from cer_theory.stepper import tecs_run
from cer_theory.examples.running_example import FORMULAS, fire_stream, formula
from cer_theory.formalisms.cel.compile import compile_automaton

pytestmark = pytest.mark.skipif(not graphviz_available("svg"), reason="no Graphviz renders SVG here")

SVG_NS = "{http://www.w3.org/2000/svg}"
E1 = '<type = "B"> -> r1 . [TRUE]* . <type = "S" AND id = r1.id>'  # the SRT paper's e₁
PROJECTOR_PX = 20  # a label's font size, in CSS pixels, that reads from the back of a room


def root_of(svg: str) -> str:
    start = svg.index("<svg")
    return svg[start:svg.index(">", start) + 1]


def view_width(svg: str) -> float:
    return float(re.search(r'viewBox="[-0-9.]+ [-0-9.]+ ([0-9.]+) [0-9.]+"', root_of(svg)).group(1))


def edge_label_sizes(svg: str) -> list[float]:
    tree = ET.fromstring(svg)
    return [float(text.get("font-size")) for g in tree.iter(f"{SVG_NS}g") if g.get("class") == "edge"
            for text in g.iter(f"{SVG_NS}text")]


def test_by_default_a_drawing_fills_its_width_and_has_no_maximum_width() -> None:
    svg = ct.cel(FORMULAS["φ3"]).draw().to_svg()
    root = root_of(svg)
    assert 'width="100%"' in root and "max-width" not in root and ' height="' not in root, root
    assert "max-height: 100vh" in root  # a tall drawing stays on one screen


@pytest.mark.parametrize("drawing", [lambda: ct.cel(FORMULAS["φ3"]).draw(), lambda: ct.sremo(E1).draw()],
                         ids=["phi3 CEA", "SRT e1"])
def test_labels_read_on_a_projector_when_the_drawing_fills_a_1920_px_page(drawing) -> None:
    """The SVG's user unit is the point (4/3 px); filling 1920 px multiplies it by 1920 / the viewBox's width."""
    svg = drawing().to_svg()
    sizes = edge_label_sizes(svg)
    assert sizes and min(sizes) >= LABEL_FONT["fontsize"]
    shown_px = min(sizes) * 1920 / view_width(svg)
    assert shown_px >= PROJECTOR_PX, f"labels at {shown_px:.1f} px on a 1920 px page"


def test_scale_fixes_a_multiple_of_the_natural_size() -> None:
    natural = '<svg width="200pt" height="50pt" viewBox="0.00 0.00 200.00 50.00"><g/></svg>'
    root = root_of(scalable(natural, 1.5))
    assert 'width="300.0pt"' in root and 'height="75.0pt"' in root and "max-width: 100%" in root, root
    svg = ct.cel("R ; T").draw(scale=2).to_svg()
    width = float(re.search(r'width="([0-9.]+)pt"', root_of(svg)).group(1))
    assert width == pytest.approx(2 * view_width(svg), rel=0.02)
    # a call's own scale wins over the drawing's
    assert 'width="100%"' not in root_of(ct.cel("R ; T").draw(scale=2).to_svg(scale=0.5))


@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf, True, "2"])
def test_a_scale_that_is_not_a_positive_number_is_refused(bad: object) -> None:
    with pytest.raises(CerError, match="scale must be a positive number"):
        scalable('<svg width="1pt" height="1pt" viewBox="0 0 1 1"/>', bad)  # type: ignore[arg-type]
    with pytest.raises(CerError):
        ct.cel("R").draw(scale=bad)  # type: ignore[arg-type]


def test_a_bitmap_scale_raises_graphvizs_resolution_and_keeps_the_dot_valid(tmp_path: Path) -> None:
    dot = ct.cel("R ; T").draw(title="a {title} with braces").to_dot()
    scaled = _with_dpi(dot, 2)
    assert scaled.splitlines()[1] == "  dpi=192;"
    assert render_svg(scaled)  # still DOT that Graphviz reads
    out = tmp_path / "a.svg"
    write_drawing(dot, out, scale=1.5)
    assert 'style="max-width: 100%' in root_of(out.read_text(encoding="utf-8"))


def test_draw_scale_on_the_command_line(tmp_path: Path) -> None:
    def draw(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "cer_theory.cli", "draw", "R ; T", *extra], cwd=tmp_path,
                              capture_output=True, text=True)

    assert draw("-o", "big.svg", "--scale", "1.5").returncode == 0
    assert 'width="100%"' not in root_of((tmp_path / "big.svg").read_text(encoding="utf-8"))
    assert draw("-o", "fill.svg").returncode == 0
    assert 'width="100%"' in root_of((tmp_path / "fill.svg").read_text(encoding="utf-8"))
    for bad in ("0", "-2", "abc", "inf"):
        result = draw("-o", "x.svg", "--scale", bad)
        assert result.returncode == 2 and "Traceback" not in result.stderr, (bad, result.stderr)
        assert "--scale" in result.stderr and not (tmp_path / "x.svg").exists()


def test_the_tecs_max_labels_sit_inside_their_nodes() -> None:
    """Inside its node a label cannot meet an edge: Graphviz routes edges around nodes. (As external labels,
    placed after the edges were routed, they were drawn over them.)"""
    run = tecs_run(compile_automaton(formula("φ1")), list(fire_stream()))  # the stepper's tECS frames
    svg = run.frames[-1].svg
    assert svg is not None
    tree = ET.fromstring(svg[svg.index("<svg"):])
    checked = 0
    for g in tree.iter(f"{SVG_NS}g"):
        texts = [t for t in g.iter(f"{SVG_NS}text") if (t.text or "").startswith("max ")]
        if g.get("class") != "node" or not texts:
            continue
        ellipse = g.find(f"{SVG_NS}ellipse")
        assert ellipse is not None, "a node with a max label is a circle"
        cx, cy, rx, ry = (float(ellipse.get(a)) for a in ("cx", "cy", "rx", "ry"))
        for t in texts:
            x, y = float(t.get("x")), float(t.get("y"))
            assert ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 < 1, f"{t.text} outside its node"
            checked += 1
    assert checked >= 5
