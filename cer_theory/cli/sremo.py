"""The SRT paper on the command line: ``detect`` (where streaming matches end, by the detector of D113–D115), and
the windowed constructions ``determinize --logic sremo`` (dispatched here from :mod:`cer_theory.cli.cel`) and
``complement``. Both compile (Thm. 27), unroll to strings of length ≤ w
(Lemma 46) and determinize (Thm. 41, Alg. 7); ``complement`` then completes and flips the finals (Cor. 43)."""

from __future__ import annotations

import argparse

from cer_theory.core.drawing import write_drawing
from cer_theory.core.errors import DEFAULT_BUDGET

from cer_theory.cli.common import read_text_argument
from cer_theory.cli.options import whole_number


def _constructions(args: argparse.Namespace):
    """(text, w, unrolled SRA, dSRA) for ``EXPR`` and ``--window`` (default: the expression's own WITHIN)."""
    from cer_theory.core.errors import UnsupportedError
    from cer_theory.formalisms.sremo.ast import Window
    from cer_theory.formalisms.sremo.compile import compile_automaton
    from cer_theory.formalisms.sremo.determinize import determinize_sra
    from cer_theory.formalisms.sremo.parser import parse
    from cer_theory.formalisms.sremo.windowed import unroll

    text = read_text_argument(args.formula)
    e, w = parse(text), args.window
    if w is None:
        if not isinstance(e, Window):
            raise UnsupportedError("determinization needs a window: --window W or (e) WITHIN w (the SRT paper Thm. 38: "
                                   "without one, an SRT need not have a deterministic equivalent)")
        e, w = e.body, e.w
    if w < 1:
        raise UnsupportedError(f"--window: a window is a positive integer, got {w}")
    sra = unroll(compile_automaton(e, native_window=False), w, budget=args.budget)
    return text, w, sra, determinize_sra(sra, budget=args.budget)


def _report(name: str, t) -> str:
    from cer_theory.formalisms.sremo.determinize import counts

    c = counts(t)
    return f"{name}: {c['states']} states, {c['transitions']} transitions, {c['registers']} registers"


def _draw(t, args: argparse.Namespace, title: str) -> None:
    if args.dot:
        write_drawing(t.to_dot(title=title), args.dot)
        print(f"wrote {args.dot}")


def determinize(args: argparse.Namespace) -> int:
    """``determinize --logic sremo EXPR --window W``: the sizes of the unrolled SRA and of its dSRA (one transition
    per satisfiable minterm), and the dSRA's drawing with ``--dot``."""
    text, w, sra, dsra = _constructions(args)
    print(f"{text}  (w = {w})")
    print(_report("unrolled SRA (Lemma 46)", sra))
    print(_report("dSRA (Thm. 41, Alg. 7; transitions = minterms)", dsra))
    _draw(dsra, args, f"dSRA of {text}, w = {w}")
    return 0


def cmd_complement(args: argparse.Namespace) -> int:
    """``complement EXPR --window W``: Alg. 8's complement of the dSRA (it accepts the strings of length ≤ w that
    the expression rejects, and every longer string)."""
    from cer_theory.formalisms.sremo.determinize import complement

    text, w, sra, dsra = _constructions(args)
    comp = complement(dsra)
    print(f"{text}  (w = {w})")
    print(_report("dSRA (Thm. 41, Alg. 7)", dsra))
    print(_report("complement (Cor. 43, Alg. 8; with the dead state)", comp))
    _draw(comp, args, f"complement of {text}, w = {w}")
    return 0


def cmd_detect(args: argparse.Namespace) -> int:
    """``detect EXPR --stream F``: one JSON line ``{"k": k}`` per position where a streaming match of Def. 32 ends
    (the positions of ``eval --logic sremo``'s output, without listing the matches)."""
    import json
    import sys

    from cer_theory.core.events import Stream
    from cer_theory.formalisms.sremo.compile import compile_automaton
    from cer_theory.formalisms.sremo.detect import Detector
    from cer_theory.formalisms.sremo.parser import parse

    srt = compile_automaton(parse(read_text_argument(args.formula)))
    stream = Stream.load(args.stream)
    out = sys.stdout
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
    d.set_defaults(func=cmd_detect)
    c = sub.add_parser("complement", help="complement a windowed SREMO expression's dSRA (the SRT paper Cor. 43)",
                       description="Compile a SREMO expression (Thm. 27), unroll it to strings of length ≤ w "
                                   "(Lemma 46), determinize (Thm. 41) and complement (Cor. 43, Alg. 8); print the "
                                   "sizes. Exit 2 on a syntax error, a missing window or a blown budget.")
    c.add_argument("formula", help="SREMO text (docs/sremo-syntax.md), or @FILE")
    c.add_argument("--logic", default="sremo", choices=("sremo",), help="the formalism (only sremo)")
    # (0 passes the type: _constructions refuses it with the message it gives for (e) WITHIN 0)
    c.add_argument("--window", type=whole_number(minimum=0),
                   help="w, a whole number ≥ 1 (default: the expression's (e) WITHIN w)")
    c.add_argument("--dot", metavar="FILE", help="draw the complement; the extension picks the format")
    c.add_argument("--budget", type=whole_number(minimum=1), default=DEFAULT_BUDGET,
                   help=f"size budget, a whole number ≥ 1 (default {DEFAULT_BUDGET})")
    c.set_defaults(func=cmd_complement)


__all__ = ["register", "determinize", "cmd_complement", "cmd_detect"]
