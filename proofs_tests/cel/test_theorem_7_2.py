"""Theorem 7.2 (the CEL paper): selection strategies as I/O-deterministic automata; nesting (docs/decisions.md D18); and the
normal form of §9.2 (Prop 9.2, the order of transformations of docs/decisions.md D17).

``⟦A_SEL⟧ᵛ_n(S) = SEL(⟦A⟧ᵛ_n(S))`` is checked at every position of generated streams (length ≤ 6), for CEAs
compiled from generated formulas and for random CEAs; SEL is the reference :func:`select`. The tie
counterexample of docs/errata.md is an exact oracle showing the printed constructions' erratum.
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.automata.cea import CEA
from cer_theory.formalisms.cel.compile import compile_automaton
from cer_theory.formalisms.cel.normal_form import (is_normal_form, is_single_variable, normal_form, select_cea_ce,
                                                  single_variable)
from cer_theory.automata.determinize.selection import select_cea, select_cea_printed
from cer_theory.formalisms.cel.selection import compile_with_selection
from cer_theory.automata.determinize.eager import io_determinize
from cer_theory.core.errors import SizeBudgetExceeded
from cer_theory.core.events import Event, Stream, Valuation
from cer_theory.examples.running_example import FORMULAS, fire_stream
from cer_theory.core.predicates.ast import TRUE
from cer_theory.formalisms.cel.semantics import CelSemantics, select
from cer_theory.formalisms.cel.ast import Atom, Contig, CPlus, Disj, Formula, In, Plus, Select, Seq, Strategy
from cer_theory.formalisms.cel.parser import parse
from cer_theory.testing.strategies.automata import random_ceas
from cer_theory.testing.harness import first_mismatch, to_complex_events
from cer_theory.testing.strategies import Schema, formulas, streams

STREAMS = st.lists(streams(max_length=6), min_size=2, max_size=2)
COMPILED = formulas(selection=False, max_depth=3).map(lambda phi: (str(phi), compile_automaton(phi)))
# Dense random CEAs: ties in support between different valuations (the Theorem 7.2 erratum,
# docs/errata.md) need branching runs.
DENSE = random_ceas(min_states=2, min_transitions=4, max_transitions=10, min_final=1)

# One event per type of the default random_ceas predicates (TRUE, R, T, x < 2, ¬R): every distinction they
# make occurs, so all streams over ALPHABET up to a length cover every run shape of that length.
ALPHABET = (Event("R", x=0), Event("R", x=3), Event("T", x=1), Event("T"), Event("U", x=0), Event("U", x=2))


def _outputs(a: CEA, config: set) -> frozenset[Valuation]:
    return frozenset(Valuation(_grouped(mu)) for q, mu in config if q in a.final)


def _grouped(mu: frozenset) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for var, pos in mu:
        out.setdefault(var, set()).add(pos)
    return out


def _exhaustive_mismatch(cea: CEA, a_sel: CEA, strategy: Strategy, depth: int) -> str | None:
    """Every stream over ALPHABET of length ≤ depth, by depth-first search sharing prefixes: the run
    semantics (Def. 5.2, via CEA.step) of A_SEL against SEL of A's. Returns a readable counterexample."""
    def dfs(c1: set, c2: set, word: list[Event]) -> str | None:
        n = len(word)
        for e in ALPHABET:
            d1, d2 = cea.step(c1, n, e), a_sel.step(c2, n, e)
            expected, actual = select(strategy, _outputs(cea, d1)), _outputs(a_sel, d2)
            if expected != actual:
                mismatch = first_mismatch(f"{strategy.value}(A)", Stream([*word, e]), [frozenset()] * n + [expected],
                                          [frozenset()] * n + [actual], level="valuations",
                                          reference="SEL(⟦A⟧)", candidate="A_SEL")
                return f"{mismatch}\nA = {cea.describe()}"
            if n + 1 < depth:
                found = dfs(d1, d2, [*word, e])
                if found:
                    return found
        return None

    start = lambda a: {(q, frozenset()) for q in a.initial}  # noqa: E731
    return dfs(start(cea), start(a_sel), [])


def _check_selection(strategy: Strategy, source: tuple[str, CEA], streams_: list[Stream], *,
                     build=select_cea, level: str = "valuations") -> CEA:
    """A_SEL against SEL applied to the brute-force run semantics of A, at every position."""
    what, cea = source
    a_sel = build(cea, strategy)
    for stream in streams_:
        expected = [select(strategy, out) for out in cea.run(stream)]
        actual = a_sel.run(stream)
        if level == "complex events":
            expected, actual = to_complex_events(expected), to_complex_events(actual)
        mismatch = first_mismatch(f"{strategy.value}(A) with A =\n{what}", stream, expected, actual,
                                  level=level, reference="SEL(⟦A⟧)", candidate="A_SEL")  # type: ignore[arg-type]
        assert mismatch is None, str(mismatch)
    return a_sel


def _theorem_7_2(strategy: Strategy, data: st.DataObject) -> None:
    """Half the cases: a CEA compiled from a generated unary formula, two generated streams of length ≤ 6.
    Other half: a dense random CEA, one generated stream, and every stream over ALPHABET of length ≤ 3."""
    if data.draw(st.booleans(), label="random CEA"):
        cea = data.draw(DENSE, label="A")
        a_sel = _check_selection(strategy, (cea.describe(), cea), [data.draw(streams(max_length=6))])
        mismatch = _exhaustive_mismatch(cea, a_sel, strategy, depth=3)
        assert mismatch is None, mismatch
    else:
        a_sel = _check_selection(strategy, data.draw(COMPILED, label="φ"), data.draw(STREAMS))
    assert a_sel.is_io_deterministic(), f"A_SEL is not I/O-deterministic:\n{a_sel.describe()}"


@settings(max_examples=150)
@given(st.data())
def test_theorem_7_2_strict(data: st.DataObject) -> None:
    _theorem_7_2(Strategy.STRICT, data)


@settings(max_examples=150)
@given(st.data())
def test_theorem_7_2_nxt(data: st.DataObject) -> None:
    _theorem_7_2(Strategy.NXT, data)


@settings(max_examples=150)
@given(st.data())
def test_theorem_7_2_last(data: st.DataObject) -> None:
    _theorem_7_2(Strategy.LAST, data)


@settings(max_examples=150)
@given(st.data())
def test_theorem_7_2_max(data: st.DataObject) -> None:
    _theorem_7_2(Strategy.MAX, data)


# ------------------------------------------------------------------------------------------ the tie erratum


def tie_cea() -> CEA:
    """docs/errata.md (Theorem 7.2 ties): ``q0 -TRUE/{A}-> q1 -TRUE/∅-> q3`` and
    ``q0 -TRUE/{B}-> q2 -TRUE/{B}-> q3``, q3 final."""
    return CEA(["q0", "q1", "q2", "q3"], [
        ("q0", TRUE, {"A"}, "q1"), ("q1", TRUE, (), "q3"), ("q0", TRUE, {"B"}, "q2"), ("q2", TRUE, {"B"}, "q3"),
    ], ["q0"], ["q3"], name="tie")


@pytest.mark.parametrize("strategy", [Strategy.NXT, Strategy.LAST, Strategy.MAX], ids=lambda s: s.value)
def test_theorem_7_2_tie_erratum(strategy: Strategy) -> None:
    """{B↦{0,1}} beats {A↦{0}} under NXT, LAST and MAX; the printed constructions also accept {A↦{0}}
    because the run of B ties with A's support {0} after position 0 and is then forgotten."""
    a, stream = tie_cea(), Stream.from_types("R R")
    b01, a0 = Valuation({"B": {0, 1}}), Valuation({"A": {0}})
    assert a.run(stream)[1] == {b01, a0}
    assert select(strategy, a.run(stream)[1]) == {b01}
    assert select_cea(a, strategy).run(stream) == [frozenset(), {b01}]
    assert select_cea_printed(a, strategy).run(stream) == [frozenset(), {b01, a0}], "the erratum is gone?"
    # At CE level on the single-variable version, the printed construction is right.
    assert select_cea_printed(single_variable(a), strategy).run_complex_events(stream) == [frozenset(), {
        frozenset({0, 1})}]


@pytest.mark.parametrize("strategy", [Strategy.NXT, Strategy.LAST, Strategy.MAX], ids=lambda s: s.value)
def test_theorem_7_2_tie_erratum_formula(strategy: Strategy) -> None:
    """The same tie as a formula: ``SEL(π_A(R IN A ; R) OR π_B((R ; R) IN B))`` on ``R R`` at n = 1."""
    body = parse("PI[A](R IN A ; R) OR PI[B]((R ; R) IN B)")
    stream = Stream.from_types("R R")
    expected = CelSemantics(stream).at(Select(strategy, body), 1)
    assert expected == {Valuation({"B": {0, 1}})}
    assert compile_with_selection(Select(strategy, body)).run(stream)[1] == expected
    assert select_cea_printed(compile_automaton(body), strategy).run(stream)[1] == expected | {Valuation({"A": {0}})}


@settings(max_examples=100)
@given(random_ceas(single_variable=True), STREAMS, st.sampled_from(list(Strategy)))
def test_theorem_7_2_printed_correct_on_single_variable(cea: CEA, streams_: list[Stream],
                                                        strategy: Strategy) -> None:
    """Theorem 7.2 after Prop. 9.2 (docs/decisions.md D18): on single-variable CEAs the printed
    constructions are ≡_v SEL(A)."""
    _check_selection(strategy, (cea.describe(), cea), streams_, build=select_cea_printed)


def test_theorem_7_2_budget() -> None:
    a = compile_automaton(parse("(R ; T)+ ; U"))
    with pytest.raises(SizeBudgetExceeded):
        select_cea(a, Strategy.LAST, budget=2)


# ------------------------------------------------------------------------------------------ nesting


def _check_formula(phi: Formula, streams_: list[Stream]) -> None:
    cea = compile_with_selection(phi)
    for stream in streams_:
        sem = CelSemantics(stream)
        expected = [sem.at(phi, n) for n in range(len(stream))]
        mismatch = first_mismatch(phi, stream, expected, cea.run(stream), level="valuations",
                                  candidate="CEA(φ)")
        assert mismatch is None, str(mismatch)


def _productive() -> st.SearchStrategy[Formula]:
    """Bodies for a selection strategy that often have several supports on one interval (so that selecting
    matters): ``;``, ``+``, OR, IN, ``:``, ``⊕`` and nested selections over R, T, U, never a bare atom."""
    def extend(children: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
        pair = st.tuples(children, children)
        return st.one_of(pair.map(lambda p: Seq(*p)), children.map(Plus), pair.map(lambda p: Disj(*p)),
                         st.builds(In, children, st.sampled_from(["A", "B"])), pair.map(lambda p: Contig(*p)),
                         children.map(CPlus), st.builds(Select, st.sampled_from(list(Strategy)), children))

    return extend(st.recursive(st.sampled_from(["R", "T", "U"]).map(Atom), extend, max_leaves=3))


def _plug(context: Formula, k: int, inner: Formula) -> Formula:
    """``context`` with its k-th atom (pre-order, k modulo the number of atoms) replaced by ``inner``."""
    remaining = k % sum(isinstance(n, Atom) for n in context.walk())

    def go(node: Formula) -> Formula:
        nonlocal remaining
        if isinstance(node, Atom):
            remaining -= 1
            return inner if remaining == -1 else node
        changes = {f.name: go(getattr(node, f.name)) for f in dataclasses.fields(node)
                   if isinstance(getattr(node, f.name), Formula)}
        return dataclasses.replace(node, **changes) if changes else node

    return go(context)


# Selection strategies at any depth: generated formulas (all operators, STRICT/NXT/LAST/MAX included), and
# generated contexts (all operators) with an atom replaced by SEL(productive body).
NESTED = st.one_of(
    formulas(selection=True, max_depth=3),
    st.builds(_plug, formulas(selection=True, max_depth=2), st.integers(0, 5),
              st.builds(Select, st.sampled_from(list(Strategy)), _productive())),
)
RTU_STREAMS = st.lists(streams(Schema(types=("R", "T", "U")), max_length=6), min_size=2, max_size=2)


@settings(max_examples=400)
@given(NESTED, RTU_STREAMS)
def test_theorem_7_2_nested(phi: Formula, streams_: list[Stream]) -> None:
    """Selection strategies at any depth (docs/decisions.md D18, shift invariance): compile_with_selection(φ) ≡_v φ."""
    _check_formula(phi, streams_)


@pytest.mark.parametrize("text", [
    "R ; STRICT(T ; U)", "NXT(R+) ; LAST(T ; R)", "MAX(NXT(R ; T) OR (R IN A ; T))", "STRICT(R+) UNLESS NXT(T)",
    "START(LAST((R OR T)+)) AND (R ; T)", "MAX(R ; T) ALL STRICT(U+)", "PI[A](NXT(R IN A ; T+))",
    "T ; NXT(PI[A](R IN A ; R) OR PI[B]((R ; R) IN B))", "LAST(MAX(R+ IN A) : STRICT(T+))",
])
def test_theorem_7_2_nested_examples(text: str) -> None:
    """Hand-picked nestings under every kind of operator, on all streams over {R, T, U} of length ≤ 4."""
    phi = parse(text)
    for k in range(1, 5):
        _check_formula(phi, [Stream.from_types(" ".join(w)) for w in itertools.product("RTU", repeat=k)])


F = FORMULAS
O1_9 = {  # the CEL paper §7.1's examples (O1.9) on S_fire: n -> complex events
    "STRICT(φ1)": (f"STRICT({F['φ1']})", {2: {(1, 2)}}),
    "NXT(φ1)": (f"NXT({F['φ1']})", {2: {(1, 2)}, 8: {(1, 8)}}),
    "LAST(φ1)": (f"LAST({F['φ1']})", {2: {(1, 2)}, 8: {(5, 8)}}),
    "MAX(φ1)": (f"MAX({F['φ1']})", {2: {(1, 2)}, 8: {(1, 8), (5, 8)}}),
    "NXT(φ3)": (f"NXT({F['φ3']})", {7: {(3, 4, 6, 7)}}),
    "LAST(φ3)": (f"LAST({F['φ3']})", {7: {(3, 4, 6, 7)}}),
    "MAX(φ3)": (f"MAX({F['φ3']})", {7: {(3, 4, 6, 7)}}),
    "STRICT(φ3)": (f"STRICT({F['φ3']})", {}),
    "NXT(φ2)": (f"NXT({F['φ2']})", {2: {(1, 2)}, 5: {(2, 5)}, 8: {(1, 8)}}),
    "LAST(φ2)": (f"LAST({F['φ2']})", {2: {(1, 2)}, 5: {(2, 5)}, 8: {(5, 8)}}),
}


@pytest.mark.parametrize("name", list(O1_9))
def test_theorem_7_2_fire_oracles(name: str) -> None:
    """The CEL paper §7.1's examples (O1.9) through the automaton: the A_SEL of the compiled φ on S_fire."""
    text, expected = O1_9[name]
    cea = compile_with_selection(parse(text))
    got = {n: {tuple(sorted(c)) for c in out} for n, out in enumerate(cea.run_complex_events(fire_stream())) if out}
    assert got == expected
    assert cea.is_io_deterministic()


def test_theorem_7_2_strict_plus_oracle() -> None:
    """Oracle O6 (the CEL paper §8.2, App. B): STRICT(R+) on R^{N+1} outputs, at N, exactly the suffix intervals {k..N}."""
    cea = compile_with_selection(parse("STRICT(R+)"))
    out = cea.run_complex_events(Stream.from_types("R R R R"))
    assert out[3] == {frozenset(range(k, 4)) for k in range(4)}


# ------------------------------------------------------------------------------------------ normal form (§9.2)

CEAS = st.one_of(random_ceas(), formulas(selection=False, max_depth=2).map(compile_automaton))


@settings(max_examples=100)
@given(CEAS, STREAMS)
def test_prop_9_2_single_variable(cea: CEA, streams_: list[Stream]) -> None:
    """Prop 9.2: relabelling every non-empty label to {X} is CE-equivalent and no larger."""
    sv = single_variable(cea)
    assert is_single_variable(sv) and sv.size <= cea.size
    for stream in streams_:
        assert sv.run_complex_events(stream) == cea.run_complex_events(stream)


@settings(max_examples=100)
@given(CEAS, STREAMS)
def test_prop_9_2_normal_form(cea: CEA, streams_: list[Stream]) -> None:
    """§9.2: normal_form(A) is single-variable, I/O-deterministic and ≡_c A, with one accepting run per
    output complex event (what Algorithm 2 needs: no duplicate outputs)."""
    nf = normal_form(cea)
    assert is_normal_form(nf), nf.describe()
    for stream in streams_:
        assert nf.run_complex_events(stream) == cea.run_complex_events(stream)
        for n in range(len(stream)):
            runs = list(nf.accepting_runs(stream, n))
            assert len(runs) == len(nf.complex_events(stream, n))


def test_normal_form_order_matters() -> None:
    """docs/decisions.md D17: determinizing first and relabelling afterwards breaks I/O-determinism: two •-transitions on
    the same type from {q0}, and the CE {0} is produced by two accepting runs."""
    a = CEA(["q0", "q1", "q2"], [("q0", TRUE, {"A"}, "q1"), ("q0", TRUE, {"B"}, "q2")], ["q0"], ["q1", "q2"])
    stream = Stream.from_types("R")
    wrong = single_variable(io_determinize(a, complete=False))
    assert not wrong.is_io_deterministic()
    assert len(list(wrong.accepting_runs(stream, 0))) == 2
    right = normal_form(a)
    assert is_normal_form(right)
    assert len(list(right.accepting_runs(stream, 0))) == 1
    assert right.run_complex_events(stream) == wrong.run_complex_events(stream) == [{frozenset({0})}]


@settings(max_examples=100)
@given(random_ceas(), STREAMS, st.sampled_from(list(Strategy)))
def test_theorem_7_2_select_cea_ce(cea: CEA, streams_: list[Stream], strategy: Strategy) -> None:
    """The CE-level route: select_cea_ce(A) ≡_c SEL(A), and it is in normal form."""
    a_sel = _check_selection(strategy, (cea.describe(), cea), streams_, build=select_cea_ce,
                             level="complex events")
    assert is_normal_form(a_sel), a_sel.describe()


def test_theorem_7_2_select_cea_ce_tie() -> None:
    a = select_cea_ce(tie_cea(), Strategy.NXT)
    assert a.run_complex_events(Stream.from_types("R R")) == [frozenset(), {frozenset({0, 1})}]
    assert is_normal_form(a)
