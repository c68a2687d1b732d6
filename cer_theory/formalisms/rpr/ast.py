"""The abstract syntax of SQL row pattern recognition (``MATCH_RECOGNIZE``) in the fragment Apache Flink runs.

The standard is ISO/IEC 9075-2:2016 (SQL/Foundation) §7.6 ``<row pattern recognition clause>``, explained in the
technical report ISO/IEC TR 19075-5:2016, *SQL Technical Reports — Part 5: Row Pattern Recognition in SQL*
(cited below as "TR 19075-5"). The fragment is the one of Flink's documentation, *Table API & SQL — Queries —
Pattern Recognition*: ``PARTITION BY``, ``ORDER BY`` (a time attribute), ``MEASURES``, ``ONE ROW PER MATCH``,
``AFTER MATCH SKIP``, ``PATTERN`` with concatenation, alternation, grouping and the quantifiers
``* + ? {n} {n,} {n,m}`` with their reluctant forms, ``WITHIN`` (a Flink extension) and ``DEFINE``.

Patterns (TR 19075-5 §4.6) are :class:`Var`, :class:`Concat`, :class:`Alt` and :class:`Quant`; the conditions of
``DEFINE`` (§4.8) and the expressions of ``MEASURES`` (§4.9) are small trees of :class:`Col`, :class:`Nav`,
:class:`Prev`, :class:`Agg`, :class:`Const`, :class:`Cmp`, :class:`And`, :class:`Or`, :class:`Not`. A
:class:`Query` is one ``MATCH_RECOGNIZE ( … )`` clause; :func:`check` enforces the standard's static rules.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Union

from cer_theory.core.errors import UnsupportedError

Value = Union[bool, int, float, str]

# ------------------------------------------------------------------------------------------------ patterns


@dataclass(frozen=True, slots=True)
class Var:
    """A primary row pattern variable: one row classified as ``name`` (TR 19075-5 §4.6)."""

    name: str


@dataclass(frozen=True, slots=True)
class Concat:
    """Row pattern concatenation ``P₁ P₂ … Pₖ`` (k ≥ 2): contiguous rows (TR 19075-5 §4.6)."""

    parts: tuple[Pattern, ...]


@dataclass(frozen=True, slots=True)
class Alt:
    """Row pattern alternation ``P₁ | … | Pₖ`` (k ≥ 2); the left branch is preferred (TR 19075-5 §4.6, §4.12)."""

    branches: tuple[Pattern, ...]


@dataclass(frozen=True, slots=True)
class Quant:
    """A quantified row pattern ``P{low,high}`` (``high`` None: unbounded); ``greedy`` prefers more iterations,
    the reluctant form (a trailing ``?``) fewer (TR 19075-5 §4.6, §4.12). ``*`` is ``{0,}``, ``+`` ``{1,}``, ``?``
    ``{0,1}``."""

    body: Pattern
    low: int
    high: int | None
    greedy: bool = True


Pattern = Union[Var, Concat, Alt, Quant]

# ------------------------------------------------------------------------------- expressions and conditions


@dataclass(frozen=True, slots=True)
class Const:
    """A literal: a number or a string (``'…'`` in SQL)."""

    value: Value


@dataclass(frozen=True, slots=True)
class Col:
    """A column reference ``var.attr``, or ``attr`` when ``var`` is None (the universal row pattern variable).

    In ``DEFINE`` it is read with running semantics: the last row so far mapped to ``var`` (the current row for
    an unqualified reference or for the variable being defined); in ``MEASURES`` with final semantics: the last
    row of the match mapped to ``var`` (TR 19075-5 §4.14)."""

    var: str | None
    attr: str


@dataclass(frozen=True, slots=True)
class Nav:
    """The logical navigation ``FIRST(var.attr, offset)`` or ``LAST(var.attr, offset)``: the row ``offset`` rows
    after the first / before the last row mapped to ``var`` (to any variable when ``var`` is None), so far in
    ``DEFINE``, in the whole match in ``MEASURES``; NULL when there is no such row (TR 19075-5 §4.15.2; Flink's
    documentation, *Logical Offsets*)."""

    first: bool
    col: Col
    offset: int = 0


@dataclass(frozen=True, slots=True)
class Prev:
    """The physical navigation ``PREV(col, offset)``: the row ``offset`` rows before the row ``col`` designates,
    within the partition; NULL outside it (TR 19075-5 §4.15.3). Allowed in ``DEFINE`` only (as in Flink)."""

    col: Col
    offset: int = 1


AGGREGATES = ("COUNT", "SUM", "MIN", "MAX")


@dataclass(frozen=True, slots=True)
class Agg:
    """An aggregate over the rows mapped to a variable (to any, for an unqualified column): ``SUM(A.x)``, ``MIN``,
    ``MAX``, ``COUNT(A.x)``; ``COUNT(*)`` (``col`` None) counts the rows. Running in ``DEFINE`` (the rows so far),
    final in ``MEASURES`` (TR 19075-5 §4.16; Flink's documentation, *Aggregations*)."""

    func: str
    col: Col | None


@dataclass(frozen=True, slots=True)
class Arith:
    """``left + right`` or ``left - right`` on numbers; NULL when an operand is NULL or not a number. Chains
    associate to the left, so ``right`` is never itself an :class:`Arith` (:func:`check`)."""

    left: Term
    op: str
    right: Term


Term = Union[Const, Col, Nav, Prev, Agg, Arith]

COMPARISONS = ("=", "<>", "<", "<=", ">", ">=")


@dataclass(frozen=True, slots=True)
class Cmp:
    left: Term
    op: str
    right: Term


@dataclass(frozen=True, slots=True)
class And:
    left: Condition
    right: Condition


@dataclass(frozen=True, slots=True)
class Or:
    left: Condition
    right: Condition


@dataclass(frozen=True, slots=True)
class Not:
    arg: Condition


@dataclass(frozen=True, slots=True)
class IsNull:
    """``term IS NULL`` (``IS NOT NULL`` when ``negated``): never UNKNOWN."""

    term: Term
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Truth:
    """``TRUE`` or ``FALSE``: a variable without a ``DEFINE`` entry is defined as ``TRUE`` (TR 19075-5 §4.8)."""

    value: bool


Condition = Union[Cmp, IsNull, And, Or, Not, Truth]

# ------------------------------------------------------------------------------------------------- queries

SECONDS = {"SECOND": 1, "MINUTE": 60, "HOUR": 3600, "DAY": 86400}
"""The interval units of Flink's ``WITHIN INTERVAL 'n' UNIT`` (Flink's documentation, *Time constraint*), in
seconds."""

SKIPS = ("PAST LAST ROW", "TO NEXT ROW", "TO FIRST", "TO LAST")


@dataclass(frozen=True, slots=True)
class Skip:
    """``AFTER MATCH SKIP`` ``PAST LAST ROW`` (the default), ``TO NEXT ROW``, ``TO FIRST var``, ``TO LAST var``
    (TR 19075-5 §4.13)."""

    kind: str = "PAST LAST ROW"
    var: str | None = None


@dataclass(frozen=True, slots=True)
class Measure:
    expr: Term
    name: str


@dataclass(frozen=True, slots=True)
class Query:
    """One ``MATCH_RECOGNIZE ( … )`` clause. ``within`` is Flink's ``WITHIN INTERVAL 'n' SECOND`` in seconds of the
    ``ORDER BY`` column; ``defines`` pairs each defined variable with its condition, in the written order."""

    pattern: Pattern
    partition_by: tuple[str, ...] = ()
    order_by: str | None = None
    measures: tuple[Measure, ...] = ()
    skip: Skip = Skip()
    within: int | None = None
    defines: tuple[tuple[str, Condition], ...] = ()

    def define(self, var: str) -> Condition:
        """The condition of ``var``; ``TRUE`` when it has none (TR 19075-5 §4.8)."""
        for name, cond in self.defines:
            if name == var:
                return cond
        return Truth(True)


# ----------------------------------------------------------------------------------------------- analysis


def variables(p: Pattern) -> Iterator[str]:
    """The pattern variables of ``p`` in order of first occurrence (with repeats)."""
    if isinstance(p, Var):
        yield p.name
    elif isinstance(p, (Concat, Alt)):
        for q in (p.parts if isinstance(p, Concat) else p.branches):
            yield from variables(q)
    else:
        yield from variables(p.body)


def nullable(p: Pattern) -> bool:
    """Whether ``p`` matches the empty sequence of rows."""
    if isinstance(p, Var):
        return False
    if isinstance(p, Concat):
        return all(nullable(q) for q in p.parts)
    if isinstance(p, Alt):
        return any(nullable(q) for q in p.branches)
    return p.low == 0 or nullable(p.body)


def terms(c: Condition | Term) -> Iterator[Term]:
    """Every term in ``c`` (navigations and aggregates included, not their inner column)."""
    if isinstance(c, Cmp):
        yield c.left
        yield c.right
    elif isinstance(c, (And, Or)):
        yield from terms(c.left)
        yield from terms(c.right)
    elif isinstance(c, Not):
        yield from terms(c.arg)
    elif isinstance(c, IsNull):
        yield from terms(c.term)
    elif isinstance(c, Arith):
        yield from terms(c.left)
        yield from terms(c.right)
    elif not isinstance(c, Truth):
        yield c


def column_of(t: Term) -> Col | None:
    """The column a term reads (None for a constant and ``COUNT(*)``)."""
    if isinstance(t, Col):
        return t
    if isinstance(t, (Nav, Prev, Agg)):
        return t.col
    return None


def check(q: Query) -> Query:
    """The static rules of the fragment; :class:`UnsupportedError` naming the first one broken.

    * every variable of ``DEFINE``, ``MEASURES`` and ``AFTER MATCH SKIP TO`` occurs in the pattern and a variable
      is defined at most once (ISO/IEC 9075-2:2016 §7.6, syntax rules; TR 19075-5 §4.8);
    * quantifier bounds satisfy ``0 ≤ low ≤ high`` and ``high ≥ 1`` (§4.6);
    * ``PREV`` offsets are ≥ 1, ``FIRST``/``LAST`` offsets ≥ 0; ``PREV`` appears in ``DEFINE`` only (the fragment);
    * the pattern does not match the empty sequence (the toolkit's reading, docs/decisions.md D221);
    * ``WITHIN`` needs ``ORDER BY`` (Flink measures it on the time attribute).
    """
    seen = set(variables(q.pattern))
    _check_pattern(q.pattern)
    if nullable(q.pattern):
        raise UnsupportedError("the pattern matches the empty sequence of rows; empty matches are outside this "
                               "fragment (D221)")
    names = [v for v, _ in q.defines]
    if len(set(names)) != len(names):
        raise UnsupportedError("a variable is defined twice in DEFINE")
    for v, cond in q.defines:
        if v not in seen:
            raise UnsupportedError(f"DEFINE names {v}, which is not a variable of the pattern")
        _check_arith(cond)
        for t in terms(cond):
            _check_term(t, seen)
    for m in q.measures:
        _check_arith(m.expr)
        for t in terms(m.expr):
            if isinstance(t, Prev):
                raise UnsupportedError("PREV is allowed in DEFINE only")
            _check_term(t, seen)
    if len({m.name for m in q.measures}) != len(q.measures):
        raise UnsupportedError("two measures have the same name")
    if q.skip.kind not in SKIPS:
        raise UnsupportedError(f"unknown AFTER MATCH SKIP {q.skip.kind}")
    if (q.skip.var is not None) != (q.skip.kind in ("TO FIRST", "TO LAST")):
        raise UnsupportedError(f"AFTER MATCH SKIP {q.skip.kind} {'needs' if q.skip.var is None else 'takes no'} "
                               "variable")
    if q.skip.var is not None and q.skip.var not in seen:
        raise UnsupportedError(f"AFTER MATCH SKIP {q.skip.kind} {q.skip.var}: not a variable of the pattern")
    if q.within is not None and (q.order_by is None or q.within < 1):
        raise UnsupportedError("WITHIN needs ORDER BY and a positive interval")
    return q


def _check_pattern(p: Pattern) -> None:
    if isinstance(p, Quant):
        if p.low < 0 or (p.high is not None and (p.high < p.low or p.high < 1)):
            raise UnsupportedError(f"bad quantifier bounds {{{p.low},{'' if p.high is None else p.high}}}")
        _check_pattern(p.body)
    elif isinstance(p, (Concat, Alt)):
        parts = p.parts if isinstance(p, Concat) else p.branches
        if len(parts) < 2:
            raise UnsupportedError("a concatenation or alternation has at least two parts")
        for q in parts:
            _check_pattern(q)


def _check_arith(c: Condition | Term) -> None:
    if isinstance(c, Arith):
        if isinstance(c.right, Arith) or c.op not in ("+", "-"):
            raise UnsupportedError("arithmetic is + or -, associating to the left")
        _check_arith(c.left)
    elif isinstance(c, Cmp):
        _check_arith(c.left)
        _check_arith(c.right)
    elif isinstance(c, (And, Or)):
        _check_arith(c.left)
        _check_arith(c.right)
    elif isinstance(c, Not):
        _check_arith(c.arg)
    elif isinstance(c, IsNull):
        _check_arith(c.term)


def _check_term(t: Term, seen: set[str]) -> None:
    if isinstance(t, Nav) and t.offset < 0:
        raise UnsupportedError("FIRST's and LAST's offsets are at least 0")
    if isinstance(t, Prev) and t.offset < 1:
        raise UnsupportedError("PREV's offset is at least 1")
    if isinstance(t, Agg) and t.func not in AGGREGATES:
        raise UnsupportedError(f"unknown aggregate {t.func}")
    col = column_of(t)
    if col is not None and col.var is not None and col.var not in seen:
        raise UnsupportedError(f"{col.var}.{col.attr}: {col.var} is not a variable of the pattern")


__all__ = ["AGGREGATES", "Agg", "Alt", "And", "Arith", "COMPARISONS", "Cmp", "Col", "Concat", "Condition", "Const",
           "IsNull", "Measure", "Nav", "Not", "Or", "Pattern", "Prev", "Quant", "Query", "SECONDS", "SKIPS", "Skip",
           "Term", "Truth", "Value", "Var", "check", "column_of", "nullable", "terms", "variables"]
