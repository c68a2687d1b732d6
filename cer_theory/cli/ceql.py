"""``run`` and ``spark``: a CEQL query (seed 001) over an event file, with the tECS engine in this process or on
Spark."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

from cer_theory.core.errors import CerError


def _read_query(text: str):
    from cer_theory.formalisms.ceql.parser import parse

    path = Path(text)
    if "\n" not in text and len(text) < 4096 and path.suffix and path.exists():
        text = path.read_text(encoding="utf-8")
    return parse(text)


def cmd_run(args: argparse.Namespace) -> int:
    """Evaluate a CEQL query with the tECS engine (seed 001), one JSON object per complex event."""
    from cer_theory.engines.core import Engine
    from cer_theory.formalisms.ceql.declarations import Schema

    query = _read_query(args.query)
    if args.strict_window and query.within is not None:
        query = dataclasses.replace(query, within=dataclasses.replace(query.within, strict=True))
    if args.time_attribute and query.within is not None and query.within.kind == "time":
        query = dataclasses.replace(query, within=dataclasses.replace(query.within, attribute=args.time_attribute))
    if args.declare:
        from cer_theory.formalisms.ceql.parser import parse_declarations

        schema = Schema.from_declarations(parse_declarations(Path(args.declare).read_text(encoding="utf-8")))
    else:
        schema = None
    from cer_theory.engines.core.columnar import file_matches
    from cer_theory.engines.core.output import MatchWriter

    engine = Engine(query)
    writer = MatchWriter(args.output or sys.stdout, args.output_format, positions_only=args.positions_only)
    t0, last, count = time.perf_counter(), time.perf_counter(), 0

    def progress(k: int) -> None:
        nonlocal last
        now = time.perf_counter()
        if now - last >= args.progress:
            last = now
            print(f"run: {k:,} events, {count:,} complex events, {k / (now - t0):,.0f} events/s", file=sys.stderr)

    try:
        for match in file_matches(engine, args.stream, args.input_format, schema, progress=progress):
            count += 1
            writer.write(match)
    finally:
        writer.close()
    if engine.unpartitioned:
        print(f"run: {engine.unpartitioned:,} events lack a PARTITION BY attribute and belong to no partition",
              file=sys.stderr)
    elapsed = time.perf_counter() - t0
    print(f"run: {engine.position:,} events, {count:,} complex events in {elapsed:.2f} s", file=sys.stderr)
    return 0


def _spark_query(args: argparse.Namespace):
    query = _read_query(args.query)
    window = query.within
    if window is not None and args.strict_window:
        window = dataclasses.replace(window, strict=True)
    if window is not None and args.time_attribute and window.kind == "time":
        window = dataclasses.replace(window, attribute=args.time_attribute)
    return dataclasses.replace(query, within=window)


def cmd_spark(args: argparse.Namespace) -> int:
    """A CEQL query over event files on Spark: the complex events as part files, a summary on stdout."""
    from cer_theory.spark.job import local_file, sample_paths

    if args.sample:
        events, query_file = sample_paths()
        args.input, args.query = args.input or events, args.query or query_file
    if not args.input or not args.query:
        raise CerError("--query and --input are required (or --sample for the bundled sample data and query)")
    query = _spark_query(args)
    declaration = Path(args.declare).read_text(encoding="utf-8") if args.declare else None
    if args.check and (args.stream or not local_file(args.input) or Path(args.input).is_dir()):
        raise CerError("--check reads the input again in this process: it needs one local CSV or JSON Lines file "
                       "and batch mode")

    def emit(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    from cer_theory.spark import spark_session

    t0 = time.perf_counter()
    spark = spark_session(args.master)
    emit(f"spark: session on {spark.sparkContext.master} ({spark.version}) in {time.perf_counter() - t0:.1f} s")
    if args.stream:
        from cer_theory.spark.streaming import stream_job

        counts = stream_job(spark, args.input, query, output=args.output, format=args.format,
                            checkpoint=args.checkpoint or f"{args.output.rstrip('/')}.checkpoint",
                            declaration=declaration, follow=args.follow, progress=emit,
                            input_format=args.input_format, lateness=args.lateness,
                            position_column=args.position_column)
        print(json.dumps(counts))
        return 0
    from cer_theory.spark import read_events
    from cer_theory.spark.job import run_job, summary

    df = read_events(spark, args.input, format=args.input_format)
    report = run_job(spark, df, query, output=args.output, fmt=args.format, rejected_output=args.rejected,
                     check_path=args.input if args.check else None, progress=args.progress, emit=emit,
                     declaration=declaration, order_by=args.order_by, on_bad_rows=args.on_bad_rows,
                     slices=args.slices, with_events=not args.no_events)
    print(summary(report))
    return 0



def register(sub: argparse._SubParsersAction) -> None:
    q = sub.add_parser("run", help="evaluate a CEQL query with the tECS engine (JSON Lines, CSV or Parquet out)")
    q.add_argument("--query", required=True, help="CEQL text, or a file holding it")
    q.add_argument("--stream", required=True,
                   help="events: .csv (with a type column), .parquet, or JSON Lines (anything else)")
    q.add_argument("--input-format", choices=["jsonl", "csv", "parquet"], help="default: from the extension")
    q.add_argument("--output", help="write the complex events to this file (default: stdout)")
    q.add_argument("--output-format", choices=["jsonl", "csv", "parquet"], default="jsonl",
                   help="jsonl (default), csv, or parquet (needs --output)")
    q.add_argument("--positions-only", action="store_true",
                   help="leave the events out: start, end and positions only (faster)")
    q.add_argument("--declare", help="a file of CREATE STREAM declarations; inferred from the data when omitted")
    q.add_argument("--strict-window", action="store_true",
                   help="CORE's reading end − start < n (default: the paper's end − start ≤ n)")
    q.add_argument("--time-attribute", help="the timestamp attribute of time windows (default: time)")
    q.add_argument("--progress", type=float, default=2.0, metavar="SECONDS",
                   help="seconds between progress lines on stderr (default 2)")
    q.set_defaults(func=cmd_run)

    k = sub.add_parser("spark", help="evaluate a CEQL query on Spark (part files out)",
                       description="A CEQL query over event files on Spark, with exactly the complex events of "
                                   "`cer-theory run`. Local Spark by default; --master takes any master URL.")
    k.add_argument("--query", help="CEQL text, or a file holding it")
    k.add_argument("--input", help="events: a CSV, JSON Lines or Parquet file or directory (any Spark path)")
    k.add_argument("--output", required=True, help="directory for the complex events (overwritten)")
    k.add_argument("--format", choices=["json", "parquet"], default="json", help="output format (default json)")
    k.add_argument("--master", help="Spark master URL (default: $CER_SPARK_MASTER or local[*])")
    k.add_argument("--stream", action="store_true", help="Structured Streaming over the input directory")
    k.add_argument("--checkpoint", help="streaming checkpoint location (default: OUTPUT.checkpoint)")
    k.add_argument("--follow", action="store_true", help="streaming: keep running for new files (default: "
                                                          "process what is there and stop)")
    k.add_argument("--lateness", default="0 seconds",
                   help="streaming: watermark delay, in the window attribute's units read as seconds")
    k.add_argument("--position-column", default="position",
                   help="streaming: the integer column holding each event's stream position (default position)")
    k.add_argument("--sample", action="store_true", help="the bundled sample data and query (the main job)")
    k.add_argument("--check", action="store_true", help="also run the single-process engine and compare")
    k.add_argument("--declare", help="a file of CREATE STREAM declarations (default: the data's own types)")
    k.add_argument("--on-bad-rows", choices=["fail", "report"], default="fail",
                   help="rows that do not match the declaration: fail (default) or report them in "
                        "OUTPUT.rejected and evaluate the rest")
    k.add_argument("--rejected", help="where the rejected rows go (default: OUTPUT.rejected)")
    k.add_argument("--input-format", choices=["csv", "json", "parquet"], help="default: from the extension")
    k.add_argument("--order-by", nargs="+", help="columns giving the stream order (default: file order)")
    k.add_argument("--slices", type=int, help="tasks for partitioned or sliced plans (default: from the cores)")
    k.add_argument("--no-events", action="store_true", help="leave out the matched rows (faster)")
    k.add_argument("--strict-window", action="store_true", help="CORE's reading end − start < n")
    k.add_argument("--time-attribute", help="the timestamp attribute of time windows (default: time)")
    k.add_argument("--progress", type=float, default=5.0, metavar="SECONDS",
                   help="seconds between progress lines on stderr (default 5; 0: none)")
    k.set_defaults(func=cmd_spark)

