"""The data model: events, streams (JSON Lines and CSV), complex events and valuations, and their errors."""

from __future__ import annotations

import json

import pytest
from hypothesis import given

from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import ComplexEvent, Event, Stream, Valuation
from cer_theory.streams.rows import load, read_jsonl
from cer_theory.testing.strategies import streams


def test_event_is_immutable_hashable_and_typed() -> None:
    e = Event("H", id=2, hum=25)
    assert e.type == "H" and e["hum"] == 25 and e.get("tmp") is None and e.get("type") == "H"
    assert e == Event("H", {"hum": 25, "id": 2}) and hash(e) == hash(Event("H", hum=25, id=2))
    assert Event("H", b=True) != Event("H", b=1)  # a boolean is not a number
    with pytest.raises(AttributeError):
        e.type = "T"  # type: ignore[misc]
    with pytest.raises(KeyError):
        e["tmp"]


@pytest.mark.parametrize("bad,field", [
    ({"id": 1}, "type"),
    ({"type": "", "id": 1}, "type"),
    ({"type": 3}, "type"),
    ({"type": "H", "v": [1, 2]}, "v"),
    ({"type": "H", "v": {"a": 1}}, "v"),
    ({"type": "H", "bad name": 1}, "bad name"),
    ({"type": "H", "v": float("nan")}, "v"),
])
def test_malformed_event_names_the_field(bad: dict, field: str) -> None:
    with pytest.raises(StreamFormatError) as info:
        read_jsonl([json.dumps(bad)])
    assert info.value.field == field and info.value.line == 1
    assert f"field {field!r}" in str(info.value)


def test_jsonl_errors_name_the_line() -> None:
    text = '{"type": "R", "x": 1}\n\n{"type": "T", "x": }\n'
    with pytest.raises(StreamFormatError, match=r"line 3: invalid JSON"):
        read_jsonl(text)
    with pytest.raises(StreamFormatError, match=r"line 2: expected an object"):
        read_jsonl('{"type": "R"}\n[1, 2]\n')


def test_jsonl_null_means_absent() -> None:
    s = read_jsonl('{"type": "R", "x": null, "y": 2}\n')
    assert s[0] == Event("R", y=2)


def test_csv_loading_and_errors(tmp_path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("type,x,name,flag\nR,1,a,true\nT,,b,false\nU,2.5,-3,\n")
    s = load(path)
    assert list(s) == [Event("R", x=1, name="a", flag=True), Event("T", name="b", flag=False),
                       Event("U", x=2.5, name=-3)]
    path.write_text("kind,x\nR,1\n")
    with pytest.raises(StreamFormatError, match=r"line 1, field 'type': the header has no 'type' column"):
        load(path)
    path.write_text("type,x\nR,1,2\n")
    with pytest.raises(StreamFormatError, match=r"line 2: expected 2 cells, found 3"):
        load(path)
    path.write_text("type,x\n,1\n")
    with pytest.raises(StreamFormatError, match=r"line 2, field 'type'"):
        load(path)
    with pytest.raises(StreamFormatError, match="no such file"):
        load(tmp_path / "missing.jsonl")


@given(streams(max_length=6))
def test_jsonl_round_trip(stream: Stream) -> None:
    assert read_jsonl(stream.to_jsonl()) == stream


def test_stream_slicing_and_types() -> None:
    s = Stream.from_types("R T R")
    assert s.types() == "R T R" and len(s) == 3 and isinstance(s[1:], Stream) and s[1:].types() == "T R"


def test_valuation_operations() -> None:
    mu = Valuation({"A": [1, 2], "B": [], "C": [5]})
    assert set(mu) == {"A", "C"} and mu["B"] == frozenset() and mu == Valuation({"C": {5}, "A": {2, 1}})
    assert mu.support() == ComplexEvent({1, 2, 5}) and isinstance(mu.support(), ComplexEvent)
    assert mu.assign("A", []) == Valuation({"C": [5]})
    assert mu.union(Valuation({"A": [7]}))["A"] == {1, 2, 7}
    assert mu.restrict(["A"]) == Valuation({"A": [1, 2]})
    assert mu.shift(2) == Valuation({"A": [3, 4], "C": [7]})
    assert mu.to_json() == {"A": [1, 2], "C": [5]} and repr(mu) == "{A↦{1,2}, C↦{5}}"
    assert Valuation().support() == ComplexEvent() and ComplexEvent().start is None


def test_complex_event_views() -> None:
    c = ComplexEvent({4, 1})
    s = Stream.from_types("R T R U V")
    assert c.positions == (1, 4) and (c.start, c.end) == (1, 4) and [e.type for e in c.events(s)] == ["T", "V"]
