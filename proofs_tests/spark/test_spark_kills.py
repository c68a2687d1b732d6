"""``cer-theory spark`` killed at random points (docs/decisions.md D300, docs/robustness.md): for each output
format, SIGTERM and SIGINT sent once the Spark session is up leave the old output folder byte for byte (or, when
the job finished first, the new one complete: read back and compared with a complete run), exit 143 or 130 with
one line and no traceback, and no temporary folder beside the output, also once Spark's JVM has ended.

Each kill starts a JVM (about 20 s on two loaded cores), so there are two per format, at seeded random points
between the session's start and twice the job's time on the test's own session (which writes the old output).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from cer_theory.cli import main
from cer_theory.spark.job import interrupt_raises

pytestmark = [pytest.mark.spark, pytest.mark.slow]

QUERY = "SELECT * FROM S WHERE BUY as b ; SELL as s FILTER b[volume > 10]"  # (11,325 complex events)


def _trades(path: Path, n: int = 300) -> None:
    rows = [json.dumps({"type": "BUY" if i % 2 == 0 else "SELL", "volume": 20 + i % 7}) for i in range(n)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def _read_back(folder: Path, fmt: str) -> list[str]:
    """The rows of a complete output folder, without Spark (raises if it is not one: a part file cut short is
    invalid JSON, a Parquet file without its footer unreadable; Spark writes ``_SUCCESS`` last)."""
    assert (folder / "_SUCCESS").is_file() and (folder / "_cer_theory_output").is_file(), sorted(os.listdir(folder))
    if fmt == "parquet":
        rows = [row for part in sorted(folder.glob("part-*.parquet")) for row in pq.read_table(part).to_pylist()]
    else:
        rows = [json.loads(line) for part in sorted(folder.glob("part-*.json"))
                for line in part.read_text(encoding="utf-8").splitlines()]
    return sorted(json.dumps(row, sort_keys=True) for row in rows)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started (Spark's JVM), from /proc."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def _wait_gone(pids: list[int], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while any(Path(f"/proc/{p}").exists() for p in pids) and time.monotonic() < deadline:
        time.sleep(0.2)


def _start(argv: list[str]) -> tuple[subprocess.Popen, float]:
    """Start ``spark`` and return once its session is up (its first own line on stderr), with that time."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.startswith("spark: session on"):
            return proc, time.monotonic()
    raise AssertionError(f"spark ended before its session started: {proc.wait()}")


@pytest.mark.parametrize("fmt", ["json", "parquet"])
def test_sigterm_and_sigint_at_random_points_leave_the_old_output_or_the_new_one(spark, capsys, tmp_path: Path,
                                                                                fmt: str) -> None:
    trades, out = tmp_path / "t.jsonl", tmp_path / "out"
    _trades(trades)
    args = ["spark", "--query", QUERY, "--input", str(trades), "--output", str(out), "--format", fmt, "--overwrite",
            "--progress", "0"]
    started = time.monotonic()
    assert main(args) == 0, capsys.readouterr().err  # (the old output, on the test's session)
    job = 2 * (time.monotonic() - started)  # (a fresh JVM is slower: the window the kills fall in)
    complete = _read_back(out, fmt)
    argv = [sys.executable, "-m", "cer_theory.cli", *args, "--master", "local[2]"]
    assert len(complete) == 11_325
    rng = random.Random(f"spark kills {fmt}")
    for sig, code in [(signal.SIGTERM, 143), (signal.SIGINT, 130)]:
        old = _snapshot(out)
        proc, _ = _start(argv)
        time.sleep(rng.uniform(0.0, job))
        jvm = _children(proc.pid)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=600)
        _wait_gone(jvm)  # (a task still writing after the driver ended would leave a folder behind)
        if proc.returncode == 0:  # (the job finished first: the new output complete)
            assert _read_back(out, fmt) == complete
        else:
            assert proc.returncode == code, f"{sig} {proc.returncode}\n{err}"
            assert err.strip().splitlines()[-1] == ("cer-theory spark: terminated" if code == 143 else
                                                    "cer-theory spark: interrupted"), err
            assert "Traceback" not in err, err
            now = _snapshot(out)
            if now != old:  # (the signal came during the swap, which ends first: the new output complete)
                assert _read_back(out, fmt) == complete, err
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "t.jsonl"], err


def test_interrupt_raises_records_every_signal_also_nested_and_restores_the_handlers() -> None:
    """The signals received during a job are recorded (a Py4J call cut by one may fail with a lost connection,
    and the command then re-raises the signal), by every nested level, each signal still raising its own
    exception; the handlers before are restored after."""
    def term(signum: int, frame: object) -> None:
        raise SystemExit("terminated")

    before, sigint = signal.signal(signal.SIGTERM, term), signal.getsignal(signal.SIGINT)
    try:
        with interrupt_raises() as outer:
            with interrupt_raises() as inner:
                with pytest.raises(KeyboardInterrupt):
                    signal.raise_signal(signal.SIGINT)
                with pytest.raises(SystemExit):
                    signal.raise_signal(signal.SIGTERM)
            assert inner == outer == [signal.SIGINT, signal.SIGTERM]
        assert signal.getsignal(signal.SIGTERM) is term
        assert signal.getsignal(signal.SIGINT) is sigint  # (PySpark's, once a session started here)
    finally:
        signal.signal(signal.SIGTERM, before)
