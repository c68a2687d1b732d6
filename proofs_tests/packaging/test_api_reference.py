"""The API reference documents the public API only (docs/decisions.md D393): the directive that walks a package
never enters a private module or the test suite's hypothesis strategies, and refuses to be pointed at one, so no
page can list them. (The built pages themselves are checked in test_docs_site.py.)"""

from __future__ import annotations

import re
import sys

import pytest

from doc_blocks import ROOT

sys.path.insert(0, str(ROOT / "docs" / "_ext"))
pytest.importorskip("sphinx")

import api_reference  # noqa: E402
from sphinx.errors import ExtensionError  # noqa: E402

DIRECTIVE = re.compile(r"^```\{(api-modules?)\}\s+(\S+)", re.M)
PAGES = sorted((ROOT / "docs").glob("api*.md")) + sorted((ROOT / "docs" / "api").glob("*.md"))


def test_private_and_internal_modules_are_not_public() -> None:
    assert api_reference.is_public("cer_theory.formalisms.cel.compile")
    assert api_reference.is_public("cer_theory.testing.harness")
    assert not api_reference.is_public("cer_theory.testing.strategies")
    assert not api_reference.is_public("cer_theory.testing.strategies.predicates")
    assert not api_reference.is_public("cer_theory.core._private")
    assert not api_reference.is_public("cer_theory._x.y")


def test_walking_a_package_skips_private_modules() -> None:
    found = api_reference.modules("cer_theory.testing")
    assert "cer_theory.testing.harness" in found
    assert not [m for m in found if not api_reference.is_public(m)]
    with pytest.raises(ExtensionError):
        api_reference.modules("cer_theory.testing.strategies")


def test_every_page_documents_public_modules_only() -> None:
    directives = [(page.name, kind, target) for page in PAGES for kind, target in
                  DIRECTIVE.findall(page.read_text(encoding="utf-8"))]
    assert len(directives) >= 10
    documented = [m for _, kind, target in directives
                  for m in (api_reference.modules(target) if kind == "api-modules" else [target])]
    assert not [m for m in documented if not api_reference.is_public(m)]
    assert "cer_theory.testing.harness" in documented
    # one page per formalism package of the registry
    for package in ("cel", "ceql", "socel", "sremo", "acel", "rpr"):
        assert f"cer_theory.formalisms.{package}" in documented, package


def test_the_front_door_page_names_every_export() -> None:
    import cer_theory as ct

    text = (ROOT / "docs" / "api" / "front-door.md").read_text(encoding="utf-8")
    missing = [n for n in ct.__all__ if not n.startswith("__") and n not in text]
    assert not missing, missing
