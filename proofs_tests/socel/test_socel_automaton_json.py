"""The JSON format of UCEA and CEA: save/load round trips and errors that name the place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings

from cer_theory.automata.cea import CEA
from cer_theory.core.errors import AutomatonError
from cer_theory.core.events import Stream
from cer_theory.formalisms.socel.automaton_json import (automaton_to_json, dumps_automaton, load_automaton,
                                                        loads_automaton, save_automaton)
from cer_theory.formalisms.socel.examples import fig2_ucea
from cer_theory.formalisms.socel.star_property import has_star_property
from cer_theory.formalisms.socel.ucea import UCEA
from cer_theory.testing.strategies.automata import random_ceas


@settings(max_examples=40)
@given(random_ceas(max_states=3))
def test_round_trip_cea_and_ucea(cea: CEA) -> None:
    assert loads_automaton(dumps_automaton(cea)) == cea
    u = UCEA.of(cea)
    back = loads_automaton(dumps_automaton(u))
    assert isinstance(back, UCEA) and back == u


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
