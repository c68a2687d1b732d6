"""UCEA files (the SO-CEL paper §4) in the one automaton file format (docs/automaton-files.md): the fields of a CEA
file with ``"kind": "ucea"``; a ``"cea"`` file is read as a UCEA too when a UCEA is asked for (the same fields).

Reading is :func:`cer_theory.formalisms.cel.automaton_file.read_cea` with the UCEA class, writing
:meth:`CEA.to_json`; ``io_deterministic=True`` also requires I/O-determinism (the SO-CEL paper §4) and names the
overlapping transitions otherwise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cer_theory.automata.cea import CEA
from cer_theory.automata.files import MAX_STATE_DIGITS, check_header, dumps
from cer_theory.core.errors import AutomatonError
from cer_theory.core.outputs import write_output
from cer_theory.core.textfiles import loads_json, read_text_file
from cer_theory.formalisms.cel.automaton_file import read_cea
from cer_theory.formalisms.socel.ucea import UCEA

KINDS = {"ucea": UCEA, "cea": CEA}


def automaton_to_json(a: CEA) -> dict[str, Any]:
    """The JSON object of an automaton (:meth:`CEA.to_json`)."""
    return a.to_json()


def dumps_automaton(a: CEA) -> str:
    return dumps(a).rstrip("\n")


def save_automaton(a: CEA, path: str | Path) -> None:
    write_output(path, dumps(a))


def read_ucea(data: Any, *, source: str = "automaton") -> UCEA:
    """A ``ucea`` file (the registry's reader of the kind)."""
    return read_cea(data, source=source, model=UCEA)  # type: ignore[return-value]


def automaton_from_json(data: Any, *, source: str = "automaton", io_deterministic: bool = False) -> CEA:
    """Build the automaton a JSON object describes, a UCEA or a CEA as its ``kind`` says (``ucea`` by default);
    ``io_deterministic=True`` also requires I/O-determinism (the SO-CEL paper §4)."""
    kind = check_header(data, source, default_kind="ucea")
    if kind not in KINDS:
        raise AutomatonError(f"{source}.kind: expected one of {sorted(KINDS)}, got {kind!r}")
    a = read_cea(data, source=source, model=KINDS[kind])
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


__all__ = ["automaton_to_json", "automaton_from_json", "dumps_automaton", "loads_automaton", "read_ucea",
           "save_automaton", "load_automaton"]
