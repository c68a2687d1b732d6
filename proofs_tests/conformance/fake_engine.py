"""A deliberately buggy engine speaking the conformance protocol (docs/conformance.md), for the harness's tests.

It runs the tECS engine but **drops every complex event holding an event whose ``s`` is 'a1'** (the injected
bug). ``--abort-on-plus`` makes it abort (as a C++ engine would) on any query with ``+``. The other flags make it
report trouble in each way an engine can, on every query with ``OR``: ``--error-on-or`` answers an error line,
``--refuse-on-or`` a refusal, ``--complain-on-or`` answers and also writes on stderr, ``--unparseable-on-or``
answers a line that is not JSON, ``--no-events-on-or`` an object without complex events; ``--exit-1`` ends with
exit status 1.

    python fake_engine.py [FLAG …]   < requests.jsonl > answers.jsonl
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
    flags = set(sys.argv[1:])
    for line in sys.stdin:
        request = json.loads(line)
        if "--abort-on-plus" in flags and "+" in request["query"]:
            os.abort()
        try:
            reply = answer(request)
        except Exception as exc:  # noqa: BLE001 - the protocol's error answer
            reply = {"id": request["id"], "error": str(exc)}
        if " OR " in request["query"]:
            if "--error-on-or" in flags:
                reply = {"id": request["id"], "error": "Exception: Invalid argument"}
            if "--refuse-on-or" in flags:
                reply = {"id": request["id"], "refused": "OR is not supported"}
            if "--complain-on-or" in flags:
                print("warning: OR evaluated approximately", file=sys.stderr, flush=True)
            if "--unparseable-on-or" in flags:
                print("Failed to process client request.", flush=True)
                continue
            if "--no-events-on-or" in flags:
                reply = {"id": request["id"]}
        print(json.dumps(reply), flush=True)
    return 1 if "--exit-1" in flags else 0


if __name__ == "__main__":
    sys.exit(main())
