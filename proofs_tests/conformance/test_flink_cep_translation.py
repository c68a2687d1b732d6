"""The ``flink-cep`` dialect on the reference side (no Java, no Flink): each stated correspondence between a CEQL
construct and a Flink CEP construct holds on the executable model of Flink CEP's documented semantics
(:func:`cer_theory.conformance.cep.model_matches`), and each stated departure is real (docs/conformance.md,
"Flink CEP"; decisions D370–D375)."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from cer_theory.conformance.adapters import ReferenceAdapter
from cer_theory.conformance.cep import CepPattern, Quantifier, Stage, holds, model_matches
from cer_theory.conformance.cep_translate import DECLARATIONS, Untranslatable, complex_events, \
    model_complex_events, queries, translate
from cer_theory.conformance.flink_cep import explanation
from cer_theory.conformance.generate import streams
from cer_theory.conformance.protocol import Case

REFERENCE = ReferenceAdapter()


def case(query: str, types: str, **attrs) -> Case:
    events = [{"type": t, "x": attrs.get("x", [1] * len(types))[k], "s": "ab", "time": attrs.get("time", [0] *
              len(types))[k]} for k, t in enumerate(types)]
    return Case.make(DECLARATIONS, query, events)


def both(c: Case) -> tuple[Counter, Counter]:
    return Counter(REFERENCE.run(c)), Counter(model_complex_events(translate(c.ast), c.events))


# ---------------------------------------------------------------------------------------------- the table


@settings(max_examples=400)
@given(queries(), streams(max_length=6))
def test_exact_translations_mean_the_query(q, s):
    """Where the translation names no departure, the model of Flink CEP on the translated pattern outputs the
    reference's complex events (a set; Flink's matches are per assignment of events to stages, so a complex
    event may come twice, see test_match_per_assignment)."""
    c = Case.make(DECLARATIONS, q, s)
    t = translate(c.ast)
    expected, got = both(c)
    if not t.departures:
        assert set(got) == set(expected), (c.query, [e.to_dict() for e in s], sorted(expected), sorted(got))


@pytest.mark.parametrize("query, types, flink", [
    ("SELECT * FROM S WHERE R ; T", "RTT", "followedByAny"),
    ("SELECT ANY * FROM S WHERE R ; T", "RTT", "followedByAny"),
    ("SELECT * FROM S WHERE R : T", "RTT", "next"),
    ("SELECT STRICT * FROM S WHERE R ; T", "RTRUT", "next"),
])
def test_each_edge(query, types, flink):
    c = case(query, types)
    t = translate(c.ast)
    assert [s.edge for s in t.pattern.stages] == ["begin", flink]
    expected, got = both(c)
    assert got == expected


@pytest.mark.parametrize("query, inner", [
    ("SELECT * FROM S WHERE R+ ; T", "allowCombinations"),
    ("SELECT * FROM S WHERE R :+ ; T", "consecutive"),
    ("SELECT STRICT * FROM S WHERE R+ ; T", "consecutive"),
])
def test_each_loop(query, inner):
    c = case(query, "RURRT")
    t = translate(c.ast)
    assert t.pattern.stages[0].quantifier == Quantifier(1, None, inner)
    expected, got = both(c)
    assert got == expected and expected


def test_windows_and_partitions():
    c = case("SELECT * FROM S WHERE R ; T PARTITION BY [x] WITHIN 1 SECONDS", "RRTT", x=[1, 2, 1, 2],
             time=[0, 1, 1, 3])
    t = translate(c.ast)
    assert t.partition_by == ("x",) and t.time_window and t.pattern.within == 2_000_000
    expected, got = both(c)
    assert got == expected == Counter({(0, 2, (0, 2)): 1})
    c = case("SELECT * FROM S WHERE R ; T WITHIN 1 EVENTS", "RRT")
    assert translate(c.ast).pattern.within == 2
    assert both(c) == (Counter({(1, 2, (1, 2)): 1}),) * 2


def test_next_with_consume_is_skip_past_last_event():
    """SELECT NEXT ... CONSUME BY ANY: at each position NXT's complex event, then the runs before are forgotten;
    skipPastLastEvent emits the first match completed there and prunes every partial match started before."""
    c = case("SELECT NEXT * FROM S WHERE R ; T ; U CONSUME BY ANY", "RRTTUURTU")
    t = translate(c.ast)
    assert t.pattern.skip == "skipPastLastEvent" and not t.departures
    expected, got = both(c)
    assert got == expected == Counter({(0, 4, (0, 2, 4)): 1, (6, 8, (6, 7, 8)): 1})


# ---------------------------------------------------------------------------------------------- departures


def test_match_per_assignment():
    """R+ ; R+ on three Rs: the complex event {0,1,2} is one output for CEQL, two matches for Flink."""
    expected, got = both(case("SELECT * FROM S WHERE R+ ; R+", "RRR"))
    assert set(got) == set(expected) and got[(0, 2, (0, 1, 2))] == 2 and expected[(0, 2, (0, 1, 2))] == 1


@pytest.mark.parametrize("query, types, departure", [
    ("SELECT * FROM S WHERE R ; T CONSUME BY ANY", "RRT", "skip-emits-one"),
    ("SELECT STRICT * FROM S WHERE R+ : T CONSUME BY PARTITION", "RRT", "skip-emits-one"),
    ("SELECT NEXT * FROM S WHERE R ; T WITHIN 1 EVENTS CONSUME BY ANY", "RRT", "window-before-selection"),
])
def test_departures_are_real(query, types, departure):
    c = case(query, types)
    t = translate(c.ast)
    assert departure in t.departures
    expected, got = both(c)
    assert got != expected


def test_skip_per_key_is_real():
    c = case("SELECT NEXT * FROM S WHERE R ; T PARTITION BY [x] CONSUME BY ANY", "RRTT", x=[1, 2, 1, 2])
    assert translate(c.ast).departures == ("skip-per-key",)
    expected, got = both(c)
    assert expected == Counter({(0, 2, (0, 2)): 1}) and got == Counter({(0, 2, (0, 2)): 1, (1, 3, (1, 3)): 1})


# ---------------------------------------------------------------------------------------------- the model can fail


def test_a_wrong_edge_is_caught():
    """followedBy (skip-till-next-match) is not CEQL's ';': a translation using it would be caught."""
    c = case("SELECT * FROM S WHERE R ; T", "RTT")
    t = translate(c.ast)
    wrong = dataclasses.replace(t, pattern=dataclasses.replace(t.pattern, stages=(
        t.pattern.stages[0], dataclasses.replace(t.pattern.stages[1], edge="followedBy"))))
    expected, _ = both(c)
    assert Counter(model_complex_events(wrong, c.events)) != expected


def test_documented_contiguity_example():
    """The Flink documentation's contiguity example, restated: pattern "a b" on a, c, b1, b2 gives nothing under
    strict contiguity, {a b1} under relaxed, {a b1} and {a b2} under non-deterministic relaxed contiguity."""
    events = [{"type": t} for t in ("a", "c", "b", "b")]
    a, b = {"op": "type", "types": ["a"]}, {"op": "type", "types": ["b"]}

    def run(edge: str) -> list:
        p = CepPattern((Stage("a", "begin", a), Stage("b", edge, b)))
        return model_matches(p, events, keys=[""] * 4, timestamps=list(range(4)))

    assert run("next") == []
    assert run("followedBy") == [((0,), (2,))]
    assert run("followedByAny") == [((0,), (2,)), ((0,), (3,))]


def test_loop_contiguity():
    """a b+ c with a non-b between two bs: relaxed takes the next b, consecutive stops at the gap,
    allowCombinations may skip a b."""
    events = [{"type": t} for t in "abdbbc"]
    a, b, c = ({"op": "type", "types": [x]} for x in "abc")

    def run(inner: str) -> set:
        p = CepPattern((Stage("a", "begin", a), Stage("b", "followedBy", b, Quantifier(1, None, inner)),
                        Stage("c", "followedBy", c)))
        return {m[1] for m in model_matches(p, events, keys=[""] * 6, timestamps=list(range(6)))}

    assert run("consecutive") == {(1,)}
    assert run("relaxed") == {(1,), (1, 3), (1, 3, 4)}
    assert run("allowCombinations") == {(1,), (1, 3), (1, 4), (1, 3, 4)}


def test_conditions_type_guard():
    cmp = {"op": "cmp", "attr": "x", "cmp": "<", "value": 2}
    assert holds(cmp, {"type": "R", "x": 1}) and not holds(cmp, {"type": "R", "x": "1"})
    assert not holds(cmp, {"type": "R"}) and holds({"op": "not", "arg": cmp}, {"type": "R"})


@pytest.mark.parametrize("query", [
    "SELECT LAST * FROM S WHERE R ; T", "SELECT MAX * FROM S WHERE R ; T", "SELECT NEXT * FROM S WHERE R ; T",
    "SELECT R FROM S WHERE R ; T", "SELECT * FROM S WHERE (R ; T)+", "SELECT * FROM S WHERE (R ; T) OR U",
    "SELECT * FROM S WHERE R ; T FILTER R[x > 1] OR T[x > 1]", "SELECT * FROM S WHERE R FILTER R[x + 1 > 2]",
    "SELECT * FROM S WHERE R ; T LIMIT 1",
])
def test_untranslatable_is_refused(query):
    with pytest.raises(Untranslatable):
        translate(case(query, "RT").ast)


def test_complex_events_of_matches():
    assert complex_events([{"e0": [3], "e1": [1, 5]}]) == [(1, 5, (1, 3, 5))]


@settings(max_examples=50)
@given(st.data())
def test_generated_queries_translate(data):
    """The generator stays inside the fragment: every generated query translates."""
    translate(Case.make(DECLARATIONS, data.draw(queries()), []).ast)


def test_skip_till_next_match_only_where_exact():
    """Under NEXT with consumption, followedBy (skip-till-next-match) is exact before a single event that no ':'
    binds to the next one; R+ ; U : T+ on R T U U U T shows why not otherwise: NXT's complex event is {0, 4, 5},
    and followedBy would take the first U (2), which no T follows."""
    c = case("SELECT NEXT * FROM S WHERE R+ ; U : T+ CONSUME BY ANY", "RTUUUT")
    t = translate(c.ast)
    assert [s.edge for s in t.pattern.stages] == ["begin", "followedByAny", "next"]
    expected, got = both(c)
    assert got == expected == Counter({(0, 5, (0, 4, 5)): 1})
    wrong = dataclasses.replace(t, pattern=dataclasses.replace(t.pattern, stages=(
        t.pattern.stages[0], dataclasses.replace(t.pattern.stages[1], edge="followedBy"), t.pattern.stages[2])))
    assert Counter(model_complex_events(wrong, c.events)) == Counter()
    c = case("SELECT NEXT * FROM S WHERE R ; T ; U CONSUME BY ANY", "RTU")
    assert [s.edge for s in translate(c.ast).pattern.stages] == ["begin", "followedBy", "followedBy"]


def test_committed_report_replays():
    """Every explained case of the committed run is reproduced by the model of Flink CEP (the output Flink gave,
    exactly, and not the reference's), and every agreeing one is the reference's output."""
    report = json.loads((Path(__file__).parents[2] / "benchmarks/conformance/flink-cep/cases.json").read_text())
    assert report["meta"]["cases"] >= 1000 and len(report["cases"]) == report["meta"]["cases"]
    explained = 0
    for item in report["cases"]:
        c = Case.make(DECLARATIONS, item["query"], item["events"])
        got = [(g["start"], g["end"], tuple(g["positions"])) for g in item.get("got", [])]
        if item["kind"] == "explained":
            explained += 1
            assert Counter(model_complex_events(translate(c.ast), c.events)) == Counter(got)
            assert explanation(c, translate(c.ast), got, REFERENCE.run(c)) == tuple(item["readings"])
            assert Counter(REFERENCE.run(c)) != Counter(got)
        elif item["kind"] == "agree" and explained < 5:  # a sample: the full check is the run itself
            assert Counter(REFERENCE.run(c)) == Counter(got)
    assert explained == report["summary"].get("explained", 0)
