"""The course commands: ``exercises`` lists the bundled exercises by paper, kind and difficulty;
``check-exercise`` grades one answer; ``exercise-sheet`` writes a problem sheet (Markdown or HTML) for a seed or
for the bundled exercises; ``grade-answers`` grades a folder of a class's answers into one CSV.

Exit status of ``check-exercise``: 0 accepted, 1 wrong (the explanation on stdout), 2 bad input (past its
``--budget`` too). Exit status of ``grade-answers``: 0 when every answer was graded, 1 when the CSV is written but
some answers could not be graded (refused, over the budget, out of time, or the grader failed: marked in its
``status`` column and counted on stderr), 2 bad input (no CSV written)."""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

from cer_theory.core.outputs import write_output

from cer_theory.cli.common import read_text_argument
from cer_theory.cli.layer import declare, file, output_file, text_or_file
from cer_theory.cli.options import seconds, whole_number

MAX_ANSWER_CAP = 1 << 30
"""The largest ``--max-answer-bytes`` (1 GiB): more is no cap at all."""

MAX_SEED = 10**9
"""The largest seed of a generated sheet: its exercises are named after it (``gen_formula_1_<seed>``), and the
grader rebuilds them from the name."""


def cmd_check_exercise(args: argparse.Namespace) -> int:
    from cer_theory.exercises.checker import check
    from cer_theory.exercises.teacher import exercise_named

    feedback = check(exercise_named(args.exercise), read_text_argument(args.answer))
    print(feedback.message)
    if feedback.accepted:
        return 0
    return 1 if feedback.status == "wrong" else 2


def cmd_exercises(args: argparse.Namespace) -> int:
    from cer_theory.exercises.checker import bundled_exercises
    from cer_theory.exercises.model import DIFFICULTIES

    wanted = {key: value for key, value in (("logic", args.logic), ("kind", args.kind)) if value}
    paper = None
    for e in bundled_exercises():
        if any(getattr(e, key) != value for key, value in wanted.items()) or \
                (args.difficulty and DIFFICULTIES[e.difficulty] != args.difficulty):
            continue
        if e.paper != paper:
            paper = e.paper
            print(paper)
        print(f"  {e.name:28} {e.kind:12} {DIFFICULTIES[e.difficulty]:7} {e.title}")
        if args.verbose:
            print("      " + str(e).replace("\n", "\n      "))
    return 0


def cmd_exercise_sheet(args: argparse.Namespace) -> int:
    from cer_theory.exercises.checker import bundled_exercises
    from cer_theory.exercises.teacher import exercise_named, seed_sheet, sheet_html, sheet_markdown

    if args.names:
        exercises, title = [exercise_named(n) for n in args.names], "Exercises"
    elif args.seed is not None:
        exercises, title = seed_sheet(args.seed, args.logic), f"Exercises, instance {args.seed}"
    else:
        exercises, title = bundled_exercises(), "Exercises"
    render = sheet_html if args.format == "html" else sheet_markdown
    text = render(exercises, title=title, solutions=args.solutions)
    if args.output:
        write_output(args.output, text)
    else:
        print(text, end="")
    return 0


def cmd_grade_answers(args: argparse.Namespace) -> int:
    from cer_theory.exercises.classfolder import MAX_ANSWER_BYTES, TIME_LIMIT
    from cer_theory.exercises.teacher import NOT_GRADED, grade_folder, grades_csv

    start = time.perf_counter()
    rows = grade_folder(args.folder, budget=args.budget, max_bytes=args.max_answer_bytes or MAX_ANSWER_BYTES,
                        seconds=args.time_limit or TIME_LIMIT)
    write_output(args.output, grades_csv(rows))
    students = len({r["student"] for r in rows})
    accepted = sum(r["grade"] == "1" for r in rows)
    failed = Counter(r["status"] for r in rows if r["status"] in NOT_GRADED)
    print(f"graded {len(rows) - sum(failed.values())} of {len(rows)} answers of {students} students ({accepted} "
          f"accepted) in {time.perf_counter() - start:.1f} s: {args.output}")
    if failed:
        n = sum(failed.values())
        print(f"cer-theory grade-answers: {n} answer{'s' if n > 1 else ''} could not be graded ("
              + ", ".join(f"{status}: {n}" for status, n in sorted(failed.items()))
              + f"); they have grade 0 and their status in {args.output}", file=sys.stderr)
        return 1
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("check-exercise", help="grade an answer to an exercise (correct, or a stream where it "
                                              "differs)")
    c.add_argument("exercise", help="an exercise TOML file, a bundled name (see `exercises`) or a generated "
                                    "instance gen_[<logic>_]<kind>_<difficulty>_<seed>")
    c.add_argument("answer", help="the answer (formula, JSON automaton, JSON list of outputs, yes/no), or @FILE")
    declare(c, inputs=[file("exercise"), text_or_file("answer")], budget=True)
    c.set_defaults(func=cmd_check_exercise)

    x = sub.add_parser("exercises", help="list the bundled exercises by paper, kind and difficulty")
    x.add_argument("-v", "--verbose", action="store_true", help="print each exercise's text")
    x.add_argument("--logic", help="only this formalism (cel, ceql, socel, focel, acel, sremo)")
    x.add_argument("--kind", choices=("formula", "automaton", "predict", "construction"))
    x.add_argument("--difficulty", choices=("easy", "medium", "hard"))
    declare(x)
    x.set_defaults(func=cmd_exercises)

    s = sub.add_parser("exercise-sheet", help="write a problem sheet (Markdown or HTML) for a seed, for named "
                                              "exercises, or for all bundled ones")
    s.add_argument("names", nargs="*",
                   help="exercise names (bundled or gen_[<logic>_]<kind>_<difficulty>_<seed>)")
    s.add_argument("--seed", type=whole_number(minimum=0, maximum=MAX_SEED),
                   help=f"one generated instance per kind and difficulty for this seed (a whole number from 0 to "
                        f"{MAX_SEED}: the instances' names carry it, and the grader reads them back)")
    s.add_argument("--logic", default="cel", metavar="NAME",
                   help="the formalism of the generated instances (CEQL and SO-CEL: formula and predict kinds)")
    s.add_argument("--format", choices=("md", "html"), default="md")
    s.add_argument("--solutions", action="store_true", help="add the worked solutions (the teacher's copy)")
    s.add_argument("-o", "--output", help="write to this file (written aside, then renamed into place)")
    declare(s, inputs=[file("names")], outputs=[output_file("output")],
            example=["exercise-sheet", "--seed", "1", "-o", "sheet.md"])
    s.set_defaults(func=cmd_exercise_sheet)

    g = sub.add_parser("grade-answers", help="grade a folder of answers (one sub-folder per student, one file per "
                                             "exercise) into a CSV of grades with feedback")
    g.add_argument("folder")
    g.add_argument("-o", "--output", required=True, help="the CSV file to write (not inside the folder)")
    # The defaults live in exercises.classfolder, which the parser does not load (`run` must not); the help
    # repeats them and a test checks that it says the same.
    g.add_argument("--max-answer-bytes", type=whole_number(1, MAX_ANSWER_CAP), metavar="N",
                   help=f"refuse (without reading it) an answer file larger than N bytes, a whole number from 1 "
                        f"to {MAX_ANSWER_CAP} (default 65,536)")
    g.add_argument("--time-limit", type=seconds(), metavar="SECONDS",
                   help="stop grading an answer after this many seconds and mark it 'timed out' (default 60)")
    # each answer gets the whole budget (exercises.classfolder)
    declare(g, inputs=[file("folder")], outputs=[output_file("output")], budget=True,
            example=["grade-answers", "answers", "-o", "grades.csv"])
    g.set_defaults(func=cmd_grade_answers)
