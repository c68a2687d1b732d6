"""Reproduces a CORE finding with pycer alone: python repro.py (CPython 3.13, pip install pycer)."""
import json

import pycer

DECLARATIONS = "CREATE STREAM S { EVENT R { x:int }, EVENT T { x:int }, EVENT U { x:int } }"
SCHEMA = {"S": {"R": {"x": "int"}, "T": {"x": "int"}, "U": {"x": "int"}}}
QUERY = "SELECT * FROM S WHERE R FILTER R[x IN {0}]"
EVENTS = [{"type": "R", "x": 0}]

MAKE = {"int": pycer.PyIntValue, "double": pycer.PyDoubleValue, "string": pycer.PyStringValue,
        "bool": pycer.PyBoolValue}
server = pycer.PyOfflineServer()
ids = {}
for stream in SCHEMA:
    info = server.declare_stream(DECLARATIONS)
    ids.update({e.name: e.id for e in info.events_info})
    break  # one CREATE STREAM
server.add_query(QUERY)
attrs = {t: list(a.items()) for s in SCHEMA.values() for t, a in s.items()}
batch = []
for position, e in enumerate(EVENTS):
    stamp = e["time"] * 1_000_000_000 if False else position  # primary time
    values = [MAKE[kind](e[name]) for name, kind in attrs[e["type"]]]
    batch.append(pycer.PyEvent(ids[e["type"]], values, pycer.PyIntValue(stamp)))
server.send_events(batch)
print(server.get_output())
