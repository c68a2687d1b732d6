"""The output contract (docs/output-contract.md, D380): every line ``cer-theory eval`` prints, for every registered
formalism, every evaluator and every output level, satisfies the JSON Schema the package ships for that formalism
(:func:`cer_theory.core.contract.schema`); ``Formula.evaluate(…).json_lines()`` gives the same lines; outputs are
sorted in the level's canonical order and Python prints them in that order too.

``jsonschema`` (the ``test`` extra) validates: the schemas are the documentation a user reads, so they are checked by
the reference implementation of JSON Schema rather than by a checker of our own (D381)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings

from cer_theory.cli import main
from cer_theory.core.contract import KEYS, OutputSet, json_order, schema
from cer_theory.core.events import Stream
from cer_theory.core.protocols import Level, get, names
from cer_theory.formalisms.formula import Formula

FIRE = str(resources.files("cer_theory").joinpath("examples/data/fire.jsonl"))


def _validator(logic: str) -> jsonschema.protocols.Validator:
    s = schema(get(logic))
    cls = jsonschema.validators.validator_for(s)
    cls.check_schema(s)
    return cls(s)


def _levels(logic: str, evaluator: str) -> list[Level]:
    """The levels ``eval --via evaluator`` can print: the coarsest, and the finest (``--valuations``) when the
    evaluator computes it."""
    record = get(logic)
    out = [record.levels[-1]]
    ev = record.evaluator(evaluator)
    if any(lv.name == "valuations" for lv in record.levels) and ev.level == "valuations":
        out.append(record.level("valuations"))
    return out


@pytest.mark.parametrize("logic", names())
def test_every_shipped_schema_is_a_valid_json_schema(logic: str) -> None:
    record = get(logic)
    assert all(lv.schema is not None for lv in record.levels), f"{logic}: a level without a shipped schema"
    _validator(logic)


@pytest.mark.parametrize("logic", names())
def test_eval_lines_satisfy_the_shipped_schema_for_every_evaluator(logic: str, tmp_path: Path, capsys) -> None:
    """The acceptance test of the contract: generated formulas and streams of each record (its own strategies),
    every evaluator that handles the formula, every level it prints; each line is validated, lines come in
    increasing position, and the in-memory view (``Formula.evaluate(…).json_lines()``) prints the same."""
    record = get(logic)
    validator = _validator(logic)
    printed: dict[str, int] = {}
    stream_file = tmp_path / "s.jsonl"

    @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(record.formulas(), record.streams())
    def check(ast, events) -> None:
        stream = Stream(events)  # (some strategies give lists of events)
        stream_file.write_text(stream.to_jsonl(), encoding="utf-8")
        text = record.format(ast)
        for name, ev in record.evaluators.items():
            if not ev.handles(ast):
                continue
            for level in _levels(logic, name):
                argv = ["eval", text, "--logic", logic, "--stream", str(stream_file), "--via", name]
                argv += ["--valuations"] if level.name == "valuations" and level is not record.levels[-1] else []
                code = main(argv)
                out, err = capsys.readouterr()
                if code == 2 and "budget" in err:
                    continue  # an automaton too big for the default budget: refused, nothing printed
                assert code == 0, (argv, err)
                lines = [json.loads(line) for line in out.splitlines()]
                for line in lines:
                    validator.validate(line)
                    assert tuple(line) == KEYS and line["kind"] == level.key
                    assert line["outputs"] == sorted(line["outputs"], key=lambda o: level.sort_key(level.from_json(o))
                                                     if level.from_json else json_order(o))
                positions = [line["position"] for line in lines]
                assert positions == sorted(set(positions)) and all(p < len(stream) for p in positions)
                via = Formula(logic, ast).evaluate(stream, via=name, level=level.name)
                assert via.json_lines() == lines, (text, name, level.name)
                printed[level.key] = printed.get(level.key, 0) + len(lines)

    check()
    assert printed and all(printed.values()), f"{logic}: no line printed at some level ({printed}): the test " \
                                              f"validated nothing"


def test_the_envelope_is_the_same_for_every_logic(capsys) -> None:
    """One shape, whatever the logic: the same three keys in the same order (CEL's and SREMO's lines on the
    bundled fire stream)."""
    assert main(["eval", "(T ; H) FILTER (T.tmp > 40 AND H.hum <= 25)", "--stream", FIRE]) == 0
    cel = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert cel[-1] == {"position": 8, "kind": "complex_events", "outputs": [[1, 8], [5, 8]]}
    assert main(["eval", "--logic", "sremo", '<type = "H"> . <type = "T">', "--stream", FIRE]) == 0
    sremo = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sremo[0] == {"position": 1, "kind": "matches", "outputs": [[0, 1]]}
    assert main(["eval", "--logic", "acel", "AGG M[n <- count(X.hum)](H AS X ; T)", "--stream", FIRE]) == 0
    acel = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {tuple(line) for line in cel + sremo + acel} == {KEYS}
    first = acel[0]["outputs"][0]
    assert first["bags"]["X"] == [{"time": 0, "attributes": {"hum": 25, "id": 2, "type": "H"}}]


def test_a_line_of_another_shape_fails_the_schema() -> None:
    """The schema check can fail: the old shapes, a wrong kind, unsorted-but-valid aside, an extra key."""
    validator = _validator("cel")
    for bad in ({"n": 2, "complex_events": [[1, 2]]}, {"position": 2, "kind": "matches", "outputs": [[1, 2]]},
                {"position": 2, "kind": "complex_events", "outputs": []},
                {"position": -1, "kind": "complex_events", "outputs": [[1, 2]]},
                {"position": 2, "kind": "complex_events", "outputs": [["1"]]},
                {"position": 2, "kind": "complex_events", "outputs": [[1, 2]], "logic": "cel"}):
        with pytest.raises(jsonschema.ValidationError):
            validator.validate(bad)
    with pytest.raises(jsonschema.ValidationError):  # ACEL: attributes apart from the time
        _validator("acel").validate({"position": 0, "kind": "complex_events", "outputs": [
            {"start": 0, "end": 0, "bags": {"X": [{"time": 0, "type": "H"}]}}]})


def test_logics_schema_prints_the_composed_schema(capsys) -> None:
    assert main(["logics", "--schema", "sremo"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == schema(get("sremo")) and printed["properties"]["kind"]["enum"] == ["matches"]


def test_python_prints_outputs_in_the_canonical_order() -> None:
    """``{{5,8}, {1,8}}`` was the set's hash order; the repr is sorted whatever the insertion order."""
    level = get("cel").levels[-1]
    for order in ([frozenset({5, 8}), frozenset({1, 8})], [frozenset({1, 8}), frozenset({5, 8})]):
        out = OutputSet(order, level.sort_key)
        assert repr(out) == "{{1,8}, {5,8}}" and out == frozenset(order)
    assert repr(OutputSet([frozenset({10, 3}), frozenset({2, 3})])) == "{{2,3}, {3,10}}"
    observed = Formula("cel", get("cel").parse("(T ; H) FILTER (T.tmp > 40 AND H.hum <= 25)")).evaluate(FIRE)
    assert repr(observed[8]) == "{{1,8}, {5,8}}"


def test_json_order_compares_numbers_as_numbers() -> None:
    assert sorted([[10], [2], [2, 1]], key=json_order) == [[2], [2, 1], [10]]
    assert sorted([None, "a", 3, {"a": 1}, True], key=json_order) == [None, True, 3, "a", {"a": 1}]


def test_sremo_matches_are_sorted_numerically_not_as_text() -> None:
    level = get("sremo").levels[-1]
    line = level.json_line(12, frozenset({frozenset({10, 12}), frozenset({2, 12})}))
    assert line["outputs"] == [[2, 12], [10, 12]]
