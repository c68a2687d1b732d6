"""The ``MATCH_RECOGNIZE`` parser and printer: the round trip on generated queries, quantifier forms, keywords'
case, the static rules of the standard, and readable syntax errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from cer_theory.core.errors import SyntaxErrorCER
from cer_theory.formalisms.rpr import format, parse
from cer_theory.formalisms.rpr.ast import Alt, Concat, Quant, Query, Var
from cer_theory.formalisms.rpr.parser import quantifier
from cer_theory.testing.strategies.rpr import queries


@settings(max_examples=300)
@given(queries(max_leaves=6))
def test_round_trip(q: Query) -> None:
    text = format(q)
    assert parse(text) == q, text


@pytest.mark.parametrize("text, expected", [
    ("*", (0, None, True)), ("+", (1, None, True)), ("?", (0, 1, True)), ("{3}", (3, 3, True)),
    ("{2,}", (2, None, True)), ("{,4}", (0, 4, True)), ("{1, 3}", (1, 3, True)), ("*?", (0, None, False)),
    ("+?", (1, None, False)), ("??", (0, 1, False)), ("{2,5}?", (2, 5, False)),
])
def test_quantifiers(text: str, expected: tuple) -> None:
    assert quantifier(text) == expected


def test_keywords_are_case_insensitive_and_precedence_is_quantifier_concatenation_alternation() -> None:
    q = parse("match_recognize (pattern (A B+ | (C | A)) define a_ AS true)".replace("a_", "A"))
    assert q.pattern == Alt((Concat((Var("A"), Quant(Var("B"), 1, None))), Alt((Var("C"), Var("A")))))
    assert "PATTERN (A B+ | (C | A))" in format(q)


@pytest.mark.parametrize("text, message", [
    ("MATCH_RECOGNIZE (PATTERN (A*))", "empty sequence"),
    ("MATCH_RECOGNIZE (PATTERN (A? B*))", "empty sequence"),
    ("MATCH_RECOGNIZE (PATTERN (A) DEFINE B AS TRUE)", "DEFINE names B"),
    ("MATCH_RECOGNIZE (PATTERN (A) DEFINE A AS TRUE, A AS FALSE)", "defined twice"),
    ("MATCH_RECOGNIZE (MEASURES B.x AS b PATTERN (A))", "B is not a variable"),
    ("MATCH_RECOGNIZE (MEASURES PREV(A.x) AS b PATTERN (A))", "PREV is allowed in DEFINE only"),
    ("MATCH_RECOGNIZE (AFTER MATCH SKIP TO LAST B PATTERN (A))", "not a variable of the pattern"),
    ("MATCH_RECOGNIZE (PATTERN (A{3,2}))", "bad quantifier"),
    ("MATCH_RECOGNIZE (PATTERN (A) WITHIN INTERVAL '5' SECOND)", "WITHIN needs ORDER BY"),
    ("MATCH_RECOGNIZE (PATTERN (A) DEFINE A AS x > PREV(x, 0))", "offset is at least 1"),
    ("MATCH_RECOGNIZE (PATTERN (A B)", "unexpected end of input"),
    ("MATCH_RECOGNIZE (PATTERN (A) DEFINE A AS x >)", r"unexpected '\)'"),
    ("( ; ", "unexpected"),
])
def test_static_rules_and_syntax_errors(text: str, message: str) -> None:
    with pytest.raises(SyntaxErrorCER, match=message):
        parse(text)


def test_printed_text_is_flinks_clause_order_and_interval_units() -> None:
    q = parse("MATCH_RECOGNIZE (ORDER BY ts PATTERN (A B) WITHIN INTERVAL '120' SECOND "
              "DEFINE B AS B.x - 1 > LAST(A.x, 1) AND x IS NOT NULL)")
    assert format(q) == ("MATCH_RECOGNIZE (\n  ORDER BY ts\n  ONE ROW PER MATCH\n  AFTER MATCH SKIP PAST LAST ROW\n"
                         "  PATTERN (A B)\n  WITHIN INTERVAL '2' MINUTE\n"
                         "  DEFINE B AS B.x - 1 > LAST(A.x, 1) AND x IS NOT NULL\n)")
    assert q.within == 120
