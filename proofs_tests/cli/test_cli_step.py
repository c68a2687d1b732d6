"""``cer-theory step``: one self-contained HTML page per run, for every formalism, with clear refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cer_theory.cli import main

STREAM = [{"type": "H", "hum": 25, "id": 2}, {"type": "T", "tmp": 45, "id": 0}, {"type": "H", "hum": 18, "id": 0}]


@pytest.fixture
def stream(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in STREAM), encoding="utf-8")
    return path


def _frames(page: Path) -> dict:
    text = page.read_text(encoding="utf-8")
    start = text.index('<script id="run-data" type="application/json">') + len(
        '<script id="run-data" type="application/json">')
    return json.loads(text[start:text.index("</script>", start)])


@pytest.mark.parametrize("logic, formula, model", [
    ("cel", "(T AS x ; H AS y) FILTER x[tmp > 40]", "CEA"),
    ("socel", "T ; H", "UCEA"),
    ("acel", "AGG M[n <- count(X.tmp)](T AS X ; H)", "ACEA"),
    ("sremo", '<type = "T"> -> r1 . [TRUE]* . <type = "H" AND id = r1.id>', "SRT"),
    ("ceql", "SELECT * FROM S WHERE T ; H", "tECS"),  # CORE semantics: runs start everywhere
])
def test_every_formalism_steps_to_its_outputs(capsys, tmp_path: Path, stream: Path, logic: str, formula: str,
                                              model: str) -> None:
    page = tmp_path / "run.html"
    assert main(["step", formula, "--logic", logic, "--stream", str(stream), "-o", str(page)]) == 0
    assert f"3 positions of the {model} run" in capsys.readouterr().err
    data = _frames(page)
    assert data["model"] == model and len(data["frames"]) == 4
    assert data["frames"][-1]["outputs"], "T(tmp=45) then H(id=0) is a match in every formalism here"


@pytest.mark.parametrize("engine, model", [("cces", "CCES"), ("tecs", "tECS")])
def test_the_engines_structures_are_stepped(tmp_path: Path, stream: Path, engine: str, model: str) -> None:
    page = tmp_path / "run.html"
    assert main(["step", "T ; H", "--engine", engine, "--stream", str(stream), "-o", str(page)]) == 0
    data = _frames(page)
    assert data["model"] == model and all(f["svg"] for f in data["frames"][1:])


def test_past_the_budget_one_clear_line_and_no_page(capsys, tmp_path: Path, stream: Path) -> None:
    page = tmp_path / "run.html"
    assert main(["step", "T ; H", "--stream", str(stream), "-o", str(page), "--max-positions", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "at most 2 positions and the stream has 3" in err and "--positions" in err
    assert not page.exists()
    assert main(["step", "T ; H", "--stream", str(stream), "-o", str(page), "--positions", "2",
                 "--max-positions", "2"]) == 0
    assert len(_frames(page)["frames"]) == 3


def test_the_page_never_overwrites_the_stream(capsys, stream: Path) -> None:
    before = stream.read_bytes()
    assert main(["step", "T ; H", "--stream", str(stream), "-o", str(stream)]) == 2
    assert "overlaps the input --stream" in capsys.readouterr().err and stream.read_bytes() == before


def test_draw_greys_useless_states_and_says_so(capsys) -> None:
    """Theorem 6.2's CEA of ``R ; T+`` has a state no accepting run visits: drawn, with its number, grey and dashed,
    and the caption says so (D384); --all-states draws it like the others, with no caption."""
    assert main(["draw", "R ; T+"]) == 0
    greyed = capsys.readouterr().out
    assert main(["draw", "R ; T+", "--all-states"]) == 0
    full = capsys.readouterr().out
    for dot in (greyed, full):
        assert dot.count("shape=circle") + dot.count("shape=doublecircle") == 5
    assert greyed.count("style=dashed") >= 1 and "grey: states no accepting run visits" in greyed
    assert "style=dashed" not in full and "grey:" not in full
    # SREMO's SRT too: the branch EMPTY of a union is a pair of states no run crosses.
    assert main(["draw", "--logic", "sremo", 'EMPTY | <type = "A">']) == 0
    greyed = capsys.readouterr().out
    assert main(["draw", "--logic", "sremo", 'EMPTY | <type = "A">', "--all-states"]) == 0
    full = capsys.readouterr().out
    for dot in (greyed, full):
        assert dot.count("shape=circle") + dot.count("shape=doublecircle") == 6 + 1  # + the default node style
    assert greyed.count("fontcolor=gray50") >= 2 and "grey: states no accepting run visits" in greyed
    assert main(["draw", "--logic", "acel", "A AS X", "--all-states"]) == 2
    assert "--all-states is for complex event automata" in capsys.readouterr().err
