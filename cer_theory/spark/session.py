"""A SparkSession set up for cer_theory: local by default, any master URL otherwise.

The Python workers must run the interpreter that has cer_theory installed (``PYSPARK_PYTHON``), and a session
needs far fewer shuffle partitions than Spark's default of 200: twice the cores (on a cluster, set once the
session knows its cores), unless ``conf`` says otherwise. On a cluster, install
``cer_theory[spark]`` into the executors' Python environment (or ship it with ``spark-submit --py-files``).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*]"
"""The embedded default: Spark inside this process's JVM, one worker thread per core."""


class _QuietPy4J(logging.Filter):
    """Py4J logs a call interrupted by Ctrl-C or SIGTERM, and the connections it then closes, with their
    tracebacks, partly on the root logger. PySpark raises every failure of a call as an exception, and the
    command line reports an interrupt in one line (``interrupted``, ``terminated``): Py4J's own records are
    dropped (docs/decisions.md D300)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.name.startswith("py4j") or f"{os.sep}py4j{os.sep}" in record.pathname)


_QUIET_PY4J = _QuietPy4J()


def spark_session(master: str | None = None, *, app_name: str = "cer_theory",
                  conf: Mapping[str, str] | None = None) -> SparkSession:
    """Get or create a SparkSession on ``master`` (default: ``$CER_SPARK_MASTER``; under ``spark-submit``, the
    submitted master; else ``local[*]``)."""
    from pyspark.sql import SparkSession

    logging.getLogger().addFilter(_QUIET_PY4J)  # (adding one filter twice keeps one)
    logging.getLogger("py4j").propagate = False  # (its loggers' records never reach the root's handlers)
    master = master or os.environ.get("CER_SPARK_MASTER")
    if master is None:
        active = SparkSession.getActiveSession()
        if active is not None:
            return active
        if "PYSPARK_GATEWAY_PORT" in os.environ:  # spark-submit or the pyspark shell: their master and conf rule
            return SparkSession.builder.appName(app_name).getOrCreate()
        master = DEFAULT_MASTER
    # Workers start `python3` from PATH unless told otherwise; that one may lack pandas or cer_theory.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    settings = {
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.showConsoleProgress": "false",  # cer-theory spark prints its own progress lines
    }
    if master.startswith("local"):
        cores = os.cpu_count() or 2
        settings.update({"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": str(max(4, 2 * cores)),
                         "spark.driver.memory": "2g"})
    settings.update(conf or {})
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    if "spark.sql.shuffle.partitions" not in settings:
        # A cluster's cores are known only once it runs: Spark's 200 shuffle partitions would start ~200 tasks
        # per shuffle for a few cores' worth of work (docs/decisions.md D128).
        spark.conf.set("spark.sql.shuffle.partitions", str(max(4, 2 * spark.sparkContext.defaultParallelism)))
    return spark
