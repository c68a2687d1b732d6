"""``eval`` and ``draw``: any formalism of the registry, by its name (``--logic``)."""

from __future__ import annotations

import argparse
import json
import sys

from cer_theory.automata.cea import CEA
from cer_theory.core.budget import work_budget
from cer_theory.core.drawing import write_drawing
from cer_theory.core.errors import SizeBudgetExceeded, UnsupportedError
from cer_theory.core.events import Stream
from cer_theory.core.protocols import get

from cer_theory.cli.common import add_budget_option, compile_cel, read_formula, read_text_argument


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate a formula of a registered formalism with one of its evaluators: one JSON line per position that
    has outputs, printed at the coarsest level (complex events) or, with ``--valuations``, the finest."""
    logic = get(args.logic)
    ast = read_formula(args.formula) if args.logic == "cel" else logic.parse(read_text_argument(args.formula))
    evaluator = logic.evaluator(args.via or logic.default)
    if args.via is None and not evaluator.handles(ast):
        # the default is the fast evaluator; a formula outside its fragment falls back to the reference semantics
        evaluator = logic.evaluator("semantics")
    level = logic.level("valuations") if args.valuations else logic.levels[-1]
    if logic.coarser(evaluator.level, level.name) is not level:
        finer = [name for name, ev in logic.evaluators.items() if logic.coarser(ev.level, level.name) is level]
        raise UnsupportedError(f"--via {evaluator.name} computes {evaluator.level} only ({evaluator.description}); "
                               f"drop --valuations or use --via {'|'.join(finer)}")
    options = {"bind": args.bind} if args.bind else {}
    if options and "bind" not in evaluator.options:
        raise UnsupportedError(f"--bind is for ACEL's evaluators (--logic acel), not {logic.name}'s {evaluator.name}")
    stream = Stream.load(args.stream)
    out = sys.stdout
    try:
        with work_budget(args.budget):  # the constructions behind an evaluator (A_SEL, UNLESS's determinization)
            outputs = evaluator(ast, stream, **options)
    except SizeBudgetExceeded as exc:
        if args.via is not None or evaluator.name == "semantics" or "semantics" not in logic.evaluators:
            raise
        # the default evaluator's automaton is too big to build: the semantics gives the same outputs
        print(f"cer-theory eval: {exc.for_command_line()}; evaluating by the reference semantics instead (slow on "
              f"long streams)", file=sys.stderr)
        evaluator = logic.evaluator("semantics")
        outputs = evaluator(ast, stream, **options)
    for line in level.json_lines(outputs):
        out.write(json.dumps(line) + "\n")
    return 0


def cmd_draw(args: argparse.Namespace) -> int:
    """Draw the automaton of a formula: CEL's CEA (Theorems 6.2 and 7.2), or the automaton another registered
    formalism compiles to (SO-CEL's UCEA, SREMO's SRT)."""
    if args.logic == "cel":
        phi = read_formula(args.formula)
        with work_budget(args.budget):
            automaton = compile_cel(phi, trim=args.trim, budget=args.budget)
        title = args.title or str(phi)
    else:
        if args.trim:
            raise UnsupportedError("--trim is for CEL's automata (--logic cel)")
        logic = get(args.logic)
        text = read_text_argument(args.formula)
        ast = logic.parse(text)
        with work_budget(args.budget):
            automaton = logic.automaton(ast)
        title = args.title or text
    if args.all_states and not isinstance(automaton, CEA):
        raise UnsupportedError(f"--all-states is for complex event automata; {type(automaton).__name__} drawings "
                               f"show every state")
    dot = automaton.to_dot(title=title, trim=False) if args.all_states else automaton.to_dot(title=title)
    if args.output in (None, "-"):
        sys.stdout.write(dot)
    else:
        write_drawing(dot, args.output)
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    e = sub.add_parser("eval", help="evaluate a formula on a stream (JSON Lines out)",
                       description="Evaluate a formula of a registered formalism on a stream, one JSON line per "
                                   "position with outputs. By default the formalism's fast evaluator runs (for CEL "
                                   "the compiled automaton, Theorems 6.2 and 7.2), falling back to the reference "
                                   "semantics for a formula outside its fragment (CEL: n-ary filters); every "
                                   "evaluator gives the same output. --via semantics asks for the reference "
                                   "semantics itself (the oracle: brute force, exponential). An unknown --logic or "
                                   "--via is refused with the list of choices.")
    e.add_argument("formula", help="the formula's text, or @FILE to read it from a file")
    e.add_argument("--stream", required=True, help="stream file: .csv (with a type column) or JSON Lines")
    e.add_argument("--logic", default="cel", help="the formalism's registry name (default cel)")
    e.add_argument("--via", help="the evaluator (default: the formalism's fast one, the reference semantics for a "
                                 "formula outside its fragment; semantics: the oracle)")
    e.add_argument("--valuations", action="store_true", help="print valuations instead of complex events")
    e.add_argument("--bind", choices=("bag", "set"),
                   help="ACEL's reading of AS: bag (the ACEL paper Fig. 1 literally, the default) or set")
    add_budget_option(e)
    e.set_defaults(func=cmd_eval)

    d = sub.add_parser("draw", help="draw the automaton of a formula (CEL's CEA by default)",
                       description="Draw the automaton a formula compiles to: CEL's complex event automaton (seed "
                                   "000, Theorems 6.2 and 7.2), or another formalism's with --logic (SO-CEL's "
                                   "UCEA, SREMO's SRT, CEQL's CEA). SVG/PNG/PDF need Graphviz's dot program or its "
                                   "WebAssembly build; DOT text always works.")
    d.add_argument("formula", help="the formula's text, or @FILE")
    d.add_argument("--logic", default="cel",
                   help="the formalism: cel (default), ceql, socel, sremo or acel (FO-CEL has no automaton)")
    d.add_argument("-o", "--output", help="file to write; the extension picks the format (svg, png, pdf, dot); "
                                          "DOT on stdout when omitted")
    d.add_argument("--title", help="caption (default: the formula)")
    d.add_argument("--trim", action="store_true", help="drop states that no accepting run visits and renumber "
                                                       "the others (drawings leave them out anyway)")
    d.add_argument("--all-states", action="store_true",
                   help="draw every state, also those no accepting run visits (left out by default)")
    add_budget_option(d)
    d.set_defaults(func=cmd_draw)
