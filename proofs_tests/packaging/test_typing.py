"""``mypy --strict`` on the public surface (decision D246): the front-door modules themselves, and a typed user
program calling every front-door name, with the types the installed ``py.typed`` exposes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
FRONT_DOOR = ["cer_theory/__init__.py", "cer_theory/formalisms/formula.py", "cer_theory/examples/streams.py",
              "cer_theory/core/events.py", "cer_theory/core/protocols.py"]


def mypy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", *args], cwd=ROOT,
                          capture_output=True, text=True)


def test_the_front_door_modules_are_strict_clean() -> None:
    result = mypy("--follow-imports=silent", *FRONT_DOOR)
    assert result.returncode == 0, result.stdout


def test_a_typed_user_program_checks() -> None:
    result = mypy("--follow-imports=silent", str(Path(__file__).with_name("typed_client.py")))
    assert result.returncode == 0, result.stdout
