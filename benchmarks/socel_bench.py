"""The SO-CEL paper's Prop 5.1 in numbers: a compiled SO-CEL formula evaluated on a long generated sensor stream, beside
the brute-force semantics (Table 1) on a short prefix.

    python -m benchmarks.socel_bench --tuples 1000000 --prefix 60 --out benchmarks/results/socel.json

The formula is compiled (Prop 5.2), I/O-determinized (§4) and run by :class:`~cer_theory.formalisms.socel.
evaluate_streaming.StreamingEvaluator`: per tuple one ``push`` and the enumeration of every output at that position. The stream is
generated chunk by chunk with the clock paused (as :mod:`benchmarks.worker` does), so the clock measures only
the evaluator and the memory in hand is one chunk. Reported: tuples/s, complex events, the largest number of
moves in one push and of enumeration steps per output (Prop 5.1 bounds both independently of the stream), and
the peak RSS growth over the baseline taken after setup (``VmHWM`` after resetting it, Linux) with the RSS
growth after a quarter and at the end of the stream (flat = memory independent of the stream length). The
brute force enumerates ``⟦φ⟧_n(S)`` by the semantics for every prefix position; both must agree there.

This is a measurement, not a test: ``proofs_tests/socel/test_socel_bench.py`` only runs it on a few hundred
tuples. The report goes to ``--out`` (JSON) and a Markdown table beside it.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.worker import hwm_mb, reset_hwm, rss_mb
from cer_theory.core.events import Event
from cer_theory.formalisms.socel.compile import compile_automaton
from cer_theory.formalisms.socel.streaming import StreamingEvaluator, io_determinize_ucea
from cer_theory.formalisms.socel.parser import parse
from cer_theory.formalisms.socel.semantics import evaluate as run_semantics

REPO = Path(__file__).resolve().parent.parent

FORMULA = "(T IN LOW : H:+ IN RISE : H IN HIGH) FILTER LOW[value < 0] FILTER HIGH[value > 60]"
"""A freezing alarm in the spirit of the SO-CEL paper §2: a sub-zero temperature immediately followed by a block of
humidity readings, the last above 60. Contiguity keeps the outputs per position bounded (at most one), so the
work per tuple, not the size of the answer, is what is measured."""


def sensor_tuples(count: int, seed: int = 0) -> Iterator[Event]:
    """A random sensor stream like Fig. 1's: 30% temperature readings T (value −5..5), 70% humidity readings H
    (value 0..100)."""
    rng = random.Random(seed)
    for _ in range(count):
        if rng.random() < 0.3:
            yield Event("T", value=rng.randint(-5, 5))
        else:
            yield Event("H", value=rng.randint(0, 100))


def bench_prop_5_1(formula: str = FORMULA, tuples: int = 1_000_000, *, seed: int = 0,
                   chunk: int = 10_000) -> dict[str, Any]:
    """Evaluate ``formula`` by Prop 5.1 on ``tuples`` generated tuples; see the module docstring."""
    automaton = compile_automaton(parse(formula))
    det = io_determinize_ucea(automaton)
    evaluator = StreamingEvaluator(det)
    source = sensor_tuples(tuples, seed)
    gc.collect()
    baseline = rss_mb()
    hwm_reset = reset_hwm()
    elapsed, outputs, worst_update, worst_delay, read = 0.0, 0, 0, 0, 0
    rss_quarter: float | None = None
    while read < tuples:
        batch = [e for _, e in zip(range(min(chunk, tuples - read)), source)]  # clock paused
        start = time.perf_counter()
        for event in batch:
            evaluator.push(event)
            worst_update = max(worst_update, evaluator.update_steps)
            for _ in evaluator.outputs():
                outputs += 1
                worst_delay = max(worst_delay, evaluator.enumeration_steps)
                evaluator.enumeration_steps = 0  # steps per output, not per position
        elapsed += time.perf_counter() - start
        read += len(batch)
        if rss_quarter is None and read >= tuples // 4:
            rss_quarter = rss_mb() - baseline
    rss_end = rss_mb() - baseline
    return {
        "formula": formula, "tuples": read, "seed": seed, "seconds": round(elapsed, 3),
        "tuples_per_s": round(read / elapsed) if elapsed > 0 else None, "complex_events": outputs,
        "ucea_states": len(automaton.states), "ucea_transitions": len(automaton.transitions),
        "determinized_states": len(det.states), "determinized_transitions": len(det.transitions),
        "max_update_moves": worst_update, "max_steps_per_output": worst_delay,
        "peak_rss_growth_mib": round(hwm_mb() - baseline, 2) if hwm_reset else None,
        "rss_growth_quarter_mib": round(rss_quarter or 0.0, 2), "rss_growth_end_mib": round(rss_end, 2),
    }


def bench_semantics(formula: str = FORMULA, prefix: int = 60, *, seed: int = 0) -> dict[str, Any]:
    """The brute-force semantics on the first ``prefix`` tuples of the same stream, checked against Prop 5.1's
    evaluator there."""
    phi = parse(formula)
    stream = list(sensor_tuples(prefix, seed))
    start = time.perf_counter()
    by_semantics = run_semantics(phi, stream)
    elapsed = time.perf_counter() - start
    evaluator = StreamingEvaluator(io_determinize_ucea(compile_automaton(phi)))
    by_evaluator = []
    for event in stream:
        evaluator.push(event)
        by_evaluator.append(frozenset(evaluator.outputs()))
    return {"formula": formula, "tuples": prefix, "seed": seed, "seconds": round(elapsed, 3),
            "tuples_per_s": round(prefix / elapsed) if elapsed > 0 else None,
            "complex_events": sum(map(len, by_semantics)), "agrees_with_prop_5_1": by_semantics == by_evaluator}


def run_benchmark(tuples: int, prefix: int, *, seed: int = 0, chunk: int = 10_000) -> dict[str, Any]:
    """Both measurements with the machine they ran on."""
    load_before = os.getloadavg()
    fast = bench_prop_5_1(FORMULA, tuples, seed=seed, chunk=chunk)
    brute = bench_semantics(FORMULA, prefix, seed=seed)
    return {"generated": _dt.datetime.now().isoformat(timespec="seconds"), "commit": _commit(),
            "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                        "load_before": [round(x, 2) for x in load_before],
                        "load_after": [round(x, 2) for x in os.getloadavg()]},
            "prop_5_1": fast, "semantics": brute}


def _commit() -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def markdown(report: dict[str, Any], command: str) -> str:
    """The report as a short Markdown page."""
    f, b, m = report["prop_5_1"], report["semantics"], report["machine"]
    flat = "yes" if f["rss_growth_end_mib"] - f["rss_growth_quarter_mib"] <= 8.0 else "no"
    return "\n".join([
        "# Benchmark: Prop 5.1 evaluation of a compiled SO-CEL formula (the SO-CEL paper)", "",
        f"Generated by `{command}` on {report['generated']}, commit {report['commit']}.",
        f"Python {m['python']}, {m['cpus']} CPUs, load average before/after: {m['load_before']} / "
        f"{m['load_after']}.", "",
        f"Formula: `{f['formula']}`; stream: `sensor_tuples(n, seed={f['seed']})` (30% T, 70% H). UCEA "
        f"(Prop 5.2): {f['ucea_states']} states, {f['ucea_transitions']} transitions; I/O-determinized: "
        f"{f['determinized_states']} states, {f['determinized_transitions']} transitions.", "",
        "| evaluation | tuples | seconds | tuples/s | complex events | peak RSS growth MiB |",
        "|---|---|---|---|---|---|",
        f"| Prop 5.1 evaluator | {f['tuples']:,} | {f['seconds']} | {f['tuples_per_s']:,} | "
        f"{f['complex_events']:,} | {f['peak_rss_growth_mib']} |",
        f"| brute-force semantics (Table 1) | {b['tuples']:,} | {b['seconds']} | {b['tuples_per_s']:,} | "
        f"{b['complex_events']:,} | – |", "",
        f"Prop 5.1's bounds, observed: at most {f['max_update_moves']} moves per tuple and "
        f"{f['max_steps_per_output']} enumeration steps per output over the whole stream. RSS growth after a "
        f"quarter / at the end: {f['rss_growth_quarter_mib']} / {f['rss_growth_end_mib']} MiB (flat: {flat}). "
        f"Semantics and evaluator agree on the prefix: {b['agrees_with_prop_5_1']}.", "",
    ])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tuples", type=int, default=1_000_000)
    ap.add_argument("--prefix", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chunk", type=int, default=10_000)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    report = run_benchmark(args.tuples, args.prefix, seed=args.seed, chunk=args.chunk)
    command = "python -m benchmarks.socel_bench " + " ".join(argv if argv is not None else sys.argv[1:])
    text = markdown(report, command.strip())
    if args.out is not None:
        args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        args.out.with_suffix(".md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
