"""Proposition 5.5 (the CEL paper): every CEA has a valuation-equivalent I/O-deterministic CEA (subset construction
over the *types* of its predicates). Checked on compiled formulas (test_cea.py) and here on random CEAs, for the
Z3-pruned and the naive minterms, the eager and the lazy construction."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.automata.cea import CEA
from cer_theory.automata.determinize.eager import io_determinize
from cer_theory.automata.determinize.lazy import LazyDeterminizer
from cer_theory.core.predicates import TRUE, cmp, is_type, neg
from cer_theory.testing.strategies.automata import random_ceas
from cer_theory.testing.harness import first_mismatch
from cer_theory.testing.strategies import streams

# Overlapping predicates (x<2 and x>0, R and ¬T, ...) so that determinization has real work to do.
PREDICATES = (TRUE, is_type("R"), is_type("T"), cmp("x", "<", 2), cmp("x", ">", 0), neg(is_type("T")))


def _agree(a: CEA, b: CEA, stream, label: str) -> None:
    m = first_mismatch(f"{label} of a random CEA", stream, a.run(stream), b.run(stream), level="valuations",
                       reference="original", candidate=label)
    assert m is None, f"{m}\n{a.describe()}"


@settings(max_examples=200)
@given(random_ceas(max_states=4, predicates=PREDICATES), st.lists(streams(max_length=6), min_size=1, max_size=3))
def test_prop_5_5_on_random_ceas(cea: CEA, streams_: list) -> None:
    det = io_determinize(cea, budget=5000)
    assert det.is_io_deterministic(), det.describe()
    for s in streams_:
        _agree(cea, det, s, "IOdet")


@settings(max_examples=120)
@given(random_ceas(max_states=3, predicates=PREDICATES), streams(max_length=6))
def test_prop_5_5_pruned_and_naive_minterms_are_equivalent(cea: CEA, stream) -> None:
    """Z3 pruning only removes transitions on unsatisfiable types, which no event can take."""
    pruned, naive = io_determinize(cea, prune=True), io_determinize(cea, prune=False)
    assert len(pruned.transitions) <= len(naive.transitions)
    assert naive.is_io_deterministic()
    _agree(naive, pruned, stream, "Z3-pruned IOdet")
    _agree(cea, naive, stream, "naive IOdet")


@settings(max_examples=120)
@given(random_ceas(max_states=4, predicates=PREDICATES), streams(max_length=6))
def test_prop_5_5_lazy_follows_the_eager_automaton(cea: CEA, stream) -> None:
    """On every event, the lazy successor of each reached subset is the eager automaton's successor."""
    eager = io_determinize(cea)
    lazy = LazyDeterminizer(cea, complete=True)
    current = lazy.initial
    assert eager.initial == {current}
    for event in stream:
        moves = lazy.step(current, event)
        eager_moves = {t.labels: t.target for t in eager.out(current) if t.predicate(event)}
        assert {L: q for L, q in moves.items()} == eager_moves
        nonempty = [q for q in moves.values() if q]
        if not nonempty:
            break
        current = nonempty[0]
