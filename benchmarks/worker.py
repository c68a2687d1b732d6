"""One benchmark run in its own process: ``python -m benchmarks.worker < config.json``.

The harness (:mod:`benchmarks.run`) starts one worker per (query, engine, run), so the peak RSS is that run's
alone. The protocol follows the paper's (the CORE paper §5, "Setup") where it can: every engine
reads events already in memory, in its own native form, and the clock measures only the engine.

* **ours, naive** (synchronous): the stream is generated chunk by chunk (``chunk`` events) with the clock
  *paused*. Ours gets ``cer_theory.core.events.Event`` objects (``input: "native"``, the default) or the plain dicts,
  which it then converts inside the clock (``input: "dicts"``); the naive peer reads the dicts in place (its
  native form). Memory stays constant whatever the stream length, and the chunk in hand (a few MiB at most) is
  the only input counted in the RSS growth.
* **pycer** is timed the way CORE's authors time it: the whole stream is built as ``PyEvent`` objects before
  the clock starts, and the clock covers exactly one ``send_events`` of all of them and the ``get_output()``
  that waits for the end. pycer evaluates in background threads, so nothing may happen between those two calls:
  a pause there (sampling the RSS, making a chunk) would be counted against it while ours has its pauses
  subtracted. The preloaded stream is part of the baseline; its memory curve has one point, taken after the
  clock stops, and ``time_budget`` does not apply (the stream is sent whole).

* **flink** (Apache Flink's ``MATCH_RECOGNIZE``, the query's :mod:`benchmarks.flink_suite` form, run through
  PyFlink under the ``.venv-flink`` interpreter) is timed the way its authors would, with one long-lived
  environment: the JVM start (creating the table environment) is measured apart; the stream is written as a CSV
  file before any clock (Flink's file source is its native input, as ``PyEvent`` objects are pycer's); then the
  same query runs as a job over a one-event file, twice, and the second, warm, run is the *fixed cost* of a job
  (planning, submission, start and teardown), recorded as ``setup_seconds``; then the clock covers one job over
  the whole file, from ``execute_sql`` to the last row collected. ``seconds`` is that job's time minus the fixed
  cost (the stream's own cost, comparable to ours, whose parse and compile are outside its clock too);
  ``events_per_s_with_setup`` is the rate with the fixed cost counted, for every engine alike. Parallelism 1, like
  the other engines' one thread. The JVM is a child process: its memory is not measured (``peak_growth_mb`` is
  null) and neither is its CPU time.

Both engines are treated alike: what is outside pycer's clock (building its input, adding the query, sampling
memory) is outside ours (the chunks are made, converted and sampled with the clock paused, and the pauses are
subtracted), and nothing is subtracted for one that is counted for the other. The harness's test checks it with
fakes of known cost (proofs_tests/engines/test_benchmark_harness.py).

Then: the engine is built (query parsed and compiled; pycer: stream declared, query added); the baseline RSS is
read and the kernel's peak-RSS mark is reset (``/proc/self/clear_refs``), so ``VmHWM − baseline`` is the memory
the evaluation took; the clock runs while the engine reads the stream and every complex event is produced and
counted; for ours and naive, between chunks the RSS is sampled every ``sample_every`` events (the memory curve)
and reading stops once ``time_budget`` seconds of engine time are spent (the paper reads for 30 s). The
conversion rate of the input (dict → native event) is recorded as ``input_conversion_events_per_s``.

Configuration keys: ``engine`` ("ours", "naive", "pycer" or "flink"), ``query`` (a name), ``text`` (CEQL; for
flink the ``MATCH_RECOGNIZE`` clause), ``events``,
``seed``, ``input`` ("native" or "dicts"), ``chunk``, ``sample_every``, ``time_budget`` (seconds or null),
``profile`` (path or null: cProfile the evaluation, ours and naive only), ``result_path``.

This module must import nothing outside the standard library and :mod:`benchmarks.stock` at module level: the
pycer peer runs it under a CPython 3.13 interpreter that does not have ``cer_theory``, and the flink peer under
one without the test environment's pandas/pyarrow (each engine's library is imported where it is used).
"""

from __future__ import annotations

import csv
import functools
import gc
import importlib.metadata
import itertools
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from benchmarks.stock import DECLARATION, SCHEMA, stock_stream

MB = 1024 * 1024


def rss_mb() -> float:
    """The current resident set size of this process, in MiB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / MB


def hwm_mb() -> float:
    """The peak resident set size (``VmHWM``) of this process, in MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def reset_hwm() -> bool:
    """Reset the kernel's peak-RSS mark to the current RSS (Linux ≥ 4.0); False if not permitted."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


class Feed:
    """The stream handed to an engine chunk by chunk through a C-level ``chain`` (no Python frame per event).
    Between chunks, with the clock paused (``paused`` accumulates that time), it makes the next chunk, samples
    the RSS and checks the time budget."""

    def __init__(self, source: Iterator, chunk: int, sample_every: int, budget: float | None, baseline: float,
                 convert: Callable[[dict], Any] | None = None) -> None:
        self.source, self.chunk, self.sample_every, self.budget = source, chunk, sample_every, budget
        self.baseline, self.convert = baseline, convert
        self.fed = 0
        self.paused = 0.0
        self.converting = 0.0
        self.curve: list[tuple[int, float]] = []
        self.started = 0.0
        self.stopped_early = False
        self.profiler: Any = None  # a cProfile.Profile to switch off while the clock is paused

    def chunks(self) -> Iterator[list]:
        """The stream in chunks; stops early once the time budget is spent."""
        source, convert, clock = self.source, self.convert, time.perf_counter
        while True:
            t0 = clock()
            if self.profiler is not None:
                self.profiler.disable()
            if self.fed and self.fed % self.sample_every < self.chunk:
                self.curve.append((self.fed, round(rss_mb() - self.baseline, 1)))
            if self.budget is not None and self.fed and t0 - self.started - self.paused > self.budget:
                self.stopped_early = True
                self.paused += clock() - t0
                return
            piece = list(itertools.islice(source, self.chunk))
            if convert is not None:
                t1 = clock()
                piece = [convert(e) for e in piece]
                self.converting += clock() - t1
            self.paused += clock() - t0
            if not piece:
                return
            if self.profiler is not None:
                self.profiler.enable()
            self.fed += len(piece)
            yield piece

    def __iter__(self) -> Iterator:
        return itertools.chain.from_iterable(self.chunks())


def count_outputs(results: Iterable[Any]) -> int:
    """The number of complex events in an engine's output: one per CE, whether the engine yields CEs one by one
    or in per-position batches (a collection, or a ``(position, collection)`` pair)."""
    it = iter(results)
    for first in it:
        if hasattr(first, "positions") or not isinstance(first, (tuple, list, set, frozenset)):
            return 1 + sum(1 for _ in it)
        size: Callable[[Any], int]
        if isinstance(first, tuple) and len(first) == 2 and isinstance(first[0], int):
            size = lambda item: len(item[1])  # noqa: E731
        else:
            size = len
        return size(first) + sum(map(size, it))
    return 0


# ---------------------------------------------------------------------------------------------- engines


def _ours(text: str) -> tuple[Callable[[Iterable], Iterable], dict]:
    try:
        from cer_theory.engines.core import Engine  # type: ignore[attr-defined]
    except ImportError:
        from cer_theory.engines.core.engine import Engine
    engine = Engine(text)
    return engine.process, {"engine": f"{type(engine).__module__}.{type(engine).__qualname__}"}


def _naive(text: str) -> tuple[Callable[[Iterable], Iterable], dict]:
    from benchmarks.naive import NaiveEvaluator

    evaluator = NaiveEvaluator(text)
    info: dict = {"automaton_states": len(evaluator.cea.states)}

    def process(events: Iterable) -> Iterator:
        yield from evaluator.process(events)
        info["peak_runs"] = evaluator.peak_runs

    return process, info


def _python_run(config: dict) -> dict:
    """ours / naive, in this interpreter, fed lazily with the clock paused between chunks."""
    convert = None
    if config.get("input", "native") == "native" and config["engine"] == "ours":
        from cer_theory.core.events import Event

        convert = Event.from_dict  # the naive peer's native form is the dict itself (read in place)
    t = time.perf_counter()
    process, info = (_ours if config["engine"] == "ours" else _naive)(config["text"])
    setup_s = time.perf_counter() - t
    info["input"] = "Event" if convert is not None else "dict"
    source = stock_stream(config["events"], config["seed"])
    return _measure(config, source, None, setup_s, info, lambda feed: count_outputs(process(feed)), convert)


def _pycer_run(config: dict) -> dict:
    """pycer: CORE's C++ engine through its Python binding, ``PyOfflineServer``: every event sent in one
    ``send_events``; the server evaluates in its own threads and ``get_output`` waits for the end and returns
    every CE as a line (anything else it returns, such as ``Exception: Invalid argument`` for a query it
    refuses, is an error of the run, not a count)."""
    import pycer

    server = pycer.PyOfflineServer()
    info_stream = server.declare_stream(DECLARATION)
    t = time.perf_counter()
    server.add_query(config["text"])
    setup_s = time.perf_counter() - t
    type_ids = {e.name: e.id for e in info_stream.events_info}
    makers = {"int": pycer.PyIntValue, "double": pycer.PyDoubleValue, "string": pycer.PyStringValue}
    fields = [(name, makers[k]) for name, k in SCHEMA.items()]
    make_event = pycer.PyEvent
    t = time.perf_counter()
    events = [make_event(type_ids[e["type"]], [mk(e[name]) for name, mk in fields])
              for e in stock_stream(config["events"], config["seed"])]
    preload_s = time.perf_counter() - t

    version = distribution_version("pycer")
    info = {"pycer_version": version, "input": "native",
            "input_conversion_events_per_s": round(len(events) / preload_s) if preload_s else None,
            "note": "PyEvent objects are built before the clock starts and sent in one send_events, as in CORE's "
                    "own benchmark script; input_conversion_events_per_s is the rate of building them from the "
                    "same dicts"}
    gc.collect()
    gc.freeze()  # as in _measure: the preloaded stream and the compiled query are not evaluation state
    baseline = rss_mb()
    hwm_reset = reset_hwm()
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    server.send_events(events)
    output = server.get_output()  # waits for the evaluation to finish
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    peak = hwm_mb()
    lines = output.splitlines()
    odd = next((line for line in lines if not line.startswith("[")), None)
    if odd is not None:
        raise SystemExit(f"pycer answered a line that is not a complex event: {odd[:160]!r}")
    return _result(config, processed=len(events), elapsed=elapsed, cpu=cpu, outputs=len(lines), baseline=baseline,
                   peak=peak, hwm_reset=hwm_reset, curve=[(len(events), round(rss_mb() - baseline, 1))],
                   stopped_early=False, preload_s=preload_s, paused=0.0, setup_s=setup_s, info=info)


def distribution_version(name: str) -> str:
    """The installed version of the distribution ``name``, or "unknown" (informative only)."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


# ---------------------------------------------------------------------------------------------- flink

STOCK_TABLE_COLUMNS = (("type", "STRING"), ("id", "BIGINT"), ("name", "STRING"), ("volume", "INT"),
                       ("price", "DOUBLE"), ("stock_time", "BIGINT"))
"""The CSV file's columns, in :func:`benchmarks.stock.stock_stream`'s order."""


def write_stock_csv(path: str, events: Iterable[dict]) -> str:
    """The stream as Flink's file source reads it: one CSV file in the folder ``path``; returns the folder."""
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "rows.csv"), "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        for e in events:
            writer.writerow([e[c] for c, _ in STOCK_TABLE_COLUMNS])
    return path


def stock_table_ddl(table: str, folder: str) -> str:
    """The stock stream as a Flink table: ``ts`` (``stock_time`` in ms as a timestamp) is the event-time
    attribute; the watermark trails by a second (rows with equal times are not late)."""
    cols = ", ".join(f"`{c}` {t}" for c, t in STOCK_TABLE_COLUMNS)
    return (f"CREATE TABLE {table} ({cols}, ts AS TO_TIMESTAMP_LTZ(stock_time, 3), "
            f"WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
            f"WITH ('connector' = 'filesystem', 'path' = '{folder}', 'format' = 'csv')")


class FlinkTables:
    """One PyFlink table environment in streaming mode (batch mode refuses ``MATCH_RECOGNIZE``), parallelism 1,
    kept for every job of the run."""

    def __init__(self) -> None:
        from pyflink.table import EnvironmentSettings, TableEnvironment  # Flink's environment only

        self.env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
        self.env.get_config().set("parallelism.default", "1")
        self.jobs = 0

    def rows(self, select: Callable[[str], str], folder: str) -> list[tuple]:
        """The rows of ``select(table)`` over the stream in ``folder``, collected to the last."""
        self.jobs += 1
        table = f"stock{self.jobs}"
        self.env.execute_sql(stock_table_ddl(table, folder))
        try:
            with self.env.execute_sql(select(table)).collect() as results:
                return [tuple(r) for r in results]
        finally:
            self.env.execute_sql(f"DROP TABLE IF EXISTS {table}")


def _flink_run(config: dict, open_tables: Callable[[], Any] = FlinkTables) -> dict:
    """flink: the JVM start, a cold and a warm one-event job, then the timed job over the whole stream."""
    from benchmarks.flink_suite import RprQuery, flink_select

    query = RprQuery(config["query"], config["text"], "", False)
    select = functools.partial(flink_select, query)
    t = time.perf_counter()
    tables = open_tables()
    jvm_start_s = time.perf_counter() - t
    with tempfile.TemporaryDirectory(prefix="cer_bench_flink_") as tmp:
        t = time.perf_counter()
        full = write_stock_csv(os.path.join(tmp, "stream"), stock_stream(config["events"], config["seed"]))
        one = write_stock_csv(os.path.join(tmp, "one"), stock_stream(1, config["seed"]))
        preload_s = time.perf_counter() - t
        t = time.perf_counter()
        tables.rows(select, one)
        cold_s = time.perf_counter() - t
        warm = []
        for _ in range(WARM_JOBS):
            t = time.perf_counter()
            tables.rows(select, one)
            warm.append(time.perf_counter() - t)
        fixed_s, spread_s = statistics.median(warm), max(warm) - min(warm)
        t0 = time.perf_counter()
        outputs = len(tables.rows(select, full))
        job_s = time.perf_counter() - t0
    if job_s <= max(warm):  # the difference would be noise, and its rate absurd (the clock is not that fine)
        raise SystemExit(f"flink: the job over {config['events']:,} events took {job_s:.2f} s, no longer than the "
                         f"slowest one-event job ({max(warm):.2f} s): the stream's cost is within the fixed cost's "
                         "noise; measure a longer stream")
    version = distribution_version("apache-flink")
    info = {"flink_version": version, "input": "CSV file (written before the clocks)",
            "jvm_start_seconds": round(jvm_start_s, 3), "first_job_seconds": round(cold_s, 3),
            "fixed_job_seconds": round(fixed_s, 3), "fixed_job_spread_seconds": round(spread_s, 3),
            "job_seconds": round(job_s, 3),
            "note": f"seconds = job_seconds - fixed_job_seconds (the median of {WARM_JOBS} warm one-event jobs of "
                    "the same query; their spread is fixed_job_spread_seconds); events_per_s_with_setup counts "
                    "the fixed cost; the JVM start is outside both"}
    return _result(config, processed=config["events"], elapsed=job_s - fixed_s, cpu=None,
                   outputs=outputs, baseline=None, peak=None, hwm_reset=False, curve=[], stopped_early=False,
                   preload_s=preload_s, paused=0.0, setup_s=fixed_s, info=info)


WARM_JOBS = 3
"""Warm one-event jobs per Flink run: their median is the fixed cost, their spread says how much of a short
stream job's rate is noise (a run whose stream share is within a few spreads is marked in the report)."""


def _measure(config: dict, source: Iterator, preload_s: float | None, setup_s: float, info: dict,
             evaluate: Callable[[Feed], int], convert: Callable[[dict], Any] | None = None) -> dict:
    """Ours and naive: the engine reads the stream from a :class:`Feed`, whose pauses are subtracted."""
    gc.collect()
    gc.freeze()  # what exists now (a preloaded stream, the compiled query) is not evaluation state
    baseline = rss_mb()
    hwm_reset = reset_hwm()
    feed = Feed(source, config["chunk"], config["sample_every"], config.get("time_budget"), baseline, convert)
    profiler = None
    if config.get("profile"):
        import cProfile

        profiler = feed.profiler = cProfile.Profile()
        profiler.enable()
    cpu0 = time.process_time()
    t0 = feed.started = time.perf_counter()
    outputs = evaluate(feed)
    elapsed = time.perf_counter() - t0 - feed.paused
    cpu = time.process_time() - cpu0 - feed.paused  # the paused work is single-threaded: subtract it as CPU too
    if profiler is not None:
        profiler.disable()
        _write_profile(profiler, config["profile"])
    peak = hwm_mb()
    processed = feed.fed
    if feed.curve and feed.curve[-1][0] == processed:
        feed.curve.pop()  # replaced by the sample taken after the last output
    feed.curve.append((processed, round(rss_mb() - baseline, 1)))
    if convert is not None and feed.converting > 0:
        info["input_conversion_events_per_s"] = round(processed / feed.converting)
    return _result(config, processed=processed, elapsed=elapsed, cpu=cpu, outputs=outputs, baseline=baseline,
                   peak=peak, hwm_reset=hwm_reset, curve=feed.curve, stopped_early=feed.stopped_early,
                   preload_s=preload_s, paused=feed.paused, setup_s=setup_s, info=info)


def _result(config: dict, *, processed: int, elapsed: float, cpu: float | None, outputs: int,
            baseline: float | None, peak: float | None, hwm_reset: bool, curve: list, stopped_early: bool, preload_s: float | None, paused: float,
            setup_s: float, info: dict) -> dict:
    """One run's record (the same keys for every engine)."""
    return {
        "engine": config["engine"], "query": config["query"], "events": processed,
        "events_requested": config["events"], "stopped_early": stopped_early,
        "seconds": round(elapsed, 4), "cpu_seconds": None if cpu is None else round(cpu, 4),
        "events_per_s": round(processed / elapsed, 1) if elapsed > 0 else None,
        "events_per_s_with_setup": round(processed / (elapsed + setup_s), 1) if elapsed + setup_s > 0 else None,
        "outputs": outputs,
        "baseline_rss_mb": None if baseline is None else round(baseline, 1),
        "peak_rss_mb": None if peak is None else round(peak, 1),
        "peak_growth_mb": round(peak - baseline, 1) if hwm_reset and peak is not None and baseline is not None
        else None,
        "hwm_reset": hwm_reset, "rss_growth_curve": curve,
        "preload_seconds": None if preload_s is None else round(preload_s, 3),
        "paused_seconds": round(paused, 3), "setup_seconds": round(setup_s, 4),
        "python": platform.python_version(), "info": info,
    }


def _write_profile(profiler: Any, path: str) -> None:
    import io
    import pstats

    buf = io.StringIO()
    stats = pstats.Stats(profiler, stream=buf)
    stats.sort_stats("tottime").print_stats(20)
    buf.write("\n--- by cumulative time ---\n")
    stats.sort_stats("cumulative").print_stats(20)
    with open(path, "w") as f:
        f.write(buf.getvalue())


def main() -> int:
    config = json.load(sys.stdin)
    if config["engine"] == "pycer":
        result = _pycer_run(config)
    elif config["engine"] == "flink":
        result = _flink_run(config)
    elif config["engine"] in ("ours", "naive"):
        result = _python_run(config)
    else:
        raise SystemExit(f"unknown engine {config['engine']!r}")
    with open(config["result_path"], "w") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
