"""The benchmark harness: CORE's stock suite on a generated stream, our engine side by side with its peers.

    python -m benchmarks.run --events 3000000 --runs 3 --out benchmarks/results/suite.json \\
        [--queries P3,P3'] [--engines ours,naive,pycer] [--time-budget S] [--profile auto|none|P3,...]

Every (query, engine, run) is a fresh subprocess (:mod:`benchmarks.worker`), so each peak RSS is that run's own;
runs are interleaved (run 1 of every query and engine, then run 2, …) so that a disturbance of the machine
hits all of them alike. The report (``--out`` JSON and a Markdown table beside it) gives, per query and engine,
the median events/s over the runs, the number of complex events, the peak RSS growth over the preloaded
baseline and its curve along the stream, and then the issue's targets with their margins.

Engines: ``ours`` (:class:`cer_theory.engines.core.Engine`, the tECS), ``naive`` (:mod:`benchmarks.naive`, explicit
partial runs) and ``pycer`` (CORE's C++ engine through its Python binding; its wheels are for CPython 3.13
only, so it runs in a 3.13 virtual environment made on first use, or is skipped with the reason recorded) and
``flink`` (Apache Flink's ``MATCH_RECOGNIZE`` through PyFlink, on the queries :mod:`benchmarks.flink_suite` writes
as row pattern recognition, under the ``.venv-flink`` interpreter: Flink's extra pins older pandas/pyarrow; skipped
with the reason recorded when that environment or Java is missing). Flink's output counts are compared with the
others' only where the semantics coincide (:attr:`benchmarks.flink_suite.RprQuery.counts_comparable`); elsewhere the
report says why they differ.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.flink_suite import NOT_EXPRESSED, RPR_SUITE
from benchmarks.suite import DEFAULT_QUERIES, SUITE, WINDOW_SWEEP, BenchQuery
from cer_theory.conformance.pycer_env import PYCER_SKIP, PYCER_VENV, ensure_pycer

REPO = Path(__file__).resolve().parent.parent
ENGINES = ("ours", "naive", "pycer", "flink")
FLINK_VENV = REPO / ".venv-flink"
"""Flink's own environment (made as ``.ci/run`` makes it: ``python3.11 -m venv .venv-flink`` and
``.venv-flink/bin/pip install -e '.[flink,test]'``)."""
def command_env() -> dict[str, str]:
    """The environment of a timed ``cer-theory`` command: the package compiled to bytecode first, as an install
    leaves it (pip compiles every module), and PYTHONDONTWRITEBYTECODE dropped, so that a command never pays for
    compiling the package's sources (about a third of the start-up of ``cer-theory run`` when every module is
    compiled anew)."""
    import compileall

    compileall.compile_dir(str(REPO / "cer_theory"), quiet=1)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(REPO), "PYTHONHASHSEED": "0"}


THROUGHPUT_TARGETS = ("P3", "P3'", "P3'x2", "P3'x3", "P3'x4")
"""Queries on which ours must reach ≥ 1.0× pycer's events/s (the issue's targets; P3′ is the sweep's T)."""
SWEEP_RATIO = 0.9
MEMORY_RATIO = 0.1
FLAT_SLACK_MB = 8.0
"""Peak memory counts as independent of the stream length if the RSS growth at the end of the stream exceeds
the growth after its first quarter by at most this much (allocator noise)."""


# ---------------------------------------------------------------------------------------------- one run


def run_worker(python: str, config: dict, *, timeout: float) -> dict:
    """One run in a fresh process; the worker's JSON result, or ``{"error": …}``."""
    with tempfile.TemporaryDirectory(prefix="cer_bench_") as tmp:
        config = {**config, "result_path": os.path.join(tmp, "result.json")}
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONHASHSEED": "0"}
        # pycer writes logs/ into its working directory: give it the scratch one.
        cwd = tmp if config["engine"] == "pycer" else str(REPO)
        try:
            proc = subprocess.run([python, "-m", "benchmarks.worker"], input=json.dumps(config), text=True,
                                  capture_output=True, cwd=cwd, env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"error": f"timeout after {timeout:.0f} s"}
        if proc.returncode != 0 or not os.path.exists(config["result_path"]):
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            return {"error": f"exit status {proc.returncode}: {' | '.join(tail)}"}
        with open(config["result_path"]) as f:
            return json.load(f)


def flink_python(venv: Path) -> tuple[str | None, str]:
    """The interpreter of Flink's environment and a note, or None and why Flink is skipped."""
    python = venv / "bin" / "python"
    if not python.exists():
        return None, (f"no Flink environment at {venv} (python3.11 -m venv {venv} && {venv}/bin/pip install -e "
                      "'.[flink,test]')")
    if shutil.which("java") is None:
        return None, "Flink needs a Java 17 runtime on PATH (java not found)"
    probe = subprocess.run([str(python), "-c", "import importlib.metadata as m; print(m.version('apache-flink'))"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return None, f"{venv} has no apache-flink"
    shown = venv.resolve().relative_to(REPO) if venv.resolve().is_relative_to(REPO) else venv  # the repo's own
    return str(python), f"apache-flink {probe.stdout.strip()} in {shown}, parallelism 1"


# ---------------------------------------------------------------------------------------------- aggregation


def _growth_at(curve: list, fraction: float) -> float | None:
    if not curve:
        return None
    end = curve[-1][0]
    for events, growth in curve:
        if events >= fraction * end:
            return growth
    return curve[-1][1]


def summarize(runs: list[dict]) -> dict:
    """Median events/s over the successful runs, outputs (all runs must agree), memory."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return {"error": runs[-1]["error"] if runs else "no run", "runs": runs}
    rates = [r["events_per_s"] for r in ok]
    growths = [r["peak_growth_mb"] for r in ok if r.get("peak_growth_mb") is not None]
    median_run = sorted(ok, key=lambda r: r["events_per_s"])[len(ok) // 2]
    counts = sorted({r["outputs"] for r in ok if not r["stopped_early"]})
    outputs: Any = counts[0] if len(counts) == 1 else counts
    if not counts:  # every run stopped early: the count over the events the median run read
        outputs = median_run["outputs"]
    curve = median_run["rss_growth_curve"]
    return {
        "events": median_run["events"], "stopped_early": any(r["stopped_early"] for r in ok),
        "events_per_s": round(statistics.median(rates), 1),
        "events_per_s_runs": rates,
        "events_per_s_with_setup": _median_of(ok, "events_per_s_with_setup"),
        "setup_seconds": _median_of(ok, "setup_seconds"),
        "outputs": outputs, "outputs_partial": not counts,
        "outputs_consistent": len(counts) <= 1,
        "peak_growth_mb": round(statistics.median(growths), 1) if growths else None,
        "peak_growth_mb_max": max(growths) if growths else None,
        "peak_rss_mb": _median_of(ok, "peak_rss_mb"),  # None where not measured (Flink's JVM)
        "baseline_rss_mb": _median_of(ok, "baseline_rss_mb"),
        "growth_at_quarter_mb": _growth_at(curve, 0.25), "growth_at_end_mb": curve[-1][1] if curve else None,
        "rss_growth_curve": curve,
        "info": median_run.get("info", {}),
        "failed_runs": len(runs) - len(ok),
        "runs": runs,
    }


def _median_of(runs: list[dict], key: str) -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    return round(statistics.median(values), 4) if values else None


def _rate(results: dict, query: str, engine: str) -> float | None:
    s = results.get(query, {}).get(engine, {})
    return s.get("events_per_s") if "error" not in s and "skipped" not in s else None


def evaluate_targets(results: dict) -> list[dict]:
    """The issue's targets, each with its measured value, threshold and margin (value / threshold)."""
    targets: list[dict] = []
    for q in THROUGHPUT_TARGETS:
        ours, pycer = _rate(results, q, "ours"), _rate(results, q, "pycer")
        if q not in results:
            continue
        entry = {"target": f"{q}: ours events/s >= 1.0 x pycer's", "query": q, "ours": ours, "pycer": pycer}
        if ours is None or pycer is None:
            entry.update(met=None, note="not measured (engine skipped or failed)")
        else:
            entry.update(ratio=round(ours / pycer, 3), met=ours >= pycer,
                         shortfall=None if ours >= pycer else f"{100 * (1 - ours / pycer):.0f}% below pycer")
        targets.append(entry)
    t, t4 = _rate(results, WINDOW_SWEEP[0], "ours"), _rate(results, WINDOW_SWEEP[-1], "ours")
    if WINDOW_SWEEP[0] in results and WINDOW_SWEEP[-1] in results:
        entry = {"target": "ours events/s at 4T >= 0.9 x at T (P3'x4 vs P3')", "at_T": t, "at_4T": t4}
        if t and t4:
            entry.update(ratio=round(t4 / t, 3), met=t4 >= SWEEP_RATIO * t)
        else:
            entry.update(met=None, note="not measured")
        targets.append(entry)
    for q, per_engine in results.items():
        ours = per_engine.get("ours", {})
        if "error" in ours or "skipped" in ours or not ours:
            continue
        quarter, end = ours.get("growth_at_quarter_mb"), ours.get("growth_at_end_mb")
        if quarter is not None and end is not None and not ours.get("stopped_early"):
            targets.append({"target": f"{q}: ours peak memory independent of stream length "
                                      f"(growth at end <= growth at 1/4 + {FLAT_SLACK_MB:g} MiB)",
                            "query": q, "growth_at_quarter_mb": quarter, "growth_at_end_mb": end,
                            "met": end <= quarter + FLAT_SLACK_MB})
        pycer = per_engine.get("pycer", {})
        if ours.get("peak_growth_mb") is not None and pycer.get("peak_growth_mb") is not None:
            g, pg = ours["peak_growth_mb"], pycer["peak_growth_mb"]
            targets.append({"target": f"{q}: ours peak RSS growth <= 0.1 x pycer's", "query": q,
                            "ours_mb": g, "pycer_mb": pg,
                            "ratio": round(g / pg, 4) if pg > 0 else None, "met": g <= MEMORY_RATIO * pg})
    return targets


# ---------------------------------------------------------------------------------------------- report


def machine_info() -> dict:
    info: dict[str, Any] = {"platform": platform.platform(), "python": platform.python_version(),
                            "cpus": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            info["cpu"] = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), None)
        with open("/proc/meminfo") as f:
            info["memory_gib"] = round(int(f.readline().split()[1]) / 2**20, 1)
    except OSError:
        pass
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=REPO).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True,
                               cwd=REPO).stdout.strip()
        info["git"] = commit + ("+dirty" if dirty else "")
    except OSError:
        pass
    return info


def _fmt_rate(x: float | None) -> str:
    return "–" if x is None else f"{x / 1e6:.3f} M" if x >= 1e5 else f"{x / 1e3:.1f} k"


def _cell(s: dict) -> tuple[str, str, str]:
    if not s:
        return "–", "–", "–"
    if "skipped" in s:
        return "skipped", "–", "–"
    if "error" in s:
        return "failed", "–", "–"
    partial = "*" if s.get("stopped_early") else ""
    rate = _fmt_rate(s["events_per_s"]) + partial
    outputs = f"{s['outputs']:,}" + ("*" if s.get("outputs_partial") else "") if isinstance(s["outputs"], int) \
        else "≠"
    growth = "–" if s["peak_growth_mb"] is None else f"{s['peak_growth_mb']:.1f}"
    return rate, outputs, growth


NOISE_SPREADS = 5
"""A Flink rate is marked ``~`` when job − fixed cost is under this many spreads of the warm one-event jobs."""


def _capped(s: dict, per_engine: dict) -> bool:
    """The engine read fewer events than the row's stream by its own cap (not by a time budget)."""
    return (isinstance(s.get("events"), int) and not s.get("stopped_early")
            and s["events"] < per_engine.get("events", 0))


def _within_noise(s: dict) -> bool:
    """A rate computed as events / (job − fixed cost) where that difference is within a few spreads of the fixed
    cost's own measurements (Flink's warm one-event jobs, ``benchmarks/worker.py``)."""
    info = s.get("info", {}) if isinstance(s, dict) else {}
    spread = info.get("fixed_job_spread_seconds")
    if spread is None or info.get("job_seconds") is None or info.get("fixed_job_seconds") is None:
        return False
    return info["job_seconds"] - info["fixed_job_seconds"] < NOISE_SPREADS * spread


def _seconds(x: Any) -> str:
    return "–" if x is None else f"{x:.2f}"


def render_markdown(report: dict) -> str:
    meta, results, engines = report["meta"], report["results"], report["meta"]["engines"]
    lines = [
        "# Benchmark results: CORE's stock suite (the CORE paper, §5)", "",
        f"Generated by `{meta['command']}` on {meta['date']}.",
        f"Machine: {meta['machine'].get('cpu')}, {meta['machine'].get('cpus')} CPUs, "
        f"{meta['machine'].get('memory_gib')} GiB; load average before/after: {meta['load_before']} / "
        f"{meta['load_after']}. Commit {meta['machine'].get('git')}.",
        f"Stream: `stock_stream(n, seed={meta['seed']})`, {meta['events']:,} events unless capped; "
        f"Median of {meta['runs']} runs; input: {meta.get('input', 'native')}. Events/s = events read / engine "
        "time (from the first event read to the last complex event counted, input building excluded); MiB = "
        "peak RSS growth over the baseline taken after setup. Protocol: " + meta["protocol"] + ".", "",
    ]
    if "pycer" in engines:
        lines += [f"pycer: {meta.get('pycer')}", ""]
    if "flink" in engines:
        lines += [f"flink: {meta.get('flink')}. Its e/s excludes a job's fixed cost (the median of three warm one-event "
                  "jobs of the same query), as ours excludes parsing and compiling; both with that setup counted, and Flink's "
                  "JVM start, are in the last section. Flink's output counts are compared only where the semantics "
                  "coincide.", ""]
    header = "| query | events | " + " | ".join(f"{e} e/s | {e} CEs | {e} MiB" for e in engines)
    ratios = [e for e in ("pycer", "naive", "flink") if e in engines and "ours" in engines]
    header += "".join(f" | ours/{e}" for e in ratios) + " |"
    lines += [header, "|" + "---|" * (2 + 3 * len(engines) + len(ratios))]
    for q, per_engine in results.items():
        row = [q, f"{per_engine.get('events', 0):,}"]
        for e in engines:
            s = per_engine.get(e, {})
            rate, outputs, growth = _cell(s)
            mark = ("†" if _capped(s, per_engine) else "") + ("~" if _within_noise(s) else "")
            row += [rate + mark, outputs + ("†" if mark.startswith("†") else ""), growth]
        for e in ratios:
            a, b = _rate(results, q, "ours"), _rate(results, q, e)
            comparable = not any(_capped(per_engine.get(x, {}), per_engine) for x in ("ours", e))
            row.append(f"{a / b:.2f}×" if a and b and comparable else "–")
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "`*` the time budget ran out before the end of the stream: rate and CEs over the events read. "
              "`≠` runs disagreed on the output count. `†` the engine read fewer events than the row's stream (its "
              "own cap; the Flink section gives the number): rate and CEs over those, no ratio. `~` the stream's "
              f"share of the job is less than {NOISE_SPREADS} times the spread of the fixed cost it is computed "
              "from: the rate is uncertain by a fifth or more.", "", "## Targets", ""]
    for t in report["targets"]:
        mark = {True: "met", False: "NOT met", None: "n/a"}[t["met"]]
        detail = ", ".join(f"{k}={v}" for k, v in t.items() if k not in ("target", "met", "query"))
        lines.append(f"- **{mark}** — {t['target']} ({detail})")
    agree = report.get("outputs_agree", {})
    if agree:
        lines += ["", "## Do the engines agree?", ""]
        for q, verdict in agree.items():
            lines.append(f"- {q}: {verdict}")
    if "flink" in engines:
        lines += _flink_section(report)
    if report.get("profiles"):
        lines += ["", "## Where ours spends its time (cProfile, top functions by own time)", ""]
        for q, prof in report["profiles"].items():
            lines += [f"### {q} ({prof['events']:,} events; full listing in `{prof['path']}`)", "", "```",
                      *prof["top"], "```", ""]
    return "\n".join(lines) + "\n"


def _flink_section(report: dict) -> list[str]:
    """Per query: Flink's JVM start and fixed job cost, both engines' rates with their setup counted, and how the
    MATCH_RECOGNIZE form's semantics differs from the CEQL query's."""
    lines = ["", "## Flink: fixed costs, rates with setup counted, semantics", "",
             "| query | flink events | JVM start s | first 1-event job s | fixed cost s (median of 3 warm 1-event "
             "jobs) | their spread s | stream job s | flink e/s with fixed cost | ours setup s | ours e/s with setup | "
             "semantics of the MATCH_RECOGNIZE form | Flink's cost |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for q, per_engine in report["results"].items():
        f, o = per_engine.get("flink", {}), per_engine.get("ours", {})
        if q not in RPR_SUITE:
            continue
        info = f.get("info", {}) if "error" not in f and "skipped" not in f else {}
        read = f"{f['events']:,}" if isinstance(f.get("events"), int) else "–"
        lines.append(f"| {q} | {read} | {_seconds(info.get('jvm_start_seconds'))} | "
                     f"{_seconds(info.get('first_job_seconds'))} | {_seconds(f.get('setup_seconds'))} | "
                     f"{_seconds(info.get('fixed_job_spread_seconds'))} | {_seconds(info.get('job_seconds'))} | "
                     f"{_fmt_rate(f.get('events_per_s_with_setup'))} | "
                     f"{_seconds(o.get('setup_seconds'))} | {_fmt_rate(o.get('events_per_s_with_setup'))} | "
                     f"{RPR_SUITE[q].semantics} | {RPR_SUITE[q].cost or '–'} |")
    return lines


def _profile_top(path: str, n: int = 28) -> list[str]:
    with open(path) as f:
        text = f.read().split("--- by cumulative time ---")[0]
    rows = [line for line in text.splitlines() if line.strip()]
    start = next((k for k, line in enumerate(rows) if line.lstrip().startswith("ncalls")), 0)
    return rows[max(0, start - 1):start + n]


# ---------------------------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n\n")[0])
    p.add_argument("--events", type=int, default=3_000_000, help="stream length (default 3,000,000)")
    p.add_argument("--runs", type=int, default=3, help="runs per query and engine; the median is reported")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="benchmarks/results/suite.json", help="JSON report; the Markdown goes beside it")
    p.add_argument("--queries", default="default",
                   help="comma-separated names (P3, P3', P3'x4, Q1, …) or groups: default, all, P, P', sweep, Q")
    p.add_argument("--engines", default="ours,naive,pycer", help="comma-separated: ours, naive, pycer, flink")
    p.add_argument("--time-budget", type=float, default=0.0,
                   help="stop reading after this many seconds per run of ours or naive (0: read the whole "
                        "stream; the paper reads for 30 s); pycer always reads the whole stream, in one send_events")
    p.add_argument("--naive-budget", type=float, default=30.0,
                   help="time budget of the naive peer's runs (default 30 s, the paper's reading time; 0: none): "
                        "its cost grows with the window and would otherwise dominate the benchmark")
    p.add_argument("--timeout", type=float, default=1800.0, help="kill a run after this many seconds")
    p.add_argument("--merge", action="store_true",
                   help="add to the results already in --out instead of starting anew: other queries, and other "
                        "engines' results for a query of the same length, are kept")
    p.add_argument("--no-caps", action="store_true", help="ignore the suite's per-query stream caps, Flink's (FLINK_CAPS) included")
    p.add_argument("--chunk", type=int, default=2_000,
                   help="events per chunk fed to ours and naive (the chunk in hand counts in the RSS growth); "
                        "pycer gets the whole stream in one send_events")
    p.add_argument("--input", choices=("native", "dicts"), default="native",
                   help="native (default): every engine gets its own event objects built outside the clock "
                        "(Event for ours, PyEvent for pycer; the naive peer reads dicts in place); dicts: ours "
                        "converts the generator's dicts inside the clock")
    p.add_argument("--profile", default="auto",
                   help="cProfile ours: 'auto' (on every throughput target missed), 'none', or query names")
    p.add_argument("--profile-events", type=int, default=300_000, help="stream length of a profiled run")
    p.add_argument("--pycer-venv", default=str(PYCER_VENV),
                   help="where the CPython 3.13 venv with pycer lives (made on first use)")
    p.add_argument("--pycer-python", default=None, help="a CPython 3.13 interpreter to build that venv from")
    p.add_argument("--flink-venv", default=str(FLINK_VENV),
                   help="Flink's environment (apache-flink installed; default .venv-flink in the repository)")
    return p.parse_args(argv)


def select_queries(spec: str) -> list[BenchQuery]:
    groups = {"default": list(DEFAULT_QUERIES), "all": list(SUITE),
              "P": [q for q in DEFAULT_QUERIES if SUITE[q].group == "P"],
              "P'": [q for q in DEFAULT_QUERIES if SUITE[q].group == "P'"],
              "sweep": list(WINDOW_SWEEP), "Q": [q for q in SUITE if SUITE[q].group == "Q"]}
    names: list[str] = []
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        item = item.replace("′", "'")
        if item in groups:
            names += groups[item]
        elif item in SUITE:
            names.append(item)
        else:
            raise SystemExit(f"unknown query {item!r}; known: {', '.join(SUITE)} or groups {', '.join(groups)}")
    return [SUITE[n] for n in dict.fromkeys(names)]


def _budget(args: argparse.Namespace, engine: str) -> float | None:
    budgets = [b for b in (args.time_budget, args.naive_budget if engine == "naive" else 0) if b]
    return min(budgets) if budgets else None


def _safe(name: str) -> str:
    return name.replace("'", "p")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    queries = select_queries(args.queries)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    for e in engines:
        if e not in ENGINES:
            raise SystemExit(f"unknown engine {e!r}; known: {', '.join(ENGINES)}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    md_path = out.with_suffix(".md")

    pythons = {"ours": sys.executable, "naive": sys.executable}
    pycer_note = flink_note = None
    skipped: dict[str, str] = {}
    if "pycer" in engines:
        python, pycer_note = ensure_pycer(Path(args.pycer_venv), args.pycer_python)
        print(f"pycer: {pycer_note}", flush=True)
        if python:
            pythons["pycer"] = python
        else:
            skipped["pycer"] = pycer_note or PYCER_SKIP
    if "flink" in engines:
        python, flink_note = flink_python(Path(args.flink_venv))
        print(f"flink: {flink_note}", flush=True)
        if python:
            pythons["flink"] = python
        else:
            skipped["flink"] = flink_note

    report: dict[str, Any] = {
        "meta": {
            "command": "python -m benchmarks.run " + " ".join(argv if argv is not None else sys.argv[1:]),
            "date": _dt.datetime.now().isoformat(timespec="seconds"), "machine": machine_info(),
            "events": args.events, "runs": args.runs, "seed": args.seed, "engines": engines,
            "time_budget": args.time_budget or None, "naive_budget": args.naive_budget or None,
            "chunk": args.chunk, "input": args.input, "pycer": pycer_note, "flink": flink_note,
            "load_before": [round(x, 2) for x in os.getloadavg()], "load_after": None,
            "protocol": "each run a fresh process; each engine reads its native event objects built outside "
                        "the clock (ours: Event unless --input dicts, generated chunk by chunk with the clock "
                        "paused and the pauses subtracted; naive: the dicts, read in place; pycer: PyEvents built "
                        "before the clock, one send_events of the whole stream and get_output() timed, nothing in "
                        "between, as CORE's authors time it: D193); timed from the first event read to the last "
                        "complex event counted; pycer's outputs are the lines of get_output()",
        },
        "queries": {q.name: {"text": q.text, "note": q.note, "group": q.group} for q in queries},
        "results": {}, "targets": [], "outputs_agree": {}, "profiles": {},
    }
    earlier: dict[str, dict] = {}
    if args.merge and out.exists():
        # Kept per (query, engine): an engine not run now keeps its earlier result for a query of the same length
        previous = json.loads(out.read_text())
        earlier, previous_meta = previous.get("results", {}), previous.get("meta", {})
        report["queries"] = {**previous.get("queries", {}), **report["queries"]}
        report["results"] = dict(earlier)
        report["outputs_agree"] = dict(previous.get("outputs_agree", {}))
        report["profiles"] = dict(previous.get("profiles", {}))
        report["meta"]["engines"] = list(dict.fromkeys([*previous_meta.get("engines", []), *engines]))
        for key in ("pycer", "flink"):
            report["meta"][key] = report["meta"][key] or previous_meta.get(key)
        report["meta"]["merged_from"] = previous_meta.get("merged_from", []) + [
            {k: previous_meta.get(k) for k in ("command", "date", "events", "engines", "load_before", "load_after")}]
    if report["meta"]["load_before"][0] > 0.5:
        print(f"warning: load average {report['meta']['load_before']}: the machine is busy, rates will be low "
              f"and noisy", flush=True)

    total = len(queries) * args.runs * len(engines)
    done = 0
    started = time.time()
    sizes = {q.name: args.events if args.no_caps or q.max_events is None else min(args.events, q.max_events)
             for q in queries}
    runs: dict[str, dict[str, list[dict]]] = {q.name: {e: [] for e in engines} for q in queries}
    for q in queries:
        if q.name in earlier and earlier[q.name].get("events") != sizes[q.name]:
            print(f"warning: {q.name} ran over {earlier[q.name].get('events'):,} events before, {sizes[q.name]:,} "
                  "now: the earlier engines' results for it are dropped, not merged", flush=True)
    # Round-robin over (query, engine) within each run, so that a busy spell of the machine hits every query
    # alike: the sweep's targets compare queries with each other, not only engines.
    for r in range(args.runs):
        for q in queries:
            n = sizes[q.name]
            for e in engines:
                done += 1
                if e not in pythons or (e == "flink" and q.name not in RPR_SUITE):
                    continue
                text = RPR_SUITE[q.name].clause if e == "flink" else q.text
                if e == "flink" and RPR_SUITE[q.name].max_events and not args.no_caps:  # benchmarks.flink_suite
                    n_e = min(n, RPR_SUITE[q.name].max_events)
                else:
                    n_e = n
                config = {"engine": e, "query": q.name, "text": text, "events": n_e, "seed": args.seed,
                          "chunk": args.chunk, "sample_every": max(args.chunk, n_e // 20),
                          "time_budget": _budget(args, e), "profile": None, "input": args.input}
                t = time.time()
                res = run_worker(pythons[e], config, timeout=args.timeout)
                runs[q.name][e].append(res)
                if "error" in res:
                    status = f"FAILED: {res['error']}"
                else:
                    status = (f"{res['events_per_s']:>12,.0f} e/s  {res['outputs']:>12,} CEs  "
                              f"+{res['peak_growth_mb'] if res['peak_growth_mb'] is not None else '?'} MiB")
                print(f"[{done}/{total}] {q.name:7} {e:6} run {r + 1}/{args.runs} ({n_e:,} events): {status}  "
                      f"({time.time() - t:.1f} s)", flush=True)
            _record(report, q.name, n, runs[q.name], engines, skipped, earlier.get(q.name, {}))
            _write(report, out, md_path)

    report["targets"] = evaluate_targets(report["results"])
    if "ours" in engines and args.profile.lower() != "none":
        if args.profile.lower() == "auto":
            wanted = [t["query"] for t in report["targets"]
                      if t.get("met") is False and t["target"].endswith("pycer's") and "events/s" in t["target"]]
        else:
            wanted = [q.name for q in select_queries(args.profile)]
        for name in dict.fromkeys(wanted):
            path = out.parent / f"profile_{_safe(name)}.txt"
            n = min(args.profile_events, args.events)
            print(f"profiling ours on {name} ({n:,} events) -> {path}", flush=True)
            res = run_worker(sys.executable, {
                "engine": "ours", "query": name, "text": SUITE[name].text, "events": n, "seed": args.seed,
                "chunk": args.chunk, "sample_every": max(args.chunk, n // 20), "time_budget": None,
                "input": args.input, "profile": str(path.resolve())}, timeout=args.timeout)
            if "error" not in res:
                report["profiles"][name] = {"path": str(path), "events": n, "top": _profile_top(str(path))}
    report["meta"]["load_after"] = [round(x, 2) for x in os.getloadavg()]
    report["meta"]["wall_seconds"] = round(time.time() - started, 1)
    _write(report, out, md_path)
    print(f"\nwrote {out} and {md_path} ({report['meta']['wall_seconds']:.0f} s)")
    for t in report["targets"]:
        mark = {True: "met    ", False: "NOT MET", None: "n/a    "}[t["met"]]
        print(f"  {mark} {t['target']}" + (f"  (ratio {t['ratio']})" if t.get("ratio") is not None else ""))
    return 0


def _record(report: dict, query: str, n: int, runs: dict[str, list[dict]], engines: list[str],
            skipped: dict[str, str], earlier: dict | None = None) -> None:
    """Summarize the runs of ``query`` so far into ``report`` and compare the engines' output counts: Flink's only
    where its semantics coincides with CEQL's, otherwise the verdict says why they differ. ``earlier`` is the
    query's result in the report being merged into (``--merge``): its engines not run now are kept when it ran
    over the same number of events."""
    per_engine: dict[str, Any] = {"events": n}
    if earlier and earlier.get("events") == n:
        per_engine.update({e: s for e, s in earlier.items() if e != "events" and e not in engines})
    for e in engines:
        if e in skipped:
            per_engine[e] = {"skipped": skipped[e]}
        elif e == "flink" and query not in RPR_SUITE:
            per_engine[e] = {"skipped": NOT_EXPRESSED}
        else:
            per_engine[e] = summarize(runs[e])
    report["results"][query] = per_engine
    counts = {e: s["outputs"] for e, s in per_engine.items() if e != "events" and isinstance(s, dict)
              and isinstance(s.get("outputs"), int) and not s.get("stopped_early")}
    flink_apart = ""
    if "flink" in counts:
        read = per_engine["flink"].get("events", n)
        if read != n:
            flink_apart = f"; flink {counts.pop('flink'):,} not compared: on its first {read:,} events (Flink's cap)"
        elif not RPR_SUITE[query].counts_comparable:
            flink_apart = f"; flink {counts.pop('flink'):,} not compared: {RPR_SUITE[query].semantics}"
    verdict = ""
    if len(counts) > 1:
        same = len(set(counts.values())) == 1
        verdict = ("same output count: " if same else "DIFFERENT output counts: ") + \
            ", ".join(f"{e} {c:,}" for e, c in counts.items())
    if verdict or flink_apart:
        report["outputs_agree"][query] = (verdict or "nothing to compare") + flink_apart


def _write(report: dict, out: Path, md_path: Path) -> None:
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(report, indent=1) + "\n")
    tmp.replace(out)
    md_path.write_text(render_markdown(report))


if __name__ == "__main__":
    sys.exit(main())
