"""CORE's C++ engine (``pycer``, its Python binding) behind the conformance protocol: run as a script,
``python pycer_driver.py``, under the CPython 3.13 that has pycer; it reads cases as JSON lines on stdin and
writes one answer line per case (:mod:`cer_theory.conformance.protocol`).

Standard library only: this file runs in an interpreter without cer_theory. Three things make CORE's output
comparable with positions (the CORE paper, *CORE*, §2):

* every event type gets a hidden first attribute :data:`POSITION` holding the event's position, so the events
  CORE prints for a complex event name their positions (CORE prints attribute values, not positions);
* CORE reports ``[start, end]`` as *primary times*, in nanoseconds. Without a duration window the primary time is
  the position itself, so ``[start, end]`` are positions. Under a duration window (``WITHIN n SECONDS|MINUTES|
  HOURS``) over whole seconds, the primary time of position ``p`` is ``time · 10⁹ + p`` nanoseconds, so
  ``[start, end]`` name their positions exactly (``p = stamp mod 10⁹``), also between events with equal ``time``;
  the window sent is then ``WITHIN w + 1 SECONDS`` for a window of ``w`` seconds, since CORE's duration window is
  inclusive: ``(t' − t)·10⁹ + (p' − p) ≤ (w + 1)·10⁹`` holds for ``p < p'`` (and ``p' − p < 10⁹``) iff
  ``t' − t ≤ w``, the window as written (docs/decisions.md D135). Other times (fractions of a second), and
  ``WITHIN n [attr]``, under which CORE prints the values of ``attr``, are mapped back from the values: ``end``
  to the first position ≥ the last data position with that value, ``start`` to the first data position when its
  value matches, else to the last earlier position with that value (under ties and a projection this can pick
  another position);
* a declared ``primary_time`` attribute is sent as an integer like any other: the offline server takes an
  event's time from the third argument of ``PyEvent`` (without it, from the wall clock), never from it;
* one ``PyOfflineServer`` per case: ``get_output()`` ends the evaluation.

Nothing CORE says is dropped or turned into an answer (docs/decisions.md D190). Everything it prints on file
descriptors 1 and 2 during a case is captured; apart from its start-up line ``Logging to file: …``, any of it is
a message about the case. CORE refuses a query it cannot compile in two ways: ``add_query`` raises (a syntax
error, an undeclared attribute), or it prints "Failed to process client request." and ``get_output()`` then
returns ``Exception: Invalid argument`` (pycer 0.1.6 does this for every set literal: ``IN {…}``, ``NOT IN``,
ranges). Both are answered ``{"refused": …}`` with CORE's words. Any other message, an exception raised later,
or an output line that is not a complex event as CORE prints it (``[start,end], ((id: … attributes: [… ]) …)``)
is answered ``{"error": …}``. An abort of the engine ends this process, which the harness reports as an engine
error.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from typing import Any

POSITION = "conformance_pos"
COMPLEX_EVENT = re.compile(r"\[(-?\d+),(-?\d+)\], \((.*)\)")
"""A complex event as CORE prints it: ``[start,end], (`` its events ``)``, each ``(id: T attributes: [v … ])``."""
EVENT = re.compile(r"\(id: \d+ attributes: \[(-?\d+) ")
"""One printed event, its first attribute (the hidden position)."""
INFORMATIONAL = re.compile(r"Logging to file: \S+")
"""The one line CORE prints that is not about the case (each server announces its log file)."""
DURATION = re.compile(r"\bWITHIN\b[^\[]*?\b(SECONDS?|MINUTES?|HOURS?)\b", re.IGNORECASE)
ATTRIBUTE_WINDOW = re.compile(r"\bWITHIN\s+[0-9.eE+-]+\s*\[\s*`?(\w+)`?\s*\]", re.IGNORECASE)
WHOLE_DURATION = re.compile(r"\bWITHIN\s+(\d+)\s*(SECOND|MINUTE|HOUR)S?\b", re.IGNORECASE)
NANOS = 1_000_000_000
UNIT_SECONDS = {"second": 1, "minute": 60, "hour": 3600}


def hidden_declarations(schema: dict) -> str:
    """CREATE STREAM text for the schema with the hidden position attribute first in every event type."""
    streams = []
    for sname, events in schema.items():
        body = ", ".join(f"EVENT {t} {{ " + ", ".join([f"{POSITION}:int"] + [f"{a}:{k}" for a, k in attrs.items()])
                         + " }" for t, attrs in events.items())
        streams.append(f"CREATE STREAM {sname} {{ {body} }}")
    return "\n".join(streams)


class Refused(Exception):
    """CORE does not accept the query (the module docstring)."""


class Failed(Exception):
    """CORE reported an error about the case, or printed what this driver cannot read."""


class Captured:
    """File descriptors 1 and 2 sent to a scratch file while CORE works, so that what it prints (from C++ or
    its own threads) is read back as text (:meth:`take`) instead of reaching the harness's streams."""

    def __init__(self) -> None:
        self.file = tempfile.TemporaryFile(mode="w+b")
        self.saved = (os.dup(1), os.dup(2))
        self.read_to = 0

    def __enter__(self) -> Captured:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(self.file.fileno(), 1)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)

    def take(self) -> str:
        """What was printed since the last call, less CORE's informational lines."""
        self.file.seek(self.read_to)
        data = self.file.read()
        self.read_to += len(data)
        lines = [line.strip() for line in data.decode("utf-8", "replace").replace("\r", "\n").split("\n")]
        return " | ".join(line for line in lines if line and not INFORMATIONAL.fullmatch(line))


def evaluate(request: dict, captured: Captured) -> list[dict]:
    """The complex events CORE gives for the request; :class:`Refused` or :class:`Failed` otherwise."""
    import pycer

    makers = {"int": pycer.PyIntValue, "primary_time": pycer.PyIntValue, "double": pycer.PyDoubleValue, "string": pycer.PyStringValue,
              "bool": pycer.PyBoolValue, "boolean": pycer.PyBoolValue}
    server = pycer.PyOfflineServer()
    types: dict[str, tuple[int, list[tuple[str, Any]]]] = {}
    for sname, events in request["schema"].items():
        info = server.declare_stream(hidden_declarations({sname: events}))
        for e in info.events_info:
            attrs = events[e.name]
            types[e.name] = (e.id, [(a, makers[k.lower()]) for a, k in attrs.items()])
    said = captured.take()
    if said:
        raise Failed(f"declaring the streams: {said}")
    query, events = request["query"], request["events"]
    timed = DURATION.search(query) is not None
    whole = WHOLE_DURATION.search(query)
    exact = (timed and whole is not None and len(events) < NANOS
             and all(isinstance(e.get("time"), int) and not isinstance(e.get("time"), bool) for e in events))
    if exact:  # the primary time also names the position: see the module docstring
        assert whole is not None
        seconds = int(whole.group(1)) * UNIT_SECONDS[whole.group(2).lower()]
        query = query[:whole.start()] + f"WITHIN {seconds + 1} SECONDS" + query[whole.end():]
    try:
        server.add_query(query)
    except Exception as exc:  # noqa: BLE001 - pycer's exceptions (PyParsingSyntaxException, …) refuse the query
        raise Refused(f"{type(exc).__name__}: {' '.join(str(exc).split())}") from None
    refusal = captured.take()
    by_attribute = ATTRIBUTE_WINDOW.search(request["query"])
    stamps = None  # what CORE prints as [start, end], per position, when it is not the position
    if by_attribute is not None:
        stamps = [_number(e.get(by_attribute.group(1))) for e in events]
    elif timed and not exact:
        stamps = [_number(e.get("time"), NANOS) for e in events]
    batch = []
    for p, e in enumerate(events):
        tid, attrs = types[e["type"]]
        values = [pycer.PyIntValue(p)] + [make(e[a]) for a, make in attrs]
        stamp = e["time"] * NANOS + p if exact else int(round(e["time"] * NANOS)) if timed else p
        batch.append(pycer.PyEvent(tid, values, pycer.PyIntValue(stamp)))
    server.send_events(batch)
    output = server.get_output()
    said = captured.take()
    if refusal:  # "Failed to process client request.": get_output() then says why (Exception: Invalid argument)
        raise Refused("; ".join(x for x in (refusal, said, " | ".join(output.split("\n")).strip(" |")) if x))
    if said:
        raise Failed(f"CORE printed: {said}")
    out = []
    for line in output.splitlines():
        m = COMPLEX_EVENT.fullmatch(line.strip())
        if m is None or m.group(3).count("(id: ") != len(EVENT.findall(m.group(3))):
            raise Failed(f"an output line that is not a complex event: {line.strip()[:160]!r}")
        positions = sorted(int(x) for x in EVENT.findall(m.group(3)))
        start, end = int(m.group(1)), int(m.group(2))
        if exact:
            start, end = start % NANOS, end % NANOS
        elif stamps is not None:
            start, end = _back(start, end, positions, stamps)
        out.append({"start": start, "end": end, "positions": positions})
    return out


def _number(value: Any, scale: int = 1) -> int | None:
    return None if value is None or isinstance(value, (str, bool)) else int(round(value * scale))


def _back(start: int, end: int, positions: list[int], stamp: list) -> tuple[int, int]:
    """Times or attribute values → positions (the module docstring)."""
    last = positions[-1] if positions else 0
    e = next((p for p in range(last, len(stamp)) if stamp[p] == end), last)
    first = positions[0] if positions else e
    if stamp[first] == start:
        s = first
    else:
        s = next((p for p in range(first, -1, -1) if stamp[p] == start), first)
    return s, e


def main() -> int:
    answers = os.fdopen(os.dup(1), "w")  # the answers' own copy of stdout: CORE's prints go to the capture
    captured = Captured()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        ident = request.get("id")
        try:
            with captured:
                answer = {"id": ident, "complex_events": evaluate(request, captured)}
        except Refused as exc:
            answer = {"id": ident, "refused": str(exc)}
        except Exception as exc:  # noqa: BLE001 - every other failure is an answer about this case
            said = captured.take()
            answer = {"id": ident, "error": f"{type(exc).__name__}: {exc}" + (f"; CORE printed: {said}" if said
                                                                              and not isinstance(exc, Failed) else "")}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
