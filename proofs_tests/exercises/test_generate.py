"""Fresh instances: for every kind, 100 seeded instances are solvable (their worked answer is graded right),
distinct, reproducible from the seed, and measured to have the difficulty they were generated for."""

from __future__ import annotations

import json
import random

import pytest

from cer_theory.exercises.checker import check
from cer_theory.core.events import Event, Stream
from cer_theory.core.protocols import get
from cer_theory.exercises.generate import LOGICS, SENSORS, TEMPLATES, difficulty_of, generate
from cer_theory.exercises.grading import DECIDERS
from cer_theory.formalisms.cel.parser import parse

SEEDS = range(100)


def _key(e) -> tuple:
    return (e.reference_text, e.automaton, e.construction, tuple(map(repr, e.stream or ())), e.position)


CASES = [(logic, kind) for logic, kinds in LOGICS.items() for kind in kinds]


@pytest.mark.parametrize("logic, kind", CASES, ids=[f"{logic}-{kind}" for logic, kind in CASES])
def test_a_hundred_seeded_instances_are_solvable_distinct_and_reproducible(logic: str, kind: str) -> None:
    instances = [generate(kind, 1 + seed % 3, seed, logic) for seed in SEEDS]
    assert len({_key(e) for e in instances}) == len(instances), "two seeds gave the same instance"
    for seed, e in zip(SEEDS, instances):
        assert e.logic == logic and e.difficulty == 1 + seed % 3
        if logic == "cel":
            assert difficulty_of(e.reference) == e.difficulty
        assert e.text and e.solution and e.answer
        feedback = check(e, e.answer)
        assert feedback.accepted, (e.name, feedback.message)
        assert feedback.correct or logic not in DECIDERS, (e.name, feedback.message)
    again = [generate(kind, 1 + seed % 3, seed, logic) for seed in SEEDS[:10]]
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


def _positions(output) -> frozenset:
    """The positions of a CEQL complex event (the CORE paper), a SO-CEL valuation (its support, the SO-CEL paper) or a CEL
    complex event (the CEL paper)."""
    if hasattr(output, "positions"):
        return frozenset(output.positions)
    return frozenset(output.support()) if hasattr(output, "support") else frozenset(output)


def test_a_pattern_says_the_same_in_every_logic() -> None:
    """A pattern rendered in CEQL and SO-CEL has the complex events of its CEL rendering (the CORE paper §2 and the SO-CEL paper
    §2 read these operators as the CEL paper does), so one template serves three papers."""
    for seed in range(30):
        rng = random.Random(seed)
        types = rng.sample(sorted(SENSORS), 3)
        pattern = TEMPLATES[1 + seed % 3](rng, types)
        stream = Stream(Event(rng.choice(types), val=rng.choice((0, 1000, 500))) for _ in range(6))
        outputs = {}
        for logic in LOGICS:
            f = get(logic)
            level = f.levels[-1]
            outputs[logic] = [{_positions(o) for o in out}
                              for out in level.outputs(f.semantics(f.parse(pattern.render(logic)), stream))]
        assert outputs["ceql"] == outputs["cel"] == outputs["socel"], (pattern, stream)


def test_unknown_kind_or_difficulty_is_refused() -> None:
    with pytest.raises(ValueError, match="kind"):
        generate("essay", 1, 0)
    with pytest.raises(ValueError, match="difficulty"):
        generate("formula", 4, 0)
    with pytest.raises(ValueError, match="kind must be one of formula, predict for logic ceql"):
        generate("automaton", 1, 0, "ceql")
