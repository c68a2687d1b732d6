"""Smoke test of the SO-CEL paper benchmark (``benchmarks/socel_bench.py``): it runs on a few hundred tuples, its
two evaluations agree, and Prop 5.1's bounds hold on what it counted. No timing is asserted."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.socel_bench import FORMULA, bench_prop_5_1, bench_semantics, main, sensor_tuples
from cer_theory.formalisms.socel.compile import compile_automaton
from cer_theory.formalisms.socel.parser import parse


def test_the_benchmark_counts_what_the_ucea_outputs() -> None:
    report = bench_prop_5_1(FORMULA, 300, chunk=64)
    stream = list(sensor_tuples(300))
    expected = sum(map(len, compile_automaton(parse(FORMULA)).run(stream)))
    assert report["tuples"] == 300 and report["complex_events"] == expected > 0
    # Prop 5.1: at most |Δ| moves per tuple (of the I/O-determinized UCEA).
    assert 0 < report["max_update_moves"] <= report["determinized_transitions"]
    assert report["max_steps_per_output"] > 0


def test_the_brute_force_agrees_with_prop_5_1_on_the_prefix() -> None:
    report = bench_semantics(FORMULA, 30)
    assert report["agrees_with_prop_5_1"] is True and report["tuples"] == 30


def test_the_command_writes_json_and_markdown(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert main(["--tuples", "200", "--prefix", "12", "--chunk", "50", "--out", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["prop_5_1"]["tuples"] == 200 and report["semantics"]["tuples"] == 12
    assert "| Prop 5.1 evaluator | 200 |" in out.with_suffix(".md").read_text(encoding="utf-8")
