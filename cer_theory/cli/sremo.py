"""The SRT paper on the command line: ``detect`` (where streaming matches end, by the detector of D113–D115), and
``complement``, the complement construction of a registry record (SREMO's windowed dSRA, Cor. 43; its
``determinize`` is the generic command of :mod:`cer_theory.cli.cel`)."""

from __future__ import annotations

import argparse

from cer_theory.core.budget import work_budget

from cer_theory.cli.options import whole_number
from cer_theory.core.drawing import DRAWING_FORMATS
from cer_theory.cli.common import add_logic_option, construct, having, read_formula, read_text_argument, show
from cer_theory.cli.layer import declare, file, output_file, text_or_file


def cmd_complement(args: argparse.Namespace) -> int:
    """``complement EXPR --window W``: the complement construction of ``--logic``'s record (the SRT paper: Alg. 8's
    complement of the dSRA, which accepts the strings of length ≤ w that the expression rejects, and every longer
    string)."""
    logic = having(args.logic, "complement")
    show(construct(logic, "complement", read_formula(args.formula, logic), budget=args.budget, window=args.window),
         args)
    return 0


def cmd_detect(args: argparse.Namespace) -> int:
    """``detect EXPR --stream F``: one JSON line ``{"k": k}`` per position where a streaming match of Def. 32 ends
    (the positions of ``eval --logic sremo``'s output, without listing the matches)."""
    import json
    import sys

    from cer_theory.streams.rows import load
    from cer_theory.formalisms.sremo.compile import compile_automaton
    from cer_theory.formalisms.sremo.detect import Detector
    from cer_theory.formalisms.sremo.parser import parse

    stream = load(args.stream)
    out = sys.stdout
    with work_budget(args.budget):  # the compilation (windows unrolled, complements determinized) and the run
        srt = compile_automaton(parse(read_text_argument(args.formula)))
        for k in Detector(srt, pure=args.pure).run(stream):
            out.write(json.dumps({"k": k}) + "\n")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    d = sub.add_parser("detect", help="where a SREMO expression's streaming matches end (the SRT paper Def. 32)",
                       description="Compile a SREMO expression (Thm. 27) and print one JSON line {\"k\": k} per "
                                   "position k where a streaming match ends (Def. 32), without enumerating the "
                                   "matches: the positions of `eval --logic sremo`, read at stream speed. Exit 2 on "
                                   "a syntax error, a bad stream or an expression with a complement.")
    d.add_argument("formula", help="SREMO text (docs/sremo-syntax.md), or @FILE")
    d.add_argument("--stream", required=True, help="stream file: .csv (with a type column) or JSON Lines")
    d.add_argument("--pure", action="store_true", help="the pure reading (no • needed on the last transition)")
    declare(d, inputs=[text_or_file("formula"), file("stream")], budget=True)
    d.set_defaults(func=cmd_detect)
    c = sub.add_parser("complement", help="complement a windowed SREMO expression's dSRA (the SRT paper Cor. 43)",
                       description="Compile a SREMO expression (Thm. 27), unroll it to strings of length ≤ w "
                                   "(Lemma 46), determinize (Thm. 41) and complement (Cor. 43, Alg. 8); print the "
                                   "sizes. Exit 2 on a syntax error, a missing window or a blown budget.")
    c.add_argument("formula", help="SREMO text (docs/sremo-syntax.md), or @FILE")
    add_logic_option(c, "a complement construction", default="sremo")
    # (0 passes the type: the construction refuses it with the message it gives for (e) WITHIN 0)
    c.add_argument("--window", type=whole_number(minimum=0),
                   help="w, a whole number ≥ 1 (default: the expression's (e) WITHIN w)")
    c.add_argument("--dot", metavar="FILE", help="draw the complement; the extension picks the format")
    declare(c, inputs=[text_or_file("formula")], outputs=[output_file("dot", suffixes=DRAWING_FORMATS)], budget=True,
            example=["complement", '[TRUE]* . [type = "A"] -> r1 . [TRUE]* . <type = "B" AND x = r1.x>', "--window",
                     "3", "--dot", "complement.dot"])
    c.set_defaults(func=cmd_complement)


__all__ = ["register", "cmd_complement", "cmd_detect"]
