"""The code blocks of the README and the guides, as the tests run them.

Conventions (docs/decisions.md D241): a ```` ```python ```` block is a program, run from top to bottom in a fresh
namespace (each block imports what it uses); a ```` ```sh ```` block holds commands a reader types, and every line starting with ``cer-theory`` is
run, with the bundled data files (``fire.jsonl``, ``stocks.jsonl``, ``sensors.jsonl``, ``stocks.ceql``) in the
working directory; ```` ```text ```` blocks are synopses and outputs, shown, never run. ``make`` and
``python -m benchmarks`` lines need a checkout of the repository and are run by CI itself. ``cer-theory serve``
serves until it is stopped: it is run on a free port of this machine, asked for its sign-in page, and stopped.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "cer_theory" / "examples" / "data"
FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    lang: str
    text: str

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path: Path, lang: str) -> list[Block]:
    """The fenced blocks of ``path`` in language ``lang`` (top-level fences only)."""
    found: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        start, j = i, i + 1
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        if m.group(1) == lang:
            found.append(Block(path, start + 1, lang, "\n".join(lines[start + 1:j]) + "\n"))
        i = j + 1
    return found


def commands(block: Block) -> list[str]:
    """The ``cer-theory`` commands of a shell block, continuation lines joined."""
    joined = block.text.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip().startswith("cer-theory ")]


def data_dir(tmp: Path) -> Path:
    """A working directory holding copies of the bundled data files (an example never writes beside them)."""
    for f in DATA.iterdir():
        if f.is_file():
            shutil.copy(f, tmp / f.name)
    return tmp


def documents() -> list[Path]:
    """The README, the getting-started page and the guides of the documentation site."""
    return [ROOT / "README.md", ROOT / "docs" / "getting-started.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]


def run_command(command: str, cwd: Path, bin_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONWARNINGS": "ignore"}
    if command.startswith("cer-theory serve"):
        return _serve(command, cwd, env)
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _serve(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A serving command run until it answers its sign-in page (exit 0) or ends on its own (its own exit)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(["bash", "-c", f"exec {command} --port {port}"], cwd=cwd, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    try:
        while process.poll() is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/signin", timeout=5) as page:
                    if page.status == 200:
                        break
            except OSError:
                time.sleep(0.2)
        answered = process.poll() is None
    finally:
        process.terminate()
        out, err = process.communicate(timeout=60)
    return subprocess.CompletedProcess(command, 0 if answered else (process.returncode or 2), out, err)


def check_command(where: str, command: str, result: subprocess.CompletedProcess[str]) -> None:
    """Exit 0, or 1 where the command answers "no" (``equiv`` on different formulas); never 2 (a bad example) nor a
    traceback."""
    assert "Traceback" not in result.stderr, f"{where}: {command}\n{result.stderr}"
    assert result.returncode in (0, 1), f"{where}: {command}\nexit {result.returncode}\n{result.stderr}"
