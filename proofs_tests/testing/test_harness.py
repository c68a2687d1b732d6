"""The differential harness (``cer_theory.testing.harness``): the one failure report, reproducible conformance
cases, and checking an external engine (a Python function, or a program speaking the ``cer-theory eval``
contract) against the reference semantics of a registered formalism."""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter

import pytest

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import CoreComplexEvent, Stream, Valuation
from cer_theory.core.protocols import get
from cer_theory.core.windows import Window
from cer_theory.formalisms.cel.parser import parse
from cer_theory.formalisms.ceql.parser import parse as parse_ceql
from cer_theory.testing.harness import (CommandEngine, by_position, check, check_engine, compare, conformance_cases,
                                        first_mismatch, report)

STREAM = Stream.from_types("R T R T")


# ---------------------------------------------------------------------------------------------- the report


def test_report_names_the_first_differing_position_and_both_outputs() -> None:
    expected = [frozenset(), frozenset({frozenset({0, 1})}), frozenset(), frozenset({frozenset({0, 3})})]
    actual = [frozenset(), frozenset({frozenset({0, 1})}), frozenset(), frozenset({frozenset({2, 3})})]
    text = report("R ; T", STREAM, expected, actual, candidate="mine")
    assert text.splitlines() == [
        "semantics and mine disagree on complex events at n = 3",
        "  formula: R ; T",
        "  stream:  0:R() 1:T() 2:R() 3:T()",
        "  semantics: {{0,3}}",
        "       mine: {{2,3}}",
        "  only in semantics: {{0,3}}",
        "  only in mine: {{2,3}}",
    ]
    assert report("R ; T", STREAM, expected, expected).startswith(
        "semantics and candidate output the same at every position of R ; T")


def test_report_counts_duplicates_when_outputs_are_multisets() -> None:
    """Flat multisets (an engine's matches) are grouped by position; a duplicate is a difference."""
    expected = Counter({(0, 1, (0, 1)): 1, (0, 3, (0, 3)): 1})
    actual = Counter({(0, 1, (0, 1)): 1, (0, 3, (0, 3)): 2})
    text = report("A ; B", None, expected, actual, candidate="spark", position=lambda c: c[1])
    assert "disagree on complex events at n = 3" in text
    assert "only in spark: {(0, 3, (0, 3))}" in text and "spark: {(0, 3, (0, 3)) ×2}" in text
    assert "stream:  (not shown)" in text
    with pytest.raises(TypeError, match="position="):
        report("A ; B", None, expected, actual)


def test_report_cuts_long_streams_and_flags_output_past_the_end() -> None:
    events = [{"type": "A", "k": i} for i in range(50)]
    text = report("A", events, [frozenset()] * 50, [frozenset()] * 49 + [frozenset({1})])
    assert "49:{\"type\": \"A\", \"k\": 49}" not in text and "(10 more, 50 events)" in text
    past = first_mismatch("R", STREAM, [frozenset()] * 4, [frozenset()] * 4 + [frozenset({frozenset({4})})],
                          level="complex events")
    assert past is not None and past.n == 4 and past.note == "output past the end of the stream"


def test_report_shows_an_unprintable_query_by_its_repr() -> None:
    """A CEQL query with a strict window has no text; the report still renders (never a second error)."""
    q = dataclasses.replace(parse_ceql("SELECT * WHERE R ; T WITHIN 2 EVENTS"),
                            within=Window("events", 2, strict=True))
    text = report(q, STREAM, [frozenset()] * 4, [frozenset()] * 3 + [frozenset({CoreComplexEvent(2, 3, (2, 3))})])
    assert "formula: Query(pattern=" in text and "strict=True" in text


def test_by_position_groups_a_flat_multiset() -> None:
    grouped = by_position(Counter({("a", 2): 2, ("b", 0): 1}), position=lambda x: x[1])
    assert grouped == [Counter({("b", 0): 1}), Counter(), Counter({("a", 2): 2})]


# ---------------------------------------------------------------------------------------------- compare, check


def test_check_compares_at_the_finest_common_level() -> None:
    phi = parse("R ; T")
    assert check(phi, STREAM) is None and check(phi, STREAM, candidate="cces") is None
    with pytest.raises(UnsupportedError, match="cces outputs complex events only"):
        check(phi, STREAM, candidate="cces", level="valuations")

    def twice(phi, stream):  # right complex events, wrong valuations: R and T swapped
        return [frozenset(Valuation({"R": m["T"], "T": m["R"]}) for m in out)
                for out in get("cel").semantics(phi, stream)]

    mismatch = check(phi, STREAM, candidate=twice)
    assert mismatch is not None and mismatch.n == 1 and mismatch.candidate == "twice"
    assert check(phi, STREAM, candidate=twice, level="complex events") is None


def test_compare_on_ceql_uses_its_evaluators() -> None:
    ceql = get("ceql")
    q = parse_ceql("SELECT * WHERE R ; T WITHIN 2 EVENTS")
    assert compare(ceql, q, STREAM, candidate="engine") is None
    mismatch = compare(ceql, q, STREAM, candidate="engine", reference=ceql.evaluators["semantics"])
    assert mismatch is None
    assert ceql.semantics(q, STREAM)[3] == frozenset({CoreComplexEvent(2, 3, (2, 3))})


# ---------------------------------------------------------------------------------------------- conformance cases


def test_conformance_cases_repeat_for_a_seed_and_differ_between_seeds() -> None:
    first, again, other = (conformance_cases(25, seed=s) for s in (1, 1, 2))
    assert len(first) == 25 and first == again
    assert first != other
    ceql = conformance_cases(10, seed=3, logic="ceql")
    assert len(ceql) == 10 and ceql == conformance_cases(10, seed=3, logic="ceql")


# ---------------------------------------------------------------------------------------------- external engines


def _reference_engine(logic: str):
    """A correct external engine: the record's default evaluator, speaking JSON."""
    record = get(logic)
    level = record.levels[-1]

    def engine(text: str, events: list[dict]) -> dict[int, list]:
        ast = record.parse(text)
        evaluator = record.evaluator(record.default)
        if not evaluator.handles(ast):  # outside the default's fragment (CEL's n-ary filters): the semantics
            evaluator = record.evaluator("semantics")
        outputs = level.outputs(evaluator(ast, Stream.from_dicts(events)))
        return {n: [level.to_json(c) for c in out] for n, out in enumerate(outputs) if out}

    return engine


@pytest.mark.parametrize("logic", ["cel", "ceql"])
def test_check_engine_accepts_a_correct_engine_and_reports_a_wrong_one(logic: str) -> None:
    cases = conformance_cases(30, seed=4, logic=logic)
    correct = _reference_engine(logic)
    assert check_engine(correct, cases, logic=logic) == []

    def lossy(text: str, events: list[dict]) -> dict[int, list]:
        out = correct(text, events)
        return {n: ces[1:] for n, ces in out.items()}  # drops one complex event per position

    (mismatch,) = check_engine(lossy, cases, name="lossy", logic=logic)
    assert mismatch.candidate == "lossy" and len(mismatch.expected) == len(mismatch.actual) + 1
    assert "only in semantics" in str(mismatch)

    def outside(text: str, events: list[dict]) -> dict[int, list]:
        return {**correct(text, events), len(events): []}

    (mismatch,) = check_engine(outside, cases[:1], logic=logic)
    assert "outside the stream" in mismatch.note


def test_command_engine_speaks_the_eval_contract() -> None:
    """``cer-theory eval`` itself, run as an external program, agrees with the semantics (CEL and CEQL)."""
    python = f'"{sys.executable}" -m cer_theory.cli eval'
    cel = CommandEngine(f"{python} {{formula}} --stream {{stream}} --via cea")
    assert check_engine(cel, conformance_cases(2, seed=5), name="cer-theory eval") == []
    ceql = CommandEngine(f"{python} {{formula}} --stream {{stream}} --logic ceql")
    assert check_engine(ceql, conformance_cases(1, seed=5, logic="ceql"), logic="ceql") == []
    with pytest.raises(RuntimeError, match="exited with 2"):
        CommandEngine(f"{python} {{formula}} --stream {{stream}}")("R ;", [{"type": "R"}])
