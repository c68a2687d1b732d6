"""CEA (the CEL paper, Defs. 5.1, 5.2, 5.4): validation, run semantics, I/O-determinism, drawings."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.automata.cea import CEA, Transition
from cer_theory.formalisms.cel.compile import compile_automaton
from cer_theory.automata.determinize.eager import io_determinize
from cer_theory.core.errors import AutomatonError, SizeBudgetExceeded, UnsupportedError
from cer_theory.core.events import Stream, Valuation
from cer_theory.examples.running_example import example_5_3_cea
from cer_theory.core.predicates import TRUE, Attr, Cmp, cmp, is_type
from cer_theory.formalisms.cel.parser import parse
from cer_theory.testing.strategies import formulas, streams


def test_validation_rejects_bad_automata() -> None:
    with pytest.raises(AutomatonError, match="unknown state"):
        CEA([0], [(0, TRUE, (), 1)], [0], [0])
    with pytest.raises(AutomatonError, match="initial states"):
        CEA([0], [], [1], [0])
    with pytest.raises(AutomatonError, match="unary"):
        CEA([0], [(0, Cmp(Attr("id", "H"), "=", Attr("id", "T")), (), 0)], [0], [0])
    with pytest.raises(AutomatonError, match="Predicate"):
        CEA([0], [(0, "R", (), 0)], [0], [0])
    with pytest.raises(AutomatonError, match="transition is"):
        CEA([0], [(0, TRUE)], [0], [0])


def test_cea_is_an_immutable_value() -> None:
    a, b = example_5_3_cea(), example_5_3_cea()
    assert a == b and hash(a) == hash(b) and a.size == 3 + 5
    with pytest.raises(AttributeError):
        a.final = frozenset()  # type: ignore[misc]
    assert a.relabel_states().run(Stream.from_types("H T H")) == a.run(Stream.from_types("H T H"))


def test_run_needs_at_least_one_transition_and_reads_everything() -> None:
    """Def. 5.2: a run reads t0..tn; an initial state that is final accepts nothing before reading."""
    a = CEA(["p"], [("p", is_type("R"), {"R"}, "p")], ["p"], ["p"])
    assert a.run(Stream.from_types("R T R")) == [{Valuation({"R": [0]})}, frozenset(), frozenset()]


@settings(max_examples=150)
@given(formulas(selection=False, max_depth=3), streams(max_length=5))
def test_configurations_agree_with_explicit_runs(phi, stream) -> None:
    """The set-of-configurations run semantics equals enumerating the accepting runs one by one."""
    a = compile_automaton(phi)
    n = len(stream) - 1
    runs = list(a.accepting_runs(stream, n, limit=10**6))
    from_runs = {Valuation({v: [k for k, t in enumerate(r) if v in t.labels] for v in a.variables()})
                 for r in runs}
    assert from_runs == a.valuations(stream, n)


def test_io_determinism_definition_5_4() -> None:
    assert example_5_3_cea().is_io_deterministic()
    x_small, x_pos = cmp("x", "<", 3), cmp("x", ">", 1)
    overlapping = CEA([0, 1], [(0, x_small, {"A"}, 1), (0, x_pos, {"A"}, 0)], [0], [1])
    assert not overlapping.is_io_deterministic() and len(overlapping.io_determinism_violations()) == 1
    disjoint = CEA([0, 1], [(0, cmp("x", "<", 1), {"A"}, 1), (0, x_pos, {"A"}, 0)], [0], [1])
    assert disjoint.is_io_deterministic()
    other_labels = CEA([0, 1], [(0, x_small, {"A"}, 1), (0, x_pos, {"B"}, 0)], [0], [1])
    assert other_labels.is_io_deterministic()
    two_initial = CEA([0, 1], [], [0, 1], [1])
    assert not two_initial.is_io_deterministic()


@settings(max_examples=120)
@given(formulas(selection=False, max_depth=3), st.lists(streams(max_length=6), min_size=1, max_size=3))
def test_prop_5_5_io_determinization_is_equivalent_and_io_deterministic(phi, streams_) -> None:
    a = compile_automaton(phi)
    d = io_determinize(a, budget=5000)
    assert d.is_io_deterministic()
    for s in streams_:
        assert d.run(s) == a.run(s)


def test_determinization_budget_raises_a_clear_error() -> None:
    a = compile_automaton(parse("(R ; T)+ ; (T ; R)+ ; U"))
    with pytest.raises(SizeBudgetExceeded, match="size budget of 3 states exceeded"):
        io_determinize(a, budget=3)


def test_selection_strategies_are_not_compiled_by_theorem_6_2() -> None:
    with pytest.raises(UnsupportedError, match="Theorem 7.2"):
        compile_automaton(parse("MAX(R ; T)"))


def test_transition_labels_and_listing() -> None:
    t = Transition(0, is_type("H") & cmp("id", "=", 0), frozenset({"H", "X"}), 1)
    assert t.label() == 'H ∧ id=0 / {H,X}' and t.marking
    assert "  q1 --⊤ / ∅--> q1\n" in example_5_3_cea().describe() + "\n"  # states as drawn, not as reprs


def test_networkx_view() -> None:
    g = example_5_3_cea().to_networkx()
    assert g.number_of_nodes() == 3 and g.number_of_edges() == 5
    assert g.nodes["q1"]["initial"] and g.nodes["q3"]["final"]


def test_dot_and_svg_drawing() -> None:
    a = compile_automaton(parse("(T ; H) FILTER (T.tmp > 40 AND H.id = 0)"))
    dot = a.to_dot()
    assert dot.startswith("digraph") and "doublecircle" in dot and "T ∧ tmp>40 / {T}" in dot
    svg = a.to_svg()  # the dot program, or Graphviz in WebAssembly: drawings work on every machine
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "T ∧ tmp&gt;40 / {T}" in svg
    bundle = a._repr_mimebundle_()
    assert bundle == {"image/svg+xml": svg, "text/plain": a.describe()}


def test_drawing_merges_parallel_transitions_unless_asked_not_to() -> None:
    q = CEA(["p", "q"], [("p", is_type("R"), {"x"}, "q"), ("p", is_type("S"), {"x"}, "q"),
                         ("p", is_type("T"), set(), "q")], ["p"], ["q"], name="par")
    merged, exact = q.to_dot(), q.to_dot(merge=False)
    assert '"R ∨ S / {x}\\nT / ∅"' in merged
    assert '"R / {x}\\nS / {x}\\nT / ∅"' in exact
    named = q.to_dot(state_names={"p": "start", "q": "end"}, title="a title")
    assert 'label="start", shape=circle' in named and 'label="end", shape=doublecircle' in named
    assert 'label="a title"' in named and named.count("start0 -> q0") == 1


@settings(max_examples=100)
@given(formulas(selection=False, max_depth=3), streams(max_length=6))
def test_trimmed_compilation_is_equivalent_and_no_larger(phi, stream) -> None:
    full, trimmed = compile_automaton(phi), compile_automaton(phi, trim=True)
    assert trimmed.run(stream) == full.run(stream)
    assert len(trimmed.states) <= len(full.states)
    assert trimmed.reachable() == trimmed.states and trimmed.coreachable() == trimmed.states or not trimmed.states
