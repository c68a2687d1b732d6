"""One budget for the real work of the exponential constructions (docs/decisions.md, D94).

Each exponential construction takes a ``budget=`` of *states* (``core.errors.DEFAULT_BUDGET``), which bounds its
result but not its cost: eight variables with one filter each give 2^16 sign vectors to test with Z3 before the
first state is built, and a few hundred states can carry hundreds of thousands of transitions. A
:class:`WorkBudget` counts what actually costs time and memory, one unit each:

* a state or a transition built (the determinizations of the CEL paper Prop. 5.5 and Theorem 7.2, the pairs of the
  *-property decision),
* a minterm (a *type* of the CEL paper Def. 5.6) found, and a satisfiability check given to the solver.

A budget is *active* inside ``with work_budget(n):``; the constructions :func:`charge` it as they go (nothing
is counted when none is active, so the library's behaviour is unchanged). While one is active it also replaces
the fixed cap on the number of minterms. The reference semantics charge one unit per output of a rule they
compute (the CEL paper Fig. 3 and the others: the memoised ⟦φ⟧(S, i, j)) and one per pair a sequence joins, so a budget
binds them too. The command line activates one for each command from its ``--budget N``, so that ``cer-theory
determinize F --budget 100`` stops after about 100 units of work whatever F is, with a message in command-line
terms.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from cer_theory.core.errors import DEFAULT_BUDGET, SizeBudgetExceeded

DEFAULT_WORK = 200_000
"""The one default budget of every command (``--budget``), in units of work: a few seconds of the slowest
construction. The library's constructions keep their own state budgets (``core.errors.DEFAULT_BUDGET``) and are
bounded by this one only inside a ``with work_budget(...)`` block, which the command line opens."""

WORK = "units of work (states, transitions, minterms, solver calls and outputs of the semantics' rules)"
"""What a :class:`WorkBudget` counts, as its messages say it."""


class WorkBudget:
    """At most ``limit`` units of work; :meth:`charge` raises :class:`SizeBudgetExceeded` past it."""

    __slots__ = ("limit", "spent")

    def __init__(self, limit: int) -> None:
        if limit < 0:
            raise SizeBudgetExceeded("work budget", limit, 0, unit=WORK)
        self.limit, self.spent = limit, 0

    def charge(self, construction: str, units: int = 1) -> None:
        self.spent += units
        if self.spent > self.limit:
            raise SizeBudgetExceeded(construction, self.limit, self.spent, unit=WORK)

    def __repr__(self) -> str:
        return f"WorkBudget({self.spent}/{self.limit})"


_ACTIVE: ContextVar[WorkBudget | None] = ContextVar("cer_theory_work_budget", default=None)


def active() -> WorkBudget | None:
    """The budget of the innermost ``with work_budget(...)``, or None."""
    return _ACTIVE.get()


def charge(construction: str, units: int = 1) -> None:
    """Count ``units`` of work of ``construction`` against the active budget (a no-op when none is active)."""
    budget = _ACTIVE.get()
    if budget is not None:
        budget.charge(construction, units)


def reserve(construction: str, units: int, default: int = DEFAULT_BUDGET) -> None:
    """Charge ``units`` of work known *before* anything is built (the states of an unrolled quantifier
    ``A{1000000000}``): against the active budget, or, when none is active, refused past ``default`` units, so that
    a construction never starts building what its budget could not hold, with or without a ``--budget``."""
    budget = _ACTIVE.get()
    if budget is not None:
        budget.charge(construction, units)
    elif units > default:
        raise SizeBudgetExceeded(construction, default, units)


@contextmanager
def work_budget(limit: int | None) -> Iterator[WorkBudget | None]:
    """Activate a budget of ``limit`` units for the block (``None``: no budget, as outside any block)."""
    budget = None if limit is None else WorkBudget(limit)
    token = _ACTIVE.set(budget)
    try:
        yield budget
    finally:
        _ACTIVE.reset(token)


def states(default: int) -> int:
    """The state budget of a construction its caller gave none: the active work budget's limit (so that a command's
    ``--budget`` is the one bound it states), else ``default``."""
    budget = _ACTIVE.get()
    return default if budget is None else budget.limit


__all__ = ["DEFAULT_WORK", "WorkBudget", "WORK", "active", "charge", "reserve", "states", "work_budget"]
