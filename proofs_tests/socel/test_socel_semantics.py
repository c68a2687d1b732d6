"""SO-CEL(+) reference semantics (the SO-CEL paper, Table 1 and §2.1): the worked examples as exact oracles, and the
checkable laws and invariants as property tests."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.events import Event, Stream, Valuation
from cer_theory.core.predicates.ast import Attr, Cmp, Const
from cer_theory.formalisms.socel.ast import Atom, Filter, Formula, Order, Seq
from cer_theory.formalisms.socel.examples import sensor_stream
from cer_theory.formalisms.socel.parser import parse
from cer_theory.formalisms.socel.printer import format
from cer_theory.formalisms.socel.semantics import SoCelSemantics, complex_events, evaluate, rename
from cer_theory.testing.strategies.socel import CORE_OPERATORS, PLUS_OPERATORS, formulas, socel_streams

SENSOR = sensor_stream()  # the bundled cer_theory/examples/data/sensors.jsonl
FREEZING = "(T ; H+ IN HS ; H IN HH) FILTER T[value < 0] FILTER incr(HS.value) FILTER HH[value > 60]"
FREEZING_RENAMED = ("(T ; (H+ IN HS)[H -> HS] ; (H IN HH)[H -> HH]) FILTER T[value < 0] FILTER incr(HS.value) "
                    "FILTER HH[value > 60]")


def C(**labels: list[int]) -> Valuation:
    return Valuation(labels)


def at(text: str, types: str, n: int) -> frozenset[Valuation]:
    return complex_events(parse(text), Stream.from_types(" ".join(types)), n)


# ---------------------------------------------------------------------------------------------- §8 oracles


def test_the_bundled_sensor_stream_is_fig_1() -> None:
    """The SO-CEL paper, Fig. 1: T and H readings with attribute ``value``; the file must hold exactly these."""
    assert SENSOR == Stream([Event(t, value=v) for t, v in
                             [("T", -2), ("H", 30), ("H", 20), ("T", -1), ("H", 27), ("T", 2), ("H", 45),
                              ("H", 50), ("T", -2), ("H", 65)]])


def test_sensor_freezing_pattern_outputs_nothing_before_9_and_26_at_9() -> None:
    outs = evaluate(parse(FREEZING), SENSOR)
    assert all(not outs[n] for n in range(9))
    assert len(outs[9]) == 26
    assert C(T=[3], HS=[4, 6, 7], H=[4, 6, 7, 9], HH=[9]) in outs[9]
    assert C(T=[0], HS=[2, 4, 6, 7], H=[2, 4, 6, 7, 9], HH=[9]) in outs[9]
    # T = {0}: the 19 increasing non-empty subsets of {1,2,4,6,7}; T = {3}: the 7 non-empty subsets of {4,6,7}
    by_t = {t: sum(1 for c in outs[9] if c["T"] == {t}) for t in (0, 3)}
    assert by_t == {0: 19, 3: 7}
    assert all(c["HH"] == {9} and c["H"] == c["HS"] | {9} for c in outs[9])


def test_example_3_2_renaming_gives_the_same_26_outputs_without_label_H() -> None:
    plain = complex_events(parse(FREEZING), SENSOR, 9)
    renamed = complex_events(parse(FREEZING_RENAMED), SENSOR, 9)
    assert len(renamed) == 26
    assert all(set(c) == {"T", "HS", "HH"} for c in renamed)
    assert renamed == {c.restrict({"T", "HS", "HH"}) for c in plain}


def test_contiguity_oracles_on_RTRT() -> None:
    s = "RTRT"
    assert at("R ; T", s, 3) == {C(R=[0], T=[3]), C(R=[2], T=[3])}
    assert at("R : T", s, 3) == at("STRICT(R ; T)", s, 3) == {C(R=[2], T=[3])}
    three = {C(R=[0], T=[3]), C(R=[2], T=[3]), C(R=[0, 2], T=[1, 3])}
    assert at("(R ; T)+", s, 3) == at("(R ; T):+", s, 3) == three
    assert at("START(R ; T)", s, 3) == {C(R=[0], T=[3])}
    assert at("PI[R](R ; T)", s, 3) == {C(R=[0]), C(R=[2])}


def test_all_oracle_on_RTR() -> None:
    assert at("R ALL T", "RTR", 2) == {C(R=[2], T=[1])}


def test_unless_witness_of_cor_5_6() -> None:
    # R UNLESS T outputs {R↦{1}} at 1 on R R but not on T R, although (S1,{1}) =* (S2,{1}).
    assert C(R=[1]) in at("R UNLESS T", "RR", 1)
    assert at("R UNLESS T", "TR", 1) == frozenset()


def test_binary_universal_filter_compares_every_pair() -> None:
    # Thm 4.4's witness on R1 R2 T3 T1 (values of a): every A-value differs from every B-value.
    phi = parse("(R+ IN A ; T+ IN B) FILTER A.a != B.a")
    s = Stream([Event("R", a=1), Event("R", a=2), Event("T", a=3), Event("T", a=1)])
    assert complex_events(phi, s, 2) == {C(R=r, A=r, T=[2], B=[2]) for r in ([0], [1], [0, 1])}
    assert complex_events(phi, s, 3) == {C(R=[1], A=[1], T=t, B=t) for t in ([3], [2, 3])}


def test_order_predicates_are_strict_and_vacuous_on_one_tuple() -> None:
    s = Stream([Event("H", v=1), Event("H", v=1), Event("H", v=2), Event("H")])
    phi = Filter(Seq(Atom("H"), Atom("H")), Order("incr", "H", "v"))
    assert complex_events(phi, s, 2) == {C(H=[0, 2]), C(H=[1, 2])}  # 1 < 1 fails
    assert complex_events(phi, s, 3) == frozenset()  # a missing value fails the type guard
    assert complex_events(Filter(Atom("H"), Order("decr", "H", "v")), s, 3) == {C(H=[3])}


def test_universal_filter_is_vacuous_on_an_empty_label() -> None:
    phi = Filter(Atom("R"), Cmp(Attr("x", "B"), ">", Const(100)))
    assert complex_events(phi, Stream.from_types("R"), 0) == {C(R=[0])}


def test_renaming_composition_and_identity() -> None:
    c = C(A=[1], B=[2], D=[3])
    assert rename(c, "A", "A") == c
    assert rename(c, "A", "B") == C(B=[1, 2], D=[3])
    assert rename(rename(c, "A", "B"), "B", "D") == rename(rename(c, "A", "D"), "B", "D")


# ---------------------------------------------------------------------------------------------- §9 properties


@settings(max_examples=60)
@given(formulas(CORE_OPERATORS, unary=False), socel_streams(6))
def test_core_socel_outputs_contain_n_and_stay_in_the_prefix(phi: Formula, stream: Stream) -> None:
    """§2 facts for core SO-CEL: ``n ∈ supp(C)``, ``supp(C) ⊆ [0..n]`` and ``C ≠ C∅``."""
    for n, out in enumerate(evaluate(phi, stream)):
        for c in out:
            assert c and max(c.support()) == n


@settings(max_examples=40)
@given(formulas(CORE_OPERATORS, unary=False, max_depth=2), socel_streams(5), st.data())
def test_star_property_of_core_socel(phi: Formula, stream: Stream, data: st.DataObject) -> None:
    """TODS Prop 8.5, restated in the SO-CEL paper §5: every core SO-CEL formula (with any SO predicates that read only
    the labelled tuples in order, including incr/decr) has the *-property: compressing S to S[C] keeps C."""
    outs = evaluate(phi, stream)
    candidates = [(n, c) for n, out in enumerate(outs) for c in sorted(out, key=Valuation.sort_key)]
    if not candidates:
        return
    n, c = data.draw(st.sampled_from(candidates))
    pos = c.support().positions
    index = {p: k for k, p in enumerate(pos)}
    compressed = Stream([stream[p] for p in pos])
    c2 = Valuation({a: [index[p] for p in ps] for a, ps in c.items()})
    assert c2 in complex_events(phi, compressed, len(pos) - 1)


@settings(max_examples=40)
@given(formulas(PLUS_OPERATORS, max_depth=2), formulas(PLUS_OPERATORS, max_depth=2),
       formulas(PLUS_OPERATORS, max_depth=1), socel_streams(5))
def test_laws_of_section_9(phi: Formula, psi: Formula, chi: Formula, stream: Stream) -> None:
    """§9 laws: ; and : associative, OR distributes over ;, φ⊕ ⊆ φ+, STRICT(φ) ⊆ φ, START(φ) ⊆ φ,
    π_L(π_M φ) = π_{L∩M} φ, φ[A→B][B→C] = φ[A→C][B→C]."""
    sem = SoCelSemantics(stream)
    ev = lambda text, **f: sem.at(parse(text.format(**{k: f"({format(v)})" for k, v in f.items()})), len(stream) - 1)
    f = dict(a=phi, b=psi, c=chi)
    assert ev("({a} ; {b}) ; {c}", **f) == ev("{a} ; ({b} ; {c})", **f)
    assert ev("({a} : {b}) : {c}", **f) == ev("{a} : ({b} : {c})", **f)
    assert ev("({a} OR {b}) ; {c}", **f) == ev("({a} ; {c}) OR ({b} ; {c})", **f)
    assert ev("{a}:+", **f) <= ev("{a}+", **f)
    assert ev("STRICT({a})", **f) <= ev("{a}", **f)
    assert ev("START({a})", **f) <= ev("{a}", **f)
    assert ev("PI[A](PI[A,B]({a}))", **f) == ev("PI[A]({a})", **f)
    assert ev("{a}[A -> B][B -> R]", **f) == ev("{a}[A -> R][B -> R]", **f)


@settings(max_examples=40)
@given(formulas(CORE_OPERATORS, unary=False, max_depth=2), socel_streams(5), st.data())
def test_star_property_survives_inserting_and_mutating_unmarked_tuples(phi: Formula, stream: Stream,
                                                                         data: st.DataObject) -> None:
    """§9 claim 4: an output C of core SO-CEL persists (at max C') when an unmarked tuple is mutated or a tuple is
    inserted anywhere, the positions of C shifting along (the *-property's (b) with S' ⊇ S[C])."""
    outs = evaluate(phi, stream)
    candidates = [(n, c) for n, out in enumerate(outs) for c in sorted(out, key=Valuation.sort_key)]
    if not candidates:
        return
    n, c = data.draw(st.sampled_from(candidates))
    marked = c.support()
    new_event = data.draw(socel_streams(1))[0]
    events = list(stream[: n + 1])
    unmarked = [k for k in range(n + 1) if k not in marked]
    if unmarked and data.draw(st.booleans()):
        events[data.draw(st.sampled_from(unmarked))] = new_event
        assert c in complex_events(phi, Stream(events), n)
    else:
        at = data.draw(st.integers(0, n + 1))
        events.insert(at, new_event)
        shifted = Valuation({a: [p + (p >= at) for p in ps] for a, ps in c.items()})
        assert shifted in complex_events(phi, Stream(events), max(shifted.support()))
