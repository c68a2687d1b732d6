"""A Sphinx directive, ``cli-reference``: the help of ``cer-theory`` and of every command, generated from the
argparse parser itself, so the reference cannot drift from the program."""

from __future__ import annotations

import argparse
import os

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from cer_theory.cli import build_parser


def _help(parser: argparse.ArgumentParser) -> str:
    os.environ["COLUMNS"] = "92"  # the width the help is wrapped at, whatever terminal builds the site
    return parser.format_help()


class CliReference(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        parser = build_parser()
        out: list[nodes.Node] = [nodes.literal_block(text=_help(parser), language="text")]
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        for name, command in sub.choices.items():
            section = nodes.section(ids=[f"command-{name}"], names=[f"cer-theory {name}"])
            section += nodes.title(text=f"cer-theory {name}")
            section += nodes.literal_block(text=_help(command), language="text")
            out.append(section)
        return out


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("cli-reference", CliReference)
    return {"parallel_read_safe": True, "version": "1"}
