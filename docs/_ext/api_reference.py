"""A Sphinx directive, ``api-modules PACKAGE``: the autodoc reference of every module under a package, found by
walking it, so a new module appears in the reference without editing a page.

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


def modules(package: str) -> list[str]:
    root = importlib.import_module(package)
    names = [package]
    if hasattr(root, "__path__"):
        names += sorted(m.name for m in pkgutil.walk_packages(root.__path__, prefix=f"{package}.")
                        if not m.name.rsplit(".", 1)[-1].startswith("_"))
    return names


class ApiModules(SphinxDirective):
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        # the pages are MyST Markdown, where nested content is parsed as Markdown: autodoc writes
        # reStructuredText, so its directives go inside one eval-rst block
        lines: list[str] = ["```{eval-rst}"]
        for name in modules(self.arguments[0]):
            is_package = hasattr(importlib.import_module(name), "__path__")
            lines += [f".. automodule:: {name}", *(["   :no-members:"] if is_package else []), ""]
        lines.append("```")
        container = nodes.section()
        container.document = self.state.document
        self.state.nested_parse(StringList(lines, source=f"api-modules {self.arguments[0]}"), self.content_offset,
                                container)
        return list(container.children)


def escape_lone_stars(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    lines[:] = [escape(line) for line in lines]


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("api-modules", ApiModules)
    app.connect("autodoc-process-docstring", escape_lone_stars)
    return {"parallel_read_safe": True, "version": "1"}
