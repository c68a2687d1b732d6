"""Automata as files: one versioned JSON format for every automaton model a formalism registers (docs/automaton-files.md,
decision D382).

Every file is one JSON object that starts with the same header::

    {"format": "cer-theory-automaton", "version": 1, "kind": "cea", "name": "T ; H", ...}

``kind`` names the model (``cea``: the CEL paper Def. 5.1; ``ucea``: the SO-CEL paper §4; ``acea``: the ACEL paper §6;
``srt``: the SRT paper Def. 21);
the rest is the model's own fields, each described by ``$defs[kind]`` of the JSON Schema shipped in the package
(``automata/schemas/automaton.schema.json``). Files written before the header existed (``kind`` only, as the exercise
bank's) are read as version 1.

Writing is each model's ``to_json()``; reading dispatches on ``kind`` to the reader a formalism record declares
(:attr:`~cer_theory.core.protocols.Formalism.automaton_files`), so this module lists no model and no formalism.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cer_theory.core.contract import packaged_schema
from cer_theory.core.errors import AutomatonError
from cer_theory.core.lazy import resolve
from cer_theory.core.textfiles import loads_json, read_text_file

FORMAT = "cer-theory-automaton"
VERSION = 1
SCHEMA = "automata/schemas/automaton.schema.json"

MAX_STATE_DIGITS = 100
"""An integer state id is an identifier, not a quantity: longer ones are refused (naming the field) rather than
converted."""


def header(kind: str, name: str) -> dict[str, Any]:
    """The first fields of every file: format, version, kind and the automaton's name."""
    return {"format": FORMAT, "version": VERSION, "kind": kind, "name": name}


def check_header(data: Any, source: str, default_kind: str | None = None) -> str:
    """The ``kind`` of a file's object, after checking its header: ``format`` and ``version``, when present, must be
    this format's (a file of a newer version is refused by name, not misread); a file without them is version 1."""
    if not isinstance(data, dict):
        raise AutomatonError(f"{source}: expected a JSON object, got {type(data).__name__}")
    if "format" in data and data["format"] != FORMAT:
        raise AutomatonError(f"{source}.format: expected {FORMAT!r}, got {data['format']!r}")
    version = data.get("version", VERSION)
    if type(version) is not int or version != VERSION:
        raise AutomatonError(f"{source}.version: this cer_theory reads version {VERSION} of {FORMAT}, got "
                             f"{version!r} (a newer cer_theory wrote it?)")
    kind = data.get("kind", default_kind)
    if not isinstance(kind, str):
        raise AutomatonError(f"{source}.kind: expected one of {', '.join(sorted(readers()))}, got {kind!r}")
    return kind


def readers() -> dict[str, Any]:
    """Every automaton kind a registered formalism reads from a file, with its reader (a reference)."""
    records = resolve("cer_theory.core.protocols:records")  # (the registry loads when a file is read, not with CEA)
    return {kind: ref for record in records() for kind, ref in record.automaton_files.items()}


def from_json(data: Any, *, source: str = "automaton") -> Any:
    """The automaton a file's JSON object describes, by the reader its ``kind`` names; :class:`AutomatonError`
    naming the field otherwise."""
    kind = check_header(data, source)
    known = readers()
    if kind not in known:
        raise AutomatonError(f"{source}.kind: expected one of {', '.join(sorted(known))}, got {kind!r}")
    return resolve(known[kind])(data, source=source)


def loads(text: str, *, source: str = "automaton") -> Any:
    return from_json(loads_json(text, source, AutomatonError, max_int_digits=MAX_STATE_DIGITS), source=source)


def load(path: str | Path) -> Any:
    """Read an automaton file of any registered kind; the messages name the file."""
    return loads(read_text_file(path, "automaton files", AutomatonError), source=str(path))


def dumps(automaton: Any, *, name: str | None = None) -> str:
    """The file's text: the model's ``to_json()`` with one field per line and one transition per line, so a student
    edits a transition where it stands; non-ASCII kept (``≥`` in a guard stays readable). ``name`` replaces an
    empty name (a compiled automaton's caption: its formula)."""
    to_json = getattr(automaton, "to_json", None)
    if to_json is None:
        raise AutomatonError(f"{type(automaton).__name__} has no file format (docs/automaton-files.md lists the "
                             f"models that have one)")
    data = to_json()
    if name and not data.get("name"):
        data["name"] = name

    def line(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    fields = [f" {line(k)}: {line(v)}" for k, v in data.items() if k != "transitions"]
    moves = ",\n".join(f"  {line(t)}" for t in data.get("transitions", []))
    fields.append(f' "transitions": [\n{moves}\n ]' if moves else ' "transitions": []')
    return "{\n" + ",\n".join(fields) + "\n}\n"


def schema() -> dict[str, Any]:
    """The JSON Schema of automaton files (every kind), as shipped."""
    return packaged_schema(SCHEMA)


__all__ = ["FORMAT", "MAX_STATE_DIGITS", "SCHEMA", "VERSION", "check_header", "dumps", "from_json", "header", "load",
           "loads", "readers", "schema"]
