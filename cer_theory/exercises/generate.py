"""Fresh instances: a seeded generator per exercise kind and difficulty, so that every student of a class gets an
instance of their own and the teacher can rebuild it from the seed.

An instance is a CEL exercise (the CEL paper) over a schema of two or three event types drawn from a pool of sensor
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
from dataclasses import dataclass, replace

from cer_theory.core.events import Event, Stream
from cer_theory.automata.cea import CEA, Transition
from cer_theory.core.protocols import get
from cer_theory.exercises.grading import DECIDERS, expected_json, level_of, reference_automaton
from cer_theory.exercises.model import DIFFICULTIES, KINDS, Exercise
from cer_theory.core.predicates.ast import Cmp
from cer_theory.formalisms.cel.ast import Atom, Filter, Formula
from cer_theory.formalisms.cel.parser import parse
from cer_theory.formalisms.socel.automaton_json import automaton_to_json

SENSORS = {"T": "temperature", "H": "humidity", "P": "pressure", "W": "wind", "S": "smoke", "L": "light"}
"""The pool of event types an instance draws from (attribute ``val`` each)."""

CONSTRUCTION_BY_DIFFICULTY = {1: "trim", 2: "determinize", 3: "star_property"}

Condition = tuple[str, str, int]
"""``(X, op, k)``: the event bound to X has ``val op k``."""


@dataclass(frozen=True)
class Pattern:
    """A drawn pattern: its sequence ``body`` (CEL syntax, which CEQL and SO-CEL share), the conditions of its
    filter, the variable it keeps (a projection) and the pattern in words."""

    body: str
    conditions: tuple[Condition, ...]
    words: str
    keep: str | None = None

    def render(self, logic: str) -> str:
        """The pattern in ``logic``: CEL's ``X.val > k`` filters, SO-CEL's ``X[val > k]`` (one FILTER each), or a
        CEQL query (``SELECT keep`` for the projection)."""
        if logic == "cel":
            conds = [f"{x}.val {op} {k}" for x, op, k in self.conditions]
            one = conds[0] if len(conds) == 1 else "(" + " AND ".join(conds) + ")"
            filtered = f"({self.body}) FILTER {one}"
            return f"PI[{self.keep}]({filtered})" if self.keep else filtered
        on = [f"{x}[val {op} {k}]" for x, op, k in self.conditions]
        if logic == "socel":
            filtered = f"({self.body}) FILTER " + " FILTER ".join(on)
            return f"PI[{self.keep}]({filtered})" if self.keep else filtered
        return f"SELECT {self.keep or '*'} FROM S WHERE ({self.body}) FILTER " + " AND ".join(on)


Template = Callable[[random.Random, list[str]], Pattern]
"""Draws a pattern from the types ``[X, Y, Z]``."""

LOGICS = {"cel": ("formula", "automaton", "predict", "construction"), "ceql": ("formula", "predict"),
          "socel": ("formula", "predict")}
"""The logics instances are generated in, with their kinds (automata and constructions are CEL's CEA)."""


def _threshold(rng: random.Random, x: str) -> tuple[Condition, str]:
    op, k = rng.choice((">", "<")), rng.randrange(5, 995, 5)
    return (x, op, k), f"{'above' if op == '>' else 'below'} {k}"


def _easy(rng: random.Random, t: list[str]) -> Pattern:
    x, y = t[0], t[1]
    op, how = rng.choice(((";", "at any later point"), (":", "immediately")))
    cond, words = _threshold(rng, x)
    return Pattern(f"{x} {op} {y}", (cond,), f"a {SENSORS[x]} reading ({x}) with a value {words}, followed {how} "
                                              f"by a {SENSORS[y]} reading ({y})")


def _medium(rng: random.Random, t: list[str]) -> Pattern:
    x, y = t[0], t[1]
    cond, words = _threshold(rng, x)
    if rng.random() < 0.5:
        return Pattern(f"{x} ; {y}+", (cond,), f"a {SENSORS[x]} reading ({x}) with a value {words}, followed by "
                                                f"one or more {SENSORS[y]} readings ({y})")
    return Pattern(f"({x} ; {y}) OR ({y} ; {x})", (cond,), f"a {SENSORS[x]} reading ({x}) with a value {words} and "
                                                            f"a {SENSORS[y]} reading ({y}), in either order")


def _hard(rng: random.Random, t: list[str]) -> Pattern:
    x, y, z = t
    cx, wx = _threshold(rng, x)
    cz, wz = _threshold(rng, z)
    words = (f"a {SENSORS[x]} reading ({x}) {wx}, then one or more {SENSORS[y]} readings ({y}), then a "
             f"{SENSORS[z]} reading ({z}) {wz}")
    pattern = Pattern(f"{x} ; {y}+ ; {z}", (cx, cz), words)
    if rng.random() < 0.5:
        return pattern
    return replace(pattern, keep=y, words=f"{words}; report only the {y} readings")


TEMPLATES: dict[int, Template] = {1: _easy, 2: _medium, 3: _hard}


def difficulty_of(formula: Formula) -> int:
    """The difficulty of writing ``formula``, measured by its operators (every node but the atoms) plus the
    comparisons of its filters: at most 3 is easy, 4 or 5 medium, 6 or more hard."""
    size = sum(1 for node in formula.walk() if not isinstance(node, Atom))
    size += sum(1 for node in formula.walk() if isinstance(node, Filter)
                for p in node.condition.walk() if isinstance(p, Cmp))
    return 1 if size <= 3 else 2 if size <= 5 else 3


def _stream(rng: random.Random, types: list[str], length: int) -> Stream:
    """A random stream whose values are, one time in three each, below and above every threshold (5..990), so
    that the pattern matches within a few tries however its thresholds fell."""
    return Stream(Event(rng.choice(types), val=rng.choice((0, 1000, rng.randrange(0, 1000, 5))))
                  for _ in range(length))


def _alphabet(types: list[str]) -> tuple[Event, ...]:
    """Events on both sides of every threshold (thresholds are 5..990): where answers are tested, not decided."""
    return tuple(Event(t, val=v) for t in types for v in (0, 1000))


def generate(kind: str, difficulty: int, seed: int, logic: str = "cel") -> Exercise:
    """The instance of ``kind`` and ``difficulty`` for ``seed`` in ``logic`` (see :data:`LOGICS`): the same seed
    gives the same instance."""
    if logic not in LOGICS or kind not in LOGICS[logic] or difficulty not in DIFFICULTIES:
        raise ValueError(f"kind must be one of {', '.join(LOGICS.get(logic, KINDS))} for logic {logic} (one of "
                         f"{', '.join(LOGICS)}) and difficulty 1, 2 or 3")
    rng = random.Random(f"{kind}/{difficulty}/{seed}" if logic == "cel" else f"{logic}/{kind}/{difficulty}/{seed}")
    types = rng.sample(sorted(SENSORS), 3 if difficulty == 3 else 2)
    pattern = TEMPLATES[difficulty](rng, types)
    measured = difficulty_of(parse(pattern.render("cel")))
    if measured != difficulty:  # the template and the measure disagree: a bug, never shipped
        raise AssertionError(f"{pattern.render('cel')} measures {measured}, not {difficulty}")
    source, words = pattern.render(logic), pattern.words
    reference = get(logic).parse(source)
    schema = {t: ("val",) for t in types}
    name = f"gen_{kind}_{difficulty}_{seed}" if logic == "cel" else f"gen_{logic}_{kind}_{difficulty}_{seed}"
    base = dict(name=name, reference=reference, schema=schema, difficulty=difficulty, level="complex_events",
                logic=logic, kind=kind, alphabet=() if logic in DECIDERS else _alphabet(types), bound=3)
    title = f"{kind.capitalize()} ({DIFFICULTIES[difficulty]}), instance {seed}"
    language = {"cel": "a CEL formula", "ceql": "a CEQL query", "socel": "an SO-CEL formula"}[logic]
    if kind == "formula":
        return Exercise(title=title, text=f"Write {language} that matches {words}.",
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
        return replace(ex, **{"text": f"{source} matches {words}. On the stream {events}, what does it output "
                                      f"at position {len(stream) - 1}? A JSON list of outputs, the "
                                      f"\"outputs\" of a line of cer-theory eval --logic {logic}.",
                           "solution": "Every complex event output at n contains n; list the choices of the "
                                       "earlier events that satisfy the pattern.", "answer": answer})
    construction = CONSTRUCTION_BY_DIFFICULTY[difficulty]
    ex = Exercise(title=title, construction=construction, **base,
                  text=f"Apply {construction.replace('_', ' ')} to the CEA of {source} (cer-theory draw).")
    if construction == "star_property" and rng.random() < 0.5:
        # Fig. 2 of the SO-CEL paper in miniature: the last event read but not marked, so the output may end before n
        a = reference_automaton(ex)
        unmarked = CEA(a.states, [Transition(t.source, t.predicate, frozenset() if t.target in a.final else
                                             t.labels, t.target) for t in a.transitions], a.initial, a.final)
        ex = replace(ex, automaton=json.dumps(automaton_to_json(unmarked)),
                     text=f"The CEA below is the CEA of {source} with the labels of the transitions into final "
                          f"states removed. Does it have the *-property? Answer yes or no.")
    return replace(ex, **{"solution": f"The {construction.replace('_', ' ')} of the CEA, by the "
                                                  f"construction of the CEL paper.", "answer": expected_json(ex)})


__all__ = ["CONSTRUCTION_BY_DIFFICULTY", "LOGICS", "Pattern", "SENSORS", "TEMPLATES", "difficulty_of", "generate"]
