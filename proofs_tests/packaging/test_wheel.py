"""The built distributions, as a user gets them: the wheel installed **without extras** into a fresh virtual
environment runs every ``cer-theory`` command of the README on the bundled data with no traceback, and the wheel
and the sdist carry what the package index and type checkers read (py.typed, LICENSE, the SPDX license, URLs)."""

from __future__ import annotations

import email.parser
import shutil
import os
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from doc_blocks import ROOT, blocks, check_command, commands, data_dir, run_command

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sdist and wheel, the wheel built from the sdist (what the package index serves), built in isolation
    (setuptools from the package index, through pip's cache). Built from a copy of the tree, so that the build's
    scratch files (``build/``, ``*.egg-info``) never land in the checkout, whichever test worker builds."""
    source = tmp_path_factory.mktemp("source") / "cer_theory"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "_build", "__pycache__", ".hypothesis", ".pytest_cache",
        "output", "output.rejected", "output.checkpoint"))
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(source)], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return out


def wheel(dist: Path) -> Path:
    (found,) = dist.glob("cer_theory-*.whl")
    return found


def test_metadata_of_the_wheel(dist: Path) -> None:
    with zipfile.ZipFile(wheel(dist)) as whl:
        names = whl.namelist()
        (meta_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = email.parser.Parser().parsestr(whl.read(meta_name).decode())
        assert "cer_theory/py.typed" in names
        (license_name,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert "Apache License" in whl.read(license_name).decode() and "Version 2.0" in whl.read(license_name).decode()
    assert meta["License-Expression"] == "Apache-2.0"
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert {"Homepage", "Documentation", "Source", "Issues"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values())
    assert "Typing :: Typed" in meta.get_all("Classifier")
    # the compiled hot loop (D421): the wheel carries the modules built where a C compiler is found, not their
    # Cython sources nor the C generated from them
    compiled = {n.rsplit("/", 1)[1].split(".")[0] for n in names if n.startswith("cer_theory/engines/core/")
                and n.endswith(".so")}
    assert compiled == ({"tecs_compiled", "evaluator_compiled", "output_compiled",
                         "rows_compiled"}  # (output_compiled: D455; rows_compiled: D450)
                        if shutil.which("cc") or shutil.which("gcc") else set()), names
    assert not [n for n in names if n.endswith((".pyx", ".pxd", ".c"))], names
    assert not [r for r in meta.get_all("Requires-Dist") if "extra ==" not in r and "pyspark" in r]
    core = {r.split(">")[0].split("<")[0].split(";")[0].strip() for r in meta.get_all("Requires-Dist")
            if "extra ==" not in r}
    assert "pyarrow" in core  # the engine's readers need it at run time
    assert "pandas" not in core  # only PySpark and the Spark adapter use it: the spark extra (D392)


def test_the_sdist_carries_license_and_the_linked_docs(dist: Path) -> None:
    (sdist,) = dist.glob("cer_theory-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert {"LICENSE", "README.md", "docs/papers.md", "docs/decisions.md", "cer_theory/py.typed"} <= names
    assert any(n.startswith("notebooks/") for n in names)
    # the compiled hot loop's sources and its optional build, never a built module or its generated C (D421)
    assert {"setup.py", "cer_theory/engines/core/tecs_compiled.pyx", "cer_theory/engines/core/tecs_compiled.pxd",
            "cer_theory/engines/core/evaluator_compiled.pyx", "cer_theory/engines/core/output_compiled.pyx",
            "cer_theory/engines/core/rows_compiled.pyx"} <= names
    assert not [n for n in names if n.endswith((".so", ".c"))], names


def check_the_front_door(installed: Path, tmp_path: Path) -> None:
    code = ("import cer_theory as ct\n"
            "phi = ct.cel('(T ; H) FILTER (T.tmp > 40 AND H.hum <= 25 AND T.id = 0 AND H.id = 0)')\n"
            "print(sorted(sorted(ce) for ce in phi.evaluate(ct.fire_stream())[8]))\n"
            "print(sum(1 for _ in ct.Engine('SELECT * WHERE SELL ; BUY WITHIN 2 EVENTS')"
            ".process(ct.example_stream('stocks'))))\n")
    result = subprocess.run([str(installed / "python"), "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "[[1, 8], [5, 8]]"
    assert int(result.stdout.splitlines()[1]) > 0


EXTRAS = {"cer-theory serve": "server"}
"""README commands that need an extra the plain install lacks: each says which, in one line (check_extras_are_named)."""
README_COMMANDS = [(b, c) for b in blocks(ROOT / "README.md", "sh") for c in commands(b)
                   if not c.startswith(tuple(EXTRAS))]


def check_every_readme_command(installed: Path, tmp_path: Path) -> None:
    assert len(README_COMMANDS) >= 6  # a front page: one example per use (the guides run theirs in test_readme_examples)
    for block, command in README_COMMANDS:
        check_command(block.where(), command, run_command(command, data_dir(tmp_path), installed))


def check_conformance_against_the_engine(installed: Path, tmp_path: Path) -> None:
    result = run_command("cer-theory conformance --engine engine --cases 5", tmp_path, installed)
    check_command("conformance", "cer-theory conformance --engine engine --cases 5", result)
    assert result.returncode == 0, result.stdout + result.stderr


def check_extras_are_named(installed: Path, tmp_path: Path) -> None:
    """The course server is an optional part of the command line: without its extra, one line says which."""
    for command, extra in EXTRAS.items():
        result = subprocess.run(["bash", "-c", f"{command} --port 9"], capture_output=True, text=True, cwd=tmp_path,
                                env={**os.environ, "PATH": f"{installed}{os.pathsep}{os.environ.get('PATH', '')}"},
                                timeout=120)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert f"pip install '.[{extra}]'" in result.stderr and result.stderr.count("\n") == 1, result.stderr


def check_spark_names_its_extra(installed: Path, tmp_path: Path) -> None:
    """Spark is an optional part of the command line: without PySpark, one line says which extra to install."""
    result = run_command("cer-theory spark --sample --output out", tmp_path, installed)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "pip install '.[spark]'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_plain_install_runs_everything(dist: Path, tmp_path: Path) -> None:
    """The wheel and its core dependencies only, in a fresh virtual environment (one test, so that parallel test
    workers do not each build one): the front door, every README command, the conformance adapter of the engine,
    and the one-line message of the optional Spark command."""
    env = tmp_path / "venv"
    venv.create(env, with_pip=True)
    result = subprocess.run([str(env / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel(dist))],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    installed = env / "bin"
    for check in (check_the_front_door, check_every_readme_command, check_conformance_against_the_engine,
                  check_spark_names_its_extra, check_extras_are_named):
        work = tmp_path / check.__name__
        work.mkdir()
        check(installed, work)
