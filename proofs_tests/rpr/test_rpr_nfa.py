"""The ordered NFA's backtracking run against the brute-force semantics, on generated queries and streams; and a
wrong matcher (leftmost-longest, the POSIX reading of regular expressions) is caught by the same comparison."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hypothesis import given, settings

from cer_theory.core.events import Event
from cer_theory.formalisms.rpr import compile_automaton, evaluate, format, parse
from cer_theory.formalisms.rpr.ast import Query
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
