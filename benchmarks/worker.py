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

Configuration keys: ``engine`` ("ours", "naive" or "pycer"), ``query`` (a name), ``text`` (CEQL), ``events``,
``seed``, ``input`` ("native" or "dicts"), ``chunk``, ``sample_every``, ``time_budget`` (seconds or null),
``profile`` (path or null: cProfile the evaluation, ours and naive only), ``result_path``.

This module must import nothing outside the standard library and :mod:`benchmarks.stock` at module level: the
pycer peer runs it under a CPython 3.13 interpreter that does not have ``cer_theory``.
"""

from __future__ import annotations

import gc
import itertools
import json
import os
import platform
import sys
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

    version = "unknown"
    try:
        from importlib.metadata import version as dist_version
        version = dist_version("pycer")
    except Exception:  # noqa: BLE001 - the version is informative only
        pass
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


def _result(config: dict, *, processed: int, elapsed: float, cpu: float, outputs: int, baseline: float,
            peak: float, hwm_reset: bool, curve: list, stopped_early: bool, preload_s: float | None, paused: float,
            setup_s: float, info: dict) -> dict:
    """One run's record (the same keys for every engine)."""
    return {
        "engine": config["engine"], "query": config["query"], "events": processed,
        "events_requested": config["events"], "stopped_early": stopped_early,
        "seconds": round(elapsed, 4), "cpu_seconds": round(cpu, 4),
        "events_per_s": round(processed / elapsed, 1) if elapsed > 0 else None,
        "outputs": outputs,
        "baseline_rss_mb": round(baseline, 1), "peak_rss_mb": round(peak, 1),
        "peak_growth_mb": round(peak - baseline, 1) if hwm_reset else None,
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
    elif config["engine"] in ("ours", "naive"):
        result = _python_run(config)
    else:
        raise SystemExit(f"unknown engine {config['engine']!r}")
    with open(config["result_path"], "w") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
