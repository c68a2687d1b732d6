"""Two Sphinx directives for the API reference of the public API (docs/decisions.md D393):

* ``api-modules PACKAGE``: the autodoc reference of every public module under a package, found by walking it, so a
  new module appears in the reference without editing a page;
* ``api-module MODULE``: one module alone (``cer_theory.testing.harness``, without the test suite's strategies
  beside it).

Only the public API is documented: a module whose dotted name has a ``_``-prefixed part, or which lies under
:data:`INTERNAL` (the hypothesis strategies the test suite draws from), is never walked into, and naming one
explicitly stops the build.

A package's ``__init__`` is shown by its docstring only: its names are documented once, in the module that
defines them. Docstrings are written for readers of the source, where ``*-property`` or ``|Q|`` is plain text: a lone
``*`` or ``|`` is escaped before reStructuredText reads it as the start of an emphasis or a substitution.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

# a * where reStructuredText would see the start of an emphasis that the text never closes: at the start of a word
# and followed by a sign (``*-property``, ``*_n``); ``literals`` are left alone
LONE_STAR = re.compile(r"(?<![^\s(\[/])\*(?=[-_^)\]'.,;:])")
# a | where reStructuredText would see a substitution reference: mathematics such as |Q| or |ul| in a docstring
LONE_BAR = re.compile(r"(?<![^\s(\[])\|(?=[^\s|])")
LITERAL = re.compile(r"(``.*?``)")


def escape(line: str) -> str:
    """``line`` with its lone stars and bars escaped, outside double-backquoted literals."""
    return "".join(part if part.startswith("``") else LONE_BAR.sub(r"\\|", LONE_STAR.sub(r"\\*", part))
                   for part in LITERAL.split(line))


INTERNAL = ("cer_theory.testing.strategies",)
"""Packages that are not public API, however their modules are named: what the test suite draws its cases from."""


def is_public(module: str) -> bool:
    """Whether ``module`` is part of the public API: no ``_``-prefixed part, not under :data:`INTERNAL`."""
    internal = any(module == p or module.startswith(p + ".") for p in INTERNAL)
    return not internal and not any(part.startswith("_") for part in module.split("."))


def modules(package: str) -> list[str]:
    """``package`` and every public module under it, sorted."""
    if not is_public(package):
        raise ExtensionError(f"api-modules {package}: not public API (private or under {', '.join(INTERNAL)})")
    root = importlib.import_module(package)
    names = [package]
    if hasattr(root, "__path__"):
        names += sorted(m.name for m in pkgutil.walk_packages(root.__path__, prefix=f"{package}.",
                                                                 onerror=lambda name: None)
                        if is_public(m.name))
    return names


class ApiModules(SphinxDirective):
    required_arguments = 1

    def names(self) -> list[str]:
        return modules(self.arguments[0])

    def run(self) -> list[nodes.Node]:
        # the pages are MyST Markdown, where nested content is parsed as Markdown: autodoc writes
        # reStructuredText, so its directives go inside one eval-rst block
        lines: list[str] = ["```{eval-rst}"]
        for name in self.names():
            is_package = hasattr(importlib.import_module(name), "__path__")
            # a heading per module (a rubric: sections cannot open inside a directive), so that a reader scrolling
            # the page sees where each module starts
            lines += [f".. rubric:: {name}", "   :class: api-module", "",
                      f".. automodule:: {name}", *(["   :no-members:"] if is_package else []), ""]
        lines.append("```")
        container = nodes.section()
        container.document = self.state.document
        self.state.nested_parse(StringList(lines, source=f"{self.name} {self.arguments[0]}"), self.content_offset,
                                container)
        return list(container.children)


class ApiModule(ApiModules):
    """One public module, with its members."""

    def names(self) -> list[str]:
        name = self.arguments[0]
        if not is_public(name):
            raise ExtensionError(f"api-module {name}: not public API (private or under {', '.join(INTERNAL)})")
        return [name]


def escape_lone_stars(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    lines[:] = [escape(line) for line in lines]


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("api-modules", ApiModules)
    app.add_directive("api-module", ApiModule)
    app.connect("autodoc-process-docstring", escape_lone_stars)
    return {"parallel_read_safe": True, "version": "1"}
