"""The ``cer-theory`` command-line contract: eval's JSON lines, draw, demo, and the error cases."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from conftest import require

from cer_theory.cli import main
from cer_theory.examples.running_example import FORMULAS

FIRE = str(resources.files("cer_theory").joinpath("examples/data/fire.jsonl"))
FIRE_CSV = str(resources.files("cer_theory").joinpath("examples/data/fire.csv"))


def _lines(capsys) -> list[dict]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize("via", ["semantics", "cea"])
def test_eval_complex_events_contract(capsys, via: str) -> None:
    assert main(["eval", FORMULAS["φ1"], "--stream", FIRE, "--via", via]) == 0
    assert _lines(capsys) == [{"position": 2, "kind": "complex_events", "outputs": [[1, 2]]}, {"position": 8, "kind": "complex_events", "outputs": [[1, 8], [5, 8]]}]


def test_eval_valuations_contract(capsys) -> None:
    assert main(["eval", FORMULAS["φ1"], "--stream", FIRE_CSV, "--valuations"]) == 0
    assert _lines(capsys) == [{"position": 2, "kind": "valuations", "outputs": [{"H": [2], "T": [1]}]},
                              {"position": 8, "kind": "valuations", "outputs": [{"H": [8], "T": [1]}, {"H": [8], "T": [5]}]}]


def test_eval_prints_empty_complex_events_and_omits_empty_variables(capsys, tmp_path: Path) -> None:
    stream = tmp_path / "s.jsonl"
    stream.write_text('{"type": "R"}\n{"type": "T"}\n{"type": "R"}\n')
    assert main(["eval", "PI[](R)", "--stream", str(stream), "--via", "cea"]) == 0
    assert _lines(capsys) == [{"position": 0, "kind": "complex_events", "outputs": [[]]}, {"position": 2, "kind": "complex_events", "outputs": [[]]}]
    assert main(["eval", "PI[](R)", "--stream", str(stream), "--valuations"]) == 0
    assert _lines(capsys) == [{"position": 0, "kind": "valuations", "outputs": [{}]}, {"position": 2, "kind": "valuations", "outputs": [{}]}]


def test_eval_formula_from_file(capsys, tmp_path: Path) -> None:
    f = tmp_path / "phi.cel"
    f.write_text(FORMULAS["φ3"] + "\n")
    assert main(["eval", f"@{f}", "--stream", FIRE]) == 0
    assert _lines(capsys) == [{"position": 7, "kind": "complex_events", "outputs": [[3, 4, 6, 7], [3, 4, 7], [3, 6, 7]]}]


def test_syntax_error_exits_2_naming_line_and_column(capsys) -> None:
    assert main(["eval", "(T ;\n ; H)", "--stream", FIRE]) == 2
    err = capsys.readouterr().err
    assert "line 2, column 2" in err and "expected" in err


def test_bad_stream_exits_2_naming_line_and_field(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "R"}\n{"x": 1}\n')
    assert main(["eval", "R", "--stream", str(bad)]) == 2
    assert "line 2, field 'type'" in capsys.readouterr().err


def test_binary_filter_via_cea_exits_2(capsys) -> None:
    assert main(["eval", FORMULAS["φ5"], "--stream", FIRE, "--via", "cea"]) == 2
    assert "not unary" in capsys.readouterr().err
    assert main(["eval", FORMULAS["φ5"], "--stream", FIRE]) == 0  # the semantics handles n-ary filters


def test_draw_writes_svg_and_dot(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no Graphviz 'dot': SVG comes from the WebAssembly build
    svg, dot = tmp_path / "a.svg", tmp_path / "a.dot"
    assert main(["draw", FORMULAS["φ3"], "-o", str(svg)]) == 0
    assert "<svg" in svg.read_text()
    assert main(["draw", "R ; T", "-o", str(dot)]) == 0
    assert dot.read_text().startswith("digraph")
    assert main(["draw", "R ;; T"]) == 2
    capsys.readouterr()
    assert main(["draw", "R ; T", "-o", str(tmp_path / "a.png")]) == 2
    assert "PNG output needs the Graphviz 'dot' program" in capsys.readouterr().err


def test_demo_runs_the_running_example(tmp_path: Path, capsys) -> None:
    assert main(["demo", "--figures", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "agree on every position" in out and "{1,8}, {5,8}" in out
    assert (tmp_path / "phi3_cea.svg").exists()


def test_console_script_entry_point() -> None:
    exe = Path(sys.executable).with_name("cer-theory")
    require(exe.exists(), "the cer-theory console script")
    proc = subprocess.run([str(exe), "eval", "R ; T", "--stream", FIRE], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout == ""
    proc = subprocess.run([str(exe), "eval", "R ;", "--stream", FIRE], capture_output=True, text=True)
    assert proc.returncode == 2 and "line 1, column" in proc.stderr


# ---------------------------------------------------------------------------------------------- the CEL paper theory

from hypothesis import given, settings  # noqa: E402

from cer_theory.testing.strategies import formulas, streams  # noqa: E402


def _eval_lines(capsys, formula: str, stream: str, via: str, *extra: str) -> str:
    assert main(["eval", formula, "--stream", stream, "--via", via, *extra]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("strategy", ["STRICT", "NXT", "LAST", "MAX"])
@pytest.mark.parametrize("name", ["φ1", "φ2", "φ3"])
def test_eval_selection_strategies_via_every_evaluator(capsys, strategy: str, name: str) -> None:
    formula = f"{strategy}({FORMULAS[name]})"
    reference = _eval_lines(capsys, formula, FIRE, "semantics")
    assert _eval_lines(capsys, formula, FIRE, "cea") == reference
    assert _eval_lines(capsys, formula, FIRE, "cces") == reference
    assert _eval_lines(capsys, formula, FIRE, "cea", "--valuations") == _eval_lines(
        capsys, formula, FIRE, "semantics", "--valuations")


@settings(max_examples=60)
@given(formulas(selection=True, max_depth=3), streams(max_length=6))
def test_eval_contract_is_the_same_through_every_evaluator(tmp_path_factory, phi, stream) -> None:
    """`eval --via cea|cces` prints exactly the JSON lines of `--via semantics`, nested strategies included."""
    import contextlib
    import io

    from hypothesis import assume

    from cer_theory.core.errors import SyntaxErrorCER
    from cer_theory.formalisms.cel.parser import check_filter_variables

    try:  # the command line refuses a FILTER on a variable its formula never binds (docs/robustness.md)
        check_filter_variables(phi)
    except SyntaxErrorCER:
        assume(False)
    path = tmp_path_factory.mktemp("s") / "s.jsonl"
    path.write_text(stream.to_jsonl())
    outs = {}
    for via in ("semantics", "cea", "cces"):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(["eval", str(phi), "--stream", str(path), "--via", via]) == 0
        outs[via] = buf.getvalue()
    assert outs["cea"] == outs["semantics"], f"{phi} on {stream!r}"
    assert outs["cces"] == outs["semantics"], f"{phi} on {stream!r}"


def test_cces_valuations_is_a_clear_error(capsys) -> None:
    assert main(["eval", "R", "--stream", FIRE, "--via", "cces", "--valuations"]) == 2
    assert "complex events only" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------- eval --logic


CEQL_STREAM = '{"type": "A"}\n{"type": "B"}\n{"type": "A"}\n{"type": "B"}\n'


@pytest.mark.parametrize("via", [None, "semantics", "cea", "engine"])
def test_eval_logic_ceql_prints_interval_complex_events(capsys, tmp_path: Path, via: str | None) -> None:
    """``--logic ceql``: the CORE paper's complex events ``([i, j], D)`` at their end position j, through every
    evaluator of the CEQL record (the engine by default)."""
    stream = tmp_path / "s.jsonl"
    stream.write_text(CEQL_STREAM)
    argv = ["eval", "SELECT * FROM S WHERE A ; B", "--stream", str(stream), "--logic", "ceql"]
    assert main(argv + (["--via", via] if via else [])) == 0
    assert _lines(capsys) == [
        {"position": 1, "kind": "complex_events", "outputs": [{"start": 0, "end": 1, "positions": [0, 1]}]},
        {"position": 3, "kind": "complex_events", "outputs": [{"start": 0, "end": 3, "positions": [0, 3]},
                                    {"start": 2, "end": 3, "positions": [2, 3]}]}]


def test_eval_logic_ceql_reads_the_query_from_a_file(capsys, tmp_path: Path) -> None:
    query, stream = tmp_path / "q.ceql", tmp_path / "s.jsonl"
    query.write_text("SELECT * FROM S\nWHERE A ; B+\nWITHIN 2 EVENTS\n")
    stream.write_text(CEQL_STREAM)
    assert main(["eval", f"@{query}", "--stream", str(stream), "--logic", "ceql"]) == 0
    by_engine = capsys.readouterr().out
    assert main(["eval", f"@{query}", "--stream", str(stream), "--logic", "ceql", "--via", "semantics"]) == 0
    assert capsys.readouterr().out == by_engine
    assert [line["position"] for line in map(json.loads, by_engine.splitlines())] == [1, 3]


def test_eval_unknown_logic_exits_2_listing_the_formalisms(capsys) -> None:
    assert main(["eval", "R", "--stream", FIRE, "--logic", "ltl"]) == 2
    err = capsys.readouterr().err
    assert "unknown logic 'ltl'" in err and "cel" in err and "ceql" in err


@pytest.mark.parametrize("logic, via, choices", [("cel", "engine", "semantics, cea, cces"),
                                                 ("ceql", "cces", "semantics, cea, engine")])
def test_eval_unknown_via_exits_2_listing_the_logics_evaluators(capsys, logic: str, via: str, choices: str) -> None:
    formula = "R" if logic == "cel" else "SELECT * WHERE R"
    assert main(["eval", formula, "--stream", FIRE, "--logic", logic, "--via", via]) == 2
    err = capsys.readouterr().err
    assert f"no evaluator {via!r}" in err and choices in err


def test_eval_ceql_has_no_valuations(capsys) -> None:
    assert main(["eval", "SELECT * WHERE R", "--stream", FIRE, "--logic", "ceql", "--valuations"]) == 2
    assert "no output level 'valuations'" in capsys.readouterr().err


def test_eval_ceql_syntax_error_exits_2(capsys) -> None:
    assert main(["eval", "SELECT * WHERE R ;", "--stream", FIRE, "--logic", "ceql"]) == 2
    assert "line 1, column" in capsys.readouterr().err


def test_construction_commands(capsys, tmp_path: Path) -> None:
    assert main(["determinize", "R ; T+", "--dot", str(tmp_path / "d.dot")]) == 0
    out = capsys.readouterr().out
    assert "IOdet (Prop. 5.5)" in out and ", I/O-deterministic" in out
    assert (tmp_path / "d.dot").read_text().startswith("digraph")
    assert main(["normal-form", "(R IN A ; T) OR (R ; T IN B)"]) == 0
    assert "I/O-deterministic" in capsys.readouterr().out
    assert main(["determinize", "(R ; T)+ ; (T ; R)+", "--budget", "2"]) == 2
    assert "past --budget 2; give a larger --budget" in capsys.readouterr().err


def test_star_property_command(capsys) -> None:
    assert main(["star-property", "R UNLESS T"]) == 0
    out = capsys.readouterr().out
    assert "lacks the *-property" in out and "0:T() 1:R()" in out and "C = {1}" in out
    assert main(["star-property", "R ; T+"]) == 0
    assert "has the *-property" in capsys.readouterr().out


def test_to_cel_command_round_trips(capsys, tmp_path: Path) -> None:
    from cer_theory.formalisms.cel.semantics import evaluate
    from cer_theory.core.events import Stream
    from cer_theory.formalisms.cel.parser import parse

    assert main(["to-cel", "R ; T", "--relations", "R,T,X"]) == 0
    back = parse(capsys.readouterr().out.splitlines()[1])
    s = Stream.from_types("R X T R T")
    assert evaluate(back, s) == evaluate(parse("R ; T"), s)
    assert main(["to-cel", "--star", "R ; T"]) == 0
    assert "Theorem 8.9" in capsys.readouterr().out


@pytest.mark.parametrize("kind,formula,expected", [
    ("contiguize", "(R ; T)+", "(R : T):+"),
    ("strict-to-contiguous", "STRICT(R ; T+)", "R : T:+"),
    ("contig-to-strict", "R : T", "STRICT(R ; T)"),
    ("cplus-to-strict", "R:+ ; T", "STRICT(R+) ; T"),
])
def test_rewrite_command(capsys, kind: str, formula: str, expected: str) -> None:
    assert main(["rewrite", kind, formula]) == 0
    assert capsys.readouterr().out.splitlines()[1] == expected


def test_cces_command(capsys, tmp_path: Path) -> None:
    stream = tmp_path / "s.jsonl"
    stream.write_text("".join(f'{{"type": "{t}"}}\n' for t in "UVVW"))
    assert main(["cces", "U ; ((V+ ; W) OR W)", "--stream", str(stream), "--dot", str(tmp_path / "c.dot")]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"position": 3, "kind": "complex_events", "outputs": [[0, 1, 2, 3], [0, 1, 3], [0, 2, 3], [0, 3]]}
    assert "CCES nodes" in captured.err and (tmp_path / "c.dot").read_text().startswith("digraph")


# ---------------------------------------------------------------------------------------------- other formalisms

TABLE_1 = [{"type": "B", "id": 1}, {"type": "X", "id": 1}, {"type": "S", "id": 1}, {"type": "S", "id": 2}]


def _jsonl(tmp_path: Path, rows: list[dict]) -> str:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


@pytest.mark.parametrize("via", ["semantics", "srt"])
def test_eval_sremo_prints_streaming_matches_by_k(capsys, tmp_path: Path, via: str) -> None:
    """The SRT paper's e₁ (a sale of the remembered buy's id): one match, ending at k = 2, by every evaluator."""
    e1 = '<type = "B"> -> r1 . [TRUE]* . <type = "S" AND id = r1.id>'
    assert main(["eval", "--logic", "sremo", e1, "--stream", _jsonl(tmp_path, TABLE_1), "--via", via]) == 0
    assert _lines(capsys) == [{"position": 2, "kind": "matches", "outputs": [[0, 2]]}]


@pytest.mark.parametrize("via", ["semantics", "ucea", "prop-5-1"])
def test_eval_socel_prints_valuations(capsys, tmp_path: Path, via: str) -> None:
    assert main(["eval", "--logic", "socel", "B ; S+", "--stream", _jsonl(tmp_path, TABLE_1), "--via", via]) == 0
    assert _lines(capsys) == [{"position": 2, "kind": "valuations", "outputs": [{"B": [0], "S": [2]}]},
                              {"position": 3, "kind": "valuations", "outputs": [{"B": [0], "S": [2, 3]}, {"B": [0], "S": [3]}]}]


def test_eval_focel_prints_matches(capsys, tmp_path: Path) -> None:
    stream = _jsonl(tmp_path, TABLE_1)
    assert main(["eval", "--logic", "focel", "B AS x ; S AS y FILTER x.id = y.id", "--stream", stream]) == 0
    assert _lines(capsys) == [{"position": 2, "kind": "matches", "outputs": [[0, 2]]}]


def test_eval_default_falls_back_to_the_semantics_outside_the_fast_fragment(capsys, tmp_path: Path) -> None:
    """SREMO's default evaluator is the SRT; a complement over registers has none (D202), so the default is the
    semantics there, while asking for the SRT explicitly is a clear error."""
    stream = _jsonl(tmp_path, TABLE_1)
    outside = '(<type = "B"> -> r1 . !<id = r1.id>) WITHIN 2'
    assert main(["eval", "--logic", "sremo", outside, "--stream", stream]) == 0
    capsys.readouterr()
    assert main(["eval", "--logic", "sremo", outside, "--stream", stream, "--via", "srt"]) == 2
    assert "cer-theory eval: !e is built for an e without registers" in capsys.readouterr().err


@pytest.mark.parametrize("logic, formula, shows", [
    ("socel", "R ; T+", "T / {T}"),
    ("sremo", '<type = "B"> -> r1 . <type = "S" AND id = r1.id>', "↓r1"),
    ("ceql", "SELECT * WHERE R ; T", "{R}"),
])
def test_draw_other_formalisms(capsys, logic: str, formula: str, shows: str) -> None:
    assert main(["draw", "--logic", logic, formula]) == 0
    dot = capsys.readouterr().out
    assert dot.startswith("digraph") and shows in dot


def test_draw_a_formalism_without_automata_exits_2(capsys) -> None:
    assert main(["draw", "--logic", "focel", "R AS x"]) == 2
    assert "no automaton model" in capsys.readouterr().err


@pytest.mark.parametrize("logic, formula, expected", [
    ("cel", "R : T", {"position": 1, "kind": "complex_events", "outputs": [[0, 1]]}),
    ("ceql", "SELECT * FROM S WHERE R ; T", {"position": 1, "kind": "complex_events", "outputs": [{"start": 0, "end": 1, "positions": [0, 1]}]}),
    ("sremo", '<type = "R"> . <type = "T">', {"position": 1, "kind": "matches", "outputs": [[0, 1]]}),
])
def test_eval_streams_each_output_before_the_stream_ends(logic: str, formula: str, expected: dict) -> None:
    """eval reads a live stream one event at a time (D183): the output at position 1 is printed while the input is
    still open, so memory is bounded by the evaluator's state and a pipe sees each output as it is found."""
    proc = subprocess.Popen([sys.executable, "-m", "cer_theory.cli", "eval", formula, "--logic", logic, "--stream",
                             "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write('{"type": "R"}\n{"type": "T"}\n')
        proc.stdin.flush()
        line = proc.stdout.readline()  # blocks until eval prints: it must do so before stdin is closed
        assert json.loads(line) == expected, line
        proc.stdin.write('{"type": "U"}\n')
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0 and proc.stdout.read() == ""
    finally:
        proc.kill()
        proc.wait()


# ------------------------------------------------------------------------------------ the registry as the seam

CONSTRUCTION_COMMANDS = {"equivalent": ["equiv", "A", "B"], "determinize": ["determinize", "A"],
                         "complement": ["complement", "A"], "normal-form": ["normal-form", "A"],
                         "star-property": ["star-property", "A"], "to-formula": ["to-cel", "A"],
                         "rewrite": ["rewrite", "contiguize", "A"], "cces": ["cces", "A", "--stream", FIRE]}


def _refusals() -> list[tuple[str, str]]:
    from cer_theory.core.protocols import get, names

    return [(name, c) for name in names() for c in CONSTRUCTION_COMMANDS if not get(name).supports(c)]


@pytest.mark.parametrize("logic, construction", _refusals())
def test_every_command_refuses_with_the_records_reason(capsys, logic: str, construction: str) -> None:
    """Every construction command is generic over --logic: a formalism whose record declares the construction
    Unsupported is refused before its formula is read, with the record's reason and the formalisms that have it."""
    from cer_theory.core.protocols import get

    assert main([*CONSTRUCTION_COMMANDS[construction], "--logic", logic]) == 2
    err = capsys.readouterr().err
    reason = get(logic).constructions[construction].reason
    assert f"--logic {logic}: {construction} is not available for this formalism: {reason}" in err, err


def test_the_command_line_compares_no_logic_by_hand() -> None:
    """No ``args.logic == …`` (or !=, in) and no hard-coded ``choices`` of formalism names in cli/: the records
    decide what each formalism has."""
    import ast as pyast

    from cer_theory.core.protocols import names

    cli = Path(__file__).resolve().parents[2] / "cer_theory" / "cli"
    found = []
    for path in sorted(cli.glob("*.py")):
        for node in pyast.walk(pyast.parse(path.read_text())):
            sides = [node.left, *node.comparators] if isinstance(node, pyast.Compare) else []
            if any(isinstance(side, pyast.Attribute) and side.attr == "logic" for side in sides):
                found.append(f"{path.name}:{node.lineno}: compares --logic by hand")
            if isinstance(node, pyast.keyword) and node.arg == "choices":
                values = [c.value for c in pyast.walk(node.value) if isinstance(c, pyast.Constant)]
                if set(values) & set(names()):
                    found.append(f"{path.name}:{node.lineno}: choices={values}")
    assert not found, "\n".join(found)


def test_logics_lists_every_record_with_its_constructions(capsys) -> None:
    from cer_theory.core.protocols import names

    assert main(["logics", "-v"]) == 0
    out = capsys.readouterr().out
    for name in names():
        assert f"\n{name} " in f"\n{out}"
    assert "no complement: a CEA outputs valuations" in out


def test_socel_determinizes_through_its_record(capsys) -> None:
    assert main(["determinize", "--logic", "socel", "R ; T+"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("UCEA of R ; T+: ") and lines[1].startswith("IOdet (the SO-CEL paper §4) of R ; T+: ")
    assert lines[1].endswith("I/O-deterministic (Prop. 5.5)")


def test_an_option_the_construction_lacks_is_refused_by_name(capsys) -> None:
    assert main(["determinize", "--logic", "socel", "R", "--trim"]) == 2
    assert "--trim is not an option of socel's determinize" in capsys.readouterr().err


def test_eval_dsrt_names_the_budget_it_was_given(capsys, tmp_path: Path) -> None:
    """One default budget for every command: the windowed dSRA's state budget is the command's --budget, so the
    message names the budget that was in force (the default one when none was given)."""
    stream = tmp_path / "s.jsonl"
    stream.write_text('{"type": "B", "id": 1}\n{"type": "S", "id": 1}\n')
    expr = '(<type = "B"> -> r1 . [TRUE]* . <type = "S" AND id = r1.id>) WITHIN 12'
    assert main(["eval", "--logic", "sremo", "--via", "dsrt", expr, "--stream", str(stream), "--budget", "30"]) == 2
    assert "past --budget 30;" in capsys.readouterr().err
    from cer_theory.core.budget import DEFAULT_WORK, states, work_budget

    assert states(20_000) == 20_000
    with work_budget(DEFAULT_WORK):
        assert states(20_000) == DEFAULT_WORK
