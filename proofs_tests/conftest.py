"""Hypothesis profiles: "ci" (default; derandomized so a red run is reproducible) and "deep" (local runs)."""

import os

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
    """Skip when an optional tool is missing on a developer machine; fail in CI, where it must be installed."""
    import pytest

    if available:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{what} is required in CI (.ci/run installs it)")
    pytest.skip(f"{what} is not installed")
