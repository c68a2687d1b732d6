"""``equiv``: decide whether two formulas are equivalent (or one contained in the other), with a shortest
distinguishing stream (the exercise commands are in :mod:`cer_theory.cli.exercises`).

Exit status: 0 equivalent, 1 not (the stream is printed as JSON Lines on
stdout, so it can be replayed with ``cer-theory eval``, and the explanation on stderr), 2 bad input."""

from __future__ import annotations

import argparse
import sys

from cer_theory.core.drawing import DRAWING_FORMATS, write_drawing
from cer_theory.cli.common import add_logic_option, construct, having, read_text_argument
from cer_theory.cli.layer import declare, output_file, text_or_file


def cmd_equiv(args: argparse.Namespace) -> int:
    """Equivalence or containment by ``--logic``'s record: a formalism without a decision procedure is refused
    with the record's reason (docs/decisions.md D109)."""
    logic = having(args.logic, "contained" if args.contained else "equivalent")
    left, right = read_text_argument(args.formula1), read_text_argument(args.formula2)
    verdict = construct(logic, "contained" if args.contained else "equivalent", left, right, level=args.level,
                        budget=args.budget, schema=args.schema)
    if verdict.holds:
        print("contained" if args.contained else "equivalent")
        print(verdict.explanation(), file=sys.stderr)
        return 0
    if args.dot and verdict.word is not None:  # (written first: a failed write is the only line on stderr)
        write_drawing(verdict.word.diagram("φ1", "φ2").to_dot(), args.dot)
    for line in verdict.jsonl():
        print(line)
    print(verdict.explanation(), file=sys.stderr)
    return 1


def register(sub: argparse._SubParsersAction) -> None:
    e = sub.add_parser("equiv", help="decide equivalence (or containment) of two formulas, with a shortest "
                                     "distinguishing stream")
    e.add_argument("formula1", help="formula text, or @FILE")
    e.add_argument("formula2", help="formula text, or @FILE")
    add_logic_option(e, "a decision procedure")
    e.add_argument("--contained", action="store_true", help="decide ⟦formula1⟧ ⊆ ⟦formula2⟧ instead")
    e.add_argument("--level", choices=("valuations", "complex_events"), default="valuations",
                   help="compare valuations (default) or only their complex events")
    e.add_argument("--schema", help='the stream schema both formulas must keep to, e.g. "T(id,tmp) H(id,hum)"')
    e.add_argument("--dot", metavar="FILE", help="draw the product path that distinguishes them")
    declare(e, inputs=[text_or_file("formula1"), text_or_file("formula2")],
            outputs=[output_file("dot", suffixes=DRAWING_FORMATS)], budget=True,
            example=["equiv", "A ; B", "B ; A", "--dot", "equiv.dot"])
    e.set_defaults(func=cmd_equiv)
