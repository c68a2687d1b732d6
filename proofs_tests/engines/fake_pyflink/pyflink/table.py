"""A stand-in for ``pyflink.table``: ``TableEnvironment.create``, ``get_config().set``, ``execute_sql`` of
``CREATE TABLE … WITH ('path' = …)``, ``DROP TABLE`` and a ``SELECT … FROM <table> MATCH_RECOGNIZE …`` whose
``collect()`` is a context manager over rows, as the benchmark's :class:`benchmarks.worker.FlinkTables` uses them.

It evaluates nothing; a ``SELECT`` over a file of n rows behaves as the environment says:

* ``FAKE_PYFLINK_JVM``, ``FAKE_PYFLINK_FIXED``, ``FAKE_PYFLINK_PER_ROW`` (seconds, default 0): creating the
  environment takes the first (the JVM start), a job the second plus the third per row of its file;
* ``FAKE_PYFLINK_EVERY`` (default 10): the job returns one row per that many rows of its file;
* ``FAKE_PYFLINK=fail``: a job over more than one row raises as py4j raises a Java exception (the one-row jobs
  that measure the fixed cost succeed, so the failure comes after clocks have run).

Every statement is logged in ``TableEnvironment.statements`` (in this process).
"""

import os
import re
import time


def _seconds(name):
    return float(os.environ.get(name, "0"))


class EnvironmentSettings:
    @staticmethod
    def in_streaming_mode():
        return EnvironmentSettings()


class _Config:
    def __init__(self):
        self.values = {}

    def set(self, key, value):
        self.values[key] = value
        return self


class _Collected:
    def __init__(self, rows):
        self.rows = rows

    def __enter__(self):
        return iter(self.rows)

    def __exit__(self, *exc):
        return False


class _Result:
    def __init__(self, rows=()):
        self.rows = list(rows)

    def collect(self):
        return _Collected(self.rows)


class Py4JJavaError(Exception):
    """What py4j raises for a Java exception: its text names the Java exception after ``\\n: ``."""


class TableEnvironment:
    statements = []

    def __init__(self):
        self.config = _Config()
        self.folders = {}

    @staticmethod
    def create(settings):
        time.sleep(_seconds("FAKE_PYFLINK_JVM"))
        return TableEnvironment()

    def get_config(self):
        return self.config

    def execute_sql(self, sql):
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
        time.sleep(_seconds("FAKE_PYFLINK_FIXED") + n * _seconds("FAKE_PYFLINK_PER_ROW"))
        if os.environ.get("FAKE_PYFLINK") == "fail" and n > 1:
            raise Py4JJavaError("An error occurred while calling o12.executeSql.\n: "
                                "org.apache.flink.table.api.TableException: fake failure of the job")
        every = int(os.environ.get("FAKE_PYFLINK_EVERY", "10"))
        return _Result((k, k + 1) for k in range(n // every))
