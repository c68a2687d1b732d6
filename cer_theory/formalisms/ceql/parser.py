"""CEQL, the query language of CORE (seed 001 §2; spec core-tecs-ceql.md §1, §1.5, §7.7, §7.13).

A query is ``SELECT [strategy] vars|*|NONE [FROM streams] WHERE pattern [PARTITION BY [a,b], [c]]
[WITHIN n EVENTS | [h HOURS] [m MINUTES] [s SECONDS] | n [attr]] [CONSUME BY ANY|PARTITION|NONE] [LIMIT n]``.
The grammar is ``ceql.lark`` (LALR(1)), condensed from CORE's ``CORE.g4``; the paper gives only the abstract
grammar, so the precedence is the one the spec infers from ANTLR's alternative order (§1.5), tightest first:

=====================  =================================  ==========================================
level                  operators                          notes
=====================  =================================  ==========================================
1 (tightest)           postfix ``AS x``, ``+``, ``:+``    applied left to right: ``H+ AS hs`` = ``(H+) AS hs``
2                      ``OR``, ``;``, ``:``               one level, left-associative (oracle E7)
3 (loosest)            ``FILTER f``                       applies to the whole pattern before it
=====================  =================================  ==========================================

So ``A ; B OR C`` is ``(A ; B) OR C`` and ``SELL AS a ; SELL AS b FILTER …`` filters the sequence. A FILTER
can be nested only inside parentheses: ``(A FILTER a[x > 1]) ; B``. ``S>T`` is an event of type T from stream
S (see :data:`STREAM_ATTRIBUTE`). Keywords are case-insensitive and reserved; a name in backquotes
(`` `event` ``) may be anything. Comments are ``-- …`` and ``/* … */``.

FILTER conditions are ``Var[expr]`` blocks joined by AND (tighter) and OR, and are kept as written: a
:class:`~cer_theory.core.predicates.ast.And` / :class:`~cer_theory.core.predicates.ast.Or` tree over
:class:`~cer_theory.core.predicates.ast.On` atoms, which is exactly how
:func:`cer_theory.formalisms.cel.ast.filter_literals` reads a condition (§1.3 sugar: ``FILTER θ1 AND θ2`` nests
the filters, ``FILTER θ1 OR θ2`` is the OR of the filtered patterns). Inside ``Var[…]`` the expression
language is CORE's: comparisons ``= == != <> < <= > >=`` between arithmetic terms (``+ - * /``, parentheses,
numbers, attributes, strings, ``true``/``false``), ``attr LIKE 'regex'``, ``attr [NOT] IN {v1, v2}``, ranges
``attr [NOT] IN {lo..hi}`` (``{lo..}``, ``{..hi}``; inclusive), NOT/AND/OR. ``type = 'R'`` reads the event
type. Strings are ``'…'`` (CORE: no escapes, ``''`` is a quote) or ``"…"`` (backslash escapes, as in CEL).

Windows: ``WITHIN n EVENTS`` is ``Window("events", n)`` (positions); ``WITHIN 1 HOURS 30 MINUTES`` is
``Window("time", 5400)``: durations are in **seconds** (the singular units HOUR, MINUTE, SECOND are accepted
too) and read the timestamp attribute ``"time"`` (``attribute=None``; a caller such as a ``--time-attribute``
option may override it); ``WITHIN n [attr]`` is ``Window("attribute", n, attribute="attr")``, the values of
that attribute. All windows are inclusive, as in the paper (spec §7.4).

:func:`parse_query` and :func:`format_query` round-trip: ``parse_query(format_query(q)) == q``.
Every error is a :class:`~cer_theory.core.errors.SyntaxErrorCER` with line, column and what was expected.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import LarkError, UnexpectedInput, UnexpectedToken, VisitError

from cer_theory.core.windows import Window
from cer_theory.core.errors import CerError, SyntaxErrorCER, UnsupportedError
from cer_theory.core.events import TYPE_KEY, Value
from cer_theory.core.predicates.ast import (And, Arith, Attr, BoolConst, Cmp, Const, InRange, InSet, IsType, Like, Not, On, Or,
                              Predicate, format_term)
from cer_theory.core.parsing import syntax_error
from cer_theory.formalisms.cel.ast import (Atom, Contig, CPlus, Disj, Filter, Formula, In, Plus, Proj, Select, Seq, Strategy,
                      variables)

GRAMMAR_PATH = Path(__file__).with_name("ceql.lark")

KEYWORDS = ("SELECT", "FROM", "WHERE", "PARTITION", "BY", "WITHIN", "CONSUME", "LIMIT", "ALL", "ANY", "LAST",
            "MAX", "NEXT", "STRICT", "NONE", "AS", "OR", "AND", "NOT", "FILTER", "IN", "LIKE", "EVENTS", "HOUR",
            "HOURS", "MINUTE", "MINUTES", "SECOND", "SECONDS", "TRUE", "FALSE", "CREATE", "DECLARE", "STREAM",
            "EVENT")
"""Reserved words (case-insensitive). A reserved word is a name only in backquotes: `` `event` ``."""

STRATEGIES = ("ALL", "ANY", "NEXT", "LAST", "MAX", "STRICT")
"""Selection strategies CORE's grammar accepts; ALL (no strategy) is the default."""

CONSUME_POLICIES = ("ANY", "PARTITION", "NONE")

STREAM_ATTRIBUTE = "stream"
"""``S>T`` (an event of type T from stream S) is the formula ``T FILTER T[stream = 'S']``: whoever merges the
streams of a FROM clause tags each event with the name of its stream in this attribute."""

DEFAULT_TIME_ATTRIBUTE = "time"
"""The timestamp attribute a duration window (``WITHIN 10 SECONDS``) reads, unless the caller overrides it."""

DATATYPE_KINDS = {"int": "num", "long": "num", "double": "num", "float": "num", "primary_time": "num",
                  "string": "str", "boolean": "bool", "bool": "bool"}
"""Declared attribute datatypes (CORE's ``int string double long boolean primary_time``) → predicate kinds."""

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYWORD_SET = frozenset(k.lower() for k in KEYWORDS)


# ---------------------------------------------------------------------------------------------- the AST


@dataclass(frozen=True)
class Query:
    """A CEQL query (seed 001 §2, Fig. 1).

    * ``strategy``: ``"ALL"`` (default: no strategy), ``"ANY"``, ``"NEXT"``, ``"LAST"``, ``"MAX"``, ``"STRICT"``;
    * ``select``: the projected variables, ``None`` for ``*`` (no projection), ``()`` for ``SELECT NONE``;
    * ``streams``: the FROM streams (``()`` when FROM is omitted: the single input stream);
    * ``pattern``: the WHERE pattern as a CEL formula (Atom, In for AS, Filter, Seq, Contig, Disj, Plus, CPlus);
    * ``partition_by``: the PARTITION BY groups, e.g. ``(("name",), ("volume",))`` for ``[name], [volume]``;
    * ``within``: the window or None; ``consume``: ``"ANY"``, ``"PARTITION"``, ``"NONE"`` or None;
      ``limit``: LIMIT n or None.
    """

    pattern: Formula
    strategy: str = "ALL"
    select: tuple[str, ...] | None = None
    streams: tuple[str, ...] = ()
    partition_by: tuple[tuple[str, ...], ...] = ()
    within: Window | None = None
    consume: str | None = None
    limit: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.pattern, Formula):
            raise TypeError(f"the pattern is a CEL formula, got {self.pattern!r}")
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown selection strategy {self.strategy!r}; expected one of {STRATEGIES}")
        if self.consume is not None and self.consume not in CONSUME_POLICIES:
            raise ValueError(f"unknown CONSUME BY policy {self.consume!r}; expected one of {CONSUME_POLICIES}")
        if self.limit is not None and (isinstance(self.limit, bool) or not isinstance(self.limit, int)
                                       or self.limit < 0):
            raise ValueError(f"LIMIT is a non-negative integer, got {self.limit!r}")
        if self.within is not None and not isinstance(self.within, Window):
            raise TypeError(f"within is a Window, got {self.within!r}")
        object.__setattr__(self, "select", None if self.select is None else tuple(self.select))
        object.__setattr__(self, "streams", tuple(self.streams))
        object.__setattr__(self, "partition_by", tuple(tuple(g) for g in self.partition_by))
        if any(not g for g in self.partition_by):
            raise ValueError("a PARTITION BY group needs at least one attribute")

    def variables(self) -> frozenset[str]:
        """The variables the pattern can bind (event types and AS names)."""
        return variables(self.pattern)

    def to_cel(self, *, strategy: bool = False) -> Formula:
        """The CEL formula of the WHERE pattern with SELECT's projection: ``PI[vars](pattern)`` (``SELECT *``
        gives the pattern itself).

        With ``strategy=True`` a selection strategy is applied *after* the projection (spec §1.4) with seed
        000's operator of the same name (NEXT is seed 000's NXT); ANY has no seed-000 counterpart and raises
        :class:`UnsupportedError`. Windows, PARTITION BY, CONSUME BY and LIMIT are not CEL.
        """
        phi = self.pattern if self.select is None else Proj(self.pattern, self.select)
        if not strategy or self.strategy == "ALL":
            return phi
        if self.strategy == "ANY":
            raise UnsupportedError("the ANY selection strategy has no seed-000 (CEL) counterpart")
        return Select(Strategy({"NEXT": "NXT"}.get(self.strategy, self.strategy)), phi)

    def __str__(self) -> str:
        return format_query(self)


@dataclass(frozen=True)
class StreamDeclaration:
    """``CREATE STREAM name { EVENT T { attr:datatype, … }, … }``: the event types of a stream and their
    attributes with the *declared* datatypes, lower-cased (``"int"``, ``"double"``, ``"string"``, …; see
    :data:`DATATYPE_KINDS` and :meth:`kinds`)."""

    name: str
    events: dict[str, dict[str, str]] = field(default_factory=dict)

    def kinds(self) -> dict[str, dict[str, str | None]]:
        """The predicate kinds (``num``, ``str``, ``bool``) of the attributes; None for an unknown datatype."""
        return {t: {a: DATATYPE_KINDS.get(d) for a, d in attrs.items()} for t, attrs in self.events.items()}


# ---------------------------------------------------------------------------------------------- parsing


class _Positioned(Exception):
    """A semantic error found while building the AST, located at a token."""

    def __init__(self, message: str, tok: Token | None) -> None:
        super().__init__(message)
        self.message, self.tok = message, tok


def _unquote_name(tok: Token) -> Token:
    if tok.type == "QNAME":
        value = tok[1:-1].replace("``", "`")
        if not value:
            raise _Positioned("an empty name", tok)
        return Token.new_borrow_pos("NAME", value, tok)
    return tok


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}


def _string(tok: Token) -> str:
    if tok.type == "SQSTRING":
        return tok[1:-1].replace("''", "'")
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), tok[1:-1], flags=re.S)


def _number(tok: Token) -> int | float:
    return float(tok) if re.search(r"[.eE]", tok) else int(tok)


def _first_token(x: Any) -> Token | None:
    if isinstance(x, Token):
        return x
    if isinstance(x, (list, tuple)):
        for y in x:
            t = _first_token(y)
            if t is not None:
                return t
    return None


class _Builder(Transformer):
    """Parse tree → AST; one instance per parse (it records where FILTER variables were written)."""

    def __init__(self, check_variables: bool) -> None:
        super().__init__()
        self.check_variables = check_variables
        self.on_tokens: dict[int, Token] = {}

    # names, constants
    def name(self, c: list) -> Token:
        return _unquote_name(c[0])

    def string(self, c: list) -> tuple[str, Token]:
        return _string(c[0]), c[0]

    # query
    def strategy(self, c: list) -> str:
        return c[0].upper()

    def select_star(self, c: list) -> tuple[str, Any]:
        return ("select", None)

    def select_none(self, c: list) -> tuple[str, Any]:
        return ("select", ())

    def select_vars(self, c: list) -> tuple[str, Any]:
        return ("select", tuple(c))

    def from_clause(self, c: list) -> tuple[str, Any]:
        return ("streams", tuple(c))

    def group(self, c: list) -> tuple[Token, ...]:
        return tuple(c)

    def partition(self, c: list) -> tuple[str, Any]:
        return ("partition_by", tuple(tuple(str(n) for n in g) for g in c[1:]))

    def within_events(self, c: list) -> tuple[str, Any]:
        n = _number(c[0])
        if not isinstance(n, int):
            raise _Positioned(f"a window of EVENTS needs a whole number, got {c[0]}", c[0])
        return ("within", Window("events", n))

    def within_attribute(self, c: list) -> tuple[str, Any]:
        return ("within", Window("attribute", _number(c[0]), attribute=str(c[1])))

    def within_time(self, c: list) -> tuple[str, Any]:
        return ("within", c[0])

    def duration(self, c: list) -> Window:
        scale = {"H": 3600, "M": 60, "S": 1}
        total: int | float = 0
        for amount, unit in zip(c[0::2], c[1::2]):
            total += _number(amount) * scale[unit[0].upper()]
        return Window("time", total)

    def consume(self, c: list) -> tuple[str, Any]:
        return ("consume", c[0].upper())

    def limit(self, c: list) -> tuple[str, Any]:
        n = _number(c[0])
        if not isinstance(n, int):
            raise _Positioned(f"LIMIT needs a whole number, got {c[0]}", c[0])
        return ("limit", n)

    def query(self, c: list) -> Query:
        fields: dict[str, Any] = {}
        pattern: Formula | None = None
        select_tokens: tuple[Token, ...] = ()
        for x in c:
            if isinstance(x, Formula):
                pattern = x
            elif isinstance(x, str) and not isinstance(x, Token):
                fields["strategy"] = x
            else:
                key, value = x
                if key == "select" and value:
                    select_tokens = value
                    value = tuple(str(v) for v in value)
                elif key == "streams":
                    value = tuple(str(v) for v in value)
                fields[key] = value
        assert pattern is not None
        if self.check_variables:
            bound = variables(pattern)
            for tok in select_tokens:
                if str(tok) not in bound:
                    raise _Positioned(f"SELECT names {str(tok)!r}, which the pattern does not bind "
                                      f"(it binds {', '.join(sorted(bound))})", tok)
        return Query(pattern=pattern, **fields)

    # patterns
    def atom(self, c: list) -> Formula:
        return Atom(str(c[0]))

    def stream_atom(self, c: list) -> Formula:
        stream, etype = str(c[0]), str(c[2])
        return Filter(Atom(etype), On(etype, Cmp(Attr(STREAM_ATTRIBUTE), "=", Const(stream))))

    def as_(self, c: list) -> Formula:
        return In(c[0], str(c[1]))

    def plus(self, c: list) -> Formula:
        return Plus(c[0])

    def cplus(self, c: list) -> Formula:
        return CPlus(c[0])

    def seq(self, c: list) -> Formula:
        return Seq(c[0], c[1])

    def contig(self, c: list) -> Formula:
        return Contig(c[0], c[1])

    def disj(self, c: list) -> Formula:
        return Disj(c[0], c[1])

    def filter(self, c: list) -> Formula:
        body, cond = c
        if self.check_variables:
            bound = variables(body)
            for on in _filter_atoms(cond):
                if on.var not in bound:
                    raise _Positioned(f"FILTER names the variable {on.var!r}, which the filtered pattern does "
                                      f"not bind (it binds {', '.join(sorted(bound))})",
                                      self.on_tokens.get(id(on)))
        return Filter(body, cond)

    def on(self, c: list) -> Predicate:
        p = On(str(c[0]), c[1])
        self.on_tokens[id(p)] = c[0]
        return p

    def f_and(self, c: list) -> Predicate:
        return And(tuple(c))

    def f_or(self, c: list) -> Predicate:
        return Or(tuple(c))

    # expressions
    def or_(self, c: list) -> Predicate:
        return Or(tuple(c))

    def and_(self, c: list) -> Predicate:
        return And(tuple(c))

    def not_(self, c: list) -> Predicate:
        return Not(c[0])

    def cmp_op(self, c: list) -> Token:
        return c[0]

    def cmp(self, c: list) -> Predicate:
        left, op_tok, right = c
        op = {"==": "=", "<>": "!="}.get(str(op_tok), str(op_tok))
        if (isinstance(left, Attr) and left.name == TYPE_KEY and op in ("=", "!=")
                and isinstance(right, Const) and isinstance(right.value, str)):
            t = IsType(right.value)
            return t if op == "=" else Not(t)
        try:
            return Cmp(left, op, right)
        except CerError as e:
            raise _Positioned(str(e), op_tok) from None

    def like(self, c: list) -> Predicate:
        pattern, tok = c[1]
        try:
            return Like(Attr(str(c[0])), pattern)
        except CerError as e:
            raise _Positioned(str(e), tok) from None

    def in_(self, c: list) -> Predicate:
        return self._in(c, negated=False)

    def not_in(self, c: list) -> Predicate:
        return self._in(c, negated=True)

    def _in(self, c: list, negated: bool) -> Predicate:
        term, values = Attr(str(c[0])), c[1]
        if isinstance(values, tuple) and values[0] == "range":
            return InRange(term, values[1], values[2], negated)
        return InSet(term, frozenset(values), negated)

    def value_list(self, c: list) -> list[Const]:
        return [x if isinstance(x, Const) else Const(x) for x in c]

    def range_both(self, c: list) -> tuple:
        return ("range", c[0], c[1])

    def range_low(self, c: list) -> tuple:
        return ("range", c[0], None)

    def range_high(self, c: list) -> tuple:
        return ("range", None, c[0])

    def signed(self, c: list) -> int | float:
        n = _number(c[-1])
        return -n if len(c) == 2 else n

    def arith(self, c: list) -> Arith:
        left, op, right = c
        try:
            return Arith(str(op), left, right)
        except CerError as e:
            raise _Positioned(str(e), op) from None

    def negate(self, c: list) -> Attr | Const | Arith:
        operand = c[1]
        if isinstance(operand, Const) and not isinstance(operand.value, (bool, str)):
            return Const(-operand.value)  # a negative literal
        try:
            return Arith("-", Const(0), operand)
        except CerError as e:
            raise _Positioned(str(e), c[0]) from None

    def unary_plus(self, c: list) -> Attr | Const | Arith:
        operand = c[1]
        if isinstance(operand, Const) and isinstance(operand.value, (bool, str)):
            raise _Positioned(f"arithmetic needs numbers, got the constant {operand}", c[0])
        return operand

    def number(self, c: list) -> Const:
        return Const(_number(c[0]))

    def string_const(self, c: list) -> Const:
        return Const(c[0][0])

    def true(self, c: list) -> Const:
        return Const(True)

    def false(self, c: list) -> Const:
        return Const(False)

    def attr(self, c: list) -> Attr:
        return Attr(str(c[0]))

    # declarations
    def attr_decl(self, c: list) -> tuple[str, str]:
        return str(c[0]), str(c[1]).lower()

    old_attr = attr_decl

    def event_decl(self, c: list) -> tuple[Token, dict[str, str]]:
        return c[0], self._attrs(c[1:])

    @staticmethod
    def _attrs(pairs: list) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, datatype in pairs:
            out[name] = datatype
        return out

    def stream_decl(self, c: list) -> StreamDeclaration:
        events: dict[str, dict[str, str]] = {}
        for tok, attrs in c[1:]:
            if str(tok) in events:
                raise _Positioned(f"event {str(tok)!r} is declared twice in stream {str(c[0])!r}", tok)
            events[str(tok)] = attrs
        return StreamDeclaration(str(c[0]), events)

    def old_event_decl(self, c: list) -> tuple[str, Token, dict[str, str]]:
        return ("event", c[0], self._attrs(c[1:]))

    def old_stream_decl(self, c: list) -> tuple[str, Token, list[Token]]:
        return ("stream", c[0], c[1:])

    def declarations(self, c: list) -> list[StreamDeclaration]:
        schemas: dict[str, dict[str, str]] = {}
        out: list[StreamDeclaration] = []
        for d in c:
            if isinstance(d, StreamDeclaration):
                out.append(d)
            elif d[0] == "event":
                schemas[str(d[1])] = d[2]
            else:
                events: dict[str, dict[str, str]] = {}
                for tok in d[2]:
                    if str(tok) not in schemas:
                        raise _Positioned(f"stream {str(d[1])!r} lists event {str(tok)!r}, which no DECLARE EVENT "
                                          f"before it declares", tok)
                    events[str(tok)] = dict(schemas[str(tok)])
                out.append(StreamDeclaration(str(d[1]), events))
        return out


def _filter_atoms(p: Predicate) -> list[On]:
    if isinstance(p, (And, Or)):
        return [a for x in p.args for a in _filter_atoms(x)]
    return [p] if isinstance(p, On) else []


@functools.cache
def _lark() -> Lark:
    """The LALR parser (no inline transformer: the builder keeps per-parse state)."""
    return Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", lexer="basic",
                start=["query_start", "declarations_start"], maybe_placeholders=False)


def parse_query(text: str, *, check_variables: bool = True) -> Query:
    """Parse a CEQL query; raises :class:`SyntaxErrorCER` (line, column, expected) on bad input.

    With ``check_variables`` (the default) SELECT may name only variables the pattern binds, and a FILTER
    only variables its filtered pattern binds: the semantics would make such a name vacuous (an unbound
    variable passes every filter, spec §1.1), which is almost always a typo.
    """
    result = _run(text, "query_start", check_variables)
    assert isinstance(result, Query)
    return result


def parse_declarations(text: str) -> list[StreamDeclaration]:
    """Parse CORE stream declarations: ``CREATE STREAM S { EVENT BUY { name:string, price:double }, … }``
    (``DECLARE STREAM`` is an alias), or the older ``DECLARE EVENT BUY(name string, price double)`` followed
    by ``DECLARE STREAM S(BUY, SELL)``. Declarations may be separated by ``;``."""
    result = _run(text, "declarations_start", True)
    return list(result)


def _run(text: str, start: str, check_variables: bool) -> Any:
    if not isinstance(text, str):
        raise TypeError(f"expected CEQL text (str), got {type(text).__name__}")
    try:
        tree = _lark().parse(text, start=start)
    except UnexpectedInput as e:
        raise _syntax_error(text, start, e) from None
    except LarkError as e:  # pragma: no cover - defensive: no other lark exception escapes
        raise SyntaxErrorCER(str(e), line=1, column=1, text=text) from None
    try:
        if isinstance(tree, Tree):
            return _Builder(check_variables).transform(tree)
        return tree  # pragma: no cover - the start rules always build a tree
    except VisitError as e:
        orig = e.orig_exc
        if isinstance(orig, _Positioned):
            tok = orig.tok or _first_token(e.obj.children if isinstance(e.obj, Tree) else [])
            line, column = (tok.line, tok.column) if tok is not None and tok.line is not None else (1, 1)
            raise SyntaxErrorCER(orig.message, line=line, column=column, text=text) from None
        if isinstance(orig, CerError):
            tok = _first_token(e.obj.children if isinstance(e.obj, Tree) else [])
            line, column = (tok.line, tok.column) if tok is not None and tok.line is not None else (1, 1)
            raise SyntaxErrorCER(str(orig), line=line, column=column, text=text) from None
        raise


# ---------------------------------------------------------------------------------------------- error messages

_SHOW = {
    "_SEMI": "';'", "_COLON": "':'", "_CPLUS": "':+'", "_COMMA": "','", "_DOTDOT": "'..'", "_LPAR": "'('",
    "_RPAR": "')'", "_LSQB": "'['", "_RSQB": "']'", "_LBRACE": "'{'", "_RBRACE": "'}'", "PLUS": "'+'",
    "MINUS": "'-'", "STAR": "'*'", "SLASH": "'/'", "EQ": "'='", "NE": "'!='", "LT": "'<'", "LE": "'<='",
    "GT": "'>'", "GE": "'>='", "$END": "end of input", "NUMBER": "a number",
}
_KEYWORD_TERMINALS = {"_SELECT": "SELECT", "_FROM": "FROM", "_WHERE": "WHERE", "PARTITION": "PARTITION",
                      "_BY": "BY", "_WITHIN": "WITHIN", "_CONSUME": "CONSUME", "_LIMIT": "LIMIT", "ALL": "ALL",
                      "ANY": "ANY", "LAST": "LAST", "MAX": "MAX", "NEXT": "NEXT", "STRICT": "STRICT",
                      "NONE": "NONE", "_AS": "AS", "_OR": "OR", "_AND": "AND", "_NOT": "NOT", "_FILTER": "FILTER",
                      "_IN": "IN", "_LIKE": "LIKE", "EVENTS": "EVENTS", "HOURS": "HOURS", "MINUTES": "MINUTES",
                      "SECONDS": "SECONDS", "TRUE": "TRUE", "FALSE": "FALSE", "_CREATE": "CREATE",
                      "_DECLARE": "DECLARE", "_STREAM": "STREAM", "_EVENT": "EVENT"}
_NAMES = {"NAME", "QNAME"}
_STRINGS = {"SQSTRING", "DQSTRING"}
_CMP_OPS = ["EQ", "NE", "LT", "LE", "GT", "GE"]
_ARITH = ["PLUS", "MINUS", "STAR", "SLASH"]
_PATTERN_OPS = ["_SEMI", "_COLON", "_OR", "_AS", "PLUS", "_CPLUS", "_FILTER"]
_CLAUSES = ["_FROM", "_WHERE", "PARTITION", "_WITHIN", "_CONSUME", "_LIMIT"]
_UNITS = ["EVENTS", "HOURS", "MINUTES", "SECONDS"]


def _describe_token(tok: Token) -> str:
    if tok.type == "$END":
        return "end of input"
    if tok.type in _KEYWORD_TERMINALS:
        return f"keyword {tok.value}"
    if tok.type in _NAMES:
        return f"name {tok.value}" if tok.type == "QNAME" else f"name {tok.value!r}"
    if tok.type == "NUMBER":
        return f"number {tok.value}"
    if tok.type in _STRINGS:
        return f"string {tok.value}"
    return f"'{tok.value}'"


def _describe_expected(acc: set[str], prev: Token | None, start: str) -> list[str]:
    """Readable, short descriptions of the acceptable terminals ``acc`` after token ``prev``."""
    acc = set(acc)
    out: list[str] = []
    prev_type = prev.type if prev is not None else None
    if acc & _NAMES:
        acc -= _NAMES
        if prev_type == "_SELECT" or (prev_type in ("ALL", "ANY", "LAST", "MAX", "NEXT", "STRICT")
                                      and "STAR" in acc):
            out.append("'*', NONE or the variables to select")
            acc -= {"STAR", "NONE", "ALL", "ANY", "LAST", "MAX", "NEXT", "STRICT"}
            if acc - {"STAR", "NONE"}:
                out.append("a selection strategy (ALL, ANY, LAST, MAX, NEXT, STRICT)")
            acc.clear()
        elif prev_type in ("_WHERE", "_SEMI", "_COLON", "_OR") and "_LPAR" in acc and "_LSQB" not in acc:
            out.append("a pattern (an event type, S>T or '(')")
            acc.discard("_LPAR")
        elif prev_type == "_FILTER" or (prev_type in ("_AND", "_OR") and "_LPAR" in acc and not acc & _STRINGS
                                        and "NUMBER" not in acc):
            out.append("a filter Var[condition] or '('")
            acc.discard("_LPAR")
        elif prev_type == "_AS":
            out.append("a variable name")
        elif acc & _STRINGS or "NUMBER" in acc:
            out += ["an attribute", "a number", "a string", "'('"]
            if "_NOT" in acc:
                out.append("NOT")
            acc -= _STRINGS | {"NUMBER", "_LPAR", "MINUS", "PLUS", "TRUE", "FALSE", "_NOT"}
        else:
            out.append("a name")
    if acc & set(_CMP_OPS) == set(_CMP_OPS):
        out.append("a comparison (=, !=, <, <=, >, >=)")
        acc -= set(_CMP_OPS)
    if acc & _STRINGS:
        out.append("a string")
        acc -= _STRINGS
    if "NUMBER" in acc:
        out.append("a number")
        acc -= {"NUMBER", "MINUS"}
    pattern_ops = [o for o in _PATTERN_OPS if o in acc]
    if len(pattern_ops) >= 3:
        out.append("a pattern operator (" + ", ".join(_KEYWORD_TERMINALS.get(o, _SHOW.get(o, o)).strip("'")
                                                    for o in pattern_ops) + ")")
        acc -= set(pattern_ops)
    for group, label in ((_UNITS, "a unit ({})"), (_ARITH, "an arithmetic operator ({})")):
        found = [t for t in group if t in acc]
        if len(found) >= 2:
            out.append(label.format(", ".join(_KEYWORD_TERMINALS.get(t, _SHOW.get(t, t)).strip("'")
                                              for t in found)))
            acc -= set(found)
    clauses = [c for c in _CLAUSES if c in acc]
    if clauses:
        out.append(", ".join(_KEYWORD_TERMINALS[c] for c in clauses))
        acc -= set(clauses)
    if {"_NOT", "_IN", "_LIKE"} <= acc:  # after an attribute: x LIKE …, x IN {…}, x NOT IN {…}
        out += ["LIKE", "IN", "NOT IN"]
        acc -= {"_NOT", "_IN", "_LIKE"}
    for t in ["_AND", "_OR", "_NOT", "_LIKE", "_IN"]:
        if t in acc:
            out.append(_KEYWORD_TERMINALS[t])
            acc.discard(t)
    for t in sorted(acc, key=lambda t: (t == "$END", t)):
        out.append(_KEYWORD_TERMINALS.get(t, _SHOW.get(t, t)))
    return out


def _hint(e: UnexpectedInput, acc: set[str]) -> str:
    if (isinstance(e, UnexpectedToken) and e.token.type in _KEYWORD_TERMINALS and acc & _NAMES
            and e.token.type not in _CLAUSES + ["_SELECT", "_FILTER", "_AND", "_OR"]):
        return f" ({e.token.value} is a reserved keyword; write `{e.token.value}` to use it as a name)"
    if isinstance(e, UnexpectedToken) and e.token.type in ("_SEMI", "_COLON", "_OR") and "_FILTER" in acc:
        return " (FILTER applies to the whole pattern before it: parenthesize a filtered operand)"
    return ""


def _syntax_error(text: str, start: str, e: UnexpectedInput) -> SyntaxErrorCER:
    return syntax_error(text, start, e, plain=_lark(), describe_token=_describe_token,
                        describe_expected=_describe_expected, hint=_hint,
                        quotes={"'": "unterminated string", '"': "unterminated string",
                                "`": "unterminated backquoted name"})


# ---------------------------------------------------------------------------------------------- printing

FILTER_LEVEL, BINARY_LEVEL, POSTFIX_LEVEL, ATOMIC_LEVEL = range(4)


def format_name(name: str) -> str:
    """A name as CEQL text: bare when it is an identifier and not a keyword, in backquotes otherwise."""
    if _IDENT.match(name) and name.lower() not in _KEYWORD_SET:
        return name
    return "`" + name.replace("`", "``") + "`"


def format_value(value: Value) -> str:
    """A constant as CEQL text: numbers as Python writes them, strings in CORE's ``'…'`` (``''`` for a quote)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, float) and math.isinf(value):
        return "1e999" if value > 0 else "-1e999"
    return repr(value)


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
        return (f"{format_term(p.left, _attr, format_value)} {p.op} "
                f"{format_term(p.right, _attr, format_value)}")
    if isinstance(p, IsType):
        if p.slot is not None:
            raise UnsupportedError(f"CEQL attributes are unqualified inside Var[...]: cannot print {p.text()}")
        return f"{TYPE_KEY} = {format_value(p.name)}"
    if isinstance(p, Like):
        return f"{_attr(p.term)} LIKE {format_value(p.pattern)}"
    if isinstance(p, InSet):
        vals = ", ".join(format_value(c.value) for c in p.sorted_values())
        return f"{_attr(p.term)} {'NOT IN' if p.negated else 'IN'} {{{vals}}}"
    if isinstance(p, InRange):
        lo = "" if p.low is None else format_value(p.low)
        hi = "" if p.high is None else format_value(p.high)
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
        return f"{_wrap(phi.body, FILTER_LEVEL)} FILTER {format_filter(phi.condition)}", FILTER_LEVEL
    raise UnsupportedError(f"{type(phi).__name__} ({phi}) has no CEQL syntax; CEQL patterns use event types, "
                           f"AS, ;, :, OR, +, :+ and FILTER")


def _wrap(phi: Formula, minimum: int) -> str:
    text, level = _pattern(phi)
    return f"({text})" if level < minimum else text


def format_pattern(phi: Formula) -> str:
    """The CEQL text of a WHERE pattern, with the fewest parentheses."""
    return _pattern(phi)[0]


def _format_number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def format_window(w: Window) -> str:
    """The text after WITHIN."""
    if w.strict:
        raise UnsupportedError("a strict window (end - start < size) has no CEQL syntax")
    if w.size < 0 or (isinstance(w.size, float) and not math.isfinite(w.size)):
        raise UnsupportedError(f"a window size is a non-negative finite number, got {w.size!r}")
    if w.kind == "events":
        if not float(w.size).is_integer():
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


def format_query(q: Query) -> str:
    """Canonical CEQL text for ``q``: ``parse_query(format_query(q)) == q``.

    Raises :class:`UnsupportedError` for what CEQL cannot write: pattern operators other than those of CEQL,
    filter conditions that are not ``Var[...]`` blocks joined by AND/OR, TRUE/FALSE and opaque predicates,
    strict windows and duration windows over a non-default timestamp.
    """
    parts = ["SELECT"]
    if q.strategy != "ALL":
        parts.append(q.strategy)
    if q.select is None:
        parts.append("*")
    elif not q.select:
        parts.append("NONE")
    else:
        parts.append(", ".join(map(format_name, q.select)))
    if q.streams:
        parts += ["FROM", ", ".join(map(format_name, q.streams))]
    parts += ["WHERE", format_pattern(q.pattern)]
    if q.partition_by:
        parts += ["PARTITION BY", ", ".join("[" + ", ".join(map(format_name, g)) + "]" for g in q.partition_by)]
    if q.within is not None:
        parts += ["WITHIN", format_window(q.within)]
    if q.consume is not None:
        parts += ["CONSUME BY", q.consume]
    if q.limit is not None:
        parts += ["LIMIT", str(q.limit)]
    return " ".join(parts)


def format_declaration(d: StreamDeclaration) -> str:
    """``CREATE STREAM S { EVENT T { a:int, … }, … }`` (parses back with :func:`parse_declarations`)."""
    events = ", ".join(f"EVENT {format_name(t)} {{ " + ", ".join(f"{format_name(a)}:{format_name(k)}"
                                                              for a, k in attrs.items()) + " }"
                       for t, attrs in d.events.items())
    return f"CREATE STREAM {format_name(d.name)} {{ {events} }}"


__all__ = [
    "Query", "StreamDeclaration", "parse_query", "parse_declarations", "format_query", "format_pattern",
    "format_filter", "format_expression", "format_window", "format_declaration", "format_name", "format_value",
    "KEYWORDS", "STRATEGIES", "CONSUME_POLICIES", "STREAM_ATTRIBUTE", "DEFAULT_TIME_ATTRIBUTE", "DATATYPE_KINDS",
    "GRAMMAR_PATH",
]
