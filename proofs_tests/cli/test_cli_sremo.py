"""The SRT paper on the command line: ``determinize --logic sremo`` and ``complement`` (sizes, drawings, errors)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cer_theory.cli import main

THM38 = '[TRUE]* . [type = "a"] -> r1 . [TRUE]* . <type = "b" AND id = r1.id>'


@pytest.mark.parametrize("w, unrolled, dsra", [(2, (3, 1), 3), (4, (15, 3), 27)])
def test_determinize_prints_the_section_4_8_sizes(capsys, w: int, unrolled: tuple[int, int], dsra: int) -> None:
    """The Thm. 38 / Fig. 4 pattern: unrolled states and register copies, dSRA states (docs/decisions.md D49)."""
    assert main(["determinize", "--logic", "sremo", THM38, "--window", str(w)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(f"(w = {w})")
    assert out[1].startswith(f"unrolled SRA (Lemma 46): {unrolled[0]} states,")
    assert out[1].endswith(f", {unrolled[1]} register{'s' if unrolled[1] != 1 else ''}")  # (core.wording.plural)
    assert out[2].startswith(f"dSRA (Thm. 41, Alg. 7; transitions = minterms): {dsra} states,")


def test_window_comes_from_within_and_dot_is_written(capsys, tmp_path: Path) -> None:
    assert main(["determinize", "--logic", "sremo", f"({THM38}) WITHIN 3", "--dot", str(tmp_path / "d.dot")]) == 0
    out = capsys.readouterr().out
    assert "(w = 3)" in out and ": 10 states," in out
    assert (tmp_path / "d.dot").read_text().startswith("digraph")


def test_complement_adds_the_dead_state(capsys, tmp_path: Path) -> None:
    assert main(["complement", THM38, "--window", "3", "--dot", str(tmp_path / "c.dot")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("dSRA (Thm. 41, Alg. 7): 10 states,")
    assert out[2].startswith("complement (Cor. 43, Alg. 8; with the dead state): 11 states,")
    assert "∅" in (tmp_path / "c.dot").read_text()


@pytest.mark.parametrize("argv, message", [
    (["determinize", "--logic", "sremo", THM38], "determinization needs a window"),
    (["complement", THM38], "determinization needs a window"),
    (["complement", THM38, "--window", "0"], "a window is a positive integer"),
    (["determinize", "--logic", "sremo", "<type = >", "--window", "2"], "line 1, column"),
    (["determinize", "--logic", "sremo", THM38, "--window", "40", "--budget", "100"], "past --budget 100; give a larger --budget"),
    (["determinize", "R ; T", "--window", "3"], "--window is not an option of cel's determinize"),
])
def test_bad_input_exits_2(capsys, argv: list[str], message: str) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


E1 = '<type = "B"> -> r1 . [TRUE]* . <type = "S" AND id = r1.id>'
TABLE_1 = [("B", 1), ("B", 1), ("B", 2), ("S", 1), ("S", 1), ("B", 2)]


def test_eval_via_dsrt_prints_the_streaming_matches(capsys, tmp_path: Path) -> None:
    """The SRT paper Table 1 with e₁ WITHIN 4: the same lines as the semantics (0-based, last-• reading)."""
    stream = tmp_path / "t1.jsonl"
    stream.write_text("".join(json.dumps({"type": t, "id": i}) + "\n" for t, i in TABLE_1))
    lines = {}
    for via in ("dsrt", "semantics"):
        assert main(["eval", "--logic", "sremo", f"({E1}) WITHIN 4", "--stream", str(stream), "--via", via]) == 0
        lines[via] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines["dsrt"] == lines["semantics"] == [{"position": 3, "kind": "matches", "outputs": [[0, 3], [1, 3]]},
                                                   {"position": 4, "kind": "matches", "outputs": [[1, 4]]}]
    assert main(["eval", "--logic", "sremo", E1, "--stream", str(stream), "--via", "dsrt"]) == 2
    assert "write (e) WITHIN w" in capsys.readouterr().err
    unmarked = '([type = "B"] -> r1 . [TRUE]* . <type = "S" AND id = r1.id>) WITHIN 1'
    assert main(["eval", "--logic", "sremo", unmarked, "--stream", str(stream), "--via", "dsrt"]) == 2
    assert "every match begins with a marked" in capsys.readouterr().err
