"""A duration window over events without its timestamp attribute: the error names the fix (docs/decisions.md D247)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cer_theory.core.events import Event
from cer_theory.core.windows import time_like

QUERY = "SELECT * WHERE SELL ; BUY WITHIN 5 SECONDS"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cer_theory.cli", *args], capture_output=True, text=True)


def write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_time_like_attributes() -> None:
    assert time_like(Event("A", stock_time=3, ts=1.5, timer=2, name="x", time_zone="UTC", flag=True)) == [
        "stock_time", "ts"]
    assert time_like(Event("A", volume=3)) == []


def test_the_error_suggests_the_time_attribute(tmp_path: Path) -> None:
    stream = write(tmp_path / "s.jsonl", [{"type": "SELL", "stock_time": 1}, {"type": "BUY", "stock_time": 2}])
    result = run("run", "--query", QUERY, "--stream", str(stream))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "line 1, field 'time'" in result.stderr
    assert "add --time-attribute stock_time" in result.stderr
    fixed = run("run", "--query", QUERY, "--stream", str(stream), "--time-attribute", "stock_time")
    assert fixed.returncode == 0, fixed.stderr
    assert json.loads(fixed.stdout.splitlines()[0])["positions"] == [0, 1]


def test_no_suggestion_without_a_time_like_attribute(tmp_path: Path) -> None:
    stream = write(tmp_path / "s.jsonl", [{"type": "SELL", "volume": 1}, {"type": "BUY", "volume": 2}])
    result = run("run", "--query", QUERY, "--stream", str(stream))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "--time-attribute" not in result.stderr and "'time'" in result.stderr
