"""``step``: a run of a formula's automaton over a stream, as one self-contained HTML page to step through."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cer_theory.cli.common import add_budget_option, compile_cel, read_formula, read_text_argument


def cmd_step(args: argparse.Namespace) -> int:
    from cer_theory.core.budget import work_budget
    from cer_theory.core.errors import CerError, UnsupportedError
    from cer_theory.core.events import Stream
    from cer_theory.core.protocols import get
    from cer_theory.stepper import step

    if Path(args.output).resolve() == Path(args.stream).resolve():
        raise CerError(f"-o {args.output} is the stream file itself; write the page elsewhere")
    stream = list(Stream.load(args.stream))
    if args.positions is not None:
        stream = stream[:args.positions]
    with work_budget(args.budget):
        if args.logic == "cel":
            phi = read_formula(args.formula)
            model, title = compile_cel(phi, budget=args.budget), str(phi)
        elif args.logic == "acel":
            # an ACEA's templates copy the attributes each type has in this stream (the ACEL paper Thm 6.2's schema)
            from cer_theory.formalisms.acel.compile import compile_acea, schema_of

            text = read_text_argument(args.formula)
            model, title = compile_acea(get("acel").parse(text), schema_of(stream)), text
        else:
            logic = get(args.logic)
            text = read_text_argument(args.formula)
            ast = logic.parse(text)
            model, title = logic.automaton(ast), text
        options: dict = {}
        if args.logic == "ceql":
            # CEQL means CORE's semantics (the CORE paper): a run may start at every position, inside the window. The
            # CEA alone starts at 0 only, so a CEQL query is stepped on the engine's tECS.
            if args.engine == "CCES":
                raise UnsupportedError("--logic ceql is stepped on CORE's tECS (--engine tecs), not the CCES")
            args.engine = "tECS"
            if ast.within is not None:
                options["window"] = ast.within
        if args.engine and type(model).__name__ not in ("CEA", "UCEA"):
            raise UnsupportedError(f"--engine runs a CEA; --logic {args.logic} compiles to {type(model).__name__}")
        run = step(model, stream, structure=args.engine, title=title, max_positions=args.max_positions,
                   max_rows=args.max_runs, **options)
    run.write_html(args.output)
    print(f"wrote {args.output}: {len(run.frames) - 1} positions of the {run.model} run (keys: → ← Home End)",
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
    s.add_argument("formula", help="the formula's text, or @FILE")
    s.add_argument("--stream", required=True, help="stream file: .csv (with a type column) or JSON Lines")
    s.add_argument("--logic", default="cel", help="the formalism: cel (default), ceql, socel, sremo or acel")
    s.add_argument("--engine", choices=("CCES", "tECS"), type=lambda t: {"cces": "CCES", "tecs": "tECS"}.get(
        t.lower(), t), help="show the CEL paper's CCES (Algorithm 2) or CORE's tECS (the CORE paper) instead of the automaton")
    s.add_argument("-o", "--output", required=True, help="the HTML file to write")
    s.add_argument("--positions", type=int, metavar="N", help="step through the first N events only")
    s.add_argument("--max-positions", type=int, default=MAX_POSITIONS, metavar="N",
                   help=f"refuse streams longer than N events (default {MAX_POSITIONS})")
    s.add_argument("--max-runs", type=int, default=MAX_ROWS, metavar="N",
                   help=f"refuse a position with more than N active runs (default {MAX_ROWS})")
    add_budget_option(s)
    s.set_defaults(func=cmd_step)
