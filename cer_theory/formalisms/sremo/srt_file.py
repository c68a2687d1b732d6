"""Reading symbolic register transducers from files (docs/automaton-files.md, kind ``srt``; the SRT paper, Def. 21)::

    {"format": "cer-theory-automaton", "version": 1, "kind": "srt", "name": "B then S of the same id",
     "states": 4, "start": 0, "finals": [3], "registers": ["r1"], "window": null, "positions": false,
     "transitions": [{"from": 0, "guard": "type = \\"B\\"", "marked": true, "writes": ["r1"], "to": 1},
                     {"from": 1, "guard": null, "marked": false, "writes": [], "to": 2}, …]}

States are ``0 .. states-1``; a guard is a condition in SREMO's syntax (docs/sremo-syntax.md: unqualified attributes,
registers as ``r1.id``), ``null`` for an ε-transition (no read, no write, ⊗); ``marked`` is the output (• or ⊗),
``writes`` the registers the event is written into. ``window`` bounds the span of the marked positions (D59), and
``positions`` says that conditions read the event's position as ``_pos``. Writing is :meth:`SRT.to_json`. Every
malformed input raises :class:`~cer_theory.core.errors.AutomatonError` naming the place.
"""

from __future__ import annotations

from typing import Any

from cer_theory.automata.files import check_header
from cer_theory.core.errors import AutomatonError, SyntaxErrorCER
from cer_theory.formalisms.sremo.ast import Cond
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.srt import SRT, Transition


def _field(obj: dict, name: str, where: str, kind: type | tuple[type, ...], *, optional: bool = False) -> Any:
    if name not in obj:
        if optional:
            return None
        raise AutomatonError(f"{where}: missing field {name!r}")
    value = obj[name]
    if value is None and optional:
        return None
    if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
        expected = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise AutomatonError(f"{where}.{name}: expected {expected}, got {type(value).__name__}")
    return value


def _guard(text: str, where: str) -> Any:
    """A condition: the guard of the one-condition expression ``<text>`` (SREMO's own parser)."""
    try:
        expr = parse(f"<{text}>")
    except SyntaxErrorCER as e:
        raise AutomatonError(f"{where}: {e}") from None
    if not isinstance(expr, Cond):
        raise AutomatonError(f"{where}: {text!r} is not one condition")
    return expr.guard


def read_srt(data: Any, *, source: str = "automaton") -> SRT:
    """The SRT a file's JSON object describes (the registry's reader of kind ``srt``)."""
    kind = check_header(data, source)
    if kind != "srt":
        raise AutomatonError(f"{source}.kind: expected 'srt', got {kind!r}")
    states = _field(data, "states", source, int)
    transitions = []
    for k, t in enumerate(_field(data, "transitions", source, list)):
        where = f"{source}.transitions[{k}]"
        if not isinstance(t, dict):
            raise AutomatonError(f"{where}: expected an object with from, guard, marked, writes, to")
        text = _field(t, "guard", where, str, optional=True)
        writes = _field(t, "writes", where, list)
        if not all(isinstance(r, str) for r in writes):
            raise AutomatonError(f"{where}.writes: expected register names")
        transitions.append(Transition(_field(t, "from", where, int), None if text is None else
                                      _guard(text, f"{where}.guard"), _field(t, "to", where, int),
                                      frozenset(writes), _field(t, "marked", where, bool)))
    registers = _field(data, "registers", source, list, optional=True) or []
    finals = _field(data, "finals", source, list)
    if not all(type(q) is int for q in finals):
        raise AutomatonError(f"{source}.finals: expected state numbers")
    try:
        return SRT(states, _field(data, "start", source, int), frozenset(finals), tuple(transitions),
                   frozenset(registers), window=_field(data, "window", source, int, optional=True),
                   positions=bool(_field(data, "positions", source, bool, optional=True)))
    except AutomatonError as e:
        raise AutomatonError(f"{source}: {e}") from None


__all__ = ["read_srt"]
