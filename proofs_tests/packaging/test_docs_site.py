"""The documentation site builds with Sphinx, warnings as errors (``make docs``), and has every page it promises:
getting started, one guide per paper, the command-line reference generated from argparse, the API reference
from the docstrings, the rendered notebooks, the papers, the decisions and the errata."""

from __future__ import annotations

import re
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
    pages = ["index", "getting-started", "papers", "cli", "api", "decisions", "errata", *(f"api/{p}" for p in API_PAGES),
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


API_PAGES = ["front-door", "cel", "ceql", "socel", "sremo", "acel", "rpr", "testing", "stepper", "exercises", "spark"]


def test_the_api_reference_comes_from_the_docstrings(site: Path) -> None:
    front = (site / "api" / "front-door.html").read_text(encoding="utf-8")
    for name in ("cer_theory.formalisms.formula.Formula", "cer_theory.core.events.Stream", "Engine"):
        assert name in front, name
    assert "The outputs at every position of" in front  # Formula.evaluate's docstring
    # one page per package, each formalism's public modules walked
    for page, module in (("cel", "cer_theory.formalisms.cel.compile"), ("sremo", "cer_theory.formalisms.sremo.srt"),
                         ("testing", "cer_theory.testing.harness"), ("stepper", "cer_theory.stepper.page")):
        html = (site / "api" / f"{page}.html").read_text(encoding="utf-8")
        assert f'id="module-{module}"' in html, module


def test_the_api_reference_is_the_public_api_only(site: Path) -> None:
    """No test internals and no private module: nothing under ``cer_theory.testing.strategies`` (the hypothesis
    strategies the suite draws from) and no module with a ``_``-prefixed part, on any page of the reference."""
    pages = [site / "api.html", *(site / "api" / f"{p}.html" for p in API_PAGES)]
    assert all(p.is_file() for p in pages)
    documented = [m for p in pages for m in re.findall(r'id="module-([\w.]+)"', p.read_text(encoding="utf-8"))]
    assert len(documented) > 50
    internal = [m for m in documented if m.startswith("cer_theory.testing.strategies")
                or any(part.startswith("_") for part in m.split("."))]
    assert not internal, internal
    objects = [o for p in pages for o in re.findall(r'<dt class="sig sig-object py" id="([\w.]+)"',
                                                    p.read_text(encoding="utf-8"))]
    assert not [o for o in objects if o.startswith("cer_theory.testing.strategies")]
    assert "TRICKY_NUMBERS" not in "".join(p.read_text(encoding="utf-8") for p in pages)


def test_notebooks_are_rendered_with_their_outputs(site: Path) -> None:
    html = (site / "notebooks" / "01_cel_and_cea.html").read_text(encoding="utf-8")
    assert "cell_output" in html
