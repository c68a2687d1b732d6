"""Every Python block of the README and the guides runs; every ``cer-theory`` command of their shell blocks runs
on the bundled data without an error or a traceback (the conventions are in :mod:`doc_blocks`)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from doc_blocks import ROOT, Block, blocks, check_command, commands, data_dir, documents, run_command

PYTHON = [b for doc in documents() for b in blocks(doc, "python")]
SHELL = [(b, c) for doc in documents() for b in blocks(doc, "sh") for c in commands(b)]
SPARK = "cer_theory.spark"


def run_python(block: Block, cwd: Path) -> None:
    code = compile(block.text, block.where(), "exec")
    here = Path.cwd()
    os.chdir(cwd)
    try:
        exec(code, {"__name__": "__readme__"})
    finally:
        os.chdir(here)


@pytest.mark.parametrize("block", [b for b in PYTHON if SPARK not in b.text], ids=lambda b: b.where())
def test_python_block_runs(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a block may call the command line, as a reader's shell would find it
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    run_python(block, data_dir(tmp_path))


@pytest.mark.spark
@pytest.mark.parametrize("block", [b for b in PYTHON if SPARK in b.text], ids=lambda b: b.where())
def test_spark_python_block_runs(block: Block, tmp_path: Path, spark) -> None:
    run_python(block, data_dir(tmp_path))


@pytest.mark.parametrize("block,command", SHELL, ids=[f"{b.where()}:{c[:60]}" for b, c in SHELL])
def test_shell_command_runs(block: Block, command: str, tmp_path: Path) -> None:
    check_command(block.where(), command, run_command(command, data_dir(tmp_path), Path(sys.executable).parent))


def test_the_documents_have_examples() -> None:
    assert len(PYTHON) >= 3 and len(SHELL) >= 10


def test_readme_links_work_on_the_package_index() -> None:
    """The package index shows the README without the repository around it: every link is absolute, and every
    link into the repository names a file that exists."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    prose = re.sub(r"`[^`]*`", "", prose)
    links = re.findall(r"\]\(([^)\s]+)\)", prose)
    assert links
    relative = [u for u in links if not u.startswith(("https://", "#"))]
    assert not relative, f"relative links are dead on the package index: {relative}"
    repo = re.compile(r"https://github\.com/cer-theory/cer_theory/(?:blob|raw)/main/([^#]+)")
    missing = [u for u in links if (m := repo.match(u)) and not (ROOT / m.group(1)).exists()]
    assert not missing, missing
