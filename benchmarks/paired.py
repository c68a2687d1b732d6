"""Two versions of the engine on the same stream, in paired runs: how much faster or slower a change made it.

    python -m benchmarks.paired --baseline ../old-checkout --events 3000000 --runs 10 --queries "P3'" \\
        --paths Arrow,DataFrame --out benchmarks/results/paired.json

On a shared machine the wall-clock rate of the same code drifts by several per cent between runs minutes apart
(the host's load, not the code), which is more than a change to the engine's loop makes: two reports of
:mod:`benchmarks.ingest` taken one after the other cannot tell a 3% difference. Here the stream is built once, in
this process, and each run is a child forked from it that imports ``cer_theory`` from one of the two checkouts
and times ``Engine.process`` on the shared stream (the clock starts after the imports, the columnar path's
included, and the engine's construction, as in :mod:`benchmarks.ingest`: a module one checkout loads at first use
and the other at import would otherwise be counted against one side only). The checkouts alternate (A B, then B A, …), so a drift of the host
hits both runs of a pair alike, and the report gives, per (query, path), each checkout's median rate and the
median of the per-pair ratios with their range. Both checkouts must find the same number of complex events in
every run (for a query without output, such as P3′, that only says both ran), else the comparison is refused
(exit 1); the report names the package each side imported.

Paths: ``Event`` (pre-built Events, built in the child before the clock), ``dicts`` (a list of dicts),
``DataFrame`` (pandas) and ``Arrow`` (a pyarrow Table), the in-memory ways in of :mod:`benchmarks.ingest`.
Linux only (``os.fork``). This process never imports ``cer_theory``: each child imports the checkout it times
(docs/decisions.md D316).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# numpy is loaded here, before any child forks: importing it starts OpenBLAS's worker threads, which spin for a
# while on the other core, and a child that imported it just before its clock ran 3% slower, with CPU time above
# wall time (P3' on 300k dicts, docs/decisions.md D316); a forked child inherits the module without the threads.
import numpy  # noqa: F401

from benchmarks.stock import stock_stream
from benchmarks.suite import SUITE

REPO = Path(__file__).resolve().parents[1]
PATHS = ("Event", "dicts", "DataFrame", "Arrow")


class Refused(Exception):
    """The two checkouts cannot be compared (one failed, or they disagree on the complex events)."""


def checkout(path: str) -> Path:
    """The folder holding a ``cer_theory`` package, or ValueError naming what is missing."""
    root = Path(path).resolve()
    if not (root / "cer_theory" / "__init__.py").is_file():
        raise ValueError(f"{path}: no cer_theory package there (give the root of a checkout)")
    return root


def stream(kind: str, rows: list[dict]) -> Any:
    """The shared input of one path (an Event list is built in each child: Events are the checkout's own type)."""
    if kind == "DataFrame":
        import pandas as pd
        return pd.DataFrame(rows)
    if kind == "Arrow":
        import pyarrow as pa
        return pa.Table.from_pylist(rows)
    return rows


def timed_child(root: Path, text: str, kind: str, data: Any) -> dict:
    """In a forked child: import ``cer_theory`` from ``root`` and time one run of ``text`` on ``data``."""
    sys.path.insert(0, str(root))
    try:  # the columnar path, loaded with the first batch (numpy): here before the clock, as in benchmarks.ingest
        import cer_theory.engines.core.batches  # noqa: F401
    except ModuleNotFoundError as error:  # (a checkout from before the data side was rebuilt loads it with the engine)
        if error.name != "cer_theory.engines.core.batches":
            raise
    from cer_theory.core.events import Event
    from cer_theory.engines.core import Engine
    import cer_theory
    if Path(cer_theory.__file__).resolve().parents[1] != root:
        return {"error": f"imported {cer_theory.__file__}, not the checkout {root}"}
    if kind == "Event":
        data = [Event.from_dict(d) for d in data]
    engine = Engine(text)
    cpu, wall = time.process_time(), time.perf_counter()
    outputs = sum(1 for _ in engine.process(data))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"seconds": wall, "cpu_seconds": cpu, "outputs": outputs, "package": cer_theory.__file__}


def fork_run(root: Path, text: str, kind: str, data: Any) -> dict:
    """:func:`timed_child` in a child process forked from this one (the stream is shared, not rebuilt)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report through the pipe, whatever happens, and never return into the parent's code
        try:
            os.close(read)
            try:
                result = timed_child(root, text, kind, data)
            except BaseException as error:  # noqa: BLE001 (an engine's failure is the report, not a crash of the run)
                result = {"error": f"{type(error).__name__}: {error}"}
            os.write(write, json.dumps(result).encode())
        finally:
            os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    try:
        found = json.loads(b"".join(chunks))
    except ValueError:
        found = None
    if status != 0 or not isinstance(found, dict):
        return {"error": f"the child ended with status {status} and {'a' if found else 'no'} report"}
    return found


def compare(runs: dict[str, list[dict]], events: int, names: tuple[str, str]) -> dict:
    """Medians and the paired ratio (first over second) of one (query, path); Refused if the runs cannot be
    compared."""
    for name in names:
        failed = [r["error"] for r in runs[name] if "error" in r]
        if failed:
            raise Refused(f"{name}: {failed[0]}")
    outputs = {r["outputs"] for name in names for r in runs[name]}
    if len(outputs) != 1:
        raise Refused(f"the checkouts disagree on the number of complex events: {sorted(outputs)}")
    packages = {name: sorted({r["package"] for r in runs[name]}) for name in names}
    rates = {name: [events / r["seconds"] for r in runs[name]] for name in names}
    cpu = {name: [events / r["cpu_seconds"] for r in runs[name]] for name in names}
    ratios = sorted(a / b for a, b in zip(*(rates[name] for name in names)))
    cpu_ratios = sorted(a / b for a, b in zip(*(cpu[name] for name in names)))  # (steadier on a loaded machine)
    return {"outputs": outputs.pop(), "packages": packages,
            **{name: {"median": statistics.median(rates[name]), "min": min(rates[name]), "max": max(rates[name]),
                      "cpu_median": statistics.median(cpu[name])} for name in names},
            "ratio": {"median": statistics.median(ratios), "min": ratios[0], "max": ratios[-1]},
            "cpu_ratio": {"median": statistics.median(cpu_ratios), "min": cpu_ratios[0], "max": cpu_ratios[-1]}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="the root of the checkout to compare against")
    parser.add_argument("--candidate", default=str(REPO), help="the root of the checkout measured (this one)")
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=10, help="pairs of runs per (query, path)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--queries", default="P3'")
    parser.add_argument("--paths", default="Arrow,DataFrame")
    parser.add_argument("--out", default="benchmarks/results/paired.json")
    args = parser.parse_args(argv)
    queries = [q.strip() for q in args.queries.split(",")]
    paths = [p.strip() for p in args.paths.split(",")]
    try:
        roots = checkout(args.candidate), checkout(args.baseline)
        unknown = [q for q in queries if q not in SUITE] + [p for p in paths if p not in PATHS]
        if unknown:
            raise ValueError(f"unknown query or path: {', '.join(unknown)} (paths: {', '.join(PATHS)})")
        if args.runs < 1 or args.events < 1:
            raise ValueError("--runs and --events must be at least 1")
        if Path(args.out).suffix != ".json":
            raise ValueError(f"{args.out}: the report is a .json file (its .md is written next to it)")
    except ValueError as error:
        print(f"benchmarks.paired: {error}", file=sys.stderr)
        return 2
    names = ("candidate", "baseline")
    report: dict[str, Any] = {"meta": {
        "command": "python -m benchmarks.paired " + " ".join(argv if argv is not None else sys.argv[1:]),
        "date": _dt.datetime.now().isoformat(timespec="seconds"), "events": args.events, "runs": args.runs,
        "machine": {"platform": platform.platform(), "python": platform.python_version(), "cpus": os.cpu_count()},
        "commits": {name: _commit(root) for name, root in zip(names, roots)},
        "load_before": [round(x, 2) for x in os.getloadavg()]}, "results": {q: {} for q in queries}}
    rows = list(stock_stream(args.events, args.seed))
    try:
        for q in queries:
            for p in paths:
                data = stream(p, rows)
                gc.collect()
                gc.freeze()  # (the shared stream is not walked by the children's collections, nor copied by them)
                runs: dict[str, list[dict]] = {name: [] for name in names}
                for k in range(args.runs):
                    order = list(zip(names, roots))
                    for name, root in (order if k % 2 == 0 else order[::-1]):
                        runs[name].append(fork_run(root, SUITE[q].text, p, data))
                gc.unfreeze()
                report["results"][q][p] = found = compare(runs, args.events, names)
                print(q, p, f"ratio {found['ratio']['median']:.4f}, by CPU {found['cpu_ratio']['median']:.4f}",
                      flush=True)
    except Refused as error:
        print(f"benchmarks.paired: {error}", file=sys.stderr)
        return 1
    report["meta"]["load_after"] = [round(x, 2) for x in os.getloadavg()]
    out = Path(args.out)
    for target, text in ((out, json.dumps(report, indent=1) + "\n"), (out.with_suffix(".md"), render(report))):
        aside = target.with_name(target.name + ".tmp")
        aside.write_text(text)
        aside.replace(target)
    print(render(report))
    return 0


def _commit(root: Path) -> str | None:
    found = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=root)
    return found.stdout.strip() or None


def _range(ratio: dict | None) -> str:
    return "–" if ratio is None else f"{ratio['median']:.3f} ({ratio['min']:.3f}–{ratio['max']:.3f})"


def render(report: dict) -> str:
    meta = report["meta"]
    commits = meta["commits"]
    lines = [f"# Paired runs: {commits['candidate']} against {commits['baseline']} ({meta['events']:,} stock events, "
             f"{meta['runs']} pairs)", "",
             f"`{meta['command']}` — {meta['date']}; load average before {meta['load_before']}, after "
             f"{meta.get('load_after')}.", "",
             "events/s of `Engine.process` (median, and the range of the runs), each run a child forked from one "
             "process that built the stream once, the two checkouts alternating; `ratio`: the median of the "
             "per-pair ratios candidate / baseline, with their range. `CPU`: events per CPU second (median); "
             "`CPU ratio`: the median of the per-pair ratios of those, steadier than wall time on a loaded machine.",
             "",
             "| query | path | candidate | baseline | ratio (range) | CPU candidate | CPU baseline | CPU ratio (range) "
             "| complex events |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for q, paths in report["results"].items():
        for p, r in paths.items():
            a, b, ratio = r["candidate"], r["baseline"], r["ratio"]
            lines.append(f"| {q} | {p} | {a['median']:,.0f} ({a['min']:,.0f}–{a['max']:,.0f}) | "
                         f"{b['median']:,.0f} ({b['min']:,.0f}–{b['max']:,.0f}) | "
                         f"{ratio['median']:.3f} ({ratio['min']:.3f}–{ratio['max']:.3f}) | "
                         f"{a['cpu_median']:,.0f} | {b['cpu_median']:,.0f} | {_range(r.get('cpu_ratio'))} | "
                         f"{r['outputs']:,} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
