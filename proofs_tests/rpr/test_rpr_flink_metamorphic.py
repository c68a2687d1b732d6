"""The MATCH_RECOGNIZE metamorphic relations against Apache Flink itself, on a small seeded sample (CI's Flink step
runs this file in its own environment with ``cer_theory[flink]``; elsewhere it is skipped)."""

from __future__ import annotations

import pytest

pytest.importorskip("pyflink")

from cer_theory.conformance.flink import generate_groups, missing_requirements, open_session  # noqa: E402
from cer_theory.conformance.rpr_metamorphic import RELATIONS, FlinkRows, check_cases  # noqa: E402

if missing_requirements() is not None:  # pragma: no cover - pyflink without java
    pytest.skip(missing_requirements(), allow_module_level=True)


def test_every_relation_holds_on_flink_for_a_seeded_group() -> None:
    """One query on five streams: one Flink job for the source and the stream follow-ups, one per query
    follow-up; every relation that applies holds, and none of the runs fails."""
    session = open_session()
    engine = FlinkRows(session)
    try:
        checks = [c for c in check_cases(generate_groups(1, 5, seed=11)[0], engine) if c is not None]
    finally:
        session.close()
    assert engine.failures == 0
    assert {c.relation for c in checks} >= set(RELATIONS) - {"partition-interleave", "skip-subset"}
    assert not [c.text() for c in checks if c.finding]
