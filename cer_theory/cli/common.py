"""What the commands share: reading a formula or @FILE argument, compiling CEL, printing an automaton."""

from __future__ import annotations

import argparse
from pathlib import Path

from cer_theory.core.drawing import write_drawing


def read_text_argument(text: str) -> str:
    """A formula or query given on the command line: the text itself, or ``@FILE`` to read it from a file."""
    return Path(text[1:]).read_text(encoding="utf-8") if text.startswith("@") else text


def read_formula(text: str):
    """A CEL formula (seed 000) from its text or ``@FILE``."""
    from cer_theory.formalisms.cel.parser import parse

    return parse(read_text_argument(text))


def compile_cel(phi, *, trim: bool = False):
    """Theorem 6.2, with Theorem 7.2 for selection strategies at any depth."""
    from cer_theory.formalisms.cel.selection import compile_with_selection

    cea = compile_with_selection(phi)
    return cea.trim().relabel_states() if trim else cea


def show_automaton(cea, args: argparse.Namespace, title: str) -> None:
    """Print a summary of an automaton and write its drawing when ``--dot FILE`` was given."""
    det = "I/O-deterministic" if cea.is_io_deterministic() else "not I/O-deterministic"
    print(f"{title}: {len(cea.states)} states, {len(cea.transitions)} transitions, {det}")
    if getattr(args, "verbose", False):
        print(cea.describe())
    if args.dot:
        write_drawing(cea.to_dot(title=title), args.dot)
        print(f"wrote {args.dot}")
