"""``figures``: regenerate every drawing in ``figures/``."""

from __future__ import annotations

import argparse
from pathlib import Path

from cer_theory.cli.layer import declare, output_into


def cmd_figures(args: argparse.Namespace) -> int:
    from cer_theory.examples.figures import write_all

    for path in write_all(Path(args.output)):
        print(f"wrote {path}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    f = sub.add_parser("figures", help="regenerate the drawings in figures/",
                       description="Regenerate every drawing of the documentation (the automata and structures of "
                                   "the papers' examples) as SVG and DOT files.")
    f.add_argument("-o", "--output", default="figures", metavar="DIR",
                   help="the folder to write the drawings to, created if missing (default: figures)")
    declare(f, outputs=[output_into("output")], example=["figures", "-o", "figures"])
    f.set_defaults(func=cmd_figures)
