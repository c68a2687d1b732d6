"""Fresh instances: for every kind, 100 seeded instances are solvable (their worked answer is graded right),
distinct, reproducible from the seed, and measured to have the difficulty they were generated for."""

from __future__ import annotations

import json

import pytest

from cer_theory.exercises.checker import check
from cer_theory.exercises.generate import difficulty_of, generate
from cer_theory.exercises.model import KINDS
from cer_theory.formalisms.cel.parser import parse

SEEDS = range(100)


def _key(e) -> tuple:
    return (e.reference_text, e.automaton, e.construction, tuple(map(repr, e.stream or ())), e.position)


@pytest.mark.parametrize("kind", KINDS)
def test_a_hundred_seeded_instances_are_solvable_distinct_and_reproducible(kind: str) -> None:
    instances = [generate(kind, 1 + seed % 3, seed) for seed in SEEDS]
    assert len({_key(e) for e in instances}) == len(instances), "two seeds gave the same instance"
    for seed, e in zip(SEEDS, instances):
        assert difficulty_of(e.reference) == e.difficulty == 1 + seed % 3
        assert e.text and e.solution and e.answer
        feedback = check(e, e.answer)
        assert feedback.correct, (e.name, feedback.message)
    again = [generate(kind, 1 + seed % 3, seed) for seed in SEEDS[:10]]
    assert [_key(e) for e in again] == [_key(e) for e in instances[:10]]


def test_predictions_are_never_empty_and_star_property_answers_both_ways() -> None:
    assert all(json.loads(generate("predict", d, s).answer) for d in (1, 2, 3) for s in range(20))
    assert {generate("construction", 3, s).answer for s in range(20)} == {"yes", "no"}


def test_a_wrong_answer_to_a_generated_instance_is_caught() -> None:
    e = generate("formula", 1, 3)
    wrong = e.reference_text.replace(";", ":") if ";" in e.reference_text else e.reference_text.replace(":", ";")
    feedback = check(e, wrong)
    assert feedback.status == "wrong" and feedback.stream is not None


def test_difficulty_is_measured_not_declared() -> None:
    assert [difficulty_of(parse(f)) for f in ("T ; H", "(T ; H+) FILTER T.val > 3",
                                              "(T ; H+ ; P) FILTER (T.val > 3 AND P.val < 2)")] == [1, 2, 3]


def test_unknown_kind_or_difficulty_is_refused() -> None:
    with pytest.raises(ValueError, match="kind"):
        generate("essay", 1, 0)
    with pytest.raises(ValueError, match="difficulty"):
        generate("formula", 4, 0)
