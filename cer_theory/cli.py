"""The ``cer-theory`` command line.

``eval``          evaluate a formula (CEL, or ``--logic ceql``, …) on a stream file, one JSON object per output
                  position, by the evaluator ``--via`` names (the formalism registry lists them);
``draw``          draw a formula's automaton (CEL's CEA by Theorems 6.2 and 7.2; ``--logic`` for the others);
``determinize``   its I/O-deterministic CEA (Prop. 5.5);      ``normal-form``  single-variable + I/O-det (§9.2);
``star-property`` decide the *-property (Def. 8.4), with a counterexample stream when it fails;
``to-cel``        back to CEL (Theorem 6.3, or Theorem 8.9 with ``--star``);
``rewrite``       the §8 formula rewrites (Props. 8.12, 8.13, 8.15);
``cces``          evaluate by the §9 algorithm and draw the final CCES;
``run``           evaluate a CEQL query with the tECS engine of seed 001 (CORE);
``spark``         evaluate a CEQL query on Spark (batch or streaming), written as JSON Lines or Parquet part files;
``demo``          the running example of seed 000: φ1–φ4 on S_fire, semantics and automaton side by side;
``figures``       regenerate every drawing in ``figures/``.

Exit status: 0 on success, 2 on bad input (a formula that does not parse, a malformed stream, a formula
the requested evaluator cannot handle), with a message on stderr naming where the problem is.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from cer_theory.core.errors import DEFAULT_BUDGET, CerError, UnsupportedError
from cer_theory.core.events import Stream


def _read_formula(text: str):
    from cer_theory.formalisms.cel.parser import parse

    if text.startswith("@"):
        text = Path(text[1:]).read_text(encoding="utf-8")
    return parse(text)


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate a formula of a registered formalism with one of its evaluators: one JSON line per position that
    has outputs, printed at the coarsest level (complex events) or, with ``--valuations``, the finest."""
    from cer_theory.core.protocols import get

    logic = get(args.logic)
    text = Path(args.formula[1:]).read_text(encoding="utf-8") if args.formula.startswith("@") else args.formula
    ast = logic.parse(text)
    evaluator = logic.evaluator(args.via or logic.default)
    if args.via is None and not evaluator.handles(ast):
        # the default is the fast evaluator; a formula outside its fragment falls back to the reference semantics
        evaluator = logic.evaluator("semantics")
    level = logic.level("valuations") if args.valuations else logic.levels[-1]
    if logic.coarser(evaluator.level, level.name) is not level:
        finer = [name for name, ev in logic.evaluators.items() if logic.coarser(ev.level, level.name) is level]
        raise UnsupportedError(f"--via {evaluator.name} computes {evaluator.level} only ({evaluator.description}); "
                               f"drop --valuations or use --via {'|'.join(finer)}")
    stream = Stream.load(args.stream)
    out = sys.stdout
    for n, outputs in enumerate(level.outputs(evaluator(ast, stream))):
        if outputs:
            out.write(json.dumps(level.json_line(n, outputs)) + "\n")
    return 0


def _compile(phi, *, trim: bool = False):
    """Theorem 6.2, with Theorem 7.2 for selection strategies at any depth."""
    from cer_theory.formalisms.cel.selection import compile_with_selection

    cea = compile_with_selection(phi)
    return cea.trim().relabel_states() if trim else cea


def _show(cea, args: argparse.Namespace, title: str) -> None:
    """Print a summary of an automaton and write its drawing when ``--dot FILE`` was given."""
    from cer_theory.core.drawing import write_drawing

    det = "I/O-deterministic" if cea.is_io_deterministic() else "not I/O-deterministic"
    print(f"{title}: {len(cea.states)} states, {len(cea.transitions)} transitions, {det}")
    if getattr(args, "verbose", False):
        print(cea.describe())
    if args.dot:
        write_drawing(cea.to_dot(title=title), args.dot)
        print(f"wrote {args.dot}")


def cmd_determinize(args: argparse.Namespace) -> int:
    from cer_theory.automata.determinize.eager import io_determinize

    phi = _read_formula(args.formula)
    cea = _compile(phi)
    det = io_determinize(cea, budget=args.budget, complete=not args.trim)
    if args.trim:
        det = det.restrict((det.reachable() & det.coreachable()) | det.initial)
    _show(cea, argparse.Namespace(dot=None), f"CEA of {phi}")
    _show(det.relabel_states(), args, f"IOdet (Prop. 5.5) of {phi}")
    return 0


def cmd_normal_form(args: argparse.Namespace) -> int:
    from cer_theory.formalisms.cel.normal_form import normal_form

    phi = _read_formula(args.formula)
    _show(normal_form(_compile(phi), budget=args.budget), args, f"normal form (§9.2) of {phi}")
    return 0


def cmd_star_property(args: argparse.Namespace) -> int:
    from cer_theory.formalisms.cel.star_property import has_star_property

    phi = _read_formula(args.formula)
    cea = _compile(phi)
    print(f"{phi}\n{has_star_property(cea, budget=args.budget)}")
    if args.dot:
        _show(cea, args, f"CEA of {phi}")
    return 0


def cmd_to_cel(args: argparse.Namespace) -> int:
    from cer_theory.formalisms.cel.to_cel import cea_to_cel, cea_to_cel_star, formula_size

    phi = _read_formula(args.formula)
    cea = _compile(phi, trim=True)
    relations = args.relations.split(",") if args.relations else None
    back = (cea_to_cel_star if args.star else cea_to_cel)(cea, relations, budget=args.budget)
    which = "Theorem 8.9 (CE level, *-semantics)" if args.star else "Theorem 6.3 (valuation level)"
    print(f"# {which}: CEA with {len(cea.states)} states → formula of size {formula_size(back)}")
    print(back)
    return 0


REWRITES = {
    "strict-to-contiguous": ("strict_to_contiguous", "Prop. 8.13: CEL*∪{STRICT} → CEL*∪{:,⊕}"),
    "contiguize": ("contiguize", "Prop. 8.13: STRICT(φ) as φ with every ; → : and + → ⊕"),
    "contig-to-strict": ("contig_to_strict", "Prop. 8.12: CEL*∪{:} → CEL*∪{STRICT}"),
    "cplus-to-strict": ("cplus_to_strict", "Prop. 8.15: unary CEL*∪{:,⊕} → CEL*∪{STRICT} (CE level)"),
}


def cmd_rewrite(args: argparse.Namespace) -> int:
    from cer_theory.formalisms.cel import rewrites

    name, title = REWRITES[args.kind]
    phi = _read_formula(args.formula)
    print(f"# {title}")
    print(getattr(rewrites, name)(phi))
    return 0


def cmd_cces(args: argparse.Namespace) -> int:
    from cer_theory.engines.cces import CcesEvaluator, compile_formula
    from cer_theory.core.drawing import write_drawing

    phi = _read_formula(args.formula)
    stream = Stream.load(args.stream)
    evaluator = CcesEvaluator(compile_formula(phi))
    for n, event in enumerate(stream):
        ces = sorted(tuple(sorted(c)) for c in evaluator.process(event))
        if ces:
            print(json.dumps({"n": n, "complex_events": [list(c) for c in ces]}))
    st = evaluator.stats
    print(f"# {st.events} events, {st.nodes_created} CCES nodes, at most {st.max_work_per_event} operations per "
          f"event; {st.enumeration.outputs} outputs in {st.enumeration.visits} node visits", file=sys.stderr)
    if args.dot:
        write_drawing(evaluator.to_dot(title=f"CCES after {len(stream)} events: {phi}"), args.dot)
        print(f"wrote {args.dot}", file=sys.stderr)
    return 0


def cmd_draw(args: argparse.Namespace) -> int:
    """Draw the automaton of a formula: CEL's CEA (Theorems 6.2 and 7.2), or the automaton another registered
    formalism compiles to (SO-CEL's UCEA, SREMO's SRT)."""
    from cer_theory.core.drawing import write_drawing
    from cer_theory.core.protocols import get

    if args.logic == "cel":
        phi = _read_formula(args.formula)
        automaton = _compile(phi, trim=args.trim)
        title = args.title or str(phi)
    else:
        if args.trim:
            raise UnsupportedError("--trim is for CEL's automata (--logic cel)")
        logic = get(args.logic)
        text = Path(args.formula[1:]).read_text(encoding="utf-8") if args.formula.startswith("@") else args.formula
        automaton = logic.automaton(logic.parse(text))
        title = args.title or text
    dot = automaton.to_dot(title=title)
    if args.output in (None, "-"):
        sys.stdout.write(dot)
    else:
        write_drawing(dot, args.output)
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


def _fmt(ces: frozenset) -> str:
    return "{" + ", ".join("{" + ",".join(map(str, c)) + "}" for c in sorted(tuple(sorted(c)) for c in ces)) + "}"


def cmd_demo(args: argparse.Namespace) -> int:
    from cer_theory.examples.seed000 import FORMULAS, fire_stream
    from cer_theory.formalisms.cel.semantics import evaluate_complex_events
    from cer_theory.formalisms.cel.parser import parse
    from cer_theory.core.drawing import write_drawing

    t0 = time.perf_counter()
    stream = fire_stream()
    print("S_fire (seed 000, Fig. 1):")
    for k, e in enumerate(stream):
        print(f"  {k}: {e!r}")
    all_agree = True
    for name in ("φ1", "φ2", "φ3", "φ4"):
        phi = parse(FORMULAS[name])
        cea = _compile(phi)
        by_sem = evaluate_complex_events(phi, stream)
        by_cea = cea.run_complex_events(stream)
        print(f"\n{name} = {FORMULAS[name]}")
        print(f"  CEA (Theorem 6.2): {len(cea.states)} states, {len(cea.transitions)} transitions")
        print(f"  {'n':>3}  {'semantics (Fig. 3)':<32} {'automaton (Def. 5.2)':<32}")
        for n in range(len(stream)):
            if by_sem[n] or by_cea[n]:
                mark = "=" if by_sem[n] == by_cea[n] else "≠"
                print(f"  {n:>3}  {_fmt(by_sem[n]):<32} {_fmt(by_cea[n]):<32} {mark}")
        all_agree &= by_sem == by_cea
    out_dir = Path(args.figures)
    out_dir.mkdir(parents=True, exist_ok=True)
    phi3 = parse(FORMULAS["φ3"])
    dot = _compile(phi3).to_dot(title="CEA of φ3 (Theorem 6.2)")
    (out_dir / "phi3_cea.dot").write_text(dot, encoding="utf-8")
    write_drawing(dot, str(out_dir / "phi3_cea.svg"))
    print(f"\nwrote {out_dir / 'phi3_cea.svg'} and {out_dir / 'phi3_cea.dot'}")
    print(f"semantics and automata {'agree' if all_agree else 'DISAGREE'} on every position "
          f"({time.perf_counter() - t0:.2f} s)")
    return 0 if all_agree else 1


def _read_query(text: str):
    from cer_theory.formalisms.ceql.parser import parse

    path = Path(text)
    if "\n" not in text and len(text) < 4096 and path.suffix and path.exists():
        text = path.read_text(encoding="utf-8")
    return parse(text)


def cmd_run(args: argparse.Namespace) -> int:
    """Evaluate a CEQL query with the tECS engine (seed 001), one JSON object per complex event."""
    import dataclasses

    from cer_theory.engines.core import Engine
    from cer_theory.formalisms.ceql.declarations import Schema
    from cer_theory.core.events import iter_file

    query = _read_query(args.query)
    if args.strict_window and query.within is not None:
        query = dataclasses.replace(query, within=dataclasses.replace(query.within, strict=True))
    if args.time_attribute and query.within is not None and query.within.kind == "time":
        query = dataclasses.replace(query, within=dataclasses.replace(query.within, attribute=args.time_attribute))
    if args.declare:
        from cer_theory.formalisms.ceql.parser import parse_declarations

        schema = Schema.from_declarations(parse_declarations(Path(args.declare).read_text(encoding="utf-8")))
    else:
        schema = Schema.infer(iter_file(args.stream), source=args.stream)
    engine = Engine(query)
    out, t0, last, count = sys.stdout, time.perf_counter(), time.perf_counter(), 0

    def events():
        nonlocal last
        for k, event in enumerate(schema.check(iter_file(args.stream), source=args.stream), 1):
            yield event
            now = time.perf_counter()
            if now - last >= args.progress:
                last = now
                print(f"run: {k:,} events, {count:,} complex events, {k / (now - t0):,.0f} events/s",
                      file=sys.stderr)

    for match in engine.process(events()):
        count += 1
        out.write(json.dumps(match.to_json()) + "\n")
    if engine.unpartitioned:
        print(f"run: {engine.unpartitioned:,} events lack a PARTITION BY attribute and belong to no partition",
              file=sys.stderr)
    elapsed = time.perf_counter() - t0
    print(f"run: {engine.position:,} events, {count:,} complex events in {elapsed:.2f} s", file=sys.stderr)
    return 0


def _spark_query(args: argparse.Namespace):
    import dataclasses

    query = _read_query(args.query)
    window = query.within
    if window is not None and args.strict_window:
        window = dataclasses.replace(window, strict=True)
    if window is not None and args.time_attribute and window.kind == "time":
        window = dataclasses.replace(window, attribute=args.time_attribute)
    return dataclasses.replace(query, within=window)


def cmd_spark(args: argparse.Namespace) -> int:
    """A CEQL query over event files on Spark: the complex events as part files, a summary on stdout."""
    from cer_theory.spark.job import local_file, sample_paths

    if args.sample:
        events, query_file = sample_paths()
        args.input, args.query = args.input or events, args.query or query_file
    if not args.input or not args.query:
        raise CerError("--query and --input are required (or --sample for the bundled sample data and query)")
    query = _spark_query(args)
    declaration = Path(args.declare).read_text(encoding="utf-8") if args.declare else None
    if args.check and (args.stream or not local_file(args.input) or Path(args.input).is_dir()):
        raise CerError("--check reads the input again in this process: it needs one local CSV or JSON Lines file "
                       "and batch mode")

    def emit(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    from cer_theory.spark import spark_session

    t0 = time.perf_counter()
    spark = spark_session(args.master)
    emit(f"spark: session on {spark.sparkContext.master} ({spark.version}) in {time.perf_counter() - t0:.1f} s")
    if args.stream:
        from cer_theory.spark.streaming import stream_job

        counts = stream_job(spark, args.input, query, output=args.output, format=args.format,
                            checkpoint=args.checkpoint or f"{args.output.rstrip('/')}.checkpoint",
                            declaration=declaration, follow=args.follow, progress=emit,
                            input_format=args.input_format, lateness=args.lateness,
                            position_column=args.position_column)
        print(json.dumps(counts))
        return 0
    from cer_theory.spark import read_events
    from cer_theory.spark.job import run_job, summary

    df = read_events(spark, args.input, format=args.input_format)
    report = run_job(spark, df, query, output=args.output, fmt=args.format, rejected_output=args.rejected,
                     check_path=args.input if args.check else None, progress=args.progress, emit=emit,
                     declaration=declaration, order_by=args.order_by, on_bad_rows=args.on_bad_rows,
                     slices=args.slices, with_events=not args.no_events)
    print(summary(report))
    return 0


def cmd_figures(args: argparse.Namespace) -> int:
    from cer_theory.examples.figures import write_all

    for path in write_all(Path(args.output)):
        print(f"wrote {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cer-theory", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    e = sub.add_parser("eval", help="evaluate a formula on a stream (JSON Lines out)",
                       description="Evaluate a formula of a registered formalism on a stream, one JSON line per "
                                   "position with outputs, by one of the formalism's evaluators. An unknown "
                                   "--logic or --via is refused with the list of choices.")
    e.add_argument("formula", help="the formula's text, or @FILE to read it from a file")
    e.add_argument("--stream", required=True, help="stream file: .csv (with a type column) or JSON Lines")
    e.add_argument("--logic", default="cel", help="the formalism's registry name (default cel)")
    e.add_argument("--via", help="the evaluator (default: the formalism's; for CEL the reference semantics)")
    e.add_argument("--valuations", action="store_true", help="print valuations instead of complex events")
    e.set_defaults(func=cmd_eval)

    d = sub.add_parser("draw", help="draw the automaton of a formula (CEL's CEA by default)")
    d.add_argument("formula", help="the formula's text, or @FILE")
    d.add_argument("--logic", default="cel", help="the formalism: cel (default), ceql, socel or sremo (FO-CEL has no automaton)")
    d.add_argument("-o", "--output", help="file to write; the extension picks the format (svg, png, pdf, dot); "
                                          "DOT on stdout when omitted")
    d.add_argument("--title", help="caption (default: the formula)")
    d.add_argument("--trim", action="store_true", help="drop states that no accepting run visits")
    d.set_defaults(func=cmd_draw)

    def construction(name: str, func, helptext: str, *, budget: int = DEFAULT_BUDGET):
        c = sub.add_parser(name, help=helptext)
        c.add_argument("formula", help="CEL text, or @FILE")
        c.add_argument("--dot", metavar="FILE", help="write a drawing; the extension picks the format")
        c.add_argument("--budget", type=int, default=budget, help=f"size budget (default {budget})")
        c.add_argument("-v", "--verbose", action="store_true", help="list every transition")
        c.set_defaults(func=func)
        return c

    construction("determinize", cmd_determinize, "I/O-determinize the formula's CEA (Prop. 5.5)").add_argument(
        "--trim", action="store_true", help="omit the dead state and useless states")
    construction("normal-form", cmd_normal_form, "single-variable, I/O-deterministic CEA (§9.2)")
    construction("star-property", cmd_star_property, "decide the *-property (Def. 8.4) of the formula's CEA",
                 budget=100_000)
    t = construction("to-cel", cmd_to_cel, "compile, then translate the CEA back to CEL (Theorem 6.3)",
                     budget=1_000_000)
    t.add_argument("--star", action="store_true", help="Theorem 8.9 back-translation (*-semantics, CE level)")
    t.add_argument("--relations", help="comma-separated relation names of the schema (default: those mentioned)")

    r = sub.add_parser("rewrite", help="the formula rewrites of seed 000 §8")
    r.add_argument("kind", choices=sorted(REWRITES))
    r.add_argument("formula", help="CEL text, or @FILE")
    r.set_defaults(func=cmd_rewrite)

    c = sub.add_parser("cces", help="evaluate with the §9 algorithm and draw the final CCES")
    c.add_argument("formula", help="CEL text, or @FILE")
    c.add_argument("--stream", required=True, help="stream file (.csv or JSON Lines)")
    c.add_argument("--dot", metavar="FILE", help="draw the CCES and its table after the last event")
    c.set_defaults(func=cmd_cces)

    q = sub.add_parser("run", help="evaluate a CEQL query with the tECS engine (JSON Lines out)")
    q.add_argument("--query", required=True, help="CEQL text, or a file holding it")
    q.add_argument("--stream", required=True, help="events: .csv (with a type column) or JSON Lines")
    q.add_argument("--declare", help="a file of CREATE STREAM declarations; inferred from the data when omitted")
    q.add_argument("--strict-window", action="store_true",
                   help="CORE's reading end − start < n (default: the paper's end − start ≤ n)")
    q.add_argument("--time-attribute", help="the timestamp attribute of time windows (default: time)")
    q.add_argument("--progress", type=float, default=2.0, metavar="SECONDS",
                   help="seconds between progress lines on stderr (default 2)")
    q.set_defaults(func=cmd_run)

    k = sub.add_parser("spark", help="evaluate a CEQL query on Spark (part files out)",
                       description="A CEQL query over event files on Spark, with exactly the complex events of "
                                   "`cer-theory run`. Local Spark by default; --master takes any master URL.")
    k.add_argument("--query", help="CEQL text, or a file holding it")
    k.add_argument("--input", help="events: a CSV, JSON Lines or Parquet file or directory (any Spark path)")
    k.add_argument("--output", required=True, help="directory for the complex events (overwritten)")
    k.add_argument("--format", choices=["json", "parquet"], default="json", help="output format (default json)")
    k.add_argument("--master", help="Spark master URL (default: $CER_SPARK_MASTER or local[*])")
    k.add_argument("--stream", action="store_true", help="Structured Streaming over the input directory")
    k.add_argument("--checkpoint", help="streaming checkpoint location (default: OUTPUT.checkpoint)")
    k.add_argument("--follow", action="store_true", help="streaming: keep running for new files (default: "
                                                          "process what is there and stop)")
    k.add_argument("--lateness", default="0 seconds",
                   help="streaming: watermark delay, in the window attribute's units read as seconds")
    k.add_argument("--position-column", default="position",
                   help="streaming: the integer column holding each event's stream position (default position)")
    k.add_argument("--sample", action="store_true", help="the bundled sample data and query (the main job)")
    k.add_argument("--check", action="store_true", help="also run the single-process engine and compare")
    k.add_argument("--declare", help="a file of CREATE STREAM declarations (default: the data's own types)")
    k.add_argument("--on-bad-rows", choices=["fail", "report"], default="fail",
                   help="rows that do not match the declaration: fail (default) or report them in "
                        "OUTPUT.rejected and evaluate the rest")
    k.add_argument("--rejected", help="where the rejected rows go (default: OUTPUT.rejected)")
    k.add_argument("--input-format", choices=["csv", "json", "parquet"], help="default: from the extension")
    k.add_argument("--order-by", nargs="+", help="columns giving the stream order (default: file order)")
    k.add_argument("--slices", type=int, help="tasks for partitioned or sliced plans (default: from the cores)")
    k.add_argument("--no-events", action="store_true", help="leave out the matched rows (faster)")
    k.add_argument("--strict-window", action="store_true", help="CORE's reading end − start < n")
    k.add_argument("--time-attribute", help="the timestamp attribute of time windows (default: time)")
    k.add_argument("--progress", type=float, default=5.0, metavar="SECONDS",
                   help="seconds between progress lines on stderr (default 5; 0: none)")
    k.set_defaults(func=cmd_spark)

    m = sub.add_parser("demo", help="the running example of seed 000, semantics vs automaton")
    m.add_argument("--figures", default="figures", help="where to write the φ3 automaton (default: figures/)")
    m.set_defaults(func=cmd_demo)

    f = sub.add_parser("figures", help="regenerate the drawings in figures/")
    f.add_argument("-o", "--output", default="figures")
    f.set_defaults(func=cmd_figures)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except CerError as exc:
        print(f"cer-theory {args.command}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"cer-theory {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
