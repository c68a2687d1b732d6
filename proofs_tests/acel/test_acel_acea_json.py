"""The ACEA JSON file format: save/load round trips (witnesses, compiled automata), malformed files → clear
AutomatonError naming the place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import jsonschema
from hypothesis import given, settings

from cer_theory.core.errors import AutomatonError
from cer_theory.formalisms.acel.acea_json import acea_to_json, dumps_acea, load_acea, loads_acea, save_acea
from cer_theory.formalisms.acel.compile import compile_automaton, schema_of
from cer_theory.formalisms.acel.examples import ones, w1_doubling, w2_prefix_sums
from cer_theory.testing.strategies.acel import acel_streams, formulas
from cer_theory.automata import files

FILE_SCHEMA = jsonschema.Draft202012Validator(files.schema())


def test_witnesses_round_trip_through_a_file(tmp_path: Path) -> None:
    for a in (w1_doubling(), w2_prefix_sums()):
        path = tmp_path / "a.json"
        save_acea(a, path)
        back = load_acea(path)
        assert back == a and back.complex_events(ones(4)) == a.complex_events(ones(4))
    assert acea_to_json(w2_prefix_sums())["kind"] == "acea"


@settings(max_examples=40)
@given(formulas(), acel_streams())
def test_compiled_automata_round_trip_with_identities_nulls_and_post_maps(phi, stream) -> None:
    a = compile_automaton(phi, schema_of(stream))
    back = loads_acea(dumps_acea(a))
    assert back == a and back.complex_events(stream) == a.complex_events(stream)
    FILE_SCHEMA.validate(a.to_json())  # the shipped schema (docs/automaton-files.md) holds for every file written
    assert files.loads(files.dumps(a)) == a


GOOD = {"kind": "acea", "states": [0, 1], "initial": 0, "final": [1],
        "transitions": [{"from": 0, "assign": {"s": {"ref": "a"}}, "checks": [], "emit": {"Y": [{"b": "s"}]},
                         "to": 1}]}


def _with(path: list, value) -> dict:
    data = json.loads(json.dumps(GOOD))
    obj = data
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value
    return data


@pytest.mark.parametrize("data, message", [
    (_with(["kind"], "ucea"), "automaton.kind: expected 'acea', got 'ucea'"),
    (_with(["initial"], "q0"), "automaton.initial: a state is an integer"),
    (_with(["transitions", 0, "assign", "s"], {"combine": "median", "args": [{"ref": "a"}, {"ref": "a"}]}),
     "transitions[0].assign.s.combine: unknown aggregate 'median'"),
    (_with(["transitions", 0, "assign", "s"], {"combine": "sum", "args": [{"ref": "a"}]}),
     "combine takes two arguments"),
    (_with(["transitions", 0, "checks"], [{"emits": "x >", "template": {"x": "s"}}]),
     "transitions[0].checks[0].emits: line 1"),
    (_with(["transitions", 0, "emit", "Y"], [{"b": "t"}]), "emits b from register t, which it does not assign"),
    (_with(["transitions", 0, "to"], 7), "transition 0 → 7 leaves the states"),
    (_with(["transitions", 0, "checks"], [{"why": 1}]), "unknown check ['why']"),
    (_with(["kind"], []), "automaton.kind: expected one of acea, cea, srt, ucea, got []"),
    (_with(["kind"], "cea"), "automaton.kind: expected 'acea', got 'cea'"),
    (_with(["transitions", 0, "emit"], {"Y) OR (Z": []}), "transitions[0].emit: a mark is a variable name"),
])
def test_malformed_files_are_refused_with_the_place_named(data, message: str) -> None:
    with pytest.raises(AutomatonError, match=None) as info:
        loads_acea(json.dumps(data))
    assert message in str(info.value)


def test_not_json_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(AutomatonError, match="line 1, column 2: not JSON"):
        loads_acea("{,")
    with pytest.raises(AutomatonError, match="cannot read"):
        load_acea(tmp_path / "missing.json")


def test_a_5000_digit_number_names_its_field() -> None:
    text = json.dumps(GOOD).replace('"initial": 0', '"initial": ' + "9" * 5000)
    with pytest.raises(AutomatonError, match=None) as info:
        loads_acea(text)
    assert "automaton.initial: a state is an integer, got a 5000-digit number" in str(info.value)


def test_a_file_in_another_encoding_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(json.dumps(GOOD).encode("utf-16"))
    with pytest.raises(AutomatonError, match=None) as info:
        load_acea(path)
    assert str(info.value).startswith(f"{path}: a UTF-16 file")
