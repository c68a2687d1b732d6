"""A JSON format for hand-written automata: UCEA (the SO-CEL paper §4) and, for uniformity, CEA (the CEL paper Def. 5.1).

::

    {"kind": "ucea", "name": "Fig. 2",
     "states": ["q0", "q1", "q2"], "initial": ["q0"], "final": ["q2"],
     "transitions": [{"from": "q0", "guard": "TRUE", "labels": [], "to": "q0"},
                     {"from": "q0", "guard": "type = \\"R\\"", "labels": ["R"], "to": "q1"}, …]}

States are JSON strings or integers. A guard is a unary predicate in the toolkit's unqualified syntax
(docs/cel-syntax.md, "Unqualified predicates": ``x > 1 AND type = "R"``). ``kind`` is ``"ucea"`` (default) or
``"cea"``. Every malformed input raises :class:`~cer_theory.core.errors.AutomatonError` naming the place
(``transitions[2].guard``), with the line and column of a guard's syntax error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cer_theory.automata.cea import CEA, Transition
from cer_theory.core.errors import AutomatonError, SyntaxErrorCER
from cer_theory.core.outputs import write_output
from cer_theory.core.textfiles import loads_json, read_text_file
from cer_theory.formalisms.cel.parser import is_name, parse_predicate
from cer_theory.formalisms.cel.printer import format_predicate
from cer_theory.formalisms.socel.ucea import UCEA

KINDS = {"ucea": UCEA, "cea": CEA}

MAX_STATE_DIGITS = 100
"""An integer state id is an identifier, not a quantity: longer ones are refused (naming the field) rather than
converted."""


def automaton_to_json(a: CEA) -> dict[str, Any]:
    """The JSON object of an automaton (states, initial and final sorted; transitions in Δ's order)."""
    for q in a.states:
        if not isinstance(q, (str, int)) or isinstance(q, bool):
            raise AutomatonError(f"state {q!r} is not a string or an integer; relabel_states() first")
    key = lambda q: (isinstance(q, str), q)  # noqa: E731 - ints before strings, each in order
    return {"kind": "ucea" if isinstance(a, UCEA) else "cea", "name": a.name,
            "states": sorted(a.states, key=key), "initial": sorted(a.initial, key=key),
            "final": sorted(a.final, key=key),
            "transitions": [{"from": t.source, "guard": format_predicate(t.predicate), "labels": sorted(t.labels),
                             "to": t.target} for t in a.transitions]}


def dumps_automaton(a: CEA) -> str:
    return json.dumps(automaton_to_json(a), ensure_ascii=False, indent=1)


def save_automaton(a: CEA, path: str | Path) -> None:
    write_output(path, dumps_automaton(a) + "\n")


def _field(obj: dict, name: str, where: str, kind: type | tuple[type, ...]) -> Any:
    if name not in obj:
        raise AutomatonError(f"{where}: missing field {name!r}")
    value = obj[name]
    if not isinstance(value, kind) or isinstance(value, bool):
        expected = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise AutomatonError(f"{where}.{name}: expected {expected}, got {type(value).__name__}")
    return value


def _state(value: Any, where: str) -> str | int:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise AutomatonError(f"{where}: a state is a string or an integer of at most {MAX_STATE_DIGITS} digits, "
                             f"got {value!r}")
    return value


def automaton_from_json(data: Any, *, source: str = "automaton", io_deterministic: bool = False) -> CEA:
    """Build the automaton a JSON object describes (see the module docstring); ``io_deterministic=True`` also
    requires I/O-determinism (the SO-CEL paper §4) and names the overlapping transitions otherwise."""
    if not isinstance(data, dict):
        raise AutomatonError(f"{source}: expected a JSON object, got {type(data).__name__}")
    kind = data.get("kind", "ucea")
    if not isinstance(kind, str) or kind not in KINDS:
        raise AutomatonError(f"{source}.kind: expected one of {sorted(KINDS)}, got {kind!r}")
    states = [_state(q, f"{source}.states[{k}]") for k, q in enumerate(_field(data, "states", source, list))]
    initial = [_state(q, f"{source}.initial[{k}]") for k, q in enumerate(_field(data, "initial", source, list))]
    final = [_state(q, f"{source}.final[{k}]") for k, q in enumerate(_field(data, "final", source, list))]
    transitions = []
    for k, t in enumerate(_field(data, "transitions", source, list)):
        where = f"{source}.transitions[{k}]"
        if not isinstance(t, dict):
            raise AutomatonError(f"{where}: expected an object with from, guard, labels, to")
        guard_text = _field(t, "guard", where, str)
        try:
            guard = parse_predicate(guard_text)
        except SyntaxErrorCER as e:
            raise AutomatonError(f"{where}.guard: {e}") from None
        if not guard.is_unary():
            raise AutomatonError(f"{where}.guard: {guard_text!r} is not unary; write attributes unqualified (x > 1)")
        labels = _field(t, "labels", where, list)
        for m, lab in enumerate(labels):
            if not is_name(lab):
                raise AutomatonError(f"{where}.labels[{m}]: a label is a variable name (a letter or _, then "
                                     f"letters, digits and _; not a keyword), got {lab!r}")
        src, dst = _state(t.get("from"), f"{where}.from"), _state(t.get("to"), f"{where}.to")
        for end, name in ((src, "from"), (dst, "to")):
            if end not in states:
                raise AutomatonError(f"{where}.{name}: {end!r} is not in states")
        transitions.append(Transition(src, guard, frozenset(labels), dst))
    name = data.get("name", "")
    a = KINDS[kind](states, transitions, initial, final, name=name if isinstance(name, str) else "")
    if io_deterministic and not a.is_io_deterministic():
        if len(a.initial) != 1:
            raise AutomatonError(f"{source}: not I/O-deterministic: {len(a.initial)} initial states (one needed)")
        t1, t2 = a.io_determinism_violations()[0]
        i, j = a.transitions.index(t1), a.transitions.index(t2)
        raise AutomatonError(f"{source}: not I/O-deterministic: transitions[{i}] and transitions[{j}] leave "
                             f"{t1.source!r} with the same labels and overlapping guards")
    return a


def loads_automaton(text: str, *, source: str = "automaton", io_deterministic: bool = False) -> CEA:
    data = loads_json(text, source, AutomatonError, max_int_digits=MAX_STATE_DIGITS)
    return automaton_from_json(data, source=source, io_deterministic=io_deterministic)


def load_automaton(path: str | Path, *, io_deterministic: bool = False) -> CEA:
    """Read an automaton file; the messages name the file."""
    text = read_text_file(path, "automaton files", AutomatonError)
    return loads_automaton(text, source=str(path), io_deterministic=io_deterministic)


__all__ = ["automaton_to_json", "automaton_from_json", "dumps_automaton", "loads_automaton", "save_automaton",
           "load_automaton"]
