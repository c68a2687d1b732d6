"""What the LALR parsers of CEL and CEQL share: reading constants and readable syntax errors.

Both languages write numbers and double-quoted strings alike (:func:`number`, :func:`unescape`). Each parser
supplies its own wording for errors (its terminals' names, how to summarise the set of acceptable terminals,
extra hints; :func:`describe_token` does the common part); this module does the shared work: locating the error,
asking the parser which terminals it would have accepted at that point, and building the
:class:`~cer_theory.core.errors.SyntaxErrorCER` with line, column, what was found and what was expected.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import stat
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import lark
from lark import Lark, Token, Transformer, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError
from lark.grammar import Rule
from lark.lexer import TerminalDef

from cer_theory.core.errors import CerError, FormulaTooDeep, SyntaxErrorCER
from cer_theory.core.outputs import OutputError, write_output
from cer_theory.core.events import MAX_INT_DIGITS
from cer_theory.core.tree import MAX_NESTING, nesting_depth
from cer_theory.core.user_cache import cache_dir, owned_and_private, safe_to_trust

LOG = logging.getLogger("cer_theory.parsing")

DescribeToken = Callable[[Token], str]
DescribeExpected = Callable[[set[str], "Token | None", str], list[str]]
Hint = Callable[[UnexpectedInput, set[str]], str]


ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}
"""Backslash escapes of a double-quoted string (CEL, CEQL's ``"…"``); any other escaped character stands for
itself (``\\"`` is a quote, ``\\\\`` a backslash)."""


def unescape(body: str) -> str:
    """The value of a double-quoted string's body (the text between the quotes)."""
    return re.sub(r"\\(.)", lambda m: ESCAPES.get(m.group(1), m.group(1)), body, flags=re.S)


def number(token: str, what: str = "number") -> int | float:
    """A NUMBER token's value: a float when written with a point or an exponent, an int otherwise. The one place a
    formula's or query's number becomes a value (every parser's NUMBER, INT and quantifier bound). An integer
    reads exactly; one of more than :data:`MAX_INT_DIGITS` digits (leading zeros aside) is a :class:`Located`
    error at the token (line and column when ``token`` is a lark ``Token``), ``what`` naming the number in the
    message (``quantifier bound``). A float past a float's range reads as an infinity: ``1e999`` is how the
    printers write one (``core.predicates.ast.format_value``)."""
    text = str(token)
    if re.search(r"[.eE]", text):
        return float(text)
    significant = text.lstrip("+-").lstrip("0") or "0"  # (leading zeros count against Python's limit too)
    if len(significant) > MAX_INT_DIGITS:
        raise Located(f"the {what} {_abbreviated(text)} has {len(significant):,} digits, more than the "
                      f"{MAX_INT_DIGITS:,} that can be read", token if isinstance(token, Token) else None)
    return -int(significant) if text.startswith("-") else int(significant)


def _abbreviated(text: str, keep: int = 12) -> str:
    """A long literal shortened for a message: its first and last digits."""
    return text if len(text) <= 2 * keep + 1 else f"{text[:keep]}…{text[-keep:]}"


def describe_token(tok: Token, *, keywords: Collection[str], nouns: Mapping[str, str],
                   quoted: Collection[str] = ()) -> str:
    """What an error message calls ``tok``: ``end of input``, ``keyword FILTER``, ``<noun> value`` for the
    terminal types in ``nouns`` (the value in Python quotes for the types in ``quoted``), else ``'text'``."""
    if tok.type == "$END":
        return "end of input"
    if tok.type in keywords:
        return f"keyword {tok.value}"
    noun = nouns.get(tok.type)
    if noun is not None:
        return f"{noun} {tok.value!r}" if tok.type in quoted else f"{noun} {tok.value}"
    return f"'{tok.value}'"


PARSE_TREE_SLACK = 10
"""How much deeper than its AST a lark parse tree may be (the start rule, clause wrappers, a condition's rules)."""


def check_nesting(root: object, what: str = "formula", *, parse_tree: bool = False) -> None:
    """Reject an AST ``root`` nested deeper than :data:`~cer_theory.core.tree.MAX_NESTING` with a
    :class:`FormulaTooDeep`; every parser calls this before anything recursive touches its result. A parser that
    builds its AST with a (recursive) lark ``Transformer`` checks the ``parse_tree`` first, with a little slack
    for the grammar's own wrapper rules, and the AST afterwards."""
    limit = MAX_NESTING + (PARSE_TREE_SLACK if parse_tree else 0)
    if nesting_depth(root, stop_after=limit) > limit:
        raise FormulaTooDeep(what, MAX_NESTING)


def join(items: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def position(text: str, pos: int) -> tuple[int, int]:
    """The 1-based (line, column) of character offset ``pos``."""
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def acceptable(plain: Lark, text: str, pos: int, start: str) -> tuple[set[str], Token | None]:
    """The terminals acceptable at offset ``pos`` (all tokens before it parsed) and the previous token.

    ``plain`` is the grammar's parser *without* an inline transformer (callbacks must not run on a prefix).
    """
    ip = plain.parse_interactive("", start=start)
    prev: Token | None = None
    try:
        for tok in plain.lex(text[:pos]):
            ip.feed_token(tok)
            prev = tok
        return set(ip.accepts()), prev
    except LarkError:  # pragma: no cover - the prefix parsed before, so this should not happen
        return set(), prev


def contextual_syntax_error(text: str, e: UnexpectedInput, *, describe: Callable[[str], str],
                             quotes: str) -> SyntaxErrorCER:
    """The syntax error of a parser with Lark's contextual lexer (SREMO, SQL row patterns): line, column, what was
    found and what the grammar accepts there (``describe`` names a terminal; ``quotes`` open the grammar's strings,
    so an unmatched one reads as an unterminated string)."""
    if isinstance(e, UnexpectedToken):
        expected = sorted({describe(t) for t in e.accepts or e.expected})
        if e.token.type == "$END":
            line, column = position(text, len(text))
            found = "empty input" if not text.strip() else "unexpected end of input"
        else:
            line, column = e.token.line or 1, e.token.column or 1
            found = f"unexpected {e.token.value!r}"
    elif isinstance(e, UnexpectedCharacters):
        line, column = e.line, e.column
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else ""
        found = "unterminated string" if ch and ch in quotes else f"unexpected character {ch!r}"
        expected = sorted({describe(t) for t in e.allowed or ()})
    else:  # pragma: no cover - UnexpectedEOF is Earley-only
        line, column = position(text, len(text))
        found, expected = "unexpected end of input", []
    message = f"{found}; expected {join(expected)}" if expected else found
    return SyntaxErrorCER(message, line=line, column=column, text=text, expected=tuple(expected))


def syntax_error(text: str, start: str, e: UnexpectedInput, *, plain: Lark, describe_token: DescribeToken,
                 describe_expected: DescribeExpected, hint: Hint | None = None,
                 quotes: str | Mapping[str, str] = "\"'",
                 unterminated: str = "unterminated string") -> SyntaxErrorCER:
    """The :class:`SyntaxErrorCER` for a lark error ``e`` raised while parsing ``text`` from ``start``.

    ``quotes`` are the characters that open a quoted token: a lexer error on one of them is reported as
    ``unterminated`` (a dict from quote character to message overrides the wording per character).
    """
    if isinstance(e, UnexpectedToken) and e.token.type == "$END":
        tok = e.token
        pos = len(text)
        line, column = (tok.end_line, tok.end_column) if tok.end_line is not None else (1, 1)
        found = "end of input"
        if not text.strip() or not list(plain.lex(text)):
            found = "empty input"
    elif isinstance(e, UnexpectedToken):
        tok = e.token
        pos, line, column = tok.start_pos, tok.line, tok.column
        found = "unexpected " + describe_token(tok)
    elif isinstance(e, UnexpectedCharacters):
        pos, line, column = e.pos_in_stream, e.line, e.column
        ch = text[pos] if pos < len(text) else ""
        if ch and ch in quotes:
            found = quotes[ch] if isinstance(quotes, Mapping) else unterminated
        else:
            found = f"unexpected character {ch!r}"
    else:  # pragma: no cover - UnexpectedEOF is Earley-only
        pos = len(text)
        line, column = position(text, pos)
        found = "unexpected end of input"
    if found == "end of input":
        found = "unexpected end of input"
    acc, prev = acceptable(plain, text, pos, start)
    expected = describe_expected(acc, prev, start)
    message = f"{found}; expected {join(expected)}" if expected else found
    if hint is not None:
        message += hint(e, acc)
    return SyntaxErrorCER(message, line=line, column=column, text=text, expected=tuple(expected))


# ---------------------------------------------------------------------------------------------- LALR table cache

_TAG_DICT, _TAG_TUPLE = "\0dict", "\0tuple"
"""How the table file writes what JSON has no form for: a dict with non-string keys (Lark's states are numbered)
and a tuple (Lark's actions); no string in a grammar's tables starts with a NUL character."""


def cache_folder() -> Path | None:
    """The user's own cache folder for parser tables (:func:`cer_theory.core.user_cache.cache_dir`, created
    private), or None when the cache is off, the folder cannot be made, or it is not private: a link, owned by
    another user, or writable by the group or by others (a shared home, a umask of 000). Such a folder is never
    read, since anyone who can write there chooses the tables a later parse uses (D200)."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if safe_to_trust(folder) else None


def _encode(x: Any) -> Any:
    if isinstance(x, dict):
        if all(isinstance(k, str) and not k.startswith("\0") for k in x):
            return {k: _encode(v) for k, v in x.items()}
        return {_TAG_DICT: [[_encode(k), _encode(v)] for k, v in x.items()]}
    if isinstance(x, tuple):
        return {_TAG_TUPLE: [_encode(v) for v in x]}
    if isinstance(x, list):
        return [_encode(v) for v in x]
    if x is None or isinstance(x, (str, int, float, bool)):
        return x
    raise TypeError(f"parser tables hold a {type(x).__name__}, which the table file cannot write")


def _decode(d: dict[str, Any]) -> Any:
    if len(d) == 1:
        if _TAG_DICT in d:
            return {k: v for k, v in d[_TAG_DICT]}
        if _TAG_TUPLE in d:
            return tuple(d[_TAG_TUPLE])
    return d


def cached_lalr(grammar: str, name: str, *, imported: str = "", transformer: Transformer | None = None,
                **options: Any) -> Lark:
    """The LALR parser of ``grammar``, its tables loaded from the user's cache when a previous process built
    them, else built and saved there (D121, D200).

    The file (``<name>-lalr-<key>.json`` in :func:`cache_folder`) is JSON: reading it can build only parse
    tables, never run code, unlike Lark's own cache, which unpickles. ``key`` hashes the grammar, the options and
    the versions of Lark and Python, and is stored in the file too, so a changed grammar never meets stale
    tables. A file that is not this user's, is writable by others, or does not load (truncated, garbled, another
    key) is ignored and the tables are rebuilt; the new file is written aside and renamed into place, so a
    concurrent reader sees the old file or the new one, never half of one.

    ``imported`` is the text of the grammars ``grammar`` imports (:func:`imported_grammars`), hashed into the key
    so that a changed condition grammar rebuilds every logic's tables. ``transformer`` runs inline (it is not part
    of the tables: the same file serves the parser with it and without it).
    """
    options = {k: [str(p) for p in v] if k == "import_paths" else v for k, v in options.items()}
    key = hashlib.sha256(f"{grammar}\0{imported}\0{sorted(options.items())!r}\0{lark.__version__}\0"
                         f"{sys.version_info[:2]}".encode()).hexdigest()[:20]
    folder = cache_folder()
    path = folder / f"{name}-lalr-{key}.json" if folder is not None else None
    if path is not None:
        loaded = _load_tables(path, key, transformer)
        if loaded is not None:
            return loaded
    if transformer is None:
        parser = Lark(grammar, parser="lalr", **options)
        if path is not None:
            _save_tables(parser, path, key)
        return parser
    plain = Lark(grammar, parser="lalr", **options)
    data, memo = plain.memo_serialize([TerminalDef, Rule])
    if path is not None:
        _save_tables(plain, path, key)
    return _from_tables(data, memo, transformer)


def _from_tables(data: Any, memo: Any, transformer: Transformer | None) -> Lark:
    """A parser from serialized tables, with ``transformer`` inline. Lark's public ``Lark.load`` takes no options;
    its ``_load`` takes those a loaded parser may change (the transformer among them)."""
    parser = Lark.__new__(Lark)
    return parser._load({"data": data, "memo": memo}, **({"transformer": transformer} if transformer else {}))


def _load_tables(path: Path, key: str, transformer: Transformer | None = None) -> Lark | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode) or not owned_and_private(os.fstat(f.fileno())):
                LOG.debug("ignoring parser tables %s: not a private file of this user", path)
                return None
            stored = json.loads(f.read().decode("utf-8"), object_hook=_decode)
        if not isinstance(stored, dict) or stored.get("key") != key:
            return None
        parser = _from_tables(stored["data"], stored["memo"], transformer)
        LOG.debug("loaded parser tables from %s", path)
        return parser
    except Exception as e:  # noqa: BLE001 - any damage (truncated, garbled, hand-edited) only costs a rebuild
        LOG.debug("rebuilding parser tables: %s does not load (%s)", path, e)
        return None


def _save_tables(parser: Lark, path: Path, key: str) -> None:
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    text = json.dumps(_encode({"key": key, "data": data, "memo": memo}), separators=(",", ":"))
    try:
        write_output(path, text, private=True)  # (mode 0600, aside then renamed into place)
        LOG.debug("saved parser tables to %s", path)
    except (OSError, OutputError) as e:  # a full or read-only disk only costs the rebuild next time
        LOG.debug("cannot save parser tables to %s (%s)", path, e)


# ---------------------------------------------------------------------------------------------- the parser scaffold

_IMPORT = re.compile(r"^%import\s+([A-Za-z_][\w.]*)", re.M)
"""An import statement's dotted path: a grammar (``%import conditions (...)``, ``%import cel.cel (...)``) or a
grammar and one name in it (``%import conditions.NUMBER``)."""


def imported_grammars(grammar: str, import_paths: Sequence[Path]) -> str:
    """The text of every grammar ``grammar`` imports, directly or through another import, in a fixed order: the
    part of a parser's cache key that its own text does not show (``%import conditions (...)`` reads
    ``conditions.lark`` from one of ``import_paths``; ``%import cel.cel (...)`` reads ``cel/cel.lark``)."""
    seen: dict[Path, str] = {}

    def visit(text: str) -> None:
        for m in _IMPORT.finditer(text):
            dotted = m.group(1)
            for candidate in dict.fromkeys((dotted, dotted.rsplit(".", 1)[0])):
                found = next((base / (candidate.replace(".", "/") + ".lark") for base in import_paths
                              if (base / (candidate.replace(".", "/") + ".lark")).is_file()), None)
                if found is not None:
                    if found not in seen:
                        seen[found] = found.read_text(encoding="utf-8")
                        visit(seen[found])
                    break

    visit(grammar)
    return "\0".join(f"{path.name}\0{text}" for path, text in sorted(seen.items()))


class Located(CerError):
    """A mistake a parser's transformer finds in a well-formed text (an unknown aggregate, a variable FILTER
    cannot see), reported at ``token`` (or, without one, at the first token of the rule that raised it)."""

    def __init__(self, message: str, token: Token | None = None) -> None:
        super().__init__(message)
        self.message, self.token = message, token


SyntaxErrorOf = Callable[[str, str, UnexpectedInput], SyntaxErrorCER]
"""A parser's wording of Lark's error: ``(text, start symbol, error) → SyntaxErrorCER``."""


class LalrParser:
    """One formalism's parser: a Lark LALR parser of ``grammar`` built once, on first use, its tables from the
    user's cache (:func:`cached_lalr`), with the house's nesting guard and error reporting. A formalism's
    ``parser.py`` keeps only its transformer and its error wording (``syntax_error``).

    With ``inline=True`` the transformer ``builder()`` runs inside the parser (no parse tree is built) and the
    result's nesting is checked afterwards; otherwise the parse tree's nesting is checked before the (recursive)
    transformer runs on it, and ``parse`` may be given a fresh transformer per parse (one that keeps per-parse
    state). Every failure is a :class:`~cer_theory.core.errors.SyntaxErrorCER` naming line and column: Lark's
    errors in the parser's own words, a :class:`Located` error at its token, any other
    :class:`~cer_theory.core.errors.CerError` a transformer raises at line 1, column 1 (or, with
    ``errors_at_node``, at the first token of the rule whose callback raised it). ``nested_part`` picks the part
    of a result whose nesting is limited (a query's pattern), the whole result by default.
    """

    def __init__(self, grammar: Path, *, name: str, syntax_error: SyntaxErrorOf,
                 builder: Callable[[], Transformer] | None = None, inline: bool = False,
                 start: Sequence[str] = ("start",), lexer: str = "basic", import_paths: Sequence[Path] = (),
                 what: str | Mapping[str, str] = "formula", errors_at_node: bool = False,
                 nested_part: Callable[[Any], object] | None = None) -> None:
        self.grammar, self.name, self.syntax_error = grammar, name, syntax_error
        self.builder, self.inline, self.start, self.lexer = builder, inline, tuple(start), lexer
        self.import_paths, self.what, self.errors_at_node = tuple(import_paths), what, errors_at_node
        self.nested_part = nested_part

    def what_of(self, start: str) -> str:
        """What an error calls the text parsed from ``start`` ("formula", "query", ...)."""
        return self.what if isinstance(self.what, str) else self.what[start]

    @functools.cached_property
    def _text(self) -> tuple[str, str]:
        text = self.grammar.read_text(encoding="utf-8")
        return text, imported_grammars(text, self.import_paths)

    def _build(self, transformer: Transformer | None) -> Lark:
        text, imported = self._text
        options: dict[str, Any] = dict(lexer=self.lexer, start=list(self.start), maybe_placeholders=False)
        if self.import_paths:
            options["import_paths"] = list(self.import_paths)
        return cached_lalr(text, self.name, imported=imported, transformer=transformer, **options)

    @functools.cached_property
    def lark(self) -> Lark:
        """The parser that builds the result (with the inline transformer when ``inline``)."""
        if self.inline:
            assert self.builder is not None, "an inline parser needs its builder"
            return self._build(self.builder())
        return self.plain

    @functools.cached_property
    def plain(self) -> Lark:
        """The parser without an inline transformer: the one that diagnoses errors and builds parse trees."""
        return self._build(None)

    def parse(self, text: str, start: str | None = None, *, builder: Transformer | None = None) -> Any:
        """The result of parsing ``text`` from ``start`` (the first start symbol by default)."""
        start = start or self.start[0]
        try:
            if self.inline:
                result = self.lark.parse(text, start=start)
            else:
                result = self.plain.parse(text, start=start)
                check_nesting(result, self.what_of(start), parse_tree=True)  # before the recursive transformer
                transformer = builder or (self.builder() if self.builder is not None else None)
                if transformer is not None:
                    result = transformer.transform(result)
        except FormulaTooDeep:
            raise
        except UnexpectedInput as e:
            raise self.syntax_error(text, start, e) from None
        except VisitError as e:
            raise located(text, e.orig_exc, e.obj, at_node=self.errors_at_node) from None
        except (CerError, LarkError) as e:
            raise located(text, e) from None
        except RecursionError:
            raise SyntaxErrorCER(f"the {self.what_of(start)} is nested too deeply", line=1, column=1,
                                 text=text) from None
        check_nesting(self.nested_part(result) if self.nested_part else result, self.what_of(start))
        return result


def located(text: str, error: BaseException, where: object = None, *, at_node: bool = False) -> SyntaxErrorCER:
    """``error`` (raised by a transformer while building a node ``where``) as a :class:`SyntaxErrorCER` on
    ``text``: a syntax error keeps its place, a :class:`Located` error is placed at its token or the node's first
    token, any other error of the toolkit at line 1, column 1."""
    if isinstance(error, SyntaxErrorCER):
        if error.text:
            return error
        return SyntaxErrorCER(str(error).split(": ", 1)[-1].split("\n", 1)[0], line=error.line, column=error.column,
                              text=text, expected=error.expected)
    if isinstance(error, Located):
        line, column = _place(error.token or first_token(where))
        return SyntaxErrorCER(error.message, line=line, column=column, text=text)
    if isinstance(error, CerError):
        line, column = _place(first_token(where) if at_node else None)
        return SyntaxErrorCER(str(error), line=line, column=column, text=text)
    if isinstance(error, LarkError):  # pragma: no cover - defensive: no other lark exception escapes
        return SyntaxErrorCER(str(error), line=1, column=1, text=text)
    raise error


def _place(token: Token | None) -> tuple[int, int]:
    """A token's (line, column); (1, 1) without one."""
    if token is None or token.line is None or token.column is None:
        return 1, 1
    return token.line, token.column


def first_token(x: object) -> Token | None:
    """The first token in a node's children (nested lists, tuples and trees included), if any."""
    if isinstance(x, Token):
        return x
    if isinstance(x, Tree):
        return first_token(x.children)
    if isinstance(x, (list, tuple)):
        for y in x:
            t = first_token(y)
            if t is not None:
                return t
    return None
