"""Reading complex event automata from files (docs/automaton-files.md): CEA (the CEL paper Def. 5.1) and its unary
variant UCEA (the SO-CEL paper §4), which share the fields::

    {"format": "cer-theory-automaton", "version": 1, "kind": "cea", "name": "T ; H",
     "states": [0, 1, 2], "initial": [0], "final": [2],
     "transitions": [{"from": 0, "guard": "TRUE", "labels": [], "to": 0},
                     {"from": 0, "guard": "type = \\"T\\"", "labels": ["T"], "to": 1}, …]}

States are JSON strings or integers. A guard is a unary predicate in the toolkit's unqualified syntax
(docs/cel-syntax.md, "Unqualified predicates": ``x > 1 AND type = "R"``); the guards are CEL's predicates, so the
reader lives with CEL's parser. Writing is :meth:`CEA.to_json`. Every malformed input raises
:class:`~cer_theory.core.errors.AutomatonError` naming the place (``transitions[2].guard``), with the line and column
of a guard's syntax error.
"""

from __future__ import annotations

from typing import Any

from cer_theory.automata.cea import CEA, Transition
from cer_theory.automata.files import MAX_STATE_DIGITS, check_header
from cer_theory.core.errors import AutomatonError, SyntaxErrorCER
from cer_theory.formalisms.cel.parser import is_name, parse_predicate


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


def read_cea(data: Any, *, source: str = "automaton", model: type[CEA] = CEA) -> CEA:
    """The automaton of class ``model`` (CEA, or a subclass such as UCEA) a file's JSON object describes."""
    check_header(data, source, default_kind=model.FILE_KIND)
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
    return model(states, transitions, initial, final, name=name if isinstance(name, str) else "")


__all__ = ["read_cea"]
