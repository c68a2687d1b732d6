"""Parser for CEL (the CEL paper, Fig. 2; selection strategies §7.1) and for the shared predicate syntax.

The grammar is ``cel.lark`` (LALR(1)). The paper fixes no precedence; ours, tightest first:

======================================  ===========================  =========================
level                                   operators                    associativity
======================================  ===========================  =========================
1 (tightest)                            postfix ``+``, ``⊕``/``:+``  left (``R+:+`` = ``(R+)⊕``)
2                                       ``IN A``, ``AS A``           left (``R IN A IN B``)
3                                       ``;``, ``:``                 left (``R ; T : U``)
4                                       ``FILTER f``                 left (chains)
5 (loosest)                             ``OR``, ``AND``, ``ALL``,    left
                                        ``UNLESS``
======================================  ===========================  =========================

``PI[A,B](φ)`` (alias ``π[A,B](φ)``), ``START(φ)``, ``STRICT(φ)``, ``NXT(φ)``, ``LAST(φ)``, ``MAX(φ)`` and
``( )``/``[ ]`` groups are atomic. A FILTER condition is one literal (``T.x > 1``, ``1 < T.x``, ``H.id = T.id``,
``T.type = "R"``, ``T[x > 1 AND type = "R"]``, ``NOT`` literal, ``TRUE``, ``FALSE``) or a parenthesized or
bracketed boolean expression (NOT > AND > OR; aliases ``¬ ∧ ∨``). So ``φ FILTER T.x > 1 AND H`` is
``(φ FILTER T.x > 1) AND H``.

:func:`parse` returns a :class:`~cer_theory.formalisms.cel.ast.Formula`; :func:`parse_predicate` returns a
:class:`~cer_theory.core.predicates.Predicate` in the unqualified syntax (``tmp > 40 AND type = "H"``), which also
accepts qualified atoms (``T.x``, ``T[...]``). Every error is a :class:`~cer_theory.core.errors.SyntaxErrorCER`
naming line, column, what was found and what was expected.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedInput, UnexpectedToken, VisitError

from cer_theory.core.errors import CerError, SyntaxErrorCER
from cer_theory.core.events import TYPE_KEY
from cer_theory.core.predicates.ast import (FALSE, TRUE, And, Arith, Attr, Cmp, Const, IsType, Not, On, Or, Predicate,
                                            term_attrs)
from cer_theory.core.parsing import check_nesting, describe_token, number, position, syntax_error, unescape
from cer_theory.formalisms.cel.ast import (All, Atom, Conj, Contig, CPlus, Disj, Filter, Formula, In, Plus, Proj, Select, Seq, Start,
                      Strategy, Unless, variables)

GRAMMAR_PATH = Path(__file__).with_name("cel.lark")

KEYWORDS = ("IN", "AS", "FILTER", "OR", "AND", "ALL", "UNLESS", "START", "PI", "STRICT", "NXT", "LAST", "MAX",
            "NOT", "TRUE", "FALSE")
"""Reserved words (UPPERCASE, case-sensitive); ``true``/``false`` are reserved too (boolean constants)."""

_UNICODE_OPS = {"≠": "!=", "≤": "<=", "≥": ">="}


# ---------------------------------------------------------------------------------------------- AST building


def _const(tok: Token) -> Const:
    if tok.type == "NUMBER":
        return Const(number(tok))
    if tok.type == "BOOL":
        return Const(tok == "true")
    return Const(unescape(tok[1:-1]))  # STRING


def _term(x: Any) -> Attr | Const | Arith:
    return _const(x) if isinstance(x, Token) else x


def _pred(x: Any) -> Predicate:
    if isinstance(x, Token):  # a bare TRUE / FALSE keyword
        return TRUE if x.type == "TRUE" else FALSE
    return x


class _Builder(Transformer):
    """Tree → AST. Runs inline in the LALR parser (no parse tree is built)."""

    # formulas
    def atom(self, c: list) -> Formula:
        return Atom(str(c[0]))

    def in_(self, c: list) -> Formula:
        return In(c[0], str(c[1]))

    def filter(self, c: list) -> Formula:
        return Filter(c[0], _pred(c[1]))

    def seq(self, c: list) -> Formula:
        return Seq(c[0], c[1])

    def contig(self, c: list) -> Formula:
        return Contig(c[0], c[1])

    def plus(self, c: list) -> Formula:
        return Plus(c[0])

    def cplus(self, c: list) -> Formula:
        return CPlus(c[0])

    def varlist(self, c: list) -> tuple[str, ...]:
        return tuple(map(str, c))

    def proj(self, c: list) -> Formula:
        return Proj(c[1], c[0])

    def start(self, c: list) -> Formula:
        return Start(c[0])

    def select(self, c: list) -> Formula:
        return Select(Strategy(c[0].type), c[1])

    def disj(self, c: list) -> Formula:
        return Disj(c[0], c[1])

    def conj(self, c: list) -> Formula:
        return Conj(c[0], c[1])

    def all_(self, c: list) -> Formula:
        return All(c[0], c[1])

    def unless(self, c: list) -> Formula:
        return Unless(c[0], c[1])

    # predicates
    def uattr(self, c: list) -> Attr:
        return Attr(str(c[0]))

    def qattr(self, c: list) -> Attr:
        return Attr(str(c[1]), str(c[0]))

    def cmp(self, c: list) -> Predicate:
        left, right = _term(c[0]), _term(c[2])
        if not term_attrs(left) and not term_attrs(right):  # the grammar's terms allow it; a comparison does not
            tok = c[2] if isinstance(c[2], Token) else c[1]
            raise SyntaxErrorCER(f"unexpected {_describe_token(tok)}; expected {_NEEDS_ATTRIBUTE}", line=tok.line,
                                 column=tok.column, expected=(_NEEDS_ATTRIBUTE,))
        op = _UNICODE_OPS.get(str(c[1]), str(c[1]))
        if (isinstance(left, Attr) and left.name == TYPE_KEY and op in ("=", "!=")
                and isinstance(right, Const) and isinstance(right.value, str)):
            t = IsType(right.value, left.slot)
            return t if op == "=" else Not(t)
        return Cmp(left, op, right)

    def on(self, c: list) -> Predicate:
        return On(str(c[0]), _pred(c[1]))

    # arithmetic terms: CEQL's operators and precedence (the CORE paper), one condition language for every logic
    def arith_add(self, c: list) -> Arith:
        return Arith("+", _term(c[0]), _term(c[1]))

    def arith_sub(self, c: list) -> Arith:
        return Arith("-", _term(c[0]), _term(c[1]))

    def arith_mul(self, c: list) -> Arith:
        return Arith("*", _term(c[0]), _term(c[1]))

    def arith_div(self, c: list) -> Arith:
        return Arith("/", _term(c[0]), _term(c[1]))

    def arith_neg(self, c: list) -> Attr | Const | Arith:
        operand = _term(c[0])
        if isinstance(operand, Const) and not isinstance(operand.value, (bool, str)):
            return Const(-operand.value)  # a negative literal, as -1 always read
        return Arith("-", Const(0), operand)

    def not_(self, c: list) -> Predicate:
        return Not(_pred(c[-1]))

    def and_(self, c: list) -> Predicate:
        return And(tuple(_pred(x) for x in c))

    def or_(self, c: list) -> Predicate:
        return Or(tuple(_pred(x) for x in c))


@functools.cache
def _lark() -> Lark:
    """The LALR parser, built once (both start symbols share the tables)."""
    return Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", lexer="basic",
                start=["formula_start", "predicate_start"], transformer=_Builder(), maybe_placeholders=False)


@functools.cache
def _lark_plain() -> Lark:
    """The same grammar without the inline transformer: used only to diagnose errors."""
    return Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", lexer="basic",
                start=["formula_start", "predicate_start"], maybe_placeholders=False)


# ---------------------------------------------------------------------------------------------- entry points


def parse(text: str, *, check_variables: bool = False) -> Formula:
    """Parse CEL text into a formula; raises :class:`SyntaxErrorCER` on bad input.

    With ``check_variables`` (the command line's reading) a FILTER may read only variables its formula can bind
    (:func:`check_filter_variables`). The library accepts the others: the CEL paper §4 gives them a meaning (the
    condition holds vacuously), which the tests exercise.
    """
    result = _run(text, "formula_start")
    assert isinstance(result, Formula)
    if check_variables:
        check_filter_variables(result, text)
    return result


def check_filter_variables(phi: Formula, text: str = "") -> None:
    """Reject ``ψ FILTER f`` where f reads a variable ψ binds nowhere (no atom of that name, no ``IN`` it): under
    the universal SO-extension of the CEL paper §4 such a condition holds vacuously, so it is almost always a typo.
    CEQL's parser rejects the same (the CORE paper's filters likewise name the pattern's variables)."""
    for node in phi.walk():
        if isinstance(node, Filter):
            unbound = sorted(s for s in node.condition.slots() if s is not None and s not in variables(node.body))
            if unbound:
                name = unbound[0]
                found = re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}\s*[.\[]", text)
                line, column = position(text, found.start()) if found else (1, 1)
                raise SyntaxErrorCER(f"FILTER reads variable {name}, which its formula {node.body} never binds (no "
                                     f"atom {name} and no IN {name} in it): the condition would hold vacuously; "
                                     f"bind {name} or filter a variable of the formula", line=line, column=column,
                                     text=text)


def is_name(text: str) -> bool:
    """Whether ``text`` is a relation or variable name of the CEL family's syntax (the grammar's NAME: a letter
    or ``_``, then letters, digits and ``_``, and not a keyword), so that printing it gives text that parses back."""
    return isinstance(text, str) and re.fullmatch(_name_pattern(), text) is not None


@functools.cache
def _name_pattern() -> str:
    return _lark_plain().get_terminal("NAME").pattern.to_regexp()


def parse_predicate(text: str) -> Predicate:
    """Parse a predicate: ``tmp > 40 AND type = "H"`` (unqualified) or with ``T.x`` / ``T[...]`` atoms."""
    return _pred(_run(text, "predicate_start"))


def _run(text: str, start: str) -> Any:
    if not isinstance(text, str):
        raise TypeError(f"expected CEL text (str), got {type(text).__name__}")
    try:
        result = _lark().parse(text, start=start)
    except UnexpectedInput as e:
        raise _syntax_error(text, start, e) from None
    except VisitError as e:  # a callback refused a node (should not happen: the grammar prevents it)
        raise SyntaxErrorCER(str(e.orig_exc), line=1, column=1, text=text) from None
    except SyntaxErrorCER as e:
        if e.text:
            raise
        raise SyntaxErrorCER(str(e).split(": ", 1)[-1], line=e.line, column=e.column, text=text,
                             expected=e.expected) from None
    except CerError as e:
        raise SyntaxErrorCER(str(e), line=1, column=1, text=text) from None
    except LarkError as e:  # pragma: no cover - defensive: no lark exception escapes
        raise SyntaxErrorCER(str(e), line=1, column=1, text=text) from None
    check_nesting(result, "formula" if start == "formula_start" else "predicate")
    return result


# ---------------------------------------------------------------------------------------------- error messages

_SHOW = {
    "_SEMI": "';'", "_COLON": "':'", "_PLUS": "'+'", "_CPLUS": "':+'", "_LPAR": "'('", "_RPAR": "')'",
    "_LSQB": "'['", "_RSQB": "']'", "_COMMA": "','", "_DOT": "'.'", "_PI_SYM": "'π'", "_WEDGE": "'∧'",
    "_VEE": "'∨'", "_NEG": "'¬'", "$END": "end of input",
    "CMP_OP": "a comparison operator (=, !=, <, <=, >, >=)", "_MINUS": "'-'", "_STAR": "'*'", "_SLASH": "'/'",
}
_KEYWORD_TERMINALS = {("_" + k if k not in ("STRICT", "NXT", "LAST", "MAX", "TRUE", "FALSE") else k): k
                      for k in KEYWORDS}
_SHOW.update(_KEYWORD_TERMINALS)
_FORMULA_START = {"NAME", "_LPAR", "_LSQB", "_START", "_PI", "_PI_SYM", "STRICT", "NXT", "LAST", "MAX"}
_FORMULA_START_TEXT = "a formula (a relation name, '(', '[', START, PI, STRICT, NXT, LAST, MAX)"
_FORMULA_ONLY_OPS = {"_SEMI", "_COLON", "_PLUS", "_CPLUS", "_IN", "_AS", "_FILTER", "_ALL", "_UNLESS"}
_OPS_ORDER = ["_SEMI", "_COLON", "_PLUS", "_CPLUS", "_IN", "_FILTER", "_OR", "_AND", "_ALL", "_UNLESS"]
_ALIASES = {"_AS": "_IN", "_PI_SYM": "_PI", "_WEDGE": "_AND", "_VEE": "_OR", "_NEG": "_NOT"}
_CONSTANTS = {"NUMBER", "STRING", "BOOL"}
_ARITH = {"_PLUS", "_MINUS", "_STAR", "_SLASH"}
_NEEDS_ATTRIBUTE = "an attribute such as T.x (a comparison needs one)"
"""After a term, its arithmetic operators (``+`` is also the formulas' postfix plus, but never where ``*`` is)."""
_ORDER = ["NAME", "_NOT", "TRUE", "FALSE", "_LPAR", "_LSQB", "CMP_OP", "_DOT", "_COMMA", "_RPAR", "_RSQB", "$END"]


_describe_token = functools.partial(describe_token, keywords=_KEYWORD_TERMINALS,
                                    nouns={"NAME": "name", "NUMBER": "number", "STRING": "string",
                                           "BOOL": "constant"}, quoted={"NAME"})


def _describe_expected(acc: set[str], prev: Token | None, start: str) -> list[str]:
    """Readable, short descriptions of the acceptable terminals ``acc`` after token ``prev``."""
    acc = set(acc)
    out: list[str] = []
    prev_type = prev.type if prev is not None else None
    if _FORMULA_START <= acc:
        out.append(_FORMULA_START_TEXT)
        acc -= _FORMULA_START
    for alias, main in _ALIASES.items():
        if alias in acc and main in acc:
            acc.discard(alias)
    if acc == {"_DOT", "_LSQB"}:
        return ["'.' (attributes in a FILTER condition are qualified, as in T.x)", "'[' (as in T[x > 1])"]
    if acc == {"NAME"} and prev_type == "CMP_OP":
        return [_NEEDS_ATTRIBUTE]
    if {"_STAR", "_SLASH"} <= acc:
        out.append("an arithmetic operator (+, -, *, /)")
        acc -= _ARITH
    if prev_type == "_FILTER" or (prev_type in ("_NOT", "_NEG") and "_LSQB" in acc and start == "formula_start"
                                  and "NAME" in acc and "_DOT" not in acc):
        if "NAME" in acc and "_NOT" in acc:
            out.append("a filter condition (such as T.x > 1, 1 < T.x, H.id = T.id, T.type = \"R\", T[x > 1], "
                       "NOT, TRUE or a parenthesized condition)")
            return out
    if acc & _FORMULA_ONLY_OPS:
        ops = [o for o in _OPS_ORDER if o in acc]
        out.append("an operator (" + ", ".join(_SHOW[o] for o in ops) + ")")
        acc -= set(_OPS_ORDER) | {"_AS"}
    if "NAME" in acc:
        if prev_type in ("_IN", "_AS", "_COMMA") or (prev_type == "_LSQB" and "_RSQB" in acc):
            out.append("a variable name")
        elif prev_type == "_DOT":
            out.append("an attribute name")
        else:
            out.append("an attribute (such as x or T.x)" if acc & _CONSTANTS else "a name")
        acc.discard("NAME")
    if acc & _CONSTANTS:
        out.append("a constant")
        acc -= _CONSTANTS
    for t in ["_OR", "_AND"]:  # predicate connectives
        if t in acc:
            out.append(_SHOW[t])
            acc.discard(t)
    for t in _ORDER:
        if t in acc:
            out.append(_SHOW.get(t, t))
            acc.discard(t)
    out.extend(_SHOW.get(t, t) for t in sorted(acc))
    return out


def _hint(e: UnexpectedInput, acc: set[str]) -> str:
    if isinstance(e, UnexpectedToken) and e.token.type == "_DOT" and acc - _ARITH == {"CMP_OP"}:
        return " (attributes inside Var[...] are unqualified: write x, not T.x)"
    if isinstance(e, UnexpectedToken) and e.token.type in ("_DOT", "_LSQB", "CMP_OP") and "_FILTER" in acc:
        # `φ FILTER T.x > 1 AND T.y < 2` reads as `(φ FILTER T.x > 1) AND T…`: the second comparison lands where a
        # formula is expected
        return (" (a FILTER condition that combines comparisons with AND, OR or NOT needs parentheses, as in "
                "φ FILTER (T.x > 1 AND T.y < 2); unparenthesized, AND and OR are CEL's operators on formulas)")
    if isinstance(e, UnexpectedToken) and e.token.type in (*_KEYWORD_TERMINALS, "BOOL") and "NAME" in acc:
        return f" ({e.token.value} is a reserved keyword and cannot be used as a name)"
    return ""


def _syntax_error(text: str, start: str, e: UnexpectedInput) -> SyntaxErrorCER:
    return syntax_error(text, start, e, plain=_lark_plain(), describe_token=_describe_token,
                        describe_expected=_describe_expected, hint=_hint)


# ------------------------------------------------------------------------- for grammars that import cel.lark
# SO-CEL's grammar (formalisms/socel/socel.lark) imports CEL's FILTER conditions; its parser builds them with
# CEL's builder and words its errors with CEL's describers, so conditions and messages are CEL's exactly. These
# are the public names it uses (docs/decisions.md, D54); CEL itself keeps using the private ones.

ConditionBuilder = _Builder
"""The inline transformer of ``cel.lark``; an extending grammar subclasses it (conditions are CEL's)."""
to_predicate = _pred
"""A condition node (or a bare TRUE/FALSE keyword token) as a :class:`Predicate`."""
describe_cel_token = _describe_token
"""How an error message names a token of ``cel.lark`` ("keyword FILTER", "name 'x'", ...)."""
describe_cel_expected = _describe_expected
"""How an error message lists the acceptable terminals of ``cel.lark`` after a token."""
cel_hint = _hint
"""The extra hint of an error message (reserved keyword used as a name, qualified attribute inside ``T[...]``)."""


# ------------------------------------------------------------------------------ shared with extending grammars
# ACEL and SO-CEL grammars import CEL's conditions from ``cel.lark``; Lark prefixes what they import. These are
# the one way for such a grammar to reuse CEL's condition builder and to run its parser with CEL's error shape.

IMPORTED_PREFIX = "cel__cel__"


def strip_imported(x: Any) -> Any:
    """A token of CEL's grammar under its own terminal name (``cel__cel__NUMBER`` → ``NUMBER``)."""
    if isinstance(x, Token) and x.type.startswith(IMPORTED_PREFIX):
        return Token(x.type[len(IMPORTED_PREFIX):], x.value, x.start_pos, x.line, x.column, x.end_line,
                     x.end_column, x.end_pos)
    return x


def strip_imported_names(names: set[str]) -> set[str]:
    """Terminal names with the import prefix removed."""
    return {t[len(IMPORTED_PREFIX):] if t.startswith(IMPORTED_PREFIX) else t for t in names}


def _delegate(name: str) -> Any:
    base = getattr(ConditionBuilder, name)

    def callback(self: Any, c: list) -> Any:
        return base(self, [strip_imported(x) for x in c])

    callback.__name__ = IMPORTED_PREFIX + name
    return callback


def install_condition_callbacks(builder: type) -> type:
    """Give ``builder`` CEL's condition callbacks under the imported (prefixed) rule names."""
    for name in ("uattr", "qattr", "cmp", "on", "not_", "and_", "or_", "arith_add", "arith_sub", "arith_mul",
                 "arith_div", "arith_neg"):
        setattr(builder, IMPORTED_PREFIX + name, _delegate(name))
    return builder


def load_extension(grammar_path: Path, transformer: Any = None) -> Lark:
    """The LALR parser of a grammar beside ``cel/`` that imports ``cel.cel`` (start symbol ``formula_start``)."""
    return Lark(grammar_path.read_text(encoding="utf-8"), parser="lalr", lexer="basic", start="formula_start",
                transformer=transformer, maybe_placeholders=False, import_paths=[str(grammar_path.parent.parent)])


def extension_syntax_error(text: str, e: UnexpectedInput, *, plain: Lark, formula_start: set[str],
                           formula_start_text: str, own: dict[str, str]) -> SyntaxErrorCER:
    """CEL's error message for an extension grammar: ``formula_start`` (the terminals a formula may begin
    with) is named once as ``formula_start_text``, and the grammar's ``own`` terminals by their text."""

    def describe_token(tok: Token) -> str:
        return f"'{tok.value}'" if tok.type in own else _describe_token(strip_imported(tok))

    def describe_expected(acc: set[str], prev: Token | None, start: str) -> list[str]:
        acc = strip_imported_names(acc)
        out: list[str] = []
        if formula_start <= acc:
            out.append(formula_start_text)
            acc -= formula_start
        mine = [words for t, words in own.items() if t in acc]
        acc -= set(own)
        out += _describe_expected(acc, strip_imported(prev), start) if acc else []
        return out + mine

    def hint(e: UnexpectedInput, acc: set[str]) -> str:
        return _hint(e, strip_imported_names(acc))

    if hasattr(e, "token"):
        e.token = strip_imported(e.token)  # type: ignore[attr-defined]
    return syntax_error(text, "formula_start", e, plain=plain, describe_token=describe_token,
                        describe_expected=describe_expected, hint=hint)


def run_extension(text: str, lark: Lark, syntax_error_of: Any) -> Any:
    """Parse ``text`` from ``formula_start`` with ``lark``; every failure becomes a :class:`SyntaxErrorCER`.

    ``syntax_error_of(text, e)`` turns Lark's ``UnexpectedInput`` into the grammar's own message.
    """
    try:
        return lark.parse(text, start="formula_start")
    except UnexpectedInput as e:
        raise syntax_error_of(text, e) from None
    except VisitError as e:
        orig = e.orig_exc
        if isinstance(orig, SyntaxErrorCER):
            raise SyntaxErrorCER(str(orig).split(": ", 1)[-1], line=orig.line, column=orig.column,
                                 text=text) from None
        raise SyntaxErrorCER(str(orig), line=1, column=1, text=text) from None
    except SyntaxErrorCER as e:
        raise SyntaxErrorCER(str(e).split(": ", 1)[-1], line=e.line, column=e.column, text=text,
                             expected=e.expected) from None
    except CerError as e:
        raise SyntaxErrorCER(str(e), line=1, column=1, text=text) from None
    except LarkError as e:  # pragma: no cover - defensive: no lark exception escapes
        raise SyntaxErrorCER(str(e), line=1, column=1, text=text) from None


__all__ = ["IMPORTED_PREFIX", "install_condition_callbacks", "load_extension", "extension_syntax_error", "run_extension", "strip_imported",
           "strip_imported_names", "parse", "parse_predicate", "is_name", "KEYWORDS", "GRAMMAR_PATH", "ConditionBuilder", "to_predicate",
           "describe_cel_token", "describe_cel_expected", "cel_hint"]
