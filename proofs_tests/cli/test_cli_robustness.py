"""Bad input and hostile conditions on the command line (issue 16, docs/robustness.md): a budget that bounds the
real work, Ctrl-C, a closed pipe, deep formulas, FILTER mistakes, the help texts, eval's default evaluator and a
demo without Graphviz. Each answer is the project's own: a one-line message and exit status 2 (or 130 / 141)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cer_theory.cli import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, build_parser, main
from cer_theory.core.budget import WORK, charge, work_budget
from cer_theory.core.errors import SizeBudgetExceeded
from cer_theory.core.tree import MAX_NESTING

ROOT = Path(__file__).resolve().parents[2]
# the issue's formula: eight variables, one filter each (2^16 sign vectors before the first subset)
F = ("(" + " ; ".join(f"R IN A{i}" for i in range(1, 9)) + ") FILTER ("
     + " AND ".join(f"A{i}.x{i} > 0" for i in range(1, 9)) + ")")


def _cli(*args: str, **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-u", "-m", "cer_theory.cli", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


# ---------------------------------------------------------------------------------------------- --budget


@pytest.mark.parametrize("command", [["determinize", F], ["star-property", f"MAX({F})"], ["normal-form", F],
                                     ["draw", f"MAX({F})"], ["to-cel", f"MAX({F})"]])
def test_budget_stops_the_construction_in_command_line_terms(capsys, command: list[str]) -> None:
    assert main([*command, "--budget", "100"]) == 2
    err = capsys.readouterr().err
    assert "stopped after 10" in err and "past --budget 100; give a larger --budget" in err, err
    assert "budget=" not in err and err.count("\n") == 1


def test_eval_via_cea_has_a_budget_and_the_default_falls_back_to_the_semantics(tmp_path, capsys) -> None:
    stream = tmp_path / "s.jsonl"
    stream.write_text('{"type": "R", "x1": 1}\n')
    assert main(["eval", f"MAX({F})", "--stream", str(stream), "--via", "cea", "--budget", "100"]) == 2
    assert "past --budget 100" in capsys.readouterr().err
    assert main(["eval", f"MAX({F})", "--stream", str(stream), "--budget", "100"]) == 0
    assert "evaluating by the reference semantics instead" in capsys.readouterr().err


def test_the_budget_binds_the_reference_semantics(tmp_path, capsys) -> None:
    """``--via semantics`` is brute force: the budget counts its rules' outputs, so a query whose valuations
    explode stops in command-line terms instead of running for minutes (40 events, 2^39 subsets of R)."""
    stream = tmp_path / "s.jsonl"
    stream.write_text("".join(f'{{"type": "R", "x": {200 + k}}}\n' for k in range(39)) + '{"type": "T"}\n')
    started = time.perf_counter()
    assert main(["eval", "(R+ ; R+ ; T) FILTER R.x > 100", "--stream", str(stream), "--via", "semantics",
                 "--budget", "20000"]) == 2
    err = capsys.readouterr().err
    assert "the reference semantics stopped after" in err and "past --budget 20000" in err, err
    assert time.perf_counter() - started < 20


def test_the_work_budget_counts_every_unit_and_stops_just_past_the_limit() -> None:
    from cer_theory.automata.determinize.eager import io_determinize
    from cer_theory.formalisms.cel.parser import parse
    from cer_theory.formalisms.cel.selection import compile_with_selection

    from cer_theory.core.predicates.solver import minterms

    cea = compile_with_selection(parse(F))
    cached = len(minterms(cea.predicates(), budget=None))  # later calls charge a cached list in one go
    for limit in (10, 100, 1000, cached + 50):
        with work_budget(limit) as budget, pytest.raises(SizeBudgetExceeded) as info:
            io_determinize(cea)
        assert info.value.unit == WORK and info.value.budget == limit
        assert limit < budget.spent <= limit + max(3, cached)  # the largest single charge
    with work_budget(10**9) as budget:
        det = io_determinize(compile_with_selection(parse("R ; T")))
    assert budget.spent >= len(det.states) + len(det.transitions)  # states and transitions were all counted
    charge("outside any budget", 10**12)  # no active budget: nothing is counted


def test_the_minterm_cap_follows_the_active_budget() -> None:
    from cer_theory.core.predicates.solver import minterms
    from cer_theory.formalisms.cel.parser import parse_predicate

    preds = [parse_predicate("x > 1"), parse_predicate("y > 1")]
    with pytest.raises(SizeBudgetExceeded, match="size budget of 1 states"):
        minterms(preds, budget=1)
    with work_budget(1000):
        assert len(minterms(preds, budget=1)) == 4  # the work budget replaces the fixed cap


def test_budget_ends_the_issue_example_quickly_by_subprocess() -> None:
    for args in (["determinize", F], ["star-property", f"MAX({F})"]):
        proc = _cli(*args, "--budget", "100")
        out, err = proc.communicate(timeout=120)  # a safety net only; the budget is what stops it
        assert proc.returncode == 2 and b"past --budget 100" in err and b"Traceback" not in err


# ---------------------------------------------------------------------------------------------- signals, pipes


def _slow_stream(tmp_path: Path) -> Path:
    path = tmp_path / "r.jsonl"
    path.write_text('{"type": "R"}\n' * 60)
    return path


def test_ctrl_c_exits_130_with_one_line() -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        # R+ on 60 R's: position n has 2^(n+1) - 1 complex events, so the output grows until interrupted
        proc = _cli("cces", "R+", "--stream", str(_slow_stream(Path(d))))
        assert proc.stdout.readline().startswith(b'{"position": 0')  # inside the command, printing
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == EXIT_INTERRUPTED == 130
    assert err == b"cer-theory cces: interrupted\n"


def test_a_closed_pipe_ends_the_command_quietly(tmp_path) -> None:
    proc = _cli("cces", "R+", "--stream", str(_slow_stream(tmp_path)))
    assert proc.stdout.readline()  # `| head -1`: read one line, then go away
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert proc.returncode == EXIT_BROKEN_PIPE == 141
    assert err == b""


# ---------------------------------------------------------------------------------------------- deep formulas


@pytest.mark.parametrize("text", [" OR ".join(["R"] * 500), "R" + "+" * 500, "NXT(" * 2000 + "R" + ")" * 2000,
                                  " ; ".join(["R"] * 500)])
@pytest.mark.parametrize("command", ["eval", "draw", "determinize", "star-property"])
def test_a_deep_formula_is_one_message_in_every_formula_command(tmp_path, capsys, text: str,
                                                                 command: str) -> None:
    stream = tmp_path / "s.jsonl"
    stream.write_text('{"type": "R"}\n')
    extra = ["--stream", str(stream), "--via", "cea"] if command == "eval" else []
    assert main([command, text, *extra]) == 2
    err = capsys.readouterr().err
    assert f"nests more than {MAX_NESTING} levels deep" in err and err.startswith(f"cer-theory {command}: line 1")


def test_a_deep_ceql_query_is_one_message(tmp_path, capsys) -> None:
    stream = tmp_path / "s.jsonl"
    stream.write_text('{"type": "R"}\n')
    query = "SELECT * FROM S WHERE " + " ; ".join(["R"] * 500)
    assert main(["run", "--query", query, "--stream", str(stream)]) == 2
    assert f"nests more than {MAX_NESTING} levels deep" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------- FILTER mistakes


def test_a_filter_on_an_unbound_variable_is_refused_with_its_place(capsys) -> None:
    assert main(["draw", "R FILTER T.x > 1"]) == 2
    err = capsys.readouterr().err
    assert "line 1, column 10: FILTER reads variable T, which its formula R never binds" in err


def test_a_filter_condition_needing_parentheses_gets_a_hint(capsys) -> None:
    assert main(["draw", "R FILTER R.x > 1 AND R.y < 2"]) == 2
    err = capsys.readouterr().err
    assert "line 1, column 23: unexpected '.'" in err
    assert "needs parentheses, as in φ FILTER (T.x > 1 AND T.y < 2)" in err
    assert main(["draw", "R FILTER (R.x > 1 AND R.y < 2)"]) == 0


# ---------------------------------------------------------------------------------------------- help texts


def _commands() -> dict:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.dest == "command"]
    return sub.choices


def test_version_and_help_in_plain_text(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out.startswith("cer-theory 0.")
    texts = [build_parser().format_help()] + [p.format_help() for p in _commands().values()]
    for text in texts:
        assert "``" not in text and ":func:" not in text and ":class:" not in text, text


def test_every_command_has_a_description_and_budget_and_figures_options_are_explained() -> None:
    commands = _commands()
    for name, parser in commands.items():
        assert parser.description, name
    for name in ("determinize", "normal-form", "star-property", "to-cel", "draw", "eval"):
        text = " ".join(commands[name].format_help().split())
        assert "--budget N" in text and "solver call" in text, name
    text = " ".join(commands["figures"].format_help().split())
    assert "-o DIR, --output DIR" in text and "the folder to write the drawings to" in text
    text = " ".join(commands["eval"].format_help().split())
    assert "--via semantics asks for the reference semantics" in text


# ---------------------------------------------------------------------------------------------- eval, demo


def test_eval_defaults_to_the_automaton_with_the_semantics_output(tmp_path, capsys, monkeypatch) -> None:
    from cer_theory.core.protocols import get

    stream = tmp_path / "s.jsonl"
    stream.write_text("".join(f'{{"type": "{t}", "x": {k}}}\n' for k, t in enumerate("RTRRT")))
    calls = []
    cea = get("cel").evaluators["cea"]
    monkeypatch.setattr(type(cea), "stream", lambda self, ast, events, _orig=type(cea).stream: (
        calls.append(self.name), _orig(self, ast, events))[1])
    for formula in ("R ; T", "(R ; T) FILTER R.x < T.x"):  # unary, then n-ary (outside the CEA's fragment)
        calls.clear()
        assert main(["eval", formula, "--stream", str(stream)]) == 0
        default = capsys.readouterr().out
        assert calls == (["cea"] if formula == "R ; T" else ["semantics"])
        assert main(["eval", formula, "--stream", str(stream), "--via", "semantics"]) == 0
        assert capsys.readouterr().out == default and default


def test_demo_passes_without_graphviz(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("CER_THEORY_DRAWING", "none")
    assert main(["demo", "--figures", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "phi3_cea.dot").exists() and not (tmp_path / "phi3_cea.svg").exists()
    assert "cer-theory draw" in out and "to_dot" not in out


def test_a_formula_file_that_is_not_utf8_and_a_nonsense_budget_are_refused(tmp_path, capsys) -> None:
    bad = tmp_path / "f.cel"
    bad.write_bytes(b"\xffR")
    assert main(["draw", f"@{bad}"]) == 2
    assert "not UTF-8 text (byte 0xff at offset 0" in capsys.readouterr().err
    bad.write_bytes(b"\xff\xfeR\x00")  # UTF-16 with its byte-order mark: said so
    assert main(["draw", f"@{bad}"]) == 2
    assert f"{bad}: a UTF-16 file" in capsys.readouterr().err
    for value in ("-5", "0", "lots"):
        with pytest.raises(SystemExit) as info:
            main(["determinize", "R", "--budget", value])
        assert info.value.code == 2 and "argument --budget: expected" in capsys.readouterr().err


def test_a_command_line_loads_only_the_module_of_its_command():
    """``COMMANDS`` names, for each command, the module that registers it, so that a command line that names its
    command imports that module only (start-up: issue 39). The table is what the modules register, and the
    parser built for one command has that command with the same options, defaults and help as the full parser."""
    import argparse

    from cer_theory.cli import COMMANDS

    def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices

    def shape(parser: argparse.ArgumentParser) -> list[tuple]:
        return [(tuple(a.option_strings), a.dest, repr(a.default), a.help, a.required, repr(a.choices))
                for a in parser._actions]

    full = commands(build_parser())
    assert sorted(full) == sorted(COMMANDS)
    for name in COMMANDS:
        alone = commands(build_parser(name))
        assert name in alone, name
        assert shape(alone[name]) == shape(full[name]), name
        assert alone[name].description == full[name].description, name
    found = subprocess.run(
        [sys.executable, "-c", "import json, sys, cer_theory.cli as c; c.build_parser('run'); "
                               "print(json.dumps([m for m in sys.modules if m.startswith('cer_theory.cli.')]))"],
        capture_output=True, text=True, check=True).stdout
    loaded = json.loads(found)
    assert "cer_theory.cli.ceql" in loaded
    assert not {"cer_theory.cli.server", "cer_theory.cli.conformance", "cer_theory.cli.cel",
                "cer_theory.cli.exercises", "cer_theory.cli.step"} & set(loaded), loaded
