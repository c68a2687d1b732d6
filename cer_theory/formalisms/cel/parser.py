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
``(φ FILTER T.x > 1) AND H``. Conditions are the toolkit's one condition grammar (:mod:`cer_theory.core.conditions`),
instantiated with CEL's attributes and atoms.

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

from lark import Lark, Token
from lark.exceptions import UnexpectedInput, UnexpectedToken

from cer_theory.core.conditions import ConditionBuilder as SharedConditionBuilder
from cer_theory.core.conditions import IMPORT_PATH, base_name, to_predicate, unprefixed
from cer_theory.core.errors import SyntaxErrorCER
from cer_theory.core.predicates.ast import Attr, On, Predicate
from cer_theory.core.parsing import LalrParser, describe_token, position, syntax_error
from cer_theory.formalisms.cel.ast import (All, Atom, Conj, Contig, CPlus, Disj, Filter, Formula, In, Plus, Proj, Select, Seq, Start,
                      Strategy, Unless, variables)

GRAMMAR_PATH = Path(__file__).with_name("cel.lark")

KEYWORDS = ("IN", "AS", "FILTER", "OR", "AND", "ALL", "UNLESS", "START", "PI", "STRICT", "NXT", "LAST", "MAX",
            "NOT", "TRUE", "FALSE")
"""Reserved words (UPPERCASE, case-sensitive); ``true``/``false`` are reserved too (boolean constants)."""


# ---------------------------------------------------------------------------------------------- AST building


class _Builder(SharedConditionBuilder):
    """Tree → AST. Runs inline in the LALR parser (no parse tree is built); conditions are built by the shared
    :class:`~cer_theory.core.conditions.ConditionBuilder`, so they mean what they mean in every logic."""

    needs_attribute = "an attribute such as T.x (a comparison needs one)"

    # formulas
    def atom(self, c: list) -> Formula:
        return Atom(str(c[0]))

    def in_(self, c: list) -> Formula:
        return In(c[0], str(c[1]))

    def filter(self, c: list) -> Formula:
        return Filter(c[0], to_predicate(c[1]))

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

    def on(self, c: list) -> Predicate:
        return On(str(c[0]), to_predicate(c[1]))

    def describe(self, tok: Token) -> str:
        return _describe_token(tok)


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
    return PARSER.plain.get_terminal("NAME").pattern.to_regexp()


def parse_predicate(text: str) -> Predicate:
    """Parse a predicate: ``tmp > 40 AND type = "H"`` (unqualified) or with ``T.x`` / ``T[...]`` atoms."""
    return to_predicate(_run(text, "predicate_start"))


def _run(text: str, start: str) -> Any:
    if not isinstance(text, str):
        raise TypeError(f"expected CEL text (str), got {type(text).__name__}")
    return PARSER.parse(text, start)


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
_NEEDS_ATTRIBUTE = _Builder.needs_attribute
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
    return syntax_error(text, start, e, plain=PARSER.plain, describe_token=_describe_token,
                        describe_expected=_describe_expected, hint=_hint)


PARSER = LalrParser(GRAMMAR_PATH, name="cel", builder=_Builder, inline=True,
                    start=("formula_start", "predicate_start"), import_paths=(IMPORT_PATH,),
                    what={"formula_start": "formula", "predicate_start": "predicate"}, syntax_error=_syntax_error)
"""CEL's parser (both start symbols share the tables)."""


# ------------------------------------------------------------------------- for grammars that import cel.lark
# SO-CEL's and ACEL's grammars (formalisms/socel/socel.lark, formalisms/acel/acel.lark) import CEL's FILTER
# conditions; their parsers build them with CEL's builder and word their errors with CEL's describers, so
# conditions and messages are CEL's exactly (docs/decisions.md, D54). Lark prefixes what a grammar imports
# (``cel__cel__on``); the builder finds its callbacks under any prefix (core.conditions.ConditionBuilder).

ConditionBuilder = _Builder
"""The inline transformer of ``cel.lark``; an extending grammar subclasses it (conditions are CEL's)."""
EXTENSION_IMPORT_PATHS = (GRAMMAR_PATH.parent.parent, IMPORT_PATH)
"""Where a grammar beside ``cel/`` finds ``cel.cel`` and the condition grammar it imports."""


def extension_parser(grammar_path: Path, name: str, builder: type, syntax_error_of: Any) -> LalrParser:
    """The parser of a grammar beside ``cel/`` that imports ``cel.cel`` (start symbol ``formula_start``);
    ``syntax_error_of(text, e)`` words Lark's errors (see :func:`extension_syntax_error`)."""
    return LalrParser(grammar_path, name=name, builder=builder, inline=True, start=("formula_start",),
                      import_paths=EXTENSION_IMPORT_PATHS,
                      syntax_error=lambda text, start, e: syntax_error_of(text, e))


def _unprefixed_names(names: set[str]) -> set[str]:
    return {base_name(t) for t in names}


def extension_syntax_error(text: str, e: UnexpectedInput, *, plain: Lark, formula_start: set[str],
                           formula_start_text: str, own: dict[str, str]) -> SyntaxErrorCER:
    """CEL's error message for an extension grammar: ``formula_start`` (the terminals a formula may begin
    with) is named once as ``formula_start_text``, and the grammar's ``own`` terminals by their text."""

    def describe_token(tok: Token) -> str:
        return f"'{tok.value}'" if tok.type in own else _describe_token(unprefixed(tok))

    def describe_expected(acc: set[str], prev: Token | None, start: str) -> list[str]:
        acc = _unprefixed_names(acc)
        out: list[str] = []
        if formula_start <= acc:
            out.append(formula_start_text)
            acc -= formula_start
        mine = [words for t, words in own.items() if t in acc]
        acc -= set(own)
        out += _describe_expected(acc, unprefixed(prev), start) if acc else []
        return out + mine

    def hint(e: UnexpectedInput, acc: set[str]) -> str:
        return _hint(e, _unprefixed_names(acc))

    if hasattr(e, "token"):
        e.token = unprefixed(e.token)  # type: ignore[attr-defined]
    return syntax_error(text, "formula_start", e, plain=plain, describe_token=describe_token,
                        describe_expected=describe_expected, hint=hint)


__all__ = ["extension_parser", "extension_syntax_error", "EXTENSION_IMPORT_PATHS", "parse", "parse_predicate",
           "is_name", "KEYWORDS", "GRAMMAR_PATH", "PARSER", "ConditionBuilder"]
