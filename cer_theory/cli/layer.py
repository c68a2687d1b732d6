"""Commands declare, the layer enforces: what a command reads, what it writes and its budget, stated once where the
command is registered, and the guarantees that follow, given by this module to every command alike
(docs/robustness.md, "The layer").

A command declares, in its module's ``register(sub)``, right after its arguments::

    d = sub.add_parser("draw", ...)
    d.add_argument("formula", help="the formula's text, or @FILE")
    d.add_argument("-o", "--output", ...)
    declare(d, inputs=[text_or_file("formula")], outputs=[output_file("output", suffixes=DRAWING_FORMATS)],
            budget=True, example=["draw", "A ; B", "-o", "drawing.dot"])

* ``inputs`` — every reading of every option that names something read, each by its argparse destination:
  :func:`file` (a path; ``-`` is standard input, ``hdfs://…`` a remote path: neither is a local file; a folder
  is a path too; a value that may be a name or a file, as an exercise, is a file when one exists),
  :func:`text_or_file` (text, or ``@FILE``), :func:`query` (text, ``@FILE``, or a value without whitespace:
  a file name).
* ``outputs`` — every place written: :func:`output_file` (a file, replaced whole; ``suffixes`` the formats its
  extension may name), :func:`output_folder` (a folder replaced whole), :func:`output_into` (a folder the
  command writes files into, each replaced whole); ``default`` computes the place an option left out stands for
  (``run --late``: STREAM.late.jsonl).
* ``budget`` — the command does exponential work: it gets ``--budget N`` (added here unless the parser has it)
  and its whole run is bounded by it (:func:`cer_theory.core.budget.work_budget`).
* ``example`` — the arguments of one run that writes every declared output (paths relative to a folder holding
  ``s.jsonl``, a stream of A, B and C events, and ``answers/``, one student's answers), which the class tests
  run killed, on a full disk and under two umasks; None for a command that writes nothing.

What the layer then does for every command (:func:`enforce`, called by :func:`cer_theory.cli.main` before the
command's function): refuses, before anything is read, an output that is an input (by any name: a link, a hard
link, ``sub/..``, another case) or a folder holding one, two outputs at one place, and a file output whose
extension names no known format — one line, exit 2; then runs the command with only its declared outputs
writable (:func:`cer_theory.core.outputs.declared_outputs`: a write elsewhere is a bug the first test finds) and
under its budget. The outputs themselves are written through :mod:`cer_theory.core.outputs` (aside, renamed
into place, the umask's mode); the stopping signals and a full disk are handled by :func:`cer_theory.cli.main`.
:func:`check_registry` refuses a parser with a command that declares nothing.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from cer_theory.core.budget import DEFAULT_WORK, work_budget
from cer_theory.core.errors import CerError
from cer_theory.core.outputs import declared_outputs
from cer_theory.streams.paths import STANDARD_STREAM, check_outputs

FILE, TEXT_OR_FILE, QUERY = "file", "text or @FILE", "text, @FILE or a file name"
"""The readings of an input option."""

FILE_OUTPUT, FOLDER_OUTPUT, INTO_OUTPUT = "file", "folder", "files into a folder"
"""The kinds of output."""

_REMOTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")

DECLARATION = "_declaration"
"""The parser default under which a command's :class:`Declaration` is kept (``parser.get_default``)."""


@dataclass(frozen=True)
class Input:
    """One reading of one option: ``dest`` (argparse's), ``reading`` (:data:`FILE`, :data:`TEXT_OR_FILE`,
    :data:`QUERY`); ``label`` is the option as the user writes it (set by :func:`declare`)."""

    dest: str
    reading: str = FILE
    label: str = ""

    def paths(self, value: object) -> list[str]:
        """The local files that the option's ``value`` makes the command read."""
        found = []
        for v in value if isinstance(value, list) else [value]:
            if not isinstance(v, str) or not v:
                continue
            if self.reading in (TEXT_OR_FILE, QUERY) and v.startswith("@"):
                path = v[1:]
            elif self.reading == TEXT_OR_FILE or (self.reading == QUERY and any(c.isspace() for c in v.strip())):
                continue  # the text itself
            else:
                path = v.strip() if self.reading == QUERY else v
            local = _local(path)
            if local is not None:
                found.append(local)
        return found


@dataclass(frozen=True)
class Output:
    """One place written: ``dest``, ``kind`` (:data:`FILE_OUTPUT`, :data:`FOLDER_OUTPUT`, :data:`INTO_OUTPUT`),
    ``default`` (the place when the option is left out, from the other arguments; None: nothing written then),
    ``suffixes`` (the extensions a file output may have, lower case, without the dot; None: any)."""

    dest: str
    kind: str = FILE_OUTPUT
    default: Callable[[argparse.Namespace], str | None] | None = None
    suffixes: frozenset[str] | None = None
    label: str = ""

    def path(self, args: argparse.Namespace) -> str | None:
        """The local place written with these arguments (None: standard output, a remote place, or nothing)."""
        value = getattr(args, self.dest, None)
        if value is None and self.default is not None:
            value = self.default(args)
        return _local(value) if isinstance(value, str) and value else None


def file(dest: str) -> Input:
    """A path read (a file or a folder)."""
    return Input(dest, FILE)


def text_or_file(dest: str) -> Input:
    """Text given on the command line, or ``@FILE``: the file read."""
    return Input(dest, TEXT_OR_FILE)


def query(dest: str) -> Input:
    """CEQL text, ``@FILE``, or a value without whitespace: a file name (no query is one word)."""
    return Input(dest, QUERY)


def output_file(dest: str, *, default: Callable[[argparse.Namespace], str | None] | None = None,
                suffixes: Sequence[str] | None = None) -> Output:
    """A file written (``-``: standard output)."""
    return Output(dest, FILE_OUTPUT, default, None if suffixes is None else frozenset(suffixes))


def output_folder(dest: str, *, default: Callable[[argparse.Namespace], str | None] | None = None) -> Output:
    """A folder written aside and replaced whole."""
    return Output(dest, FOLDER_OUTPUT, default)


def output_into(dest: str) -> Output:
    """A folder the command writes files into, each written aside."""
    return Output(dest, INTO_OUTPUT)


@dataclass(frozen=True)
class Declaration:
    """What a command reads, writes and whether it runs under ``--budget`` (see the module docstring)."""

    command: str
    inputs: tuple[Input, ...]
    outputs: tuple[Output, ...]
    budget: bool
    example: tuple[str, ...] | None


def declare(parser: argparse.ArgumentParser, *, inputs: Sequence[Input] = (), outputs: Sequence[Output] = (),
            budget: bool = False, example: Sequence[str] | None = None) -> Declaration:
    """Declare what the command of ``parser`` reads and writes (call it after its arguments are added): each
    ``dest`` must be one of its arguments; with ``budget`` it gets ``--budget`` unless it has it."""
    if budget and not _has_option(parser, "budget"):
        add_budget_option(parser)
    labels = {a.dest: (a.option_strings[-1] if a.option_strings else a.dest) for a in parser._actions}
    for item in (*inputs, *outputs):
        if item.dest not in labels:
            raise TypeError(f"{parser.prog}: declares {item.dest!r}, which is none of its arguments")
    if outputs and example is None:
        raise TypeError(f"{parser.prog}: declares outputs but no example run writing them")
    declaration = Declaration(
        parser.prog.split()[-1], tuple(Input(i.dest, i.reading, labels[i.dest]) for i in inputs),
        tuple(Output(o.dest, o.kind, o.default, o.suffixes, labels[o.dest]) for o in outputs), budget,
        None if example is None else tuple(example))
    parser.set_defaults(**{DECLARATION: declaration})
    return declaration


def add_budget_option(parser: argparse.ArgumentParser) -> None:
    """``--budget N``: one bound on the work of the command's exponential constructions (core.budget)."""
    parser.add_argument("--budget", type=_budget, default=DEFAULT_WORK, metavar="N",
                        help=f"the most work the command's constructions and evaluators may do, in units: one per "
                             f"state, transition, minterm (a type, the CEL paper Def. 5.6), solver call and output of "
                             f"a reference semantics' rule; past it the command stops with exit status 2 and says "
                             f"which construction (default {DEFAULT_WORK:,})")


def _budget(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of units, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1 unit, got {value}")
    return value


def _has_option(parser: argparse.ArgumentParser, dest: str) -> bool:
    return any(a.dest == dest for a in parser._actions)


def declaration_of(parser: argparse.ArgumentParser) -> Declaration | None:
    """The declaration of a command's parser (None: it declared nothing)."""
    return parser.get_default(DECLARATION)


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The commands of the ``cer-theory`` parser, by name."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def check_registry(parser: argparse.ArgumentParser) -> dict[str, Declaration]:
    """Every command's declaration; a :class:`TypeError` naming a command that declares nothing, or whose
    ``--budget`` is not declared (its budget would bind nothing)."""
    found = {}
    for name, command in commands(parser).items():
        declaration = declaration_of(command)
        if declaration is None:
            raise TypeError(f"command {name!r} declares neither its inputs nor its outputs: call "
                            f"cli.layer.declare(parser, inputs=..., outputs=..., budget=...) where it is registered")
        if _has_option(command, "budget") and not declaration.budget:
            raise TypeError(f"command {name!r} has --budget but does not declare budget=True")
        found[name] = declaration
    return found


def _local(path: str) -> str | None:
    """A local path (``file://`` stripped); None for standard input/output or a remote URL (hdfs://, s3a://)."""
    if path == STANDARD_STREAM:
        return None
    if _REMOTE.match(path):
        return path.removeprefix("file://") if path.startswith("file://") else None
    return path


def _check_suffix(output: Output, path: str) -> None:
    if output.suffixes is None or output.kind != FILE_OUTPUT:
        return
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix and suffix not in output.suffixes:
        raise CerError(f"{output.label} {path}: unknown format {suffix!r} (the extension picks it; known: "
                       f"{', '.join(sorted(output.suffixes))})")


@contextmanager
def enforce(args: argparse.Namespace) -> Iterator[None]:
    """Check the command's declared outputs against its declared inputs before anything is read (one
    :class:`CerError` naming both), then run the block with only those outputs writable and under the budget."""
    declaration: Declaration | None = getattr(args, DECLARATION, None)
    if declaration is None:
        raise TypeError(f"command {getattr(args, 'command', '?')!r} declares nothing (cli.layer.declare)")
    values = vars(args)
    inputs = [(i.label, path) for i in declaration.inputs for path in i.paths(values.get(i.dest))]
    outputs = [(o, path) for o in declaration.outputs if (path := o.path(args)) is not None]
    check_outputs([(o.label, path) for o, path in outputs], inputs)
    for output, path in outputs:
        _check_suffix(output, path)
    with ExitStack() as stack:
        stack.enter_context(declared_outputs(os.fspath(path) for _, path in outputs))
        if declaration.budget:
            stack.enter_context(work_budget(args.budget))
        yield


__all__ = ["Declaration", "FILE", "FILE_OUTPUT", "FOLDER_OUTPUT", "INTO_OUTPUT", "Input", "Output", "QUERY",
           "TEXT_OR_FILE", "add_budget_option", "check_registry", "commands", "declaration_of", "declare", "enforce",
           "file", "output_file", "output_folder", "output_into", "query", "text_or_file"]
