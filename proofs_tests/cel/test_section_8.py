"""The CEL paper §8 (Appendices B–E) as executable checks against the reference semantics.

* Lemmas 8.2 and 8.3 and Prop. 8.5 (the *-property) on generated CEL* formulas, with unary and binary filters.
* Corollary 8.6: one concrete *-property violation for each operator outside CEL*.
* Prop. 8.12 (App. B): ``contig_to_strict`` is valuation-equivalent. Strictness: the ``STRICT(R+)`` witness,
  and Lemma B.1 (CEL*∪{:} is strict-bounded) with the corrected insertion range.
* Prop. 8.13 (App. C): ``strict_to_contiguous`` and ``contiguize``, plus the OCR law's counterexample.
* Theorem 8.14 (App. D): the pumping witness, and Lemma D.1 (CEL*∪{STRICT} is pumpable).
* Prop. 8.15 (App. E): each law, ``cplus_to_strict`` end to end, and the OCR sixth term's counterexample.

Generators: ``fragment_formulas`` (CEL* plus chosen §8.2 operators) over relations R and T, mixing unary and
binary filters, plus shapes that force the operator under test (``iterated``, ``with_contig``, ``with_cplus``).
Streams are over R, T and the junk type V; the "large match" lemmas use R/T-dense streams so they are not
vacuous (most of their examples contain a match above the lemma's constant).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

from cer_theory.formalisms.cel.rewrites import (contig_to_strict, contiguize, cplus_to_strict, fragment_of,
                                               in_fragment, inner_positions, insert_event, is_cel_star, pump,
                                               strict_to_contiguous)
from cer_theory.core.errors import NotUnaryError, SizeBudgetExceeded, UnsupportedError
from cer_theory.core.events import ComplexEvent, Event, Stream, Valuation
from cer_theory.formalisms.cel.semantics import CelSemantics
from cer_theory.formalisms.cel.ast import (Atom, Contig, CPlus, Disj, Filter, Formula, Plus, Select, Seq, Strategy)
from cer_theory.formalisms.cel.parser import parse
from cer_theory.testing.strategies.cel import conditions, fragment_formulas
from cer_theory.testing.harness import first_mismatch, to_complex_events
from cer_theory.testing.strategies import Schema, events, streams

SCHEMA = Schema(types=("R", "T", "V"))  # V is junk for formulas over R and T
RT = ("R", "T")


def fragment(*extra: str, max_depth: int = 3, unary: bool | None = None) -> st.SearchStrategy[Formula]:
    """``CEL* ∪ extra`` formulas over R and T; ``unary=None`` mixes unary and binary filters."""
    if unary is None:
        return st.one_of(fragment_formulas(extra, RT, max_depth=max_depth, unary=True),
                         fragment_formulas(extra, RT, max_depth=max_depth, unary=False))
    return fragment_formulas(extra, RT, max_depth=max_depth, unary=unary)


def small_streams(max_length: int = 6, min_length: int = 1) -> st.SearchStrategy[Stream]:
    return streams(SCHEMA, min_length=min_length, max_length=max_length)


def stream_pairs() -> st.SearchStrategy[list[Stream]]:
    """Two streams of length 3..7 per formula: rewrites are checked on both."""
    return st.lists(small_streams(7, 3), min_size=2, max_size=2)


DENSE = Schema(types=("R", "T"))


def dense_streams(max_length: int) -> st.SearchStrategy[Stream]:
    """Streams of R and T only, so that iterations match long stretches (for the "large match" lemmas)."""
    return st.one_of(streams(DENSE, min_length=3, max_length=max_length),
                     streams(SCHEMA, min_length=3, max_length=max_length))


def iterated(*extra: str) -> st.SearchStrategy[Formula]:
    """``CEL* ∪ extra`` formulas, plus shapes with an iteration that produce matches larger than the
    lemmas' constants: ``a+``, ``a ; b+``, ``(a ; b)+``, and also ``STRICT(a+)`` and ``(a : b)+``, ``a+ : b``
    when ``extra`` allows."""
    sub = fragment(*extra, max_depth=1)
    shapes = [fragment(*extra), st.builds(Plus, sub), st.builds(lambda a, b: Seq(a, Plus(b)), sub, sub),
              st.builds(lambda a, b: Plus(Seq(a, b)), sub, sub)]
    if "STRICT" in extra:
        shapes.append(st.builds(lambda a: Select(Strategy.STRICT, Plus(a)), sub))
    if ":" in extra:
        shapes += [st.builds(lambda a, b: Plus(Contig(a, b)), sub, sub),
                   st.builds(lambda a, b: Contig(Plus(a), b), sub, sub)]
    return st.one_of(*shapes)


def with_contig(*extra: str, unary: bool | None = None) -> st.SearchStrategy[Formula]:
    """Fragment formulas, plus ``a : b`` and ``(a : b) ; c`` with generated a, b, c, so ':' is always hit."""
    sub = fragment(":", *extra, max_depth=2, unary=unary)
    return st.one_of(fragment(":", *extra, unary=unary), st.builds(Contig, sub, sub),
                     st.builds(lambda a, b, c: Seq(Contig(a, b), c), sub, sub, sub))


def with_cplus(unary: bool = True) -> st.SearchStrategy[Formula]:
    """Unary ``CEL*∪{:,⊕,STRICT}`` formulas, plus ``a⊕``, ``(a OR b)⊕`` and ``a⊕ : b``, so ⊕ is always hit."""
    sub = fragment(":", "⊕", "STRICT", max_depth=2, unary=unary)
    return st.one_of(fragment(":", "⊕", "STRICT", unary=unary), st.builds(CPlus, sub),
                     st.builds(lambda a, b: CPlus(Disj(a, b)), sub, sub),
                     st.builds(lambda a, b: Contig(CPlus(a), b), sub, sub))


def outputs(phi: Formula, stream: Stream, sem: CelSemantics | None = None) -> list[frozenset[Valuation]]:
    sem = sem or CelSemantics(stream)
    return [sem.at(phi, n) for n in range(len(stream))]


def assert_equivalent(phi: Formula, psi: Formula, stream: Stream, *, level: str = "valuations",
                      name: str = "rewrite") -> None:
    sem = CelSemantics(stream)
    expected, actual = outputs(phi, stream, sem), outputs(psi, stream, sem)
    if level == "complex events":
        expected, actual = to_complex_events(expected), to_complex_events(actual)
    mismatch = first_mismatch(phi, stream, expected, actual, level=level, candidate=name)  # type: ignore[arg-type]
    assert mismatch is None, f"{mismatch}\n  {name}: {psi}"


def ce_at(phi: Formula, stream: Stream, n: int) -> frozenset[ComplexEvent]:
    return frozenset(m.support() for m in CelSemantics(stream).at(phi, n))


def ev(kind: str, a: int) -> Event:
    return Event(kind, a=a)


# ------------------------------------------------------------------------------------------------ Lemmas 8.2, 8.3


@settings(max_examples=300)
@given(iterated(), small_streams(6))
def test_lemma_8_2(phi: Formula, stream: Stream) -> None:
    """Lemma 8.2 on generated CEL* formulas: ``μ ∈ ⟦φ⟧ᵛ(S,i,j)`` implies ``j ∈ sup μ`` and
    ``∅ ≠ sup μ ⊆ {i..j}``. Checked on every interval of the stream."""
    assert is_cel_star(phi)
    sem = CelSemantics(stream)
    for i, j in itertools.combinations_with_replacement(range(len(stream)), 2):
        for mu in sem.interval(phi, i, j):
            sup = mu.support()
            assert sup and j in sup and sup <= set(range(i, j + 1)), f"Lemma 8.2: {phi} {mu!r} on ({i},{j})"


@settings(max_examples=300)
@given(iterated(), small_streams(6))
def test_lemma_8_3(phi: Formula, stream: Stream) -> None:
    """Lemma 8.3 on generated CEL* formulas: ``μ ∈ ⟦φ⟧ᵛ(S,i,j)`` implies (1) ``μ ∈ ⟦φ⟧ᵛ(S, min sup μ,
    max sup μ)`` and (2) ``μ ∈ ⟦φ⟧ᵛ(S, i', j)`` for every ``i' ≤ i``. Checked on every interval."""
    sem = CelSemantics(stream)
    for i, j in itertools.combinations_with_replacement(range(len(stream)), 2):
        for mu in sem.interval(phi, i, j):
            sup = mu.support()
            assert mu in sem.interval(phi, min(sup), max(sup)), f"Lemma 8.3(1): {phi} {mu!r} from ({i},{j})"
            for i2 in range(i):
                assert mu in sem.interval(phi, i2, j), f"Lemma 8.3(2): {phi} {mu!r} from ({i},{j}) to ({i2},{j})"


def test_lemma_8_2_fails_beyond_cel_star() -> None:
    """The lemmas are specific to CEL*: ``π_∅`` outputs the empty support (oracle O8, our own)."""
    assert ce_at(parse("PI[](R)"), Stream.from_types("R"), 0) == {frozenset()}
    assert not is_cel_star(parse("PI[](R)"))


# ------------------------------------------------------------------------------------------------ Prop 8.5


@settings(max_examples=200)
@given(iterated(), small_streams(6), st.data())
def test_prop_8_5_star_property(phi: Formula, stream: Stream, data: st.DataObject) -> None:
    """Def. 8.4 for every CEL* formula: ``C ∈ ⟦φ⟧_n(S) ⇒ n ∈ C``. Also, if ``(S,C) =_* (S',C')``, then
    ``C' ∈ ⟦φ⟧_{max C'}(S')``. S' keeps only the tuples of C, with random junk before, between and after
    them."""
    sem = CelSemantics(stream)
    for n in range(len(stream)):
        for c in sorted({m.support() for m in sem.at(phi, n)}, key=sorted):
            assert n in c, f"first bullet of Def. 8.4: {phi} outputs {c!r} at {n}"
            junk = data.draw(st.lists(st.lists(events(SCHEMA), max_size=2), min_size=len(c) + 1,
                                      max_size=len(c) + 1), label=f"junk around {c!r}")
            new_stream: list[Event] = list(junk[0])
            new_c = []
            for pos, gap in zip(sorted(c), junk[1:]):
                new_c.append(len(new_stream))
                new_stream += [stream[pos], *gap]
            s2, c2 = Stream(new_stream), ComplexEvent(new_c)
            assert c2.events(s2) == ComplexEvent(c).events(stream)  # (S,C) =_* (S',C')
            assert c2 in ce_at(phi, s2, max(c2)), (
                f"*-property fails for {phi}: {c!r} ∈ ⟦φ⟧_{n}({stream.types()}) but {c2!r} ∉ "
                f"⟦φ⟧_{max(c2)}({s2.types()})")


# ------------------------------------------------------------------------------------------------ Corollary 8.6

# operator: (formula, S1, C1, S2, C2) with S1[C1] = S2[C2], C1 ∈ ⟦φ⟧_{max C1}(S1) and C2 ∉ ⟦φ⟧_{max C2}(S2).
WITNESSES = {
    ":": ("R : T", "R T", {0, 1}, "R V T", {0, 2}),
    "⊕": ("R:+", "R R", {0, 1}, "R V R", {0, 2}),
    "π": ("PI[R](R ; T)", "R T", {0}, "R", {0}),  # also breaks the first bullet: {0} is output at 1
    "START": ("START(R)", "R", {0}, "V R", {1}),
    "UNLESS": ("R UNLESS T", "R R", {1}, "T R", {1}),  # the paper's witness (before Cor. 8.6; O6)
    "STRICT": ("STRICT(R ; T)", "R T", {0, 1}, "R V T", {0, 2}),
    "NXT": ("NXT(R ; T)", "R T", {0, 1}, "R R T", {1, 2}),  # {0,2} is ≤_next-greater than {1,2}
    "LAST": ("LAST(R ; T)", "R T", {0, 1}, "R R T", {0, 2}),  # {1,2} is ≤_last-greater than {0,2}
    "MAX": ("MAX(R+)", "R", {0}, "R R", {1}),  # {1} ⊊ {0,1}
}


@pytest.mark.parametrize("operator", list(WITNESSES))
def test_corollary_8_6_witnesses(operator: str) -> None:
    """Each operator outside CEL* defines a stream function without the *-property, so it is not expressible
    in CEL* (Corollary 8.6)."""
    text, s1_types, c1, s2_types, c2 = WITNESSES[operator]
    phi, s1, s2 = parse(text), Stream.from_types(s1_types), Stream.from_types(s2_types)
    assert operator in fragment_of(phi)
    assert ComplexEvent(c1).events(s1) == ComplexEvent(c2).events(s2)  # (S1,C1) =_* (S2,C2)
    assert frozenset(c1) in ce_at(phi, s1, len(s1) - 1), f"{text} must output {c1} on {s1_types}"
    assert frozenset(c2) not in ce_at(phi, s2, max(c2)), f"{text} must not output {c2} on {s2_types}"
    if operator == "π":
        assert len(s1) - 1 not in c1  # first bullet of Def. 8.4 broken too


# ------------------------------------------------------------------------------------------------ Prop 8.12


@settings(max_examples=400)
@given(with_contig("STRICT", unary=True), stream_pairs())
def test_prop_8_12_contig_to_strict(phi: Formula, streams_: list[Stream]) -> None:
    """App. B inclusion, unary predicates: ``contig_to_strict(φ) ∈ CEL*∪{STRICT}`` and it is
    valuation-equivalent to φ."""
    try:
        psi = contig_to_strict(phi)
    except SizeBudgetExceeded:
        reject()
    assert in_fragment(psi, {"STRICT"}), f"{psi} uses {fragment_of(psi)}"
    for stream in streams_:
        assert_equivalent(phi, psi, stream, name="contig_to_strict")


@settings(max_examples=200)
@given(with_contig(unary=False), stream_pairs())
def test_prop_8_12_contig_to_strict_binary_filters(phi: Formula, streams_: list[Stream]) -> None:
    """With n-ary filters: either UnsupportedError (App. B's fresh renaming would be needed), or the result is
    valuation-equivalent."""
    try:
        psi = contig_to_strict(phi)
    except UnsupportedError:
        return
    assert in_fragment(psi, {"STRICT"})
    for stream in streams_:
        assert_equivalent(phi, psi, stream, name="contig_to_strict")


def _all_streams(types: str, max_length: int) -> list[Stream]:
    return [Stream.from_types(" ".join(t)) for n in range(1, max_length + 1)
            for t in itertools.product(types.split(), repeat=n)]


def test_prop_8_12_paper_examples() -> None:
    """§8.2: ``R:T ≡ STRICT(R;T)`` and ``R;T+:U ≡ R;(STRICT(T;U) OR T+;STRICT(T;U))`` (CE level, here even
    valuation level), exhaustively on streams over {R,T,U} of length ≤ 5. The rewrite gives the paper's
    formula."""
    pairs = [("R : T", "STRICT(R ; T)"), ("R ; T+ : U", "R ; (STRICT(T ; U) OR T+ ; STRICT(T ; U))")]
    for left, right in pairs:
        phi, psi = parse(left), parse(right)
        assert contig_to_strict(phi) == psi
        for stream in _all_streams("R T U", 5):
            assert_equivalent(phi, psi, stream, name=right)


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_prop_8_12_strict_bounded_witness(n: int) -> None:
    """Strictness (App. B): ``μ(R) = {0..N}`` matches ``STRICT(R+)`` on R^{N+1}. Every inner insertion of a
    junk tuple breaks the match, so ``STRICT(R+)`` is not strict-bounded.

    Erratum: App. B allows insertion at ``min sup μ ≤ i < max sup μ``. At ``i = min sup μ = 0`` the tuple
    lands before the match, and the match survives. Read literally, STRICT(R+) would then be strict-bounded,
    and the proof would fail."""
    phi, stream, junk = parse("STRICT(R+)"), Stream.from_types(" ".join(["R"] * (n + 1))), Event("V")
    mu = Valuation({"R": range(n + 1)})
    assert {c.positions for c in ce_at(phi, stream, n)} == {tuple(range(k, n + 1)) for k in range(n + 1)}  # O6
    for i in inner_positions(mu):
        s2, mu2 = insert_event(stream, mu, i, junk)
        assert mu2 not in CelSemantics(s2).interval(phi, 0, n + 1), f"insertion at {i} kept the match"
    s2, mu2 = insert_event(stream, mu, 0, junk)  # the printed range's i = min sup μ
    assert mu2 in CelSemantics(s2).interval(phi, 0, n + 1)


def strict_bound(phi: Formula) -> int:
    """A strict-bounded constant for ``CEL*∪{:}`` [ours]: ``N = #(:) + 2``.

    If no ``+`` iterates twice, each ':' node checks at most one adjacency. A support of size ≥ #(:) + 2 then
    has an unchecked boundary. Otherwise the boundary between two iterations is unchecked."""
    return max(2, sum(isinstance(node, Contig) for node in phi.walk()) + 2)


def _check_strict_bounded(phi: Formula, stream: Stream, junk: Event) -> int:
    """Lemma B.1 on one stream. Returns the number of large matches checked."""
    sem, checked = CelSemantics(stream), 0
    bound = strict_bound(phi)
    for n in range(len(stream)):
        for mu in sem.at(phi, n):
            if len(mu.support()) < bound:
                continue
            checked += 1
            inserted = (insert_event(stream, mu, i, junk) for i in inner_positions(mu))
            assert any(mu2 in CelSemantics(s2).interval(phi, 0, n + 1) for s2, mu2 in inserted), (
                f"Lemma B.1: no inner insertion of {junk!r} keeps {mu!r} for {phi} on {stream.types()}")
    return checked


@settings(max_examples=200)
@given(iterated(":"), dense_streams(6), events(SCHEMA))
def test_prop_8_12_lemma_b_1_strict_bounded(phi: Formula, stream: Stream, junk: Event) -> None:
    """Lemma B.1: every ``CEL*∪{:}`` formula is strict-bounded. A match with ≥ N positions survives the
    insertion of any tuple at some inner position (``min sup < i ≤ max sup``, the corrected range)."""
    _check_strict_bounded(phi, stream, junk)


@pytest.mark.parametrize("text", ["R : T ; R", "(R ; T) : U", "(R : T)+", "R+ : T+", "(R : T ; U)+ : R"])
def test_prop_8_12_lemma_b_1_examples(text: str) -> None:
    """Lemma B.1 on fixed formulas, exhaustively over streams of {R,T,U} of length ≤ 6, with one junk tuple."""
    phi = parse(text)
    checked = sum(_check_strict_bounded(phi, s, Event("V")) for s in _all_streams("R T U", 6))
    assert checked > 0  # the lemma is exercised, not vacuous


# ------------------------------------------------------------------------------------------------ Prop 8.13


@settings(max_examples=250)
@given(fragment("STRICT"), small_streams(6))
def test_prop_8_13_strict_rewrite(phi: Formula, stream: Stream) -> None:
    """App. C: ``strict_to_contiguous(φ) ∈ CEL*∪{:,⊕}`` is valuation-equivalent to φ ∈ CEL*∪{STRICT}."""
    psi = strict_to_contiguous(phi)
    assert in_fragment(psi, {":", "⊕"}), f"{psi} uses {fragment_of(psi)}"
    assert_equivalent(phi, psi, stream, name="strict_to_contiguous")


@settings(max_examples=200)
@given(fragment(), small_streams(6))
def test_prop_8_13_contiguize(phi: Formula, stream: Stream) -> None:
    """``STRICT(φ) ≡ φ[; → :, + → ⊕]`` at the valuation level for CEL* φ (§8.2, App. C)."""
    assert_equivalent(Select(Strategy.STRICT, phi), contiguize(phi), stream, name="contiguize")


def test_prop_8_13_ocr_seq_law_counterexample() -> None:
    """The OCR's ``STRICT(ρ1;ρ2) ≡ STRICT(ρ1);STRICT(ρ2)`` is false. On ``R V T``, ``STRICT(R);STRICT(T)``
    outputs {0,2} at 2, while ``STRICT(R;T)`` does not. The fix ``STRICT(R):STRICT(T)`` agrees."""
    stream = Stream.from_types("R V T")
    assert ce_at(parse("STRICT(R ; T)"), stream, 2) == frozenset()
    assert ce_at(parse("STRICT(R) ; STRICT(T)"), stream, 2) == {frozenset({0, 2})}
    assert ce_at(parse("STRICT(R) : STRICT(T)"), stream, 2) == frozenset()


# ------------------------------------------------------------------------------------------------ Theorem 8.14

THM_8_14 = "((A ; E) FILTER A.a = E.a):+"


def witness_stream(n: int) -> Stream:
    """App. D's stream, 0-based: ``A L E A L E …`` with a-values ``1 1 1 2 2 2 … N N N``."""
    return Stream(ev(t, m) for m in range(1, n + 1) for t in "ALE")


def test_theorem_8_14_pumping_witness() -> None:
    """App. D: φ = ((A;E) FILTER A.a = E.a)⊕ is not pumpable. For the full match on the witness stream, every
    fragment [i, j] pumped k = 2 times with padding U(0) loses membership. The oracle O6 is checked first."""
    phi, pad = parse(THM_8_14), [ev("U", 0)]
    for n in (3, 4):
        stream = witness_stream(n)
        out = {c.positions for c in ce_at(phi, stream, 3 * n - 1)}
        if n == 3:
            assert {k: {c.positions for c in ce_at(phi, stream, k)} for k in (2, 5, 8)} == {
                2: {(0, 2)}, 5: {(0, 2, 3, 5), (3, 5)}, 8: {(0, 2, 3, 5, 6, 8), (3, 5, 6, 8), (6, 8)}}
        mu = Valuation({"A": range(0, 3 * n, 3), "E": range(2, 3 * n, 3)})
        assert mu.support().positions in out
        for i, j in itertools.combinations(sorted(mu.support()), 2):
            s2, mu2 = pump(stream, mu, i, j, 2, [pad, pad, pad])
            assert {v: {s2[p] for p in mu2[v]} for v in "AE"} == {v: {stream[p] for p in mu[v]} for v in "AE"}
            assert mu2 not in CelSemantics(s2).interval(phi, 0, max(mu2.support())), (
                f"pumping [{i},{j}] twice kept the match: {s2.types()} {mu2!r}")
    with pytest.raises(NotUnaryError):
        cplus_to_strict(parse(THM_8_14))


def pumping_constant(phi: Formula) -> int:
    """The constant of Lemma D.1's induction: 1 for an atom, N1+N2 for ';', max for OR, unchanged otherwise."""
    if isinstance(phi, Atom):
        return 1
    if isinstance(phi, Seq):
        return pumping_constant(phi.left) + pumping_constant(phi.right)
    if isinstance(phi, Disj):
        return max(pumping_constant(phi.left), pumping_constant(phi.right))
    return pumping_constant(phi.children()[0])


def _pumpable_at(phi: Formula, stream: Stream, mu: Valuation, ks: tuple[int, ...],
                 paddings: list[list[Event]]) -> bool:
    """Some i < j in sup μ such that pumping [i, j] k times keeps μ' ∈ ⟦φ⟧(S', 0, max sup μ') for each k."""
    for i, j in itertools.combinations(sorted(mu.support()), 2):
        if all(mu2 in CelSemantics(s2).interval(phi, 0, max(mu2.support()))
               for k in ks for s2, mu2 in [pump(stream, mu, i, j, k, paddings[:k + 1])]):
            return True
    return False


def _check_pumpable(phi: Formula, stream: Stream, ks: tuple[int, ...], paddings: list[list[Event]],
                    per_position: int = 2) -> int:
    sem, bound, checked = CelSemantics(stream), pumping_constant(phi), 0
    for n in range(len(stream)):
        large = sorted((m for m in sem.at(phi, n) if len(m.support()) > bound), key=lambda m: m.sort_key())
        for mu in large[:per_position]:
            checked += 1
            assert _pumpable_at(phi, stream, mu, ks, paddings), (
                f"Lemma D.1: no fragment of {mu!r} can be pumped for {phi} on {stream.types()} "
                f"(paddings {paddings})")
    return checked


@settings(max_examples=200)
@given(iterated("STRICT"), dense_streams(5),
       st.lists(st.lists(events(SCHEMA), max_size=1), min_size=3, max_size=3))
def test_theorem_8_14_lemma_d_1_pumpable(phi: Formula, stream: Stream, paddings: list[list[Event]]) -> None:
    """Lemma D.1 on generated CEL*∪{STRICT} formulas. A match larger than the constant has a fragment that
    survives pumping k = 1 and k = 2 times, with the drawn padding streams."""
    _check_pumpable(phi, stream, (1, 2), paddings)


@pytest.mark.parametrize("text", ["((A ; E) FILTER A.a = E.a)+", "STRICT(((A ; L ; E) FILTER A.a = E.a)+)",
                                  "STRICT((A ; L ; E)+) FILTER A.a <= 3", "A ; (L ; E)+",
                                  "(STRICT(A ; L) ; E)+"])
def test_theorem_8_14_lemma_d_1_on_witness_stream(text: str) -> None:
    """Lemma D.1 on CEL*∪{STRICT} formulas over App. D's stream (N = 3): pumping k = 1, 2, 3 times with
    padding U(0) keeps large matches. The ⊕ formula of Theorem 8.14 fails exactly this."""
    phi, pad = parse(text), [ev("U", 0)]
    assert in_fragment(phi, {"STRICT"})
    assert _check_pumpable(phi, witness_stream(3), (1, 2, 3), [pad] * 4, per_position=1) > 0


# ------------------------------------------------------------------------------------------------ Prop 8.15

LEAVES = st.sampled_from(RT).flatmap(lambda r: st.one_of(
    st.just(Atom(r)), conditions((r,), relations=RT).map(lambda c, r=r: Filter(Atom(r), c))))
STRICT_ATOMIC = st.one_of(LEAVES, fragment("STRICT", max_depth=2).map(lambda f: Select(Strategy.STRICT, f)))
OPERAND = fragment(":", "⊕", "STRICT", max_depth=2)


def _S(phi: Formula) -> Formula:
    return Select(Strategy.STRICT, phi)


# name: (operand strategies, law) — App. E's equivalences, used by cplus_to_strict.
APP_E_LAWS = {
    "R⊕ ≡ STRICT(R+)": ((LEAVES,), lambda a: (CPlus(a), _S(Plus(a)))),
    "STRICT(φ1)⊕ ≡ STRICT(φ1+)": ((OPERAND,), lambda a: (CPlus(_S(a)), _S(Plus(a)))),
    "(φ1;φ2)⊕ ≡ φ1;(φ2 OR ((φ2:φ1)+;φ2))":
        ((OPERAND, OPERAND), lambda a, b: (CPlus(Seq(a, b)), Seq(a, Disj(b, Seq(Plus(Contig(b, a)), b))))),
    "(φ1+)⊕ ≡ φ1+": ((OPERAND,), lambda a: (CPlus(Plus(a)), Plus(a))),
    "(φ1 OR φ2)⊕ ≡ STRICT((φ1 OR φ2)+) for atoms/STRICT":
        ((STRICT_ATOMIC, STRICT_ATOMIC), lambda a, b: (CPlus(Disj(a, b)), _S(Plus(Disj(a, b))))),
    "six-term (X OR Y)⊕ law": ((OPERAND, OPERAND), lambda x, y: (CPlus(Disj(x, y)), _six_terms(x, y))),
    "ρ+ ≡ ρ OR (ρ;ρ+)": ((OPERAND,), lambda a: (Plus(a), Disj(a, Seq(a, Plus(a))))),
}


def _six_terms(x: Formula, y: Formula, *, ocr: bool = False) -> Formula:
    xp, yp = CPlus(x), CPlus(y)
    sixth = Contig(yp, CPlus(Contig(xp, y if ocr else yp)))  # the OCR prints Y⊕:(X⊕:Y)⊕
    terms = [xp, yp, CPlus(Contig(xp, yp)), Contig(xp, CPlus(Contig(yp, xp))), CPlus(Contig(yp, xp)), sixth]
    out = terms[0]
    for t in terms[1:]:
        out = Disj(out, t)
    return out


@pytest.mark.parametrize("law", list(APP_E_LAWS))
@settings(max_examples=60)
@given(data=st.data(), stream=small_streams(5))
def test_prop_8_15_cplus_rewrites(law: str, data: st.DataObject, stream: Stream) -> None:
    """Each App. E equivalence, on generated operands in CEL*∪{:,⊕,STRICT} with unary or binary filters. It is
    checked at the valuation level, which is stronger than the CE level that App. E needs."""
    kinds, build = APP_E_LAWS[law]
    lhs, rhs = build(*(data.draw(k, label=f"operand {n}") for n, k in enumerate(kinds)))
    assert_equivalent(lhs, rhs, stream, name=law)


# App. B's rewrites of ':' (and ours for the right operand), used by contig_to_strict and cplus_to_strict.
APP_B_LAWS = {
    "(ρ1;ρ2):φ ≡ ρ1;(ρ2:φ)": (3, lambda a, b, c: (Contig(Seq(a, b), c), Seq(a, Contig(b, c)))),
    "(ρ1 OR ρ2):φ ≡ (ρ1:φ) OR (ρ2:φ)": (3, lambda a, b, c: (Contig(Disj(a, b), c), Disj(Contig(a, c),
                                                                                        Contig(b, c)))),
    "ρ+:φ ≡ (ρ:φ) OR (ρ+;(ρ:φ))": (2, lambda a, c: (Contig(Plus(a), c), Disj(Contig(a, c),
                                                                              Seq(Plus(a), Contig(a, c))))),
    "φ:(ρ1;ρ2) ≡ (φ:ρ1);ρ2": (3, lambda c, a, b: (Contig(c, Seq(a, b)), Seq(Contig(c, a), b))),
    "φ:ρ+ ≡ (φ:ρ) OR ((φ:ρ);ρ+)": (2, lambda c, a: (Contig(c, Plus(a)), Disj(Contig(c, a),
                                                                              Seq(Contig(c, a), Plus(a))))),
    "STRICT(ρ1):STRICT(ρ2) ≡ STRICT(ρ1;ρ2)": (2, lambda a, b: (Contig(_S(a), _S(b)), _S(Seq(a, b)))),
}


@pytest.mark.parametrize("law", list(APP_B_LAWS))
@settings(max_examples=40)
@given(data=st.data(), stream=small_streams(5))
def test_prop_8_12_contig_laws(law: str, data: st.DataObject, stream: Stream) -> None:
    """The laws behind contig_to_strict, at the valuation level, on operands in CEL*∪{:,⊕,STRICT}."""
    arity, build = APP_B_LAWS[law]
    lhs, rhs = build(*(data.draw(OPERAND, label=f"operand {n}") for n in range(arity)))
    assert_equivalent(lhs, rhs, stream, name=law)


def _check_cplus_to_strict(phi: Formula, streams_: list[Stream]) -> None:
    try:
        psi, psi_v = cplus_to_strict(phi), cplus_to_strict(phi, keep_in=True)
    except SizeBudgetExceeded:
        reject()
    assert in_fragment(psi, {"STRICT"}) and in_fragment(psi_v, {"STRICT"}), f"{psi} / {psi_v}"
    for stream in streams_:
        assert_equivalent(phi, psi, stream, level="complex events", name="cplus_to_strict")
        assert_equivalent(phi, psi_v, stream, name="cplus_to_strict(keep_in=True)")


@settings(max_examples=500)
@given(with_cplus(), stream_pairs())
def test_prop_8_15_cplus_to_strict(phi: Formula, streams_: list[Stream]) -> None:
    """Prop. 8.15 end to end. For unary φ ∈ CEL*∪{:,⊕,STRICT}, ``cplus_to_strict(φ) ∈ CEL*∪{STRICT}`` is
    CE-equivalent to φ. With ``keep_in=True`` it is valuation-equivalent [ours]."""
    _check_cplus_to_strict(phi, streams_)


@settings(max_examples=200)
@given(st.builds(lambda x, y: CPlus(Disj(x, y)), fragment("⊕", "STRICT", max_depth=2, unary=True),
                 st.one_of(st.builds(Seq, fragment(":", max_depth=1, unary=True),
                                     fragment(":", max_depth=1, unary=True)),
                           st.builds(Plus, fragment(":", max_depth=1, unary=True)))),
       stream_pairs())
def test_prop_8_15_cplus_to_strict_disjunctions(phi: Formula, streams_: list[Stream]) -> None:
    """Prop. 8.15 on ``(X OR Y)⊕`` with Y a sequence or an iteration: the case that needs the six-term law."""
    _check_cplus_to_strict(phi, streams_)


def test_prop_8_15_ocr_sixth_term_counterexample() -> None:
    """The OCR's sixth term ``Y⊕:(X⊕:Y)⊕`` is wrong. With X = R and Y = T on ``T R T T``, ``(R OR T)⊕`` outputs
    {0,1,2,3} at 3. The OCR's six terms miss it, and the corrected ``Y⊕:(X⊕:Y⊕)⊕`` (docs/errata.md) has it."""
    x, y, stream = Atom("R"), Atom("T"), Stream.from_types("T R T T")
    target = frozenset({0, 1, 2, 3})
    assert target in ce_at(CPlus(Disj(x, y)), stream, 3)
    assert target not in ce_at(_six_terms(x, y, ocr=True), stream, 3)
    assert target in ce_at(_six_terms(x, y), stream, 3)


def test_prop_8_15_scope_errors() -> None:
    """Operators outside the fragment raise UnsupportedError, and n-ary filters raise NotUnaryError."""
    with pytest.raises(UnsupportedError, match="START"):
        cplus_to_strict(parse("START(R):+"))
    with pytest.raises(UnsupportedError, match="⊕"):
        contig_to_strict(parse("R:+"))
    with pytest.raises(UnsupportedError, match="UNLESS"):
        strict_to_contiguous(parse("STRICT(R UNLESS T)"))
    with pytest.raises(NotUnaryError):
        cplus_to_strict(parse("((R ; T) FILTER R.x = T.x) : U"))
    with pytest.raises(UnsupportedError, match="renames"):
        contig_to_strict(parse("((R ; T) FILTER R.x = T.x) : T"))


def test_witness_helpers() -> None:
    """insert_event and pump on small cases, 0-based (App. B and App. D definitions)."""
    stream, mu = Stream.from_types("R T U"), Valuation({"R": [0], "U": [2]})
    s2, mu2 = insert_event(stream, mu, 2, Event("V"))
    assert s2.types() == "R T V U" and mu2 == Valuation({"R": [0], "U": [3]})
    assert list(inner_positions(mu)) == [1, 2]
    # contiguous fragment: the paddings are ignored
    s3, mu3 = pump(Stream.from_types("R T U"), Valuation({"R": [0], "T": [1]}), 0, 1, 3)
    assert s3.types() == "R T R T R T U" and mu3 == Valuation({"R": [0, 2, 4], "T": [1, 3, 5]})
    # non-contiguous fragment: P0 S2 P1 S2 P2
    s4, mu4 = pump(stream, mu, 0, 2, 2, [[Event("X")], [], [Event("Y")]])
    assert s4.types() == "X R T U R T U Y" and mu4 == Valuation({"R": [1, 4], "U": [3, 6]})
    with pytest.raises(UnsupportedError):
        pump(stream, mu, 0, 2, 2)


@pytest.mark.parametrize("text", ["(R OR (T ; R)):+", "(R OR T+):+", "((R ; T) OR (T ; R)):+",
                                  "(STRICT(R ; T) OR T ; T ; R):+"])
def test_prop_8_15_six_term_cases_exhaustive(text: str) -> None:
    """``cplus_to_strict`` on ⊕ over disjunctions, CE-equivalent on every stream over {R,T} of length ≤ 7.
    Such streams contain the block pattern ``Y X Y Y`` that the OCR's sixth term misses."""
    phi = parse(text)
    psi = cplus_to_strict(phi)
    for stream in _all_streams("R T", 7):
        assert_equivalent(phi, psi, stream, level="complex events", name="cplus_to_strict")
