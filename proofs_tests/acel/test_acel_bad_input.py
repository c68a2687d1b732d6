"""Bad input to ACEL: an unknown aggregate, an aggregate over a variable the formula never binds, type errors and
NULLs give a clear error or the documented result (docs/acel-syntax.md, docs/decisions.md D65), never a traceback."""

from __future__ import annotations

import pytest

from cer_theory.core.aggregates import NULL
from cer_theory.core.errors import AggregateError, CerError, PredicateError, SyntaxErrorCER
from cer_theory.core.events import Event, Stream
from cer_theory.formalisms.acel.ast import Agg, AggSpec, Atom
from cer_theory.formalisms.acel.compile import run_acea
from cer_theory.formalisms.acel.parser import parse
from cer_theory.formalisms.acel.semantics import complex_events, evaluate


def created(text: str, stream: Stream) -> list[dict]:
    return [dict(c["Y"][0].items) for c in sorted(complex_events(parse(text), stream), key=lambda c: c.sort_key())]


def test_an_unknown_aggregate_is_refused_by_the_parser_and_by_the_ast() -> None:
    with pytest.raises(SyntaxErrorCER, match="unknown aggregate 'mode'; known: avg, count, max, min, range, sum"):
        parse("AGG Y[m <- mode(X.a)](R)")
    with pytest.raises(AggregateError, match="unknown aggregate 'mode'"):
        Agg(Atom("R"), "Y", (AggSpec("m", "mode", "X", "a"),))
    with pytest.raises(PredicateError, match="needs at least one aggregate"):
        Agg(Atom("R"), "Y", ())


def test_an_aggregate_over_an_unbound_variable_reads_the_empty_bag() -> None:
    """Documented result (the ACEL paper §5 and E10): a variable φ never binds has the empty bag, so the identity."""
    s = Stream([Event("R", a=4)])
    assert created("AGG Y[s <- sum(Nobody.a), m <- min(Nobody.a), r <- range(Nobody.a)](R)", s) == [
        {"s": 0, "m": float("inf"), "r": NULL}]


def test_a_sum_of_strings_is_a_clear_error_in_both_evaluators() -> None:
    s = Stream([Event("R", a="x")])
    for run in (evaluate, run_acea):
        with pytest.raises(AggregateError, match="sum needs numbers; got 'x' \\(str\\)"):
            run(parse("AGG Y[s <- sum(R.a)](R)"), s)
    with pytest.raises(CerError, match="max cannot combine"):
        evaluate(parse("AGG Y[m <- max(R.a)](R+)"), Stream([Event("R", a="x"), Event("R", a=1)]))


def test_nulls_absorb_missing_attributes_make_null_and_filters_on_null_are_false() -> None:
    s = Stream([Event("R", a=1), Event("R", b=2)])
    assert created("AGG Y[s <- sum(X.a), n <- count(X.a), m <- max(X.a)](R AS X ; R AS X)", s) == [
        {"s": NULL, "n": 2, "m": NULL}]
    # a NULL value fails every comparison, and so does its negation's complement: NOT (s > 0) holds
    phi = "AGG Y[s <- sum(X.a)](R AS X ; R AS X) FILTER Y[s > 0]"
    assert complex_events(parse(phi), s) == frozenset()
    assert len(complex_events(parse("AGG Y[s <- sum(X.a)](R AS X ; R AS X) FILTER NOT Y.s > 0"), s)) == 1
    # the ACEA agrees (a missing attribute of the *schema* is outside Thm 6.2; one type per attribute set here)
    t = Stream([Event("R", a=1), Event("T", b=2)])
    phi2 = parse("AGG Y[s <- sum(X.a), n <- count(X.a)](R AS X ; T AS X)")
    assert run_acea(phi2, t) == evaluate(phi2, t)


HUGE = int("9" * 400)


@pytest.mark.parametrize("function", ["avg", "sum", "max", "min", "range", "count"])
def test_aggregates_over_400_digit_integers_answer_or_refuse_cleanly_in_both_evaluators(function: str) -> None:
    """avg over 400-digit integers raised OverflowError (the mean is past a float's range); it is an
    AggregateError naming the aggregate, as CEQL's AVG reports it. The exact aggregates answer exactly."""
    s = Stream([Event("R", a=HUGE), Event("R", a=HUGE)])
    text = f"AGG Y[m <- {function}(X.a)](R IN X ; R IN X)"
    expected = {"sum": 2 * HUGE, "max": HUGE, "min": HUGE, "range": 0, "count": 2}.get(function)
    for run in (evaluate, run_acea):
        if expected is None:
            with pytest.raises(AggregateError, match="avg of \\(1999.*too large for a float"):
                run(parse(text), s)
        else:
            outputs = [c for cs in run(parse(text), s) for c in cs]
            assert [dict(c["Y"][0].items)["m"] for c in outputs] == [expected], (run, outputs)
