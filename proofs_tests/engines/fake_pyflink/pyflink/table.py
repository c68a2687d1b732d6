"""A stand-in for ``pyflink.table``: ``TableEnvironment.create``, ``get_config().set``, ``execute_sql`` of
``CREATE TABLE … WITH ('path' = …)``, ``DROP TABLE`` and a ``SELECT … FROM <table> MATCH_RECOGNIZE …`` whose
``collect()`` is a context manager over rows, as the benchmark's :class:`benchmarks.worker.FlinkTables` uses them.

It evaluates nothing; a ``SELECT`` over a file of n rows behaves as the environment says:

* ``FAKE_PYFLINK_JVM``, ``FAKE_PYFLINK_FIXED``, ``FAKE_PYFLINK_PER_ROW`` (seconds, default 0): creating the
  environment takes the first (the JVM start), a job the second plus the third per row of its file;
* ``FAKE_PYFLINK_COLD`` (seconds, default 0): what the environment's first job takes more (class loading, code
  generation), so that a clock taking the cold job for the fixed cost is told apart;
* ``FAKE_PYFLINK_EVERY`` (default 10): the job returns one row per that many rows of its file;
* ``FAKE_PYFLINK=fail``: a job over more than one row raises as py4j raises a Java exception (the one-row jobs
  that measure the fixed cost succeed, so the failure comes after clocks have run).

Every statement is logged in ``TableEnvironment.statements`` (in this process).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable, Iterator
from typing import Any


def _seconds(name: str) -> float:
    return float(os.environ.get(name, "0"))


class EnvironmentSettings:
    @staticmethod
    def in_streaming_mode() -> EnvironmentSettings:
        return EnvironmentSettings()


class _Config:
    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def set(self, key: str, value: str) -> _Config:
        self.values[key] = value
        return self


class _Collected:
    def __init__(self, rows: list[tuple]) -> None:
        self.rows = rows

    def __enter__(self) -> Iterator[tuple]:
        return iter(self.rows)

    def __exit__(self, *exc: Any) -> bool:
        return False


class _Result:
    def __init__(self, rows: Iterable[tuple] = ()) -> None:
        self.rows = list(rows)

    def collect(self) -> _Collected:
        return _Collected(self.rows)


class Py4JJavaError(Exception):
    """What py4j raises for a Java exception: its text names the Java exception after ``\\n: ``."""


class TableEnvironment:
    statements: list[str] = []

    def __init__(self) -> None:
        self.config = _Config()
        self.folders: dict[str, str] = {}
        self.jobs = 0

    @staticmethod
    def create(settings: EnvironmentSettings) -> TableEnvironment:
        time.sleep(_seconds("FAKE_PYFLINK_JVM"))
        return TableEnvironment()

    def get_config(self) -> _Config:
        return self.config

    def execute_sql(self, sql: str) -> _Result:
        TableEnvironment.statements.append(sql)
        created = re.match(r"CREATE TABLE (\w+) .*'path' = '([^']*)'", sql)
        if created:
            self.folders[created.group(1)] = created.group(2)
            return _Result()
        dropped = re.match(r"DROP TABLE IF EXISTS (\w+)", sql)
        if dropped:
            self.folders.pop(dropped.group(1), None)
            return _Result()
        table = re.search(r"FROM (\w+) MATCH_RECOGNIZE", sql).group(1)
        with open(os.path.join(self.folders[table], "rows.csv"), encoding="utf-8") as f:
            n = sum(1 for _ in f)
        self.jobs += 1
        cold = _seconds("FAKE_PYFLINK_COLD") if self.jobs == 1 else 0.0
        time.sleep(cold + _seconds("FAKE_PYFLINK_FIXED") + n * _seconds("FAKE_PYFLINK_PER_ROW"))
        if os.environ.get("FAKE_PYFLINK") == "fail" and n > 1:
            raise Py4JJavaError("An error occurred while calling o12.executeSql.\n: "
                                "org.apache.flink.table.api.TableException: fake failure of the job")
        every = int(os.environ.get("FAKE_PYFLINK_EVERY", "10"))
        return _Result((k, k + 1) for k in range(n // every))
