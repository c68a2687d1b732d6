"""``run`` and ``spark``: a CEQL query (the CORE paper) over an event file, with the tECS engine in this process or on
Spark."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import json
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from cer_theory.core.errors import CerError
from cer_theory.core.textfiles import read_text_file
from cer_theory.core.wording import plural
from cer_theory.cli.layer import declare, file, output_file, output_folder, query
from cer_theory.streams.paths import late_path
from cer_theory.cli.options import seconds, whole_number
from cer_theory.cli.relay import StderrRelay


QUERY_HELP = ("CEQL text, or @FILE to read it from a file (a value without spaces is read as a file name too, as "
              "--query-file)")


def _query_text(args: argparse.Namespace) -> tuple[str, str]:
    """The query's text and what it was read from: ``--query-file FILE``, ``--query @FILE``, or ``--query TEXT``.
    A ``--query`` value without whitespace cannot be a CEQL query (SELECT … WHERE … needs spaces), so it is read
    as a file name, and a missing file is reported as such, not parsed as text."""
    file = getattr(args, "query_file", None)
    text = args.query
    if file and text:
        raise CerError("give the query once: --query TEXT (or @FILE), or --query-file FILE")
    if text is not None and not file:
        if text.startswith("@"):
            file = text[1:]
        elif text.strip() and not any(c.isspace() for c in text.strip()):
            file = text.strip()
        else:
            return text, "the --query text"
    if not file:
        raise CerError("a query is required: --query TEXT (or @FILE), or --query-file FILE")
    path = Path(file)
    if not path.is_file():
        raise CerError(f"query file {file}: no such file (--query takes CEQL text, @FILE or a file name; "
                       f"text needs spaces, as in 'SELECT * WHERE A ; B')")
    return read_text_file(path, "query files"), f"query file {file}"


def _read_query(args: argparse.Namespace):
    """The parsed query; a syntax error says whether the text or which file was parsed."""
    from cer_theory.formalisms.ceql.parser import parse

    text, origin = _query_text(args)
    try:
        query = parse(text)
    except CerError as exc:
        raise CerError(f"{origin}: {exc}") from None
    return _with_windows(query, args.windows, args.time_attribute)


WINDOW_READINGS = ("paper", "core")


def _with_windows(query, reading: str, time_attribute: str | None):
    """The query's window read as ``--windows`` says (docs/decisions.md D25, D102): ``paper``, inclusive
    ``end − start ≤ n`` for every kind (the CORE paper §2.2); ``core``, CORE's engine: strict ``<`` for ``WITHIN n
    [attr]`` only, inclusive for ``n EVENTS`` and durations. ``--time-attribute`` renames the timestamp of a
    duration."""
    window = query.within
    if window is None:
        return query
    if reading not in WINDOW_READINGS:
        raise CerError(f"--windows {reading}: expected paper or core")
    window = dataclasses.replace(window, strict=reading == "core" and window.kind == "attribute")
    if time_attribute and window.kind == "time":
        window = dataclasses.replace(window, attribute=time_attribute)
    return dataclasses.replace(query, within=window)


def _declarations(args: argparse.Namespace) -> list:
    if not args.declare:
        return []
    from cer_theory.formalisms.ceql.parser import parse_declarations

    path = Path(args.declare)
    if not path.is_file():
        raise CerError(f"declaration file {args.declare}: no such file")
    text = read_text_file(path, "declaration files")
    try:
        return parse_declarations(text)
    except CerError as exc:
        raise CerError(f"declaration file {args.declare}: {exc}") from None


def _check_time_attribute(query, args: argparse.Namespace) -> None:
    """A duration window over events without its timestamp attribute: name the fix, ``--time-attribute X``, when
    the file's first event has a time-like attribute X (read ahead; the run itself reports every other problem)."""
    from cer_theory.streams.rows import iter_file, rereadable
    from cer_theory.core.windows import time_like

    window = query.within
    if window is None or window.kind != "time" or not rereadable(args.stream):
        return
    attribute = window.attribute or "time"
    try:
        line, event = next(iter_file(args.stream, args.input_format))
    except (CerError, StopIteration, ValueError):
        return
    candidates = time_like(event)
    if event.get(attribute) is None and candidates:
        raise CerError(f"{args.stream}, line {line}, field {attribute!r}: the window needs a numeric {attribute!r} "
                       f"on every event; to read the duration on {candidates[0]!r}, add "
                       f"--time-attribute {candidates[0]}")


def cmd_run(args: argparse.Namespace) -> int:
    """Evaluate a CEQL query with the tECS engine (the CORE paper), one JSON object per complex event."""
    from cer_theory.core import durations
    from cer_theory.engines.core.output import MatchWriter
    from cer_theory.engines.core.run import run_stream
    from cer_theory.formalisms.ceql.declarations import declared_lateness

    query = _read_query(args)
    _check_time_attribute(query, args)
    declarations = _declarations(args)
    lateness = None if args.lateness is None else durations.seconds(args.lateness, "--lateness")
    late = late_path(args.stream, args.late) if lateness is not None or declared_lateness(declarations) is not None \
        else None
    if args.max_output is not None and not query.aggregates:
        # at most max_output + 1 CEs per position are enumerated: the output is the query's own until the bound
        # is passed, and then the run stops (docs/decisions.md D163)
        query = dataclasses.replace(query, limit=min(query.limit or args.max_output + 1, args.max_output + 1))
    writer = MatchWriter(args.output or sys.stdout, args.output_format, positions_only=args.positions_only,
                         max_output=args.max_output)
    t0 = last = time.perf_counter()

    def progress(k: int) -> None:
        nonlocal last
        now = time.perf_counter()
        if args.progress > 0 and now - last >= args.progress:
            last = now
            print(f"run: {plural(k, 'event')}, {plural(writer.count, 'complex event')}, "
                  f"{k / (now - t0):,.0f} events/s", file=sys.stderr)

    with _without_pandas(getattr(args, "as_program", False)):
        run = run_stream(query, args.stream, input_format=args.input_format, declarations=declarations,
                         lateness=lateness, late_sink=late, time_attribute=args.time_attribute, writer=writer,
                         progress=progress)
    if run.unpartitioned:
        print(f"run: {plural(run.unpartitioned, 'event')} without a PARTITION BY attribute, in no partition",
              file=sys.stderr)
    if run.late_count:
        print(f"run: {plural(run.late_count, 'event')} later than the allowed lateness of {run.lateness:g} s, left "
              f"out; listed in {run.late.path}", file=sys.stderr)  # type: ignore[union-attr]
    elapsed = time.perf_counter() - t0
    print(f"run: {plural(run.events, 'event')}, {plural(writer.count, 'complex event')} in {elapsed:.2f} s",
          file=sys.stderr)
    return 0


class _NoPandas:
    """A finder (``sys.meta_path``, first) that answers ``import pandas`` with ModuleNotFoundError."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "pandas":
            raise ModuleNotFoundError("pandas is not loaded by cer-theory run", name=name)
        return None


@contextlib.contextmanager
def _without_pandas(program: bool) -> Iterator[None]:
    """``run`` as the program reads its file without loading pandas: Arrow asks for pandas at its first
    conversion of a column (its pandas shim), and importing it cost 0.15-0.2 s of a 300k-event run, a tenth of it,
    for nothing (the command reads files and writes text or Parquet: no DataFrame). Only as the program (``cer-theory
    run``, not ``main([...])`` called from Python): Arrow remembers the answer for the life of the process
    (docs/decisions.md D350)."""
    if not program or "pandas" in sys.modules:
        yield
        return
    finder = _NoPandas()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def _require_pyspark() -> None:
    """``cer-theory spark`` needs the optional extra: say how to install it rather than fail on an import."""
    try:
        importlib.import_module("pyspark")
    except ImportError:
        # the package is installed from a checkout or a wheel, not the package index (docs/install.md)
        raise CerError("PySpark is not installed: install cer_theory's spark extra, from a checkout "
                       "pip install '.[spark]' (Spark also needs Java 17 or later)") from None


def _check_paths(args: argparse.Namespace) -> None:
    """The input exists; an existing output is replaced only with --overwrite (batch: streaming resumes from its
    checkpoint), and only when it is an earlier output of ``spark`` (its marker file): a folder of other files is
    never deleted (docs/decisions.md D160). (That nothing written overlaps the input, the query file or the
    declarations is the layer's check, before this: cli.layer.enforce.)"""
    from cer_theory.spark.declarations import local_path
    from cer_theory.spark.job import OUTPUT_MARKER, own_output

    source = local_path(args.input)
    if source is not None and not source.exists():
        raise CerError(f"--input {args.input}: no such file or directory")
    targets = [("--output", args.output)]
    if args.stream:
        targets.append(("--checkpoint", args.checkpoint or f"{args.output.rstrip('/')}.checkpoint"))
    else:
        targets.append(("--rejected", args.rejected or f"{args.output.rstrip('/')}.rejected"))
    local = [(option, str(place)) for option, target in targets if (place := local_path(target)) is not None]
    if args.stream:
        return
    for option, place in local:
        if Path(place).exists() and not args.overwrite:
            raise CerError(f"{option} {place} exists: pass --overwrite to replace it")
        if Path(place).exists() and not own_output(Path(place)):
            raise CerError(f"{option} {place} holds files that cer-theory spark did not write (no {OUTPUT_MARKER} "
                           f"in it): --overwrite replaces only an earlier output; remove them or choose another "
                           f"place")


def cmd_spark(args: argparse.Namespace) -> int:
    """A CEQL query over event files on Spark: the complex events as part files, a summary on stdout."""
    _require_pyspark()
    from cer_theory.spark.job import local_file, sample_paths

    if args.sample:
        events, query_file = sample_paths()
        if args.input is None:
            args.input = events
        if args.query is None and args.query_file is None:
            args.query_file = query_file
    if not args.input or not (args.query or args.query_file):
        raise CerError("--query (or --query-file) and --input are required (or --sample for the bundled sample "
                       "data and query)")
    query = _read_query(args)
    _check_paths(args)
    declarations = _declarations(args)
    if args.check and (args.stream or not local_file(args.input) or Path(args.input).is_dir()):
        raise CerError("--check reads the input again in this process: it needs one local CSV or JSON Lines file "
                       "and batch mode")

    def emit(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    from cer_theory.spark import spark_session
    from cer_theory.spark.job import interrupt_raises, stop_writing

    from py4j.protocol import Py4JError

    started, received, relay = [], [], StderrRelay()
    with contextlib.ExitStack() as held:
        def session():
            t0 = time.perf_counter()
            with relay.children():  # (Spark's JVM: its output stops before the line saying why the command stops)
                spark = spark_session(args.master)
            started.append(spark)
            received.append(held.enter_context(interrupt_raises()))  # (after the session: PySpark sets its own)
            emit(f"spark: session on {spark.sparkContext.master} ({spark.version}) in "
                 f"{time.perf_counter() - t0:.1f} s")
            return spark

        try:
            return _spark_job(args, query, declarations, session, emit)
        except KeyboardInterrupt:  # (Ctrl-C, SIGTERM: Spark's jobs stopped, its log quiet, before the one line)
            for spark in started:
                stop_writing(spark, quiet=True)
            relay.mute()
            raise
        except Py4JError as exc:  # (a call cut by a signal may lose its connection: the signal is the news)
            signals = [s for r in received for s in r]
            if signals:
                for spark in started:
                    stop_writing(spark, quiet=True)
                relay.mute()
                signal.raise_signal(signals[0])
            raise CerError(f"Spark stopped answering: {str(exc).splitlines()[0]}") from None


def _spark_job(args: argparse.Namespace, query, declarations: list, session, emit) -> int:
    """The streaming or the batch job of ``cmd_spark``, on the session ``session()`` starts."""
    if args.stream:
        from cer_theory.core import durations
        from cer_theory.spark.streaming import stream_job

        lateness = durations.seconds(args.lateness, "--lateness")  # refused here, before Spark starts, as `run` refuses it
        declaration = read_text_file(args.declare, "declaration files") if args.declare else None
        counts = stream_job(session(), args.input, query, output=args.output, format=args.format,
                            checkpoint=args.checkpoint or f"{args.output.rstrip('/')}.checkpoint",
                            declaration=declaration, follow=args.follow, progress=emit,
                            input_format=args.input_format, lateness=lateness,
                            position_column=args.position_column)
        print(json.dumps(counts))
        return 0
    from cer_theory.spark.declarations import run_schema

    checked_against, spans_lines = run_schema(args.input, args.input_format, declarations,
                                              on_bad_rows=args.on_bad_rows)
    spark = session()
    from cer_theory.spark import read_events
    from cer_theory.spark.job import run_job, summary

    df = read_events(spark, args.input, format=args.input_format, multiline=spans_lines)
    report = run_job(spark, df, query, output=args.output, fmt=args.format, rejected_output=args.rejected,
                     check_path=args.input if args.check else None, progress=args.progress, emit=emit,
                     overwrite=args.overwrite, declaration=checked_against, order_by=args.order_by,
                     on_bad_rows=args.on_bad_rows, slices=args.slices, with_events=not args.no_events)
    print(summary(report))
    return 0


def _late_default(args: argparse.Namespace) -> str | None:
    """Where ``run`` writes late events when ``--late`` is left out and a lateness may be in force (given, or
    declared): STREAM.late.jsonl (engines.core.run.late_path)."""
    return None if args.lateness is None and not args.declare else late_path(args.stream)


def _beside_output(suffix: str):
    """The default of a folder ``spark`` writes beside its ``--output`` (OUTPUT.rejected, OUTPUT.checkpoint)."""
    return lambda args: f"{args.output.rstrip('/')}{suffix}" if args.output else None


def _query_options(p: argparse.ArgumentParser, *, required: bool) -> None:
    p.add_argument("--query", help=QUERY_HELP + (" (this or --query-file is required)" if required else ""))
    p.add_argument("--query-file", metavar="FILE", help="a file holding the CEQL query")
    p.add_argument("--windows", choices=WINDOW_READINGS, default="paper",
                   help="how WITHIN bounds a match: paper (default), end − start ≤ n for every window (the CORE paper); "
                        "core, CORE's engine: WITHIN n [attr] strict (<), n EVENTS and durations inclusive (≤)")
    p.add_argument("--time-attribute", help="the timestamp attribute of time windows (default: time)")


def register(sub: argparse._SubParsersAction) -> None:
    q = sub.add_parser("run", help="evaluate a CEQL query with the tECS engine (JSON Lines, CSV or Parquet out)",
                       description="A CEQL query (the CORE paper) over a stream of events with the tECS engine: one JSON "
                                   "object per complex event on stdout (or --output), as soon as its last event is "
                                   "read; progress and a summary on stderr.")
    _query_options(q, required=True)
    q.add_argument("--stream", required=True,
                   help="events: .csv (with a type column), .parquet, or JSON Lines (anything else); - for "
                        "standard input")
    q.add_argument("--input-format", choices=["jsonl", "csv", "parquet"], help="default: from the extension")
    q.add_argument("--output", help="write the complex events to this file (default: stdout)")
    q.add_argument("--output-format", choices=["jsonl", "csv", "parquet"], default="jsonl",
                   help="jsonl (default), csv, or parquet (needs --output)")
    q.add_argument("--max-output", type=whole_number(minimum=0), metavar="N",
                   help="stop with an error (exit 2, no output file replaced) past N complex events, a whole "
                        "number ≥ 0: a guard against a query whose output explodes (default: no bound)")
    q.add_argument("--positions-only", action="store_true",
                   help="leave the events out: start, end and positions only (faster)")
    q.add_argument("--declare", help="a file of CREATE STREAM declarations (and CREATE QUARANTINE options); "
                                     "inferred from the data when omitted")
    q.add_argument("--lateness", metavar="DURATION",
                   help="allowed lateness of out-of-order events, e.g. 2, '500 ms' or '2 seconds' (default: a declared "
                        "QUARANTINE's, else none: the stream must be in time order)")
    q.add_argument("--late", metavar="FILE", help="where events later than the lateness go (JSON Lines; "
                                                  "default: STREAM.late.jsonl)")
    q.add_argument("--progress", type=seconds(zero="none"), default=2.0, metavar="SECONDS",
                   help="seconds between progress lines on stderr (default 2; 0: none)")
    declare(q, inputs=[query("query"), file("query_file"), file("stream"), file("declare")],
            outputs=[output_file("output"), output_file("late", default=_late_default)],
            example=["run", "--query", "SELECT * WHERE A ; B", "--stream", "s.jsonl", "--output", "o.jsonl",
                     "--lateness", "1", "--late", "late.jsonl"])
    q.set_defaults(func=cmd_run, leave_at_once=True)  # (as the program: no teardown once done, D461)

    k = sub.add_parser("spark", help="evaluate a CEQL query on Spark (part files out)",
                       description="A CEQL query over event files on Spark, with exactly the complex events of "
                                   "cer-theory run. Local Spark by default; --master takes any master URL.")
    _query_options(k, required=False)
    k.add_argument("--input", help="events: a CSV, JSON Lines or Parquet file or directory (any Spark path)")
    k.add_argument("--output", required=True, help="directory for the complex events (never overlapping the "
                                                    "input)")
    k.add_argument("--overwrite", action="store_true", help="replace --output (and the rejected rows) if they "
                                                            "exist (default: refuse)")
    k.add_argument("--format", choices=["json", "parquet"], default="json", help="output format (default json)")
    k.add_argument("--master", help="Spark master URL (default: $CER_SPARK_MASTER or local[*])")
    k.add_argument("--stream", action="store_true", help="Structured Streaming over the input directory")
    k.add_argument("--checkpoint", help="streaming checkpoint location (default: OUTPUT.checkpoint)")
    k.add_argument("--follow", action="store_true", help="streaming: keep running for new files (default: "
                                                          "process what is there and stop)")
    k.add_argument("--lateness", default="0 seconds",
                   help="streaming: watermark delay, a duration as for run --lateness (e.g. 2, '500 ms', '2 "
                        "seconds'), in the window attribute's units read as seconds")
    k.add_argument("--position-column", default="position",
                   help="streaming: the integer column holding each event's stream position (default position)")
    k.add_argument("--sample", action="store_true", help="the bundled sample data and query (the main job)")
    k.add_argument("--check", action="store_true", help="also run the single-process engine and compare")
    k.add_argument("--declare", help="a file of CREATE STREAM declarations (default: the schema `run` infers "
                                     "from a local CSV or JSON Lines input, else the data's own types)")
    k.add_argument("--on-bad-rows", choices=["fail", "report"], default="fail",
                   help="rows that do not match the declaration: fail (default) or report them in "
                        "OUTPUT.rejected and evaluate the rest")
    k.add_argument("--rejected", help="where the rejected rows go (default: OUTPUT.rejected)")
    k.add_argument("--input-format", choices=["csv", "json", "parquet"], help="default: from the extension")
    k.add_argument("--order-by", nargs="+", help="columns giving the stream order (default: file order)")
    k.add_argument("--slices", type=whole_number(minimum=1, maximum=100_000),
                   help="tasks for partitioned or sliced plans, 1 to 100000 (default: from the cores)")
    k.add_argument("--no-events", action="store_true", help="leave out the matched rows (faster)")
    k.add_argument("--progress", type=seconds(zero="none"), default=5.0, metavar="SECONDS",
                   help="seconds between progress lines on stderr (default 5; 0: none)")
    declare(k, inputs=[query("query"), file("query_file"), file("input"), file("declare")],
            outputs=[output_folder("output"), output_folder("rejected", default=_beside_output(".rejected")),
                     output_folder("checkpoint", default=_beside_output(".checkpoint"))],
            example=["spark", "--query", "SELECT * WHERE A ; B", "--input", "s.jsonl", "--output", "spark-out"])
    k.set_defaults(func=cmd_spark)
