"""Canonical text for ACEL formulas (docs/acel-syntax.md): ``parse(format(φ)) == φ``.

The precedence is CEL's (docs/cel-syntax.md; tightest first: postfix ``+``/``:+`` > ``AS`` > ``;``/``:`` >
``FILTER`` > ``OR``/``AND``), all left-associative, so a right operand at the same level is parenthesized.
``PI[…](φ)`` and ``AGG Y[…](φ)`` are atomic. ASCII by default; ``unicode=True`` prints ``⊕``, ``π``, ``←`` and
``∧ ∨ ¬ ≤ ≥ ≠``, which parse back to the same AST. The printer reads nodes by their ``operator`` (the AST
imports this module for ``str(φ)``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cer_theory.formalisms.cel.printer import format_condition

if TYPE_CHECKING:
    from cer_theory.formalisms.acel.ast import Formula

LOOSE, FILTER, SEQ, AS, POSTFIX, ATOMIC = range(6)


def format(phi: Formula, unicode: bool = False) -> str:
    """Parseable text for ``phi`` with minimal parentheses."""
    return _fmt(phi, unicode)[0]


def _wrap(phi: Any, minimum: int, uni: bool) -> str:
    text, level = _fmt(phi, uni)
    return f"({text})" if level < minimum else text


def format_acel_condition(cond: Any, unicode: bool = False) -> str:
    """A FILTER condition: a multiset predicate as its text, a CEL condition as CEL prints it."""
    if hasattr(cond, "kind") and hasattr(cond, "attribute"):  # a Multiset
        return cond.text()
    return format_condition(cond, unicode=unicode)


def _fmt(phi: Any, uni: bool) -> tuple[str, int]:
    op = getattr(type(phi), "operator", None)
    if op == "R":
        return phi.name, ATOMIC
    if op == "+":
        return _wrap(phi.body, POSTFIX, uni) + "+", POSTFIX
    if op == "⊕":
        return _wrap(phi.body, POSTFIX, uni) + ("⊕" if uni else ":+"), POSTFIX
    if op == "AS":
        return f"{_wrap(phi.body, AS, uni)} AS {phi.var}", AS
    if op in (";", ":"):
        return f"{_wrap(phi.left, SEQ, uni)} {op} {_wrap(phi.right, SEQ + 1, uni)}", SEQ
    if op == "FILTER":
        # parenthesized unless an atom, an iteration or AS, as CEL's printer does (D383)
        return f"{_wrap(phi.body, AS, uni)} FILTER {format_acel_condition(phi.condition, uni)}", FILTER
    if op in ("OR", "AND"):
        return f"{_wrap(phi.left, AS, uni)} {op} {_wrap(phi.right, AS, uni)}", LOOSE
    pi = "π" if uni else "PI"
    if op == "π":
        return f"{pi}[{', '.join(phi.variables)}]({_fmt(phi.body, uni)[0]})", ATOMIC
    if op == "πX":
        return f"{pi}[{phi.var}({', '.join(phi.attributes)})]({_fmt(phi.body, uni)[0]})", ATOMIC
    if op == "AGG":
        arrow = " ← " if uni else " <- "
        specs = ", ".join(f"{s.output}{arrow}{s.function}({s.var}.{s.attribute})" for s in phi.specs)
        return f"AGG {phi.target}[{specs}]({_fmt(phi.body, uni)[0]})", ATOMIC
    raise TypeError(f"not an ACEL formula: {phi!r}")


__all__ = ["format", "format_acel_condition"]
