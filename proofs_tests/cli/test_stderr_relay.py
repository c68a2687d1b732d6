"""The standard error relay of ``cer-theory spark`` (docs/decisions.md D310): what a child process (Spark's JVM)
writes is copied until the command mutes the relay, and nothing after — so the command's last line stays last
however long the child goes on printing. Without Spark: a Python child stands in for the JVM."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from cer_theory.cli.relay import StderrRelay

CHILD = """
import sys
print("child: before", file=sys.stderr, flush=True)
print("ready", flush=True)
sys.stdin.readline()
print("child: after", file=sys.stderr, flush=True)
"""


def _copied_until(capfd: pytest.CaptureFixture[str], text: str, seen: str = "", timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while text not in seen and time.monotonic() < deadline:
        seen += capfd.readouterr().err
        time.sleep(0.01)
    return seen


def _run_child(capfd: pytest.CaptureFixture[str], *, mute: bool) -> str:
    relay = StderrRelay()
    with relay.children():
        child = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True)
    assert child.stdout is not None and child.stdin is not None
    assert child.stdout.readline() == "ready\n"
    seen = _copied_until(capfd, "child: before")
    if mute:
        relay.mute()
    os.write(2, b"the command's last line\n")
    child.stdin.write("go\n")
    child.stdin.close()
    assert child.wait(timeout=30) == 0
    for thread in threading.enumerate():  # (the copy ends when the child's end of the pipe closes)
        if thread.name == "stderr-relay":
            thread.join(timeout=30)
    return seen + capfd.readouterr().err


def test_a_muted_relay_copies_nothing_after_the_last_line(capfd: pytest.CaptureFixture[str]) -> None:
    err = _run_child(capfd, mute=True)
    assert "child: before" in err, err
    assert "child: after" not in err, err
    assert err.splitlines()[-1] == "the command's last line", err


def test_an_open_relay_copies_the_child_to_the_end(capfd: pytest.CaptureFixture[str]) -> None:
    """The control: without mute() the child's late line does arrive after the command's, so the test above
    would fail if muting did nothing."""
    err = _run_child(capfd, mute=False)
    assert err.splitlines()[-1] == "child: after", err


def test_the_descriptor_is_restored_after_the_children_start(capfd: pytest.CaptureFixture[str]) -> None:
    before = os.fstat(2)
    with StderrRelay().children():
        inside = os.fstat(2)
    after = os.fstat(2)
    assert (inside.st_dev, inside.st_ino) != (before.st_dev, before.st_ino)  # (the pipe, while children start)
    assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)
