"""CEQL aggregates and HAVING: syntax, errors and the reference semantics (the ACEL paper's Agg on each match of a CORE paper
pattern; cer_theory.formalisms.ceql.aggregation, docs/decisions.md D75–D76)."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings

from cer_theory.core import aggregates
from cer_theory.core.aggregates import NULL, Aggregator, register_aggregator
from cer_theory.core.errors import AggregateError, SyntaxErrorCER
from cer_theory.core.events import CoreComplexEvent, Event
from cer_theory.core.predicates.ast import Attr, Cmp, Const
from cer_theory.formalisms.ceql.aggregation import CreatedEvent, having_holds, match_aggregates
from cer_theory.formalisms.ceql.ast import AggregateItem, Query
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.formalisms.ceql.printer import format
from cer_theory.formalisms.ceql.semantics import evaluate
from cer_theory.testing.strategies.ceql import aggregated_queries

STOCK = "SELECT s1, SUM(b.volume) AS vol, MAX(b.price) AS top, COUNT(b) AS n FROM S " \
        "WHERE (SELL AS s1 ; BUY+ AS b ; SELL AS s2) WITHIN 5 SECONDS"

STREAM = [Event("SELL", price=1, volume=1, time=0), Event("BUY", price=5, volume=10, time=1),
          Event("BUY", price=7, volume=20, time=2), Event("SELL", price=1, volume=1, time=3)]


def _records(out: list[frozenset]) -> set:
    return {(c.start, c.end, c.positions, v) for s in out for c, v in s}


# ---------------------------------------------------------------------------------------------- syntax


def test_the_stock_query_parses_into_aggregate_items():
    q = parse(STOCK)
    assert q.select == ("s1",)
    assert q.aggregates == (AggregateItem("SUM", "b", "volume", "vol"), AggregateItem("MAX", "b", "price", "top"),
                            AggregateItem("COUNT", "b", None, "n"))
    assert parse(format(q)) == q


@pytest.mark.parametrize("text", [
    "SELECT MAX MAX(b.x) AS m WHERE B AS b",  # the strategy keyword MAX, then the aggregate MAX
    "SELECT *, RANGE(b.x) AS r WHERE B AS b HAVING r IN {1..3}",
    "SELECT NONE, avg(b.x) AS a, min(b.`by`) AS `Limit` WHERE B AS b",
    "SELECT sum(b.x) AS s WHERE B+ AS b HAVING NOT (s > 1 OR s * 2 <= 3) AND s - 1 != 0 LIMIT 2",
])
def test_aggregate_queries_round_trip(text):
    q = parse(text)
    assert q.aggregated and parse(format(q)) == q


@settings(max_examples=100)
@given(aggregated_queries())
def test_aggregated_queries_round_trip(q: Query):
    """``parse(format(q)) == q`` with aggregates (keyword aliases in backquotes, COUNT without attribute) and
    HAVING over arithmetic, NOT/AND/OR."""
    text = format(q)
    assert parse(text) == q, text


@pytest.mark.parametrize("text, message", [
    ("SELECT foo(b.x) AS f WHERE B AS b", "unknown aggregate 'foo'"),
    ("SELECT sum(c.x) AS f WHERE B AS b", "aggregates the variable 'c', which the pattern does not bind"),
    ("SELECT sum(b.x) AS f WHERE B AS b HAVING g > 1", "HAVING names 'g', which is not an aggregate alias"),
    ("SELECT * WHERE B AS b HAVING g > 1", "SELECT has no aggregate"),
    ("SELECT sum(b.x) AS f WHERE B AS b HAVING type = 'B'", "HAVING names 'type'"),
    ("SELECT sum(b) AS f WHERE B AS b", "SUM(b) needs an attribute"),
    ("SELECT sum(b.x) AS f, max(b.x) AS f WHERE B AS b", "the alias 'f' names two aggregates"),
    ("SELECT sum(b.x) WHERE B AS b", "expected AS"),
])
def test_bad_aggregates_are_located_syntax_errors(text, message):
    with pytest.raises(SyntaxErrorCER, match=re.escape(message)) as err:
        parse(text)
    assert err.value.line == 1 and err.value.column > 1


# ---------------------------------------------------------------------------------------------- semantics


def test_stock_query_oracle():
    """Every match of ``SELL ; BUY+ ; SELL`` is one Agg over its own bag of b (the ACEL paper §5): the three
    subsets {1}, {2}, {1,2} of the BUYs give three records with the same complex event ([0,3], {0})."""
    out = evaluate(parse(STOCK), STREAM)
    assert _records(out) == {(0, 3, (0,), (("vol", 10), ("top", 5), ("n", 1))),
                             (0, 3, (0,), (("vol", 20), ("top", 7), ("n", 1))),
                             (0, 3, (0,), (("vol", 30), ("top", 7), ("n", 2)))}
    having = evaluate(parse(STOCK + " HAVING n >= 2 AND vol > 25"), STREAM)
    assert _records(having) == {(0, 3, (0,), (("vol", 30), ("top", 7), ("n", 2)))}


def test_empty_bags_give_the_identities():
    """A match that binds nothing to b folds the empty bag (D65): SUM and COUNT 0, MAX -inf, MIN inf, AVG and
    RANGE NULL."""
    q = parse("SELECT SUM(b.x) AS s, COUNT(b) AS c, MAX(b.x) AS hi, MIN(b.x) AS lo, AVG(b.x) AS a, "
              "RANGE(b.x) AS r WHERE A OR B AS b")
    (record,) = _records(evaluate(q, [Event("A", x=1)]))
    assert record[3] == (("s", 0), ("c", 0), ("hi", -math.inf), ("lo", math.inf), ("a", NULL), ("r", NULL))


def test_a_missing_attribute_is_an_absorbing_null_and_fails_every_having_comparison():
    q = parse("SELECT *, SUM(b.x) AS s, COUNT(b.x) AS c WHERE B+ AS b")
    out = _records(evaluate(q, [Event("B", x=1), Event("B")]))
    assert (0, 1, (0, 1), (("s", NULL), ("c", 2))) in out  # count counts events, NULL values included
    assert not having_holds(Cmp(Attr("s"), "<", Const(5)), q.aggregates, [NULL, 2])
    assert not having_holds(Cmp(Attr("s"), ">=", Const(5)), q.aggregates, [NULL, 2])
    assert CreatedEvent({"s": NULL, "c": 2}).get("s") is None


def test_an_event_bound_twice_to_a_variable_is_in_its_bag_once():
    """D75: CEQL valuations are sets of positions (the CORE paper Fig. 2), so ``(B AS b) AS b`` binds each event once:
    the ACEL paper's set binding mode."""
    q = parse("SELECT *, COUNT(b) AS n, SUM(b.x) AS s WHERE (B AS b) AS b")
    assert _records(evaluate(q, [Event("B", x=4)])) == {(0, 0, (0,), (("n", 1), ("s", 4)))}


def test_aggregates_read_the_unprojected_match_and_collapse_equal_records():
    """SELECT's projection leaves b out of D but not out of Agg; matches with equal CE and equal values are one
    output (a set, D75)."""
    q = parse("SELECT a, MAX(b.x) AS m WHERE A AS a ; B+ AS b")
    out = _records(evaluate(q, [Event("A", x=0), Event("B", x=3), Event("B", x=3)]))
    assert out == {(0, 1, (0,), (("m", 3),)), (0, 2, (0,), (("m", 3),))}


def test_match_aggregates_folds_in_stream_order():
    items = parse("SELECT SUM(b.x) AS s, MAX(b.x) AS m, COUNT(b) AS n WHERE B AS b").aggregates
    stream = [Event("B", x=1.5), Event("B", x=2), Event("B", x=-1)]
    assert match_aggregates(items, stream, {"b": {2, 0}}) == (0.5, 1.5, 2)
    assert match_aggregates(items, stream, {}) == (0, -math.inf, 0)


def test_the_sum_of_strings_is_an_error_naming_the_aggregate_and_position():
    """D76: a value of the wrong kind is an AggregateError, not a NULL."""
    q = parse("SELECT SUM(b.x) AS s WHERE B AS b")
    with pytest.raises(AggregateError, match=r"SUM\(b.x\) AS s: sum needs numbers; got 'ten' .* position 1"):
        evaluate(q, [Event("B", x=1), Event("B", x="ten")])


def test_max_over_strings_and_a_registered_aggregate(monkeypatch):
    monkeypatch.setattr(aggregates, "_REGISTRY", dict(aggregates._REGISTRY))  # registered for this test only
    register_aggregator(Aggregator("product_test", lambda a, b: a * b, 1, lambda v: v, lambda v: v, "(ℤ, ×, 1)"))
    q = parse("SELECT MAX(b.name) AS m, PRODUCT_TEST(b.x) AS p WHERE B+ AS b HAVING p > 5")
    out = _records(evaluate(q, [Event("B", name="ab", x=2), Event("B", name="b", x=3)]))
    assert out == {(0, 1, (), (("m", "b"), ("p", 6)))}  # aggregates only: SELECT selects no variable


def test_a_query_without_aggregates_keeps_complex_events_as_outputs():
    out = evaluate(parse("SELECT * WHERE A ; B"), [Event("A"), Event("B")])
    assert out == [frozenset(), frozenset({CoreComplexEvent(0, 1, (0, 1))})]
