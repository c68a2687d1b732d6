"""CEQL → CEA: the CORE paper (*CORE: a Complex Event Recognition Engine*), Theorem 1 and Appendix A, with the
Kleene-closure fix of docs/decisions.md D23.

CORE's automata differ from the CEL paper's (Theorem 6.2, :mod:`cer_theory.formalisms.cel.compile`) in how runs start: a run may start at
*any* position, in the single initial state, which has no incoming transitions (the CORE paper §3), and the CE it yields is
``([i, j], marked positions)`` with ``i`` the run's first position. So atoms have no ``TRUE/∅`` self-loop on
their initial state; ``;`` puts that loop on the *second* operand's initial states instead (the gap), and
windows, PARTITION BY, CONSUME BY and LIMIT are left to the evaluator. The construction goes through VCEA
(labels are variable sets, the CORE paper App. A.1); a transition marks (•) iff its label set is non-empty.

Invariant kept by every case: initial states have no incoming transitions, and, before SELECT's projection,
every transition leaving an initial state or entering a final one marks. Hence a run's interval is the
valuation's interval of Fig. 2 (it starts and ends on marked positions unless a projection unmarks them).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

from cer_theory.automata.building import Fresh, add_variable, disjoint_union, into, out_of, tr
from cer_theory.automata.cea import CEA, Transition
from cer_theory.core.budget import charge
from cer_theory.core.errors import DEFAULT_BUDGET, UnsupportedError
from cer_theory.core.events import CoreComplexEvent, Event
from cer_theory.core.predicates.ast import TRUE, is_type
from cer_theory.core.strategies import Strategy, ceql_strategy
from cer_theory.core.windows import Window
from cer_theory.formalisms.cel.ast import Atom, Contig, CPlus, Disj, Filter, Formula, In, Plus, Proj, Seq
from cer_theory.formalisms.cel.compile import _filter
from cer_theory.automata.determinize.selection import select_cea
from cer_theory.formalisms.ceql.ast import Query
from cer_theory.formalisms.ceql.semantics import evaluate_pattern


def _vcea(phi: Formula, fresh: Fresh, *, kleene_fix: bool) -> CEA:
    """The VCEA of App. A for a CEQL pattern (several initial states allowed, none with incoming edges)."""
    rec = lambda f: _vcea(f, fresh, kleene_fix=kleene_fix)  # noqa: E731

    if isinstance(phi, Atom):
        # R: q1 --P_R/{R}--> q2, I = {q1}, F = {q2}; no self-loop: a run starts where R is read.
        q1, q2 = fresh(), fresh()
        return CEA([q1, q2], [tr(q1, is_type(phi.name), {phi.name}, q2)], [q1], [q2])

    if isinstance(phi, In):
        # ψ AS X: X added to every transition with L ≠ ∅.
        return add_variable(rec(phi.body), phi.var)

    if isinstance(phi, Filter):
        # ψ FILTER X[P]: P conjoined on every transition with X ∈ L (AND nests, OR unions copies; the CEL paper's
        # Theorem 6.2 filter case, which is the same construction).
        return _filter(phi, rec(phi.body), fresh)

    if isinstance(phi, Disj):
        # ψ1 OR ψ2: disjoint union.
        return disjoint_union(rec(phi.left), rec(phi.right))

    if isinstance(phi, (Seq, Contig)):
        # ψ1 ; ψ2: each transition into F1 is copied into every q ∈ I2, and q gets a TRUE/∅ self-loop (the gap
        # of the non-contiguous ';'). ψ1 : ψ2 ([ours], CORE's ':') is the same without the self-loop.
        a1, a2 = rec(phi.left), rec(phi.right)
        link = [tr(t.source, t.predicate, t.labels, q) for t in into(a1, a1.final) for q in a2.initial]
        gap = [tr(q, TRUE, (), q) for q in a2.initial] if isinstance(phi, Seq) else []
        return CEA(a1.states | a2.states, [*a1.transitions, *a2.transitions, *gap, *link], a1.initial, a2.final)

    if isinstance(phi, (Plus, CPlus)):
        return _kleene(rec(phi.body), fresh, contiguous=isinstance(phi, CPlus), fix=kleene_fix)

    if isinstance(phi, Proj):
        # π_L(ψ): every label intersected with L.
        a = rec(phi.body)
        keep = frozenset(phi.variables)
        return CEA(a.states, [tr(t.source, t.predicate, t.labels & keep, t.target) for t in a.transitions],
                   a.initial, a.final)

    raise UnsupportedError(f"{type(phi).__name__} ({phi}) is not a CEQL operator: App. A compiles R, AS, FILTER, "
                           f"OR, ';', '+' and π (plus ':' and ':+' from CORE's grammar)")


def _kleene(a: CEA, fresh: Fresh, *, contiguous: bool, fix: bool) -> CEA:
    """``ψ+`` (App. A) with the fix of docs/decisions.md D23 (as CORE's code builds it): a fresh s receives a copy of
    every transition into F and sends a copy of every transition out of I; the fix adds (a) ``s --TRUE/∅--> s``
    (the gap between iterations; left out for the contiguous ``:+``) and (b) for each transition I→F a copy
    ``s → s`` (one-transition iterations, e.g. ``B+`` past two iterations). ``fix=False`` is App. A as printed.
    """
    s = fresh()
    into_s = [tr(t.source, t.predicate, t.labels, s) for t in into(a, a.final)]
    out_s = [tr(s, t.predicate, t.labels, t.target) for t in out_of(a, a.initial)]
    extra: list[Transition] = []
    if fix:
        if not contiguous:
            extra.append(tr(s, TRUE, (), s))
        extra += [tr(s, t.predicate, t.labels, s) for t in out_of(a, a.initial) if t.target in a.final]
    return CEA(a.states | {s}, [*a.transitions, *into_s, *out_s, *extra], a.initial, a.final)


def _single_initial(a: CEA, fresh: Fresh) -> CEA:
    """One initial state q0 without incoming transitions (the CORE paper §3): reuse I's state when |I| = 1 (it has no
    incoming edges by the invariant), else a fresh q0 with copies of all transitions leaving I. States that no
    run from q0 to a final state visits are dropped (same runs to final states); q0 itself is always kept."""
    if len(a.initial) == 1:
        (q0,) = a.initial
        out = a
    else:
        q0 = fresh()
        out = CEA(a.states | {q0}, [*a.transitions, *(tr(q0, t.predicate, t.labels, t.target)
                                                        for t in out_of(a, a.initial))], [q0], a.final)
    return out.restrict((out.reachable() & out.coreachable()) | {q0})


def compile_pattern(pattern: Formula, *, select: Iterable[str] | None = None, kleene_fix: bool = True) -> CEA:
    """The CEA of a WHERE pattern with SELECT's projection (``select=None`` is ``*``): App. A through VCEA, one
    initial state without incoming transitions, states renumbered 0..|Q|-1 breadth-first (q0 = 0)."""
    fresh = Fresh()
    a = _vcea(pattern, fresh, kleene_fix=kleene_fix)
    if select is not None:
        keep = frozenset(select)
        a = CEA(a.states, [tr(t.source, t.predicate, t.labels & keep, t.target) for t in a.transitions],
                a.initial, a.final)
    return _single_initial(a, fresh).relabel_states()


def compile_automaton(query: Query, *, budget: int | None = DEFAULT_BUDGET) -> CEA:
    """The CEA of a CEQL query (the CORE paper, Theorem 1): ``⟦Q⟧`` = the any-start runs of the result, before windows,
    PARTITION BY, CONSUME BY and LIMIT (applied by the evaluator).

    Selection strategies: ``ALL``/``ANY`` need nothing. ``STRICT`` keeps a CE iff its data has no gap, a property
    of the run alone, so the CEL paper's Theorem 7.2 STRICT automaton (``select_cea``, runs' marks tracked in three
    phases) is also correct for any-start runs; its initial state ``({q0}, 1)`` keeps no incoming transitions.
    ``NEXT``, ``LAST`` and ``MAX`` compare a run with the competing runs *of every start* ending at the same
    position; Theorem 7.2's automata track competitors only from the position where their own run starts
    (position 0 in the CEL paper), so an any-start run would be compared with later-starting runs only. They raise
    :class:`UnsupportedError` (see :func:`prefixed_selection_cea` for the runs-from-0 reading).
    """
    strategy = ceql_strategy(query.strategy or "ALL")
    a = compile_pattern(query.pattern, select=query.select)
    if strategy is None:
        return a
    if strategy is Strategy.STRICT:
        return select_cea(a, Strategy.STRICT, budget=budget)
    raise UnsupportedError(f"SELECT {query.strategy}: the {strategy.value} automaton of the CEL paper Theorem 7.2 "
                           f"compares runs that start at position 0, but CORE's runs start at every position; "
                           f"no any-start construction is known, so the engine does not support {query.strategy}")


def compile_automaton_printed(query: Query) -> CEA:
    """``compile_automaton`` with ``+`` exactly as App. A prints it (no TRUE/∅ loop on s, no I→F copy on s): kept to
    exhibit the erratum. ``A;B+;C`` on ``A B B B C`` misses ``{0,1,2,3,4}``; ``A;B+;C`` on ``A B X B C`` misses
    ``{0,1,3,4}`` (a gap between iterations). Selection strategies are not compiled."""
    return compile_pattern(query.pattern, select=query.select, kleene_fix=False)


def prefixed_selection_cea(query: Query, strategy: Strategy | str, *,
                           budget: int | None = DEFAULT_BUDGET) -> CEA:
    """The CEL paper's ``A_SEL`` (Theorem 7.2) for the automaton ``A'`` whose runs start at 0: ``A'`` is
    ``compile_automaton`` plus a fresh initial state r with ``r --TRUE/∅--> r`` and a copy of every transition out of
    q0, so ``⟦A'⟧ᵛ_j(S)`` collects the valuations of all any-start runs ending at j. Its runs from position 0
    (``CEA.run``) output the data ``D`` of the CEs that :func:`cer_theory.formalisms.ceql.semantics.select_strategy`
    keeps, without the intervals: a check of the reference's strategy reading, not an engine automaton."""
    strat = ceql_strategy(strategy) if isinstance(strategy, str) else strategy
    a = compile_pattern(query.pattern, select=query.select)
    if strat is None:
        return a
    r = "r"
    (q0,) = a.initial
    prefixed = CEA(a.states | {r}, [*a.transitions, tr(r, TRUE, (), r),
                                    *(tr(r, t.predicate, t.labels, t.target) for t in a.out(q0))], [r], a.final)
    return select_cea(prefixed, strat, budget=budget)


# ---------------------------------------------------------------------------------------------- any-start runs


def evaluate_compiled(query: Query, stream: Sequence[Event], *, budget: int | None = DEFAULT_BUDGET
                      ) -> list[frozenset[CoreComplexEvent]]:
    """The automaton-side reference for a whole query: :func:`any_start_run` of :func:`compile_automaton` on each
    PARTITION BY substream, with WITHIN and CONSUME BY applied exactly as
    :func:`cer_theory.formalisms.ceql.semantics.evaluate_pattern` applies them (LIMIT is not applied)."""
    cea = compile_automaton(query, budget=budget)
    return evaluate_pattern(query.pattern, stream, select=query.select, strategy=None,
                            partition_by=query.partition_by, within=query.within, consume=query.consume,
                            complex_events=lambda _phi, sub, _sel: any_start_run(cea, sub))


RUN = "the brute-force run of a CEQL query's automaton from every start"
"""What the work budget's messages call :func:`any_start_run`: one unit per configuration kept."""


def any_start_run(cea: CEA, stream: Sequence[Event], window: Window | None = None
                  ) -> list[frozenset[CoreComplexEvent]]:
    """``⟦A⟧^ε(S)`` of the CORE paper §3 by brute force: a run may start at any position i in an initial state; an
    accepting run over ``t_i … t_j`` yields ``([i, j], {k | step k marks})``. ``out[j]`` collects the CEs
    ending at j (as a set), with ``window`` applied to ``(key(i), key(j))`` when given."""
    n = len(stream)
    out: list[set[CoreComplexEvent]] = [set() for _ in range(n)]
    for i in range(n):
        config: set[tuple[Hashable, frozenset[int]]] = {(q, frozenset()) for q in cea.initial}
        for j in range(i, n):
            event = stream[j]
            nxt: set[tuple[Hashable, frozenset[int]]] = set()
            for q, marked in config:
                for t in cea.out(q):
                    if t.predicate(event):
                        nxt.add((t.target, marked | {j} if t.labels else marked))
            config = nxt
            charge(RUN, len(config))  # each configuration is a run kept: exponentially many on R+ (core.budget)
            if not config:
                break
            if window is not None and not window.admits(window.key(i, stream[i]), window.key(j, event)):
                continue
            for q, marked in config:
                if q in cea.final:
                    out[j].add(CoreComplexEvent(i, j, tuple(sorted(marked))))
    return [frozenset(s) for s in out]


__all__ = ["compile_pattern", "compile_automaton", "compile_automaton_printed", "prefixed_selection_cea",
           "any_start_run", "evaluate_compiled"]
