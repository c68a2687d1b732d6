"""``step``: a run of a formula's automaton over a stream, as one self-contained HTML page to step through."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cer_theory.cli.common import add_logic_option, automaton_file, construct, having, read_formula
from cer_theory.cli.layer import declare, file, output_file, text_or_file
from cer_theory.cli.options import whole_number
from cer_theory.core.wording import plural


def cmd_step(args: argparse.Namespace) -> int:
    """The ``step`` construction of ``--logic``'s record over the stream, written as one HTML page."""
    from cer_theory.automata import files
    from cer_theory.stepper.models import step
    from cer_theory.streams.rows import load

    path = automaton_file(args.formula)
    # (an -o naming the stream, a link to it or its folder is refused before this: cli.layer.enforce)
    stream = list(load(args.stream))
    if args.positions is not None:
        stream = stream[:args.positions]
    if path is not None:  # an automaton file (docs/automaton-files.md): stepped by its model's own run semantics
        automaton = files.load(path)
        run = step(automaton, stream, structure=args.engine, title=getattr(automaton, "name", "") or Path(path).name,
                   max_positions=args.max_positions, max_rows=args.max_runs)
    else:
        logic = having(args.logic, "step")
        ast = read_formula(args.formula, logic)
        run = construct(logic, "step", ast, stream, structure=args.engine, title=logic.format(ast),
                        max_positions=args.max_positions, max_rows=args.max_runs, budget=args.budget)
    run.write_html(args.output)
    print(f"wrote {args.output}: {plural(len(run.frames) - 1, 'position')} of the {run.model} run (keys: → ← Home End)",
          file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    from cer_theory.stepper.frames import MAX_POSITIONS, MAX_ROWS

    s = sub.add_parser("step", help="step through a run of a formula's automaton (one HTML page)",
                       description="Run the automaton a formula compiles to (CEL's CEA by default; --logic for "
                                   "SO-CEL's UCEA, ACEL's ACEA, SREMO's SRT, CEQL's CEA) over a stream and write one "
                                   "self-contained HTML page (no network) that shows the run position by position: "
                                   "active states shaded, transitions just taken in red, the current event on the "
                                   "stream, each run's partial valuation (registers, bags) and the outputs. "
                                   "--engine cces|tecs shows the engine's data structure growing instead.")
    s.add_argument("formula", help="the formula's text, or @FILE; @FILE.json steps an automaton file "
                                   "(docs/automaton-files.md)")
    s.add_argument("--stream", required=True, help="stream file: .csv (with a type column) or JSON Lines")
    add_logic_option(s, "a stepper of its runs")
    s.add_argument("--engine", choices=("CCES", "tECS"), type=lambda t: {"cces": "CCES", "tecs": "tECS"}.get(
        t.lower(), t), help="show the CEL paper's CCES (Algorithm 2) or CORE's tECS (the CORE paper) instead of the automaton")
    s.add_argument("-o", "--output", required=True, help="the HTML file to write")
    s.add_argument("--positions", type=whole_number(minimum=1), metavar="N", help="step through the first N events only (a whole number ≥ 1)")
    s.add_argument("--max-positions", type=whole_number(minimum=1), default=MAX_POSITIONS, metavar="N",
                   help=f"refuse streams longer than N events (a whole number ≥ 1; default {MAX_POSITIONS})")
    s.add_argument("--max-runs", type=whole_number(minimum=1), default=MAX_ROWS, metavar="N",
                   help=f"refuse a position with more than N active runs (a whole number ≥ 1; default {MAX_ROWS})")
    declare(s, inputs=[text_or_file("formula"), file("stream")], outputs=[output_file("output")],
            budget=True, example=["step", "A ; B", "--stream", "s.jsonl", "-o", "page.html"])
    s.set_defaults(func=cmd_step)
