"""The exercise bank over the five papers: its size and coverage, every reference answer and worked solution graded
right, every listed mistake graded wrong with evidence that replays through the reference semantics, and grading
soundness both ways as properties over generated mutations and streams."""

from __future__ import annotations

import json
import re
from collections import Counter
from itertools import product

import pytest
from hypothesis import assume, given, strategies as st

from cer_theory.core.errors import CerError, ExerciseError
from cer_theory.core.events import Event, Stream
from cer_theory.exercises.checker import bundled_exercises, check, parse_exercise
from cer_theory.exercises.grading import (DECIDERS, construction_result, first_difference, isomorphic, level_of,
                                          sample_streams)
from cer_theory.exercises.model import KINDS
from cer_theory.formalisms.socel.automaton_json import automaton_to_json, loads_automaton

BANK = bundled_exercises()
IDS = [e.name for e in BANK]
GROUP = {"cel": "CEL", "ceql": "CEQL", "socel": "SO-CEL/FO-CEL", "focel": "SO-CEL/FO-CEL", "acel": "ACEL",
         "sremo": "SREMO"}


def outputs_at(exercise, ast, stream: Stream, n: int) -> frozenset:
    level = level_of(exercise)
    return level.outputs(exercise.formalism.semantics(ast, stream))[n]


def test_at_least_eight_exercises_per_formalism_and_every_kind_in_three() -> None:
    per_group = Counter(GROUP[e.logic] for e in BANK)
    assert len(BANK) >= 40 and set(per_group) == set(GROUP.values())
    assert all(count >= 8 for count in per_group.values()), per_group
    for kind in KINDS:
        groups = {GROUP[e.logic] for e in BANK if e.kind == kind}
        assert len(groups) >= 3, (kind, groups)
    for group in set(GROUP.values()):  # graded by difficulty: easy and harder ones in every formalism
        assert len({e.difficulty for e in BANK if GROUP[e.logic] == group}) >= 2, group


@pytest.mark.parametrize("exercise", BANK, ids=IDS)
def test_reference_and_worked_solution_are_graded_right(exercise) -> None:
    assert exercise.solution and exercise.answer, f"{exercise.name} has no worked solution"
    if exercise.kind == "formula":
        assert check(exercise, exercise.reference_text).accepted
    feedback = check(exercise, exercise.answer)
    assert feedback.accepted, feedback.message
    if feedback.status == "no difference found":  # never "equivalent" where equivalence is not decided
        assert "not a proof" in feedback.message and "equivalent" not in feedback.message
        assert exercise.logic not in DECIDERS or exercise.alphabet


@pytest.mark.parametrize("exercise", BANK, ids=IDS)
def test_every_listed_mistake_is_caught_with_evidence_that_replays(exercise) -> None:
    assert exercise.mistakes, f"{exercise.name} lists no plausible wrong answer"
    for mistake in exercise.mistakes:
        feedback = check(exercise, mistake)
        assert feedback.status == "wrong", f"{exercise.name}: {mistake} judged {feedback.status}"
        if exercise.kind == "formula":
            stream, n = feedback.stream, feedback.position
            answer = outputs_at(exercise, exercise.formalism.parse(mistake), stream, n)
            expected = outputs_at(exercise, exercise.reference, stream, n)
            assert answer != expected, feedback.message
        elif exercise.kind == "predict":
            assert f"position {exercise.position}" in feedback.message
        elif exercise.kind == "automaton" and exercise.logic != "acel":  # the student's automaton, replayed
            student, stream, n = loads_automaton(mistake), feedback.stream, feedback.position
            level = level_of(exercise)
            ran = level.outputs(student.run(stream))[n]
            assert ran != outputs_at(exercise, exercise.reference, stream, n), feedback.message


def test_a_relabelled_model_answer_is_still_the_construction() -> None:
    """Constructions are graded up to isomorphism: renaming the states of the model answer changes nothing."""
    for exercise in (e for e in BANK if e.kind == "construction" and e.construction != "star_property"):
        expected = construction_result(exercise)
        renamed = expected.relabel_states({q: f"s{k}" for k, q in enumerate(expected.bfs_order())})
        assert isomorphic(renamed, expected)
        text = json.dumps(automaton_to_json(renamed))
        assert check(exercise, text).correct, exercise.name
        fewer = automaton_to_json(renamed)
        fewer["transitions"] = fewer["transitions"][:-1]
        assert not check(exercise, json.dumps(fewer)).accepted, exercise.name


def test_automaton_feedback_shows_the_run_that_goes_wrong() -> None:
    exercise = next(e for e in BANK if e.name == "cel_11_automaton_seq")
    extra = json.loads(exercise.answer)
    extra["transitions"].append({"from": "q0", "guard": 'type = "H"', "labels": ["H"], "to": "q2"})
    feedback = check(exercise, json.dumps(extra))
    assert feedback.status == "wrong" and "accepting run" in feedback.message and "q0 --" in feedback.message
    missing = json.loads(exercise.answer)
    missing["transitions"] = missing["transitions"][:-1]  # never reaches the final state
    feedback = check(exercise, json.dumps(missing))
    assert feedback.status == "wrong" and "After each event it is in the states" in feedback.message


def test_bad_answers_and_exercise_files_get_one_clear_message() -> None:
    ceql = next(e for e in BANK if e.logic == "ceql" and e.kind == "formula")
    assert check(ceql, "SELECT * FROM").status == "syntax error"
    predict = next(e for e in BANK if e.kind == "predict")
    assert check(predict, "[[0, 3").status == "syntax error"
    automaton = next(e for e in BANK if e.kind == "automaton")
    assert check(automaton, '{"states": 3}').status == "syntax error"
    star = next(e for e in BANK if e.construction == "star_property")
    assert check(star, "maybe").status == "syntax error"
    good = 'title = "t"\ntext = "x"\ndifficulty = 1\nreference = "T ; H"\n[schema]\nT = ["id"]\nH = ["id"]\n'
    with pytest.raises(ExerciseError, match="'logic'"):
        parse_exercise('logic = "xyz"\n' + good)
    with pytest.raises(ExerciseError, match="'alphabet'"):
        parse_exercise('logic = "ceql"\n' + good.replace('"T ; H"', '"SELECT * FROM S WHERE T ; H"'))
    with pytest.raises(ExerciseError, match="'stream'"):
        parse_exercise('kind = "predict"\n' + good)


def test_first_difference_finds_the_shortest_over_the_exhaustive_part() -> None:
    a, b = Event("A"), Event("B")
    left = lambda s: [frozenset({1}) if [e.type for e in s[n - 1:n + 1]] == ["A", "B"] else frozenset()  # noqa: E731
                      for n in range(len(s))]
    right = lambda s: [frozenset() for _ in s]  # noqa: E731
    stream, n, _, _ = first_difference(left, right, (Stream(w) for k in (1, 2, 3) for w in
                                                     product((a, b), repeat=k)))
    assert (stream.types(), n) == ("A B", 1)


# ---------------------------------------------------------------------------------------------- soundness

MUTATIONS = ((" ; ", " : "), (" : ", " ; "), ('"T"', '"H"'), ('"H"', '"T"'), ("T", "H"), ("H", "T"), (">", "<"),
             ("40", "30"), ("+", ""), ("sum", "max"), ("max", "min"), ("2 EVENTS", "1 EVENTS"), ("WITHIN 3", "WITHIN 2"))
"""Textual mutations of a reference answer: the slips students make (order, contiguity, type, comparison)."""

FORMULAS = [e for e in BANK if e.kind == "formula"]
WIDE = tuple(Event.from_dict(d) for d in ({"type": "T", "id": 0, "tmp": 45}, {"type": "T", "id": 1, "tmp": 30},
                                           {"type": "H", "id": 0, "hum": 20}, {"type": "H", "id": 1, "hum": 70}))


def _mutate(text: str, old: str, new: str, which: int) -> str:
    spots = [m.start() for m in re.finditer(re.escape(old), text)]
    assume(spots)
    at = spots[which % len(spots)]
    return text[:at] + new + text[at + len(old):]


@st.composite
def mutated_answers(draw):
    exercise = draw(st.sampled_from(FORMULAS))
    old, new = draw(st.sampled_from(MUTATIONS))
    mutant = _mutate(exercise.reference_text, old, new, draw(st.integers(0, 5)))
    alphabet = exercise.alphabet or WIDE
    bound = exercise.bound if exercise.alphabet else 5
    stream = Stream(draw(st.lists(st.sampled_from(alphabet), min_size=1, max_size=bound)))
    return exercise, mutant, stream


@given(mutated_answers())
def test_grading_soundness_a_mutation_the_semantics_tells_apart_is_rejected(case) -> None:
    """Soundness both ways: if the semantics tells the mutant from the reference on some stream the grader
    covers, the grader rejects it, with a stream on which the evaluators really separate them; a mutant it
    accepts is not told apart there."""
    exercise, mutant, stream = case
    try:
        ast = exercise.formalism.parse(mutant)
        mine = exercise.formalism.semantics(ast, stream)
    except CerError:
        assume(False)
    level = level_of(exercise)
    told_apart = level.outputs(mine) != level.outputs(exercise.formalism.semantics(exercise.reference, stream))
    feedback = check(exercise, mutant)
    if told_apart:
        assert feedback.status in ("wrong", "outside the schema"), (mutant, stream, feedback.message)
    if feedback.status == "wrong":
        n, evidence = feedback.position, feedback.stream
        assert outputs_at(exercise, ast, evidence, n) != outputs_at(exercise, exercise.reference, evidence, n), \
            (mutant, feedback.message)
    if feedback.accepted:
        assert not told_apart


def test_the_mutations_are_not_vacuous() -> None:
    """The soundness property above is only as strong as its mutants: most first-occurrence mutants of the
    bank's formula references parse and are told apart (and rejected)."""
    verdicts = []
    for exercise in FORMULAS:
        for old, new in MUTATIONS:
            if old in exercise.reference_text:
                mutant = exercise.reference_text.replace(old, new, 1)
                try:
                    exercise.formalism.parse(mutant)
                except CerError:
                    continue
                verdicts.append(check(exercise, mutant).status)
    assert len(verdicts) >= 60 and verdicts.count("wrong") >= 0.9 * len(verdicts), Counter(verdicts)


@given(st.sampled_from(BANK))
def test_grading_soundness_the_reference_is_never_rejected(exercise) -> None:
    answer = exercise.reference_text if exercise.kind == "formula" else exercise.answer
    assert check(exercise, answer).accepted


def test_sample_streams_are_reproducible() -> None:
    exercise = next(e for e in BANK if e.alphabet)
    assert list(sample_streams(exercise)) == list(sample_streams(exercise))


AUTOMATA = [e for e in BANK if e.kind == "automaton" and e.logic != "acel"]


@st.composite
def mutated_automata(draw):
    exercise = draw(st.sampled_from(AUTOMATA))
    data = json.loads(exercise.answer)
    k = draw(st.integers(0, len(data["transitions"]) - 1))
    how = draw(st.sampled_from(("drop", "labels", "final", "guard")))
    t = data["transitions"][k]
    if how == "drop":
        del data["transitions"][k]
    elif how == "labels":
        t["labels"] = [] if t["labels"] else ["T"]
    elif how == "final":
        data["final"] = [q for q in data["states"] if q not in data["final"]]
    else:
        t["guard"] = "TRUE" if t["guard"] != "TRUE" else 'type = "T"'
    stream = Stream(draw(st.lists(st.sampled_from(WIDE), min_size=1, max_size=5)))
    return exercise, json.dumps(data), stream


@given(mutated_automata())
def test_grading_soundness_a_mutated_automaton_the_semantics_tells_apart_is_rejected(case) -> None:
    exercise, answer, stream = case
    student, level = loads_automaton(answer), level_of(exercise)
    told_apart = level.outputs(student.run(stream)) != level.outputs(
        exercise.formalism.semantics(exercise.reference, stream))
    feedback = check(exercise, answer)
    if told_apart:
        assert feedback.status == "wrong", (answer, stream)
    if feedback.status == "wrong":
        n, evidence = feedback.position, feedback.stream
        assert level.outputs(student.run(evidence))[n] != outputs_at(exercise, exercise.reference, evidence, n)
    else:
        assert not told_apart


def test_a_missed_prediction_is_explained_by_a_run_that_gives_it() -> None:
    exercise = next(e for e in BANK if e.name == "cel_12_predict_seq")
    feedback = check(exercise, "[[2, 3]]")
    assert feedback.status == "wrong" and "you miss [0,3]" in feedback.message
    assert '0: 0 --type = "T" / {T}-->' in feedback.message and "/ {H}-->" in feedback.message
    extra = check(exercise, "[[0, 3], [1, 3], [2, 3]]")
    assert "[1,3] is not an output at position 3" in extra.message


def test_determinization_is_graded_with_guards_as_predicates() -> None:
    """A student may split a move of the subset construction by a further condition: still the construction."""
    exercise = next(e for e in BANK if e.construction == "determinize")
    data = json.loads(exercise.answer)
    t = data["transitions"].pop(0)
    data["transitions"] += [{**t, "guard": f"({t['guard']}) AND tmp > 0"},
                            {**t, "guard": f"({t['guard']}) AND NOT tmp > 0"}]
    assert check(exercise, json.dumps(data)).correct
    wrong = json.loads(exercise.answer)
    wrong["transitions"][0]["guard"] = f"({wrong['transitions'][0]['guard']}) AND tmp > 0"
    assert not check(exercise, json.dumps(wrong)).accepted


@pytest.mark.parametrize("exercise", [e for e in BANK if e.alphabet], ids=[e.name for e in BANK if e.alphabet])
def test_tested_exercises_have_an_alphabet_that_can_tell_answers_apart(exercise) -> None:
    """Bounded testing is only as good as its streams: the sample events keep to the schema and the reference
    outputs something on some sample stream (else an answer that outputs nothing would pass)."""
    assert {e.type for e in exercise.alphabet} <= set(exercise.schema)
    assert all(set(e.attributes) <= set(exercise.schema[e.type]) for e in exercise.alphabet)
    level = level_of(exercise)
    assert any(any(level.outputs(exercise.formalism.semantics(exercise.reference, s)))
               for s in sample_streams(exercise)), exercise.name
