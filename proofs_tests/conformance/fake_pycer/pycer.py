"""A stand-in for CORE's ``pycer`` binding (the part the conformance driver and the benchmark worker call), for
the harness's tests on any Python: put this folder first on ``PYTHONPATH``.

It evaluates with our tECS engine and prints complex events as CORE does (``[start,end], ((id: T attributes:
[v … ]) …)``, start and end as primary times), announces its log file on stderr as CORE does, and behaves as
``$FAKE_PYCER`` says:

* (unset) — refuses a query with a set literal as pycer 0.1.6 does: "Failed to process client request." on
  stdout during ``add_query``, then ``get_output()`` returns ``Exception: Invalid argument``;
* ``garbage`` — adds an output line that is not a complex event;
* ``stderr`` — complains on stderr while it evaluates, and answers correctly;
* ``raise`` — ``send_events`` raises;
* ``cost`` — evaluates nothing and answers nothing, but ``send_events`` takes ``$FAKE_PYCER_COST`` seconds per
  event, in a background thread as CORE's server does, and ``get_output`` waits for it (the benchmark's test).
"""

import os
import sys
import threading
import time
from types import SimpleNamespace



def _mode() -> str:
    return os.environ.get("FAKE_PYCER", "")


class _Value:
    def __init__(self, value):
        self.value = value


PyIntValue = PyDoubleValue = PyStringValue = PyBoolValue = _Value


class PyEvent:
    def __init__(self, type_id, values, stamp=None):
        self.type_id, self.values, self.stamp = type_id, [v.value for v in values], stamp


class PyParsingSyntaxException(Exception):
    pass


class PyOfflineServer:
    def __init__(self):
        print("Logging to file: logs/logfile.log", file=sys.stderr, flush=True)
        self.types, self.query, self.refused, self.events = [], None, False, []
        self.worker = None

    def declare_stream(self, text):
        from cer_theory.formalisms.ceql.parser import parse_declarations

        infos = []
        for declaration in parse_declarations(text):
            for name, attrs in declaration.events.items():
                infos.append(SimpleNamespace(name=name, id=len(self.types)))
                self.types.append((name, list(attrs)))
        return SimpleNamespace(events_info=infos)

    def add_query(self, text):
        if "SELECT" not in text:
            raise PyParsingSyntaxException("Syntax error: <EOF>\nLine: 1")
        if " IN {" in text:
            sys.stdout.write("Failed to process client request.")
            sys.stdout.flush()
            self.refused = True
        self.query = text
        return 0

    def send_events(self, events):
        if _mode() == "raise":
            raise RuntimeError("the fake engine's send_events fails")
        if _mode() == "cost":
            cost = float(os.environ["FAKE_PYCER_COST"]) * len(events)
            self.worker = threading.Thread(target=time.sleep, args=(cost,))
            self.worker.start()
            return
        self.events += events

    def get_output(self):
        if self.worker is not None:
            self.worker.join()
        if _mode() == "cost":
            return ""
        if self.refused:
            return "Exception: Invalid argument\n"
        from cer_theory.engines.core.engine import Engine

        dicts = [{"type": self.types[e.type_id][0], **dict(zip(self.types[e.type_id][1], e.values))}
                 for e in self.events]
        if _mode() == "stderr":
            print("warning: the fake engine is unwell", file=sys.stderr, flush=True)
        lines = []
        for match in Engine(self.query).process(dicts):
            ce = match.complex_event
            shown = " ".join(f"(id: {self.events[p].type_id} attributes: [{' '.join(map(str, self.events[p].values))} ])"
                             for p in ce.positions)
            lines.append(f"[{self.events[ce.start].stamp.value},{self.events[ce.end].stamp.value}], ({shown} )")
        if _mode() == "garbage":
            lines.append("Warning: a line that is not a complex event")
        return "".join(line + "\n" for line in lines)
