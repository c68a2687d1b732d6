"""A JSON format for aggregation automata (the ACEL paper §6), in the conventions of the UCEA/CEA format
(``"kind"``, ``"states"``, ``"final"``, ``"transitions"`` with ``"from"``/``"to"``)::

    {"kind": "acea", "name": "W2 (prefix sums)", "states": [0, 1], "initial": 0, "final": [1],
     "transitions": [
       {"from": 0, "assign": {"s": {"ref": "a"}}, "checks": [], "emit": {"Y": [{"b": "s"}]}, "to": 1},
       {"from": 1, "assign": {"s": {"combine": "sum", "args": [{"ref": "s"}, {"ref": "a"}]}}, "checks": [],
        "emit": {"Y": [{"b": "s"}]}, "to": 1}]}

An ACEA has one initial state. States are integers. Expressions: ``{"const": v}`` (``null`` is ``NULL``,
``{"inf": "+"}``/``{"inf": "-"}`` the infinite identities, ``{"tuple": […]}`` a pair such as ``avg``'s), ``{"ref":
name}``, ``{"combine": f, "args": [α, β]}``, ``{"lift": f, "arg": α}`` (pre-map) and ``{"finish": f, "arg": α}``
(post-map), ``f`` an aggregate's name. A template maps an output attribute to a register, or to
``{"register": r, "post": f}``. Checks (a conjunction): ``{"type_is": [register, type]}``,
``{"emits": predicate, "template": τ, "slot": X or null}`` (the predicate in the toolkit's syntax,
docs/cel-syntax.md) and ``{"bags_equal": [[τ…], [τ…]]}``. Every malformed input raises
:class:`~cer_theory.core.errors.AutomatonError` naming the place (``transitions[2].assign.m``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from cer_theory.automata.files import check_header, dumps
from cer_theory.core.aggregates import NULL, aggregator
from cer_theory.core.errors import AutomatonError, CerError
from cer_theory.core.outputs import write_output
from cer_theory.core.textfiles import loads_json, read_text_file
from cer_theory.formalisms.acel.acea import (ACEA, BagsEqual, Check, Combine, Const, Emits, Expr, Finish, Lift, Ref,
                                             Template, Transition, TypeIs)
from cer_theory.formalisms.cel.parser import is_name, parse_predicate

KIND = "acea"

# ---------------------------------------------------------------------------------------------- writing


def acea_to_json(a: ACEA) -> dict[str, Any]:
    """The JSON object of an ACEA (:meth:`ACEA.to_json`)."""
    return a.to_json()


def dumps_acea(a: ACEA) -> str:
    return dumps(a).rstrip("\n")


def save_acea(a: ACEA, path: str | Path) -> None:
    write_output(path, dumps(a))


# ---------------------------------------------------------------------------------------------- reading


def _fail(where: str, message: str) -> AutomatonError:
    return AutomatonError(f"{where}: {message}")


def _field(obj: Any, name: str, where: str, kind: type | tuple[type, ...]) -> Any:
    if not isinstance(obj, dict):
        raise _fail(where, f"expected an object, got {type(obj).__name__}")
    if name not in obj:
        raise _fail(where, f"missing field {name!r}")
    value = obj[name]
    if not isinstance(value, kind) or isinstance(value, bool):
        expected = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise _fail(f"{where}.{name}", f"expected {expected}, got {type(value).__name__}")
    return value


def _state(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(where, f"a state is an integer, got {value!r}")
    return value


def _function(name: Any, where: str) -> str:
    if not isinstance(name, str):
        raise _fail(where, f"an aggregate's name is a string, got {name!r}")
    try:
        aggregator(name)
    except CerError as e:
        raise _fail(where, str(e)) from None
    return name


def _read_value(v: Any, where: str) -> Any:
    if v is None:
        return NULL
    if isinstance(v, dict):
        if set(v) == {"inf"} and v["inf"] in ("+", "-"):
            return math.inf if v["inf"] == "+" else -math.inf
        if set(v) == {"tuple"} and isinstance(v["tuple"], list):
            return tuple(_read_value(x, f"{where}.tuple[{k}]") for k, x in enumerate(v["tuple"]))
        raise _fail(where, f"a constant is a number, string, boolean, null, {{\"inf\": \"+\"|\"-\"}} or "
                           f"{{\"tuple\": [...]}}, got {v!r}")
    if isinstance(v, (bool, int, float, str)):
        return v
    raise _fail(where, f"not a constant: {v!r}")


def _read_expr(e: Any, where: str) -> Expr:
    if not isinstance(e, dict) or len(e) == 0:
        raise _fail(where, f"an expression is an object with const, ref, combine, lift or finish, got {e!r}")
    if "const" in e:
        return Const(_read_value(e["const"], f"{where}.const"))
    if "ref" in e:
        if not isinstance(e["ref"], str) or not e["ref"]:
            raise _fail(f"{where}.ref", f"a register or attribute name, got {e['ref']!r}")
        return Ref(e["ref"])
    if "combine" in e:
        args = _field(e, "args", where, list)
        if len(args) != 2:
            raise _fail(f"{where}.args", f"combine takes two arguments, got {len(args)}")
        return Combine(_function(e["combine"], f"{where}.combine"), _read_expr(args[0], f"{where}.args[0]"),
                       _read_expr(args[1], f"{where}.args[1]"))
    for key, node in (("lift", Lift), ("finish", Finish)):
        if key in e:
            return node(_function(e[key], f"{where}.{key}"), _read_expr(e.get("arg"), f"{where}.arg"))
    raise _fail(where, f"unknown expression {sorted(e)}; expected const, ref, combine, lift or finish")


def _read_template(t: Any, where: str) -> Template:
    if not isinstance(t, dict):
        raise _fail(where, f"a template is an object output attribute → register, got {t!r}")
    fields = []
    for b, spec in t.items():
        if isinstance(spec, str):
            fields.append((b, spec, None))
        elif isinstance(spec, dict):
            fields.append((b, _field(spec, "register", f"{where}.{b}", str),
                           _function(spec.get("post"), f"{where}.{b}.post")))
        else:
            raise _fail(f"{where}.{b}", f"a register name or {{\"register\": r, \"post\": f}}, got {spec!r}")
    return Template(tuple(sorted(fields)))


def _read_check(c: Any, where: str) -> Check:
    if not isinstance(c, dict):
        raise _fail(where, f"a check is an object, got {c!r}")
    if "type_is" in c:
        pair = c["type_is"]
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
            raise _fail(f"{where}.type_is", f"expected [register, type], got {pair!r}")
        return TypeIs(pair[0], pair[1])
    if "emits" in c:
        text = _field(c, "emits", where, str)
        try:
            pred = parse_predicate(text)
        except CerError as e:
            raise _fail(f"{where}.emits", str(e)) from None
        slot = c.get("slot")
        if slot is not None and not is_name(slot):
            raise _fail(f"{where}.slot", f"a variable name or null, got {slot!r}")
        return Emits(pred, _read_template(c.get("template"), f"{where}.template"), slot)
    if "bags_equal" in c:
        pair = c["bags_equal"]
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, list) for x in pair)):
            raise _fail(f"{where}.bags_equal", f"expected two lists of templates, got {pair!r}")
        left, right = (tuple(_read_template(t, f"{where}.bags_equal[{s}][{k}]") for k, t in enumerate(side))
                       for s, side in enumerate(pair))
        return BagsEqual(left, right)
    raise _fail(where, f"unknown check {sorted(c)}; expected type_is, emits or bags_equal")


def acea_from_json(data: Any, *, source: str = "automaton") -> ACEA:
    """Build the ACEA a JSON object describes (see the module docstring)."""
    kind = check_header(data, source)
    if kind != KIND:
        raise _fail(f"{source}.kind", f"expected {KIND!r}, got {data.get('kind')!r}")
    states = [_state(q, f"{source}.states[{k}]") for k, q in enumerate(_field(data, "states", source, list))]
    initial = _state(data.get("initial"), f"{source}.initial")
    final = [_state(q, f"{source}.final[{k}]") for k, q in enumerate(_field(data, "final", source, list))]
    transitions = []
    for k, t in enumerate(_field(data, "transitions", source, list)):
        where = f"{source}.transitions[{k}]"
        src, dst = _state(_field(t, "from", where, int), f"{where}.from"), _state(_field(t, "to", where, int),
                                                                                  f"{where}.to")
        assign = {r: _read_expr(e, f"{where}.assign.{r}") for r, e in _field(t, "assign", where, dict).items()}
        checks = [_read_check(c, f"{where}.checks[{m}]") for m, c in enumerate(_field(t, "checks", where, list))]
        emit = {}
        for x, ts in _field(t, "emit", where, dict).items():
            if not is_name(x):
                raise _fail(f"{where}.emit", f"a mark is a variable name (a letter or _, then letters, digits and _; "
                                             f"not a keyword), got {x!r}")
            if not isinstance(ts, list):
                raise _fail(f"{where}.emit.{x}", f"expected a list of templates, got {type(ts).__name__}")
            emit[x] = [_read_template(tau, f"{where}.emit.{x}[{m}]") for m, tau in enumerate(ts)]
        transitions.append(Transition.make(src, assign, checks, emit, dst))
    name = data.get("name", "")
    try:
        return ACEA(frozenset(states), tuple(transitions), initial, frozenset(final),
                    name=name if isinstance(name, str) else "")
    except AutomatonError as e:
        raise _fail(source, str(e)) from None


def loads_acea(text: str, *, source: str = "automaton") -> ACEA:
    return acea_from_json(loads_json(text, source, AutomatonError), source=source)


def load_acea(path: str | Path) -> ACEA:
    """Read an ACEA file; the messages name the file."""
    return loads_acea(read_text_file(path, "automaton files", AutomatonError), source=str(path))


__all__ = ["KIND", "acea_from_json", "acea_to_json", "dumps_acea", "load_acea", "loads_acea", "save_acea"]
