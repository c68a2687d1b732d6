"""Hypothesis strategies for small random complex event automata (the CEL paper, Def. 5.1).

:func:`random_ceas` draws arbitrary CEAs, not only compiled ones: several initial states, any final set (empty
too), ∅-labelled and multi-variable transitions, overlapping predicates, unreachable and dead states. They
are the inputs on which automaton constructions (determinization, Theorem 7.2, the normal form, …) are checked
against the run semantics :meth:`CEA.run`. The default predicates read the schema of
:func:`cer_theory.testing.strategies.streams` (types R, T, U, V; an attribute ``x`` in 0..3, sometimes
missing), so generated automata match something on generated streams::

    from hypothesis import given
    from cer_theory.testing.strategies.automata import random_ceas
    from cer_theory.testing.strategies import streams

    @given(random_ceas(max_states=3, single_variable=True), streams(max_length=6))
    def test_my_construction(cea, stream): ...

Shrinking goes towards fewer states, fewer transitions, the first predicate and the empty label set.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from cer_theory.automata.cea import CEA, Transition
from cer_theory.core.predicates.ast import TRUE, Predicate, cmp, is_type, neg

DEFAULT_PREDICATES: tuple[Predicate, ...] = (TRUE, is_type("R"), is_type("T"), cmp("x", "<", 2), neg(is_type("R")))
"""TRUE, type tests, an attribute test (false where ``x`` is missing) and a complement: they overlap."""


@st.composite
def random_ceas(draw: st.DrawFn, *, min_states: int = 1, max_states: int = 4, variables: Sequence[str] = ("A", "B"),
                predicates: Sequence[Predicate] = DEFAULT_PREDICATES, single_variable: bool = False,
                empty_labels: bool = True, min_transitions: int = 0, max_transitions: int | None = None,
                max_initial: int = 2, min_final: int = 0) -> CEA:
    """A random CEA with states ``0..k-1`` (``min_states ≤ k ≤ max_states``).

    * transitions: ``min_transitions`` to ``max_transitions`` (default ``2k + 2``), each ``(p, P, L, q)`` with P from
      ``predicates`` and L a subset of ``variables`` (∅ included unless ``empty_labels=False``);
      ``single_variable=True`` restricts L to ∅ and ``{variables[0]}`` (the labels of the §9.2 normal form);
    * initial: 1..``max_initial`` states; final: any subset of at least ``min_final`` states (default: possibly
      empty).
    """
    if not variables or not predicates:
        raise ValueError("random_ceas needs at least one variable and one predicate")
    k = draw(st.integers(min_states, max_states))
    state = st.integers(0, k - 1)
    if single_variable:
        label = st.sampled_from([frozenset(), frozenset([variables[0]])])
    else:
        label = st.frozensets(st.sampled_from(tuple(variables)), max_size=len(variables))
    if not empty_labels:
        label = label.filter(bool)
    transition = st.builds(Transition, state, st.sampled_from(tuple(predicates)), label, state)
    limit = 2 * k + 2 if max_transitions is None else max_transitions
    transitions = draw(st.lists(transition, min_size=min(min_transitions, limit), max_size=limit))
    initial = draw(st.sets(state, min_size=1, max_size=max(1, min(max_initial, k))))
    final = draw(st.sets(state, min_size=min(min_final, k), max_size=k))
    return CEA(range(k), transitions, initial, final, name="random")


__all__ = ["random_ceas", "DEFAULT_PREDICATES"]
