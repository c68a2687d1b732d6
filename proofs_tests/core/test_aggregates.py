"""Aggregate functions as monoids (aggregation paper, the ACEL paper, §4): Lemma 4.1's decomposition, commutativity, the
identities on the empty bag, NULL absorption, and clear errors for values of the wrong kind."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cer_theory.core import aggregates
from cer_theory.core.aggregates import (BUILTIN, NULL, Aggregator, aggregate_names, aggregator, json_value,
                                        register_aggregator)
from cer_theory.core.errors import AggregateError, CerError

NUMBERS = st.lists(st.integers(-1000, 1000), max_size=8)
BY_DEFINITION = {
    "sum": sum,
    "count": len,
    "max": lambda xs: max(xs) if xs else -math.inf,
    "min": lambda xs: min(xs) if xs else math.inf,
    "avg": lambda xs: sum(xs) / len(xs) if xs else NULL,
    "range": lambda xs: max(xs) - min(xs) if xs else NULL,
}


@pytest.mark.parametrize("name", sorted(BY_DEFINITION))
@given(xs=NUMBERS, ys=NUMBERS)
def test_lemma_4_1_self_decomposable(name: str, xs: list[int], ys: list[int]) -> None:
    """Lemma 4.1: f(X ⊎ Y) = g(h(X) ⊕ h(Y)); the fold equals the aggregate's definition, whatever the order."""
    agg = aggregator(name)

    def h(bag: list[int]):
        acc = agg.identity
        for v in bag:
            acc = agg.combine(acc, agg.lift(v))
        return acc

    whole = agg.fold(xs + ys)
    assert whole == agg.finish(agg.combine(h(xs), h(ys))), (name, xs, ys)
    assert whole == agg.fold(list(reversed(ys + xs))), (name, xs, ys)  # commutativity
    assert whole == BY_DEFINITION[name](xs + ys), (name, xs, ys)


@pytest.mark.parametrize("agg", BUILTIN, ids=lambda a: a.name)
def test_identity_on_the_empty_bag_and_null_absorbs(agg: Aggregator) -> None:
    """The ACEL paper §4 (†): 𝟘 on the empty bag (through g), and NULL absorbing — except count, which counts events."""
    assert agg.fold([]) == BY_DEFINITION[agg.name]([]) or agg.fold([]) is NULL
    if agg.name == "count":
        assert agg.fold([1, NULL, 3]) == 3
    else:
        assert agg.fold([1, NULL, 3]) is NULL


def test_min_and_max_fold_strings_and_refuse_mixed_kinds() -> None:
    assert aggregator("max").fold(["b", "c", "a"]) == "c"
    assert aggregator("MIN").fold(["b", "c", "a"]) == "a"
    with pytest.raises(AggregateError, match="max cannot combine"):
        aggregator("max").fold(["b", 3])


@pytest.mark.parametrize("name", ["sum", "avg", "range"])
def test_numeric_aggregates_refuse_strings_and_booleans(name: str) -> None:
    with pytest.raises(AggregateError, match=f"{name} needs numbers; got 'lots' \\(str\\)"):
        aggregator(name).fold([1, "lots"])
    with pytest.raises(AggregateError, match="got True"):
        aggregator(name).fold([True])


def test_unknown_aggregate_lists_the_known_ones() -> None:
    with pytest.raises(CerError, match="unknown aggregate 'median'; known: avg, count, max, min, range, sum"):
        aggregator("median")


def test_user_defined_monoid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aggregates, "_REGISTRY", dict(aggregates._REGISTRY))  # keep the registry of other tests
    product = Aggregator("product", lambda a, b: a * b, 1, lambda v: v, lambda v: v, "(ℤ, ×, 1)")
    register_aggregator(product)
    assert "product" in aggregate_names()
    assert aggregator("product").fold([2, 3, 4]) == 24 and aggregator("product").fold([]) == 1
    with pytest.raises(AggregateError, match="built-in"):
        register_aggregator(Aggregator("sum", max, 0, int, int))


def test_json_values_and_reprs() -> None:
    assert [json_value(v) for v in (NULL, -math.inf, math.inf, 3, 2.5)] == [None, "-inf", "inf", 3, 2.5]
    assert repr(NULL) == "NULL" and repr(aggregator("sum")) == "Aggregator('sum')"
