"""The CEQL parser (the CORE paper, *CORE: a Complex Event Recognition Engine*, §2 and Fig. 1).

A query is ``SELECT [strategy] vars|*|NONE [FROM streams] WHERE pattern [PARTITION BY [a,b], [c]]
[WITHIN n EVENTS | [h HOURS] [m MINUTES] [s SECONDS] | n [attr]] [CONSUME BY ANY|PARTITION|NONE] [LIMIT n]``.
The grammar is ``ceql.lark`` (LALR(1)), condensed from CORE's ``CORE.g4``; the paper gives only the abstract
grammar, so the precedence is the one CORE's ANTLR grammar gives by its alternatives' order, tightest first:

=====================  =================================  ==========================================
level                  operators                          notes
=====================  =================================  ==========================================
1 (tightest)           postfix ``AS x``, ``+``, ``:+``    applied left to right: ``H+ AS hs`` = ``(H+) AS hs``
2                      ``OR``, ``;``, ``:``               one level, left-associative (as in CORE)
3 (loosest)            ``FILTER f``                       applies to the whole pattern before it
=====================  =================================  ==========================================

So ``A ; B OR C`` is ``(A ; B) OR C`` and ``SELL AS a ; SELL AS b FILTER …`` filters the sequence. A FILTER
can be nested only inside parentheses: ``(A FILTER a[x > 1]) ; B``. ``S>T`` is an event of type T from stream
S (see :data:`~cer_theory.formalisms.ceql.ast.STREAM_ATTRIBUTE`). Keywords are case-insensitive and reserved; a
name in backquotes (`` `event` ``) may be anything. Comments are ``-- …`` and ``/* … */``.

FILTER conditions are ``Var[expr]`` blocks joined by AND (tighter) and OR, and are kept as written: a
:class:`~cer_theory.core.predicates.ast.And` / :class:`~cer_theory.core.predicates.ast.Or` tree over
:class:`~cer_theory.core.predicates.ast.On` atoms, which is exactly how
:func:`cer_theory.formalisms.cel.ast.filter_literals` reads a condition (the CORE paper §2.2, footnote 1:
``FILTER θ1 AND θ2`` nests the filters, ``FILTER θ1 OR θ2`` is the OR of the filtered patterns). Inside ``Var[…]`` the
expression language is CORE's: comparisons ``= == != <> < <= > >=`` between arithmetic terms (``+ - * /``,
parentheses, numbers, attributes, strings, ``true``/``false``), ``attr LIKE 'regex'``, ``attr [NOT] IN {v1, v2}``,
ranges ``attr [NOT] IN {lo..hi}`` (``{lo..}``, ``{..hi}``; inclusive), NOT/AND/OR. ``type = 'R'`` reads the event
type. Strings are ``'…'`` (CORE: no escapes, ``''`` is a quote) or ``"…"`` (backslash escapes, as in CEL).

Windows: ``WITHIN n EVENTS`` is ``Window("events", n)`` (positions); ``WITHIN 1 HOURS 30 MINUTES`` is
``Window("time", 5400)``: durations are in **seconds** (the singular units HOUR, MINUTE, SECOND are accepted
too) and read the timestamp attribute ``"time"`` (``attribute=None``; a caller such as a ``--time-attribute``
option may override it); ``WITHIN n [attr]`` is ``Window("attribute", n, attribute="attr")``, the values of
that attribute. All windows are inclusive, as in the paper (the CORE paper §2).

:func:`parse` returns a :class:`~cer_theory.formalisms.ceql.ast.Query`; with
:func:`cer_theory.formalisms.ceql.printer.format` it round-trips: ``parse(format(q)) == q``.
Every error is a :class:`~cer_theory.core.errors.SyntaxErrorCER` with line, column and what was expected.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from lark import Token
from lark.exceptions import UnexpectedInput, UnexpectedToken

from cer_theory.core.aggregates import aggregator
from cer_theory.core.durations import unit_seconds
from cer_theory.core.conditions import IMPORT_PATH, ConditionBuilder
from cer_theory.core.errors import CerError, SyntaxErrorCER
from cer_theory.core.events import TYPE_KEY
from cer_theory.core.parsing import LalrParser, Located, describe_token, number, syntax_error, unescape
from cer_theory.core.predicates.ast import (And, Arith, Attr, Cmp, Const, InRange, InSet, IsType, Like, On, Or,
                                            Predicate)
from cer_theory.core.windows import Window
from cer_theory.formalisms.cel.ast import Atom, Contig, CPlus, Disj, Filter, Formula, In, Plus, Seq, variables
from cer_theory.formalisms.ceql.ast import AggregateItem, QuarantinePolicy, Query, StreamDeclaration
from cer_theory.formalisms.ceql.lexicon import STREAM_ATTRIBUTE

GRAMMAR_PATH = Path(__file__).with_name("ceql.lark")

# ---------------------------------------------------------------------------------------------- AST building


def _unquote_name(tok: Token) -> Token:
    if tok.type == "QNAME":
        value = tok[1:-1].replace("``", "`")
        if not value:
            raise Located("an empty name", tok)
        return Token.new_borrow_pos("NAME", value, tok)
    return tok


def _string(tok: Token) -> str:
    """CORE's ``'…'`` (no escapes, ``''`` is a quote) or ``"…"`` (backslash escapes, as in CEL)."""
    if tok.startswith("'"):
        return tok[1:-1].replace("''", "'")
    return unescape(tok[1:-1])


class _Builder(ConditionBuilder):
    """Parse tree → AST; one instance per parse (it records where FILTER variables were written). Expressions are
    built by the shared :class:`~cer_theory.core.conditions.ConditionBuilder`, so they mean what they mean in
    every logic; CEQL adds its atoms (LIKE, IN) and reads its ``'…'`` strings."""

    needs_attribute = None  # a comparison without attributes is refused by the AST, at its operator

    def __init__(self, check_variables: bool) -> None:
        super().__init__()
        self.check_variables = check_variables
        self.on_tokens: dict[int, Token] = {}
        self.having_tokens: dict[str, Token] = {}  # where attribute names were written (first occurrence)

    # names, constants
    def name(self, c: list) -> Token:
        return _unquote_name(c[0])

    def string(self, c: list) -> tuple[str, Token]:
        return _string(c[0]), c[0]

    # query
    def strategy(self, c: list) -> str:
        return c[0].upper()

    def select_star(self, c: list) -> tuple[str, Any]:
        return ("select", (None, c))

    def select_none(self, c: list) -> tuple[str, Any]:
        return ("select", ((), c[1:]))

    def select_vars(self, c: list) -> tuple[str, Any]:
        return ("select", (tuple(x for x in c if isinstance(x, Token)), [x for x in c if not isinstance(x, Token)]))

    def agg_function(self, c: list) -> Token:
        tok = c[0]
        try:
            aggregator(str(tok))
        except CerError as e:
            raise Located(str(e), tok) from None
        return tok

    def aggregate(self, c: list) -> tuple[AggregateItem, Token]:
        function, variable = c[0], c[1]
        attribute = str(c[2]) if len(c) == 4 else None
        try:
            item = AggregateItem(str(function), str(variable), attribute, str(c[-1]))
        except ValueError as e:
            raise Located(str(e), function) from None
        return item, variable

    def having(self, c: list) -> tuple[str, Any]:
        return ("having", c[0])

    def from_clause(self, c: list) -> tuple[str, Any]:
        return ("streams", tuple(c))

    def group(self, c: list) -> tuple[Token, ...]:
        return tuple(c)

    def partition(self, c: list) -> tuple[str, Any]:
        return ("partition_by", tuple(tuple(str(n) for n in g) for g in c[1:]))

    def within_events(self, c: list) -> tuple[str, Any]:
        n = number(c[0])
        if not isinstance(n, int):
            raise Located(f"a window of EVENTS needs a whole number, got {c[0]}", c[0])
        return ("within", Window("events", n))

    def within_attribute(self, c: list) -> tuple[str, Any]:
        return ("within", Window("attribute", number(c[0]), attribute=str(c[1])))

    def within_time(self, c: list) -> tuple[str, Any]:
        return ("within", c[0])

    def duration(self, c: list) -> Window:
        total: int | float = 0
        for amount, unit in zip(c[0::2], c[1::2]):  # (the grammar admits hours, minutes, seconds: whole seconds)
            total += number(amount) * int(unit_seconds(str(unit)))
        return Window("time", total)

    def consume(self, c: list) -> tuple[str, Any]:
        return ("consume", c[0].upper())

    def limit(self, c: list) -> tuple[str, Any]:
        n = number(c[0])
        if not isinstance(n, int):
            raise Located(f"LIMIT needs a whole number, got {c[0]}", c[0])
        return ("limit", n)

    def query(self, c: list) -> Query:
        fields: dict[str, Any] = {}
        pattern: Formula | None = None
        select_tokens: tuple[Token, ...] = ()
        aggregates: list[tuple[AggregateItem, Token]] = []
        for x in c:
            if isinstance(x, Formula):
                pattern = x
            elif isinstance(x, str) and not isinstance(x, Token):
                fields["strategy"] = x
            else:
                key, value = x
                if key == "select":
                    value, aggregates = value
                    if value:
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
                    raise Located(f"SELECT names {str(tok)!r}, which the pattern does not bind "
                                      f"(it binds {', '.join(sorted(bound))})", tok)
            for item, tok in aggregates:
                if item.variable not in bound:
                    raise Located(f"{item.function}({item.variable}…) aggregates the variable {item.variable!r}, "
                                      f"which the pattern does not bind (it binds {', '.join(sorted(bound))})", tok)
        seen: set[str] = set()
        for item, tok in aggregates:
            if item.alias in seen:
                raise Located(f"the alias {item.alias!r} names two aggregates", tok)
            seen.add(item.alias)
        having = fields.get("having")
        if having is not None:
            for name in sorted(having_names(having)):
                if name not in seen:
                    known = ", ".join(sorted(seen)) or "none: SELECT has no aggregate"
                    raise Located(f"HAVING names {name!r}, which is not an aggregate alias (aliases: {known})",
                                      self.having_tokens.get(name))
        return Query(pattern=pattern, aggregates=tuple(item for item, _ in aggregates), **fields)

    # patterns
    def atom(self, c: list) -> Formula:
        return Atom(str(c[0]))

    def stream_atom(self, c: list) -> Formula:
        if str(c[1]) != ">":
            raise Located(f"unexpected {str(c[1])!r}; expected '>' (as in S>T, events of type T from stream S)",
                          c[1])
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
                    raise Located(f"FILTER names the variable {on.var!r}, which the filtered pattern does "
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

    # expressions: the shared builder's, plus CEQL's atoms and constants
    def term(self, x: Any) -> Attr | Const | Arith:
        if isinstance(x, Token) and x.type == "STRING":
            return Const(_string(x))
        if isinstance(x, Token) and x.type == "BOOL":
            return Const(x.lower() == "true")
        return super().term(x)

    def like(self, c: list) -> Predicate:
        self.having_tokens.setdefault(str(c[0]), c[0])
        pattern, tok = c[1]
        try:
            return Like(Attr(str(c[0])), pattern)
        except CerError as e:
            raise Located(str(e), tok) from None

    def in_(self, c: list) -> Predicate:
        return self._in(c, negated=False)

    def not_in(self, c: list) -> Predicate:
        return self._in(c, negated=True)

    def _in(self, c: list, negated: bool) -> Predicate:
        self.having_tokens.setdefault(str(c[0]), c[0])
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

    def positive(self, c: list) -> int | float:
        return number(c[0])

    def negative(self, c: list) -> int | float:
        return -number(c[0])

    def string_const(self, c: list) -> Const:
        return Const(c[0][0])

    def boolean(self, c: list) -> Const:
        return Const(c[0].lower() == "true")

    def attr(self, c: list) -> Attr:
        self.having_tokens.setdefault(str(c[0]), c[0])
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
                raise Located(f"event {str(tok)!r} is declared twice in stream {str(c[0])!r}", tok)
            events[str(tok)] = attrs
        return StreamDeclaration(str(c[0]), events)

    def old_event_decl(self, c: list) -> tuple[str, Token, dict[str, str]]:
        return ("event", c[0], self._attrs(c[1:]))

    def old_stream_decl(self, c: list) -> tuple[str, Token, list[Token]]:
        return ("stream", c[0], c[1:])

    def option(self, c: list) -> tuple[Token, float | None, list[Token]]:
        duration = c[1].size if len(c) > 1 and isinstance(c[1], Window) else None
        return c[0], duration, [t for t in c[1:] if isinstance(t, Token)]

    def option_decl(self, c: list) -> list[QuarantinePolicy]:
        if str(c[0]).upper() != "QUARANTINE":
            raise Located(f"unknown option {str(c[0])!r}: CORE's option declaration is CREATE QUARANTINE", c[0])
        out = []
        for tok, duration, streams in c[1:]:
            policy = str(tok).upper()
            if policy not in ("FIXED_TIME", "BOUNDED_TIME", "DIRECT"):
                raise Located(f"unknown quarantine policy {str(tok)!r}: expected FIXED_TIME, BOUNDED_TIME or "
                                  f"DIRECT", tok)
            if (duration is None) != (policy == "DIRECT"):
                raise Located(f"{policy} {'takes no' if policy == 'DIRECT' else 'needs a'} duration "
                                  f"(e.g. {policy} 2 seconds {{S}})" if policy != "DIRECT"
                                  else "DIRECT takes no duration: DIRECT {S}", tok)
            out.append(QuarantinePolicy(policy, duration or 0, tuple(str(s) for s in streams)))
        return out

    def declarations(self, c: list) -> list[StreamDeclaration | QuarantinePolicy]:
        schemas: dict[str, dict[str, str]] = {}
        out: list[StreamDeclaration | QuarantinePolicy] = []
        for d in c:
            if isinstance(d, StreamDeclaration):
                out.append(d)
            elif isinstance(d, list):
                out.extend(d)
            elif d[0] == "event":
                schemas[str(d[1])] = d[2]
            else:
                events: dict[str, dict[str, str]] = {}
                for tok in d[2]:
                    if str(tok) not in schemas:
                        raise Located(f"stream {str(d[1])!r} lists event {str(tok)!r}, which no DECLARE EVENT "
                                          f"before it declares", tok)
                    events[str(tok)] = dict(schemas[str(tok)])
                out.append(StreamDeclaration(str(d[1]), events))
        return out


def having_names(p: Predicate) -> set[str]:
    """The attribute names a HAVING condition reads (each must be an aggregate alias); the event type counts as
    the name ``type``, which no alias can be."""
    names: set[str] = set()

    def term(t: Any) -> None:
        if isinstance(t, Attr):
            names.add(t.name)
        elif isinstance(t, Arith):
            term(t.left)
            term(t.right)

    for node in p.walk():
        if isinstance(node, IsType):
            names.add(TYPE_KEY)
        elif isinstance(node, Cmp):
            term(node.left)
            term(node.right)
        elif isinstance(node, (Like, InSet, InRange)):
            term(node.term)
    return names


def _filter_atoms(p: Predicate) -> list[On]:
    if isinstance(p, (And, Or)):
        return [a for x in p.args for a in _filter_atoms(x)]
    return [p] if isinstance(p, On) else []


def parse(text: str, *, check_variables: bool = True) -> Query:
    """Parse a CEQL query; raises :class:`SyntaxErrorCER` (line, column, expected) on bad input.

    With ``check_variables`` (the default) SELECT may name only variables the pattern binds, and a FILTER
    only variables its filtered pattern binds: the semantics would make such a name vacuous (an unbound
    variable passes every filter, the CORE paper Fig. 2), which is almost always a typo.
    """
    result = _run(text, "query_start", check_variables)
    assert isinstance(result, Query)
    return result


def parse_declarations(text: str) -> list[StreamDeclaration | QuarantinePolicy]:
    """Parse CORE stream declarations: ``CREATE STREAM S { EVENT BUY { name:string, price:double }, … }``
    (``DECLARE STREAM`` is an alias), or the older ``DECLARE EVENT BUY(name string, price double)`` followed
    by ``DECLARE STREAM S(BUY, SELL)``, and CORE's option declaration ``CREATE QUARANTINE { FIXED_TIME 2 seconds
    {S} }`` (one :class:`QuarantinePolicy` per policy). Declarations may be separated by ``;``."""
    result = _run(text, "declarations_start", True)
    return list(result)


def _run(text: str, start: str, check_variables: bool) -> Any:
    if not isinstance(text, str):
        raise TypeError(f"expected CEQL text (str), got {type(text).__name__}")
    return PARSER.parse(text, start, builder=_Builder(check_variables))


# ---------------------------------------------------------------------------------------------- error messages

_SHOW = {
    "_SEMI": "';'", "_COLON": "':'", "_CPLUS": "':+'", "_COMMA": "','", "_DOTDOT": "'..'", "_LPAR": "'('",
    "_RPAR": "')'", "_LSQB": "'['", "_RSQB": "']'", "_LBRACE": "'{'", "_RBRACE": "'}'", "_PLUS": "'+'",
    "_MINUS": "'-'", "_STAR": "'*'", "_SLASH": "'/'", "CMP_OP": "a comparison (=, !=, <, <=, >, >=)",
    "_DOT": "'.'", "$END": "end of input", "NUMBER": "a number", "BOOL": "true or false",
}
_KEYWORD_TERMINALS = {"_SELECT": "SELECT", "_FROM": "FROM", "_WHERE": "WHERE", "PARTITION": "PARTITION",
                      "_BY": "BY", "_WITHIN": "WITHIN", "_HAVING": "HAVING", "_CONSUME": "CONSUME", "_LIMIT": "LIMIT", "ALL": "ALL",
                      "ANY": "ANY", "LAST": "LAST", "MAX": "MAX", "NEXT": "NEXT", "STRICT": "STRICT",
                      "NONE": "NONE", "_AS": "AS", "_OR": "OR", "_AND": "AND", "_NOT": "NOT", "_FILTER": "FILTER",
                      "_IN": "IN", "_LIKE": "LIKE", "EVENTS": "EVENTS", "HOURS": "HOURS", "MINUTES": "MINUTES",
                      "SECONDS": "SECONDS", "_CREATE": "CREATE",
                      "_DECLARE": "DECLARE", "_STREAM": "STREAM", "_EVENT": "EVENT"}
_NAMES = {"NAME", "QNAME"}
_STRINGS = {"STRING"}
_ARITH = ["_PLUS", "_MINUS", "_STAR", "_SLASH"]
_PATTERN_OPS = ["_SEMI", "_COLON", "_OR", "_AS", "_PLUS", "_CPLUS", "_FILTER"]
_ALIASES = {"_VEE", "_WEDGE", "_NEG"}
"""The condition grammar's ∨ ∧ ¬, accepted wherever OR, AND, NOT are and not named again."""
_CLAUSES = ["_FROM", "_WHERE", "PARTITION", "_WITHIN", "_HAVING", "_CONSUME", "_LIMIT"]
_UNITS = ["EVENTS", "HOURS", "MINUTES", "SECONDS"]


_describe_token = functools.partial(describe_token, keywords=_KEYWORD_TERMINALS,
                                    nouns={"NAME": "name", "QNAME": "name", "NUMBER": "number", "STRING": "string",
                                           "BOOL": "constant"}, quoted={"NAME"})


def _describe_expected(acc: set[str], prev: Token | None, start: str) -> list[str]:
    """Readable, short descriptions of the acceptable terminals ``acc`` after token ``prev``."""
    acc = set(acc) - _ALIASES
    out: list[str] = []
    prev_type = prev.type if prev is not None else None
    if acc & _NAMES:
        acc -= _NAMES
        if prev_type == "_SELECT" or (prev_type in ("ALL", "ANY", "LAST", "MAX", "NEXT", "STRICT")
                                      and "_STAR" in acc):
            out.append("'*', NONE or the variables to select")
            acc -= {"_STAR", "NONE", "ALL", "ANY", "LAST", "MAX", "NEXT", "STRICT"}
            if acc - {"_STAR", "NONE"}:
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
            acc -= _STRINGS | {"NUMBER", "_LPAR", "_MINUS", "_PLUS", "BOOL", "_NOT"}
        else:
            out.append("a name")
    if "CMP_OP" in acc:
        out.append(_SHOW["CMP_OP"])
        acc.discard("CMP_OP")
    if acc & _STRINGS:
        out.append("a string")
        acc -= _STRINGS
    if "NUMBER" in acc:
        out.append("a number")
        acc -= {"NUMBER", "_MINUS"}
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
    return syntax_error(text, start, e, plain=PARSER.plain, describe_token=_describe_token,
                        describe_expected=_describe_expected, hint=_hint,
                        quotes={"'": "unterminated string", '"': "unterminated string",
                                "`": "unterminated backquoted name"})


PARSER = LalrParser(GRAMMAR_PATH, name="ceql", start=("query_start", "declarations_start"), errors_at_node=True,
                    import_paths=(IMPORT_PATH,),
                    what={"query_start": "query", "declarations_start": "declaration"}, syntax_error=_syntax_error,
                    nested_part=lambda result: result.pattern if isinstance(result, Query) else result)
"""CEQL's parser (no inline transformer: the builder keeps per-parse state), its tables loaded from the user's
cache when a previous process built them, so each ``cer-theory run`` does not rebuild them (D121, D200)."""


__all__ = ["parse", "parse_declarations", "GRAMMAR_PATH", "PARSER"]
