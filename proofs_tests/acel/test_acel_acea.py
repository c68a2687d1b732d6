"""Aggregation automata (the ACEL paper §6): expressions over the value structure, post-assignment predicates, blocked
versus NULL, erased registers, output templates, the run-based evaluator, drawing, and the witnesses W1/W2."""

from __future__ import annotations

import math

import pytest

from cer_theory.core.aggregates import NULL
from cer_theory.core.errors import AutomatonError
from cer_theory.core.events import Event, Stream
from cer_theory.core.predicates.ast import Attr, Cmp, Const as PConst
from cer_theory.formalisms.acel.acea import (ACEA, Blocked, Combine, Const, Emits, Ref, Template, Transition,
                                             evaluate_expr)
from cer_theory.formalisms.acel.examples import ones, w1_doubling, w2_prefix_sums


def outputs(a: ACEA, s: Stream) -> list[dict]:
    return [c.to_json() for c in sorted(a.complex_events(s), key=lambda c: c.sort_key())]


def test_example_6_1_and_6_2_expressions_over_the_value_structure() -> None:
    e = {"a": 4, "b": 2, "c": 5}
    assert evaluate_expr(Combine("sum", Ref("a"), Ref("b")), e) == 6
    assert evaluate_expr(Combine("sum", Combine("min", Ref("a"), Ref("b")), Combine("max", Ref("b"), Ref("c"))), e) == 7
    assert evaluate_expr(Combine("max", Combine("sum", Ref("a"), Ref("b")), Ref("c")), e) == 6  # a ← max(a+b, c)
    assert evaluate_expr(Combine("sum", Ref("a"), Const(NULL)), e) is NULL  # NULL absorbs
    with pytest.raises(Blocked):
        evaluate_expr(Combine("sum", Ref("a"), Ref("z")), e)


def test_W1_doubling_emits_two_to_the_length_of_the_run() -> None:
    out = outputs(w1_doubling(), ones(5))
    assert len(out) == 15
    for c in out:
        assert c["bags"] == {"Y": [{"time": c["end"], "attributes": {"b": 2 ** (c["end"] - c["start"] + 1)}}]}


def test_W2_prefix_sums_emit_every_prefix_sum() -> None:
    out = outputs(w2_prefix_sums(), ones(4))
    (whole,) = [c for c in out if (c["start"], c["end"]) == (0, 3)]
    assert whole["bags"]["Y"] == [{"time": k, "attributes": {"b": k + 1}} for k in range(4)]
    assert len(out) == 10


def _one(assign, checks=(), marks=None) -> ACEA:
    return ACEA(frozenset({0, 1}), (Transition.make(0, assign, checks, marks or {"X": [Template.of({"v": "r"})]}, 1),),
                0, frozenset({1}))


def test_a_transition_reading_an_absent_attribute_is_blocked_not_null() -> None:
    a = _one({"r": Ref("price")})
    s = Stream([Event("R", price=3), Event("R"), Event("T", cost=1)])
    assert outputs(a, s) == [{"start": 0, "end": 0, "bags": {"X": [{"time": 0, "attributes": {"v": 3}}]}}]
    nulled = _one({"r": Combine("sum", Const(NULL), Ref("type"))})  # NULL is a value: the run goes on
    assert len(outputs(nulled, s)) == 3  # NULL absorbs even a type name: no type check happens on NULL
    nulls = _one({"r": Const(NULL)})
    assert [c["bags"]["X"] for c in outputs(nulls, s)] == [[{"time": k, "attributes": {"v": None}}] for k in range(3)]


def test_predicates_read_the_registers_after_the_assignment_and_unassigned_registers_are_erased() -> None:
    # the guard reads r (assigned = price + 10), not the raw event: price 1 passes r > 10
    guard = Emits(Cmp(Attr("v"), ">", PConst(10)), Template.of({"v": "r"}))
    a = _one({"r": Combine("sum", Ref("price"), Const(10))}, [guard])
    assert [c["bags"]["X"][0]["attributes"]["v"] for c in outputs(a, Stream([Event("R", price=1), Event("R", price=0)]))] == [11]
    # a register not re-assigned is erased: the second step cannot read r
    erase = ACEA(frozenset({0, 1, 2}), (Transition.make(0, {"r": Ref("price")}, (), {}, 1),
                                         Transition.make(1, {"s": Ref("r")}, (), {"X": [Template.of({"v": "s"})]}, 2)),
                 0, frozenset({2}))
    assert outputs(erase, Stream([Event("R", price=1), Event("R", price=2)])) == [
        {"start": 0, "end": 1, "bags": {"X": [{"time": 1, "attributes": {"v": 1}}]}}]
    carry = ACEA(frozenset({0, 1, 2}), (Transition.make(0, {"r": Ref("price")}, (), {}, 1),
                                         Transition.make(1, {"s": Ref("r")}, (), {"X": [Template.of({"v": "s"})]}, 2),
                                         Transition.make(1, {"r": Ref("r")}, (), {}, 1)), 0, frozenset({2}))
    assert len(outputs(carry, Stream([Event("R", price=1)] * 3))) == 3


def test_the_incoming_event_overrides_a_register_of_the_same_name() -> None:
    a = ACEA(frozenset({0, 1, 2}), (Transition.make(0, {"a": Const(100)}, (), {}, 1),
                                     Transition.make(1, {"r": Ref("a")}, (), {"X": [Template.of({"v": "r"})]}, 2)),
             0, frozenset({2}))
    assert outputs(a, Stream([Event("R", a=1), Event("R", a=2)]))[0]["bags"]["X"] == [{"time": 1, "attributes": {"v": 2}}]


def test_templates_apply_post_maps_and_must_read_registers_assigned_on_their_transition() -> None:
    pair = _one({"r": Combine("avg", Const((0, 0)), Const((6, 2)))}, marks={"X": [Template.of({"v": "r"},
                                                                                             {"v": "avg"})]})
    assert outputs(pair, Stream.from_types("R"))[0]["bags"]["X"] == [{"time": 0, "attributes": {"v": 3.0}}]
    with pytest.raises(AutomatonError, match="does not assign"):
        _one({"q": Ref("price")})


def test_drawing_shows_assignments_predicates_and_templates_on_the_edges() -> None:
    dot = w1_doubling().to_dot(title="W1")
    assert "m ← a ⊕sum a" in dot and "m ← m ⊕sum m" in dot and "Y: [b↦m]" in dot and "doublecircle" in dot
    assert w1_doubling().describe().startswith("ACEA(3 states, 4 transitions) W1 (doubling): q0 = 0") and repr(w2_prefix_sums()) == "ACEA(2 states, 2 transitions)"


def test_identities_flow_through_registers_unchanged() -> None:
    a = _one({"r": Combine("max", Const(-math.inf), Ref("x"))})
    assert outputs(a, Stream([Event("R", x=-5)]))[0]["bags"]["X"] == [{"time": 0, "attributes": {"v": -5}}]


def test_a_drawing_explains_its_notation_in_a_legend() -> None:
    """``⊕sum sum'(tmp)`` on an edge is explained under the title, only the notation the drawing uses."""
    from cer_theory.formalisms.acel.compile import compile_automaton as compile_acea
    from cer_theory.formalisms.acel.parser import parse as parse_acel

    dot = compile_acea(parse_acel("AGG Y[s <- sum(X.tmp), m <- avg(X.tmp)](T+ AS X ; H)")).to_dot()
    title = dot.split('labelloc=t; label="', 1)[1].split('";', 1)[0]
    for meaning in ("⊕f: aggregate f's combine", "f'(a): f's pre-map of attribute a", "b↦f(r): b is f's post-map"):
        assert meaning in title
    plain = compile_acea(parse_acel("T ; H")).to_dot()
    assert "⊕f" not in plain and "post-map" not in plain and "[P]: the guard" in plain
    assert all(len(line) <= 70 for line in title.split("\\n")[1:])
