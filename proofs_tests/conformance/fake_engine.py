"""A deliberately buggy engine speaking the conformance protocol (docs/conformance.md), for the harness's tests.

It runs the tECS engine but **drops every complex event holding an event whose ``s`` is 'a1'** (the injected
bug). ``--abort-on-plus`` makes it abort (as a C++ engine would) on any query with ``+``.

    python fake_engine.py [--abort-on-plus]   < requests.jsonl > answers.jsonl
"""

import json
import os
import sys

from cer_theory.engines.core.engine import Engine


def answer(request: dict) -> dict:
    events = request["events"]
    out = []
    for match in Engine(request["query"]).process(events):
        ce = match.complex_event
        if any(events[p].get("s") == "a1" for p in ce.positions):
            continue  # the injected bug
        out.append({"start": ce.start, "end": ce.end, "positions": list(ce.positions)})
    return {"id": request["id"], "complex_events": out}


def main() -> int:
    abort_on_plus = "--abort-on-plus" in sys.argv
    for line in sys.stdin:
        request = json.loads(line)
        if abort_on_plus and "+" in request["query"]:
            os.abort()
        try:
            reply = answer(request)
        except Exception as exc:  # noqa: BLE001 - the protocol's error answer
            reply = {"id": request["id"], "error": str(exc)}
        print(json.dumps(reply), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
