"""``equiv``: decide whether two formulas are equivalent (or one contained in the other), with a shortest
distinguishing stream; ``check-exercise`` and ``exercises``: the exercise checker for teaching CEL.

Exit status of both deciding commands: 0 equivalent / correct, 1 not (the stream is printed as JSON Lines on
stdout, so it can be replayed with ``cer-theory eval``, and the explanation on stderr), 2 bad input."""

from __future__ import annotations

import argparse
import importlib
import sys

from cer_theory.core.drawing import write_drawing
from cer_theory.core.errors import DEFAULT_BUDGET, UnsupportedError

from cer_theory.cli.common import read_text_argument
from cer_theory.cli.options import whole_number

WHY_UNDECIDED = {
    "ceql": "CEQL's time windows and equality filters between events (the CORE paper) need more than the unary "
            "complex event automata that the decision procedure compares; write the pattern in CEL",
    "focel": "FO-CEL's global valuation compares events with each other (binary predicates, the SO-CEL paper §3), "
             "which no unary automaton checks",
    "sremo": "SREMO's symbolic register transducers (the SRT paper) store events in registers: equivalence of "
             "automata with registers is undecidable in general, and the register-free fragment is not "
             "separated here",
}
"""Why formalisms without an ``equivalence`` module have no decision procedure."""


def _procedure(logic: str):
    from cer_theory.core.protocols import get

    get(logic)  # an unknown name lists the known ones
    try:
        return importlib.import_module(f"cer_theory.formalisms.{logic}.equivalence")
    except ModuleNotFoundError:
        why = WHY_UNDECIDED.get(logic, "its automata are not complex event automata over unary predicates")
        raise UnsupportedError(f"--logic {logic}: equivalence is not decided for this formalism: {why}") from None


def cmd_equiv(args: argparse.Namespace) -> int:
    procedure = _procedure(args.logic)
    left, right = read_text_argument(args.formula1), read_text_argument(args.formula2)
    kwargs = {"level": args.level, "budget": args.budget}
    if args.schema:
        if args.logic != "cel":
            raise UnsupportedError("--schema is for CEL formulas (--logic cel)")
        from cer_theory.formalisms.cel.equivalence import parse_schema

        kwargs["schema"] = parse_schema(args.schema)
    decide = procedure.contained if args.contained else procedure.equivalent
    verdict = decide(left, right, **kwargs)
    if verdict.holds:
        print("contained" if args.contained else "equivalent")
        print(verdict.explanation(), file=sys.stderr)
        return 0
    for line in verdict.jsonl():
        print(line)
    print(verdict.explanation(), file=sys.stderr)
    if args.dot and verdict.word is not None:
        write_drawing(verdict.word.diagram("φ1", "φ2").to_dot(), args.dot)
    return 1


def cmd_check_exercise(args: argparse.Namespace) -> int:
    from cer_theory.exercises.checker import check, load_exercise

    exercise = load_exercise(args.exercise)
    feedback = check(exercise, read_text_argument(args.answer))
    print(feedback.message)
    if feedback.correct:
        return 0
    return 1 if feedback.status == "wrong" else 2


def cmd_exercises(args: argparse.Namespace) -> int:
    from cer_theory.exercises.checker import DIFFICULTIES, bundled_exercises

    for e in bundled_exercises():
        print(f"{e.name:24} {DIFFICULTIES[e.difficulty]:7} {e.title}")
        if args.verbose:
            print("    " + str(e).replace("\n", "\n    "))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    e = sub.add_parser("equiv", help="decide equivalence (or containment) of two formulas, with a shortest "
                                     "distinguishing stream")
    e.add_argument("formula1", help="formula text, or @FILE")
    e.add_argument("formula2", help="formula text, or @FILE")
    e.add_argument("--logic", default="cel", help="the formalism of both formulas (cel, socel, sremo without registers; default cel)")
    e.add_argument("--contained", action="store_true", help="decide ⟦formula1⟧ ⊆ ⟦formula2⟧ instead")
    e.add_argument("--level", choices=("valuations", "complex_events"), default="valuations",
                   help="compare valuations (default) or only their complex events")
    e.add_argument("--schema", help='the stream schema both formulas must keep to, e.g. "T(id,tmp) H(id,hum)"')
    e.add_argument("--budget", type=whole_number(minimum=1), default=DEFAULT_BUDGET,
                   help=f"size budget of each exponential step, a whole number ≥ 1 (default {DEFAULT_BUDGET})")
    e.add_argument("--dot", metavar="FILE", help="draw the product path that distinguishes them")
    e.set_defaults(func=cmd_equiv)

    c = sub.add_parser("check-exercise", help="check an answer to an exercise (correct, or a stream where it differs)")
    c.add_argument("exercise", help="an exercise TOML file, or the name of a bundled one (see `exercises`)")
    c.add_argument("answer", help="the answer formula (CEL), or @FILE")
    c.set_defaults(func=cmd_check_exercise)

    x = sub.add_parser("exercises", help="list the bundled exercises")
    x.add_argument("-v", "--verbose", action="store_true", help="print each exercise's text")
    x.set_defaults(func=cmd_exercises)
