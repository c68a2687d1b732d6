"""Theorem 6.3 / Corollary 6.4 and Theorem 8.9 (the CEL paper): CEA → unary CEL back-translations.

* Thm 6.3 (with the Z fix of docs/errata.md, D13): ``⟦cea_to_cel(A)⟧ᵛ_n(S) = ⟦A⟧ᵛ_n(S)`` on random
  2–3-state CEAs and streams of length ≤ 4, also through the Theorem 6.2 compiler
  (``compile_automaton(cea_to_cel(A)) ≡_v A``); the formula uses only IN, FILTER, ``:``, ``⊕``, π, START and OR (Cor 6.4).
* The printed construction (no Z) fails on the counterexample of docs/errata.md; the fixed one does not.
* Thm 8.9: ``⟦cea_to_cel_star(A)⟧_n(S) = ⟦A⟧*_n(S)`` at the complex-event level, and the valuation level fails
  on the paper's renaming example.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.automata.cea import CEA
from cer_theory.formalisms.cel.to_cel import (CEL_STAR_OPERATORS, COR_6_4_OPERATORS, cea_to_cel,
                                                 cea_to_cel_printed, cea_to_cel_star, default_relations,
                                                 formula_size)
from cer_theory.formalisms.cel.compile import compile_automaton
from cer_theory.core.errors import SizeBudgetExceeded
from cer_theory.core.events import ComplexEvent, Event, Stream, Valuation
from cer_theory.core.predicates.ast import TRUE, cmp, is_type
from cer_theory.formalisms.cel.semantics import CelSemantics
from cer_theory.formalisms.cel.star_property import star_run, star_run_complex_events
from cer_theory.formalisms.cel.ast import Formula, In
from cer_theory.formalisms.cel.parser import parse
from cer_theory.testing.strategies.automata import random_ceas
from cer_theory.testing.harness import first_mismatch, to_complex_events
from cer_theory.testing.strategies import streams

SCHEMA = ("R", "T", "U", "V")  # the types of testing.strategies.streams()


def _nodes(phi: Formula) -> list[Formula]:
    """The distinct subformula objects of a DAG-shaped formula (``walk`` would be exponential)."""
    seen: dict[int, Formula] = {}
    stack = [phi]
    while stack:
        f = stack.pop()
        if id(f) not in seen:
            seen[id(f)] = f
            stack.extend(f.children())
    return list(seen.values())


def _sem(phi: Formula, stream: Stream) -> list[frozenset[Valuation]]:
    sem = CelSemantics(stream)
    return [sem.at(phi, n) for n in range(len(stream))]


# ---------------------------------------------------------------------------------------------- Theorem 6.3


@settings(max_examples=150)
@given(random_ceas(min_states=2, max_states=3), st.lists(streams(max_length=4), min_size=2, max_size=2))
def test_theorem_6_3_valuation_equivalence(cea: CEA, streams_: list[Stream]) -> None:
    """Thm 6.3 (fixed) + Cor 6.4: ⟦φ_A⟧ᵛ_n(S) = ⟦A⟧ᵛ_n(S), and φ_A uses only IN FILTER : ⊕ π START OR."""
    phi = cea_to_cel(cea, SCHEMA)
    assert all(isinstance(node, COR_6_4_OPERATORS) for node in _nodes(phi))
    for stream in streams_:
        mismatch = first_mismatch(f"cea_to_cel of\n{cea.describe()}", stream, cea.run(stream),
                                  _sem(phi, stream), level="valuations", reference="CEA", candidate="φ_A")
        assert mismatch is None, str(mismatch)


@settings(max_examples=80)
@given(random_ceas(min_states=2, max_states=3), streams(max_length=4))
def test_theorem_6_3_round_trip_through_theorem_6_2(cea: CEA, stream: Stream) -> None:
    """compile_automaton(cea_to_cel(A)) ≡_v A on the stream (Theorems 6.2 and 6.3 composed)."""
    back = compile_automaton(cea_to_cel(cea, SCHEMA))
    mismatch = first_mismatch(f"compile_automaton(cea_to_cel(A)) of\n{cea.describe()}", stream, cea.run(stream),
                              back.run(stream), level="valuations", reference="A", candidate="round trip")
    assert mismatch is None, str(mismatch)


def _erratum_cea() -> CEA:
    """The counterexample to the printed Theorem 6.3 (docs/errata.md; docs/decisions.md D13)."""
    return CEA(["p", "q"], [("p", TRUE, (), "p"), ("p", is_type("R"), {"A"}, "q")], ["p"], ["q"])


def test_theorem_6_3_erratum_oracle() -> None:
    """On ``T R`` the CEA outputs {A↦{1}} at n=1; the fixed formula too; the printed one outputs ∅."""
    cea, stream = _erratum_cea(), Stream.from_types("T R")
    expected = [frozenset(), frozenset([Valuation.single("A", [1])])]
    assert cea.run(stream) == expected
    assert _sem(cea_to_cel(cea, ["R", "T"]), stream) == expected
    assert _sem(cea_to_cel_printed(cea, ["R", "T"]), stream) == [frozenset(), frozenset()]


def test_theorem_6_3_printed_is_right_without_empty_labels() -> None:
    """The printed construction only loses runs through ∘-transitions: on an all-marking CEA it agrees."""
    cea = CEA([0, 1], [(0, TRUE, {"A"}, 0), (0, is_type("R"), {"B"}, 1)], [0], [1])
    stream = Stream.from_types("T R T R")
    assert _sem(cea_to_cel_printed(cea, ["R", "T"]), stream) == cea.run(stream)
    assert cea.run(stream)[3] == frozenset([Valuation({"A": [0, 1, 2], "B": [3]})])


def test_theorem_6_3_default_schema_covers_other_types() -> None:
    """Default relations = mentioned types + a fresh one; a stream with types renamed into that schema agrees.
    A type outside the relations matches no atom, so the ∘-loop over it is lost: the schema condition is needed."""
    cea = CEA([0, 1], [(0, TRUE, (), 0), (0, is_type("R") & cmp("x", "<", 2), {"A"}, 1)], [0], [1])
    rels = default_relations(cea)
    assert rels == ("R", "Other")
    phi = cea_to_cel(cea)
    inside = Stream([Event("Other"), Event("R", x=1), Event("Other", x=0), Event("R", x=0)])
    assert _sem(phi, inside) == cea.run(inside)
    assert cea.run(inside)[3] == frozenset([Valuation.single("A", [3])])
    outside = Stream([Event("V"), Event("R", x=1)])
    assert cea.run(outside)[1] and not _sem(phi, outside)[1]


def test_theorem_6_3_output_prints_as_parseable_cel() -> None:
    phi = cea_to_cel(_erratum_cea(), ["R", "T"])
    assert parse(str(phi)) == phi


def test_theorem_6_3_size_budget() -> None:
    """The formula is up to 4^|Q| nodes: the budget is enforced on the printed size."""
    cea = CEA(range(4), [(p, TRUE, (), q) for p in range(4) for q in range(4)], [0], [3])
    phi = cea_to_cel(cea, ["R"])
    assert formula_size(phi) > 1000 and len(_nodes(phi)) < formula_size(phi)
    with pytest.raises(SizeBudgetExceeded):
        cea_to_cel(cea, ["R"], budget=1000)
    with pytest.raises(SizeBudgetExceeded):
        cea_to_cel_star(CEA(range(4), [(p, TRUE, {"A"}, q) for p in range(4) for q in range(4)], [0], [3]),
                        ["R"], budget=1000)


def test_theorem_6_3_no_accepting_run_gives_false() -> None:
    cea = CEA([0, 1], [(0, TRUE, {"A"}, 0)], [0], [1])
    stream = Stream.from_types("R R")
    assert _sem(cea_to_cel(cea, ["R"]), stream) == [frozenset(), frozenset()]
    assert _sem(cea_to_cel_star(cea, ["R"]), stream) == [frozenset(), frozenset()]


# ---------------------------------------------------------------------------------------------- Theorem 8.9


@settings(max_examples=150)
@given(random_ceas(min_states=2, max_states=3), st.lists(streams(max_length=5), min_size=2, max_size=2))
def test_theorem_8_9_star_semantics_back_translation(cea: CEA, streams_: list[Stream]) -> None:
    """Thm 8.9 (⇐): ⟦φ_A⟧_n(S) = ⟦A⟧*_n(S) at the CE level; φ_A is unary CEL* (R, IN, FILTER, ;, +, OR)."""
    phi = cea_to_cel_star(cea, SCHEMA)
    assert all(isinstance(node, CEL_STAR_OPERATORS) for node in _nodes(phi))
    for stream in streams_:
        mismatch = first_mismatch(f"cea_to_cel_star of\n{cea.describe()}", stream,
                                  star_run_complex_events(cea, stream), to_complex_events(_sem(phi, stream)),
                                  level="complex events", reference="⟦A⟧*", candidate="φ_A")
        assert mismatch is None, str(mismatch)


def test_theorem_8_9_renaming_example_fails_at_valuation_level() -> None:
    """The CEL paper after Thm 8.9: A = ({p,q}, {(p, tuples(R), {T}, q)}, {p}, {q}) with T ∉ ℛ outputs {T↦{n}};
    the closest CEL* formula ``R IN T`` also binds R. Both agree on complex events."""
    cea = CEA(["p", "q"], [("p", is_type("R"), {"T"}, "q")], ["p"], ["q"])
    stream = Stream.from_types("U R")
    assert star_run(cea, stream) == [frozenset(), frozenset([Valuation.single("T", [1])])]
    closest = In(parse("R"), "T")
    assert _sem(closest, stream)[1] == frozenset([Valuation({"R": [1], "T": [1]})])
    back = cea_to_cel_star(cea, ["R", "U"])
    assert to_complex_events(_sem(back, stream)) == star_run_complex_events(cea, stream) == \
        [frozenset(), frozenset([ComplexEvent([1])])]
    assert _sem(back, stream)[1] != star_run(cea, stream)[1]
    # Under the normal semantics the single-transition run cannot skip position 0.
    assert cea.run(stream) == [frozenset(), frozenset()]
