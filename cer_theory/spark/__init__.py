"""CEQL on Spark: the single-process engine's complex events, computed over DataFrames in parallel.

``run_query(spark, df, query)`` (batch, :mod:`.batch`), :func:`spark_session` (local by default), and the plan
that says how a query is spread over tasks (:mod:`.plan`). PySpark is imported only when these are used.
"""

from .batch import BadRowsError, SparkRun, read_events, run, run_query
from .plan import Plan, plan_query
from .session import spark_session

__all__ = ["BadRowsError", "Plan", "SparkRun", "plan_query", "read_events", "run", "run_query", "spark_session"]
