"""Ctrl-C stops any command promptly, whatever it is enumerating (docs/robustness.md, "The layer").

Each command below enumerates an exponential output (R+ over 60 R's: position n has 2^(n+1) − 1 complex events)
while its output is read as fast as it comes; SIGINT is sent once it has used 1.5 seconds of CPU, deep in the
enumeration (and in the memory it built). It must exit
with status 130 and its one line. "Promptly" is measured as the CPU time the command spends after the signal
(its whole CPU time, from the kernel at exit, minus what it had used when the signal was sent), not as wall time:
on a loaded machine a process may wait for a core, but it must not keep working. And the command must stop even
when it inherited SIGINT ignored, as a background job of a script or some CI runners start it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cer_theory.cli import EXIT_INTERRUPTED

ROOT = Path(__file__).resolve().parents[2]
CPU_AFTER_SIGNAL = 1.0  # seconds of CPU the command may spend between SIGINT and its exit
DEEP = 1.5  # seconds of CPU the command has spent enumerating when SIGINT is sent

COMMANDS = {
    # (a budget far past what a second of enumeration spends: every evaluator charges its outputs, D336)
    "cces": ["cces", "R+", "--stream", "STREAM", "--budget", "10" * 20],
    "eval": ["eval", "R+", "--stream", "STREAM", "--budget", "10" * 20],
    "eval --via semantics": ["eval", "R+ ; R+", "--via", "semantics", "--stream", "STREAM", "--budget", "10" * 20],
    "run": ["run", "--query", "SELECT * FROM S WHERE R+", "--stream", "STREAM"],
}


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads a process's CPU time from /proc")
@pytest.mark.parametrize("inherited", ["default", "ignored"])
@pytest.mark.parametrize("name", list(COMMANDS))
def test_sigint_stops_an_enumerating_command_within_a_second_of_cpu(tmp_path: Path, name: str,
                                                                     inherited: str) -> None:
    stream = tmp_path / "r.jsonl"
    stream.write_text('{"type": "R"}\n' * 60)
    argv = [a.replace("STREAM", str(stream)) for a in COMMANDS[name]]

    def child_setup() -> None:  # the signal disposition the command inherits
        signal.signal(signal.SIGINT, signal.SIG_IGN if inherited == "ignored" else signal.SIG_DFL)

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "cer_theory.cli", *argv], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=child_setup)
    received = [0]

    def drain() -> None:
        while chunk := proc.stdout.read(1 << 16):  # type: ignore[union-attr]
            received[0] += len(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    deadline = time.monotonic() + 120
    while _cpu_seconds(proc.pid) < DEEP and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, f"{name} ended before it could be interrupted: {proc.stderr.read()!r}"
    before = _cpu_seconds(proc.pid)
    proc.send_signal(signal.SIGINT)
    waited = time.monotonic() + 60  # wall time: only a bound for a hung test, not what is asserted
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid or time.monotonic() > waited:
            break
        time.sleep(0.02)
    if not pid:
        proc.kill()
        proc.wait()
        pytest.fail(f"{name} ({inherited}) still running 60 s after SIGINT")
    proc.returncode = os.waitstatus_to_exitcode(status)
    reader.join(timeout=10)
    err = proc.stderr.read()  # type: ignore[union-attr]
    after = usage.ru_utime + usage.ru_stime - before
    assert proc.returncode == EXIT_INTERRUPTED, (name, inherited, proc.returncode, err)
    assert err.endswith(f"cer-theory {argv[0]}: interrupted\n".encode()), err
    assert after < CPU_AFTER_SIGNAL, f"{name} ({inherited}) used {after:.2f} s of CPU after SIGINT"
