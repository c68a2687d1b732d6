"""``serve``: the course server (the ``server`` extra), a class's exercises, answers and gradebook in a browser."""

from __future__ import annotations

import argparse

from cer_theory.core.budget import DEFAULT_WORK
from cer_theory.core.errors import CerError

from cer_theory.cli.layer import declare
from cer_theory.cli.options import seconds, whole_number

DEFAULT_DATABASE = "sqlite:///course.db"


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from cer_theory.server.serve import serve
    except ImportError as e:  # the extra is not installed: say how to get it
        raise CerError(f"the course server needs the server extra ({e.name} is missing): "
                       f"pip install '.[server]' from a checkout") from None
    serve(host=args.host, port=args.port, database=args.database, workers=args.workers, budget=args.answer_budget,
          seconds=args.seconds)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("serve", help="run the course server: exercises, graded answers and a gradebook in a browser",
                       description="Serve a course: students sign in, answer exercises (formulas, queries, automata "
                                   "as JSON, predictions) and get the grader's feedback at once, with the stream "
                                   "that separates a wrong answer and its run stepped over it; teachers make "
                                   "courses and read the gradebook. A new database gets a teacher account and a "
                                   "demo course (the password is printed once). docs/teaching-server.md is the guide.")
    s.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: this machine only)")
    s.add_argument("--port", type=whole_number(minimum=1, maximum=65535), default=8000,
                   help="the port (a whole number from 1 to 65535; default 8000)")
    s.add_argument("--database", default=DEFAULT_DATABASE, metavar="URL",
                   help=f"sqlite:///FILE or postgresql://user:password@host/name (default {DEFAULT_DATABASE}, a file "
                        f"in this folder)")
    s.add_argument("--workers", type=whole_number(minimum=1, maximum=64), default=2,
                   help="grading processes (a whole number from 1 to 64; default 2)")
    s.add_argument("--seconds", type=seconds(), default=30.0,
                   help="the wall-clock cap on grading one answer (default 30)")
    # Not the budget option of the other commands, which bounds a whole command's run (cli.layer): the server
    # runs for days, and each answer is graded in a process of its own under this budget.
    s.add_argument("--answer-budget", type=whole_number(minimum=1), default=DEFAULT_WORK, metavar="N",
                   help=f"the work grading one answer may do, a whole number ≥ 1 of work units (states, transitions, "
                        f"solver calls; default {DEFAULT_WORK:,})")
    # The database is the server's store, read and written by its driver for as long as it runs, not an output
    # file replaced whole: nothing for the layer to write aside.
    declare(s)
    s.set_defaults(func=cmd_serve)
