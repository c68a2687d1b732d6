"""Hypothesis profiles: "ci" (default; derandomized so a red run is reproducible) and "deep" (local runs)."""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "deep", max_examples=2000, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def require(available: bool, what: str) -> None:
    """Skip when an optional tool outside PyPI (Java for Spark) is missing on a developer machine; fail in CI,
    where it must be present. Drawings are not optional: they render everywhere (core/drawing)."""
    if available:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{what} is required in CI")
    pytest.skip(f"{what} is not installed")


def _spark_available() -> bool:
    import importlib.util
    import shutil

    return importlib.util.find_spec("pyspark") is not None and (shutil.which("java") is not None
                                                                 or bool(os.environ.get("JAVA_HOME")))


@pytest.fixture(scope="session")
def spark():
    """One local Spark session per test process (tests marked ``spark``): two cores, few shuffle partitions."""
    require(_spark_available(), "pyspark with Java 17")
    from cer_theory.spark import spark_session

    session = spark_session("local[2]", conf={"spark.sql.shuffle.partitions": "4",
                                              "spark.default.parallelism": "4"})
    yield session
    session.stop()
