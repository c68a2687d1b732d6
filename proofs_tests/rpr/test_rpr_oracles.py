"""Exact oracle tests: the worked examples of Flink's documentation (*Pattern Recognition*), the standard's V-shape
example with a published result table, and the preferment and skip rules of ISO/IEC TR 19075-5 (§4.12, §4.13) on
small hand-made cases, by both evaluators."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from cer_theory.core.events import Event
from cer_theory.formalisms.rpr import SkipError, compile_automaton, evaluate, parse
from cer_theory.formalisms.rpr.ast import Query
from cer_theory.formalisms.rpr.semantics import matches_in, partitions
from proofs_tests.rpr.rpr_oracles import (DROP, FALLING_PERIOD, GREEDY, OUTPUT_MODE, SKIP, SKIP_RESULTS,
                                          SKIP_TO_LAST_A, V_SHAPE)

EVALUATORS = {"semantics": evaluate, "nfa": lambda q, s: compile_automaton(q).run(s)}


def rows(text: str, stream: list[Event], via: str = "semantics") -> list[dict]:
    """The output rows (measures), in order of the match's last row then of its first."""
    out = EVALUATORS[via](parse(text), stream)
    found = sorted((m.rows[-1][0], m.rows[0][0], dict(m.measures)) for n, ms in enumerate(out) for m in ms)
    return [measures for _, _, measures in found]


@pytest.mark.parametrize("via", EVALUATORS)
@pytest.mark.parametrize("example", [FALLING_PERIOD, OUTPUT_MODE], ids=["falling period", "output mode"])
def test_flink_documentation_examples(example, via: str) -> None:
    text, stream, expected = example
    assert rows(text, stream, via) == expected


@pytest.mark.parametrize("via", EVALUATORS)
def test_v_shape_as_in_the_published_result_table(via: str) -> None:
    """Three V shapes, the second starting on the first's last row (``SKIP TO LAST UP``): the result table of the
    example that the standard's report and Oracle's documentation share (rpr_oracles.V_SHAPE)."""
    text, stream, expected = V_SHAPE
    assert rows(text, stream, via) == expected
    # Derived, not published: SKIP PAST LAST ROW (the report's form) cannot start on the first V's last row, so
    # the second V starts on the row after it (19 on the 11th, down to 15, up to 25)
    past = rows(text.replace("SKIP TO LAST UP", "SKIP PAST LAST ROW"), stream, via)
    assert past == [expected[0], {"start_tstamp": 10, "bottom_tstamp": 11, "end_tstamp": 12}, expected[2]]


@pytest.mark.parametrize("via", EVALUATORS)
def test_greedy_and_reluctant_star_as_in_flinks_documentation(via: str) -> None:
    """``A B* C``: the greedy star swallows 12, 13 and 14 (one match, ending at 16); the reluctant one stops at
    the first row satisfying C (13), then matches again (16)."""
    text, stream = GREEDY
    assert rows(text.format(star="*"), stream, via) == [{"lastPrice": 16}]
    assert rows(text.format(star="*?"), stream, via) == [{"lastPrice": 13}, {"lastPrice": 16}]


@pytest.mark.parametrize("via", EVALUATORS)
@pytest.mark.parametrize("skip", SKIP_RESULTS)
def test_after_match_skip_as_in_flinks_documentation(skip: str, via: str) -> None:
    text, stream = SKIP
    expected = [{"sumPrice": s, "startTime": a, "endTime": b} for s, a, b in SKIP_RESULTS[skip]]
    assert rows(text.format(skip=skip), stream, via) == expected


def test_skip_to_last_a_finds_the_documented_rows_then_raises() -> None:
    """The three documented matches come first; the fourth match would resume at its own first row."""
    text, stream = SKIP
    q = parse(text.format(skip="TO LAST A"))
    ((_, positions),) = partitions(q, stream)
    assert positions == list(range(len(stream)))  # one partition, already in time order
    seen: list[tuple[int, tuple[str, ...]]] = []

    def recording(q: Query, rows: Sequence[Event], start: int) -> tuple[str, ...] | None:
        labels = compile_automaton(q).first_match(q, rows, start)
        if labels is not None:
            seen.append((start, labels))
        return labels

    with pytest.raises(SkipError, match="first row again"):
        matches_in(q, stream, recording)
    sums = [(sum(a_prices(stream, s, labels)), s, s + len(labels) - 1) for s, labels in seen]
    assert sums[:3] == SKIP_TO_LAST_A and sums[3] == (7, 5, 6)
    for evaluator in EVALUATORS.values():
        with pytest.raises(SkipError):
            evaluator(q, stream)


def a_prices(stream: Sequence[Event], start: int, labels: tuple[str, ...]) -> list[int]:
    return [stream[start + i]["price"] for i, v in enumerate(labels) if v == "A"]


def test_skip_to_first_of_the_first_variable_is_an_exception() -> None:
    """``SKIP TO FIRST A`` with ``A+`` first would restart where the match started: the standard's exception
    (TR 19075-5 §4.13), as Flink's documentation says it raises."""
    text, stream = SKIP
    for evaluator in EVALUATORS.values():
        with pytest.raises(SkipError, match="first row again"):
            evaluator(parse(text.format(skip="TO FIRST A")), stream)


def test_skip_to_a_variable_the_match_does_not_map_is_an_exception() -> None:
    q = parse("MATCH_RECOGNIZE (AFTER MATCH SKIP TO LAST B PATTERN (A B?) DEFINE B AS x = 1)")
    stream = [Event("e", x=0), Event("e", x=0)]
    for evaluator in EVALUATORS.values():
        with pytest.raises(SkipError, match="maps no row to B"):
            evaluator(q, stream)


@pytest.mark.parametrize("via", EVALUATORS)
def test_within_keeps_a_match_exactly_as_long_as_the_interval(via: str) -> None:
    """Flink's *Time constraint* example: the only drop of more than 10 within an hour is 15 → 1, exactly one
    hour apart, and it is output."""
    text, stream = DROP
    assert rows(text, stream, via) == [{"dropTime": 9 * 1200, "dropDiff": 14}]
    shorter = text.replace("INTERVAL '1' HOUR", "INTERVAL '59' MINUTE")  # then 14 (12:20) → 1 (13:00) is first
    assert rows(shorter, stream, via) == [{"dropTime": 9 * 1200, "dropDiff": 13}]


# ----------------------------------------------------------------- preferment (TR 19075-5 §4.12) by hand


def classified(text: str, types: str, via: str = "semantics") -> list[str]:
    """Each match as the variables of its rows, e.g. ``"AAB"``, on rows of the given types (``x`` = 0)."""
    stream = [Event(t, x=0) for t in types.split()]
    out = EVALUATORS[via](parse(text), stream)
    found = sorted((m.rows[0][0], "".join(v for _, v in m.rows)) for ms in out for m in ms)
    return [word for _, word in found]


@pytest.mark.parametrize("via", EVALUATORS)
@pytest.mark.parametrize("pattern, types, expected", [
    ("A | B", "a", ["A"]),                      # the left branch is preferred
    ("B | A", "a", ["B"]),
    ("A+", "a a a", ["AAA"]),                   # greedy: more iterations
    ("A+?", "a a a", ["A", "A", "A"]),          # reluctant: fewer
    ("A{2,3}", "a a a a a", ["AAA", "AA"]),
    ("A{2,3}?", "a a a a a", ["AA", "AA"]),
    ("(A | B)+ C", "a a a", ["AAC"]),            # preferment chooses the variable mapping, not only the length
    ("A? B+", "a a", ["AB"]),
    ("A?? B+", "a a", ["BB"]),                  # the reluctant option skips A when B can take the row
    ("(A B | A) B", "a a a", ["ABB"]),
    ("(A | A B) B", "a a a", ["AB"]),          # not the longest match: the left branch wins
])
def test_preferment_by_hand(pattern: str, types: str, expected: list[str], via: str) -> None:
    assert classified(f"MATCH_RECOGNIZE (PATTERN ({pattern}))", types, via) == expected


@pytest.mark.parametrize("via", EVALUATORS)
def test_prev_reaches_before_the_match_and_first_last_offsets(via: str) -> None:
    """PREV counts physical rows of the partition, before the match's first row too (TR 19075-5 §4.15.3); at the
    partition's first row it is NULL, so the condition is UNKNOWN and the row is not mapped."""
    stream = [Event("e", x=x, id=i) for i, x in enumerate([1, 2, 0, 5])]
    text = "MATCH_RECOGNIZE (MEASURES FIRST(A.id) AS a PATTERN (A) DEFINE A AS x > PREV(x))"
    assert rows(text, stream, via) == [{"a": 1}, {"a": 3}]
    text = ("MATCH_RECOGNIZE (MEASURES LAST(A.x, 1) AS before, FIRST(A.x, 1) AS second, COUNT(*) AS n, "
            "SUM(x) AS total PATTERN (A{3}))")
    assert rows(text, stream, via) == [{"before": 2, "second": 2, "n": 3, "total": 3}]


def test_partitions_are_matched_separately_and_keep_stream_positions() -> None:
    stream = [Event("e", k=k, x=i) for i, k in enumerate([0, 1, 0, 1])]
    q = parse("MATCH_RECOGNIZE (PARTITION BY k MEASURES FIRST(A.x) AS f PATTERN (A B))")
    out = evaluate(q, stream)
    assert [sorted((m.rows, m.partition, m.measures) for m in ms) for ms in out] == [
        [], [], [(((0, "A"), (2, "B")), (0,), (("f", 0),))], [(((1, "A"), (3, "B")), (1,), (("f", 1),))]]
