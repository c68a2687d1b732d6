"""The checkable claims of the ACEL paper on ACEL's semantics, as property tests named after them: Thm 3.1 (the old
position semantics of the CEL paper equals the new event semantics once bags are collapsed to sets), the algebraic
laws of the new semantics, the shape of every output, and Lemma 4.1's monoids behind ``Agg``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.aggregates import NULL, Aggregator, aggregator, register_aggregator
from cer_theory.core.events import Event, Stream, Valuation
from cer_theory.core.predicates.ast import And as PAnd
from cer_theory.formalisms.acel import ast as A
from cer_theory.formalisms.acel.parser import parse
from cer_theory.formalisms.acel.semantics import complex_events
from cer_theory.formalisms.cel import ast as C
from cer_theory.formalisms.cel.semantics import evaluate as cel_evaluate
from cer_theory.testing.strategies.acel import CEL_OPERATORS, acel_streams, formulas


def to_cel(phi: A.Formula) -> C.Formula:
    """The same formula in the CEL paper's CEL AST (the operators both languages share)."""
    if isinstance(phi, A.Atom):
        return C.Atom(phi.name)
    if isinstance(phi, A.As):
        return C.In(to_cel(phi.body), phi.var)
    if isinstance(phi, A.Filter):
        return C.Filter(to_cel(phi.body), phi.condition)  # type: ignore[arg-type]
    if isinstance(phi, A.Proj):
        return C.Proj(to_cel(phi.body), phi.variables)
    unary = {A.Plus: C.Plus, A.CPlus: C.CPlus}
    if type(phi) in unary:
        return unary[type(phi)](to_cel(phi.body))  # type: ignore[attr-defined]
    binary = {A.Disj: C.Disj, A.Conj: C.Conj, A.Seq: C.Seq, A.Contig: C.Contig}
    return binary[type(phi)](to_cel(phi.left), to_cel(phi.right))  # type: ignore[attr-defined]


def collapsed(c) -> Valuation:
    """A complex event's bags collapsed to sets of positions (Thm 3.1's (a) and (b))."""
    return Valuation({x: {e.time for e in b} for x, b in c.bags})


@settings(max_examples=80)
@given(formulas(CEL_OPERATORS), acel_streams(), st.sampled_from(["bag", "set"]))
def test_thm_3_1_old_position_semantics_equals_new_event_semantics_collapsed_to_sets(phi, stream, bind) -> None:
    """The ACEL paper Thm 3.1: for CEL formulas (no Agg, no attribute projection, no π: see docs/errata.md), the outputs of
    the CEL paper's semantics at each n are the new outputs ending at n with bags collapsed to sets of positions, and each
    new interval is [min, max] of its positions."""
    new = complex_events(phi, stream, bind)
    old = cel_evaluate(to_cel(phi), stream)
    got = {(c.end, collapsed(c)) for c in new}
    want = {(n, m) for n, vals in enumerate(old) for m in vals}
    assert got == want, f"φ = {phi}\nS = {stream}\nnew = {sorted(map(str, got))}\nold = {sorted(map(str, want))}"
    for c in new:
        times = [e.time for _, b in c.bags for e in b]
        assert (c.start, c.end) == (min(times), max(times))


def test_thm_3_1_needs_the_projection_free_fragment() -> None:
    """With π under AND, the old semantics forgets where the projected-away part started: π_∅(R) AND π_∅(T ; R)
    holds in the CEL paper's semantics at the R, while the new complex events differ in their start."""
    phi = parse("PI[](R) AND PI[](T ; R)")
    stream = Stream.from_types("T R")
    assert complex_events(phi, stream) == frozenset()
    assert cel_evaluate(to_cel(phi), stream)[1] == frozenset([Valuation()])


small = formulas(max_depth=2)


@settings(max_examples=60)
@given(small, small, small, acel_streams())
def test_algebraic_laws_OR_AND_commutative_associative_and_sequencing_associative(f, g, h, s) -> None:
    sem = lambda phi: complex_events(phi, s)  # noqa: E731
    assert sem(A.Disj(f, g)) == sem(A.Disj(g, f)) and sem(A.Conj(f, g)) == sem(A.Conj(g, f))
    assert sem(A.Disj(A.Disj(f, g), h)) == sem(A.Disj(f, A.Disj(g, h)))
    assert sem(A.Conj(A.Conj(f, g), h)) == sem(A.Conj(f, A.Conj(g, h)))
    for op in (A.Seq, A.Contig):
        assert sem(op(op(f, g), h)) == sem(op(f, op(g, h))), f"{op.__name__} not associative on {f}, {g}, {h}"


@settings(max_examples=80)
@given(small, acel_streams(), st.sampled_from(("X", "R")), st.integers(0, 2), st.integers(0, 2))
def test_algebraic_laws_filters_compose_and_projections_intersect(f, s, var, a, b) -> None:
    p1, p2 = parse(f"R FILTER {var}.x >= {a}").condition, parse(f"R FILTER {var}.x != {b}").condition
    sem = lambda phi: complex_events(phi, s)  # noqa: E731
    assert sem(A.Filter(A.Filter(f, p1), p2)) == sem(A.Filter(f, PAnd((p1, p2))))
    for L, M in ((("X", "R"), ("R", "T")), (("X",), ()), (("Y", "T"), ("T", "X", "Y"))):
        inner = tuple(sorted(set(L) & set(M)))
        assert sem(A.Proj(A.Proj(f, M), L)) == sem(A.Proj(f, inner))
        assert len(sem(A.Proj(f, L))) <= len(sem(f))  # π can only merge outputs (E5)


@settings(max_examples=80)
@given(small, acel_streams())
def test_algebraic_laws_iterations_contain_their_body_and_cplus_is_within_plus(f, s) -> None:
    body, plus, cplus = (complex_events(phi, s) for phi in (f, A.Plus(f), A.CPlus(f)))
    assert body <= cplus <= plus


@settings(max_examples=50)
@given(formulas(), acel_streams(), st.sampled_from(["bag", "set"]))
def test_every_output_has_start_le_end_and_its_events_inside_the_interval(phi, s, bind) -> None:
    for c in complex_events(phi, s, bind):
        assert c.start <= c.end
        assert all(c.start <= e.time <= c.end for _, b in c.bags for e in b), f"{phi} on {s}: {c}"


@settings(max_examples=50)
@given(formulas(), acel_streams())
def test_agg_keeps_times_and_other_variables_and_adds_one_event_to_a_fresh_target(phi, s) -> None:
    """Agg never changes time(C) nor a variable other than Y; with Y unbound in φ, |⟦Agg(φ)⟧| = |⟦φ⟧| and Y holds
    exactly the created event, untyped, at end(C')."""
    agg = A.Agg(phi, "Z", (A.AggSpec("s", "sum", "X", "x"), A.AggSpec("n", "count", "R", "x")))
    before, after = complex_events(phi, s), complex_events(agg, s)
    assert len(after) == len(before)
    assert {(c.start, c.end, tuple(p for p in c.bags if p[0] != "Z")) for c in after} == \
           {(c.start, c.end, c.bags) for c in before}
    for c in after:
        (created,) = c["Z"]
        assert created.time == c.end and created.type is None and set(created.attributes) == {"s", "n"}
        assert created.value("n") == len(c["R"])


def test_lemma_4_1_agg_folds_with_the_kernel_monoids_including_a_user_aggregate() -> None:
    """Agg's value is ``g(⊕ f'(a))`` of :mod:`cer_theory.core.aggregates`: a user-registered aggregate (sum of
    squares: ``f'(a) = a²``, ``(ℕ, +, 0)``) works in ACEL exactly as its fold says, NULL absorbing."""
    register_aggregator(Aggregator("sumsq", lambda a, b: a + b, 0, lambda v: NULL if v is NULL else v * v,
                                   lambda v: v, "Σ a²"))
    s = Stream([Event("R", x=1), Event("R", x=2), Event("T", x=3), Event("R", x=4)])
    out = complex_events(parse("AGG Y[q <- sumsq(X.x)]((R AS X)+)"), s)
    for c in out:
        xs = [e.value("x") for e in c["X"]]
        (created,) = c["Y"]
        assert created.value("q") == aggregator("sumsq").fold(xs) == sum(v * v for v in xs)
    assert len(out) == 7  # the non-empty subsets of the three R events
