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
requested evaluator cannot handle, a construction past its --budget, an output over an input, a full disk), with
a message on stderr naming where the problem is; 130 when interrupted (Ctrl-C), 143 when terminated (SIGTERM: a
kill, a CI timeout), 129 when hung up (SIGHUP: a closed terminal, a dropped SSH session), 131 on SIGQUIT (Ctrl-\\),
each with one line on stderr and no output file replaced by a part of one; 141 when the reader of the output went
away (| head), silently. What each command reads and writes is declared where it is registered and enforced by one
layer (cli/layer.py).
check-exercise exits 1 for a wrong answer; grade-answers exits 1 when it wrote the CSV but some answers could not
be graded (refused, over --budget, past --time-limit: marked in the CSV's status column).
See docs/robustness.md for what each kind of bad input gets.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any

from cer_theory.core import outputs
from cer_theory.core.errors import CerError, SizeBudgetExceeded
from cer_theory.core.lazy import resolve
from cer_theory.core.signals import STOPPING, exit_status, said, stopping_cause, stopping_raises
from cer_theory.core.tree import MAX_NESTING

from cer_theory.cli.layer import check_registry, enforce

# Each module adds its commands to the parser; the order is the order of ``--help``.
COMMAND_MODULES = ("formulas", "cel", "socel", "sremo", "ceql", "conformance", "equivalence", "exercises", "server",
                   "figures", "step")

COMMANDS = {
    "eval": "formulas", "draw": "formulas", "logics": "formulas",
    "determinize": "cel", "normal-form": "cel", "star-property": "cel", "to-cel": "cel", "rewrite": "cel",
    "cces": "cel", "demo": "cel",
    "to-socel": "socel",
    "detect": "sremo", "complement": "sremo",
    "run": "ceql", "spark": "ceql",
    "conformance": "conformance",
    "equiv": "equivalence",
    "check-exercise": "exercises", "exercises": "exercises", "exercise-sheet": "exercises",
    "grade-answers": "exercises",
    "serve": "server",
    "figures": "figures",
    "step": "step",
}
"""Each command → the module of :data:`COMMAND_MODULES` that registers it: a command line that names its command
imports that module only (the others' imports, a fifth of the start-up of ``cer-theory run``, are not paid).
``test_cli_layer`` checks this table against what the modules register."""

EXIT_BAD_INPUT = 2
EXIT_HANGUP = 128 + signal.SIGHUP  # 129, as a shell reports a program whose terminal closed
EXIT_INTERRUPTED = 128 + signal.SIGINT  # 130, as a shell reports a program killed by Ctrl-C
EXIT_QUIT = 128 + signal.SIGQUIT  # 131, as a shell reports a program killed by Ctrl-\
EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE  # 141, as a shell reports `yes | head`'s yes
EXIT_TERMINATED = 128 + signal.SIGTERM  # 143, as a shell reports a program killed by SIGTERM


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


def registrations(command: str | None = None) -> list[Callable[[Any], None]]:
    """The ``register`` functions of the modules that register ``command`` (every command module's when it is None
    or not a command), in the order of ``--help``."""
    names = [COMMANDS[command]] if command in COMMANDS else COMMAND_MODULES
    return [resolve(f"{__name__}.{name}:register") for name in names]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: every command, or only ``command``'s module's when it names one (a command line
    that names its command needs no other)."""
    intro, _, rest = __doc__.partition("\n\n")
    p = argparse.ArgumentParser(prog="cer-theory", description=intro.replace("\n", " "),
                                epilog=rest.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action=_VersionAction)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in registrations(command):
        register(sub)
    for name, command in sub.choices.items():
        if command.description is None:  # every command's --help says what it does
            command.description = next(a.help for a in sub._choices_actions if a.dest == name)
    check_registry(p)  # every command declares what it reads and writes (cli/layer.py)
    return p


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
    and the operating system's (a missing file, a full disk) are one line on stderr, never a traceback; every
    stopping signal (:data:`cer_theory.core.signals.STOPPING`) raises where the program is, so that its outputs'
    temporary files are removed and the old files kept."""
    _ignore_file_size_signal()
    with stopping_raises():
        try:
            words = sys.argv[1:] if argv is None else list(argv)
            args = build_parser(words[0] if words else None).parse_args(argv)
        except BaseException as exc:  # (a signal while the command line is read: nothing written yet)
            stop = stopping_cause(exc)
            if stop is None:
                raise
            words = [a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("-")]
            _say(f"cer-theory{f' {words[0]}' if words else ''}: {said(stop)}")
            return exit_status(stop)
        args.as_program = argv is None  # (a command may then change the process: `run` keeps pandas out, D350)
        status = _run(args, f"cer-theory {args.command}", program=argv is None)
        if args.as_program and getattr(args, "leave_at_once", False):
            # its outputs are in place (the layer committed them): the interpreter's teardown, freeing every
            # module and object one by one, would only delay the exit (D461)
            _leave(status)
        return status


def _ignore_file_size_signal() -> None:
    """A file-size limit (``ulimit -f``) makes a write fail with EFBIG, handled as a full disk is, instead of
    killing the process with SIGXFSZ, which would leave a temporary file behind and say nothing."""
    if hasattr(signal, "SIGXFSZ"):
        try:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        except ValueError:  # pragma: no cover - not the main thread (embedded use)
            pass


def _run(args: argparse.Namespace, command: str, *, program: bool) -> int:
    """The command under the layer (:func:`cer_theory.cli.layer.enforce`), its errors turned into one line on
    stderr and an exit status (``program``: run as the program, not called from Python)."""
    try:
        with enforce(args):
            return args.func(args)
    except BaseException as exc:
        # (Ctrl-C and the other stopping signals, core.signals.Stopped: also when some code handed one on wrapped)
        stop = stopping_cause(exc)
        if stop is not None:
            return _stopped(stop, command, program=program)
        outputs.discard_all()  # (a command that fails leaves no temporary output, whatever it failed in)
        if not isinstance(exc, Exception):  # (SystemExit, and the like: not errors of the command)
            raise
        return _failed(exc, args, command)


def _stopped(exc: KeyboardInterrupt, command: str, *, program: bool) -> int:
    """A stopping signal: every temporary output removed, one line, the status 128 + its number."""
    _ignore_stopping_signals()  # (a second signal must not cut the last clean-up short)
    outputs.discard_all()
    _say(f"{command}: {said(exc)}")
    if program:  # the program: leave now, not after freeing all the interrupted work built (D203)
        _leave(exit_status(exc))
    return exit_status(exc)


def _failed(exc: Exception, args: argparse.Namespace, command: str) -> int:
    """A command's own error, or the operating system's, as one line and its status; anything else is a bug,
    raised with its traceback."""
    if isinstance(exc, SizeBudgetExceeded):
        # (a command without --budget must not be told to give a larger one)
        print(f"{command}: {exc.for_command_line('--budget' if hasattr(args, 'budget') else None)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(exc, CerError):
        print(f"{command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(exc, BrokenPipeError):
        outputs.quiet_standard_output()
        return EXIT_BROKEN_PIPE
    if isinstance(exc, OSError):
        if exc.errno in outputs.WRITE_FAILURES:
            print(f"{command}: cannot write an output ({exc.strerror}: a full disk or a file-size limit); every "
                  f"output was left as it was", file=sys.stderr)
        else:
            print(f"{command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(exc, RecursionError):  # (the parsers' nesting limit makes this unreachable: a line all the same)
        print(f"{command}: the input is nested too deeply (formulas may nest at most {MAX_NESTING} levels)",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    raise exc


def _ignore_stopping_signals() -> None:
    try:
        for s in STOPPING:
            signal.signal(s, signal.SIG_IGN)
    except ValueError:  # pragma: no cover - not the main thread (embedded use)
        pass


def _say(line: str) -> None:
    """One line on stderr, when there is still one (after SIGHUP the terminal may be gone)."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
