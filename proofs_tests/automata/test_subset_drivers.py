"""One subset step, many drivers (the CEL paper Prop. 5.5; the CORE paper §4.4): the eager determinization keyed by Z3
minterms, the lazy one keyed by signatures and CORE's keyed by bit vectors give automata with the same run
semantics as the CEA they determinize, on random CEAs and streams. The three keys of one event coincide, and the
step itself is checked against Δ(R, t, L) evaluated from its definition."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.automata.cea import CEA
from cer_theory.automata.determinize.bitmask import Determinizer
from cer_theory.automata.determinize.eager import io_determinize
from cer_theory.automata.determinize.lazy import LazyDeterminizer
from cer_theory.automata.determinize.step import MoveTable, minterm_key, signature_key, subset_moves
from cer_theory.core.events import ComplexEvent, Event, Valuation
from cer_theory.core.predicates import TRUE, cmp, is_type, minterms, neg
from cer_theory.core.predicates.masks import compile_mask
from cer_theory.testing.strategies import streams
from cer_theory.testing.strategies.automata import random_ceas

# Overlapping predicates (x<2 and x>0, R and ¬T, ...) so that the subsets really merge runs.
PREDICATES = (TRUE, is_type("R"), is_type("T"), cmp("x", "<", 2), cmp("x", ">", 0), neg(is_type("T")))


def deterministic_run(start: Hashable, moves: Callable[[Hashable, Event], Mapping[Hashable, Hashable]],
                      is_final: Callable[[Hashable], bool], stream: Sequence[Event]
                      ) -> list[frozenset[tuple[Hashable, frozenset]]]:
    """Def. 5.2 read off a driver: after each t_n, every run from ``start`` that ends in a final state, as the
    set of ``(label, position)`` pairs it read. ``moves(state, event)`` maps each label to the successor (a
    missing label, ∅ or -1 is no transition: the dead state never accepts). Every label sequence is explored;
    the automaton is I/O-deterministic, so each sequence is one run."""
    configs: list[tuple[Hashable, frozenset]] = [(start, frozenset())]
    out = []
    for n, event in enumerate(stream):
        configs = [(q2, marks | {(label, n)}) for q, marks in configs
                   for label, q2 in moves(q, event).items() if q2 is not None and q2 != -1 and q2 != frozenset()]
        out.append(frozenset(marks for q, marks in configs if is_final(q)))
    return out


def valuations(marked: frozenset[tuple[frozenset[str], int]]) -> Valuation:
    """The valuation of a run that read label set L at position n for each (L, n) in ``marked``."""
    grouped: dict[str, set[int]] = {}
    for labels, n in marked:
        for var in labels:
            grouped.setdefault(var, set()).add(n)
    return Valuation(grouped)


@settings(max_examples=150, deadline=None)
@given(random_ceas(max_states=4, predicates=PREDICATES), st.lists(streams(max_length=6), min_size=1, max_size=3))
def test_eager_lazy_and_bitmask_drivers_have_the_run_semantics_of_the_cea(cea: CEA, streams_: list) -> None:
    """Prop. 5.5 through each driver of the one step: the valuations of the eager (minterm-keyed) and the lazy
    (signature-keyed) determinization are ⟦A⟧ᵛ_n(S); CORE's bit-vector determinization cuts labels down to
    "marks or not" (•/∘), so its runs give exactly the complex events ⟦A⟧_n(S)."""
    eager = io_determinize(cea, budget=5000)
    lazy = LazyDeterminizer(cea, complete=True)
    core = Determinizer(cea)

    def eager_moves(q: Hashable, e: Event) -> dict:
        return {t.labels: t.target for t in eager.out(q) if t.predicate(e)}

    def core_moves(q: int, e: Event) -> dict:
        marked, skipped = core.successors(q, core.mask(e))
        return {True: marked, False: skipped}

    for stream in streams_:
        expected = cea.run(stream)
        assert eager.run(stream) == expected, eager.describe()
        eager_runs = deterministic_run(next(iter(eager.initial)), eager_moves, lambda q: q in eager.final, stream)
        lazy_runs = deterministic_run(lazy.initial, lazy.step, lazy.is_final, stream)
        assert lazy_runs == eager_runs, cea.describe()
        assert [frozenset(map(valuations, runs)) for runs in lazy_runs] == expected, cea.describe()
        core_runs = deterministic_run(core.initial, core_moves, lambda q: core.final[q], stream)
        assert [frozenset(ComplexEvent(n for mark, n in run if mark) for run in runs) for runs in core_runs] \
            == cea.run_complex_events(stream), cea.describe()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(PREDICATES), min_size=1, max_size=4, unique=True), streams(max_length=6))
def test_minterm_signature_and_bit_vector_keys_of_an_event_coincide(preds: list, stream) -> None:
    """An event lies in exactly one type (Def. 5.6); its minterm's key, its signature's key and CORE's compiled
    bit vector are the same number."""
    types = minterms(tuple(preds))
    mask = compile_mask(preds)
    for e in stream:
        (own,) = [m for m in types if m.predicate(e)]
        assert minterm_key(own) == signature_key([p(e) for p in preds]) == mask(e)


@settings(max_examples=150, deadline=None)
@given(random_ceas(max_states=4, predicates=PREDICATES), streams(max_length=4), st.data())
def test_the_step_is_delta_by_definition(cea: CEA, stream, data) -> None:
    """``subset_moves`` keyed by an event's bit vector is ``Δ(R, t, L) = {q | p ∈ R, (p,P',L,q) ∈ Δ, t ∈ P'}``
    with every predicate evaluated on the event, for every subset R and label set L."""
    table = MoveTable.of(cea)
    mask = compile_mask(table.predicates)
    R = frozenset(data.draw(st.sets(st.sampled_from(sorted(cea.states)))))
    for e in stream:
        moves = subset_moves(table, R, mask(e))
        by_definition: dict[frozenset[str], set] = {}
        for t in cea.transitions:
            if t.source in R and t.predicate(e):
                by_definition.setdefault(t.labels, set()).add(t.target)
        assert moves.by_label == {L: frozenset(qs) for L, qs in by_definition.items()}
        assert moves.all == frozenset().union(*moves.by_label.values())
        assert moves.mark == frozenset().union(*(qs for L, qs in moves.by_label.items() if L))
        assert moves.skip == moves.by_label.get(frozenset(), frozenset())
