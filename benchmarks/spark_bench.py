"""The Spark benchmark: events/s of ``cer_theory.spark`` on ``local[1]`` and ``local[2]``, beside the single-process
engine, for a partitioned query (and a time-sliced one) on the generated stock stream.

    python -m benchmarks.spark_bench --events 1000000 --runs 3 [--masters local[1],local[2]] \\
        [--queries partitioned,sliced] [--outputs events,positions] [--out benchmarks/results/spark.json]

Protocol (summarized in the report's ``meta.protocol``):

* **Stream.** ``benchmarks.stock.stock_stream(n, seed)`` written once to Parquet, in stream order, in row groups
  of :data:`ROW_GROUP` events (so Spark can split the scan), cached under ``~/.cache/cer_theory/bench/``. The
  pipeline numbers the rows in file order (``cer_theory.spark.positions``), the engine reads the same file.
* **One run, one fresh process.** A SparkSession's master is fixed for the life of its JVM, and the pipeline
  persists intermediate DataFrames that a second run in the same session would find cached. So every (query,
  configuration, run) is a subprocess, and runs are interleaved (run 1 of every configuration, then run 2, …) so
  that a busy moment of the shared machine hits all of them alike.
* **Clock.** Session start-up is timed apart (``startup_s``), then one warm-up run of the same query and action on
  the first :data:`WARMUP_EVENTS` events (class loading, code generation, Python workers importing
  ``cer_theory``; ``warmup_s``). The job clock (``job_s``) runs from ``read_events`` to the end of the action: it
  includes ``run()``'s own Spark jobs (positions, row checks, counts; ``prepare_s``) and the action that
  evaluates the query (``evaluate_s``). events/s = events / ``job_s``; the median over the runs is reported.
* **Action.** ``noop`` (default): ``matches.write.format("noop")``, which computes every row and column of the
  output and writes nothing; the output count comes from an ``Observation`` on the written rows, so nothing is
  collected to the driver. ``count`` is ``matches.count()`` (Spark then drops the aggregation that gathers ``events``),
  ``parquet`` writes the output to a temporary directory (deleted outside the clock).
* **Outputs.** ``events`` runs ``run(..., with_events=True)`` (the matched rows gathered by joins: the default
  and the realistic case), ``positions`` runs ``with_events=False``.
* **Memory.** Peaks over the job only (the kernel's marks are reset when the clock starts): the driver's Python
  and the JVM (``VmHWM``), the Python workers (sampled sum of PSS, shared pages split between them; and the
  largest single worker's ``VmHWM``), the whole process tree (sampled sum of PSS).
* **Single process.** ``cer_theory.engines.core.Engine(query).process(frame)`` over the same Parquet file read into a
  pandas DataFrame before the clock; events/s, complex events, peak RSS growth. Every configuration's output count
  must equal the engine's: a difference is printed as a warning and recorded in the report.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
ROW_GROUP = 100_000
"""Events per Parquet row group: Spark splits a file's scan at row groups only."""
WARMUP_EVENTS = 2_000
SAMPLE_EVERY_S = 0.25
"""Interval of the process-tree memory sampler."""
ACTIONS = ("noop", "count", "parquet")
OUTPUTS = {"events": True, "positions": False}
"""Output mode → ``with_events``."""
PROTOCOL = ("each (query, configuration, run) in a fresh process, runs interleaved; Parquet input in stream "
            "order; SparkSession start-up and a warm-up run on the first 2,000 events timed apart; the job clock "
            "runs from read_events to the end of the action (run()'s own Spark jobs included); memory peaks over "
            "the job only, from /proc; the single process reads the same file into pandas before its clock")
"""The report's one-paragraph summary of the protocol in the module docstring."""


@dataclass(frozen=True)
class SparkQuery:
    name: str
    text: str
    note: str


def _queries() -> dict[str, SparkQuery]:
    from benchmarks.suite import SUITE

    return {
        "partitioned": SparkQuery(
            "partitioned",
            "SELECT * FROM S WHERE (SELL AS s1 ; BUY+ AS b ; SELL AS s2) "
            "FILTER s1[volume >= 4500] AND b[volume >= 2500] AND s2[volume >= 4500] "
            "PARTITION BY [name] WITHIN 5000 [stock_time]",
            "per stock: a large sale, one or more mid-size buys, a large sale, within 5 s (≈5 events of the same "
            "stock); PARTITION BY gives the partitioned plan (10 keys hashed over the shuffle partitions); "
            "≈2 CEs per 100 events on this stream"),
        "sliced": SparkQuery(
            "sliced", SUITE["P3"].text,
            "the suite's P3 (no PARTITION BY, WITHIN 10 s): the time-sliced plan, each slice reading the window "
            "before it; ≈0.65 CEs per event"),
    }


# ---------------------------------------------------------------------------------------------- the stream


def _stream_version() -> str:
    """A digest of the generator's source, so a changed generator never reuses a stale cached file."""
    return hashlib.sha1((REPO / "benchmarks" / "stock.py").read_bytes()).hexdigest()[:8]


def default_cache_dir() -> Path:
    return Path(os.environ.get("CER_BENCH_CACHE", Path.home() / ".cache" / "cer_theory" / "bench"))


def stream_parquet(n: int, seed: int, cache_dir: Path | None = None) -> Path:
    """The first ``n`` events of ``stock_stream(seed)`` as a Parquet file in stream order (written on first use,
    row group by row group, so memory stays bounded; then reused)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from benchmarks.stock import stock_stream

    cache = cache_dir or default_cache_dir()
    path = cache / f"stock_n{n}_seed{seed}_rg{ROW_GROUP}_{_stream_version()}.parquet"
    if path.exists():
        return path
    cache.mkdir(parents=True, exist_ok=True)
    schema = pa.schema([("type", pa.string()), ("id", pa.int64()), ("name", pa.string()),
                        ("volume", pa.int64()), ("price", pa.float64()), ("stock_time", pa.int64())])
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    events = stock_stream(n, seed)
    with pq.ParquetWriter(tmp, schema) as writer:
        for start in range(0, n, ROW_GROUP):
            chunk = [next(events) for _ in range(min(ROW_GROUP, n - start))]
            writer.write_table(pa.Table.from_pylist(chunk, schema=schema), row_group_size=ROW_GROUP)
    tmp.replace(path)  # atomic: a concurrent or interrupted writer never leaves a half file under the name
    return path


# ---------------------------------------------------------------------------------------------- memory


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _status_kb(pid: int, field: str) -> int | None:
    text = _read(f"/proc/{pid}/status")
    for line in (text or "").splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return None


def _pss_kb(pid: int) -> int | None:
    for line in (_read(f"/proc/{pid}/smaps_rollup") or "").splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return None


def descendants(root: int) -> list[int]:
    """``root``'s descendant processes (the JVM is the driver's child, the Python workers the JVM's)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        stat = _read(f"/proc/{entry}/stat")
        if stat:
            ppid = int(stat.rsplit(")", 1)[1].split()[1])  # the command name may contain spaces and ')'
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _role(pid: int, me: int) -> str:
    if pid == me:
        return "driver"
    comm = (_read(f"/proc/{pid}/comm") or "").strip()
    return "jvm" if comm == "java" else "workers" if comm.startswith("python") else "other"


class TreeMemory:
    """Peak memory of this process and its descendants over a stretch of time: the kernel's high-water marks
    (reset at :meth:`start` where the kernel allows it) plus a background sampler of PSS by role."""

    def __init__(self) -> None:
        self.me = os.getpid()
        self.peak_pss: dict[str, int] = {}
        self.peak_hwm: dict[str, int] = {}
        self.samples = 0
        self.reset_ok = True
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self, *, sample: bool = True) -> None:
        """Reset the marks; with ``sample``, also start the sampler thread (not for a single busy process,
        where it would take the GIL from the measured work)."""
        for pid in [self.me, *descendants(self.me)]:
            try:
                with open(f"/proc/{pid}/clear_refs", "w") as f:
                    f.write("5")  # reset VmHWM to the current RSS
            except OSError:
                self.reset_ok = False
        if sample:
            self._thread.start()

    def _sample(self) -> None:
        pss: dict[str, int] = {}
        for pid in [self.me, *descendants(self.me)]:
            role = _role(pid, self.me)
            pss[role] = pss.get(role, 0) + (_pss_kb(pid) or 0)
            hwm = _status_kb(pid, "VmHWM") or 0
            self.peak_hwm[role] = max(self.peak_hwm.get(role, 0), hwm)
        pss["tree"] = sum(pss.values())
        for role, kb in pss.items():
            self.peak_pss[role] = max(self.peak_pss.get(role, 0), kb)
        self.samples += 1

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(SAMPLE_EVERY_S)

    def stop(self) -> dict[str, Any]:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        self._sample()  # the live processes' marks at the end cover the last stretch
        mb = lambda kb: round(kb / 1024, 1)  # noqa: E731
        return {
            "driver_peak_rss_mb": mb(self.peak_hwm.get("driver", 0)),
            "jvm_peak_rss_mb": mb(self.peak_hwm.get("jvm", 0)),
            "workers_peak_pss_mb": mb(self.peak_pss.get("workers", 0)),
            "worker_max_rss_mb": mb(self.peak_hwm.get("workers", 0)),
            "tree_peak_pss_mb": mb(self.peak_pss.get("tree", 0)),
            "memory_samples": self.samples, "hwm_reset": self.reset_ok,
        }


# ---------------------------------------------------------------------------------------------- one run


def _spark_job(spark: Any, path: str, text: str, with_events: bool, action: str, scratch: str) -> dict:
    """``run()`` and the action; times (``run()``'s phases too) and the output count."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    from cer_theory.spark import read_events, run

    t0 = time.perf_counter()
    result = run(spark, read_events(spark, path), text, with_events=with_events)
    t1 = time.perf_counter()
    spark.sparkContext.setJobDescription(f"benchmark: evaluate ({action})")
    if action == "count":
        outputs = result.matches.count()
    else:
        seen = Observation("outputs")
        writer = result.matches.observe(seen, F.count(F.lit(1)).alias("n")).write.mode("overwrite")
        if action == "noop":
            writer.format("noop").save()
        else:
            writer.parquet(os.path.join(scratch, "out.parquet"))
        outputs = seen.get["n"]
    t2 = time.perf_counter()
    spark.sparkContext.setLocalProperty("spark.job.description", None)
    return {"prepare_s": t1 - t0, "evaluate_s": t2 - t1, "job_s": t2 - t0, "outputs": int(outputs),
            "rows": result.rows, "tasks": result.tasks, "plan": result.plan.describe(),
            "phases": {k: round(v, 3) for k, v in result.timings.items()}}


def spark_jobs(spark: Any, since_ms: float) -> list[dict]:
    """The Spark UI's job list (its REST API) for the jobs submitted after ``since_ms`` (epoch ms), oldest
    first: description, wall seconds, tasks, and the summed run time of their stages' tasks (executor s)."""
    import urllib.request

    base = f"{spark.sparkContext.uiWebUrl}/api/v1/applications/{spark.sparkContext.applicationId}"

    def get(what: str) -> list[dict]:
        with urllib.request.urlopen(f"{base}/{what}", timeout=30) as r:
            return json.loads(r.read())

    def ms(stamp: str) -> float:  # the UI's "2026-11-23T17:31:26.020GMT"
        return _dt.datetime.strptime(stamp.replace("GMT", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z").timestamp() * 1e3

    jobs: list[dict] = []
    for _ in range(20):  # the UI's listener runs behind the jobs: wait until every job has finished
        jobs = [j for j in get("jobs") if ms(j["submissionTime"]) >= since_ms]
        if all(j.get("completionTime") for j in jobs):
            break
        time.sleep(0.5)
    stages = {s["stageId"]: s for s in get("stages")}
    out = []
    for j in sorted(jobs, key=lambda j: j["jobId"]):
        executor = sum(stages[i].get("executorRunTime", 0) for i in j["stageIds"] if i in stages) / 1e3
        jvm_cpu = sum(stages[i].get("executorCpuTime", 0) for i in j["stageIds"] if i in stages) / 1e9
        out.append({"job": j["jobId"], "description": j.get("description") or j.get("name", ""),
                    "s": round((ms(j["completionTime"]) - ms(j["submissionTime"])) / 1e3, 3)
                    if j.get("completionTime") else None,
                    "tasks": j.get("numTasks"), "skipped_stages": j.get("numSkippedStages", 0),
                    "executor_s": round(executor, 3), "jvm_cpu_s": round(jvm_cpu, 3), "name": j.get("name", "")})
    return out


def spark_worker(config: dict) -> dict:
    """One measured Spark run (in its own process): start-up, warm-up, then the job under the clock."""
    from cer_theory.spark import read_events, spark_session

    conf = {"spark.sql.shuffle.partitions": str(config["shuffle_partitions"])} \
        if config.get("shuffle_partitions") else {}
    if config.get("master_url"):  # the standalone cluster: its executors' Python workers need benchmarks/ too
        conf["spark.executorEnv.PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    if config.get("profile"):  # the job list comes from the UI's REST API
        conf.update({"spark.ui.enabled": "true", "spark.ui.port": "0"})
    t0 = time.perf_counter()
    spark = spark_session(config.get("master_url") or config["master"], app_name="cer_theory_bench", conf=conf)
    startup = time.perf_counter() - t0
    with_events = OUTPUTS[config["output"]]
    out: dict[str, Any] = {"startup_s": round(startup, 3)}
    with tempfile.TemporaryDirectory(prefix="cer_spark_bench_") as scratch:
        if config.get("warmup_path"):
            t = time.perf_counter()
            _spark_job(spark, config["warmup_path"], config["text"], with_events, config["action"], scratch)
            out["warmup_s"] = round(time.perf_counter() - t, 3)
            # The fixed cost of a job: the same tiny job again, warm (Spark jobs, shuffles, task start-up).
            t = time.perf_counter()
            _spark_job(spark, config["warmup_path"], config["text"], with_events, config["action"], scratch)
            out["fixed_s"] = round(time.perf_counter() - t, 3)
        memory = TreeMemory()
        memory.start()
        since = time.time() * 1e3
        job = _spark_job(spark, config["path"], config["text"], with_events, config["action"], scratch)
        out.update(memory.stop())
        if config.get("profile"):
            out["spark_jobs"] = spark_jobs(spark, since - 1.0)
        if config["action"] == "parquet":
            out["output_bytes"] = sum(f.stat().st_size for f in Path(scratch, "out.parquet").rglob("*")
                                      if f.is_file())
    out.update({k: round(v, 3) if isinstance(v, float) else v for k, v in job.items()})
    out["events"] = config["events"]
    out["events_per_s"] = round(config["events"] / job["job_s"], 1)
    out["input_partitions"] = read_events(spark, config["path"]).rdd.getNumPartitions()
    out["default_parallelism"] = spark.sparkContext.defaultParallelism
    out["shuffle_partitions"] = int(spark.conf.get("spark.sql.shuffle.partitions"))
    spark.stop()
    return out


def engine_worker(config: dict) -> dict:
    """One measured single-process run: the Parquet file read into pandas before the clock, then
    ``Engine(query).process(frame)`` counting the matches."""
    import pyarrow.parquet as pq

    from cer_theory.engines.core import Engine

    t = time.perf_counter()
    frame = pq.read_table(config["path"]).to_pandas()
    read_s = time.perf_counter() - t
    memory = TreeMemory()
    memory.start(sample=False)
    baseline = _status_kb(os.getpid(), "VmRSS") or 0
    t0 = time.perf_counter()
    outputs = sum(1 for _ in Engine(config["text"]).process(frame))
    job = time.perf_counter() - t0
    mem = memory.stop()
    return {"events": len(frame), "read_s": round(read_s, 3), "job_s": round(job, 3), "outputs": outputs,
            "events_per_s": round(len(frame) / job, 1), "driver_peak_rss_mb": mem["driver_peak_rss_mb"],
            "peak_growth_mb": round(mem["driver_peak_rss_mb"] - baseline / 1024, 1), "hwm_reset": mem["hwm_reset"]}


def run_worker(config: dict, *, timeout: float) -> dict:
    """One run in a fresh process (``python -m benchmarks.spark_bench --worker``): its JSON result, or
    ``{"error": …}`` with the tail of its output."""
    with tempfile.TemporaryDirectory(prefix="cer_spark_bench_") as tmp:
        config = {**config, "result_path": os.path.join(tmp, "result.json")}
        # The caller's PYTHONPATH first (it may name a patched cer_theory), then the repository for benchmarks/.
        path = os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(REPO)]))
        env = {**os.environ, "PYTHONPATH": path, "PYTHONHASHSEED": "0"}
        try:
            # cwd: Spark may leave spark-warehouse/ or derby logs in its working directory.
            proc = subprocess.run([sys.executable, "-m", "benchmarks.spark_bench", "--worker"],
                                  input=json.dumps(config), text=True, capture_output=True, cwd=tmp, env=env,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"error": f"timeout after {timeout:.0f} s"}
        if proc.returncode != 0 or not os.path.exists(config["result_path"]):
            lines = [line for line in (proc.stderr or proc.stdout).strip().splitlines() if line.strip()]
            return {"error": f"exit status {proc.returncode}: {' | '.join(lines[-4:])}"}
        with open(config["result_path"]) as f:
            return json.load(f)


def _worker_main() -> int:
    config = json.loads(sys.stdin.read())
    result = spark_worker(config) if config["kind"] == "spark" else engine_worker(config)
    with open(config["result_path"], "w") as f:
        json.dump(result, f)
    return 0


# ---------------------------------------------------------------------------------------------- standalone cluster


CLUSTER = "cluster"
"""The ``--masters`` name of a standalone cluster the benchmark starts itself: a master and one worker with
:data:`CLUSTER_CORES` cores, from the pyspark package's ``bin/spark-class``, stopped at the end."""
CLUSTER_CORES = 2
CLUSTER_MEMORY = "3g"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """A standalone Spark cluster on this machine (no root, nothing installed): ``spark-class``'s
    ``org.apache.spark.deploy.master.Master`` and one ``...worker.Worker``; :attr:`url` is its master URL. The
    worker (and so its executors' Python workers) gets the caller's ``PYTHONPATH``."""

    def __init__(self, log_dir: Path, cores: int = CLUSTER_CORES, memory: str = CLUSTER_MEMORY) -> None:
        import pyspark

        home = Path(pyspark.__file__).resolve().parent
        spark_class = str(home / "bin" / "spark-class")
        port, ui, worker_ui = _free_port(), _free_port(), _free_port()
        self.url = f"spark://127.0.0.1:{port}"
        self.ui = f"http://127.0.0.1:{ui}/json/"
        path = os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(REPO)]))
        env = {**os.environ, "SPARK_HOME": str(home), "PYTHONPATH": path, "SPARK_LOCAL_IP": "127.0.0.1",
               "PYSPARK_PYTHON": sys.executable, "SPARK_WORKER_DIR": str(log_dir / "work")}
        log_dir.mkdir(parents=True, exist_ok=True)
        self.procs: list[subprocess.Popen] = []
        self._logs = []
        for name, args in (("master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                       "--port", str(port), "--webui-port", str(ui)]),
                           ("worker", ["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                                       "--cores", str(cores), "--memory", memory, "--webui-port", str(worker_ui),
                                       self.url])):
            log = open(log_dir / f"{name}.log", "w")
            self._logs.append(log)
            self.procs.append(subprocess.Popen([spark_class, *args], stdout=log, stderr=subprocess.STDOUT,
                                               env=env, cwd=log_dir))
            if name == "master":
                self._wait(lambda state: state is not None, "the master")
        self._wait(lambda state: state is not None and state.get("aliveworkers", 0) >= 1, "a worker")

    def _state(self) -> dict | None:
        import urllib.request

        try:
            with urllib.request.urlopen(self.ui, timeout=2) as r:
                return json.loads(r.read())
        except OSError:
            return None

    def _wait(self, ready: Any, what: str, timeout: float = 120.0) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if ready(self._state()):
                return
            if any(p.poll() is not None for p in self.procs):
                break
            time.sleep(0.5)
        self.stop()
        raise SystemExit(f"the standalone cluster did not start ({what}); see the logs in {self._logs[0].name}")

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
        for log in self._logs:
            log.close()


# ---------------------------------------------------------------------------------------------- report


TIMES = ("job_s", "prepare_s", "evaluate_s", "startup_s", "warmup_s", "fixed_s", "read_s")
"""Taken from the median run (the one with the median job time), so a row's prepare + evaluate = its job."""
MEMORY = ("driver_peak_rss_mb", "jvm_peak_rss_mb", "workers_peak_pss_mb", "worker_max_rss_mb", "tree_peak_pss_mb",
          "peak_growth_mb")
"""Medians over the runs."""


def summarize(runs: list[dict]) -> dict:
    """Median events/s over the successful runs, the median run's times, median memory, and the output counts
    of all runs (they must be one number)."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return {"error": runs[-1]["error"] if runs else "no run", "runs": runs}
    counts = sorted({r["outputs"] for r in ok})
    median_run = sorted(ok, key=lambda r: r["job_s"])[len(ok) // 2]
    out: dict[str, Any] = {"events": ok[0]["events"], "events_per_s": round(statistics.median(
        r["events_per_s"] for r in ok), 1), "events_per_s_runs": [r["events_per_s"] for r in ok],
        "outputs": counts[0] if len(counts) == 1 else counts, "failed_runs": len(runs) - len(ok)}
    out.update({key: median_run[key] for key in TIMES if median_run.get(key) is not None})
    for key in MEMORY:
        values = [r[key] for r in ok if r.get(key) is not None]
        if values:
            out[key] = round(statistics.median(values), 1)
    for key in ("tasks", "plan", "input_partitions", "shuffle_partitions", "default_parallelism"):
        if key in ok[0]:
            out[key] = ok[0][key]
    for key in ("phases", "spark_jobs"):  # the median run's profile
        if key in median_run:
            out[key] = median_run[key]
    out["runs"] = runs
    return out


def summarize_query(name: str, runs: dict[str, list[dict]], masters: list[str], outputs: list[str]
                    ) -> tuple[dict, list[str]]:
    """One query's section of the report from its runs by configuration (``engine`` for the single process),
    and its warnings: output counts that differ, failed runs."""
    per = {config: summarize(rs) for config, rs in runs.items()}
    engine = per.pop("engine", None)
    res: dict[str, Any] = {**({"engine": engine} if engine is not None else {}), "configs": per}
    every = {**({"single process": engine} if engine is not None else {}), **per}
    res["agree"], res["agreement"] = agreement(every)
    res["ratios"] = ratios(res, masters, outputs)
    warnings = [] if res["agree"] else [f"{name}: {res['agreement']}"]
    for config, s in every.items():
        if "error" in s:
            warnings.append(f"{name}, {config}: every run failed: {s['error']}")
        elif s.get("failed_runs"):
            warnings.append(f"{name}, {config}: {s['failed_runs']} run(s) failed")
    return res, warnings


def config_name(master: str, output: str) -> str:
    return f"{master} {output}"


def agreement(per_config: dict[str, dict]) -> tuple[bool, str]:
    counts = {name: s["outputs"] for name, s in per_config.items() if "error" not in s}
    same = len({json.dumps(c) for c in counts.values()}) == 1 and all(isinstance(c, int) for c in counts.values())
    text = ", ".join(f"{name} {c:,}" if isinstance(c, int) else f"{name} {c}" for name, c in counts.items())
    return same, ("same output count: " if same else "DIFFERENT output counts: ") + text


def _fmt_rate(x: float | None) -> str:
    return "–" if x is None else f"{x / 1e3:,.1f} k"


def _fmt(x: Any, digits: int = 1) -> str:
    return "–" if x is None else f"{x:,.{digits}f}"


def render_markdown(report: dict) -> str:
    meta = report["meta"]
    machine = meta["machine"]
    lines = [
        "# Spark benchmark results: `cer_theory.spark` on local[1] / local[2] / a standalone cluster beside the "
        "single-process engine", "",
        f"Generated by `{meta['command']}` on {meta['date']}.",
        f"Machine: {machine.get('cpu')}, {machine.get('cpus')} CPUs, {machine.get('memory_gib')} GiB; "
        f"load average before/after: {meta['load_before']} / {meta['load_after']}. Commit {machine.get('git')}. "
        f"PySpark {meta.get('pyspark')}, Java: {meta.get('java')}.",
        f"Stream: `stock_stream({meta['events']:,}, seed={meta['seed']})` in Parquet ({meta['row_group']:,} "
        f"events per row group). Median of {meta['runs']} runs, each in a fresh process. Action: "
        f"`{meta['action']}`. Protocol: {meta['protocol']}.", "",
        *([f"**Note:** {meta['note']}", ""] if meta.get("note") else []),
        "Columns: **job s** = from `read_events` to the end of the action (SparkSession start-up and a warm-up "
        "run excluded, reported apart), **prepare s** = inside `run()` (positions and row checks, Spark jobs of "
        "their own), **evaluate s** = the action (the engine in the tasks, the joins of the output); "
        "**e/s** = events / job s (the median over the runs; the times are those of the median run); "
        f"**fixed s** = the same job on the first {meta.get('warmup_events') or WARMUP_EVENTS:,} events once warm "
        "(the cost of a job whatever its size: Spark jobs, shuffles, task start-up); memory "
        "in MiB (medians), peaks over the job: driver = the driver's Python (VmHWM), JVM (VmHWM), workers = "
        "the Python workers' summed PSS (sampled), tree = the whole process tree's PSS (sampled); for the "
        "single process: its peak RSS (growth over the frame in memory).", "",
    ]
    for qname, res in report["results"].items():
        q = report["queries"][qname]
        lines += [f"## {qname}", "", f"```sql\n{q['text']}\n```", "", q["note"] + ".", ""]
        plan = next((s.get("plan") for s in res["configs"].values() if s.get("plan")), None)
        if plan:
            lines += [f"Plan: {plan}.", ""]
        lines += ["| configuration | events | job s | prepare s | evaluate s | e/s | fixed s | startup s | "
                  "warm-up s | tasks | CEs | driver | JVM | workers | tree |", "|" + "---|" * 15]
        rows = ([("single process", res["engine"])] if res.get("engine") else []) + list(res["configs"].items())
        for name, s in rows:
            if "error" in s:
                lines.append(f"| {name} | failed: {s['error'][:200]} |" + " |" * 13)
                continue
            ces = f"{s['outputs']:,}" if isinstance(s["outputs"], int) else f"≠ {s['outputs']}"
            single = name == "single process"
            lines.append(" | ".join([
                f"| {name}", f"{s['events']:,}", _fmt(s.get("job_s"), 2), _fmt(s.get("prepare_s"), 2),
                _fmt(s.get("evaluate_s"), 2), _fmt_rate(s["events_per_s"]), _fmt(s.get("fixed_s"), 2),
                _fmt(s.get("startup_s"), 1),
                _fmt(s.get("warmup_s"), 1), str(s.get("tasks", 1 if single else "–")), ces,
                f"{_fmt(s.get('driver_peak_rss_mb'))}" + (f" (+{_fmt(s.get('peak_growth_mb'))})" if single else ""),
                _fmt(s.get("jvm_peak_rss_mb")), _fmt(s.get("workers_peak_pss_mb")),
                _fmt(s.get("tree_peak_pss_mb")) + " |"]))
        lines.append("")
        for r in res.get("ratios", []):
            lines.append(f"- {r}")
        lines += ["", f"Outputs: {'agree' if res['agree'] else '**DISAGREE**'} ({res['agreement']}).", ""]
        lines += render_profile(res)
    if report.get("warnings"):
        lines += ["## Warnings", "", *(f"- {w}" for w in report["warnings"]), ""]
    return "\n".join(lines)


def render_profile(res: dict) -> list[str]:
    """Per configuration: the seconds of ``run()``'s phases and, with ``--profile``, the Spark UI's job list of
    the measured job (median run)."""
    lines: list[str] = []
    for name, s in res["configs"].items():
        if "error" in s or not s.get("phases"):
            continue
        phases = ", ".join(f"{k} {v:.2f} s" for k, v in s["phases"].items())
        lines += [f"**{name}**: prepare {_fmt(s.get('prepare_s'), 2)} s = {phases} (the rest: planning on the "
                  f"driver).", ""]
        if s.get("spark_jobs"):
            lines += ["| Spark job | description | s | tasks | executor s | JVM CPU s | what |",
                      "|---|---|---|---|---|---|---|"]
            for j in s["spark_jobs"]:
                what = j["name"].split(" at ")[0]
                lines.append(f"| {j['job']} | {j['description']} | {_fmt(j['s'], 2)} | {j['tasks']} | "
                             f"{_fmt(j['executor_s'], 2)} | {_fmt(j.get('jvm_cpu_s'), 2)} | {what} |")
            total = sum(j["s"] or 0 for j in s["spark_jobs"])
            lines += ["", f"{len(s['spark_jobs'])} Spark jobs, {total:.2f} s in all (job s "
                          f"{_fmt(s.get('job_s'), 2)}; executor s = the summed run time of the job's tasks, JVM CPU "
                          f"s = the CPU time of their JVM threads: the rest of a task's time is spent waiting, "
                          f"mostly for its Python worker).", ""]
    return lines


def ratios(res: dict, masters: list[str], outputs: list[str]) -> list[str]:
    """Speed-ups: each master over the first (local[1]), and each configuration over the single process; where
    the fixed cost of a job was measured, the same without it (events / (job s − fixed s))."""
    out = []
    eng = res.get("engine", {}).get("events_per_s") if "error" not in res.get("engine", {"error": 1}) else None
    for output in outputs:
        summaries = {m: res["configs"].get(config_name(m, output), {}) for m in masters}
        rates = {m: s.get("events_per_s") for m, s in summaries.items()}
        net = {m: s["events"] / (s["job_s"] - s["fixed_s"]) for m, s in summaries.items()
               if s.get("fixed_s") is not None and s.get("job_s") and s["job_s"] > s["fixed_s"]}
        base = rates.get(masters[0])
        for m in masters[1:]:
            if base and rates.get(m):
                out.append(f"{output}: {m} / {masters[0]} = {rates[m] / base:.2f}×")
            if masters[0] in net and m in net:
                out.append(f"{output}: {m} / {masters[0]} without the fixed cost = {net[m] / net[masters[0]]:.2f}×")
        for m in masters:
            if eng and rates.get(m):
                out.append(f"{output}: {m} / single process = {rates[m] / eng:.2f}×")
            if eng and m in net:
                out.append(f"{output}: {m} / single process without the fixed cost = {net[m] / eng:.2f}×")
    return out


def _versions() -> dict[str, str | None]:
    try:
        import pyspark

        pyspark_version: str | None = pyspark.__version__
    except ImportError:
        pyspark_version = None
    try:
        java = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=30).stderr
        java_version: str | None = java.splitlines()[0] if java else None
    except (OSError, subprocess.TimeoutExpired):
        java_version = None
    return {"pyspark": pyspark_version, "java": java_version}


# ---------------------------------------------------------------------------------------------- main


def _split(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.spark_bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--events", type=int, default=1_000_000, help="stream length (default 1,000,000)")
    p.add_argument("--runs", type=int, default=3, help="runs per configuration; the median is reported")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--masters", default="local[1],local[2]",
                   help=f"comma-separated Spark masters; the first is the base of the speed-ups; {CLUSTER!r}: a "
                        f"standalone cluster started here (a master and a worker with {CLUSTER_CORES} cores)")
    p.add_argument("--queries", default="partitioned,sliced", help="comma-separated: partitioned, sliced")
    p.add_argument("--outputs", default="events,positions",
                   help="comma-separated: events (with_events=True), positions (with_events=False)")
    p.add_argument("--action", choices=ACTIONS, default="noop", help="what forces the computation (see above)")
    p.add_argument("--shuffle-partitions", type=int, default=None,
                   help="spark.sql.shuffle.partitions (default: cer_theory.spark_session's, max(4, 2·cores))")
    p.add_argument("--no-engine", action="store_true", help="skip the single-process engine")
    p.add_argument("--no-warmup", action="store_true", help="no warm-up run before the clock")
    p.add_argument("--cache-dir", default=None, help="where the Parquet streams are kept "
                                                      "(default $CER_BENCH_CACHE or ~/.cache/cer_theory/bench)")
    p.add_argument("--timeout", type=float, default=1800.0, help="kill a run after this many seconds")
    p.add_argument("--out", default="benchmarks/results/spark.json", help="JSON report; Markdown beside it")
    p.add_argument("--profile", action="store_true",
                   help="record the Spark UI's job list of each measured job (the UI is then enabled)")
    p.add_argument("--note", default=None, help="a remark recorded in the report (e.g. what else ran)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        return _worker_main()
    from benchmarks.run import machine_info

    known = _queries()
    queries = [known[q] if q in known else sys.exit(f"unknown query {q!r}; known: {', '.join(known)}")
               for q in _split(args.queries)]
    masters, outputs = _split(args.masters), _split(args.outputs)
    for o in outputs:
        if o not in OUTPUTS:
            raise SystemExit(f"unknown output mode {o!r}; known: {', '.join(OUTPUTS)}")
    if not masters or not outputs or not queries:
        raise SystemExit("--masters, --outputs and --queries need at least one item each")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    md_path = out.with_suffix(".md")
    cache = Path(args.cache_dir) if args.cache_dir else None

    t = time.time()
    path = stream_parquet(args.events, args.seed, cache)
    warmup = None if args.no_warmup else stream_parquet(min(WARMUP_EVENTS, args.events), args.seed, cache)
    print(f"stream: {path} ({time.time() - t:.1f} s)", flush=True)

    load_before = [round(x, 2) for x in os.getloadavg()]
    if load_before[0] > 0.5:
        print(f"warning: load average {load_before}: the machine is busy, rates will be low and noisy", flush=True)
    report: dict[str, Any] = {
        "meta": {
            "command": "python -m benchmarks.spark_bench " + " ".join(argv if argv is not None else sys.argv[1:]),
            "date": _dt.datetime.now().isoformat(timespec="seconds"), "machine": machine_info(), **_versions(),
            "events": args.events, "seed": args.seed, "runs": args.runs, "masters": masters, "outputs": outputs,
            "action": args.action, "row_group": ROW_GROUP, "warmup_events": None if warmup is None else WARMUP_EVENTS,
            "shuffle_partitions": args.shuffle_partitions, "load_before": load_before, "load_after": None,
            "protocol": PROTOCOL, "note": args.note,
        },
        "queries": {q.name: {"text": q.text, "note": q.note} for q in queries},
        "results": {}, "warnings": [],
    }
    cluster = None
    if CLUSTER in masters:
        t = time.time()
        cluster = Cluster(Path(tempfile.mkdtemp(prefix="cer_spark_cluster_")))
        print(f"standalone cluster: {cluster.url}, one worker with {CLUSTER_CORES} cores "
              f"({time.time() - t:.1f} s to start)", flush=True)
        report["meta"]["cluster"] = {"cores": CLUSTER_CORES, "memory": CLUSTER_MEMORY,
                                     "setup": "spark-class org.apache.spark.deploy.master.Master + "
                                              "org.apache.spark.deploy.worker.Worker on 127.0.0.1"}
    try:
        return _run_all(args, report, queries, masters, outputs, path, warmup, out, md_path,
                        None if cluster is None else cluster.url)
    finally:
        if cluster is not None:
            cluster.stop()


def _run_all(args: argparse.Namespace, report: dict, queries: list, masters: list[str], outputs: list[str],
             path: Path, warmup: Path | None, out: Path, md_path: Path, cluster_url: str | None) -> int:
    configs = [(m, o) for m in masters for o in outputs]
    total = len(queries) * args.runs * (len(configs) + (0 if args.no_engine else 1))
    done, started = 0, time.time()
    runs: dict[str, dict[str, list[dict]]] = {q.name: {} for q in queries}
    base = {"events": args.events, "path": str(path), "warmup_path": str(warmup) if warmup else None,
            "action": args.action, "shuffle_partitions": args.shuffle_partitions, "profile": args.profile}
    for r in range(args.runs):
        for q in queries:
            jobs = [] if args.no_engine else [("engine", {"kind": "engine"})]
            jobs += [(config_name(m, o), {"kind": "spark", "master": m, "output": o,
                                          "master_url": cluster_url if m == CLUSTER else None})
                     for m, o in configs]
            for name, extra in jobs:
                done += 1
                t = time.time()
                res = run_worker({**base, **extra, "text": q.text}, timeout=args.timeout)
                runs[q.name].setdefault(name, []).append(res)
                status = f"FAILED: {res['error']}" if "error" in res else (
                    f"{res['events_per_s']:>11,.0f} e/s  job {res['job_s']:.2f} s  {res['outputs']:>9,} CEs")
                print(f"[{done}/{total}] {q.name} {name:22} run {r + 1}/{args.runs}: {status}  "
                      f"({time.time() - t:.1f} s)", flush=True)
    for q in queries:
        report["results"][q.name], warnings = summarize_query(q.name, runs[q.name], masters, outputs)
        for warning in warnings:
            print(f"WARNING: {warning}", flush=True)
        report["warnings"] += warnings
    report["meta"]["load_after"] = [round(x, 2) for x in os.getloadavg()]
    report["meta"]["wall_seconds"] = round(time.time() - started, 1)
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(report, indent=1) + "\n")
    tmp.replace(out)
    md_path.write_text(render_markdown(report))
    print(f"\nwrote {out} and {md_path} ({report['meta']['wall_seconds']:.0f} s)")
    for q in queries:
        for line in report["results"][q.name]["ratios"]:
            print(f"  {q.name}: {line}")
    return 1 if report["warnings"] else 0


if __name__ == "__main__":
    sys.exit(main())
