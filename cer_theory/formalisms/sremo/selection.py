"""Selection strategies by rewriting to plain SREMO: the SRT paper (Alevizos, Artikis, Paliouras), §5.2.

* Skip-till-any-match, Def. 44: ``⊙(e₁..eₙ) := e₁·(⊤↑⊗)*·e₂·(⊤↑⊗)*…·eₙ``. An argument that is an iteration
  also skips *between* its iterations, ``(e)⁺ ↦ e·((⊤↑⊗)*·e)*`` (the paper's "similar definitions" for
  iteration, §5.2, and its experiments' nested Kleene under STAM, §7.3; docs/decisions.md).
* Skip-till-next-match, Def. 45: ``@(e₁..eₙ) := e₁·(¬φ₂↑⊗)*·e₂ ⋯ (¬φₙ↑⊗)*·eₙ`` for arguments eᵢ = φᵢ↑o↓W
  that are single conditions: the gap skips exactly the events failing φᵢ (evaluated on the registers of the
  moment), so the *next* φᵢ is taken. The literal regular complement ``(!eᵢ)*`` of the paper collapses to
  ``⊤*`` (docs/errata.md, P6).
* A strategy over one argument that is a disjunction has no effect (§5.2): ``⊙(e₁+e₂) = e₁+e₂``.
"""

from __future__ import annotations

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.predicates.ast import TRUE, neg
from cer_theory.formalisms.sremo.ast import (EPS, Any, Complement, Concat, Cond, Expr, Inter, Next, Plus, Star,
                                             Union, Window, seq)

SKIP = Star(Cond(TRUE, marked=False))
"""``(⊤↑⊗)*``: skip any number of events without marking them."""


def _any_argument(e: Expr) -> Expr:
    # Iterated arguments skip between iterations too: e⁺ ↦ e·(⊤*·e)*, e* ↦ ε + e·(⊤*·e)*.
    if isinstance(e, Plus):
        return Concat(e.body, Star(Concat(SKIP, e.body)))
    if isinstance(e, Star):
        return Union(EPS, Concat(e.body, Star(Concat(SKIP, e.body))))
    return e


def expand_any(e: Any) -> Expr:
    """``⊙(e₁..eₙ)`` as plain SREMO (the SRT paper, Def. 44)."""
    parts: list[Expr] = [_any_argument(e.args[0])]
    for a in e.args[1:]:
        parts += [SKIP, _any_argument(a)]
    return seq(*parts)


def expand_next(e: Next) -> Expr:
    """``@(e₁..eₙ)`` as plain SREMO (the SRT paper, Def. 45, with the condition-level negation of the gaps)."""
    parts: list[Expr] = [e.args[0]]
    for a in e.args[1:]:
        if not isinstance(a, Cond):
            raise UnsupportedError("NEXT(e1, ..., en): every argument after the first must be one condition "
                                   "<φ> or [φ] (the SRT paper Def. 45 with condition-level negation)")
        parts += [Star(Cond(neg(a.guard), marked=False)), a]
    return seq(*parts)


def desugar(e: Expr) -> Expr:
    """``e`` with every ``ANY``/``NEXT`` replaced by its rewriting, and ``e⁺`` kept (it is compiled directly)."""
    if isinstance(e, Any):
        return expand_any(Any(tuple(desugar(a) for a in e.args)))
    if isinstance(e, Next):
        return expand_next(Next(tuple(desugar(a) for a in e.args)))
    if isinstance(e, Concat):
        return Concat(desugar(e.left), desugar(e.right))
    if isinstance(e, Union):
        return Union(desugar(e.left), desugar(e.right))
    if isinstance(e, Inter):
        return Inter(desugar(e.left), desugar(e.right))
    if isinstance(e, Star):
        return Star(desugar(e.body))
    if isinstance(e, Plus):
        return Plus(desugar(e.body))
    if isinstance(e, Complement):
        return Complement(desugar(e.body))
    if isinstance(e, Window):
        return Window(desugar(e.body), e.w)
    return e
