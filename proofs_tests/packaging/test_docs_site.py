"""The documentation site builds with Sphinx, warnings as errors (``make docs``), and has every page it promises:
getting started, one guide per paper, the command-line reference generated from argparse, the API reference
from the docstrings, the rendered notebooks, the papers, the decisions and the errata."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from doc_blocks import ROOT

from cer_theory.cli import build_parser

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q",
                             str(ROOT / "docs"), str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-5000:]
    assert not result.stderr.strip(), result.stderr[-5000:]  # not one warning
    return out


def test_every_page_is_built(site: Path) -> None:
    pages = ["index", "getting-started", "papers", "cli", "api", "decisions", "errata",
             *(f"guide/{g}" for g in ("cel", "core", "srt", "acel", "socel")),
             *(f"notebooks/{nb.stem}" for nb in sorted((ROOT / "notebooks").glob("*.ipynb")))]
    missing = [p for p in pages if not (site / f"{p}.html").is_file()]
    assert not missing


def test_the_cli_reference_has_every_command(site: Path) -> None:
    html = (site / "cli.html").read_text(encoding="utf-8")
    parser = build_parser()
    (sub,) = [a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict)]
    missing = [name for name in sub.choices if f"cer-theory {name}" not in html]
    assert not missing


def test_the_api_reference_comes_from_the_docstrings(site: Path) -> None:
    html = (site / "api.html").read_text(encoding="utf-8")
    for name in ("cer_theory.formalisms.formula.Formula", "cer_theory.core.events.Stream", "Engine"):
        assert name in html, name
    assert "The outputs at every position of" in html  # Formula.evaluate's docstring
    # every layer, module by module (the reference walks the packages)
    for module in ("cer_theory.automata.cea", "cer_theory.formalisms.cel.compile", "cer_theory.formalisms.sremo.srt",
                   "cer_theory.engines.core.tecs", "cer_theory.testing.harness", "cer_theory.spark.job"):
        assert f'id="module-{module}"' in html, module


def test_notebooks_are_rendered_with_their_outputs(site: Path) -> None:
    html = (site / "notebooks" / "01_cel_and_cea.html").read_text(encoding="utf-8")
    assert "cell_output" in html
