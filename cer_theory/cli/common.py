"""What the commands share: reading a formula or @FILE argument in the formalism of ``--logic``, calling a
construction of that formalism's registry record with the options the user gave, and showing what it built. What
a command reads, writes and its ``--budget`` are declared to the layer (:mod:`cer_theory.cli.layer`)."""

from __future__ import annotations

import argparse
import inspect
from typing import Any

from cer_theory.core.budget import work_budget
from cer_theory.core.drawing import write_drawing
from cer_theory.core.errors import UnsupportedError
from cer_theory.core.protocols import Built, Formalism, get
from cer_theory.core.textfiles import read_text_file
from cer_theory.cli.layer import add_budget_option

__all__ = ["add_budget_option", "add_logic_option", "construct", "having", "read_formula", "read_text_argument",
           "scale_factor", "show"]


def add_logic_option(parser: argparse.ArgumentParser, what: str, default: str = "cel") -> None:
    """``--logic NAME``: the registered formalism whose ``what`` (a construction, an evaluator) the command runs;
    any registered name is accepted here and the record refuses what it lacks, with the reason."""
    parser.add_argument("--logic", default=default, metavar="NAME",
                        help=f"the formalism's registry name (default {default}); a formalism without {what} is "
                             f"refused with the reason (cer-theory logics lists them)")


def scale_factor(text: str) -> float:
    """``--scale S``: a positive finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 1.5, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
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
