"""Printing SREMO: the ASCII syntax that :func:`~cer_theory.formalisms.sremo.parser.parse` reads back
(``parse(format(e)) == e`` for every parsed ``e``, tested), and a Unicode display form close to the SRT paper's
notation (``φ↑•↓r1``, ``·``, ``+``, ``∩``, ``⊙``, ``@``, ``e^[1..w]``) for drawings and notebooks.

Parentheses are the fewest the precedence needs: postfix ``*`` ``+`` (4) > ``!`` (3) > ``.`` (2) > ``&`` (1) >
``|`` (0); binary operators associate to the left, so a right operand at the same level is parenthesized.
"""

from __future__ import annotations

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.predicates.ast import And, BoolConst, Cmp, IsType, Not, Or, Predicate
from cer_theory.formalisms.sremo.ast import (Any, Complement, Concat, Cond, Empty, Eps, Expr, Inter, Next, Plus,
                                             Star, Union, Window)

_BINARY = {Union: (0, "|", "+"), Inter: (1, "&", "∩"), Concat: (2, ".", "·")}


def _level(e: Expr) -> int:
    for cls, (lvl, _, _) in _BINARY.items():
        if isinstance(e, cls):
            return lvl
    if isinstance(e, Complement):
        return 3
    if isinstance(e, (Star, Plus)):
        return 4
    return 5


def _check_condition(p: Predicate) -> None:
    """Only the predicate forms the SREMO grammar reads can be printed as SREMO text."""
    for node in p.walk():
        if isinstance(node, (BoolConst, IsType, Not, And, Or)):
            continue
        if isinstance(node, Cmp):  # any comparison of terms (arithmetic included: the one condition grammar)
            continue
        raise UnsupportedError(f"the condition {node.text()} has no SREMO syntax (comparisons of arithmetic "
                               f"terms, type tests, NOT, AND, OR, TRUE, FALSE)")


def format(e: Expr) -> str:
    """The ASCII syntax of ``e`` (docs/sremo-syntax.md)."""
    return _text(e, unicode=False)


def display(e: Expr) -> str:
    """A Unicode rendering in the SRT paper's notation (not parseable): ``(type=B)↑•↓r1 · (⊤↑⊗)* · …``."""
    return _text(e, unicode=True)


def _text(e: Expr, unicode: bool) -> str:
    def sub(x: Expr, minimum: int) -> str:
        s = _text(x, unicode)
        return f"({s})" if _level(x) < minimum else s

    for cls, (lvl, ascii_op, uni_op) in _BINARY.items():
        if isinstance(e, cls):
            op = uni_op if unicode else ascii_op
            return f"{sub(e.left, lvl)} {op} {sub(e.right, lvl + 1)}"  # type: ignore[attr-defined]
    if isinstance(e, Eps):
        return "ε" if unicode else "EPS"
    if isinstance(e, Empty):
        return "∅" if unicode else "EMPTY"
    if isinstance(e, Cond):
        return _cond(e, unicode)
    if isinstance(e, Complement):
        return "!" + sub(e.body, 3)
    if isinstance(e, Star):
        return sub(e.body, 4) + "*"
    if isinstance(e, Plus):
        return sub(e.body, 4) + ("⁺" if unicode else "+")
    if isinstance(e, Window):
        inner = _text(e.body, unicode)
        return f"({inner})^[1..{e.w}]" if unicode else f"({inner}) WITHIN {e.w}"
    if isinstance(e, (Any, Next)):
        name = ("⊙" if isinstance(e, Any) else "@") if unicode else ("ANY" if isinstance(e, Any) else "NEXT")
        return f"{name}(" + ", ".join(_text(a, unicode) for a in e.args) + ")"
    raise UnsupportedError(f"not a SREMO expression: {e!r}")


def _cond(e: Cond, unicode: bool) -> str:
    if unicode:
        guard = e.guard.label()
        out = f"({guard})↑{'•' if e.marked else '⊗'}"
        return out + (f"↓{','.join(e.writes)}" if e.writes else "")
    _check_condition(e.guard)
    body = e.guard.text()
    out = f"<{body}>" if e.marked else f"[{body}]"
    return out + (f" -> {', '.join(e.writes)}" if e.writes else "")


__all__ = ["format", "display"]
