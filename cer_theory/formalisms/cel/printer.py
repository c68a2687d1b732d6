"""Canonical text for CEL formulas and predicates (the CEL paper, Fig. 2): ``parse(format(φ)) == φ``.

Parentheses follow the precedence of :mod:`cer_theory.formalisms.cel.parser` (tightest first: postfix
``+``/``:+`` > ``IN`` > ``;``/``:`` > ``FILTER`` > ``OR``/``AND``/``ALL``/``UNLESS``; all left-associative, so a
right operand at the same level is parenthesized: ``R ; (T ; U)``), and are added where the precedence is ours
rather than a reader's (the paper gives none): the body of ``FILTER`` and the operands of ``OR``/``AND``/``ALL``/
``UNLESS`` are parenthesized unless they are atoms, iterations or ``IN`` (``(T ; H) FILTER c``, ``(T ; H) OR
(H ; T)``), so a title reads as the formula was written (D383). The default output is ASCII (``:+``,
``PI[...]``, ``AND``, ``<=``); ``unicode=True`` gives the display forms ``⊕``, ``π``, ``∧ ∨ ¬ ≤ ≥ ≠``, which parse
back to the same AST.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cer_theory.core.events import TYPE_KEY
from cer_theory.core.predicates.ast import (And, Attr, BoolConst, Cmp, Const, IsType, Not, On, Opaque, Or, Predicate,
                                            format_value)

if TYPE_CHECKING:  # the AST imports this module for str(φ); the printer reads nodes by their operator
    from cer_theory.formalisms.cel.ast import Formula

# Binding levels: higher binds tighter.
LOOSE, FILTER, SEQ, IN, POSTFIX, ATOMIC = range(6)
_BOOL_OPS = ("OR", "AND", "ALL", "UNLESS")
_UNICODE_CMP = {"<=": "≤", ">=": "≥", "!=": "≠"}


def format(phi: Formula, unicode: bool = False) -> str:
    """Parseable text for ``phi`` with minimal parentheses."""
    return _fmt(phi, unicode)[0]


def _wrap(phi: Formula, minimum: int, uni: bool) -> str:
    text, level = _fmt(phi, uni)
    return f"({text})" if level < minimum else text


def _fmt(phi: Formula, uni: bool) -> tuple[str, int]:
    """Text and binding level of a node, read by its ``operator`` (the CEL paper, Fig. 2)."""
    op = getattr(type(phi), "operator", None)
    if op == "R":
        return phi.name, ATOMIC  # type: ignore[attr-defined]
    if op == "+":
        return _wrap(phi.body, POSTFIX, uni) + "+", POSTFIX  # type: ignore[attr-defined]
    if op == "⊕":
        return _wrap(phi.body, POSTFIX, uni) + ("⊕" if uni else ":+"), POSTFIX  # type: ignore[attr-defined]
    if op == "IN":
        return f"{_wrap(phi.body, IN, uni)} IN {phi.var}", IN  # type: ignore[attr-defined]
    if op in (";", ":"):
        return f"{_wrap(phi.left, SEQ, uni)} {op} {_wrap(phi.right, SEQ + 1, uni)}", SEQ  # type: ignore[attr-defined]
    if op == "FILTER":
        condition = format_condition(phi.condition, unicode=uni)  # type: ignore[attr-defined]
        # the body is parenthesized unless it is an atom, an iteration or an IN: the grammar would read
        # "T ; H FILTER c" as "(T ; H) FILTER c", but a reader (and the paper, Example 3.2) reads it the other way
        return f"{_wrap(phi.body, IN, uni)} FILTER {condition}", FILTER  # type: ignore[attr-defined]
    if op in _BOOL_OPS:
        # operands other than atoms, iterations and IN parenthesized, as the paper writes (T ; H) OR (H ; T)
        left, right = _wrap(phi.left, IN, uni), _wrap(phi.right, IN, uni)  # type: ignore[attr-defined]
        return f"{left} {op} {right}", LOOSE
    if op == "π":
        variables = ",".join(phi.variables)  # type: ignore[attr-defined]
        return f"{'π' if uni else 'PI'}[{variables}]({_fmt(phi.body, uni)[0]})", ATOMIC  # type: ignore[attr-defined]
    if op == "START":
        return f"START({_fmt(phi.body, uni)[0]})", ATOMIC  # type: ignore[attr-defined]
    if op == "SEL":
        return f"{phi.strategy.value}({_fmt(phi.body, uni)[0]})", ATOMIC  # type: ignore[attr-defined]
    raise TypeError(f"not a CEL formula: {phi!r}")


# ---------------------------------------------------------------------------------------------- predicates


def _is_literal(p: Predicate) -> bool:
    return isinstance(p, (Cmp, IsType, On, BoolConst, Opaque))


def format_condition(p: Predicate, unicode: bool = False) -> str:
    """A FILTER condition: a lone literal bare, anything else in parentheses."""
    text = format_predicate(p, unicode=unicode)
    return text if _is_literal(p) else f"({text})"


def _term(t: Attr | Const) -> str:
    return format_value(t.value) if isinstance(t, Const) else str(t)


def format_predicate(p: Predicate, unicode: bool = False) -> str:
    """Parseable text: ``T.tmp > 40 AND H[type = "H" OR x <= 3]``; the ASCII form equals ``p.text()``."""
    if isinstance(p, BoolConst):
        return "TRUE" if p.value else "FALSE"
    if isinstance(p, IsType):
        return f"{Attr(TYPE_KEY, p.slot)} = {format_value(p.name)}"
    if isinstance(p, Cmp):
        op = _UNICODE_CMP.get(p.op, p.op) if unicode else p.op
        return f"{_term(p.left)} {op} {_term(p.right)}"
    if isinstance(p, On):
        return f"{p.var}[{format_predicate(p.body, unicode)}]"
    if isinstance(p, Not):
        arg = format_predicate(p.arg, unicode)
        if unicode:
            return "¬" + (arg if isinstance(p.arg, (BoolConst, On)) else f"({arg})")
        return "NOT " + (arg if p.arg.precedence >= 3 else f"({arg})")
    if isinstance(p, (And, Or)):
        # nested same-operator nodes are parenthesized: the parser flattens only one chain
        inner = 2 if isinstance(p, And) else 1
        sep = (" ∧ " if unicode else " AND ") if isinstance(p, And) else (" ∨ " if unicode else " OR ")
        return sep.join(f"({format_predicate(a, unicode)})" if a.precedence < inner else format_predicate(a, unicode)
                        for a in p.args)
    return p.text()  # Opaque and future node types: their own text


__all__ = ["format", "format_predicate", "format_condition"]
