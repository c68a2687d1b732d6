"""What the commands share: reading a formula or @FILE argument in the formalism of ``--logic``, calling a
construction of that formalism's registry record with the options the user gave, showing what it built, and the
``--budget`` option (one default for every command, :data:`cer_theory.core.budget.DEFAULT_WORK`), and the check that
no output goes over an input."""

from __future__ import annotations

import argparse
import inspect
from pathlib import Path
from typing import Any

from cer_theory.core.budget import DEFAULT_WORK, work_budget
from cer_theory.core.drawing import write_drawing
from cer_theory.core.errors import UnsupportedError
from cer_theory.core.protocols import Built, Formalism, get
from cer_theory.core.textfiles import read_text_file
from cer_theory.streams.paths import check_outputs

OUTPUT_OPTIONS = {"output": "--output", "late": "--late", "dot": "--dot", "rejected": "--rejected",
                  "checkpoint": "--checkpoint", "report": "--report"}
"""Every option that names a file or folder a command writes (argparse destination → option)."""

INPUT_OPTIONS = {"stream": "--stream", "query_file": "--query-file", "declare": "--declare", "input": "--input",
                 "corpus": "--corpus", "replay": "--replay", "automaton": "automaton", "exercise": "exercise"}
"""Every option that names a file or folder a command reads (argparse destination → option)."""

TEXT_OR_FILE = ("formula", "formula1", "formula2", "answer")
"""Arguments that are text, or ``@FILE``: a file read."""


def check_output_paths(args: argparse.Namespace) -> None:
    """No output of the command is an input of it, a link to one or a folder holding one (docs/decisions.md D160):
    checked for every command at once, before it writes anything."""
    values = vars(args)
    inputs = [(option, value) for dest, option in INPUT_OPTIONS.items()
              if isinstance(value := values.get(dest), str) and Path(value).exists()]
    inputs += [(dest, value[1:]) for dest in TEXT_OR_FILE
               if isinstance(value := values.get(dest), str) and value.startswith("@")]
    outputs = [(option, value) for dest, option in OUTPUT_OPTIONS.items() if isinstance(value := values.get(dest), str)]
    check_outputs(outputs, inputs)


def add_budget_option(parser: argparse.ArgumentParser) -> None:
    """``--budget N``: one bound on the work of the command's exponential constructions (core.budget)."""
    parser.add_argument("--budget", type=_budget, default=DEFAULT_WORK, metavar="N",
                        help=f"the most work the command's constructions and evaluators may do, in units: one per "
                             f"state, transition, minterm (a type, the CEL paper Def. 5.6), solver call and output of a "
                             f"reference semantics' rule; past it the command stops with exit status 2 and says "
                             f"which construction (default {DEFAULT_WORK:,})")


def add_logic_option(parser: argparse.ArgumentParser, what: str, default: str = "cel") -> None:
    """``--logic NAME``: the registered formalism whose ``what`` (a construction, an evaluator) the command runs;
    any registered name is accepted here and the record refuses what it lacks, with the reason."""
    parser.add_argument("--logic", default=default, metavar="NAME",
                        help=f"the formalism's registry name (default {default}); a formalism without {what} is "
                             f"refused with the reason (cer-theory logics lists them)")


def _budget(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of units, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1 unit, got {value}")
    return value


def read_text_argument(text: str) -> str:
    """A formula or query given on the command line: the text itself, or ``@FILE`` to read it from a file."""
    return read_text_file(text[1:], "formula files") if text.startswith("@") else text


def having(logic: str, construction: str) -> Formalism:
    """The record of ``logic``, refused at once (before any formula is read) when it lacks ``construction``."""
    record = get(logic)
    record.construction(construction)
    return record


def automaton_file(argument: str) -> str | None:
    """The path of the automaton file a formula argument names (``@a.json``: docs/automaton-files.md), which
    ``draw`` and ``step`` accept in place of a formula (``@phi.cel`` stays a formula file); None otherwise."""
    return argument[1:] if argument.startswith("@") and argument.lower().endswith(".json") else None


def read_formula(text: str, logic: Formalism) -> Any:
    """A formula of ``logic`` from its text or ``@FILE``, by the record's parse (the one users get, D182)."""
    return logic.parse(read_text_argument(text))


def construct(record: Formalism, name: str, *arguments: Any, **options: Any) -> Any:
    """Run construction ``name`` of ``record`` (refused with the record's reason when it has none). ``options``
    are the command's: one its callable does not take is refused when the user gave it (not None, not False),
    and dropped otherwise (a callable with ``**options`` takes them all); a ``budget`` also bounds the work of the
    call (core.budget)."""
    build = record.construction(name)
    takes = inspect.signature(build).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in takes.values()):
        with work_budget(options.get("budget")):
            return build(*arguments, **options)
    for key, value in options.items():
        if key not in takes and value not in (None, False):
            raise UnsupportedError(f"--{key.replace('_', '-')} is not an option of {record.name}'s {name}")
    given = {key: value for key, value in options.items() if key in takes}
    with work_budget(options.get("budget")):
        return build(*arguments, **given)


def show(built: Built, args: argparse.Namespace, *, stages: bool = True) -> None:
    """Print what a construction built: its heading, a line per stage (``stages``), the result's transitions with
    ``--verbose``, and its drawing with ``--dot FILE``."""
    if built.heading is not None:
        print(built.heading)
    dot = getattr(args, "dot", None)
    if stages or dot:
        for stage in built.stages:
            print(f"{stage.title}: {stage.summary()}")
    result = built.result
    if getattr(args, "verbose", False) and hasattr(result.automaton, "describe"):
        print(result.automaton.describe())
    if dot:
        write_drawing(result.automaton.to_dot(title=result.caption or result.title), dot)
        print(f"wrote {dot}")
