"""The user paths side by side: what a user gets from a file, dicts, a DataFrame or an Arrow table, against CORE's
C++ engine handed pre-built events (pycer) on the same stream, in the same run.

    python -m benchmarks.ingest --events 300000 --runs 1 --out benchmarks/results/ingest.json [--queries P3,P3']

Paths (each (query, path, run) a fresh process; runs interleaved):

* ``Event`` — ``Engine.process`` on pre-built Events (built before the clock): the engine alone.
* ``dicts`` — ``Engine.process`` on a list of dicts (batched, :mod:`cer_theory.streams.convert`);
  ``dicts validate`` — the same with ``validate=True`` (one ``Event.from_dict`` per dict).
* ``DataFrame`` / ``Arrow`` — ``Engine.process`` on a pandas DataFrame / pyarrow Table (built before the clock).
* ``run jsonl`` / ``run csv`` / ``run parquet`` — ``cer-theory run --query … --stream FILE --output /dev/null``
  end to end: wall time of the whole command, interpreter start-up and imports included (the complex events are
  encoded as JSON Lines and written to /dev/null).
* ``pycer`` — :mod:`benchmarks.worker`'s pycer run (PyEvents preloaded before the clock).

The report gives events/s per path and its ratio to pycer and to the ``Event`` path, with the issue's targets.
"""

from __future__ import annotations

import argparse
import csv
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

from benchmarks.run import REPO, command_env, machine_info, run_worker
from cer_theory.conformance.pycer_env import PYCER_VENV, ensure_pycer
from benchmarks.stock import stock_stream
from benchmarks.suite import SUITE

PATHS = ("Event", "dicts", "dicts validate", "DataFrame", "Arrow", "run jsonl", "run csv", "run parquet")
def targets(events: int) -> dict[str, tuple[str, float]]:
    """Issue 39's targets at a stream of ``events``: path → (the reference it is compared with, the least ratio).
    The engine alone (``Event``) at twice pycer's engine-only rate; ``run`` (start-up included) at pycer's rate on
    300k events and 1.5× from 1M on, where the start-up has amortized; dicts at 0.9× ``Event``, DataFrame and
    Arrow at 1.0×."""
    run = 1.0 if events < 1_000_000 else 1.5
    return {"Event": ("pycer", 2.0), "run jsonl": ("pycer", run), "run csv": ("pycer", run),
            "run parquet": ("pycer", run), "dicts": ("Event", 0.9), "DataFrame": ("Event", 1.0),
            "Arrow": ("Event", 1.0)}


def write_files(n: int, seed: int, folder: Path) -> dict[str, Path]:
    """The stock stream as JSON Lines, CSV and Parquet files."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = list(stock_stream(n, seed))
    paths = {"jsonl": folder / "s.jsonl", "csv": folder / "s.csv", "parquet": folder / "s.parquet"}
    with paths["jsonl"].open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    with paths["csv"].open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    pq.write_table(pa.Table.from_pylist(rows), paths["parquet"])
    return paths


def in_process(config: dict) -> dict:
    """One in-memory path in this (fresh) process: the input built before the clock, then timed."""
    import pyarrow as pa

    import cer_theory.engines.core.batches  # noqa: F401 (the columnar path: loaded with the first batch, here before the clock)
    from cer_theory.core.events import Event
    from cer_theory.engines.core import Engine

    rows = list(stock_stream(config["events"], config["seed"]))
    path = config["path"]
    if path == "Event":
        data: Any = [Event.from_dict(r) for r in rows]
    elif path == "DataFrame":
        data = pa.Table.from_pylist(rows).to_pandas()
    elif path == "Arrow":
        data = pa.Table.from_pylist(rows)
    else:
        data = rows
    engine = Engine(config["text"])
    t, c = time.perf_counter(), time.process_time()
    count = sum(1 for _ in engine.process(data, validate=path == "dicts validate"))
    elapsed, cpu = time.perf_counter() - t, time.process_time() - c
    return {"events_per_s": round(len(rows) / elapsed, 1), "seconds": round(elapsed, 3), "outputs": count,
            "cpu_events_per_s": round(len(rows) / cpu, 1)}


LAUNCHER = """
import json, os, sys, time
t = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(json.dumps({"seconds": time.perf_counter() - t, "status": os.waitstatus_to_exitcode(status),
                  "cpu": usage.ru_utime + usage.ru_stime, "peak_kib": usage.ru_maxrss}))
"""
"""Times one command from a small interpreter of its own: a child's peak RSS (``ru_maxrss``) also counts the memory
of the process it was forked from, up to its ``exec``, so a command forked from this harness (which holds the
stream) would report the harness's size."""


def end_to_end(config: dict) -> dict:
    """``cer-theory run`` on a file: wall time of the whole command, its CPU time (threads included) and peak RSS."""
    env = command_env()
    with tempfile.TemporaryFile("w+") as err:
        launched = subprocess.run([sys.executable, "-c", LAUNCHER, sys.executable, "-m", "cer_theory.cli", "run",
                                   "--query", config["text"], "--stream", config["file"], "--output", os.devnull,
                                   "--progress", "0"], stdout=subprocess.PIPE, stderr=err, text=True, env=env,
                                  cwd=str(REPO))
        err.seek(0)
        stderr = err.read()
    found = json.loads(launched.stdout) if launched.returncode == 0 else {"status": launched.returncode}
    if found["status"] != 0:
        return {"error": stderr.strip()[-300:]}
    summary = stderr.strip().splitlines()[-1]  # "run: N events, M complex events in S s"
    outputs = int(summary.split(", ")[1].split()[0].replace(",", ""))
    elapsed = found["seconds"]
    return {"events_per_s": round(config["events"] / elapsed, 1), "seconds": round(elapsed, 3), "outputs": outputs,
            "cpu_events_per_s": round(config["events"] / found["cpu"], 1),
            "peak_rss_mb": round(found["peak_kib"] / 1024, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=300_000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--queries", default="P3,P3'")
    parser.add_argument("--paths", default=",".join(PATHS))
    parser.add_argument("--out", default="benchmarks/results/ingest.json")
    parser.add_argument("--pycer-venv", default=str(PYCER_VENV))
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        config = json.load(sys.stdin)
        print(json.dumps(in_process(config)))
        return 0
    queries = [q.strip() for q in args.queries.split(",")]
    paths = [p.strip() for p in args.paths.split(",")]
    pycer, note = ensure_pycer(Path(args.pycer_venv))
    report: dict[str, Any] = {"meta": {
        "command": "python -m benchmarks.ingest " + " ".join(argv if argv is not None else sys.argv[1:]),
        "date": _dt.datetime.now().isoformat(timespec="seconds"), "machine": machine_info(), "events": args.events,
        "runs": args.runs, "pycer": note, "load_before": [round(x, 2) for x in os.getloadavg()]},
        "results": {q: {} for q in queries}}
    runs: dict[str, dict[str, list[dict]]] = {q: {p: [] for p in ["pycer", *paths]} for q in queries}
    with tempfile.TemporaryDirectory(prefix="cer_ingest_") as tmp:
        files = write_files(args.events, args.seed, Path(tmp))
        for _ in range(args.runs):
            for q in queries:
                text = SUITE[q].text
                base = {"query": q, "text": text, "events": args.events, "seed": args.seed}
                if pycer:
                    res = run_worker(pycer, {**base, "engine": "pycer", "chunk": 10_000,
                                             "sample_every": max(10_000, args.events // 20), "time_budget": None,
                                             "profile": None}, timeout=3600)
                    if res.get("cpu_seconds"):  # (its process's CPU over the clock: the server's threads too)
                        res["cpu_events_per_s"] = round(args.events / res["cpu_seconds"], 1)
                    runs[q]["pycer"].append(res)
                    print(q, "pycer", res.get("events_per_s", res.get("error")), flush=True)
                for p in paths:
                    if p.startswith("run "):
                        res = end_to_end({**base, "file": str(files[p.split()[1]])})
                    else:
                        proc = subprocess.run([sys.executable, "-m", "benchmarks.ingest", "--worker"],
                                              input=json.dumps({**base, "path": p}), capture_output=True,
                                              text=True, cwd=str(REPO),
                                              env={**os.environ, "PYTHONPATH": str(REPO), "PYTHONHASHSEED": "0"})
                        res = (json.loads(proc.stdout) if proc.returncode == 0
                               else {"error": proc.stderr.strip()[-300:]})
                    runs[q][p].append(res)
                    print(q, p, res.get("events_per_s", res.get("error")), flush=True)
    report["meta"]["load_after"] = [round(x, 2) for x in os.getloadavg()]
    for q in queries:
        for p, results in runs[q].items():
            rates = [r["events_per_s"] for r in results if "events_per_s" in r]
            cpu = [r["cpu_events_per_s"] for r in results if "cpu_events_per_s" in r]
            rss = [r["peak_rss_mb"] for r in results if "peak_rss_mb" in r]
            report["results"][q][p] = {"events_per_s": statistics.median(rates) if rates else None,
                                       "cpu_events_per_s": statistics.median(cpu) if cpu else None,
                                       "peak_rss_mb": max(rss) if rss else None,
                                       "outputs": sorted({r.get("outputs") for r in results if "outputs" in r}),
                                       "errors": [r["error"] for r in results if "error" in r]}
    out = Path(args.out)
    out.write_text(json.dumps(report, indent=1) + "\n")
    out.with_suffix(".md").write_text(render(report))
    print(render(report))
    return 0


def render(report: dict) -> str:
    meta = report["meta"]
    lines = [f"# User paths against pycer ({meta['events']:,} stock events, {meta['runs']} run(s))", "",
             f"`{meta['command']}` — {meta['date']}; load average before {meta['load_before']}, after "
             f"{meta.get('load_after')}; {meta['pycer']}.", "",
             "events/s (median of the runs); ratios to pycer's engine-only rate (pre-built PyEvents) and to our "
             "`Event` path (pre-built Events) in the same run. `run …` is `cer-theory run` end to end (start-up "
             "included, output JSON Lines to /dev/null). `CPU ev/s`: events per CPU second of the same run "
             "(`time.process_time`, or the command's user + system time, threads included), steadier than wall time "
             "on a shared machine; pycer's is its process's CPU time over its clock, its server's threads "
             "included.", ""]
    goals = targets(meta["events"])
    for q, paths in report["results"].items():
        pycer = (paths.get("pycer") or {}).get("events_per_s")
        event = (paths.get("Event") or {}).get("events_per_s")
        lines += [f"## {q}", "", "| path | events/s | ×pycer | ×Event | CPU ev/s | complex events | target |",
                  "|---|---:|---:|---:|---:|---:|---|"]
        for p, r in paths.items():
            rate = r["events_per_s"]
            target = ""
            if p in goals and rate:
                ref, least = goals[p]
                base = pycer if ref == "pycer" else event
                if base:
                    target = f"≥ {least}× {ref}: {'met' if rate / base >= least else 'MISSED'}"
            cell = lambda base: f"{rate / base:.2f}" if rate and base else "–"  # noqa: E731
            cpu = r.get("cpu_events_per_s")
            lines.append(f"| {p} | {rate:,.0f} | {cell(pycer)} | {cell(event)} | "
                         f"{f'{cpu:,.0f}' if cpu else '–'} | {', '.join(map(str, r['outputs']))} | {target} |"
                         if rate else f"| {p} | – | – | – | – | | {'; '.join(r['errors'])[:120]} |")
        lines.append("")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
