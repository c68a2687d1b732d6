"""The equivalence benchmark's families on tiny sizes (the measurement itself is benchmarks/equivalence_bench.py):
the product grows as claimed, counted rather than timed, and a budget ends a sweep with its message."""

from __future__ import annotations

from benchmarks.equivalence_bench import markdown, measure, sweep


def test_kth_from_last_doubles_its_product_and_associativity_stays_linear() -> None:
    kth = [measure("kth-from-last", k, 10_000)["product"] for k in (3, 4, 5)]
    assert kth[1] >= 2 * kth[0] - 2 and kth[2] >= 2 * kth[1] - 2, kth
    assoc = [measure("associativity", k, 10_000)["product"] for k in (2, 4, 8)]
    assert assoc == [4, 8, 16]


def test_a_budget_ends_the_sweep_with_its_message() -> None:
    rows = sweep("kth-from-last", [1, 2, 3, 4, 5], 40, 60.0)
    assert "stopped" in rows[-1] and "equivalence product: size budget of 40" in rows[-1]["stopped"]
    assert all(r["equivalent"] for r in rows[:-1])
    report = {"command": "x", "date": "d", "commit": "c", "python": "3", "cpus": 2, "budget": 40,
              "families": {"kth-from-last": rows, "associativity": sweep("associativity", [2], 40, 60.0),
                           "thresholds": sweep("thresholds", [1, 2], 40, 60.0)}}
    assert "size budget of 40" in markdown(report)
