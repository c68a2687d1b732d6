"""The CEL paper §9: CCES (Algorithm 1), Algorithm 2 (Theorem 9.1, Cor. 9.3) and lazy Prop. 5.5.

Oracles O4 (Fig. 7) and O5 (Fig. 8) exactly; Algorithm 2 differentially against the CEA run semantics
(Def. 5.2) and the reference CEL semantics; complexity by counting operations, never by timing:

* enumeration (Algorithm 1): at most ``|C| + 1`` node visits between consecutive outputs (c = 1, derived in
  :meth:`cer_theory.engines.cces.structure.Cces.enumerate`), none after the last;
* update (Algorithm 2): at most |Q'| new nodes and ``7·|Q'| + |𝒫|`` counted operations per event, Q' the states
  of the (lazily) determinized automaton, with no growth along a 5,000-event stream.
"""

from __future__ import annotations

import random
from itertools import islice

import pytest
from hypothesis import assume, given, settings

from cer_theory.automata.cea import CEA
from cer_theory.engines.cces import (BOTTOM, Cces, CcesError, CcesEvaluator, EnumerationStats, evaluate_cea,
                             evaluate_formula)
from cer_theory.formalisms.cel.compile import compile_automaton
from cer_theory.formalisms.cel.normal_form import single_variable
from cer_theory.automata.determinize.eager import io_determinize
from cer_theory.core.errors import SizeBudgetExceeded, UnsupportedError
from cer_theory.core.events import Event, Stream
from cer_theory.examples.running_example import FORMULAS, example_5_3_cea, fig8_cea, fire_stream
from cer_theory.automata.determinize.lazy import LazyDeterminizer
from cer_theory.core.predicates.ast import TRUE, is_type
from cer_theory.formalisms.cel.semantics import evaluate_complex_events
from cer_theory.formalisms.cel.ast import Formula
from cer_theory.formalisms.cel.parser import parse
from cer_theory.testing.harness import first_mismatch
from cer_theory.testing.strategies import Schema, formulas, streams

MATCHING = Schema(types=("R", "T", "U"))
"""Streams without the never-matched type V: about half the generated cases then have non-empty outputs."""


def _sets(*ces: tuple[int, ...]) -> frozenset[frozenset[int]]:
    return frozenset(frozenset(c) for c in ces)


def _compile(text: str) -> CEA:
    return compile_automaton(parse(text))


# ------------------------------------------------------------------------------------------------ O4 (Fig. 7)


def _fig7() -> tuple[Cces, dict[int, int]]:
    """O4, the CEL paper Fig. 7 (§9.2), rebuilt: nodes named by event; first/last 1:(⊥,⊥) 2:(1,1) 3:(1,⊥) 4:(⊥,⊥)
    5:(2,3) 6:(2,4); next 1→⊥, 2→3, 3→4."""
    d, bot = Cces.init(debug=True)
    n = {}
    n[1] = d.extend(1, bot, bot)
    d.append(n[1], bot)
    n[2] = d.extend(2, n[1], n[1])
    n[3] = d.extend(3, n[1], bot)
    n[4] = d.extend(4, bot, bot)
    d.append(n[2], n[3])
    d.append(n[3], n[4])
    n[5] = d.extend(5, n[2], n[3])
    n[6] = d.extend(6, n[2], n[4])
    return d, n


def test_O4_fig7_cces_sets_exactly() -> None:
    d, n = _fig7()
    d.check_valid()
    assert d.ce(n[5]) == _sets((1, 2, 5), (1, 3, 5), (3, 5))
    assert d.ce_range(n[2], n[4]) == _sets((1, 2), (1, 3), (3,), (4,))
    assert d.ce(n[6]) == _sets((1, 2, 6), (1, 3, 6), (3, 6), (4, 6))
    assert len(d.ce(n[5]) | d.ce(n[6])) == 7  # the paper's set 𝒞
    assert d.ce(BOTTOM) == _sets(())


@pytest.mark.parametrize("pair", [(5, 5), (6, 6), (2, 4), (2, 3), (1, 1), (3, 4)])
def test_algorithm_1_enumerates_ce_without_repetition_on_fig7(pair: tuple[int, int]) -> None:
    """Algorithm 1 outputs exactly CE(n1, n2) (computed from the definition), each once (property 5)."""
    d, n = _fig7()
    stats = EnumerationStats().record_delays()
    out = list(d.enumerate(n[pair[0]], n[pair[1]], stats))
    assert len(out) == len(set(out)) == d.path_count(n[pair[0]], n[pair[1]])
    assert set(out) == d.ce_range(n[pair[0]], n[pair[1]])
    assert all(visits <= size + 1 for visits, size in stats.delays) and stats.tail == 0


def test_cces_operation_preconditions_are_checked() -> None:
    d, n = _fig7()
    with pytest.raises(CcesError, match="already"):
        d.append(n[1], n[4])  # next(1) is defined
    with pytest.raises(CcesError, match="does not reach"):
        d.extend(7, n[4], n[1])  # 4 does not reach 1
    with pytest.raises(CcesError, match="cyclic"):
        d.append(n[4], n[2])  # 2 → 3 → 4 → 2
    with pytest.raises(CcesError, match="position"):
        d.extend(4, n[2], n[4])  # property 4: list(2, 4) holds the child at position 4
    assert len(d) == 7  # failed operations add nothing


def test_cces_partial_persistence() -> None:
    """The CEL paper §9.2: extend and append leave CE(n1, n2) of older pairs unchanged."""
    d, bot = Cces.init(debug=True)
    a = d.extend(0, bot, bot)
    b = d.extend(1, bot, bot)
    before = d.ce_range(a, a)
    d.append(a, b)
    c = d.extend(2, a, b)
    assert d.ce_range(a, a) == before == _sets((0,))
    assert d.ce_range(a, b) == _sets((0,), (1,)) and d.ce(c) == _sets((0, 2), (1, 2))


# ------------------------------------------------------------------------------------------------ O5 (Fig. 8)


def _named(state):
    return next(iter(state)) if isinstance(state, frozenset) and len(state) == 1 else state


@pytest.mark.parametrize("normal_form", [True, False], ids=["as-given", "lazy-determinized"])
def test_O5_fig8_algorithm_2_trace(normal_form: bool) -> None:
    """O5, the CEL paper Fig. 8 (§9.2), rebuilt: T after each event of ``U V V W`` (• before ∘), next chains, and ⟦A⟧_3."""
    ev = CcesEvaluator(fig8_cea(), normal_form=normal_form, debug=True)
    d = ev.cces
    by_event = {}

    def table():
        return {_named(q): pair for q, pair in ev.describe_table().items()}

    def next_chain(k: int) -> list:
        chain, node = [], by_event[k]
        while node is not None:
            chain.append("⊥" if node == BOTTOM else d.event(node))
            node = d.next(node)
        return chain

    outputs = []
    for i, e in enumerate(Stream.from_types("U V V W")):
        outputs.append(list(ev.process(e)))
        by_event.update({d.event(m): m for m in d.nodes() if m != BOTTOM})
        if i == 0:
            assert table() == {"q1": ("⊥", "⊥"), "q2": (0, 0)}
        if i == 1:
            assert table() == {"q1": ("⊥", "⊥"), "q2": (1, 0)} and next_chain(1) == [1, 0]
        if i == 2:
            assert table() == {"q1": ("⊥", "⊥"), "q2": (2, 0)} and next_chain(2) == [2, 1, 0]
        if i == 3:
            assert table() == {"q1": ("⊥", "⊥"), "q2": (2, 0), "q3": (3, 3)}
            assert d.children(by_event[3]) == d.chain(by_event[2], by_event[0])
    assert [set(o) for o in outputs[:3]] == [set(), set(), set()]
    assert len(outputs[3]) == 4 and set(outputs[3]) == _sets((0, 3), (0, 1, 3), (0, 2, 3), (0, 1, 2, 3))
    assert len(d) - 1 == 4  # one node per event: positions 0..3
    d.check_valid()


# ------------------------------------------------------------------------------------------------ Thm 9.1 / Cor 9.3


def _check_algorithm_2(phi: Formula, stream: Stream) -> None:
    cea = compile_automaton(phi)
    ev = CcesEvaluator(cea, debug=True)
    got, pairs = [], []
    for n, e in enumerate(stream):
        out = list(ev.process(e))
        assert len(out) == len(set(out)), f"duplicate outputs at n={n} for {phi} on {stream.types()}: {out}"
        got.append(frozenset(out))
        assert ev.last_enumeration.max_excess <= 1 and ev.last_enumeration.tail == 0
        stats = ev.stats.per_event[-1]
        assert stats.nodes_created <= ev.automaton_size
        assert stats.table_ops <= 7 * ev.automaton_size
        assert stats.predicate_evals == len(ev.determinizer.predicates)
        ev.cces.check_valid()  # properties 1–4 after every update
        for _, (n1, n2) in ev.table.items():  # live lists: appendable end, and property 5
            assert ev.cces.next(n2) is None
            assert ev.cces.path_count(n1, n2) == len(ev.cces.ce_range(n1, n2))
        pairs.append([pair for _, pair in ev.output_lists()])
    for reference, expected in (("CEA run (Def. 5.2)", cea.run_complex_events(stream)),
                                ("semantics", evaluate_complex_events(phi, stream))):
        mismatch = first_mismatch(phi, stream, expected, got, level="complex events", reference=reference,
                                  candidate="Algorithm 2")
        assert mismatch is None, str(mismatch)
    # partial persistence: the lists of every position still enumerate that position's output
    for n, ps in enumerate(pairs):
        assert frozenset(c for p in ps for c in ev.cces.enumerate(*p)) == got[n]


@settings(max_examples=500)
@given(formulas(selection=False, max_depth=3), streams(MATCHING, min_length=3, max_length=8))
def test_theorem_9_1_algorithm_2_equals_cea_and_semantics(phi: Formula, stream: Stream) -> None:
    """Thm 9.1 + Cor 9.3 on generated unary formulas: per n, Algorithm 2 outputs ⟦A_φ⟧_n(S) = ⟦φ⟧_n(S) without
    duplicates; CCES properties 1–5, node and operation bounds, output-linear delay, partial persistence."""
    _check_algorithm_2(phi, stream)


@pytest.mark.parametrize("name", ["φ1", "φ1'", "φ2", "φ2'", "φ3", "φ3'", "φ4"])
def test_O1_running_example_via_algorithm_2(name: str) -> None:
    stream = fire_stream()
    assert evaluate_formula(FORMULAS[name], stream) == evaluate_complex_events(parse(FORMULAS[name]), stream)


def test_footnote_2_outputs_can_be_enumerated_after_later_updates() -> None:
    """The CEL paper, footnote 2: D is partially persistent, so the iterator returned for position n may be consumed
    after later events have been processed and still gives ⟦A⟧_n(S)."""
    cea, stream = _compile(FORMULAS["φ3"]), fire_stream()
    ev = CcesEvaluator(cea)
    pending = [ev.process(e) for e in stream]
    assert [frozenset(it) for it in pending] == cea.run_complex_events(stream)


def test_O8_empty_complex_event_is_an_output() -> None:
    """O8 (our own) / the CEL paper §9.1: ``π_∅(R)`` on ``R T R`` outputs {∅} at 0 and 2 — enumerated as one empty
    CE (from ⊥), distinct from the empty output at 1."""
    ev = CcesEvaluator(_compile("PI[](R)"))
    outs = [list(ev.process(e)) for e in Stream.from_types("R T R")]
    assert outs == [[frozenset()], [], [frozenset()]]


@pytest.mark.parametrize("strategy", ["STRICT", "NXT", "LAST", "MAX"])
def test_O1_9_selection_via_algorithm_2(strategy: str) -> None:
    text, stream = f"{strategy}({FORMULAS['φ1']})", fire_stream()
    assert evaluate_formula(text, stream) == evaluate_complex_events(parse(text), stream)


@settings(max_examples=150)
@given(formulas(selection=False, max_depth=3), streams(MATCHING, min_length=3, max_length=6))
def test_theorem_9_1_on_the_eager_normal_form(phi: Formula, stream: Stream) -> None:
    """Algorithm 2 run directly on the eager normal form (Prop. 9.2, then Prop. 5.5: footnote 3 keeps it
    single-variable) agrees with the lazy route and with the CEA run, without duplicates."""
    cea = compile_automaton(phi)
    try:
        nf = io_determinize(single_variable(cea), budget=200, complete=False)
    except SizeBudgetExceeded:
        assume(False)
    direct = CcesEvaluator(nf, normal_form=True)
    got = []
    for e in stream:
        out = list(direct.process(e))
        assert len(out) == len(set(out))
        got.append(frozenset(out))
    mismatch = first_mismatch(phi, stream, cea.run_complex_events(stream), got, level="complex events",
                              reference="CEA run (Def. 5.2)", candidate="Algorithm 2 on the eager normal form")
    assert mismatch is None, str(mismatch)
    assert got == list(evaluate_cea(cea, stream))


def test_section_4_4_relabel_before_determinizing() -> None:
    """docs/decisions.md D17: determinizing first and then relabelling leaves two •-transitions on one type (rejected as not
    in normal form; Algorithm 2 would output {0} twice); relabelling first gives the right single output."""
    R = is_type("R")
    cea = CEA(["p", "q", "r"], [("p", R, {"A"}, "q"), ("p", R, {"B"}, "r")], ["p"], ["q", "r"])
    wrong = single_variable(io_determinize(cea))
    with pytest.raises(UnsupportedError, match="I/O-deterministic"):
        CcesEvaluator(wrong, normal_form=True)
    right = io_determinize(single_variable(cea))
    assert right.is_io_deterministic()
    ev = CcesEvaluator(right, normal_form=True)
    assert list(ev.process(Event("R"))) == [frozenset({0})]
    assert list(evaluate_cea(cea, Stream.from_types("R"))) == [_sets((0,))]


def test_normal_form_mode_rejects_several_variables_and_initial_states() -> None:
    R = is_type("R")
    with pytest.raises(UnsupportedError, match="single-variable"):
        CcesEvaluator(CEA(["p", "q"], [("p", R, {"A"}, "q"), ("q", R, {"B"}, "q")], ["p"], ["q"]),
                      normal_form=True)
    with pytest.raises(UnsupportedError, match="initial"):
        CcesEvaluator(CEA(["p", "q"], [("p", R, {"A"}, "q")], ["p", "q"], ["q"]), normal_form=True)


def test_example_5_3_via_algorithm_2_equals_cea_run() -> None:
    cea = example_5_3_cea()
    stream = fire_stream()
    assert list(evaluate_cea(cea, stream)) == cea.run_complex_events(stream)
    assert list(evaluate_cea(cea, stream, normal_form=False)) == list(
        evaluate_cea(single_variable(cea), stream, normal_form=True))


# ------------------------------------------------------------------------------------------------ complexity


def test_theorem_9_1_output_linear_delay_on_exponential_output() -> None:
    """2^12 outputs at one position: every output C costs at most |C| + 1 node visits (c = 1), none after."""
    ev = CcesEvaluator(fig8_cea(), normal_form=True)
    for e in Stream.from_types("U " + "V " * 12):
        ev.update(e)
    ev.update(Event("W"))
    stats = EnumerationStats().record_delays()
    out = [c for _, (n1, n2) in ev.output_lists() for c in ev.cces.enumerate(n1, n2, stats)]
    assert len(out) == len(set(out)) == 2 ** 12
    assert all(visits <= size + 1 for visits, size in stats.delays)
    assert stats.visits == sum(v for v, _ in stats.delays) and stats.tail == 0


_LONG_FORMULA = "(R IN A ; (T FILTER T.x > 1)+ ; U) OR (T ; U+ ; R) OR START(R ; U)"


def test_theorem_9_1_constant_update_work_on_a_long_stream() -> None:
    """5,000 events: per-event nodes ≤ |Q'| and work ≤ 7·|Q'| + |𝒫|, and the last 1,000 events never need more
    work than the first 1,000 did (no growth with the stream); the lazy automaton stops growing."""
    rng = random.Random(2021)
    stream = [Event(rng.choice("RTUV"), x=rng.randrange(4)) for _ in range(5000)]
    ev = CcesEvaluator(_compile(_LONG_FORMULA))
    for e in stream:
        ev.update(e)
    per = ev.stats.per_event
    q, preds = ev.automaton_size, len(ev.determinizer.predicates)
    assert all(s.nodes_created <= q for s in per)
    assert all(s.work <= 7 * q + preds for s in per)
    early, late = per[:1000], per[-1000:]
    assert max(s.work for s in late) == max(s.work for s in early)
    assert max(s.active for s in late) <= max(s.active for s in early)
    assert sum(s.cache_misses for s in late) == 0
    assert len(ev.cces) - 1 == ev.stats.nodes_created <= q * len(stream)


def test_algorithm_1_iterative_on_a_20000_long_next_chain() -> None:
    """Fig. 8 on U V^20000 W: q2's list is a next chain of 20,001 nodes; enumeration is iterative, so the first
    outputs come without recursion errors, each within |C| + 1 visits."""
    k = 20_000
    ev = CcesEvaluator(fig8_cea(), normal_form=True, keep_stats=False)
    ev.update(Event("U"))
    v = Event("V")
    for _ in range(k):
        ev.update(v)
    assert ev.stats.max_nodes_per_event == 1
    stats = EnumerationStats().record_delays()
    n1, n2 = ev.table["q2"]
    assert len(ev.cces.chain(n1, n2)) == k + 1
    ev.update(Event("W"))
    (_, (m1, m2)), = ev.output_lists()
    first = list(islice(ev.cces.enumerate(m1, m2, stats), 5))
    assert first[0] == frozenset(range(k + 2))  # the greedy descent takes every V
    assert len(set(first)) == 5 and all(0 in c and k + 1 in c for c in first)
    assert all(visits <= size + 1 for visits, size in stats.delays)


# ------------------------------------------------------------------------------------------------ lazy Prop 5.5


def _eager_successors(eager: CEA, state, event: Event) -> dict:
    out: dict = {}
    for t in eager.out(state):
        if t.predicate(event):
            assert t.labels not in out, "eager types must be disjoint"
            out[t.labels] = t.target
    return out


def _check_lazy_equals_eager(cea: CEA, stream: Stream) -> None:
    try:
        eager = io_determinize(cea, budget=400)
    except SizeBudgetExceeded:
        assume(False)
    (start,) = eager.initial
    full, partial = LazyDeterminizer(cea, complete=True), LazyDeterminizer(cea)
    assert full.initial == partial.initial == start
    frontier = {start}
    for e in stream:
        nxt = set()
        for r in frontier:
            want = _eager_successors(eager, r, e)
            assert dict(full.step(r, e)) == want
            assert dict(partial.step(r, e)) == {L: q for L, q in want.items() if q}
            assert full.is_final(r) == (r in eager.final)
            nxt.update(want.values())
        frontier = nxt
    assert set(full.materialized()) <= eager.states
    assert set(partial.materialized()) <= eager.states and frozenset() not in partial.materialized()


@settings(max_examples=250)
@given(formulas(selection=False, max_depth=3), streams(max_length=6))
def test_proposition_5_5_lazy_equals_eager_determinization(phi: Formula, stream: Stream) -> None:
    """For every reached subset and event, the lazy Δ(R, t, L) equals the eager automaton's transition on the
    event's minterm, for every label set; the dead state ∅ appears only with complete=True."""
    _check_lazy_equals_eager(compile_automaton(phi), stream)


def _kth_from_last(k: int) -> CEA:
    """The classic NFA whose subset construction is exponential: an R exactly k-1 events before the end, which
    is marked (the mark is at the end, so runs are not told apart by labels before it)."""
    states = list(range(k + 1))
    trans = ([(0, TRUE, (), 0), (0, is_type("R"), (), 1)] + [(i, TRUE, (), i + 1) for i in range(1, k - 1)]
             + [(k - 1, TRUE, {"X"}, k)])
    return CEA(states, trans, [0], [k])


def test_lazy_determinizer_counts_and_budget() -> None:
    cea = _kth_from_last(6)
    lazy = LazyDeterminizer(cea)
    r, e = lazy.initial, Event("R")
    lazy.step(r, e)
    lazy.step(r, e)
    assert (lazy.cache_misses, lazy.cache_hits, lazy.predicate_evaluations) == (1, 1, 4)
    rng = random.Random(5)
    stream = Stream(Event(rng.choice("RT")) for _ in range(200))
    with pytest.raises(SizeBudgetExceeded, match="lazy I/O-determinization"):
        list(evaluate_cea(cea, stream, budget=10))
    ev = CcesEvaluator(cea)
    assert list(ev.run(stream)) == cea.run_complex_events(stream)
    assert 10 < ev.automaton_size <= 2 ** 5 + 1  # {0} ∪ any subset of {1..5}, and {6}


# ------------------------------------------------------------------------------------------------ drawing


def test_cces_to_dot_draws_fig8_with_the_table() -> None:
    ev = CcesEvaluator(fig8_cea(), normal_form=True)
    for e in Stream.from_types("U V V W"):
        ev.update(e)
    dot = ev.to_dot(title="Fig. 8")
    assert dot.startswith('digraph "Fig. 8"') and 'label="⊥"' in dot
    assert dot.count("style=dotted") == 2  # next 1→0 and 2→1
    assert "T[q3]" in dot and "T[q2]" in dot
    svg = ev.to_svg()  # the dot program, or Graphviz in WebAssembly: drawings work on every machine
    assert "<svg" in svg and "T[q3]" in svg and "⊥" in svg


def test_cces_text_forms_read_like_the_fig8_trace() -> None:
    ev = CcesEvaluator(fig8_cea(), normal_form=True)
    for e in Stream.from_types("U V V W"):
        ev.update(e)
    text = ev._repr_mimebundle_()["text/plain"]
    assert text == ev.describe()
    assert "T[q3] = (3, 3)" in text and "T[q2] = (2, 0)" in text and "T[q1] = (⊥, ⊥)" in text
    assert "#1: position 0, children ⊥..⊥, next -" in text and "#3: position 2, children #2..#1, next #2" in text
    d, _ = Cces.init()
    assert d._repr_mimebundle_(include=["text/plain"]) == {"text/plain": "Cces(0 nodes + ⊥)"}
