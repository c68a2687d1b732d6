"""Fresh instances: a seeded generator per exercise kind and difficulty, so that every student of a class gets an
instance of their own and the teacher can rebuild it from the seed.

An instance is a CEL exercise (seed 000) over a schema of two or three event types drawn from a pool of sensor
types, each with one attribute ``val``. Its reference formula is drawn from the templates of its difficulty; the
text is written from the same choices; :func:`difficulty_of` measures the difficulty independently of the
template (by counting the formula's operators), and :func:`generate` refuses an instance whose measure is not the
one asked for (docs/decisions.md D252). Kinds:

* ``formula``: write the formula; graded by equivalence (decided for CEL);
* ``predict``: the complex events of the reference at a position of a seeded random stream where there is at
  least one, so the answer is never a lucky "[]";
* ``automaton``: give a CEA for the reference; graded by automaton equivalence;
* ``construction``: trim (easy), determinize (medium) or the *-property (hard) of the reference's CEA, or of
  that CEA with its transitions into final states unmarked (half of the hard instances: their answer may be no).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import replace

from cer_theory.core.events import Event, Stream
from cer_theory.automata.cea import CEA, Transition
from cer_theory.exercises.grading import expected_json, level_of, reference_automaton
from cer_theory.exercises.model import DIFFICULTIES, KINDS, Exercise
from cer_theory.core.predicates.ast import Cmp
from cer_theory.formalisms.cel.ast import Atom, Filter, Formula
from cer_theory.formalisms.cel.parser import parse
from cer_theory.formalisms.socel.automaton_json import automaton_to_json

SENSORS = {"T": "temperature", "H": "humidity", "P": "pressure", "W": "wind", "S": "smoke", "L": "light"}
"""The pool of event types an instance draws from (attribute ``val`` each)."""

CONSTRUCTION_BY_DIFFICULTY = {1: "trim", 2: "determinize", 3: "star_property"}

Template = Callable[[random.Random, list[str]], tuple[str, str]]
"""Draws a reference formula and its description in words from the types ``[X, Y, Z]``."""


def _threshold(rng: random.Random, x: str) -> tuple[str, str]:
    op, k = rng.choice((">", "<")), rng.randrange(5, 995, 5)
    return f"{x}.val {op} {k}", f"{'above' if op == '>' else 'below'} {k}"


def _easy(rng: random.Random, t: list[str]) -> tuple[str, str]:
    x, y = t[0], t[1]
    op, how = rng.choice(((";", "at any later point"), (":", "immediately")))
    cond, words = _threshold(rng, x)
    return (f"({x} {op} {y}) FILTER {cond}",
            f"a {SENSORS[x]} reading ({x}) with a value {words}, followed {how} by a {SENSORS[y]} reading ({y})")


def _medium(rng: random.Random, t: list[str]) -> tuple[str, str]:
    x, y = t[0], t[1]
    cond, words = _threshold(rng, x)
    if rng.random() < 0.5:
        return (f"({x} ; {y}+) FILTER {cond}",
                f"a {SENSORS[x]} reading ({x}) with a value {words}, followed by one or more {SENSORS[y]} "
                f"readings ({y})")
    return (f"(({x} ; {y}) OR ({y} ; {x})) FILTER {cond}",
            f"a {SENSORS[x]} reading ({x}) with a value {words} and a {SENSORS[y]} reading ({y}), in either order")


def _hard(rng: random.Random, t: list[str]) -> tuple[str, str]:
    x, y, z = t
    cx, wx = _threshold(rng, x)
    cz, wz = _threshold(rng, z)
    pattern = f"({x} ; {y}+ ; {z}) FILTER ({cx} AND {cz})"
    words = (f"a {SENSORS[x]} reading ({x}) {wx}, then one or more {SENSORS[y]} readings ({y}), then a "
             f"{SENSORS[z]} reading ({z}) {wz}")
    if rng.random() < 0.5:
        return pattern, words
    return f"PI[{y}]({pattern})", f"{words}; report only the {y} readings"


TEMPLATES: dict[int, Template] = {1: _easy, 2: _medium, 3: _hard}


def difficulty_of(formula: Formula) -> int:
    """The difficulty of writing ``formula``, measured by its operators (every node but the atoms) plus the
    comparisons of its filters: at most 3 is easy, 4 or 5 medium, 6 or more hard."""
    size = sum(1 for node in formula.walk() if not isinstance(node, Atom))
    size += sum(1 for node in formula.walk() if isinstance(node, Filter)
                for p in node.condition.walk() if isinstance(p, Cmp))
    return 1 if size <= 3 else 2 if size <= 5 else 3


def _stream(rng: random.Random, types: list[str], length: int) -> Stream:
    return Stream(Event(rng.choice(types), val=rng.randrange(0, 1000, 5)) for _ in range(length))


def generate(kind: str, difficulty: int, seed: int) -> Exercise:
    """The instance of ``kind`` and ``difficulty`` for ``seed``: the same seed gives the same instance."""
    if kind not in KINDS or difficulty not in DIFFICULTIES:
        raise ValueError(f"kind must be one of {', '.join(KINDS)} and difficulty 1, 2 or 3")
    rng = random.Random(f"{kind}/{difficulty}/{seed}")
    types = rng.sample(sorted(SENSORS), 3 if difficulty == 3 else 2)
    source, words = TEMPLATES[difficulty](rng, types)
    reference = parse(source)
    if difficulty_of(reference) != difficulty:  # the template and the measure disagree: a bug, never shipped
        raise AssertionError(f"{source} measures {difficulty_of(reference)}, not {difficulty}")
    schema = {t: ("val",) for t in types}
    name = f"gen_{kind}_{difficulty}_{seed}"
    base = dict(name=name, reference=reference, schema=schema, difficulty=difficulty, level="complex_events",
                logic="cel", kind=kind)
    title = f"{kind.capitalize()} ({DIFFICULTIES[difficulty]}), instance {seed}"
    if kind == "formula":
        return Exercise(title=title, text=f"Write a CEL formula that matches {words}.",
                        solution=f"Read the pattern as a formula: {source}.", answer=source, **base)
    if kind == "automaton":
        trim = Exercise(title=title, text="", construction="trim", **{**base, "kind": "construction"})
        return Exercise(title=title, text=f"Give a CEA (JSON, kind \"cea\") for the pattern: {words}.",
                        solution=f"The trimmed CEA of {source} (Theorem 6.2).", answer=expected_json(trim), **base)
    if kind == "predict":
        for _ in range(1000):
            stream = _stream(rng, types, 4 + difficulty)
            ex = Exercise(title=title, stream=stream, position=len(stream) - 1, **base, text="")
            level = level_of(ex)
            outs = level.outputs(ex.formalism.semantics(reference, stream))[-1]
            if outs:
                break
        else:  # pragma: no cover - the templates match on some random stream within a few tries
            raise AssertionError(f"no stream with outputs for {source}")
        events = ", ".join(f"{k}: {e.type}(val={e['val']})" for k, e in enumerate(stream))
        answer = json.dumps([level.to_json(o) for o in sorted(outs, key=level.sort_key)])
        return replace(ex, **{"text": f"The formula {source} matches {words}. On the stream {events}, "
                                                  f"which complex events does it output at position "
                                                  f"{len(stream) - 1}? A JSON list of sorted position lists.",
                           "solution": "Every complex event output at n contains n; list the choices of the "
                                       "earlier events that satisfy the pattern.", "answer": answer})
    construction = CONSTRUCTION_BY_DIFFICULTY[difficulty]
    ex = Exercise(title=title, construction=construction, **base,
                  text=f"Apply {construction.replace('_', ' ')} to the CEA of {source} (cer-theory draw).")
    if construction == "star_property" and rng.random() < 0.5:
        # Fig. 2 of seed 004 in miniature: the last event read but not marked, so the output may end before n
        a = reference_automaton(ex)
        unmarked = CEA(a.states, [Transition(t.source, t.predicate, frozenset() if t.target in a.final else
                                             t.labels, t.target) for t in a.transitions], a.initial, a.final)
        ex = replace(ex, automaton=json.dumps(automaton_to_json(unmarked)),
                     text=f"The CEA below is the CEA of {source} with the labels of the transitions into final "
                          f"states removed. Does it have the *-property? Answer yes or no.")
    return replace(ex, **{"solution": f"The {construction.replace('_', ' ')} of the CEA, by the "
                                                  f"construction of seed 000.", "answer": expected_json(ex)})


__all__ = ["CONSTRUCTION_BY_DIFFICULTY", "SENSORS", "TEMPLATES", "difficulty_of", "generate"]
