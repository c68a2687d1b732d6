"""A small seeded sample against Apache Flink itself (CI installs ``cer_theory[flink]`` for this file only; on a
machine without Flink or Java it is skipped, and the rest of the suite never needs Flink)."""

from __future__ import annotations

import pytest

pytest.importorskip("pyflink")

from cer_theory.conformance.check import AGREE, EXPLAINED  # noqa: E402
from cer_theory.conformance.flink import generate_groups, missing_requirements, open_session, run  # noqa: E402

if missing_requirements() is not None:  # pragma: no cover - pyflink without java
    pytest.skip(missing_requirements(), allow_module_level=True)


def test_a_seeded_sample_agrees_or_is_explained() -> None:
    session = open_session()
    try:
        outcomes = run(generate_groups(2, 5, seed=3), session, shrink_findings=False)
    finally:
        session.close()
    assert len(outcomes) == 10
    bad = [o.to_json() for o in outcomes if o.kind not in (AGREE, EXPLAINED)]
    assert not bad, bad
