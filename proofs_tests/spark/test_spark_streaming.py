"""Structured Streaming mode: the complex events are the single-process engine's, across micro-batches and
restarts, exactly once (issue: a streaming mode keyed by the partition attributes).

The replay core (:func:`cer_theory.spark.streaming.advance`) is first checked without Spark against
:class:`~cer_theory.engines.core.Engine` on random streams cut into random micro-batches (also why LIMIT is refused);
then the Spark query itself: its output equals the engine's, a stop and a restart from the checkpoint (and a
re-executed last batch) neither lose nor duplicate complex events, and every bad or late row is in the side
output with its position, field and reason.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections import Counter
from pathlib import Path

import pytest

from cer_theory.engines.core import Engine
from cer_theory.core.errors import UnsupportedError
from cer_theory.formalisms.ceql.semantics import partition_attributes
from cer_theory.spark.plan import POSITION_ATTRIBUTE, task_query
from cer_theory.spark.streaming import (KeySpec, KeyState, advance, check_streamable, read_stream,
                                        read_stream_output, start_stream, stream_job)
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.testing.harness import report

COLUMNS = ("type", "k", "x", "t")
KINDS = ("str", "str", "long", "long")
PARTITIONED = "SELECT * FROM S WHERE (A as a ; B+ ; C as c) FILTER a[x < 6] PARTITION BY [k] WITHIN 4 [t]"
UNPARTITIONED = "SELECT * FROM S WHERE (A ; (B OR C)+ ; C) FILTER C[x > 2] WITHIN 6 EVENTS"


def generate(seed: int, n: int, keys: str = "uvw") -> list[dict]:
    """Events A, B, C with a key k, a value x, a non-decreasing clock t and their stream position."""
    rng = random.Random(seed)
    clock, out = 0, []
    for position in range(n):
        clock += rng.choice((0, 1, 1, 2))
        out.append({"type": rng.choice("ABC"), "k": rng.choice(keys), "x": rng.randint(0, 9), "t": clock,
                    "position": position})
    return out


def engine_output(query: str, events: list[dict]) -> Counter:
    """The engine over the events in position order (positions dense from 0: engine positions = stream's)."""
    plain = [{a: v for a, v in e.items() if a != "position"} for e in events]
    return Counter((m.start, m.end, m.positions) for m in Engine(query).process(plain))


# ------------------------------------------------------------------------------------ the replay, no Spark


def key_spec(query: str, *, checked: bool = True) -> KeySpec:
    q = parse(query)
    runs = check_streamable(q) if checked else task_query(q)
    window = runs.within
    key = POSITION_ATTRIBUTE if window.attribute == POSITION_ATTRIBUTE else (window.attribute or "time")
    return KeySpec(runs, COLUMNS, KINDS, key, "position", partition_attributes(q.partition_by))


def replay_output(spec: KeySpec, events: list[dict], rng: random.Random, batches: int = 5) -> Counter:
    """The events cut into random micro-batches, grouped by key, shuffled inside each batch (as Spark may)."""
    cuts = sorted(rng.sample(range(1, len(events)), batches - 1))
    states: dict[tuple, KeyState] = {}
    out: Counter = Counter()
    for lo, hi in zip([0, *cuts], [*cuts, len(events)]):
        groups: dict[tuple, list[dict]] = {}
        for e in events[lo:hi]:
            groups.setdefault(tuple(e[p] for p in spec.partition_attributes), []).append(e)
        for key, rows in groups.items():
            rng.shuffle(rows)
            state, matches, rejected = advance(spec, states.get(key), rows)
            assert rejected == []
            if state is not None:
                states[key] = KeyState.from_tuple(state.to_tuple())  # through the state row, as in Spark
                window = spec.query.within
                assert all(window.admits(b[0] if spec.window_key == POSITION_ATTRIBUTE
                                         else b[1 + COLUMNS.index(spec.window_key)], state.last_key)
                           for b in state.buffer)  # the state is bounded by the window
            out.update((m["start"], m["end"], tuple(m["positions"])) for m in matches)
    return out


@pytest.mark.parametrize("query", [
    PARTITIONED,
    UNPARTITIONED,
    "SELECT * FROM S WHERE (A ; B+ ; C) PARTITION BY [k] WITHIN 5 EVENTS CONSUME BY PARTITION",
    "SELECT * FROM S WHERE (A ; B ; C) WITHIN 5 EVENTS CONSUME BY ANY",
    "SELECT * FROM S WHERE (A ; (B OR C)+ ; C) PARTITION BY [k] WITHIN 3 [t] CONSUME BY PARTITION",
    "SELECT STRICT * FROM S WHERE (A ; B) WITHIN 4 EVENTS",
])
def test_replay_over_random_micro_batches_is_the_engine(query):
    spec, total = key_spec(query), 0
    for seed in range(12):
        events = generate(seed, 120)
        expected, actual = engine_output(query, events), replay_output(spec, events, random.Random(seed))
        assert actual == expected, f"seed {seed}\n" + report(query, events, expected, actual, reference="engine",
                                                              candidate="replay", position=lambda ce: ce[1])
        total += sum(expected.values())
    assert total > 0  # the comparison saw complex events


def test_limit_is_refused_because_replay_can_differ():
    """LIMIT keeps the first n of the engine's enumeration order, which a replay that starts at the window does
    not always reproduce: some random stream shows it (so :func:`check_streamable` refuses LIMIT)."""
    query = "SELECT * FROM S WHERE (A ; B+ ; C) WITHIN 8 EVENTS LIMIT 2"
    spec = key_spec(query, checked=False)
    differs = [seed for seed in range(20)
               if replay_output(spec, generate(seed, 150), random.Random(seed)) != engine_output(query,
                                                                                                 generate(seed, 150))]
    assert differs
    with pytest.raises(UnsupportedError, match="LIMIT"):
        check_streamable(parse(query))


@pytest.mark.parametrize("query, reason", [
    ("SELECT * FROM S WHERE (A ; B) PARTITION BY [k]", "WITHIN window"),
    ("SELECT NEXT * FROM S WHERE (A ; B) WITHIN 3 EVENTS", "NEXT cannot stream"),
    ("SELECT MAX * FROM S WHERE (A ; B+) WITHIN 3 EVENTS", "MAX cannot stream"),
    ("SELECT * FROM S WHERE (A ; B) PARTITION BY [k] WITHIN 3 EVENTS CONSUME BY ANY", "resets every other key"),
    ("SELECT * FROM S WHERE (A ; B) WITHIN 3 EVENTS LIMIT 1", "LIMIT cannot stream"),
])
def test_unsupported_queries_say_why(query, reason):
    with pytest.raises(UnsupportedError, match=reason):
        check_streamable(parse(query))


def test_late_duplicated_and_out_of_order_events_are_reported():
    spec = key_spec(PARTITIONED)
    first = [{"type": "A", "k": "u", "x": 1, "t": 5, "position": 10}, {"type": "B", "k": "u", "x": 1, "t": 6,
                                                                         "position": 12}]
    state, _, rejected = advance(spec, None, first)
    assert rejected == [] and state.last_pos == 12
    second = [{"type": "C", "k": "u", "x": 1, "t": 7, "position": 11},   # behind the key's last position
              {"type": "C", "k": "u", "x": 1, "t": 7, "position": 12},   # a duplicate of a processed position
              {"type": "C", "k": "u", "x": 1, "t": 5, "position": 13},   # its clock goes back
              {"type": "C", "k": "u", "x": 1, "t": 7, "position": 14},   # fine: completes A B C
              {"type": "B", "k": "u", "x": 1, "t": 8, "position": 15, "__error": "bad", "__field": "x"}]
    state, matches, rejected = advance(spec, state, second)
    assert [(m["start"], m["end"], m["positions"]) for m in matches] == [(10, 14, [10, 12, 14])]
    by_position = {r["position"]: r for r in rejected}
    assert sorted(by_position) == [11, 12, 13, 15]
    assert by_position[11]["field"] == "position" and "not after 12" in by_position[11]["error"]
    assert "late or duplicated" in by_position[12]["error"]
    assert by_position[13]["field"] == "t" and "t = 5 is earlier than 6" in by_position[13]["error"]
    assert by_position[15]["error"] == "bad" and json.loads(by_position[15]["row"])["position"] == 15
    # A key without state (new, or expired) behind the watermark cannot be trusted to have all its history.
    _, _, rejected = advance(spec, None, [{"type": "A", "k": "v", "x": 1, "t": 3, "position": 20}],
                             watermark_ms=4000)
    assert rejected[0]["field"] == "t" and "behind the watermark" in rejected[0]["error"]


# ------------------------------------------------------------------------------------ Spark


def write_files(directory: Path, events: list[dict], sizes: list[int], first: int = 0) -> None:
    """JSON Lines files of the given sizes, modification times increasing (the file source's order)."""
    directory.mkdir(parents=True, exist_ok=True)
    start, now = 0, time.time() - 1000
    for i, size in enumerate(sizes, start=first):
        path = directory / f"events-{i:03d}.json"
        path.write_text("".join(json.dumps(e) + "\n" for e in events[start:start + size]))
        os.utime(path, (now + i, now + i))
        start += size


def streamed(spark, output: Path) -> Counter:
    rows = read_stream_output(spark, str(output)).select("start", "end", "positions").collect()
    return Counter((r.start, r.end, tuple(r.positions)) for r in rows)


RESTART_EVENTS = generate(3, 800)


@pytest.fixture(scope="module")
def uninterrupted(spark, tmp_path_factory):
    """The partitioned query over four files, two files per micro-batch, in one run: (counts, progress
    messages, output directory)."""
    base = tmp_path_factory.mktemp("uninterrupted")
    write_files(base / "in", RESTART_EVENTS, [200] * 4)
    messages: list[str] = []
    counts = stream_job(spark, str(base / "in"), PARTITIONED, output=str(base / "out"),
                        checkpoint=str(base / "ck"), max_files_per_trigger=2, progress=messages.append)
    return counts, messages, base / "out"


@pytest.mark.spark
def test_partitioned_time_window_stream_is_the_engine(spark, uninterrupted):
    counts, messages, out = uninterrupted
    expected, actual = engine_output(PARTITIONED, RESTART_EVENTS), streamed(spark, out)
    assert actual == expected, report(PARTITIONED, RESTART_EVENTS, expected, actual, reference="engine",
                                      candidate="streaming", position=lambda ce: ce[1])
    assert sum(expected.values()) > 10
    assert counts["batches"] >= 2 and counts["matches"] == sum(expected.values()) and counts["rejected"] == 0
    assert len(messages) == counts["batches"] and "complex event(s)" in messages[0]
    df = read_stream_output(spark, str(out))
    assert df.columns == ["query_id", "k", "start", "end", "positions", "events"]
    row = df.orderBy("end").first()
    assert [e["type"] for e in row.events][0] == "A" and row.events[-1]["type"] == "C"
    assert all(e["k"] == row.k for e in row.events) and row.positions[-1] == row.end


@pytest.mark.spark
def test_unpartitioned_events_window_stream_is_the_engine(spark, tmp_path):
    events = generate(2, 600, keys="u")
    write_files(tmp_path / "in", events, [200, 200, 200])
    counts = stream_job(spark, str(tmp_path / "in"), UNPARTITIONED, output=str(tmp_path / "out"),
                        checkpoint=str(tmp_path / "ck"), format="parquet", max_files_per_trigger=2)
    expected, actual = engine_output(UNPARTITIONED, events), streamed(spark, tmp_path / "out")
    assert actual == expected, report(UNPARTITIONED, events, expected, actual, reference="engine",
                                      candidate="streaming", position=lambda ce: ce[1])
    assert sum(expected.values()) > 10 and counts["batches"] >= 2
    # One key: the state has one partition (set when the checkpoint is new, kept in its offset log).
    assert '"spark.sql.shuffle.partitions":"1"' in (tmp_path / "ck" / "offsets" / "0").read_text()
    assert list((tmp_path / "out" / "matches" / "batch=0").glob("*.parquet"))


@pytest.mark.spark
def test_restart_from_the_checkpoint_loses_and_duplicates_nothing(spark, tmp_path, uninterrupted):
    events = RESTART_EVENTS
    expected = engine_output(PARTITIONED, events)
    whole = streamed(spark, uninterrupted[2])
    # Interrupted: two files, stop; two more files, restart from the same checkpoint.
    inp, out, ck = tmp_path / "in", str(tmp_path / "out"), str(tmp_path / "ck")
    write_files(inp, events[:400], [200, 200])
    first = stream_job(spark, str(inp), PARTITIONED, output=out, checkpoint=ck)
    before = streamed(spark, tmp_path / "out")
    write_files(inp, events[400:], [200, 200], first=2)
    second = stream_job(spark, str(inp), PARTITIONED, output=out, checkpoint=ck)
    after = streamed(spark, tmp_path / "out")
    assert first["matches"] == sum(before.values()) > 0 and second["matches"] > 0
    assert after == whole == expected, report(PARTITIONED, events, expected, after, reference="engine",
                                              candidate="restarted streaming", position=lambda ce: ce[1])
    # A crash after the last data batch wrote its output but before Spark committed it: its commit (and what
    # came after it, a no-data batch) is gone. The restart re-executes it from its logged offsets and state
    # version, and the sink overwrites that batch's output instead of adding to it.
    batches = read_stream_output(spark, out, with_batch=True).groupBy("batch").count().collect()
    last, written = max((r["batch"], r["count"]) for r in batches)
    for log, first_lost in (("commits", last), ("offsets", last + 1)):
        for f in (Path(ck) / log).iterdir():
            number = f.name.lstrip(".").split(".")[0]
            if number.isdigit() and int(number) >= first_lost:
                f.unlink()
    seen: list[str] = []
    again = stream_job(spark, str(inp), PARTITIONED, output=out, checkpoint=ck, progress=seen.append)
    assert seen[0] == f"micro-batch {last}: {written} complex event(s), 0 rejected row(s)"
    assert again["matches"] == written > 0
    assert streamed(spark, tmp_path / "out") == expected


DECLARATION = "CREATE STREAM S { EVENT A { k:string, x:double, t:int }, EVENT B { k:string, x:double, t:int } }"


@pytest.mark.spark
def test_bad_and_late_rows_go_to_the_side_output(spark, tmp_path):
    query = "SELECT * FROM S WHERE (A ; B) PARTITION BY [k] WITHIN 10 [t]"
    first = [
        {"type": "A", "k": "1", "x": 3.5, "t": 0, "position": 0},
        {"type": "Z", "k": "1", "x": 1, "t": 1, "position": 1},          # undeclared type
        {"type": "B", "k": "1", "x": "lots", "t": 2, "position": 2},     # x is not a number
        {"type": "B", "x": 2, "t": 2, "position": 3},                    # no k: a note, in no partition
        {"type": "A", "k": "2", "x": 4, "t": 3, "position": 4},
        {"type": "B", "k": "1", "x": 6, "position": 5},                  # the window needs t
        {"type": "B", "k": "1", "x": 6, "t": 3},                         # no position
        {"type": "B", "k": "1", "x": 7, "t": 5, "position": 7},
    ]
    second = [
        {"type": "B", "k": "1", "x": 1, "t": 6, "position": 6},          # behind key 1's position 7: late
        {"type": "B", "k": "2", "x": 1, "t": 6, "position": 8},
        {"type": "B", "k": "2", "x": 1, "t": 6, "position": 8},          # duplicated position
    ]
    third = [{"type": "A", "k": "3", "x": 1, "t": 100, "position": 9}]  # the watermark passes keys 1 and 2
    inp = tmp_path / "in"
    write_files(inp, first + second + third, [len(first), len(second), len(third)])
    counts = stream_job(spark, str(inp), query, output=str(tmp_path / "out"), checkpoint=str(tmp_path / "ck"),
                        declaration=DECLARATION, max_files_per_trigger=1)
    rejected = sorted(read_stream_output(spark, str(tmp_path / "out"), rejected=True).collect(),
                      key=lambda r: (r.position is None, r.position or 0, r.error))
    summary = [(r.position, r.field, r.fatal) for r in rejected]
    assert summary == [(1, "type", True), (2, "x", True), (3, None, False), (5, "t", True), (6, "position", True),
                       (8, "position", True), (None, "position", True)], summary
    reasons = {(r.position, r.field): r.error for r in rejected}
    assert "event type Z is not declared" in reasons[(1, "type")]
    assert "declared a number, got lots" in reasons[(2, "x")]
    assert "no partition" in reasons[(3, None)]
    assert "not after 7" in reasons[(6, "position")] and "late or duplicated" in reasons[(8, "position")]
    assert "missing or not an integer" in reasons[(None, "position")]
    assert json.loads(next(r.row for r in rejected if r.position == 2))["x"] == "lots"  # the row as it came
    assert counts["rejected"] == len(rejected)
    assert counts["keys"] == 1  # keys 1 and 2 expired once the watermark passed their window: state is bounded
    matches = streamed(spark, tmp_path / "out")
    assert matches == Counter({(0, 7, (0, 7)): 1, (4, 8, (4, 8)): 1})


@pytest.mark.spark
def test_unsupported_query_is_refused_before_anything_starts(spark, tmp_path):
    write_files(tmp_path / "in", generate(4, 10), [10])
    source = read_stream(spark, str(tmp_path / "in"))
    with pytest.raises(UnsupportedError, match="needs a WITHIN window"):
        start_stream(spark, source, "SELECT * FROM S WHERE (A ; B) PARTITION BY [k]", output=str(tmp_path / "o"),
                     checkpoint=str(tmp_path / "ck"))
    assert not spark.streams.active and not (tmp_path / "o").exists()
