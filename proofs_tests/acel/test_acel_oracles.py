"""The ACEL paper's worked examples as exact oracles (E1–E10): Ex. 3.2, 3.3, 5.1, 5.2, the §5 design rationale and
App. D. Times are 0-based stream positions (docs/decisions.md D66): the paper's Example 3.1 table numbers S_Stocks
0..9 as here; the streams it numbers from 1 are shifted by one. Ex. 3.2 filters on ``"INTC"`` while the stream says
``INTL``: read literally the result is empty, so both readings are tested (docs/errata.md)."""

from __future__ import annotations

import pytest

from cer_theory.core.events import Event, Stream
from cer_theory.formalisms.acel.parser import parse
from cer_theory.formalisms.acel.semantics import complex_events


def stocks() -> Stream:
    rows = [("SELL", "MSFT", 101), ("SELL", "MSFT", 102), ("SELL", "INTL", 80), ("BUY", "INTL", 80),
            ("SELL", "AMZN", 1900), ("SELL", "INTL", 81), ("BUY", "AMZN", 1920), ("BUY", "MSFT", 101),
            ("BUY", "INTL", 79), ("SELL", "INTL", 80)]
    return Stream(Event(t, name=n, price=p) for t, n, p in rows)


def run(text: str, stream: Stream, bind: str = "bag") -> list[dict]:
    return [c.to_json() for c in sorted(complex_events(parse(text), stream, bind), key=lambda c: c.sort_key())]


def ev(time: int, **attrs) -> dict:
    return {"time": time, "attributes": dict(sorted(attrs.items()))}


PHI2 = ('(SELL AS msft ; SELL AS intel ; SELL AS amzn) FILTER (msft[name = "MSFT"] AND msft[price > 100] AND '
        'intel[name = "{}"] AND amzn[name = "AMZN"] AND amzn[price < 2000])')
PHI6 = 'AGG M[MAX <- max(intel.price)]((SELL AS msft ; (SELL AS intel)+ ; SELL AS amzn) FILTER (msft[name = "MSFT"] ' \
       'AND msft[price > 100] AND intel[name = "{}"] AND amzn[name = "AMZN"] AND amzn[price < 2000]))'


def sell(t: int, name: str, price: int) -> dict:
    return ev(t, type="SELL", name=name, price=price)


def test_E1_example_3_2_literal_INTC_is_empty_and_INTL_gives_two_matches_binding_SELL_too() -> None:
    assert run(PHI2.format("INTC"), stocks()) == []
    amzn = sell(4, "AMZN", 1900)
    intel = sell(2, "INTL", 80)
    assert run(PHI2.format("INTL"), stocks()) == [
        {"start": s, "end": 4, "bags": {"SELL": [m, intel, amzn], "amzn": [amzn], "intel": [intel], "msft": [m]}}
        for s, m in ((0, sell(0, "MSFT", 101)), (1, sell(1, "MSFT", 102)))]


def test_E2_example_3_3_attribute_projection_keeps_only_price_and_time() -> None:
    out = run(f"PI[intel(price)]({PHI2.format('INTL')})", stocks())
    assert [(c["start"], c["end"], c["bags"]["intel"]) for c in out] == [(0, 4, [ev(2, price=80)]),
                                                                          (1, 4, [ev(2, price=80)])]
    assert [c["bags"]["msft"] for c in out] == [[sell(0, "MSFT", 101)], [sell(1, "MSFT", 102)]]


def test_E3_example_5_1_max_of_intel_prices_one_untyped_event_at_the_end() -> None:
    out = run(PHI6.format("INTL"), stocks())
    assert [(c["start"], c["end"], c["bags"]["M"]) for c in out] == [(0, 4, [ev(4, MAX=80)]), (1, 4, [ev(4, MAX=80)])]
    assert run(PHI6.format("INTC"), stocks()) == []
    richer = Stream([Event("SELL", name="MSFT", price=101), Event("SELL", name="INTL", price=80),
                     Event("SELL", name="INTL", price=85), Event("BUY", name="INTL", price=99),
                     Event("SELL", name="AMZN", price=1900)])
    got = sorted((tuple(e["time"] for e in c["bags"]["intel"]), c["bags"]["M"]) for c in run(PHI6.format("INTL"), richer))
    assert got == [((1,), [ev(4, MAX=80)]), ((1, 2), [ev(4, MAX=85)]), ((2,), [ev(4, MAX=85)])]


def test_E4_example_5_2_count_then_filter_on_the_created_event() -> None:
    inner = ("AGG M[QNT <- count(m.price)](((BUY OR SELL) AS l ; (BUY OR SELL)+ AS m ; (BUY OR SELL) AS h) "
             "FILTER (l[price < 100] AND m[price >= 100] AND m[price <= 2000] AND h[price > 2000]))")
    phi7 = f"{inner} FILTER M[QNT > 5]"
    assert run(phi7, stocks()) == []
    prices = [50, 150, 300, 400, 500, 900, 1200, 2500]
    s = Stream(Event("BUY" if k % 2 == 0 else "SELL", price=p) for k, p in enumerate(prices))
    out = run(phi7, s)
    assert [(c["start"], c["end"], c["bags"]["M"]) for c in out] == [(0, 7, [ev(7, QNT=6)])]
    assert len(run(inner, s)) == 63


def test_E5_design_1_projection_merges_equal_complex_events_into_one() -> None:
    s = Stream.from_types("A B B A")
    assert run("PI[X](A AS X ; B+ ; A AS X)", s) == [
        {"start": 0, "end": 3, "bags": {"X": [ev(0, type="A"), ev(3, type="A")]}}]
    assert len(run("A AS X ; B+ ; A AS X", s)) == 3


def test_E6_design_2_nested_aggregates_keep_equal_values_apart_by_their_times() -> None:
    s = Stream([Event("B"), Event("A", a=3), Event("A", a=5), Event("B"), Event("A", a=2), Event("A", a=4),
                Event("A", a=2)])
    inner = run("AGG X[a <- sum(A.a)](B : A:+)", s)
    assert [(c["start"], c["end"], c["bags"]["X"][0]["attributes"]["a"]) for c in inner] == [
        (0, 1, 3), (0, 2, 8), (3, 4, 2), (3, 5, 6), (3, 6, 8)]
    outer = run("AGG Y[b <- sum(X.a)]((AGG X[a <- sum(A.a)](B : A:+)):+)", s)
    assert [(c["start"], c["end"], c["bags"]["Y"]) for c in outer] == [
        (0, 1, [ev(1, b=3)]), (0, 2, [ev(2, b=8)]), (0, 4, [ev(4, b=10)]), (0, 5, [ev(5, b=14)]),
        (0, 6, [ev(6, b=16)]), (3, 4, [ev(4, b=2)]), (3, 5, [ev(5, b=6)]), (3, 6, [ev(6, b=8)])]
    (whole,) = [c for c in outer if (c["start"], c["end"]) == (0, 6)]
    assert whole["bags"]["X"] == [ev(2, a=8), ev(6, a=8)]  # equal values, two events


def test_E7_equi_join_through_an_aggregate_and_a_unary_filter() -> None:
    s = Stream([Event("R", a=1), Event("T", a=2), Event("T", a=1), Event("R", a=2), Event("T", a=2)])
    out = run("PI[X, Y](AGG Z[b1 <- sum(X.a), b2 <- sum(Y.a)](R AS X ; T AS Y) FILTER Z[b1 = b2])", s)
    assert out == [{"start": 0, "end": 2, "bags": {"X": [ev(0, type="R", a=1)], "Y": [ev(2, type="T", a=1)]}},
                   {"start": 3, "end": 4, "bags": {"X": [ev(3, type="R", a=2)], "Y": [ev(4, type="T", a=2)]}}]


def test_E8_app_D2_max_and_avg_per_mapper_subset_with_equal_job_ids() -> None:
    s = Stream([Event("JobStart", job_id="j1"), Event("Mapper", job_id="j1", period=10),
                Event("Mapper", job_id="j2", period=99), Event("Mapper", job_id="j1", period=30),
                Event("JobEnd", job_id="j1")])
    out = run("AGG Y[e <- max(b.period), f <- avg(b.period)]((JobStart AS a ; (Mapper AS b)+ ; JobEnd AS c) AS X "
              "FILTER X[job_id])", s)
    assert sorted((c["start"], c["end"], c["bags"]["Y"][0]["attributes"]["e"], c["bags"]["Y"][0]["attributes"]["f"]) for c in out) == [
        (0, 4, 10, 10.0), (0, 4, 30, 20.0), (0, 4, 30, 30.0)]
    assert sorted(len(c["bags"]["X"]) for c in out) == [6, 6, 8]  # AS duplicates: bag mode


@pytest.mark.parametrize("bind, expected", [("bag", 140), ("set", 70)])
def test_E9_app_D3_literal_AS_counts_each_event_twice_set_mode_once(bind: str, expected: int) -> None:
    s = Stream([Event("ServiceOrder", price=30), Event("ProductOrder", price=40)])
    agg = "AGG Y[e <- sum(X.price)]((ServiceOrder AS a ; ProductOrder AS b) AS X)"
    (c,) = run(agg, s, bind)
    assert c["bags"]["Y"] == [ev(1, e=expected)]
    assert len(run(f"{agg} FILTER Y[e > 100]", s, bind)) == (1 if bind == "bag" else 0)


def test_E10_an_empty_bag_aggregates_to_the_identities() -> None:
    assert run("AGG Y[s <- sum(X.v), m <- max(X.v), n <- count(X.v), a <- avg(X.v)](R)", Stream.from_types("R")) == [
        {"start": 0, "end": 0, "bags": {"R": [ev(0, type="R")], "Y": [ev(0, s=0, m="-inf", n=0, a=None)]}}]


def test_null_is_absorbing_and_count_counts_events_with_missing_values() -> None:
    s = Stream([Event("R", v=1), Event("R"), Event("R", v=5)])
    (c,) = run("AGG Y[s <- sum(X.v), n <- count(X.v)](R AS X ; R AS X ; R AS X)", s)
    assert c["bags"]["Y"] == [ev(2, s=None, n=3)]
