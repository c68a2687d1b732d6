"""Printer of ``MATCH_RECOGNIZE`` clauses: ``parse(format(q)) == q`` for every checked query.

Quantifiers print in their shortest standard form (``{0,}`` as ``*``, ``{1,}`` as ``+``, ``{0,1}`` as ``?``,
``{n,n}`` as ``{n}``); a nested alternation, or a concatenation inside a concatenation, keeps its parentheses so
that the printed text parses to the same tree. Every optional clause is printed (``ONE ROW PER MATCH`` and
``AFTER MATCH SKIP PAST LAST ROW`` included), so the text is accepted as it is by Flink's SQL client.
"""

from __future__ import annotations

from cer_theory.formalisms.rpr.ast import (Alt, And, Arith, Col, Concat, Condition, Const, IsNull, Nav, Not, Or,
                                           Pattern, Prev, Query, SECONDS, Term, Truth, Var)


def format_quantifier(low: int, high: int | None, greedy: bool) -> str:
    text = {(0, None): "*", (1, None): "+", (0, 1): "?"}.get((low, high))
    if text is None:
        text = f"{{{low}}}" if high == low else f"{{{low},{'' if high is None else high}}}"
    return text if greedy else text + "?"


def format_within(seconds: int) -> str:
    """``WITHIN INTERVAL 'n' UNIT`` in the largest unit that divides ``seconds`` (Flink reads a two-digit
    interval by default: ``'3600' SECOND`` is refused, ``'1' HOUR`` is not)."""
    for unit, size in sorted(SECONDS.items(), key=lambda u: -u[1]):
        if seconds % size == 0:
            return f"WITHIN INTERVAL '{seconds // size}' {unit}"
    raise AssertionError("every unit divides a whole number of seconds")  # pragma: no cover - SECOND is 1


def format_pattern(p: Pattern) -> str:
    """The pattern's text (alternation loosest, then concatenation, then quantifiers)."""
    if isinstance(p, Var):
        return p.name
    if isinstance(p, Alt):
        return " | ".join(f"({format_pattern(b)})" if isinstance(b, Alt) else format_pattern(b) for b in p.branches)
    if isinstance(p, Concat):
        return " ".join(f"({format_pattern(q)})" if isinstance(q, (Alt, Concat)) else format_pattern(q)
                        for q in p.parts)
    body = p.body.name if isinstance(p.body, Var) else f"({format_pattern(p.body)})"
    return body + format_quantifier(p.low, p.high, p.greedy)


def format_col(c: Col) -> str:
    return c.attr if c.var is None else f"{c.var}.{c.attr}"


def format_term(t: Term) -> str:
    if isinstance(t, Const):
        v = t.value
        if isinstance(v, str):
            return "'" + v.replace("'", "''") + "'"
        if isinstance(v, bool):
            return "TRUE" if v else "FALSE"
        return repr(v)
    if isinstance(t, Col):
        return format_col(t)
    if isinstance(t, Arith):
        return f"{format_term(t.left)} {t.op} {format_term(t.right)}"
    if isinstance(t, Nav):
        offset = f", {t.offset}" if t.offset else ""
        return f"{'FIRST' if t.first else 'LAST'}({format_col(t.col)}{offset})"
    if isinstance(t, Prev):
        return f"PREV({format_col(t.col)})" if t.offset == 1 else f"PREV({format_col(t.col)}, {t.offset})"
    return f"{t.func}({'*' if t.col is None else format_col(t.col)})"


def format_condition(c: Condition) -> str:
    """The condition's text, ``OR`` loosest, then ``AND``, then ``NOT``; left-nested chains need no parentheses."""
    if isinstance(c, Or):
        right = f"({format_condition(c.right)})" if isinstance(c.right, Or) else format_condition(c.right)
        return f"{format_condition(c.left)} OR {right}"
    if isinstance(c, And):
        left = f"({format_condition(c.left)})" if isinstance(c.left, Or) else format_condition(c.left)
        right = (f"({format_condition(c.right)})" if isinstance(c.right, (Or, And))
                 else format_condition(c.right))
        return f"{left} AND {right}"
    if isinstance(c, Not):
        arg = format_condition(c.arg)
        return f"NOT {arg}" if isinstance(c.arg, (Not, Truth)) else f"NOT ({arg})"
    if isinstance(c, Truth):
        return "TRUE" if c.value else "FALSE"
    if isinstance(c, IsNull):
        return f"{format_term(c.term)} IS {'NOT ' if c.negated else ''}NULL"
    return f"{format_term(c.left)} {c.op} {format_term(c.right)}"


def format(q: Query, indent: str = "  ") -> str:
    """The clause ``MATCH_RECOGNIZE ( … )``, one sub-clause a line."""
    lines = []
    if q.partition_by:
        lines.append("PARTITION BY " + ", ".join(q.partition_by))
    if q.order_by is not None:
        lines.append(f"ORDER BY {q.order_by}")
    if q.measures:
        lines.append("MEASURES " + ", ".join(f"{format_term(m.expr)} AS {m.name}" for m in q.measures))
    lines.append("ONE ROW PER MATCH")
    lines.append("AFTER MATCH SKIP " + q.skip.kind + ("" if q.skip.var is None else f" {q.skip.var}"))
    lines.append(f"PATTERN ({format_pattern(q.pattern)})")
    if q.within is not None:
        lines.append(format_within(q.within))
    if q.defines:
        lines.append("DEFINE " + ", ".join(f"{v} AS {format_condition(c)}" for v, c in q.defines))
    return "MATCH_RECOGNIZE (\n" + "".join(f"{indent}{line}\n" for line in lines) + ")"


__all__ = ["format", "format_col", "format_condition", "format_pattern", "format_quantifier", "format_term",
           "format_within"]
