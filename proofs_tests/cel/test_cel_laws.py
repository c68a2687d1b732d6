"""The law catalogue of CEL (the CEL paper): every law is proved by the decision procedure, every non-law refuted by a
stream that the reference semantics confirms, the laws' schemata hold for generated operands, and docs/laws.md
is exactly what the procedure produces today (so the page cannot go stale)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

from cer_theory.formalisms.cel.ast import Disj, Seq
from cer_theory.formalisms.cel.equivalence import equivalent
from cer_theory.formalisms.cel.laws import LAWS, NON_LAWS, catalogue_markdown, decide
from cer_theory.formalisms.cel.parser import parse
from cer_theory.formalisms.cel.printer import format
from cer_theory.formalisms.cel.semantics import complex_events, valuations
from cer_theory.testing.strategies.cel import formulas

DOC = Path(__file__).resolve().parents[2] / "docs" / "laws.md"
OPERANDS = formulas(relations=("R", "T"), variables=("A",), max_depth=2, attributes=("x",), values=(0, 1))


@pytest.mark.parametrize("law", LAWS, ids=[law.name for law in LAWS])
def test_law_is_proved(law) -> None:
    v = decide(law)
    assert v.holds, f"{law.statement()} ({law.source}) fails:\n{v}"
    assert v.explored > 0


@pytest.mark.parametrize("law", NON_LAWS, ids=[law.name for law in NON_LAWS])
def test_non_law_is_refuted_by_its_stream(law) -> None:
    v = decide(law)
    assert not v.holds, f"{law.statement()} was expected to fail"
    run = valuations if law.level == "valuations" else complex_events
    left = frozenset(run(parse(law.left), v.stream, v.position))
    right = frozenset(run(parse(law.right), v.stream, v.position))
    assert (v.output in left, v.output in right) == (v.in_left, v.in_right) and v.in_left != v.in_right
    if law.relation == "⊆":
        assert v.in_left


@settings(max_examples=15, deadline=None)
@given(OPERANDS, OPERANDS, OPERANDS)
def test_associativity_and_distributivity_hold_for_generated_operands(a, b, c) -> None:
    """The laws' schemata, not just their instances over atoms (Fig. 3)."""
    shown = f"φ1 = {format(a)}, φ2 = {format(b)}, φ3 = {format(c)}"
    assert equivalent(Seq(Seq(a, b), c), Seq(a, Seq(b, c))).holds, shown
    assert equivalent(Seq(a, Disj(b, c)), Disj(Seq(a, b), Seq(a, c))).holds, shown


def test_laws_doc_is_generated_from_the_procedure() -> None:
    assert DOC.read_text(encoding="utf-8") == catalogue_markdown() + "\n", (
        "docs/laws.md is stale: regenerate it with python -c \"from cer_theory.formalisms.cel.laws import "
        "catalogue_markdown; open('docs/laws.md', 'w').write(catalogue_markdown() + '\\n')\"")
