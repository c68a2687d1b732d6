"""What the commands share: reading a formula or @FILE argument, compiling CEL, printing an automaton, the
``--budget`` option."""

from __future__ import annotations

import argparse
from pathlib import Path

from cer_theory.core.drawing import write_drawing
from cer_theory.core.errors import CerError

CLI_BUDGET = 200_000
"""The default ``--budget``: units of work (core.budget), a few seconds of the slowest construction."""


def add_budget_option(parser: argparse.ArgumentParser, default: int = CLI_BUDGET) -> None:
    """``--budget N``: one bound on the work of the command's exponential constructions (core.budget)."""
    parser.add_argument("--budget", type=_budget, default=default, metavar="N",
                        help=f"the most work the command's constructions may do, in units: one per state, "
                             f"transition, minterm (a type, the CEL paper Def. 5.6) and solver call; past it the "
                             f"command stops with exit status 2 and says which construction (default {default:,})")


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
    if not text.startswith("@"):
        return text
    try:
        return Path(text[1:]).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise CerError(f"{text[1:]}: not UTF-8 text (byte {e.object[e.start]:#04x} at offset {e.start}); formulas "
                       f"are read as UTF-8") from None


def read_formula(text: str):
    """A CEL formula (the CEL paper) from its text or ``@FILE``; a FILTER on a variable its formula never binds is
    refused, as CEQL's parser does."""
    from cer_theory.formalisms.cel.parser import parse

    return parse(read_text_argument(text), check_variables=True)


def compile_cel(phi, *, trim: bool = False, budget: int | None = None):
    """Theorem 6.2, with Theorem 7.2 for selection strategies at any depth (``budget``: of each exponential step's
    states; the work of all of them is bounded by the command's active work budget, core.budget)."""
    from cer_theory.formalisms.cel.selection import compile_with_selection

    cea = compile_with_selection(phi) if budget is None else compile_with_selection(phi, budget=budget)
    return cea.trim().relabel_states() if trim else cea


def show_automaton(cea, args: argparse.Namespace, title: str, *, by_construction: str | None = None) -> None:
    """Print a summary of an automaton and write its drawing when ``--dot FILE`` was given. ``by_construction``
    names the result that makes it I/O-deterministic (Prop. 5.5): then Def. 5.4 is not checked again pair by pair
    (quadratic in the transitions of a state, with a solver call each)."""
    if by_construction:
        det = f"I/O-deterministic ({by_construction})"
    else:
        det = "I/O-deterministic" if cea.is_io_deterministic() else "not I/O-deterministic"
    print(f"{title}: {len(cea.states)} states, {len(cea.transitions)} transitions, {det}")
    if getattr(args, "verbose", False):
        print(cea.describe())
    if args.dot:
        write_drawing(cea.to_dot(title=title), args.dot)
        print(f"wrote {args.dot}")
