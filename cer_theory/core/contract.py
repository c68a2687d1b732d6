"""The output contract: what ``cer-theory eval`` prints and ``Formula.evaluate(…).json_lines()`` returns, for every
formalism of the registry alike (docs/output-contract.md; decision D380).

One JSON object per stream position that has outputs, in increasing position::

    {"position": 8, "kind": "complex_events", "outputs": [[1, 8], [5, 8]]}

``position`` is the 0-based position ``n`` of the stream at which the outputs are known (the CEL paper's ``n``, the
SRT paper's ``k``, the end of an ACEL or CEQL complex event's interval); ``kind`` names the output level (a
:class:`~cer_theory.core.protocols.Level`'s ``key``: ``complex_events``, ``valuations``, ``matches``, ``rows``);
``outputs`` lists that position's outputs in the level's canonical order (its ``sort_key``), each in the level's
JSON form. Nothing else is printed: no line for a position without outputs, no other key.

Each level's JSON form is documented by a JSON Schema shipped with the formalism's package (the ``$defs`` entry
named by the level's ``key`` in the file a :class:`Level` names by ``schema``); :func:`schema` puts a record's
levels into the envelope of ``core/schemas/eval-line.schema.json``, giving the schema every line of
``eval --logic NAME`` satisfies (``cer-theory logics --schema NAME`` prints it).

:class:`OutputSet` is the same canonical order for a Python reader: the outputs of one position, a frozenset whose
``repr`` lists them sorted, so a notebook prints ``{{1,8}, {5,8}}`` whatever the set's hash order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (types only: protocols imports this module)
    from cer_theory.core.protocols import Formalism, Level

KEYS = ("position", "kind", "outputs")
"""The envelope's keys, in the order they are printed."""

ENVELOPE = "core/schemas/eval-line.schema.json"
"""The envelope's schema, a path inside the package."""


@cache
def packaged_schema(path: str) -> dict[str, Any]:
    """A JSON Schema shipped in the package (``path`` inside ``cer_theory``), read once."""
    from importlib import resources  # (a few ms of every start-up otherwise: `cer-theory run` reads no schema)

    loaded: dict[str, Any] = json.loads(resources.files("cer_theory").joinpath(path).read_text(encoding="utf-8"))
    return loaded


def payload_schema(level: Level) -> dict[str, Any]:
    """The JSON Schema of one output of ``level`` (its ``$defs`` entry in the file ``level.schema`` names)."""
    if level.schema is None:
        return {"description": f"{level.name}: no schema declared"}
    payload: dict[str, Any] = packaged_schema(level.schema)["$defs"][level.key]
    return payload


def schema(record: Formalism) -> dict[str, Any]:
    """The JSON Schema every line of ``cer-theory eval --logic NAME`` satisfies: the envelope, with ``kind`` one of
    the record's level keys and ``outputs`` the items of that level's payload schema."""
    envelope: dict[str, Any] = json.loads(json.dumps(packaged_schema(ENVELOPE)))  # a deep copy: the cache stays
    envelope["$id"] = f"urn:cer-theory:eval-line:{record.name}"
    envelope["title"] = f"A line of cer-theory eval --logic {record.name} ({record.paper})"
    envelope["properties"]["kind"]["enum"] = [lv.key for lv in record.levels]
    envelope["oneOf"] = [{"properties": {"kind": {"const": lv.key},
                                         "outputs": {"items": {"$ref": f"#/$defs/{lv.key}"}}}}
                         for lv in record.levels]
    defs: dict[str, Any] = {}
    for lv in record.levels:  # the files' other $defs too: a payload may refer to them ("#/$defs/…")
        defs.update(packaged_schema(lv.schema)["$defs"] if lv.schema is not None else {})
        defs[lv.key] = payload_schema(lv)
    envelope["$defs"] = defs
    return envelope


def json_order(value: Any) -> tuple[Any, ...]:
    """A sort key ordering any JSON values totally, numbers as numbers (``2 < 10``, where JSON text has
    ``"10" < "2"``): null < booleans < numbers < strings < arrays (element by element) < objects (their items in key
    order). For a level whose outputs have no order of their own (SQL's rows: partition keys and measures)."""
    if value is None:
        return (0,)
    if isinstance(value, bool):
        return (1, value)
    if isinstance(value, (int, float)):
        return (2, value)
    if isinstance(value, str):
        return (3, value)
    if isinstance(value, (list, tuple)):
        return (4, tuple(json_order(v) for v in value))
    if isinstance(value, dict):
        return (5, tuple((k, json_order(value[k])) for k in sorted(value)))
    return (6, str(value))


def envelope(level: Level, n: int, outputs: Iterable[Any]) -> dict[str, Any]:
    """The line of position ``n``: ``{"position": n, "kind": level.key, "outputs": [...]}``, the outputs sorted by
    the level's ``sort_key`` and written by its ``to_json``."""
    return {"position": n, "kind": level.key,
            "outputs": [level.to_json(x) for x in sorted(outputs, key=level.sort_key)]}


def show(x: Any) -> str:
    """One output as text: its own ``repr``, except a plain set of positions (SREMO's and FO-CEL's matches), which
    is written ``{3,4}`` in increasing order, as the other formalisms' complex events are."""
    if type(x) in (frozenset, set):
        try:
            return "{" + ",".join(map(repr, sorted(x))) + "}"
        except TypeError:  # not comparable: keep Python's own
            return repr(x)
    return repr(x)


class OutputSet(frozenset):  # type: ignore[type-arg]
    """The outputs of one position: a frozenset (equal to any frozenset of the same outputs) whose ``repr`` lists
    them in the level's canonical order, e.g. ``{{1,8}, {5,8}}``."""

    __slots__ = ("_key",)
    _key: Callable[[Any], Any] | None

    def __new__(cls, items: Iterable[Any] = (), key: Callable[[Any], Any] | None = None) -> OutputSet:
        self = super().__new__(cls, items)
        self._key = key
        return self

    def __repr__(self) -> str:
        try:
            ordered = sorted(self, key=self._key) if self._key is not None else sorted(self, key=show)
        except TypeError:
            ordered = sorted(self, key=show)
        return "{" + ", ".join(show(x) for x in ordered) + "}"

    __str__ = __repr__

    def __reduce__(self) -> tuple[Any, ...]:
        return (OutputSet, (list(self),))


class Observed(list):  # type: ignore[type-arg]
    """What :meth:`Formula.evaluate` returns: ``result[n]`` the :class:`OutputSet` of position ``n``, and
    :meth:`json_lines`, the same outputs as the lines ``cer-theory eval`` prints."""

    def __init__(self, level: Level, outputs: Iterable[OutputSet]) -> None:
        super().__init__(outputs)
        self.level = level

    def json_lines(self) -> list[dict[str, Any]]:
        """One envelope per position with outputs (the module docstring), as ``eval`` prints them."""
        return [envelope(self.level, n, out) for n, out in enumerate(self) if out]


__all__ = ["ENVELOPE", "KEYS", "Observed", "OutputSet", "envelope", "packaged_schema", "json_order", "payload_schema",
           "schema", "show"]
