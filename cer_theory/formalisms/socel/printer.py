"""Canonical text for SO-CEL(+) formulas (the SO-CEL paper §2, §2.1): ``parse(format(φ)) == φ``.

Parentheses are minimal for the precedence of :mod:`cer_theory.formalisms.socel.parser` (tightest first: postfix
``+``/``:+``/``[A -> B]`` > ``IN`` > ``;``/``:`` > ``FILTER`` > ``OR``/``AND``/``ALL``/``UNLESS``; all
left-associative). Conditions are printed by CEL's printer. ``unicode=True`` gives ``⊕``, ``π``, ``→``.
"""

from __future__ import annotations

from cer_theory.formalisms.cel.printer import format_condition
from cer_theory.formalisms.socel.ast import (All, Atom, Condition, Conj, Contig, CPlus, Disj, Filter, Formula, In,
                                             Order, Plus, Proj, Rename, Seq, Start, Strict, Unless)

LOOSE, FILTER, SEQ, IN, POSTFIX, ATOMIC = range(6)
_BOOL_OPS = {Disj: "OR", Conj: "AND", All: "ALL", Unless: "UNLESS"}


def format(phi: Formula, unicode: bool = False) -> str:
    """Parseable text for ``phi`` with minimal parentheses."""
    return _fmt(phi, unicode)[0]


def format_so_condition(cond: Condition, unicode: bool = False) -> str:
    """A FILTER condition: ``incr(A.x)``, or a CEL condition (a lone literal bare, else parenthesized)."""
    return cond.text() if isinstance(cond, Order) else format_condition(cond, unicode=unicode)


def _wrap(phi: Formula, minimum: int, uni: bool) -> str:
    text, level = _fmt(phi, uni)
    return f"({text})" if level < minimum else text


def _fmt(phi: Formula, uni: bool) -> tuple[str, int]:
    if isinstance(phi, Atom):
        return phi.name, ATOMIC
    if isinstance(phi, Plus):
        return _wrap(phi.body, POSTFIX, uni) + "+", POSTFIX
    if isinstance(phi, CPlus):
        return _wrap(phi.body, POSTFIX, uni) + ("⊕" if uni else ":+"), POSTFIX
    if isinstance(phi, Rename):
        arrow = "→" if uni else "->"
        return f"{_wrap(phi.body, POSTFIX, uni)}[{phi.source} {arrow} {phi.target}]", POSTFIX
    if isinstance(phi, In):
        return f"{_wrap(phi.body, IN, uni)} IN {phi.label}", IN
    if isinstance(phi, (Seq, Contig)):
        op = ";" if isinstance(phi, Seq) else ":"
        return f"{_wrap(phi.left, SEQ, uni)} {op} {_wrap(phi.right, SEQ + 1, uni)}", SEQ
    if isinstance(phi, Filter):
        # parenthesized unless an atom, an iteration or IN, as CEL's printer does (D383)
        return f"{_wrap(phi.body, IN, uni)} FILTER {format_so_condition(phi.condition, uni)}", FILTER
    if isinstance(phi, tuple(_BOOL_OPS)):
        op = _BOOL_OPS[type(phi)]
        return f"{_wrap(phi.left, IN, uni)} {op} {_wrap(phi.right, IN, uni)}", LOOSE  # type: ignore[attr-defined]
    if isinstance(phi, Proj):
        return f"{'π' if uni else 'PI'}[{','.join(phi.labels)}]({_fmt(phi.body, uni)[0]})", ATOMIC
    if isinstance(phi, Start):
        return f"START({_fmt(phi.body, uni)[0]})", ATOMIC
    if isinstance(phi, Strict):
        return f"STRICT({_fmt(phi.body, uni)[0]})", ATOMIC
    raise TypeError(f"not an SO-CEL formula: {phi!r}")


__all__ = ["format", "format_so_condition"]
