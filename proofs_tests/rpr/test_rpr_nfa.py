"""The ordered NFA's backtracking run against the brute-force semantics, on generated queries and streams; and a
wrong matcher (leftmost-longest, the POSIX reading of regular expressions) is caught by the same comparison."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from hypothesis import given, settings

from cer_theory.core.budget import work_budget
from cer_theory.core.errors import SizeBudgetExceeded
from cer_theory.core.events import Event
from cer_theory.formalisms.rpr import compile_automaton, evaluate, format, parse
from cer_theory.formalisms.rpr.ast import Query
from cer_theory.formalisms.rpr.compile import unrolled_states
from cer_theory.formalisms.rpr.semantics import Labels, SkipError, derivations, run_with, satisfied
from cer_theory.testing.strategies.rpr import queries, streams


def _report(q: Query, stream: Sequence[Event], expected: object, actual: object) -> str:
    return f"query:\n{format(q)}\nstream: {list(stream)}\nsemantics: {expected}\nnfa:       {actual}"


def outcome(run: Callable[[Query, Sequence[Event]], object], q: Query, stream: Sequence[Event]) -> object:
    """The outputs, or the exception the standard prescribes (an ``AFTER MATCH SKIP TO`` that cannot resume)."""
    try:
        return run(q, stream)
    except SkipError as e:
        return f"SkipError: {e}"


@settings(max_examples=400)
@given(queries(raising=True), streams())
def test_nfa_run_equals_the_semantics(q: Query, stream: list[Event]) -> None:
    """The first accepting path of the ordered NFA is the least derivation by choice sequence (TR 19075-5 §4.12),
    and both apply the same skip rule: equal outputs at every position, or the same exception."""
    expected = outcome(evaluate, q, stream)
    actual = outcome(lambda q, s: compile_automaton(q).run(s), q, stream)
    assert expected == actual, _report(q, stream, expected, actual)


def longest_match(q: Query, rows: Sequence[Event], start: int) -> Labels | None:
    """A *wrong* preferment: the longest match (ties broken by preferment)."""
    found = [(-len(w), k, w) for k, w in derivations(q.pattern, len(rows) - start) if w and satisfied(q, rows, start, w)]
    return min(found)[2] if found else None


def test_the_comparison_catches_a_longest_match_reading() -> None:
    """``(A | A B) B`` on three rows: preferment takes the left branch (``A B``), the longest reading ``A B B``."""
    q = parse("MATCH_RECOGNIZE (PATTERN ((A | A B) B))")
    stream = [Event("e")] * 3
    assert evaluate(q, stream) != run_with(q, stream, longest_match)
    assert evaluate(q, stream) == compile_automaton(q).run(stream)


def test_every_optional_iteration_consumes_a_row() -> None:
    """``(A?)+ B``: iterations beyond the first must consume a row (D222), so the run terminates and agrees."""
    q = parse("MATCH_RECOGNIZE (PATTERN ((A?)+ B) DEFINE A AS x = 1)")
    stream = [Event("e", x=x) for x in (1, 1, 0, 0)]
    assert evaluate(q, stream) == compile_automaton(q).run(stream)
    assert [sorted(m.rows for m in ms) for ms in evaluate(q, stream)][2] == [((0, "A"), (1, "A"), (2, "B"))]


@settings(max_examples=200)
@given(queries())
def test_unrolled_size_is_counted_before_building(q: Query) -> None:
    """The count the work budget is charged before the NFA is built (``unrolled_states``) is the number of states
    the construction then builds: the up-front charge is the construction's real size, not a guess."""
    assert unrolled_states(q.pattern) == len(compile_automaton(q).edges), format(q)


def test_a_huge_quantifier_is_refused_before_anything_is_built() -> None:
    """``A{1000000000}`` (and nested ``{10}``s) are refused by the budget at once, with a budget and without one
    (the library's default state budget): nothing is unrolled first. A 10**9-state NFA would take tens of GB."""
    for pattern, states in (("A{1000000000}", 2_000_000_002), ("((((A{10}){10}){10}){10}){10}", 222_222)):
        q = parse(f"MATCH_RECOGNIZE (ORDER BY ts PATTERN ({pattern}) DEFINE A AS x > 0)")
        assert unrolled_states(q.pattern) == states
        with pytest.raises(SizeBudgetExceeded) as caught:
            compile_automaton(q)
        assert caught.value.reached == states
        with work_budget(1000), pytest.raises(SizeBudgetExceeded):
            compile_automaton(q)


def test_the_backtracking_run_and_the_semantics_charge_the_budget() -> None:
    """A pattern whose paths explode on a long stream stops at the budget in both evaluators (one unit per path
    step, one per derivation), and ``A{1000000000}`` on a short stream is no match, found without unrolling."""
    q = parse("MATCH_RECOGNIZE (ORDER BY ts PATTERN ((A|B)+ (A|B)* C) DEFINE A AS x > 0, B AS x > 0, C AS x < 0)")
    stream = [Event("A", {"ts": i, "x": 1}) for i in range(60)]
    for run in (evaluate, lambda q, s: compile_automaton(q).run(s)):
        with work_budget(10_000), pytest.raises(SizeBudgetExceeded):
            run(q, stream)
    huge = parse("MATCH_RECOGNIZE (ORDER BY ts PATTERN (A{1000000000}) DEFINE A AS x > 0)")
    with work_budget(1000):
        assert all(not out for out in evaluate(huge, stream))
