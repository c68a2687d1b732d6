"""Equivalence and containment of unary CEL (the CEL paper): soundness both ways, shortest streams, bad input.

* "equivalent" ⇒ the reference semantics (Fig. 3) agree at every position of every stream of length ≤ 3 over
  the witness alphabet (one event per type of both automata's predicates: exhaustive up to that bound);
* a distinguishing stream ⇒ replaying it through the semantics shows the stated output at the stated position
  on one side only (the verdict also replays it itself);
* the stream is shortest: brute force over all shorter streams of the alphabet finds no difference;
* containment is consistent with equivalence (≡ iff ⊆ both ways), and the complex-event level is coarser.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.automata.equivalence import DistinguishingWord, certify, compare
from cer_theory.core.errors import SizeBudgetExceeded, SyntaxErrorCER, UnsupportedError
from cer_theory.core.events import Event, Stream
from cer_theory.core.predicates.solver import minterms, witness
from cer_theory.formalisms.cel.ast import Atom, Disj, Formula, Seq
from cer_theory.formalisms.cel.equivalence import automaton, contained, equivalent, parse_schema, schema_domain
from cer_theory.formalisms.cel.printer import format
from cer_theory.formalisms.cel.semantics import complex_events, valuations
from cer_theory.testing.strategies.cel import formulas

SMALL = formulas(relations=("R", "T"), variables=("A",), max_depth=2, attributes=("x",), values=(0, 1))


def _alphabet(phi: Formula, psi: Formula) -> list[Event]:
    """One witness event per type of the predicates of both automata: every stream is, for both formulas,
    indistinguishable from one over this alphabet."""
    preds = tuple(dict.fromkeys(automaton(phi).predicates() + automaton(psi).predicates()))
    return [witness(m.predicate) for m in minterms(preds)]


def _outputs(phi: Formula, stream: Stream, n: int, level: str) -> frozenset:
    return frozenset(valuations(phi, stream, n) if level == "valuations" else complex_events(phi, stream, n))


def _first_difference(phi: Formula, psi: Formula, max_length: int, level: str, *, contained: bool = False):
    """Brute force: the shortest stream over the alphabet where the outputs differ at its last position."""
    alphabet = _alphabet(phi, psi)
    for length in range(1, max_length + 1):
        for events in itertools.product(alphabet, repeat=length):
            s = Stream(events)
            a, b = _outputs(phi, s, length - 1, level), _outputs(psi, s, length - 1, level)
            if (not a <= b) if contained else a != b:
                return s
    return None


@st.composite
def pairs(draw: st.DrawFn) -> tuple[Formula, Formula]:
    """Pairs that are often equivalent (a formula and a known-equivalent variant) and often not."""
    phi = draw(SMALL)
    kind = draw(st.sampled_from(["same", "or-self", "random", "random", "assoc"]))
    if kind == "same":
        return phi, phi
    if kind == "or-self":
        return phi, Disj(phi, phi)
    if kind == "assoc":
        a, b = draw(SMALL), draw(SMALL)
        return Seq(Seq(phi, a), b), Seq(phi, Seq(a, b))
    return phi, draw(SMALL)


def _show(phi: Formula, psi: Formula) -> str:
    return f"φ = {format(phi)}, ψ = {format(psi)}"


@settings(max_examples=40, deadline=None)
@given(pairs(), st.sampled_from(["valuations", "complex_events"]))
def test_equivalence_is_sound_both_ways(pair: tuple[Formula, Formula], level: str) -> None:
    phi, psi = pair
    v = equivalent(phi, psi, level=level)
    if v.holds:
        found = _first_difference(phi, psi, 3, level)
        assert found is None, f"{_show(phi, psi)} said equivalent, but they differ on {found!r}"
    else:
        assert v.stream is not None and v.position == len(v.stream) - 1
        a, b = _outputs(phi, v.stream, v.position, level), _outputs(psi, v.stream, v.position, level)
        assert (v.output in a) != (v.output in b), f"{_show(phi, psi)}: {v}"
        assert (v.output in a) == v.in_left and a == v.left_outputs and b == v.right_outputs


@settings(max_examples=25, deadline=None)
@given(pairs())
def test_distinguishing_stream_is_shortest(pair: tuple[Formula, Formula]) -> None:
    phi, psi = pair
    v = equivalent(phi, psi)
    if v.holds:
        return
    assert v.stream is not None
    shorter = _first_difference(phi, psi, min(len(v.stream) - 1, 3), "valuations")
    assert shorter is None, f"{_show(phi, psi)}: {shorter!r} is shorter than the verdict's\n{v}"
    if len(v.stream) <= 3:  # and brute force finds one of the same length
        found = _first_difference(phi, psi, len(v.stream), "valuations")
        assert found is not None and len(found) == len(v.stream)


@settings(max_examples=25, deadline=None)
@given(pairs())
def test_containment_is_sound_and_consistent(pair: tuple[Formula, Formula]) -> None:
    phi, psi = pair
    forward, backward = contained(phi, psi), contained(psi, phi)
    assert equivalent(phi, psi).holds == (forward.holds and backward.holds), _show(phi, psi)
    if forward.holds:
        assert _first_difference(phi, psi, 3, "valuations", contained=True) is None, _show(phi, psi)
    else:
        assert forward.in_left and not forward.in_right, str(forward)
        shorter = _first_difference(phi, psi, min(len(forward.stream) - 1, 3), "valuations", contained=True)
        assert shorter is None, f"{_show(phi, psi)}: {shorter!r} is shorter"


@settings(max_examples=25, deadline=None)
@given(pairs())
def test_valuation_equivalence_implies_complex_event_equivalence(pair: tuple[Formula, Formula]) -> None:
    phi, psi = pair
    if equivalent(phi, psi).holds:
        assert equivalent(phi, psi, level="complex_events").holds, _show(phi, psi)


def test_levels_differ_on_renamed_variables() -> None:
    """``R IN A`` and ``R IN B`` output the same complex events but different valuations."""
    assert equivalent("R IN A", "R IN B", level="complex_events").holds
    v = equivalent("R IN A", "R IN B")
    assert not v.holds and v.position == 0 and v.output.to_json() in ({"A": [0], "R": [0]}, {"B": [0], "R": [0]})


def test_oracle_seq_versus_contiguous_sequence() -> None:
    v = equivalent("R ; T", "R : T")
    assert not v.holds
    assert [e.type for e in v.stream] == ["R", "R", "T"]
    assert len(v.stream) == 3 and v.in_left and v.output.to_json() == {"R": [0], "T": [2]}


def test_proof_object_reports_the_product() -> None:
    v = equivalent("R ; (T ; R)", "(R ; T) ; R")
    assert v.holds and v.explored > 0 and v.alphabet > 0 and v.stream is None
    assert "equivalent to" in v.explanation()


def test_witness_events_are_concrete_and_minimal() -> None:
    v = equivalent("R FILTER R.x > 5", "R FILTER R.x > 6")
    assert not v.holds and len(v.stream) == 1
    assert v.stream[0].type == "R" and v.stream[0]["x"] == 6 and set(v.stream[0].attributes) == {"x"}


def test_n_ary_filters_are_unsupported_with_a_reason() -> None:
    with pytest.raises(UnsupportedError, match="n-ary filter.*unary"):
        equivalent("(R ; T) FILTER R.x = T.x", "R ; T")


def test_schema_mismatch_is_reported() -> None:
    schema = parse_schema("R(x) T(x)")
    assert equivalent("R FILTER (R.x > 1 AND R.x < 5)", "R FILTER (R.x < 5 AND R.x > 1)", schema=schema).holds
    with pytest.raises(UnsupportedError, match="event type U.*not in the schema"):
        equivalent("R ; U", "R", schema=schema)
    with pytest.raises(UnsupportedError, match="attribute y"):
        equivalent("R", "R FILTER R.y = 1", schema=schema)
    with pytest.raises(SyntaxErrorCER):
        parse_schema("T(id, tmp) (")


def test_product_budget_has_a_clear_message() -> None:
    # (R OR T)+ ; R ; (R OR T) ; … : the k-th-from-last pattern, whose subset automaton has 2^k states
    k = 6
    phi = "(R OR T)+ ; R" + " ; (R OR T)" * k
    with pytest.raises(SizeBudgetExceeded, match="equivalence product: size budget of 10 states exceeded"):
        equivalent(phi, phi + " ; R", budget=10)


def test_compare_rejects_unknown_levels() -> None:
    a = automaton(Seq(Atom("R"), Atom("T")))
    with pytest.raises(UnsupportedError, match="unknown output level"):
        compare(a, a, level="matches")  # type: ignore[arg-type]


def test_distinguishing_word_draws_its_path() -> None:
    result = compare(automaton(Seq(Atom("R"), Atom("T"))), automaton(Atom("T")))
    assert isinstance(result, DistinguishingWord)
    dot = result.diagram("φ", "ψ").to_dot()
    assert dot.count("->") >= len(result.types) and "shortest distinguishing word" in dot


@settings(max_examples=20, deadline=None)
@given(pairs(), st.booleans())
def test_proofs_are_certified_independently(pair: tuple[Formula, Formula], sub: bool) -> None:
    """A "holds" answer carries the explored product; it is an invariant (closed, agreeing) by a separate check,
    and removing any pair breaks it."""
    phi, psi = pair
    a, b = automaton(phi), automaton(psi)
    result = compare(a, b, contained=sub)
    if isinstance(result, DistinguishingWord):
        return
    assert certify(a, b, result) and len(result.pairs) == result.explored, _show(phi, psi)
    assert not certify(a, b, replace(result, pairs=frozenset()))


# ---------------------------------------------------------------------------------------------- over a schema

SCHEMAS = [{"R": ("x",), "T": ()}, {"R": (), "T": ("x",)}, {"R": ("x",), "T": ("x",), "U": ()}]


def _schema_alphabet(phi: Formula, psi: Formula, schema) -> list[Event]:
    """One witness per type of both automata's predicates that the schema's events can have."""
    preds = tuple(dict.fromkeys(automaton(phi).predicates() + automaton(psi).predicates()))
    domain = schema_domain(schema, ("x",))
    return [witness(m.predicate) for m in minterms((*preds, domain)) if m.signs[-1]]


@settings(max_examples=40, deadline=None)
@given(pairs(), st.sampled_from(SCHEMAS))
def test_over_a_schema_the_distinguishing_stream_keeps_to_it_and_equivalence_is_sound(pair, schema) -> None:
    """The CEL paper fixes the schema and quantifies over its streams: with ``schema`` the witness search stays inside
    it (types and each relation's attributes), and "equivalent" means no stream of the schema tells them apart."""
    phi, psi = pair
    try:
        v = equivalent(phi, psi, schema=schema)
    except UnsupportedError:
        return  # a formula outside the schema's vocabulary (tested above)
    if v.holds:
        alphabet = _schema_alphabet(phi, psi, schema)
        for length in range(1, 4):
            for events in itertools.product(alphabet, repeat=length):
                s = Stream(events)
                assert _outputs(phi, s, length - 1, "valuations") == _outputs(psi, s, length - 1, "valuations"), \
                    f"{_show(phi, psi)} said equivalent over {schema}, but they differ on {s!r}"
    else:
        assert all(e.type in schema and set(e.attributes) <= set(schema[e.type]) for e in v.stream), \
            f"{_show(phi, psi)} over {schema}: {v.stream!r} leaves the schema"


def test_theorem_6_3_round_trip_is_equivalent_over_its_schema() -> None:
    """The audit's case: to-cel of φ1 over the relations H, T against φ1, with the schema H(id,hum) T(id,tmp),
    was "not equivalent" with a stream holding an event of type A. Over the schema's streams they are equivalent;
    over all streams they are not (the back-translation's ANY is the OR of the schema's relations: the CEL paper
    Theorem 6.3 fixes the schema), and the stream that shows it has an event of another type."""
    from cer_theory.examples.running_example import FORMULAS
    from cer_theory.formalisms.cel.parser import parse
    from cer_theory.formalisms.cel.to_cel import cea_to_cel

    phi1 = parse(FORMULAS["φ1"])
    back = cea_to_cel(automaton(phi1), relations=("H", "T"))
    schema = parse_schema("H(id,hum) T(id,tmp)")
    assert equivalent(phi1, back, schema=schema).holds
    outside = equivalent(phi1, back)
    assert not outside.holds and any(e.type not in schema for e in outside.stream)
