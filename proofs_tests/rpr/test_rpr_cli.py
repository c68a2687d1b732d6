"""``cer-theory eval --logic rpr``: the rows ONE ROW PER MATCH outputs, at each match's last row, by either
evaluator; a query outside the fragment is one line on stderr with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cer_theory.cli import main

QUERY = ("MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(A.id) AS a, COUNT(*) AS n PATTERN (A B+) "
         "DEFINE A AS x = 0, B AS x > PREV(x))")


@pytest.mark.parametrize("via", ["semantics", "nfa"])
def test_eval_prints_each_matchs_row_at_its_last_row(capsys, tmp_path: Path, via: str) -> None:
    stream = tmp_path / "rows.jsonl"
    stream.write_text("".join(json.dumps({"type": "e", "id": i, "ts": i, "x": x}) + "\n"
                              for i, x in enumerate([0, 1, 2, 0, 3, 1])))
    assert main(["eval", "--logic", "rpr", "--via", via, QUERY, "--stream", str(stream)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines == [{"position": 2, "kind": "rows", "outputs": [{"partition": [], "measures": {"a": 0, "n": 3}}]},
                     {"position": 4, "kind": "rows", "outputs": [{"partition": [], "measures": {"a": 3, "n": 2}}]}]


def test_a_pattern_matching_no_row_is_refused_in_one_line(capsys, tmp_path: Path) -> None:
    stream = tmp_path / "rows.jsonl"
    stream.write_text('{"type": "e"}\n')
    assert main(["eval", "--logic", "rpr", "MATCH_RECOGNIZE (PATTERN (A*))", "--stream", str(stream)]) == 2
    err = capsys.readouterr().err
    assert "empty sequence" in err and "Traceback" not in err
