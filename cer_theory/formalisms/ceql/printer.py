"""Canonical CEQL text (the CORE paper, *CORE: a Complex Event Recognition Engine*, §2): ``parse(format(q)) == q``.

Parentheses are minimal for the precedence of :mod:`cer_theory.formalisms.ceql.parser` (tightest first: postfix
``AS x``, ``+``, ``:+`` > ``OR``, ``;``, ``:`` > ``FILTER``). Names that are not identifiers, or are reserved
words, are written in backquotes; strings in CORE's ``'…'`` quotes (``''`` for a quote).
"""

from __future__ import annotations

import functools
import math
import re
from typing import TYPE_CHECKING

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import TYPE_KEY
from cer_theory.core.predicates.ast import (And, Attr, BoolConst, Cmp, Const, InRange, InSet, IsType, Like, Not, On,
                                            Or, Predicate, format_term, format_value)
from cer_theory.core.windows import Window
from cer_theory.formalisms.cel.ast import Atom, Contig, CPlus, Disj, Filter, Formula, In, Plus, Seq
from cer_theory.formalisms.ceql.lexicon import KEYWORDS, STREAM_ATTRIBUTE

if TYPE_CHECKING:  # the AST imports this module for str(q); the printer reads only the queries' fields
    from cer_theory.formalisms.ceql.ast import AggregateItem, Query, StreamDeclaration

FILTER_LEVEL, BINARY_LEVEL, POSTFIX_LEVEL, ATOMIC_LEVEL = range(4)

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYWORD_SET = frozenset(k.lower() for k in KEYWORDS)

_value = functools.partial(format_value, quote="'")
"""A constant as CEQL text: the predicate language's one printer, with CORE's single quotes."""


def format_name(name: str) -> str:
    """A name as CEQL text: bare when it is an identifier and not a keyword, in backquotes otherwise."""
    if _IDENT.match(name) and name.lower() not in _KEYWORD_SET:
        return name
    return "`" + name.replace("`", "``") + "`"


def _attr(a: Attr) -> str:
    if a.slot is not None:
        raise UnsupportedError(f"CEQL attributes are unqualified inside Var[...]: cannot print {a}")
    return format_name(a.name)


def format_expression(p: Predicate) -> str:
    """The CEQL text of a unary predicate (the inside of ``Var[…]``)."""
    if isinstance(p, Or):
        return " OR ".join(f"({format_expression(a)})" if isinstance(a, Or) else format_expression(a)
                           for a in p.args)
    if isinstance(p, And):
        return " AND ".join(f"({format_expression(a)})" if isinstance(a, (And, Or)) else format_expression(a)
                            for a in p.args)
    if isinstance(p, Not):
        inner = format_expression(p.arg)
        return "NOT " + (f"({inner})" if isinstance(p.arg, (And, Or)) else inner)
    if isinstance(p, Cmp):
        return (f"{format_term(p.left, _attr, _value)} {p.op} "
                f"{format_term(p.right, _attr, _value)}")
    if isinstance(p, IsType):
        if p.slot is not None:
            raise UnsupportedError(f"CEQL attributes are unqualified inside Var[...]: cannot print {p.text()}")
        return f"{TYPE_KEY} = {_value(p.name)}"
    if isinstance(p, Like):
        return f"{_attr(p.term)} LIKE {_value(p.pattern)}"
    if isinstance(p, InSet):
        vals = ", ".join(_value(c.value) for c in p.sorted_values())
        return f"{_attr(p.term)} {'NOT IN' if p.negated else 'IN'} {{{vals}}}"
    if isinstance(p, InRange):
        lo = "" if p.low is None else _value(p.low)
        hi = "" if p.high is None else _value(p.high)
        return f"{_attr(p.term)} {'NOT IN' if p.negated else 'IN'} {{{lo}..{hi}}}"
    if isinstance(p, BoolConst):
        raise UnsupportedError("CEQL has no TRUE/FALSE condition")
    raise UnsupportedError(f"{type(p).__name__} {p.text()} has no CEQL syntax")


def format_filter(p: Predicate) -> str:
    """A FILTER condition: ``Var[expr]`` blocks joined by AND / OR (nested same-operator groups in parens)."""
    if isinstance(p, On):
        return f"{format_name(p.var)}[{format_expression(p.body)}]"
    if isinstance(p, Or):
        return " OR ".join(f"({format_filter(a)})" if isinstance(a, Or) else format_filter(a) for a in p.args)
    if isinstance(p, And):
        return " AND ".join(f"({format_filter(a)})" if isinstance(a, (And, Or)) else format_filter(a)
                            for a in p.args)
    raise UnsupportedError(f"a CEQL FILTER condition is Var[...] blocks joined by AND/OR, got {p.text()}")


def _stream_atom(phi: Formula) -> tuple[str, str] | None:
    """(stream, type) if ``phi`` is the formula of ``stream>type``."""
    if (isinstance(phi, Filter) and isinstance(phi.body, Atom) and isinstance(phi.condition, On)
            and phi.condition.var == phi.body.name and isinstance(phi.condition.body, Cmp)):
        c = phi.condition.body
        if (c.left == Attr(STREAM_ATTRIBUTE) and c.op == "=" and isinstance(c.right, Const)
                and isinstance(c.right.value, str)):
            return c.right.value, phi.body.name
    return None


def _pattern(phi: Formula) -> tuple[str, int]:
    sa = _stream_atom(phi)
    if sa is not None:
        return f"{format_name(sa[0])}>{format_name(sa[1])}", ATOMIC_LEVEL
    if isinstance(phi, Atom):
        return format_name(phi.name), ATOMIC_LEVEL
    if isinstance(phi, In):
        return f"{_wrap(phi.body, POSTFIX_LEVEL)} AS {format_name(phi.var)}", POSTFIX_LEVEL
    if isinstance(phi, Plus):
        return _wrap(phi.body, POSTFIX_LEVEL) + "+", POSTFIX_LEVEL
    if isinstance(phi, CPlus):
        return _wrap(phi.body, POSTFIX_LEVEL) + ":+", POSTFIX_LEVEL
    if isinstance(phi, (Seq, Contig, Disj)):
        op = {Seq: ";", Contig: ":", Disj: "OR"}[type(phi)]
        return f"{_wrap(phi.left, BINARY_LEVEL)} {op} {_wrap(phi.right, POSTFIX_LEVEL)}", BINARY_LEVEL
    if isinstance(phi, Filter):
        # parenthesized unless an atom or postfix, as CEL's printer does (D383)
        return f"{_wrap(phi.body, POSTFIX_LEVEL)} FILTER {format_filter(phi.condition)}", FILTER_LEVEL
    raise UnsupportedError(f"{type(phi).__name__} ({phi}) has no CEQL syntax; CEQL patterns use event types, "
                           f"AS, ;, :, OR, +, :+ and FILTER")


def _wrap(phi: Formula, minimum: int) -> str:
    text, level = _pattern(phi)
    return f"({text})" if level < minimum else text


def format_pattern(phi: Formula) -> str:
    """The CEQL text of a WHERE pattern, with the fewest parentheses."""
    return _pattern(phi)[0]


def _format_number(x: float) -> str:
    if isinstance(x, int):  # exactly, however long (a float of it may overflow)
        return str(x)
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def format_window(w: Window) -> str:
    """The text after WITHIN."""
    if w.strict:
        raise UnsupportedError("a strict window (end - start < size) has no CEQL syntax")
    if w.size < 0 or (isinstance(w.size, float) and not math.isfinite(w.size)):
        raise UnsupportedError(f"a window size is a non-negative finite number, got {w.size!r}")
    if w.kind == "events":
        if not isinstance(w.size, int) and not float(w.size).is_integer():
            raise UnsupportedError(f"a window of EVENTS has a whole size, got {w.size!r}")
        return f"{int(w.size)} EVENTS"
    if w.kind == "attribute":
        if w.attribute is None:
            raise UnsupportedError("an attribute window needs its attribute")
        return f"{_format_number(w.size)} [{format_name(w.attribute)}]"
    if w.attribute is not None:
        raise UnsupportedError(f"CEQL durations read the default timestamp; cannot print one over {w.attribute!r}")
    whole = math.floor(w.size)
    hours, rest = divmod(whole, 3600)
    minutes, seconds = divmod(rest, 60)
    frac = w.size - whole
    parts = []
    if hours:
        parts.append(f"{hours} HOURS")
    if minutes:
        parts.append(f"{minutes} MINUTES")
    if seconds or frac or not parts:
        sec = seconds + frac if frac else seconds
        parts.append(f"{_format_number(sec)} SECONDS")
    return " ".join(parts)


def format(q: Query) -> str:
    """Canonical CEQL text for ``q``: ``parse(format(q)) == q``.

    Raises :class:`UnsupportedError` for what CEQL cannot write: pattern operators other than those of CEQL,
    filter conditions that are not ``Var[...]`` blocks joined by AND/OR, TRUE/FALSE and opaque predicates,
    strict windows and duration windows over a non-default timestamp.
    """
    parts = ["SELECT"]
    if q.strategy != "ALL":
        parts.append(q.strategy)
    if q.select is None:
        items = ["*"]
    elif not q.select:
        items = [] if q.aggregates else ["NONE"]  # SELECT SUM(b.x) AS s selects no variable, as NONE does
    else:
        items = list(map(format_name, q.select))
    items += [format_aggregate(a) for a in q.aggregates]
    parts.append(", ".join(items))
    if q.streams:
        parts += ["FROM", ", ".join(map(format_name, q.streams))]
    parts += ["WHERE", format_pattern(q.pattern)]
    if q.partition_by:
        parts += ["PARTITION BY", ", ".join("[" + ", ".join(map(format_name, g)) + "]" for g in q.partition_by)]
    if q.within is not None:
        parts += ["WITHIN", format_window(q.within)]
    if q.having is not None:
        parts += ["HAVING", format_expression(q.having)]
    if q.consume is not None:
        parts += ["CONSUME BY", q.consume]
    if q.limit is not None:
        parts += ["LIMIT", str(q.limit)]
    return " ".join(parts)


def format_aggregate(a: AggregateItem) -> str:
    """``SUM(b.volume) AS vol``; ``COUNT(b) AS n`` for a count without attribute."""
    target = format_name(a.variable) + ("" if a.attribute is None else "." + format_name(a.attribute))
    return f"{a.function}({target}) AS {format_name(a.alias)}"


def format_declaration(d: StreamDeclaration) -> str:
    """``CREATE STREAM S { EVENT T { a:int, … }, … }``, which
    :func:`cer_theory.formalisms.ceql.parser.parse_declarations` reads back."""
    events = ", ".join(f"EVENT {format_name(t)} {{ " + ", ".join(f"{format_name(a)}:{format_name(k)}"
                                                              for a, k in attrs.items()) + " }"
                       for t, attrs in d.events.items())
    return f"CREATE STREAM {format_name(d.name)} {{ {events} }}"


__all__ = ["format", "format_aggregate", "format_pattern", "format_filter", "format_expression", "format_window", "format_declaration",
           "format_name"]
