"""CORE's pycer needs CPython 3.13 (it ships cp313 wheels only): the virtual environment the conformance tests and
the benchmarks run it in, made from a 3.13 interpreter already on the machine and ``pip install pycer`` from the
package index. Nothing else is downloaded.

``python -m cer_theory.conformance.pycer_env`` makes it (``make test`` does, once: a few seconds) and prints one
line saying where it is or why it cannot be had; it fails when it cannot be had and ``$CI`` is set, so that the
pycer tests never skip in CI.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PYCER_VENV = Path(os.path.expanduser("~/.cache/cer_theory/pycer-py313"))
PYCER_PYTHON = PYCER_VENV / "bin" / "python"
PYCER_SKIP = "no CPython 3.13 interpreter on this machine; pycer ships cp313 wheels only"



def _python_version(python: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    major, minor = out.stdout.split()
    return int(major), int(minor)


def find_python313() -> tuple[str | None, list[str]]:
    """A working CPython 3.13 interpreter already on this machine (nothing is downloaded): ``python3.13`` on
    PATH, pyenv's installed versions, the usual system locations, ``uv python find`` (installed ones only).
    Returns (path or None, what was tried)."""
    candidates: list[str] = []
    on_path = shutil.which("python3.13")
    if on_path:
        candidates.append(on_path)
    pyenv_root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates += sorted(glob.glob(os.path.join(pyenv_root, "versions", "3.13*", "bin", "python3.13")),
                         reverse=True)
    candidates += ["/usr/bin/python3.13", "/usr/local/bin/python3.13"]
    uv = shutil.which("uv")
    if uv:
        try:
            found = subprocess.run([uv, "python", "find", "--no-python-downloads", "3.13"], capture_output=True,
                                   text=True, timeout=30)
            if found.returncode == 0 and found.stdout.strip():
                candidates.append(found.stdout.strip())
        except (OSError, subprocess.TimeoutExpired):
            pass
    tried = []
    for c in dict.fromkeys(candidates):
        if not os.path.exists(c):
            continue
        version = _python_version(c)
        tried.append(f"{c}: {'.'.join(map(str, version)) if version else 'does not run'}")
        if version == (3, 13):
            return c, tried
    return None, tried


def ensure_pycer(venv: Path, python313: str | None = None) -> tuple[str | None, str]:
    """The Python of a 3.13 venv with pycer installed (made with the package index's ``pip`` on first use), or
    (None, the reason it cannot be had)."""
    venv_python = venv / "bin" / "python"
    if venv_python.exists() and _imports_pycer(str(venv_python)):
        return str(venv_python), f"pycer venv {venv}"
    base = python313
    tried: list[str] = []
    if base is None:
        base, tried = find_python313()
    if base is None:
        return None, PYCER_SKIP + (f" (tried: {'; '.join(tried)})" if tried else "")
    if _python_version(base) != (3, 13):
        return None, f"{PYCER_SKIP} ({base} is not a working CPython 3.13)"
    venv.parent.mkdir(parents=True, exist_ok=True)
    made = subprocess.run([base, "-m", "venv", str(venv)], capture_output=True, text=True)
    if made.returncode != 0:
        return None, f"could not make a venv with {base}: {made.stderr.strip()[-300:]}"
    pip = subprocess.run([str(venv_python), "-m", "pip", "install", "--quiet", "pycer"], capture_output=True,
                         text=True)
    if pip.returncode != 0 or not _imports_pycer(str(venv_python)):
        return None, f"pip could not install pycer for {base}: {pip.stderr.strip()[-300:]}"
    return str(venv_python), f"pycer installed into {venv} from {base}"


def _imports_pycer(python: str) -> bool:
    try:
        return subprocess.run([python, "-c", "import pycer"], capture_output=True, timeout=60,
                              cwd=tempfile.gettempdir()).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def main() -> int:
    python, note = ensure_pycer(PYCER_VENV)
    if python is not None:
        print(f"pycer: {note}")
        return 0
    print(f"pycer: {note}", file=sys.stderr)
    return 1 if os.environ.get("CI") else 0


if __name__ == "__main__":
    sys.exit(main())
