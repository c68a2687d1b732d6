"""``eval``, ``draw`` and ``logics``: any formalism of the registry, by its name (``--logic``)."""

from __future__ import annotations

import argparse
import inspect
import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cer_theory.automata import files
from cer_theory.automata.cea import CEA
from cer_theory.core.budget import work_budget
from cer_theory.core.contract import schema
from cer_theory.core.drawing import DRAWING_FORMATS, write_drawing
from cer_theory.core.errors import SizeBudgetExceeded, UnsupportedError
from cer_theory.streams.rows import iter_file, load, rereadable
from cer_theory.core.outputs import write_output
from cer_theory.core.protocols import CONSTRUCTIONS, Evaluator, Formalism, Level, Unsupported, get, records

from cer_theory.cli.common import add_logic_option, automaton_file, read_formula, scale_factor
from cer_theory.cli.layer import declare, file, output_file, text_or_file


def draws_trimmed(model: object) -> bool:
    """Whether ``model``'s drawing greys useless states unless ``--all-states`` (``trim=False``) draws them plainly:
    every CEA (UCEA included), and any model whose ``diagram`` takes ``trim`` (SREMO's SRT). Asked of the model, not
    of a list of classes, so that ``run`` does not load every formalism's automaton to draw none."""
    diagram = getattr(model, "diagram", None)
    return isinstance(model, CEA) or (diagram is not None and "trim" in inspect.signature(diagram).parameters)


class _Events:
    """The stream file's events, read one at a time (``-``: standard input), counting how many were taken."""

    def __init__(self, path: str) -> None:
        self.path, self.taken = path, 0

    def __iter__(self) -> Iterator[Any]:
        for _, event in iter_file(self.path):
            self.taken += 1
            yield event


def _lines(level: Level, evaluator: Evaluator, ast: Any, events: _Events, options: dict[str, Any]) -> Iterator[str]:
    """The JSON lines ``eval`` prints (the output contract, :mod:`cer_theory.core.contract`), each as soon as its
    position's outputs are known: a streaming evaluator reads the file one event at a time, so memory is bounded by
    its state, not by the stream (D183)."""
    for n, out in evaluator.stream(ast, iter(events), **options):
        projected = frozenset(level.project(x) for x in out)
        if projected:
            yield json.dumps(level.json_line(n, projected))


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate a formula of a registered formalism with one of its evaluators: one JSON line per position that
    has outputs, printed at the coarsest level (complex events) or, with ``--valuations``, the finest, as the
    stream is read. ``--budget`` bounds the work of every evaluator: the constructions behind an automaton (A_SEL,
    UNLESS's determinization, a windowed dSRA) and the rules of a reference semantics."""
    logic = get(args.logic)
    ast = read_formula(args.formula, logic)
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
    events, live = _Events(args.stream), not rereadable(args.stream)
    try:
        _print(_lines(level, evaluator, ast, events, options), args.budget, live=live)
    except _NothingPrinted as unbuilt:
        exc = unbuilt.exc
        if args.via is not None or evaluator.name == "semantics" or (events.taken and live):
            raise exc from None
        # the default evaluator's automaton is too big to build: the semantics gives the same outputs, under a
        # budget of its own
        print(f"cer-theory eval: {exc.for_command_line()}; evaluating by the reference semantics instead (slow "
              f"on long streams)", file=sys.stderr)
        try:
            _print(_lines(level, logic.evaluator("semantics"), ast, _Events(args.stream), options), args.budget,
                   live=live)
        except _NothingPrinted as again:
            raise again.exc from None
    return 0


class _NothingPrinted(Exception):
    """The budget ran out before the first line was printed (so another evaluator may start afresh)."""

    def __init__(self, exc: SizeBudgetExceeded) -> None:
        super().__init__(str(exc))
        self.exc = exc


def _print(lines: Iterator[str], budget: int, *, live: bool) -> None:
    """Write the lines as they come, under a work budget of ``budget``, each flushed at once from a ``live``
    source (standard input, a pipe); :class:`_NothingPrinted` when the budget is exceeded before the first line
    (building the automaton comes before any output)."""
    with work_budget(budget):
        try:
            first = next(lines, None)
        except SizeBudgetExceeded as exc:
            raise _NothingPrinted(exc) from None
        if first is None:
            return
        out = sys.stdout
        for line in itertools.chain((first,), lines):
            out.write(line + "\n")
            if live:
                out.flush()


def cmd_draw(args: argparse.Namespace) -> int:
    """Draw the automaton a formula of ``--logic`` compiles to (CEL's CEA by Theorems 6.2 and 7.2, SO-CEL's UCEA,
    SREMO's SRT, CEQL's CEA, ACEL's ACEA)."""
    logic = get(args.logic)
    path = automaton_file(args.formula)
    if path is not None:
        automaton = files.load(path)  # a file a student hands in: the format of docs/automaton-files.md
        default_title = getattr(automaton, "name", "") or Path(path).name
    else:
        ast = read_formula(args.formula, logic)
        automaton = logic.automaton(ast) if args.stream is None else logic.automaton_for(ast, load(args.stream))
        default_title = logic.format(ast)
    if args.trim:
        if not hasattr(automaton, "trim"):
            raise UnsupportedError(f"--trim: {logic.name}'s automaton ({type(automaton).__name__}) has no trimming")
        automaton = automaton.trim().relabel_states()
    title = args.title or default_title
    if args.output is not None and args.output.lower().endswith(".json"):
        write_output(args.output, files.dumps(automaton, name=title))  # refused, naming the model, if it has no file format
        print(f"wrote {args.output}", file=sys.stderr)
        return 0
    if args.all_states and not draws_trimmed(automaton):
        raise UnsupportedError(f"--all-states is for complex event automata and symbolic register transducers; "
                               f"{type(automaton).__name__} drawings show every state")
    dot = automaton.to_dot(title=title, trim=False) if args.all_states else automaton.to_dot(title=title)
    if args.output in (None, "-"):
        sys.stdout.write(dot)
    else:
        write_drawing(dot, args.output, scale=args.scale)
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


def describe(record: Formalism, *, verbose: bool = False) -> list[str]:
    """What ``logics`` prints of a record: name, paper, evaluators and constructions (with -v, why the others are
    missing)."""
    lines = [f"{record.name:7} {record.summary} ({record.paper})",
             f"        evaluators: {', '.join(record.evaluators)} (default {record.default})",
             f"        constructions: {', '.join(c for c in CONSTRUCTIONS if record.supports(c)) or 'none'}"]
    if verbose:
        for name in CONSTRUCTIONS:
            target = record.constructions[name]
            if isinstance(target, Unsupported):
                lines.append(f"          no {name}: {target.reason}")
    return lines


def cmd_logics(args: argparse.Namespace) -> int:
    if args.schema:
        print(json.dumps(schema(get(args.schema)), indent=2))
        return 0
    for record in records():
        print("\n".join(describe(record, verbose=args.verbose)))
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
    add_logic_option(e, "the evaluator asked for")
    e.add_argument("--via", help="the evaluator (default: the formalism's fast one, the reference semantics for a "
                                 "formula outside its fragment; semantics: the oracle)")
    e.add_argument("--valuations", action="store_true", help="print valuations instead of complex events")
    e.add_argument("--bind", choices=("bag", "set"),
                   help="ACEL's reading of AS: bag (the ACEL paper Fig. 1 literally, the default) or set")
    declare(e, inputs=[text_or_file("formula"), file("stream")], budget=True)
    e.set_defaults(func=cmd_eval)

    d = sub.add_parser("draw", help="draw the automaton of a formula (CEL's CEA by default)",
                       description="Draw the automaton a formula compiles to: CEL's complex event automaton (seed "
                                   "000, Theorems 6.2 and 7.2), or another formalism's with --logic (SO-CEL's "
                                   "UCEA, SREMO's SRT, CEQL's CEA). SVG/PNG/PDF need Graphviz's dot program or its "
                                   "WebAssembly build; DOT text always works.")
    d.add_argument("formula", help="the formula's text, or @FILE; @FILE.json draws an automaton file "
                                   "(docs/automaton-files.md)")
    add_logic_option(d, "an automaton model")
    d.add_argument("-o", "--output", help="file to write; the extension picks the format (svg, png, pdf, dot; json: "
                                          "the automaton as a file, docs/automaton-files.md); DOT on stdout when "
                                          "omitted")
    d.add_argument("--title", help="caption (default: the formula)")
    d.add_argument("--scale", type=scale_factor, metavar="S",
                   help="an SVG S times its natural size (default: it fills the width it is shown at); a PNG S "
                        "times the resolution")
    d.add_argument("--stream", help="build the automaton for this stream's events: ACEL's ACEA copies the attributes "
                                    "the stream's events carry (the ACEL paper Thm 6.2; default: the attributes the "
                                    "formula names); the other models are the same for every stream")
    d.add_argument("--trim", action="store_true", help="drop states that no accepting run visits and renumber "
                                                       "the others (drawings show them grey, with their numbers)")
    d.add_argument("--all-states", action="store_true",
                   help="draw the states no accepting run visits like the others (grey by default; CEA, UCEA and SRT)")
    declare(d, inputs=[text_or_file("formula"), file("stream")],
            outputs=[output_file("output", suffixes=DRAWING_FORMATS | {"json"})], budget=True,
            example=["draw", "A ; B", "-o", "drawing.dot"])
    d.set_defaults(func=cmd_draw)

    g = sub.add_parser("logics", help="list the registered formalisms, their evaluators and constructions",
                       description="List every formalism of the registry (the names --logic takes), with its seed "
                                   "paper, its evaluators (--via) and the constructions it has; with -v, the reason "
                                   "for each construction it lacks.")
    g.add_argument("-v", "--verbose", action="store_true", help="say why each missing construction is missing")
    g.add_argument("--schema", metavar="LOGIC", help="print the JSON Schema of the lines eval --logic LOGIC prints "
                                                     "(docs/output-contract.md)")
    declare(g)
    g.set_defaults(func=cmd_logics)
