"""Every numeric option of every command × {negative, zero, NaN, infinity, huge}: refused when the command line
is read (exit status 2, argparse's one-line message naming the option) or a value the option's help documents,
never a traceback later or a limit silently switched off (a NaN timeout once disabled the timeout: a hang).

The options are found by walking the argparse tree, so a numeric option added later is covered without a change
here; it must use a declared type of :mod:`cer_theory.cli.options` (or the shared ``--budget`` type) to pass."""

from __future__ import annotations

import argparse
import contextlib
import io
import math

import pytest

from cer_theory.cli import build_parser

VALUES = {"negative": "-1", "zero": "0", "nan": "nan", "inf": "inf", "huge": "1" + "0" * 400}


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _numeric(action: argparse.Action) -> bool:
    """An option whose value is a number: a numeric type or default, or a type that declares a domain."""
    if not action.option_strings or action.nargs == 0:
        return False
    if action.type in (int, float) or hasattr(action.type, "domain"):
        return True
    default = action.default
    return isinstance(default, (int, float)) and not isinstance(default, bool)


def _required(parser: argparse.ArgumentParser) -> list[str]:
    """Placeholder words for the command's required arguments (parsing checks no file)."""
    words: list[str] = []
    for action in parser._actions:
        if not action.option_strings and action.nargs not in ("?", "*", argparse.REMAINDER):
            words.append(action.choices[0] if action.choices else "x")
        elif action.required and action.option_strings:
            words += [action.option_strings[0], action.choices[0] if action.choices else "x"]
    return words


CASES = [(name, action.option_strings[-1], label)
         for name, parser in _subcommands().items()
         for action in parser._actions if _numeric(action)
         for label in VALUES]


def test_the_walk_finds_the_numeric_options():
    found = {(c, o) for c, o, _ in CASES}
    assert {("conformance", "--cases"), ("conformance", "--timeout"), ("run", "--progress"),
            ("spark", "--slices"), ("equiv", "--budget"), ("complement", "--window")} <= found


def test_every_numeric_option_declares_its_values():
    for name, parser in _subcommands().items():
        for action in parser._actions:
            if _numeric(action):
                assert action.type not in (int, float), \
                    f"{name} {action.option_strings[-1]}: a bare {action.type.__name__} takes NaN, infinities or " \
                    f"negative numbers; use a type of cer_theory.cli.options"


@pytest.mark.parametrize("command, option, label", CASES)
def test_numeric_option_value_is_refused_cleanly_or_documented(command, option, label):
    parser = _subcommands()[command]
    argv = [*_required(parser), option, VALUES[label]]
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:
            message = err.getvalue().strip().splitlines()[-1]
            assert exc.code == 2, (argv, err.getvalue())
            assert f"argument {option}" in message or f"argument {'/'.join([option])}" in message or \
                option in message, message
            assert "Traceback" not in err.getvalue()
            return
    # accepted: a finite number, of the values the option's type declares and its help states
    action = next(a for a in parser._actions if option in a.option_strings)
    value = getattr(args, action.dest)
    assert label not in ("nan", "inf"), f"{command} {option} accepted {label}"
    assert isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)), (command, option, value)
    domain = getattr(action.type, "domain", None)
    if domain is None:  # the shared --budget type: at least 1 unit, as large as asked (no bound is a choice)
        assert label == "huge" and "--budget" == option, (command, option, label)
        return
    assert "a whole number" in domain or "seconds" in domain, domain
    help_text = action.help or ""
    assert any(word in help_text for word in ("whole number", "seconds", " to ")), \
        f"{command} {option}: the help does not say which values it takes"


@pytest.mark.parametrize("argv", [
    ["complement", '([type = "B"] . <TRUE>) WITHIN 3', "--window", VALUES["huge"]],
    ["determinize", "--logic", "sremo", '([type = "B"] . <TRUE>) WITHIN 3', "--window", VALUES["huge"]],
])
def test_a_huge_window_ends_as_soon_as_every_walk_has(argv, capsys):
    """The unrolling of the SRT paper Lemma 46 went on for w rounds after its last walk ended: with a 400-digit
    --window it never returned."""
    from cer_theory.cli import main

    assert main(argv) == 0
    assert "states" in capsys.readouterr().out
