"""The JSON format of UCEA and CEA: save/load round trips and errors that name the place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.automata.cea import CEA
from cer_theory.core.errors import AutomatonError
from cer_theory.core.events import Stream
from cer_theory.formalisms.socel.automaton_json import (automaton_to_json, dumps_automaton, load_automaton,
                                                        loads_automaton, save_automaton)
from cer_theory.formalisms.cel.to_cel import default_relations
from cer_theory.formalisms.socel.examples import fig2_ucea
from cer_theory.formalisms.socel.parser import parse as parse_socel
from cer_theory.formalisms.socel.printer import format as format_socel
from cer_theory.formalisms.socel.to_socel import ucea_to_socel_plus
from cer_theory.formalisms.socel.star_property import has_star_property
from cer_theory.formalisms.socel.ucea import UCEA
from cer_theory.automata import files
from cer_theory.testing.strategies.automata import random_ceas

FILE_SCHEMA = jsonschema.Draft202012Validator(files.schema())


@settings(max_examples=40)
@given(random_ceas(max_states=3))
def test_round_trip_cea_and_ucea(cea: CEA) -> None:
    """Every automaton written is read back equal, by this module and by the registry's reader of its kind, and
    satisfies the shipped JSON Schema (docs/automaton-files.md)."""
    assert loads_automaton(dumps_automaton(cea)) == cea
    u = UCEA.of(cea)
    back = loads_automaton(dumps_automaton(u))
    assert isinstance(back, UCEA) and back == u
    for a in (cea, u):
        FILE_SCHEMA.validate(a.to_json())
        again = files.loads(files.dumps(a))
        assert type(again) is type(a) and again == a


def test_fig2_file_round_trip_and_decider(tmp_path: Path) -> None:
    path = tmp_path / "fig2.json"
    save_automaton(fig2_ucea(), path)
    a = load_automaton(path)
    assert a == fig2_ucea() and a.name == "Fig. 2"
    assert a.run(Stream.from_types("R H T")) == fig2_ucea().run(Stream.from_types("R H T"))
    assert not has_star_property(a).holds
    with pytest.raises(AutomatonError, match="not I/O-deterministic: transitions\\[2\\] and transitions\\[3\\]"):
        load_automaton(path, io_deterministic=True)


def _fig2() -> dict:
    return automaton_to_json(fig2_ucea())


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.pop("states"), "automaton: missing field 'states'"),
    (lambda d: d.__setitem__("kind", "nfa"), "automaton.kind: expected one of"),
    (lambda d: d["transitions"][1].__setitem__("guard", "type = "), "transitions\\[1\\].guard: line 1, column 7"),
    (lambda d: d["transitions"][0].__setitem__("to", "q9"), "transitions\\[0\\].to: 'q9' is not in states"),
    (lambda d: d["transitions"][0].__setitem__("labels", [""]), "transitions\\[0\\].labels\\[0\\]"),
    (lambda d: d["transitions"][2].__setitem__("guard", "A.x > 1"), "transitions\\[2\\].guard: 'A.x > 1' is not unary"),
    (lambda d: d.__setitem__("final", ["q7"]), "final states"),
    # the audit's hostile files: an unhashable kind, a label that is not a name (to-socel would print SO-CEL that
    # does not parse back), a keyword as a label
    (lambda d: d.__setitem__("kind", []), "automaton.kind: expected one of acea, cea, srt, ucea, got \\[\\]"),
    (lambda d: d.__setitem__("version", 2), "automaton.version: this cer_theory reads version 1 of "
                                            "cer-theory-automaton, got 2"),
    (lambda d: d.__setitem__("format", "dot"), "automaton.format: expected 'cer-theory-automaton', got 'dot'"),
    (lambda d: d["transitions"][1].__setitem__("labels", ["A) OR (B"]),
     "transitions\\[1\\].labels\\[0\\]: a label is a variable name"),
    (lambda d: d["transitions"][1].__setitem__("labels", ["FILTER"]), "transitions\\[1\\].labels\\[0\\]"),
    (lambda d: d["transitions"][1].__setitem__("labels", [7]), "transitions\\[1\\].labels\\[0\\]"),
])
def test_malformed_files_name_the_place(mutate, message: str) -> None:
    data = _fig2()
    mutate(data)
    with pytest.raises(AutomatonError, match=message):
        loads_automaton(json.dumps(data))


def test_not_json_names_line_and_column(tmp_path: Path) -> None:
    with pytest.raises(AutomatonError, match="line 1, column 2: not JSON"):
        loads_automaton("{,}")
    with pytest.raises(AutomatonError, match="cannot read"):
        load_automaton(tmp_path / "missing.json")


def test_a_5000_digit_state_id_names_the_field() -> None:
    text = dumps_automaton(fig2_ucea()).replace('"q0"', "9" * 5000, 1)
    with pytest.raises(AutomatonError, match="automaton.states\\[0\\]: a state is a string or an integer of at most "
                                             "100 digits, got a 5000-digit number"):
        loads_automaton(text)


@pytest.mark.parametrize("encoding, message", [("latin-1", "not UTF-8 text \\(byte 0xe9"),
                                               ("utf-16", "a UTF-16 file"), ("utf-32", "a UTF-32 file")])
def test_files_in_other_encodings_name_the_file(tmp_path: Path, encoding: str, message: str) -> None:
    path = tmp_path / "a.json"
    data = _fig2()
    data["name"] = "Fig. 2, réécrit"
    path.write_bytes(json.dumps(data, ensure_ascii=False).encode(encoding))
    with pytest.raises(AutomatonError, match=f"^{path}: {message}"):
        load_automaton(path)


@settings(max_examples=60)
@given(st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=2))
def test_every_loadable_automaton_prints_socel_that_parses_back(labels: list[str]) -> None:
    """The class of the label defect: whatever text a file gives as labels, it is refused naming the label, or
    what to-socel prints from the automaton parses back to the same formula (Thm 6.2's output is SO-CEL text)."""
    data = _fig2()
    data["transitions"][1]["labels"] = labels
    try:
        a = loads_automaton(json.dumps(data))
    except AutomatonError as e:
        assert "transitions[1].labels[" in str(e), str(e)
        return
    phi = ucea_to_socel_plus(a, default_relations(a))
    assert parse_socel(format_socel(phi)) == phi, format_socel(phi)
