"""Grading an answer to an :class:`~cer_theory.exercises.model.Exercise`, one function per kind, all through the
formalism registry (:func:`cer_theory.core.protocols.get`) and the toolkit's own constructions: no semantics here.

* A formula is graded by the formalism's equivalence procedure where it has one (CEL: the CEL paper Def. 5.2 read as
  NFA equivalence; SO-CEL: the SO-CEL paper Prop. 5.2's UCEA; register-free SREMO: the SRT paper Thm. 27's SRT), with the
  shortest distinguishing stream and both sides' outputs on it. Where equivalence is not decided (CEQL windows
  and correlations, FO-CEL, ACEL aggregates, SREMO registers) it is graded by :func:`first_difference` on every
  stream over the exercise's alphabet up to its bound and on seeded random longer ones; the verdict is then
  "no difference found up to length n", never "equivalent" (docs/decisions.md D251).
* An automaton is graded by automaton equivalence (:func:`cer_theory.automata.equivalence.compare`) against the
  reference's automaton, or by bounded testing for ACEA, with the run of the student's automaton that goes wrong.
* A prediction is graded by the reference semantics at the exercise's position.
* A construction is graded structurally: ``trim`` up to isomorphism with :meth:`CEA.trim`, ``determinize`` up to
  isomorphism with the reachable subsets of Prop. 5.5 (guards compared as predicates, not as text),
  ``star_property`` against the decision procedure of the CEL paper Prop. 8.8 / the SO-CEL paper §5.3.
"""

from __future__ import annotations

import json
import random
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import product
from typing import Any

import networkx as nx

from cer_theory.automata.cea import CEA
from cer_theory.automata.determinize.eager import io_determinize
from cer_theory.automata.equivalence import ProductProof, Verdict, compare, show_output
from cer_theory.core.budget import active, states
from cer_theory.core.errors import (DEFAULT_BUDGET, AutomatonError, CerError, ExerciseError, SizeBudgetExceeded,
                                    SyntaxErrorCER, UnsupportedError)
from cer_theory.core.events import Stream, Valuation
from cer_theory.core.predicates.ast import disj
from cer_theory.core.predicates.solver import equivalent as same_predicate
from cer_theory.core.protocols import Level
from cer_theory.core.wording import plural
from cer_theory.exercises.model import Exercise, Feedback, events_json
from cer_theory.formalisms.acel.acea import ACEA
from cer_theory.formalisms.acel.acea_json import loads_acea
from cer_theory.formalisms.cel import equivalence as cel_equivalence
from cer_theory.formalisms.cel.compile import compile_automaton as cel_automaton
from cer_theory.formalisms.cel.printer import format_predicate
from cer_theory.formalisms.cel.star_property import has_star_property as cea_star_property
from cer_theory.formalisms.ceql.compile import compile_automaton as ceql_automaton
from cer_theory.formalisms.socel import equivalence as socel_equivalence
from cer_theory.formalisms.socel.automaton_json import automaton_to_json, loads_automaton
from cer_theory.formalisms.socel.star_property import has_star_property as ucea_star_property
from cer_theory.formalisms.socel.ucea import UCEA
from cer_theory.formalisms.sremo import equivalence as sremo_equivalence

DECIDERS = {"cel": cel_equivalence, "socel": socel_equivalence, "sremo": sremo_equivalence}
"""The formalisms with an equivalence procedure (the others are graded by bounded testing)."""

AUTOMATA: dict[str, Callable[[Any], CEA]] = {
    "cel": cel_automaton,                        # the CEL paper, Theorems 6.2 and 7.2
    "ceql": ceql_automaton,                      # the CORE paper, §4 (the CEA of a query)
    "socel": socel_equivalence.automaton,        # the SO-CEL paper, Prop. 5.2 (a UCEA)
    "sremo": sremo_equivalence.automaton,        # the SRT paper, Thm. 27, register-free SRT read as a CEA
}
"""The complex event automaton of a reference, for ``automaton`` and ``construction`` exercises."""

SYNTAX_HELP = {
    "cel": "CEL in brief: an event type (T), sequence φ ; ψ, contiguous sequence φ : ψ, φ OR ψ, φ AND ψ, iteration "
           "φ+ (or φ:+), φ IN X, φ FILTER (X.attr > 40 AND …), PI[X,Y](φ), STRICT/NXT/LAST/MAX(φ); parentheses group.",
    "ceql": "CEQL in brief: SELECT [strategy] * | X, … FROM S WHERE pattern [PARTITION BY [attr]] [WITHIN n EVENTS]; "
            "patterns as in CEL, filters as FILTER X[attr > 40].",
    "socel": "SO-CEL in brief: CEL's operators over labels, unary filters X[attr > 40], ordering tests incr(X.attr).",
    "focel": "FO-CEL in brief: bind each event, T AS x ; H AS y, and compare them: FILTER x.id = y.id.",
    "acel": "ACEL in brief: CEL's operators, AGG Y[b <- sum(X.a)](φ), attribute projection PI[X(a)](φ) "
            "(docs/acel-syntax.md).",
    "sremo": "SREMO in brief: <φ> marked and [φ] unmarked conditions, e . e, e | e, e*, -> r1 writes a register, "
             "(e) WITHIN w, ANY(e1, e2) (docs/sremo-syntax.md).",
}

def state_budget() -> int:
    """The state budget of the constructions the grader runs: the active work budget's limit (a command's
    ``--budget``, so that their messages name the bound the user gave), else the constructions' own default."""
    return states(DEFAULT_BUDGET)


RANDOM_STREAMS = 20
"""Seeded random streams tried after the exhaustive ones, each longer than the bound."""


def level_of(exercise: Exercise) -> Level:
    """The output level the exercise is graded at: the one named by ``level`` if the formalism has it, else the
    formalism's coarsest (its complex events or matches)."""
    f = exercise.formalism
    return next((lv for lv in f.levels if lv.key == exercise.level), f.levels[-1])


def show(level: Level, output: Any) -> str:
    return json.dumps(level.to_json(output), sort_keys=True, separators=(",", ":"))


def _outputs(level: Level, outs: Iterable) -> str:
    return ", ".join(sorted(show(level, o) for o in outs)) or "nothing"


def reference_automaton(exercise: Exercise) -> CEA:
    """The reference's automaton with its states renamed 0, 1, … in breadth-first order (what the student sees)."""
    if exercise.logic not in AUTOMATA:
        raise UnsupportedError(f"{exercise.logic} has no complex event automaton here")
    a = AUTOMATA[exercise.logic](exercise.reference)
    return a.relabel_states()


def check_reference(exercise: Exercise) -> None:
    """Raise :class:`ExerciseError` when the exercise cannot be graded: a CEL reference outside its schema, a
    bounded-testing exercise without an alphabet, an automaton exercise for a logic without an automaton."""
    where = f"{exercise.name}: field 'reference'"
    try:
        if exercise.logic == "cel":
            ref = exercise.reference
            cel_equivalence.check_schema(ref, cel_equivalence.automaton(ref), exercise.schema, role="reference")
        if exercise.kind == "construction":
            construction_input(exercise)
        elif exercise.kind == "automaton" and exercise.logic != "acel":
            reference_automaton(exercise)
    except SizeBudgetExceeded:
        raise
    except CerError as e:
        raise ExerciseError(f"{where}: {e}") from None
    bounded = exercise.kind == "automaton" and exercise.logic == "acel" or (
        exercise.kind == "formula" and exercise.logic not in DECIDERS)
    if bounded and not exercise.alphabet:
        raise ExerciseError(f"{exercise.name}: equivalence is not decided for {exercise.logic}: give an 'alphabet' "
                            f"of events to test on")


# ---------------------------------------------------------------------------------------------- bounded testing

def bounded_cost(k: int, bound: int, cap: int | None = None) -> int:
    """How many events bounded testing reads over an alphabet of ``k`` events: every stream of length 1..bound
    (``sum i·k^i``) and the :data:`RANDOM_STREAMS` longer ones (at most bound+3 events each). With ``cap``, the
    count stops growing once past it, so a huge ``bound`` costs nothing to price."""
    total = RANDOM_STREAMS * (bound + 3)
    streams = 1
    for length in range(1, bound + 1):
        streams *= k
        total += length * streams
        if cap is not None and total > cap:
            break
    return total


def sample_streams(exercise: Exercise) -> Iterator[Stream]:
    """Every stream over the alphabet of length 1..bound, shortest first, then :data:`RANDOM_STREAMS` seeded
    random ones of length bound+1..bound+3 (seeded by the exercise's name: the same streams every time).

    The streams are paid for before the first is made: one unit of the active work budget (core.budget) per
    event of every stream, so an exercise whose ``bound`` asks for millions of streams is refused at once with
    the budget's message, rather than after minutes (docs/decisions.md D343)."""
    alphabet = exercise.alphabet
    budget = active()
    if budget is not None:
        budget.charge(f"bounded testing of {exercise.name} (every stream of length 1..{exercise.bound} over "
                      f"{len(alphabet)} events)",
                      bounded_cost(len(alphabet), exercise.bound, budget.limit - budget.spent))
    for length in range(1, exercise.bound + 1):
        for events in product(alphabet, repeat=length):
            yield Stream(events)
    rng = random.Random(exercise.name)
    for _ in range(RANDOM_STREAMS):
        yield Stream(rng.choice(alphabet) for _ in range(rng.randint(exercise.bound + 1, exercise.bound + 3)))


Run = Callable[[Stream], Sequence[frozenset]]


def first_difference(left: Run, right: Run, streams: Iterable[Stream]
                     ) -> tuple[Stream, int, frozenset, frozenset] | None:
    """The first stream (cut after the position) and position at which ``left`` and ``right`` output different
    sets, with both sets; None when they agree on every stream. Over the exhaustive part, shortest first."""
    for stream in streams:
        a, b = left(stream), right(stream)
        for n in range(len(stream)):
            if a[n] != b[n]:
                return stream[:n + 1], n, a[n], b[n]
    return None


def _difference_feedback(level: Level, stream: Stream, n: int, answer: frozenset, expected: frozenset,
                         what: str = "answer") -> Feedback:
    lines = [f"Not quite. Here is a stream on which your {what} and the expected one differ "
             f"({plural(len(stream), 'event')}):"]
    lines += [f"  {k}: {line}" for k, line in enumerate(events_json(stream))]
    lines.append(f"At position {n} your {what} outputs {_outputs(level, answer)}; it should output "
                 f"{_outputs(level, expected)}.")
    extra, missing = sorted(answer - expected, key=level.sort_key), sorted(expected - answer, key=level.sort_key)
    if extra:
        lines.append(f"Your {what} outputs {show(level, extra[0])}, which the exercise does not ask for.")
    else:
        lines.append(f"Your {what} misses {show(level, missing[0])}.")
    return Feedback("wrong", "\n".join(lines), None, answer, expected, stream, n)


def _bounded(exercise: Exercise, answer_run: Run, what: str = "answer") -> Feedback:
    f, level = exercise.formalism, level_of(exercise)
    expected: Run = lambda s: level.outputs(f.semantics(exercise.reference, s))  # noqa: E731
    found = first_difference(answer_run, expected, sample_streams(exercise))
    if found is not None:
        return _difference_feedback(level, *found, what=what)
    k = len(exercise.alphabet)
    return Feedback("no difference found",
                    f"No difference found up to length {exercise.bound}: your {what} outputs what the reference "
                    f"outputs on all {sum(k ** i for i in range(1, exercise.bound + 1))} streams of length "
                    f"1..{exercise.bound} over {k} sample events and on {RANDOM_STREAMS} random longer ones. "
                    f"Equivalence is not decided for {exercise.logic} answers, so this is evidence, not a proof.")


# ---------------------------------------------------------------------------------------------- formulas

def _decided(exercise: Exercise, answer: Any, written: str | None = None) -> Feedback:
    """Grade by the formalism's equivalence procedure; ``written`` is the answer as the student typed it, echoed
    as typed (the printer would write ``AS`` as ``IN``, its synonym)."""
    decider = DECIDERS[exercise.logic]
    level = exercise.level if exercise.logic == "cel" else ("valuations" if exercise.logic == "socel"
                                                            else "complex_events")
    v: Verdict = decider.equivalent(answer, exercise.reference, level=level, budget=state_budget())
    if v.holds:
        echo = " ".join(written.split()) if written is not None else exercise.formalism.format(answer)
        return Feedback("correct", f"Correct: {echo} matches exactly what the "
                                   f"exercise asks for (equivalence decided).", v)
    assert v.stream is not None and v.output is not None
    lines = [f"Not quite. Here is a shortest stream on which your answer and the expected one differ "
             f"({plural(len(v.stream), 'event')}):"]
    lines += [f"  {k}: {line}" for k, line in enumerate(v.jsonl())]
    shown = lambda outs: ", ".join(sorted(map(show_output, outs))) or "nothing"  # noqa: E731
    lines.append(f"At position {v.position} (the last event) your answer outputs {shown(v.left_outputs)}; "
                 f"it should output {shown(v.right_outputs)}.")
    what = "complex event" if v.level == "complex_events" else "valuation"
    if v.in_left:
        lines.append(f"Your answer outputs the {what} {show_output(v.output)}, which the exercise does not ask for.")
    else:
        lines.append(f"Your answer misses the {what} {show_output(v.output)}.")
    return Feedback("wrong", "\n".join(lines), v, v.left_outputs, v.right_outputs, v.stream, v.position)


def grade_formula(exercise: Exercise, answer: str | Any) -> Feedback:
    f = exercise.formalism
    try:
        phi = f.parse(answer) if isinstance(answer, str) else answer
    except SyntaxErrorCER as e:
        return Feedback("syntax error", f"Your answer does not parse as {exercise.logic}: {e}\n"
                                        f"{SYNTAX_HELP.get(exercise.logic, '')}")
    except SizeBudgetExceeded:
        raise  # the grader's limit, not the answer's fault: the caller reports it
    except CerError as e:
        return Feedback("unsupported", f"Your answer cannot be checked: {e}.")
    if exercise.logic == "cel":
        try:
            cel_equivalence.check_schema(phi, cel_equivalence.automaton(phi), exercise.schema, role="answer")
        except UnsupportedError as e:
            return Feedback("outside the schema" if "schema" in str(e) else "unsupported",
                            f"Your answer cannot be checked: {e}.")
    if exercise.logic in DECIDERS:
        try:
            return _decided(exercise, phi, answer if isinstance(answer, str) else None)
        except UnsupportedError as e:
            if not exercise.alphabet:
                return Feedback("unsupported", f"Your answer cannot be checked: {e}.")
    level = level_of(exercise)
    try:
        return _bounded(exercise, lambda s: level.outputs(f.semantics(phi, s)))
    except SizeBudgetExceeded:
        raise
    except CerError as e:
        return Feedback("unsupported", f"Your answer cannot be evaluated: {e}.")


# ---------------------------------------------------------------------------------------------- automata

def _states(states: Iterable) -> str:
    return "{" + ", ".join(sorted(map(str, states))) + "}"


def _with_kind(text: str, kind: str) -> str:
    """The JSON text with ``kind`` filled in when the student left it out (the exercise says which it is)."""
    data = json.loads(text)
    if isinstance(data, dict):
        data.setdefault("kind", kind)
    return json.dumps(data)


def _load_cea(exercise: Exercise, text: str) -> CEA:
    return loads_automaton(_with_kind(text, "ucea" if exercise.logic == "socel" else "cea"), source="your automaton")


def _automaton_difference(exercise: Exercise, student: CEA, reference: CEA, level: str) -> Feedback | None:
    result = compare(student, reference, level=level, budget=state_budget())  # type: ignore[arg-type]
    if isinstance(result, ProductProof):
        return None
    stream, n, out = result.stream(), result.position, result.output()
    lines = [f"Not quite. Here is a shortest stream on which your automaton and the expected one differ "
             f"({plural(len(stream), 'event')}):"]
    lines += [f"  {k}: {line}" for k, line in enumerate(events_json(stream))]
    if result.left:
        run = next(student.accepting_runs(stream, n, limit=1))
        lines.append(f"Your automaton outputs {show_output(out)} at position {n}, which it should not, by this "
                     f"accepting run:")
        lines += [f"  {k}: {t.source} --{format_predicate(t.predicate)} / {_states(t.labels) if t.labels else '∅'}"
                  f"--> {t.target}" for k, t in enumerate(run)]
    else:
        reached = [_states(q for q, _ in config) for config in student.configurations(stream)]
        lines.append(f"Your automaton misses {show_output(out)} at position {n}. After each event it is in the "
                     f"states " + " → ".join(reached) + f"; final states {_states(student.final)}.")
    return Feedback("wrong", "\n".join(lines), result, evidence=stream, position=n)


def answer_automaton(exercise: Exercise, answer: str) -> CEA | ACEA:
    """The automaton a student handed in for an ``automaton`` exercise: an ACEA for ACEL, else a CEA (a UCEA for
    SO-CEL), its ``kind`` filled in when left out; ``json.JSONDecodeError`` or ``AutomatonError`` when unreadable."""
    if exercise.logic == "acel":
        return loads_acea(_with_kind(answer, "acea"), source="your automaton")
    return _load_cea(exercise, answer)


def grade_automaton(exercise: Exercise, answer: str) -> Feedback:
    try:
        student = answer_automaton(exercise, answer)
        if isinstance(student, ACEA):
            level = level_of(exercise)
            return _bounded(exercise, lambda s: level.outputs(student.run(s)), what="automaton")
    except json.JSONDecodeError as e:
        return Feedback("syntax error", f"Your automaton is not JSON: {e}")
    except AutomatonError as e:
        return Feedback("syntax error", f"Your automaton cannot be read: {e}")
    level = "valuations" if exercise.logic == "socel" else exercise.level
    if exercise.logic == "sremo":
        level = "complex_events"
    found = _automaton_difference(exercise, student, reference_automaton(exercise), level)
    return found or Feedback("correct", "Correct: your automaton outputs exactly what the formula defines "
                                        "(automaton equivalence decided).")


# ---------------------------------------------------------------------------------------------- predictions

def _run_giving(exercise: Exercise, level: Level, output: str) -> list[str]:
    """An accepting run of the reference's automaton (CEL, SO-CEL) at the exercise's position whose valuation
    shows as ``output`` at ``level``, one line per transition; [] when there is no such automaton."""
    if exercise.logic not in ("cel", "socel"):
        return []
    assert exercise.stream is not None and exercise.position is not None
    a = reference_automaton(exercise)
    for run in a.accepting_runs(exercise.stream, exercise.position, limit=200):
        grouped: dict[str, set[int]] = {}
        for k, t in enumerate(run):
            for var in t.labels:
                grouped.setdefault(var, set()).add(k)
        if show(level, level.project(Valuation(grouped))) == output:
            return [f"  {k}: {t.source} --{format_predicate(t.predicate)} / "
                    f"{_states(t.labels) if t.labels else '∅'}--> {t.target}" for k, t in enumerate(run)]
    return []


def _canonical(level: Level, item: Any) -> str:
    value = level.from_json(item) if level.from_json is not None else item
    return show(level, value) if level.from_json is not None else json.dumps(item, sort_keys=True,
                                                                            separators=(",", ":"))


def grade_predict(exercise: Exercise, answer: str | list) -> Feedback:
    level = level_of(exercise)
    assert exercise.stream is not None and exercise.position is not None
    n = exercise.position
    try:
        items = json.loads(answer) if isinstance(answer, str) else answer
        if not isinstance(items, list):
            raise ValueError("expected a JSON list of outputs")
        given = {_canonical(level, x) for x in items}
    except (ValueError, TypeError, KeyError, CerError) as e:
        return Feedback("syntax error", f"Your answer cannot be read: {e}. Write a JSON list of outputs, "
                                        f"e.g. [[0, 2], [1, 2]] for two complex events.")
    outs = level.outputs(exercise.formalism.semantics(exercise.reference, exercise.stream))[n]
    expected = {show(level, o) for o in outs}
    if given == expected:
        return Feedback("correct", f"Correct: at position {n} the outputs are exactly {_outputs(level, outs)}.")
    extra, missing = sorted(given - expected), sorted(expected - given)
    run: list[str] = []
    if extra:
        why = (f"{extra[0]} is not an output at position {n}: no way of matching the reference on events "
               f"0..{n} gives it")
    else:
        why = f"you miss {missing[0]}, which the reference outputs at position {n}"
        run = _run_giving(exercise, level, missing[0])
        if run:
            why += ", by this accepting run of its automaton (position: state --guard / labels--> state)"
    lines = [f"Not quite: {why}.", *run, f"You listed {len(given)} output(s); there are {len(expected)}."]
    return Feedback("wrong", "\n".join(lines),
                    position=n, evidence=exercise.stream[:n + 1])


# ---------------------------------------------------------------------------------------------- constructions

def construction_input(exercise: Exercise) -> CEA:
    """The automaton the construction is applied to: the exercise's own, or the reference's (untrimmed)."""
    if exercise.automaton:
        return _load_cea(exercise, exercise.automaton)
    return reference_automaton(exercise)


def construction_result(exercise: Exercise) -> CEA | bool:
    """The reference result: the trimmed automaton, the reachable I/O-deterministic one (Prop. 5.5, without the
    empty subset), or whether the *-property holds."""
    a = construction_input(exercise)
    if exercise.construction == "trim":
        return a.trim()
    if exercise.construction == "determinize":
        d = io_determinize(a, complete=False, budget=state_budget())
        return d.restrict(d.reachable() - {frozenset()}).relabel_states()
    decide = ucea_star_property if isinstance(a, UCEA) else cea_star_property
    return decide(a, budget=state_budget()).holds


def _graph(a: CEA) -> nx.MultiDiGraph:
    g = nx.MultiDiGraph()
    for q in a.states:
        g.add_node(q, role=(q in a.initial, q in a.final))
    for t in a.transitions:
        g.add_edge(t.source, t.target, letter=(format_predicate(t.predicate), tuple(sorted(t.labels))))
    return g


def isomorphic(a: CEA, b: CEA) -> bool:
    """Whether ``a`` and ``b`` are the same automaton up to the names of their states (guards as printed)."""
    match = nx.algorithms.isomorphism
    return nx.is_isomorphic(_graph(a), _graph(b), node_match=match.categorical_node_match("role", None),
                            edge_match=match.categorical_multiedge_match("letter", None))


def deterministic_isomorphic(a: CEA, b: CEA) -> str | None:
    """For I/O-deterministic ``a`` and ``b`` with one initial state each: None when they are isomorphic with
    guards compared as predicates (the union of the guards from a state to a target with a label set), else why
    not. Determinism makes the matching of states unique, so a breadth-first walk finds it."""
    def moves(x: CEA, q: Any) -> dict[tuple[frozenset, Any], Any]:
        grouped: dict[tuple[frozenset, Any], list] = {}
        for t in x.out(q):
            grouped.setdefault((t.labels, t.target), []).append(t.predicate)
        return {k: disj(*ps) for k, ps in grouped.items()}

    (qa,), (qb,) = a.initial, b.initial
    pairing = {qa: qb}
    queue = deque([qa])
    while queue:
        p = queue.popleft()
        q = pairing[p]
        if (p in a.final) != (q in b.final):
            return f"your state {p} should {'not ' if p in a.final else ''}be final"
        ma, mb = moves(a, p), moves(b, q)
        if len(ma) != len(mb):
            return f"your state {p} has {len(ma)} distinct moves; the construction gives {len(mb)}"
        for (labels, target), guard in ma.items():
            partner = next((t for (ls, t), g in mb.items() if ls == labels and same_predicate(guard, g)), None)
            if partner is None:
                return (f"no move of the construction matches {p} --{format_predicate(guard)} / "
                        f"{_states(labels)}--> {target}")
            known = pairing.get(target)
            if known is None:
                if partner in pairing.values():
                    return f"your state {target} plays the role of another of your states"
                pairing[target] = partner
                queue.append(target)
            elif known != partner:
                return f"your state {target} plays two roles of the construction"
    if len(a.states) != len(b.states):
        return f"your automaton has {plural(len(a.states), 'state')}; the construction gives {len(b.states)}"
    return None


def grade_construction(exercise: Exercise, answer: str) -> Feedback:
    expected = construction_result(exercise)
    if exercise.construction == "star_property":
        said = answer.strip().lower()
        if said not in ("yes", "no"):
            return Feedback("syntax error", "Answer yes (the automaton has the *-property) or no.")
        if (said == "yes") == expected:
            return Feedback("correct", f"Correct: the automaton {'has' if expected else 'lacks'} the *-property.")
        a = construction_input(exercise)
        result = (ucea_star_property if isinstance(a, UCEA) else cea_star_property)(a, budget=state_budget())
        why = str(result) if not expected else ("the decision procedure explored every pair of subsets and found "
                                                 "no counterexample")
        return Feedback("wrong", f"Not quite: the automaton {'has' if expected else 'lacks'} the *-property: {why}",
                        evidence=getattr(result, "stream", None), position=getattr(result, "n", None))
    assert isinstance(expected, CEA)
    try:
        student = _load_cea(exercise, answer)
    except json.JSONDecodeError as e:
        return Feedback("syntax error", f"Your automaton is not JSON: {e}")
    except AutomatonError as e:
        return Feedback("syntax error", f"Your automaton cannot be read: {e}")
    if exercise.construction == "trim":
        if isomorphic(student, expected):
            return Feedback("correct", "Correct: this is the trimmed automaton (isomorphic to the construction).")
        found = _automaton_difference(exercise, student, expected, "valuations")
        if found is not None:
            return found
        useless = student.states - (student.reachable() & student.coreachable())
        kept = (f" {plural(len(useless), 'state')} of yours no accepting run visits: {_states(useless)} (drawn grey "
                f"by cer-theory draw)." if useless else "")
        return Feedback("wrong", f"Not quite: your automaton is equivalent but it is not the trimmed one: it has "
                                 f"{plural(len(student.states), 'state')} and "
                                 f"{plural(len(student.transitions), 'transition')}, the trimmed automaton "
                                 f"{len(expected.states)} and {len(expected.transitions)}.{kept}")
    violations = student.io_determinism_violations()
    if violations or len(student.initial) != 1:
        if violations:
            s, t = violations[0]
            why = (f"from state {s.source} the moves {format_predicate(s.predicate)} / {_states(s.labels)} and "
                   f"{format_predicate(t.predicate)} / {_states(t.labels)} can read the same event")
        else:
            why = f"it has {len(student.initial)} initial states"
        return Feedback("wrong", f"Not quite: your automaton is not I/O-deterministic: {why}.")
    found = _automaton_difference(exercise, student, expected, "valuations")
    if found is not None:
        return found
    why = deterministic_isomorphic(student, expected)
    if why is None:
        return Feedback("correct", "Correct: this is the subset construction (isomorphic, guards as predicates).")
    return Feedback("wrong", f"Not quite: your automaton is I/O-deterministic and equivalent, but it is not the "
                             f"subset construction of Prop. 5.5: {why}.")


GRADERS: dict[str, Callable[[Exercise, Any], Feedback]] = {
    "formula": grade_formula, "automaton": grade_automaton, "predict": grade_predict,
    "construction": grade_construction}


def expected_json(exercise: Exercise) -> str:
    """The JSON a teacher would hand out as the model result of an automaton-valued construction."""
    result = construction_result(exercise)
    return json.dumps(automaton_to_json(result), ensure_ascii=False) if isinstance(result, CEA) else \
        ("yes" if result else "no")


__all__ = ["AUTOMATA", "DECIDERS", "GRADERS", "answer_automaton", "check_reference", "construction_input", "construction_result",
           "deterministic_isomorphic", "expected_json", "first_difference", "grade_automaton",
           "grade_construction", "grade_formula", "grade_predict", "isomorphic", "level_of",
           "reference_automaton", "sample_streams", "bounded_cost"]
