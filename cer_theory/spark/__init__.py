"""CEQL on Spark: the single-process engine's complex events, computed over DataFrames in parallel.

``run_query(spark, df, query)`` (batch, :mod:`.batch`), the plan that says how a query is spread over tasks
(:mod:`.plan`), Structured Streaming with per-key state and checkpoints (:mod:`.streaming`), and
:func:`spark_session` (local by default). PySpark is imported only when these are used.
"""

from cer_theory.spark.batch import BadRowsError, SparkRun, read_events, run, run_query
from cer_theory.spark.plan import Plan, plan_query
from cer_theory.spark.session import spark_session
from cer_theory.spark.streaming import read_stream, read_stream_output, start_stream, stream_job

__all__ = ["BadRowsError", "Plan", "SparkRun", "plan_query", "read_events", "read_stream", "read_stream_output",
           "run", "run_query", "spark_session", "start_stream", "stream_job"]
