"""``run`` and ``spark``: a CEQL query (the CORE paper) over an event file, with the tECS engine in this process or on
Spark."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import sys
import time
from pathlib import Path

from cer_theory.core.errors import CerError
from cer_theory.core.textfiles import read_text_file
from cer_theory.cli.options import seconds, whole_number


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


def _seconds(text: str, option: str) -> float:
    """A duration on the command line: ``2``, ``2.5 seconds``, ``1 minute 30 seconds``, in seconds."""
    scale = {"s": 1, "sec": 1, "second": 1, "seconds": 1, "m": 60, "min": 60, "minute": 60, "minutes": 60,
             "h": 3600, "hour": 3600, "hours": 3600}
    words, total = text.lower().replace(",", " ").split(), 0.0
    try:
        if len(words) == 1:
            total = float(words[0])
        elif len(words) % 2 == 0 and words:
            for amount, unit in zip(words[0::2], words[1::2]):
                total += float(amount) * scale[unit]
        else:
            raise ValueError
    except (ValueError, KeyError):
        raise CerError(f"{option} {text!r}: expected a duration such as 2, '2 seconds' or '1 minute'") from None
    if not total >= 0 or total == float("inf"):
        raise CerError(f"{option} {text!r}: expected a finite duration >= 0")
    return total


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


def _checked_events(args: argparse.Namespace, declarations: list):
    """``(line, event)`` of the stream, checked against the declarations, or the schema the data declares: read
    twice from a file (nothing is output from a bad file), learnt as the events arrive from a pipe."""
    from cer_theory.streams.rows import iter_file, rereadable
    from cer_theory.formalisms.ceql.declarations import schema_of
    from cer_theory.streams.schema import Schema

    fmt = args.input_format
    if fmt == "parquet" or str(args.stream).lower().endswith(".parquet"):
        raise CerError(f"{args.stream}: Parquet is read from a regular file, in time order (no --lateness)")
    from cer_theory.formalisms.ceql.ast import StreamDeclaration

    if any(isinstance(d, StreamDeclaration) for d in declarations):
        return schema_of(declarations).check_lines(iter_file(args.stream, fmt), source=args.stream)
    if not rereadable(args.stream):
        return Schema.inferring(iter_file(args.stream, fmt), source=_name(args.stream))
    schema = Schema.infer(iter_file(args.stream, fmt), source=args.stream)
    return schema.check_lines(iter_file(args.stream, fmt), source=args.stream)


def _schema(declarations: list):
    """The declared schema, or None: the columnar path infers it in its one pass over the file."""
    from cer_theory.formalisms.ceql.ast import StreamDeclaration
    from cer_theory.formalisms.ceql.declarations import schema_of

    if any(isinstance(d, StreamDeclaration) for d in declarations):
        return schema_of(declarations)
    return None


def _name(stream: str) -> str:
    from cer_theory.streams.rows import STDIN

    return "<stdin>" if stream == STDIN else stream


class LateEvents:
    """The side output of ``run --lateness``: each event too late to re-order, as a JSON line ``{"line",
    "watermark", "event"}`` in ``path`` (created at the first one, written aside and renamed into place by
    :meth:`close`), counted for the summary."""

    def __init__(self, path: str) -> None:
        self.path, self.count, self._file = path, 0, None

    def __call__(self, line: int, event, watermark: float) -> None:
        from cer_theory.streams.writers import OutputFile

        if self._file is None:
            self._file = OutputFile(self.path, "jsonl")
        self.count += 1
        self._file.write_text(json.dumps({"line": line, "watermark": watermark, "event": event.to_dict()}) + "\n")

    def close(self) -> None:
        if self._file is not None:
            self._file.commit()

    def discard(self) -> None:
        if self._file is not None:
            self._file.discard()


def _lateness(args: argparse.Namespace, declarations: list) -> float | None:
    """``--lateness`` (it wins), else the declared QUARANTINE's; None: the stream must be in order."""
    from cer_theory.formalisms.ceql.declarations import declared_lateness

    if args.lateness is not None:
        return _seconds(args.lateness, "--lateness")
    return declared_lateness(declarations)


def _reorder_key(query, args: argparse.Namespace) -> str:
    """The attribute events are re-ordered by: the window's timestamp, else --time-attribute, else time."""
    from cer_theory.formalisms.ceql.ast import DEFAULT_TIME_ATTRIBUTE

    window = query.within
    if window is not None and window.kind != "events":
        return window.attribute or DEFAULT_TIME_ATTRIBUTE
    return args.time_attribute or DEFAULT_TIME_ATTRIBUTE


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
    from cer_theory.core.errors import StreamFormatError
    from cer_theory.streams.rows import STDIN, rereadable
    from cer_theory.streams.reorder import reorder
    from cer_theory.engines.core import Engine
    from cer_theory.engines.core.columnar import file_matches, in_file_terms
    from cer_theory.engines.core.output import MatchWriter
    from cer_theory.streams.paths import check_outputs
    query = _read_query(args)
    _check_time_attribute(query, args)
    declarations = _declarations(args)
    source = _name(args.stream)
    lateness = _lateness(args, declarations)
    late_path = None if lateness is None else (
        args.late or (f"{args.stream}.late.jsonl" if args.stream != STDIN else "stdin.late.jsonl"))
    inputs = [("--stream", args.stream), ("--query-file", args.query_file), ("--declare", args.declare)]
    check_outputs([("--output", args.output), ("--late", late_path)], inputs)
    check_outputs([("--late", late_path)], [("--output", args.output)])
    if args.max_output is not None and not query.aggregates:
        # at most max_output + 1 CEs per position are enumerated: the output is the query's own until the bound
        # is passed, and then the run stops (docs/decisions.md D163)
        query = dataclasses.replace(query, limit=min(query.limit or args.max_output + 1, args.max_output + 1))
    engine = Engine(query)
    writer = MatchWriter(args.output or sys.stdout, args.output_format,
                         positions_only=args.positions_only, max_output=args.max_output)
    writer.attach(engine)  # the engine writes its CEs straight out (D155); with aggregates it yields Matches
    t0, last, line, late = time.perf_counter(), time.perf_counter(), None, None

    def progress(k: int) -> None:
        nonlocal last
        now = time.perf_counter()
        if args.progress > 0 and now - last >= args.progress:
            last = now
            print(f"run: {k:,} events, {writer.count:,} complex events, {k / (now - t0):,.0f} events/s",
                  file=sys.stderr)

    def events(pairs):
        nonlocal line
        for k, (line, event) in enumerate(pairs, 1):
            yield event
            progress(k)

    if lateness is None and rereadable(args.stream):
        # a file in time order: the columnar path reads it once, in batches (docs/decisions.md D87)
        matches = file_matches(engine, args.stream, args.input_format, _schema(declarations), progress=progress)
    else:
        # standard input, a pipe, or out-of-order events: one event at a time, through the reorder buffer
        pairs = _checked_events(args, declarations)
        if late_path is not None:
            late = LateEvents(late_path)
            pairs = reorder(pairs, attribute=_reorder_key(query, args), lateness=lateness, on_late=late,
                            source=source)
        matches = engine.process(events(pairs))
    try:
        for match in matches:
            writer.write(match)
    except BaseException as exc:  # (an error, Ctrl-C, SIGTERM: no output file is replaced by a part)
        writer.discard()
        if late is not None:
            late.discard()
        if isinstance(exc, StreamFormatError):
            raise in_file_terms(exc, lambda _position: line, source) from None
        raise
    writer.close()
    if late is not None:
        late.close()
    if engine.unpartitioned:
        print(f"run: {engine.unpartitioned:,} events lack a PARTITION BY attribute and belong to no partition",
              file=sys.stderr)
    if late is not None and late.count:
        print(f"run: {late.count:,} events arrived later than the allowed lateness of {lateness:g} s and were "
              f"left out; listed in {late.path}", file=sys.stderr)
    elapsed = time.perf_counter() - t0
    print(f"run: {engine.position:,} events, {writer.count:,} complex events in {elapsed:.2f} s", file=sys.stderr)
    return 0


def _require_pyspark() -> None:
    """``cer-theory spark`` needs the optional extra: say how to install it rather than fail on an import."""
    try:
        importlib.import_module("pyspark")
    except ImportError:
        raise CerError("PySpark is not installed: pip install 'cer_theory[spark]' (it also needs Java 17 or "
                       "later)") from None


def _local(path: str) -> Path | None:
    """A local path (``file://`` stripped), resolved; None for a remote URL (hdfs://, s3a://, …)."""
    if "://" in path and not path.startswith("file://"):
        return None
    return Path(path.removeprefix("file://")).expanduser().resolve()


def _check_paths(args: argparse.Namespace) -> None:
    """The input exists; nothing written overlaps the input, the query file or the declarations (writing over a
    folder deletes what is in it); an existing output is replaced only with --overwrite (batch: streaming resumes
    from its checkpoint), and only when it is an earlier output of ``spark`` (its marker file): a folder of other
    files is never deleted (docs/decisions.md D160)."""
    from cer_theory.spark.job import OUTPUT_MARKER, own_output
    from cer_theory.streams.paths import check_outputs

    source = _local(args.input)
    if source is not None and not source.exists():
        raise CerError(f"--input {args.input}: no such file or directory")
    targets = [("--output", args.output)]
    if args.stream:
        targets.append(("--checkpoint", args.checkpoint or f"{args.output.rstrip('/')}.checkpoint"))
    else:
        targets.append(("--rejected", args.rejected or f"{args.output.rstrip('/')}.rejected"))
    local = [(option, str(place)) for option, target in targets if (place := _local(target)) is not None]
    inputs = [("--input", str(source) if source is not None else None), ("--query-file", args.query_file),
              ("--declare", args.declare)]
    check_outputs(local, inputs)
    if args.stream:
        return
    for option, place in local:
        if Path(place).exists() and not args.overwrite:
            raise CerError(f"{option} {place} exists: pass --overwrite to replace it")
        if Path(place).exists() and not own_output(Path(place)):
            raise CerError(f"{option} {place} holds files that cer-theory spark did not write (no {OUTPUT_MARKER} "
                           f"in it): --overwrite replaces only an earlier output; remove them or choose another "
                           f"place")


def _validated_declaration(args: argparse.Namespace, declarations: list):
    """For local CSV or JSON Lines input, one pass with ``run``'s reader before Spark starts: the same format
    errors (file and line), and without --declare the same schema ``run`` infers, so Spark checks every row
    against it whatever kinds it infers itself (docs/decisions.md D100). Returns the declarations to check
    against (None: Spark's own column types) and whether a CSV cell spans lines."""
    from cer_theory.streams.rows import iter_file, stream_format
    from cer_theory.formalisms.ceql.ast import StreamDeclaration
    from cer_theory.formalisms.ceql.declarations import declaration_of
    from cer_theory.streams.schema import Schema

    declared = [d for d in declarations if isinstance(d, StreamDeclaration)] or None
    source = _local(args.input)
    if source is None:
        return declared, False
    files = sorted(f for f in source.iterdir() if f.is_file() and not f.name.startswith(("_", "."))) \
        if source.is_dir() else [source]
    fmt = {"json": "jsonl", "jsonl": "jsonl", "ndjson": "jsonl", "csv": "csv"}.get(args.input_format or "", None)
    suffixes = {f.suffix.lower() for f in files}
    if args.input_format == "parquet" or not files or not suffixes <= {".csv", ".json", ".jsonl", ".ndjson"}:
        return declared, False
    schema, spans_lines = Schema(), False
    conflicts = "first" if args.on_bad_rows == "report" else "fail"
    for f in files:
        csv_file = stream_format(f, fmt) == "csv"
        for line, event in iter_file(f, fmt):
            if declared is None:
                schema.learn(line, event, source=str(f), conflicts=conflicts)
            if csv_file and not spans_lines:
                spans_lines = any(isinstance(v, str) and "\n" in v for v in event.attributes.values())
    if declared is not None:
        return declared, spans_lines
    # One Spark column has one type: an attribute of different kinds in different event types stays unchecked.
    by_attribute: dict[str, set] = {}
    for attrs in schema.kinds.values():
        for name, k in attrs.items():
            by_attribute.setdefault(name, set()).add(k)
    for attrs in schema.kinds.values():
        for name in attrs:
            if len(by_attribute[name]) > 1:
                attrs[name] = None
    return [declaration_of(schema)], spans_lines


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

    def session():
        t0 = time.perf_counter()
        spark = spark_session(args.master)
        emit(f"spark: session on {spark.sparkContext.master} ({spark.version}) in {time.perf_counter() - t0:.1f} s")
        return spark

    if args.stream:
        from cer_theory.spark.streaming import stream_job

        declaration = read_text_file(args.declare, "declaration files") if args.declare else None
        counts = stream_job(session(), args.input, query, output=args.output, format=args.format,
                            checkpoint=args.checkpoint or f"{args.output.rstrip('/')}.checkpoint",
                            declaration=declaration, follow=args.follow, progress=emit,
                            input_format=args.input_format, lateness=args.lateness,
                            position_column=args.position_column)
        print(json.dumps(counts))
        return 0
    checked_against, spans_lines = _validated_declaration(args, declarations)
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
                   help="allowed lateness of out-of-order events, e.g. '2 seconds' (default: a declared "
                        "QUARANTINE's, else none: the stream must be in time order)")
    q.add_argument("--late", metavar="FILE", help="where events later than the lateness go (JSON Lines; "
                                                  "default: STREAM.late.jsonl)")
    q.add_argument("--progress", type=seconds(zero="none"), default=2.0, metavar="SECONDS",
                   help="seconds between progress lines on stderr (default 2; 0: none)")
    q.set_defaults(func=cmd_run)

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
                   help="streaming: watermark delay, in the window attribute's units read as seconds")
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
    k.set_defaults(func=cmd_spark)
