"""SRT files (docs/automaton-files.md, kind ``srt``): every compiled transducer of generated expressions is written,
satisfies the shipped JSON Schema, is read back equal (by the registry's reader of its kind) and recognizes the same
matches; malformed files are refused naming the field."""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import given, settings

from cer_theory.automata import files
from cer_theory.core.errors import AutomatonError, UnsupportedError
from cer_theory.core.events import Stream
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.testing.strategies.sremo import expressions, streams

FILE_SCHEMA = jsonschema.Draft202012Validator(files.schema())


@settings(max_examples=40, deadline=None)
@given(expressions(), streams())
def test_compiled_transducers_round_trip_through_a_file(e, events) -> None:
    try:
        srt = compile_automaton(e)
    except UnsupportedError:
        return
    data = srt.to_json()
    FILE_SCHEMA.validate(data)
    back = files.loads(files.dumps(srt))
    assert back == srt
    stream = Stream(events)
    assert back.run(stream) == srt.run(stream)


def _good() -> dict:
    return {"format": "cer-theory-automaton", "version": 1, "kind": "srt", "states": 2, "start": 0, "finals": [1],
            "registers": ["r1"], "window": None, "positions": False,
            "transitions": [{"from": 0, "guard": 'type = "B"', "marked": True, "writes": ["r1"], "to": 1}]}


@pytest.mark.parametrize("change,message", [
    (lambda d: d["transitions"][0].__setitem__("guard", "type = "), "automaton.transitions[0].guard: "),
    (lambda d: d["transitions"][0].__setitem__("marked", "yes"), "automaton.transitions[0].marked: expected bool"),
    (lambda d: d.__setitem__("states", "2"), "automaton.states: expected int"),
    (lambda d: d["transitions"][0].__setitem__("to", 5), "automaton: "),
    (lambda d: d.__setitem__("kind", "nfa"), "automaton.kind: expected one of acea, cea, srt, ucea, got 'nfa'"),
])
def test_malformed_srt_files_name_the_field(change, message: str) -> None:
    data = _good()
    files.from_json(data)  # the good one reads
    change(data)
    with pytest.raises(AutomatonError, match=None) as info:
        files.from_json(json.loads(json.dumps(data)))
    assert message in str(info.value)
