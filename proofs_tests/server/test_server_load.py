"""The load run of the course server (benchmarks/server_load.py) in miniature: four students for twelve seconds,
the server killed and started again halfway; every received answer stored, graded once, with the expected verdict.
CI runs the full size (100 students, 5 minutes) as a step of its own."""

from __future__ import annotations

import json

from benchmarks import server_load


def test_a_small_class_through_a_kill_and_restart(tmp_path, capsys) -> None:
    out = tmp_path / "load.json"
    assert server_load.main(["--students", "4", "--minutes", "0.2", "--seed", "3", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["server restarts"] == 1 and report["received"] >= 8
    assert all(report["checks"].values())
