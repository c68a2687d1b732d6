"""The cer-theory command line: the constructions and evaluators of the toolkit on formulas, queries and
event files.

eval            evaluate a formula (CEL, or --logic ceql, ...) on a stream file, one JSON object per output
                position, by the fastest evaluator that handles it (--via semantics: the reference semantics);
draw            draw a formula's automaton (CEL's CEA by Theorems 6.2 and 7.2; --logic for the others);
logics          the registered formalisms (the names --logic takes), their evaluators and constructions;
determinize     its I/O-deterministic CEA (Prop. 5.5), or a windowed SREMO expression's dSRA (the SRT paper Thm 41);
                every construction command takes --logic and runs that formalism's construction, or says why
                it has none;
normal-form     single-variable + I/O-det (§9.2);
complement      the complement of a windowed SREMO expression's dSRA (the SRT paper Cor 43);
star-property   decide the *-property (Def. 8.4; the SO-CEL paper §5.3 with --logic socel or --automaton), with a
                counterexample stream when it fails;
to-socel        a UCEA file back to SO-CEL (the SO-CEL paper Thm 6.2);
to-cel          back to CEL (Theorem 6.3, or Theorem 8.9 with --star);
rewrite         the §8 formula rewrites (Props. 8.12, 8.13, 8.15);
cces            evaluate by the §9 algorithm and draw the final CCES;
run             evaluate a CEQL query with the tECS engine of the CORE paper (CORE);
spark           evaluate a CEQL query on Spark (batch or streaming), written as JSON Lines or Parquet part files;
demo            the running example of the CEL paper: φ1–φ4 on S_fire, semantics and automaton side by side;
equiv           decide equivalence or containment of two formulas, with a shortest distinguishing stream;
check-exercise  grade an answer to an exercise (exercises lists the bundled ones by paper, kind, difficulty);
exercise-sheet  a problem sheet (Markdown or HTML) for a seed or for named exercises;
grade-answers   grade a class's folder of answers into one CSV of grades with feedback;
serve           the course server: exercises, graded answers with the stepper, and a gradebook in a browser;
conformance     test an engine (ours, Spark, CORE's pycer, any program) against the CEQL reference semantics;
figures         regenerate every drawing in figures/;
step            step through a run of a formula's automaton (or the CCES / tECS) as one HTML page.

Exit status: 0 on success; 2 on bad input (a formula that does not parse, a malformed stream, a formula the
requested evaluator cannot handle, a construction past its --budget), with a message on stderr naming where the
problem is; 130 when interrupted (Ctrl-C), 143 when terminated (SIGTERM: a kill, a CI timeout), each with one
line on stderr and no output file replaced by a part of one; 141 when the reader of the output went away (| head), silently.
check-exercise exits 1 for a wrong answer; grade-answers exits 1 when it wrote the CSV but some answers could not
be graded (refused, over --budget, past --time-limit: marked in the CSV's status column).
See docs/robustness.md for what each kind of bad input gets.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence

from cer_theory.core.errors import CerError, SizeBudgetExceeded
from cer_theory.core.tree import MAX_NESTING

from cer_theory.cli import (cel, ceql, conformance, equivalence, exercises, figures, formulas, server, socel, sremo,
                            step)
from cer_theory.cli.common import check_output_paths

# Each module adds its commands to the parser; the order is the order of ``--help``.
COMMAND_MODULES = (formulas, cel, socel, sremo, ceql, conformance, equivalence, exercises, server, figures, step)

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 128 + signal.SIGINT  # 130, as a shell reports a program killed by Ctrl-C
EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE  # 141, as a shell reports `yes | head`'s yes
EXIT_TERMINATED = 128 + signal.SIGTERM  # 143, as a shell reports a program killed by SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, as Ctrl-C raises KeyboardInterrupt: the same clean-up runs (temporary
    output files removed, earlier outputs left as they were) and the exit says which signal it was."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated


def _version() -> str:
    """The installed distribution's version (pyproject.toml)."""
    from importlib import metadata  # (only for --version: its import costs about 0.1 s of every start-up)

    try:
        return metadata.version("cer_theory")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree that was never installed
        return "(not installed)"


class _VersionAction(argparse.Action):
    """``--version``: argparse's version action, with the version looked up only when it is asked for (argparse's
    own takes the text when the parser is built, which would load importlib.metadata on every start-up)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help=help or "show program's version number and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        print(f"{parser.prog} {_version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    intro, _, rest = __doc__.partition("\n\n")
    p = argparse.ArgumentParser(prog="cer-theory", description=intro.replace("\n", " "),
                                epilog=rest.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action=_VersionAction)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(sub)
    for name, command in sub.choices.items():
        if command.description is None:  # every command's --help says what it does
            command.description = next(a.help for a in sub._choices_actions if a.dest == name)
    return p


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush of a closed pipe says nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - no real stdout (embedded use)
        pass


def _leave(status: int) -> None:
    """Flush what was printed and end the process at once, without the interpreter's teardown."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; exit statuses as in the module docstring. A command's own errors (:class:`CerError`)
    and the operating system's (a missing file) are one line on stderr, never a traceback."""
    if argv is None:  # run as the program: Ctrl-C stops it even when it inherited SIGINT ignored (D203)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    args = build_parser().parse_args(argv)
    command = f"cer-theory {args.command}"
    try:
        previous = signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # pragma: no cover - not the main thread (embedded use): SIGTERM keeps its handler
        previous = None
    try:
        return _run(args, command, program=argv is None)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _run(args: argparse.Namespace, command: str, *, program: bool) -> int:
    """The command, its errors turned into one line on stderr and an exit status (``program``: run as the
    program, not called from Python)."""
    try:
        check_output_paths(args)
        return args.func(args)
    except SizeBudgetExceeded as exc:
        print(f"{command}: {exc.for_command_line()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except CerError as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Terminated:
        print(f"{command}: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print(f"{command}: interrupted", file=sys.stderr)
        if program:  # the program: leave now, not after freeing all the interrupted work built (D203)
            _leave(EXIT_INTERRUPTED)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RecursionError:  # the parsers' nesting limit should make this unreachable; a message all the same
        print(f"{command}: the input is nested too deeply (formulas may nest at most {MAX_NESTING} levels)",
              file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
