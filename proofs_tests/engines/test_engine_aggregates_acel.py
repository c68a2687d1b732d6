"""The engine's aggregates against the ACEL paper's ACEL semantics (*A formal query language and automata model for
aggregation in complex event recognition*, §5 Agg, Fig. 1): a CEQL aggregate query in the shared fragment is
translated to ``π_{L ∪ {Y}}(FILTER Y[h](AGG Y[…](φ)))`` and evaluated in ACEL's set bind mode; both outputs are
compared as ``(start, end, positions, values)`` (cer_theory.testing.ceql_acel, docs/decisions.md D70–D71)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings

from cer_theory.core.aggregates import NULL
from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import Attr, Cmp
from cer_theory.core.windows import Window
from cer_theory.formalisms.acel.ast import Agg
from cer_theory.formalisms.acel.parser import parse as parse_acel
from cer_theory.formalisms.cel import ast as cel
from cer_theory.formalisms.ceql.ast import AggregateItem, Query
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.testing.ceql_acel import acel_records, engine_records, target_variable, to_acel
from cer_theory.testing.strategies.ceql import evaluable_aggregated_queries, timed_streams

fragment_queries = evaluable_aggregated_queries().map(
    lambda q: replace(q, strategy="ALL", within=None, partition_by=(), consume=None))
"""Generated aggregate queries cut to the fragment: the pattern, SELECT and HAVING kept; ALL, no clauses."""


def _report(q, stream, engine, acel_out) -> str:
    return (f"\nquery: {q}\nACEL:  {to_acel(q)}\nstream: {list(stream)}\n"
            f"engine only: {sorted(engine - acel_out, key=repr)}\nACEL only:   {sorted(acel_out - engine, key=repr)}\n"
            f"engine: {sorted(engine, key=repr)}\nACEL:   {sorted(acel_out, key=repr)}")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(fragment_queries, timed_streams(max_length=7))
def test_engine_aggregates_equal_acel_semantics(q, stream):
    """For every generated query of the fragment (SUM/MIN/MAX/COUNT/AVG/RANGE over ``x``, NULL on some events,
    SELECT */variables/none, HAVING) and stream, the engine's records equal those of the ACEL formula."""
    engine, acel_out = engine_records(q, stream), acel_records(q, stream)
    assert engine == acel_out, _report(q, stream, engine, acel_out)


def _stock() -> list[Event]:
    return [Event("SELL", {"name": "MSFT", "price": 100, "volume": 10}),
            Event("BUY", {"name": "MSFT", "price": 101, "volume": 5}),
            Event("BUY", {"name": "INTL", "price": 80, "volume": 7}),
            Event("BUY", {"name": "MSFT", "price": 103}),
            Event("SELL", {"name": "MSFT", "price": 99, "volume": 2})]


STOCK = ("SELECT s1, SUM(b.volume) AS vol, MAX(b.price) AS top WHERE SELL AS s1 ; (BUY FILTER BUY[volume > 1])+ AS b"
         " ; SELL AS s2 HAVING vol > 6")


def test_stock_query_of_the_issue_on_both_sides():
    """Issue 12's stock query: the BUYs at 1, 2 (volume ≥ 2) between the SELLs at 0 and 4 in every non-empty
    subset; the BUY at 3 has no volume, so the filter fails on it (a missing attribute). HAVING keeps the subsets
    whose volume exceeds 6; only ``s1`` is selected, so D = {0} and the interval stays [0, 4]."""
    expected = {(0, 4, (0,), (7, 80)), (0, 4, (0,), (12, 101))}
    assert engine_records(STOCK, _stock()) == expected
    assert acel_records(STOCK, _stock()) == expected


def test_stock_query_translation_is_the_papers_formula():
    phi = to_acel(STOCK)
    assert str(phi) == ("PI[s1, Y](AGG Y[vol <- sum(b.volume), top <- max(b.price)](SELL AS s1 ; "
                        "(BUY FILTER BUY[volume > 1])+ AS b ; SELL AS s2) FILTER Y[vol > 6])")
    assert parse_acel(str(phi)) == phi


@pytest.mark.parametrize("query, expected", [
    # SELECT *: D is every position of the match; COUNT(b) counts events, x NULL on the T at 2 absorbs SUM.
    ("SELECT *, COUNT(b) AS n, SUM(b.x) AS s WHERE (R ; T+) AS b",
     {(0, 1, (0, 1), (2, 3)), (0, 2, (0, 2), (2, NULL)), (0, 2, (0, 1, 2), (3, NULL))}),
    # An OR branch leaves b unbound: the empty bag gives the identities (0 and -inf, D65); x missing is NULL.
    ("SELECT *, SUM(b.x) AS s, MAX(b.x) AS m WHERE R OR (T AS b)",
     {(0, 0, (0,), (0, float("-inf"))), (1, 1, (1,), (2, 2)), (2, 2, (2,), (NULL, NULL))}),
    # (T AS b) AS b binds each T once to b: set mode, so the sum is 2, not 4.
    ("SELECT NONE, SUM(b.x) AS s WHERE (T AS b) AS b FILTER b[x = 2]", {(1, 1, (), (2,))}),
    # ':' and ':+' ask for contiguity on both sides.
    ("SELECT *, SUM(T.x) AS s WHERE R : T:+", {(0, 1, (0, 1), (2,)), (0, 2, (0, 1, 2), (NULL,))}),
])
def test_exact_examples_on_both_sides(query, expected):
    stream = [Event("R", {"x": 1}), Event("T", {"x": 2}), Event("T", {})]
    assert engine_records(query, stream) == expected
    assert acel_records(query, stream) == expected


@pytest.mark.parametrize("change, construct", [
    (dict(strategy="ANY"), "selection strategy"), (dict(within=Window("events", 3)), "WITHIN"),
    (dict(partition_by=(("x",),)), "PARTITION BY"), (dict(consume="ANY"), "CONSUME BY"), (dict(limit=2), "LIMIT"),
    (dict(streams=("S",)), "FROM"), (dict(aggregates=()), "without aggregates"),
])
def test_clauses_outside_the_fragment_are_refused(change, construct):
    q = replace(parse("SELECT *, SUM(b.x) AS s WHERE T AS b"), **change)
    with pytest.raises(UnsupportedError, match=construct):
        to_acel(q)


_SEQ = cel.Seq(cel.In(cel.Atom("R"), "a"), cel.In(cel.Atom("T"), "b"))


@pytest.mark.parametrize("pattern, construct", [
    (cel.Filter(_SEQ, Cmp(Attr("x", "a"), "<", Attr("x", "b"))), "compares several variables"),
    (cel.Conj(cel.Atom("R"), cel.Atom("T")), "AND"), (cel.Proj(_SEQ, ("a",)), "π"),
])
def test_patterns_outside_the_fragment_are_refused(pattern, construct):
    """Patterns CEQL's parser does not build but its AST holds: binary filters (the ACEL paper's are unary), AND, π."""
    q = Query(pattern=pattern, aggregates=(AggregateItem("SUM", "a", "x", "s"),))
    with pytest.raises(UnsupportedError, match=construct):
        to_acel(q)


@pytest.mark.parametrize("query, fresh", [("SELECT *, SUM(b.x) AS s WHERE T AS b", "Y"),
                                          ("SELECT Y, SUM(Y.x) AS s WHERE (T AS Y) AS Y0", "Y1")])
def test_the_created_event_variable_is_fresh(query, fresh):
    """Y never collides with a pattern variable (else Agg would add its event to a bag of the match)."""
    assert target_variable(parse(query)) == fresh
    assert [n.target for n in to_acel(query).walk() if isinstance(n, Agg)] == [fresh]
