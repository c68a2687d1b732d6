"""The pycer venv is Python code cer_theory runs: it is run only when nobody but this user could have written it
(the same rule as the compiled Graphviz module in the user's cache)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cer_theory.conformance import adapters
from cer_theory.conformance.adapters import ConformanceError, pycer_adapter
from cer_theory.conformance.pycer_env import ensure_pycer, untrusted_venv

pytestmark = pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")


def fake_venv(tmp_path: Path) -> tuple[Path, Path]:
    """A venv-shaped tree whose ``bin/python`` leaves a mark when it is run; returns (venv, mark)."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    venv = cache / "pycer-py313"
    (venv / "bin").mkdir(parents=True, mode=0o755)
    (venv / "lib" / "site-packages").mkdir(parents=True, mode=0o755)
    (venv / "lib" / "site-packages" / "pycer.py").write_text("")
    os.symlink("lib", venv / "lib64")
    mark = tmp_path / "ran"
    python = venv / "bin" / "python"
    python.write_text(f"#!/bin/sh\ntouch {mark}\nexit 0\n")
    python.chmod(0o755)
    os.symlink("python", venv / "bin" / "python3")
    return venv, mark


def test_a_private_venv_with_its_links_is_trusted(tmp_path: Path) -> None:
    venv, _ = fake_venv(tmp_path)
    assert untrusted_venv(venv) is None


@pytest.mark.parametrize("where", ["lib/site-packages/pycer.py", "lib/site-packages", "bin", ".", ".."])
def test_an_entry_others_can_write_makes_the_venv_untrusted(tmp_path: Path, where: str) -> None:
    venv, _ = fake_venv(tmp_path)
    entry = venv / where
    entry.chmod(entry.stat().st_mode | 0o022)
    why = untrusted_venv(venv)
    assert why is not None and "not private" in why, why


def test_ensure_pycer_never_runs_an_untrusted_venv(tmp_path: Path) -> None:
    venv, mark = fake_venv(tmp_path)
    (venv / "lib" / "site-packages").chmod(0o777)
    python, why = ensure_pycer(venv, python313="/nonexistent/python3.13")
    assert python is None and "not private" in why, why
    assert not mark.exists(), "the untrusted venv's python was run"


def test_ensure_pycer_uses_a_private_venv(tmp_path: Path) -> None:
    venv, mark = fake_venv(tmp_path)
    python, why = ensure_pycer(venv, python313="/nonexistent/python3.13")
    assert python == str(venv / "bin" / "python"), why
    assert mark.exists()


def test_the_adapter_refuses_an_untrusted_default_venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    venv, mark = fake_venv(tmp_path)
    (venv / "bin").chmod(0o777)
    monkeypatch.setattr(adapters, "PYCER_VENV", venv)
    monkeypatch.setattr(adapters, "DEFAULT_PYCER_PYTHON", str(venv / "bin" / "python"))
    with pytest.raises(ConformanceError, match="not private"):
        pycer_adapter()
    assert not mark.exists(), "the untrusted venv's python was run"
