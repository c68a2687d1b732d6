"""Smoke test of benchmarks/sremo_bench.py (no timing assertions): every engine runs every pattern on a few
hundred stock events, and the engines that compute the same matches agree on their number."""

import pytest

from benchmarks.sremo_bench import ENGINES, PATTERNS, bench_one, events


@pytest.fixture(scope="module")
def stream():
    return events(150)


@pytest.mark.parametrize("pattern", ["seq_3", "q1", "q5"])
def test_engines_agree_on_a_short_stream(pattern, stream):
    got = {e: bench_one(pattern, e, stream) for e in ENGINES if e != "plain" or pattern != "seq_9"}
    assert all(r["events"] == len(stream) for r in got.values())
    assert got["shared"]["matches"] == got["plain"]["matches"]
    # On 150 events no match spans more than the window, so CEQL's WITHIN and Def. 39 agree.
    assert got["tecs"]["matches"] == got["shared-free"]["matches"]
    assert got["shared-detect"]["matches"] <= got["shared"]["matches"]
    assert got["detect"]["matches"] == got["shared-detect"]["matches"]
    assert got["shared"]["peak_live"] <= got["plain"]["peak_live"]


def test_patterns_parse_and_unknown_engine_is_refused(stream):
    assert set(PATTERNS) == {"seq_3", "seq_6", "seq_9", "q1", "q2", "q3", "q4", "q5"}
    assert bench_one("seq_9", "shared-detect", stream[:50])["events"] == 50
    with pytest.raises(ValueError):
        bench_one("seq_3", "nope", stream)
