"""Every figure of issue 39's "done means" in one command, pycer in the same run:

    python -m benchmarks.acceptance --events 300000,3000000 --runs 3 --baseline ../cer_theory-OLD

For each stream length (each a :mod:`benchmarks.ingest` measurement: every (query, path, run) a fresh process, the
runs interleaved, pycer's engine-only rate beside them):

* the engine alone (``Event``: pre-built Events) against pycer on P3, P3′ and P3′ within 4T (``P3'x4``);
* ``cer-theory run`` on JSON Lines, CSV and Parquet (the whole command, start-up included) against pycer, on P3
  (every complex event encoded and written) and P3′, with each command's peak RSS;
* dicts, DataFrame and Arrow against the ``Event`` path.

Then, once: the start-up of ``cer-theory run`` on a 10-event file (median wall time of 5 commands, and the
imports' share from ``-X importtime``); whether the peak RSS of ``run`` is flat in the stream's length (the
largest length's peak at most 32 MiB above the smallest's); and with ``--baseline`` (a checkout of the code before
the change) the paired ratios of :mod:`benchmarks.paired` on every in-memory path at the smallest length.

The report, ``--out`` (JSON) and the Markdown beside it, states each target met or missed with its ratio, the
machine's load average before and after, and says "loaded" when the load average was above 1.5 (2 cores): such
figures are not acceptance figures. ``--events 30000 --runs 1`` is a quick look (about a minute).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import ingest, paired
from benchmarks.run import REPO, command_env, machine_info

PATHS = "Event,dicts,DataFrame,Arrow,run jsonl,run csv,run parquet"
"""The paths of P3 and P3′ (P3′x4: ``Event`` only, the engine's target)."""

FLAT_MIB = 32
"""How far the peak RSS of ``run`` at the largest length may lie above the smallest's and still be flat."""

LOADED = 1.5
"""A load average above this (on 2 cores) marks the figures as taken on a loaded machine."""

START_UP_TARGET = 0.2


def start_up(runs: int = 5) -> dict:
    """``cer-theory run`` on a 10-event JSON Lines file: median wall time of ``runs`` commands, and what
    ``-X importtime`` counts for the imports of one more."""
    from benchmarks.stock import stock_stream
    from benchmarks.suite import SUITE

    env = command_env()
    with tempfile.TemporaryDirectory(prefix="cer_startup_") as tmp:
        stream = Path(tmp) / "ten.jsonl"
        stream.write_text("".join(json.dumps(e) + "\n" for e in stock_stream(10, 0)))
        command = [sys.executable, "-m", "cer_theory.cli", "run", "--query", SUITE["P3"].text, "--stream",
                   str(stream), "--output", os.devnull, "--progress", "0"]
        walls = []
        for _ in range(runs):
            t = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, env=env, cwd=str(REPO))
            walls.append(time.perf_counter() - t)
        traced = subprocess.run([sys.executable, "-X", "importtime", *command[1:]], check=True, capture_output=True,
                                text=True, env=env, cwd=str(REPO))
    imports_us = sum(int(line.split("|")[1]) for line in traced.stderr.splitlines()
                     if line.startswith("import time:") and "|" in line and line.split("|")[1].strip().isdigit()
                     and not line.split("|")[2].startswith("  "))  # (top-level imports: each counts its own)
    return {"seconds": round(statistics.median(walls), 3), "runs": [round(w, 3) for w in walls],
            "imports_seconds": round(imports_us / 1e6, 3), "target": START_UP_TARGET,
            "met": statistics.median(walls) <= START_UP_TARGET}


def at_length(events: int, runs: int, folder: Path) -> dict:
    """:mod:`benchmarks.ingest` at one length: P3 and P3′ on every path, P3′x4 on ``Event``."""
    reports = []
    for queries, paths, name in (("P3,P3'", PATHS, "paths"), ("P3'x4", "Event", "x4")):
        out = folder / f"ingest_{events}_{name}.json"
        code = ingest.main(["--events", str(events), "--runs", str(runs), "--queries", queries, "--paths", paths,
                            "--out", str(out)])
        if code != 0:
            raise SystemExit(f"benchmarks.ingest failed ({code}) at {events} events")
        reports.append(json.loads(out.read_text()))
    merged = reports[0]
    merged["results"].update(reports[1]["results"])
    merged["meta"]["load_after"] = reports[1]["meta"]["load_after"]
    return merged


def checked(report: dict) -> list[dict]:
    """Each target of the issue at this length: the path, its reference, the ratio, met or not."""
    goals = ingest.targets(report["meta"]["events"])
    rows = []
    for q, paths in report["results"].items():
        for p, (ref, least) in goals.items():
            rate = (paths.get(p) or {}).get("events_per_s")
            base = (paths.get(ref) or {}).get("events_per_s")
            cpu, cpu_base = ((paths.get(name) or {}).get("cpu_events_per_s") for name in (p, ref))
            if rate and base:
                rows.append({"query": q, "path": p, "reference": ref, "least": least,
                             "ratio": round(rate / base, 3), "met": rate / base >= least,
                             "cpu_ratio": round(cpu / cpu_base, 3) if cpu and cpu_base else None})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", default="300000,3000000", help="stream lengths, comma-separated")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", help="a checkout of the code before the change, for the paired ratios")
    parser.add_argument("--pairs", type=int, default=8, help="pairs of runs per (query, path) with --baseline")
    parser.add_argument("--out", default="benchmarks/results/acceptance.json")
    args = parser.parse_args(argv)
    lengths = sorted(int(n) for n in args.events.split(","))
    if not lengths or min(lengths) < 1 or args.runs < 1:
        parser.error("--events and --runs must be positive")
    out = Path(args.out)
    if out.suffix != ".json":
        parser.error("--out must be a .json file (the Markdown is written beside it)")
    out.parent.mkdir(parents=True, exist_ok=True)
    load_before = [round(x, 2) for x in os.getloadavg()]
    report: dict[str, Any] = {"meta": {
        "command": "python -m benchmarks.acceptance " + " ".join(argv if argv is not None else sys.argv[1:]),
        "date": _dt.datetime.now().isoformat(timespec="seconds"), "machine": machine_info(),
        "commit": paired._commit(REPO), "load_before": load_before}, "lengths": {}}
    with tempfile.TemporaryDirectory(prefix="cer_acceptance_") as tmp:
        for n in lengths:
            found = at_length(n, args.runs, Path(tmp))
            report["lengths"][str(n)] = {"meta": found["meta"], "results": found["results"], "targets": checked(found)}
    report["start_up"] = start_up()
    peaks = {n: (report["lengths"][str(n)]["results"].get("P3", {}).get("run jsonl") or {}).get("peak_rss_mb")
             for n in lengths}
    if len(lengths) > 1 and all(peaks.values()):
        growth = peaks[lengths[-1]] - peaks[lengths[0]]  # type: ignore[operator]
        report["memory"] = {"peak_rss_mb": peaks, "growth_mb": round(growth, 1), "flat": growth <= FLAT_MIB}
    if args.baseline:
        paired_out = out.with_name(out.stem + "_paired.json")
        # (its own process: its children import cer_theory from each checkout, so it must not be loaded yet)
        code = subprocess.run([sys.executable, "-m", "benchmarks.paired", "--baseline", args.baseline, "--events",
                               str(lengths[0]), "--runs", str(args.pairs), "--queries", "P3',P3", "--paths",
                               "Event,dicts,DataFrame,Arrow", "--out", str(paired_out.resolve())],
                              cwd=str(REPO)).returncode
        report["paired"] = json.loads(paired_out.read_text()) if code == 0 else {"error": f"exit status {code}"}
    load_after = [round(x, 2) for x in os.getloadavg()]
    report["meta"]["load_after"] = load_after
    report["meta"]["loaded"] = max(load_before[0], load_after[0]) > LOADED
    out.write_text(json.dumps(report, indent=1) + "\n")
    out.with_suffix(".md").write_text(render(report))
    print(render(report))
    return 0


def render(report: dict) -> str:
    meta = report["meta"]
    lines = [f"# Issue 39's figures (commit {meta.get('commit') or 'unknown'})", "",
             f"`{meta['command']}` — {meta['date']}; load average before {meta['load_before']}, after "
             f"{meta['load_after']}.", ""]
    if meta["loaded"]:
        lines += ["**Taken on a loaded machine** (load average above "
                  f"{LOADED} on 2 cores): these are not acceptance figures; re-run on the idle machine.", ""]
    for n, at in report["lengths"].items():
        lines += [f"## {int(n):,} events", "", "`ratio`: events per wall second over the reference's, which the "
                  "target is about; `by CPU`: events per CPU second over the reference's (pycer's CPU time counts "
                  "its server's threads), what a loaded machine distorts least.", "",
                  "| query | path | × | ratio | target | by CPU |", "|---|---|---|---:|---|---:|"]
        for t in at["targets"]:
            by_cpu = "–" if t.get("cpu_ratio") is None else f"{t['cpu_ratio']:.2f}"
            lines.append(f"| {t['query']} | {t['path']} | {t['reference']} | {t['ratio']:.2f} | "
                         f"≥ {t['least']}: {'met' if t['met'] else 'MISSED'} | {by_cpu} |")
        lines += ["", ingest.render({"meta": at["meta"], "results": at["results"]}).split("\n", 2)[2]]
    s = report["start_up"]
    lines += ["## Start-up", "", f"`cer-theory run` on a 10-event file: {s['seconds']:.3f} s (median of "
              f"{len(s['runs'])}: {s['runs']}), of which imports {s['imports_seconds']:.3f} s (`-X importtime`); "
              f"≤ {s['target']} s: {'met' if s['met'] else 'MISSED'}.", ""]
    if "memory" in report:
        m = report["memory"]
        lines += ["## Memory", "", f"Peak RSS of `run` (P3, JSON Lines) by length: "
                  + ", ".join(f"{int(k):,}: {v} MiB" for k, v in m["peak_rss_mb"].items())
                  + f"; growth {m['growth_mb']} MiB: {'flat' if m['flat'] else 'NOT flat'} (≤ {FLAT_MIB} MiB).", ""]
    if "paired" in report:
        lines += ["## Paired against the baseline", ""]
        p = report["paired"]
        lines += [paired.render(p).split("\n", 2)[2] if "error" not in p else f"failed: {p['error']}", ""]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
