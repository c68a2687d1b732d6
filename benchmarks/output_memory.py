"""Peak memory of ``cer-theory run`` on a query whose output explodes, per output format.

    python -m benchmarks.output_memory --events 20000 --max-output 200000 --out benchmarks/results/output_memory.json

The query ``SELECT * FROM S WHERE A ; B+ ; C WITHIN 300 EVENTS`` over a stream of A, B and C events has
exponentially many complex events at each C. Each format (JSON Lines, CSV, Parquet) is run in a fresh process
with ``--max-output``, and a large output that does not explode (``A ; B+ ; C WITHIN 10 EVENTS``) without; the report gives its peak resident set size (``ru_maxrss`` of the child), its wall time,
how it ended (exit status 2 and the ``--max-output`` message when the bound was passed) and the output size. A
control run of a query with a small, non-exploding output shows the baseline (interpreter, imports, engine).
The last rows run the exploding query without a bound on ``A B…B C`` (``--one-position K`` Bs): 2^K − 1 complex
events at one position, which the engine hands to the writer as it enumerates them (docs/decisions.md D282), so
the peak stays that of the control run however large K is.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXPLODING = "SELECT * FROM S WHERE A ; B+ ; C WITHIN 300 EVENTS"
CONTROL = "SELECT * FROM S WHERE A ; C WITHIN 3 EVENTS"
LARGE = "SELECT * FROM S WHERE A ; B+ ; C WITHIN 10 EVENTS"
"""A large output that does not explode (at most 2^8 complex events per C): run without a bound."""
FORMATS = ("jsonl", "csv", "parquet")


def write_stream(path: Path, events: int, seed: int) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as f:
        for k in range(events):
            f.write(json.dumps({"type": rng.choices("ABC", weights=(1, 8, 1))[0], "time": k, "x": rng.randrange(100)})
                    + "\n")


def write_one_position(path: Path, k: int) -> None:
    """``A``, k ``B``, ``C``: 2^k − 1 complex events of the exploding query at the last position."""
    with path.open("w", encoding="utf-8") as f:
        for k_, kind in enumerate(["A"] + ["B"] * k + ["C"]):
            f.write(json.dumps({"type": kind, "time": k_}) + "\n")


def measure(query: str, stream: Path, fmt: str, out: Path, max_output: int | None) -> dict:
    """One run in a fresh process: peak RSS (MiB), seconds, exit status, the last stderr line, output bytes."""
    argv = [sys.executable, "-m", "benchmarks.output_memory", "--child", "--", "run", "--query", query, "--stream",
            str(stream), "--output", str(out), "--output-format", fmt, "--progress", "0"]
    if max_output is not None:
        argv += ["--max-output", str(max_output)]
    t = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=str(REPO),
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    elapsed = time.perf_counter() - t
    lines = proc.stderr.strip().splitlines()
    child = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}
    return {"format": fmt, "query": query, "exit": child.get("exit", proc.returncode),
            "peak_rss_mib": child.get("peak_rss_mib"), "seconds": round(elapsed, 2),
            "message": next((line for line in reversed(lines) if line.startswith("cer-theory") or
                             line.startswith("run:")), ""),
            "output_bytes": out.stat().st_size if out.exists() else 0}


def child(argv: list[str]) -> int:
    """Run the command in this process and report its peak RSS as the last stderr line (JSON)."""
    from cer_theory.cli import main as cli

    code = cli(argv)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # (Linux: KiB)
    print(json.dumps({"exit": code, "peak_rss_mib": round(peak, 1)}), file=sys.stderr)
    return 0


def render(report: dict) -> str:
    meta = report["meta"]
    lines = [f"# Peak memory of `run` on an exploding query ({meta['events']:,} events, --max-output "
             f"{meta['max_output']:,} on the exploding query)", "",
             f"`{meta['command']}` — {meta['date']}; load average before {meta['load_before']}, after "
             f"{meta['load_after']} (a shared, loaded machine: times are indicative only).", "",
             "| query | format | exit | peak RSS (MiB) | seconds | output bytes | last line |", "|---|---|---|---|---|---|---|"]
    for r in report["results"]:
        lines.append(f"| `{r['query']}`{' (' + r['stream'] + ')' if 'stream' in r else ''} | {r['format']} | {r['exit']} | {r['peak_rss_mib']} | {r['seconds']} | "
                     f"{r['output_bytes']:,} | {r['message']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    if args_in[:1] == ["--child"]:
        return child(args_in[2:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--max-output", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--one-position", type=int, default=16, metavar="K",
                        help="the Bs of the one-position stream (2^K - 1 complex events at its C)")
    parser.add_argument("--out", default="benchmarks/results/output_memory.json")
    args = parser.parse_args(args_in)
    report: dict = {"meta": {"command": "python -m benchmarks.output_memory " + " ".join(args_in),
                             "date": _dt.datetime.now().isoformat(timespec="seconds"), "events": args.events,
                             "max_output": args.max_output, "one_position": args.one_position,
                             "load_before": [round(x, 2) for x in os.getloadavg()]},
                    "results": []}
    with tempfile.TemporaryDirectory(prefix="cer_output_memory_") as tmp:
        stream = Path(tmp) / "s.jsonl"
        write_stream(stream, args.events, args.seed)
        for query in (CONTROL, LARGE, EXPLODING):
            for fmt in FORMATS:
                out = Path(tmp) / f"out.{fmt}"
                result = measure(query, stream, fmt, out, args.max_output if query == EXPLODING else None)
                out.unlink(missing_ok=True)
                report["results"].append(result)
                print(json.dumps(result), flush=True)
        one = Path(tmp) / "one.jsonl"
        write_one_position(one, args.one_position)
        for fmt in FORMATS:
            out = Path(tmp) / f"out.{fmt}"
            result = {**measure(EXPLODING, one, fmt, out, None), "stream": f"one position, K={args.one_position}"}
            out.unlink(missing_ok=True)
            report["results"].append(result)
            print(json.dumps(result), flush=True)
    report["meta"]["load_after"] = [round(x, 2) for x in os.getloadavg()]
    out_path = Path(args.out)
    out_path.write_text(json.dumps(report, indent=1) + "\n")
    out_path.with_suffix(".md").write_text(render(report))
    print(render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
