"""The normal form of §9.2 (the CEL paper): single-variable and I/O-deterministic (Prop. 9.2,
footnote 3; the order: docs/decisions.md D17).

* Prop 9.2: replacing every non-empty label by ``{X}`` gives a CE-equivalent CEA of linear size
  (:func:`single_variable`); Footnote 3: I/O-determinizing a single-variable CEA keeps it single-variable.
* Order matters: relabel *first*, then determinize (:func:`normal_form`). Determinizing first and relabelling
  afterwards can leave two •-transitions on the same type (e.g. ``q0 -TRUE/{A}-> q1``, ``q0 -TRUE/{B}-> q2``
  become ``{q0} -TRUE/{X}-> {q1}`` and ``{q0} -TRUE/{X}-> {q2}``), which breaks Algorithm 2's precondition.
* :func:`select_cea_ce` is a simpler CE-level route for selection strategies (Theorem 7.2 after Prop. 9.2, as in
  Cor. 9.3; docs/decisions.md D18): on a single-variable CEA equal supports mean equal valuations, so Theorem
  7.2's constructions as printed are correct there, and the result is again in normal form.
"""

from __future__ import annotations

from cer_theory.automata.cea import CEA, Transition
from cer_theory.automata.determinize.eager import io_determinize
from cer_theory.automata.determinize.selection import select_cea_printed
from cer_theory.core.errors import DEFAULT_BUDGET
from cer_theory.formalisms.cel.ast import Strategy

VARIABLE = "X"


def single_variable(cea: CEA, var: str = VARIABLE) -> CEA:
    """The CEL paper, Prop 9.2: every non-empty label becomes ``{var}``; ``≡_c`` to ``cea``, at most its size
    (transitions that become equal merge)."""
    mark = frozenset([var])
    return CEA(cea.states, (Transition(t.source, t.predicate, mark if t.labels else t.labels, t.target)
                            for t in cea.transitions), cea.initial, cea.final,
               name=f"1var({cea.name})" if cea.name else "1var")


def _trim_keep_initial(cea: CEA) -> CEA:
    """Drop states no accepting run visits, but keep the initial state (|I| = 1 must survive an empty
    language); removing states and their transitions keeps I/O-determinism."""
    return cea.restrict((cea.reachable() & cea.coreachable()) | cea.initial)


def normal_form(cea: CEA, *, budget: int | None = DEFAULT_BUDGET, var: str = VARIABLE, trim: bool = True) -> CEA:
    """The §9.2 normal form: :func:`single_variable` first, then I/O-determinization (Prop 5.5); ``≡_c`` to
    ``cea``. ``trim=True`` drops useless states (keeping the initial one); states are renumbered 0..|Q|-1.
    Raises :class:`SizeBudgetExceeded` past ``budget`` subsets."""
    det = io_determinize(single_variable(cea, var), budget=budget, complete=not trim)
    out = _trim_keep_initial(det) if trim else det
    return CEA(out.states, out.transitions, out.initial, out.final,
               name=f"NF({cea.name})" if cea.name else "NF").relabel_states()


def is_single_variable(cea: CEA) -> bool:
    """Every label is ∅ or one and the same singleton ``{X}``."""
    return len({t.labels for t in cea.transitions if t.labels}) <= 1 and all(
        len(t.labels) <= 1 for t in cea.transitions)


def is_normal_form(cea: CEA) -> bool:
    """§9.2: single-variable and I/O-deterministic (Def. 5.4)."""
    return is_single_variable(cea) and cea.is_io_deterministic()


def select_cea_ce(cea: CEA, strategy: Strategy, *, budget: int | None = DEFAULT_BUDGET,
                  var: str = VARIABLE) -> CEA:
    """A normal-form CEA for ``SEL(A)`` at the complex-event level (the CEL paper Theorem 7.2 after Prop. 9.2;
    docs/decisions.md D18):
    ``⟦result⟧_n(S) = {sup μ | μ ∈ SEL(⟦A⟧ᵛ_n(S))}``.

    The normal form of A first, then Theorem 7.2 as printed. NXT/LAST/MAX/STRICT select by support only,
    and single-variable runs with equal support have equal valuations, so the printed constructions' erratum
    (ties in support) cannot occur. The result keeps A's labels (∅ and ``{var}``) and is I/O-deterministic.
    """
    return select_cea_printed(normal_form(cea, budget=budget, var=var), strategy, budget=budget)


__all__ = ["single_variable", "normal_form", "is_single_variable", "is_normal_form", "select_cea_ce", "VARIABLE"]
