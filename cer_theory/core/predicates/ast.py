"""The predicate AST shared by every model.

A predicate is a boolean combination of atoms over *slots*. A slot is ``None`` for "the current event" (the
unary CEA predicates of the CEL paper Def. 5.1, the ``~`` of the SRT paper) or a variable name (a CEL variable in an
n-ary filter such as ``H.id = T.id``, the CEL paper §4; a register of the SRT paper). A predicate with only the
``None`` slot is **unary**: a decidable set of tuples, an element of the universe 𝒰 of the CEL paper §4.

Atom semantics (docs/decisions.md D3; the CEL paper §4 is silent): a comparison holds only when both operands are
defined and of the same kind (number, string, boolean). A missing attribute or a kind mismatch makes the atom
*false*, so its negation is true. This is the type-guard reading of D3.
"""

from __future__ import annotations

import functools
import math
import operator
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar, Union

from cer_theory.core.errors import PredicateError
from cer_theory.core.events import TYPE_KEY, Event, Value

Slot = Union[str, None]
Env = Mapping[Slot, Event]

OPS: dict[str, Callable[[object, object], bool]] = {
    "=": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
NEGATED_OP = {"=": "!=", "!=": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
MIRRORED_OP = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def kind(value: Value) -> str:
    """The comparison kind of a value: ``"bool"``, ``"num"`` or ``"str"``."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "num"
    if isinstance(value, str):
        return "str"
    raise PredicateError(f"not an attribute value: {value!r}")


def compare(left: Value | None, op: str, right: Value | None) -> bool:
    """``left op right`` with the type guard: false when either side is missing or the kinds differ."""
    if left is None or right is None or kind(left) != kind(right):
        return False
    return OPS[op](left, right)


# ---------------------------------------------------------------------------------------------- terms


@dataclass(frozen=True, slots=True)
class Attr:
    """The attribute ``name`` of the event in ``slot`` (``type`` gives the event type)."""

    name: str
    slot: Slot = None

    def value(self, env: Env) -> Value | None:
        return env[self.slot].get(self.name)

    def __str__(self) -> str:
        return self.name if self.slot is None else f"{self.slot}.{self.name}"


@dataclass(frozen=True, slots=True)
class Const:
    """A constant value."""

    value: Value

    def __post_init__(self) -> None:
        kind(self.value)

    def __eq__(self, other: object) -> bool:  # 1 and True are different constants
        return isinstance(other, Const) and type(self.value) is type(other.value) and self.value == other.value

    def __hash__(self) -> int:
        return hash((type(self.value).__name__, self.value))

    def __str__(self) -> str:
        return format_value(self.value)


Term = Union[Attr, Const]


def format_value(value: Value, quote: str = '"') -> str:
    """A constant as text that CEL and CEQL both read back: ``true``/``false``, numbers as Python writes them
    (infinities as ``1e999``/``-1e999``, which parse to ±inf), strings in ``quote``: ``"…"`` with backslash
    escapes (CEL and this predicate language), or ``'…'`` with ``''`` for a quote (CEQL, CORE's syntax)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        if quote == "'":
            return "'" + value.replace("'", "''") + "'"
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, float) and math.isinf(value):
        return "1e999" if value > 0 else "-1e999"
    return repr(value)


# ---------------------------------------------------------------------------------------------- predicates


class Predicate:
    """Base class: immutable, hashable, evaluable on an environment of events, printable.

    ``p(event)`` evaluates a unary predicate; ``p.holds(env)`` evaluates on an environment slot → event.
    ``&``, ``|`` and ``~`` build conjunctions, disjunctions and negations (flattened, with TRUE/FALSE absorbed).
    """

    __slots__ = ()
    precedence: ClassVar[int] = 3  # for printing: 0 OR, 1 AND, 2 NOT, 3 atoms

    def holds(self, env: Env) -> bool:
        raise NotImplementedError

    def __call__(self, event: Event) -> bool:
        return self.holds({None: event})

    def children(self) -> tuple[Predicate, ...]:
        return ()

    def slots(self) -> frozenset[Slot]:
        """The slots this predicate reads; a predicate is unary iff this is a subset of ``{None}``."""
        out: set[Slot] = set()
        for node in self.walk():
            out |= node._own_slots()
        return frozenset(out)

    def _own_slots(self) -> frozenset[Slot]:
        return frozenset()

    def is_unary(self) -> bool:
        return self.slots() <= {None}

    def walk(self) -> Iterator[Predicate]:
        """This node and all nodes below it, pre-order (``On`` bodies excluded: they read another slot)."""
        yield self
        for c in self.children():
            yield from c.walk()

    def atoms(self) -> frozenset[Predicate]:
        return frozenset(n for n in self.walk() if not n.children() and n not in (TRUE, FALSE))

    def __and__(self, other: Predicate) -> Predicate:
        return conj(self, other)

    def __or__(self, other: Predicate) -> Predicate:
        return disj(self, other)

    def __invert__(self) -> Predicate:
        return neg(self)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Predicate({self.text()!r})"

    def text(self) -> str:
        """Parseable text: ``tmp > 40 AND type = "H"``."""
        raise NotImplementedError

    def label(self) -> str:
        """A compact label for drawings: ``H ∧ tmp>40``."""
        raise NotImplementedError


def _paren(p: Predicate, parent: int, render: Callable[[Predicate], str]) -> str:
    s = render(p)
    return f"({s})" if p.precedence < parent else s


@dataclass(frozen=True, slots=True, repr=False)
class BoolConst(Predicate):
    """TRUE (all tuples, ``tuples(ℛ)``) or FALSE (the empty predicate ∅)."""

    value: bool

    def holds(self, env: Env) -> bool:
        return self.value

    def text(self) -> str:
        return "TRUE" if self.value else "FALSE"

    def label(self) -> str:
        return "⊤" if self.value else "⊥"


TRUE = BoolConst(True)
FALSE = BoolConst(False)


@dataclass(frozen=True, slots=True, repr=False)
class IsType(Predicate):
    """``tuples(R)``: the event in ``slot`` has type ``name`` (the CEL paper §4, the universe 𝒰)."""

    name: str
    slot: Slot = None

    def holds(self, env: Env) -> bool:
        return env[self.slot].type == self.name

    def _own_slots(self) -> frozenset[Slot]:
        return frozenset([self.slot])

    def text(self) -> str:
        return f"{Attr(TYPE_KEY, self.slot)} = {format_value(self.name)}"

    def label(self) -> str:
        return self.name if self.slot is None else f"{self.slot}∈{self.name}"


@dataclass(frozen=True, slots=True, repr=False)
class Cmp(Predicate):
    """``left op right`` with ``op`` in ``= != < <= > >=``, each side an attribute or a constant."""

    left: Term
    op: str
    right: Term

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise PredicateError(f"unknown comparison {self.op!r}; expected one of {' '.join(OPS)}")
        for side in (self.left, self.right):
            if not isinstance(side, (Attr, Const, Arith)):
                raise PredicateError(f"a comparison side is an attribute, a constant or arithmetic, "
                                     f"got {side!r}")
        if not _term_attrs(self.left) and not _term_attrs(self.right):
            raise PredicateError(f"comparison {self.text()} has no attribute")

    def holds(self, env: Env) -> bool:
        if isinstance(self.left, Arith) or isinstance(self.right, Arith):
            return compare_numeric(term_value(self.left, env), self.op, term_value(self.right, env))
        lv = self.left.value(env) if isinstance(self.left, Attr) else self.left.value
        rv = self.right.value(env) if isinstance(self.right, Attr) else self.right.value
        return compare(lv, self.op, rv)

    def _own_slots(self) -> frozenset[Slot]:
        return frozenset(a.slot for t in (self.left, self.right) for a in _term_attrs(t))

    def text(self) -> str:
        return f"{self.left} {self.op} {self.right}"

    def label(self) -> str:
        op = {"<=": "≤", ">=": "≥", "!=": "≠"}.get(self.op, self.op)
        return f"{self.left}{op}{self.right}"


@dataclass(frozen=True, slots=True, repr=False)
class Opaque(Predicate):
    """A named Python test on one event, for semantics that need one; Z3 sees it as a free atom per slot."""

    name: str
    fn: Callable[[Event], bool] = field(compare=False, hash=False)
    slot: Slot = None

    def holds(self, env: Env) -> bool:
        return bool(self.fn(env[self.slot]))

    def _own_slots(self) -> frozenset[Slot]:
        return frozenset([self.slot])

    def text(self) -> str:
        return f"@{self.name}" if self.slot is None else f"{self.slot}[@{self.name}]"

    def label(self) -> str:
        return self.text()


@dataclass(frozen=True, slots=True, repr=False)
class On(Predicate):
    """``var[p]``: the unary predicate ``p`` applied to the event in slot ``var`` (CEL ``P^SO(A)`` atoms)."""

    var: str
    body: Predicate

    def __post_init__(self) -> None:
        if not self.body.is_unary():
            raise PredicateError(f"{self.var}[...] takes a unary predicate, got {self.body.text()}")

    def holds(self, env: Env) -> bool:
        return self.body.holds({None: env[self.var]})

    def _own_slots(self) -> frozenset[Slot]:
        return frozenset([self.var])

    def text(self) -> str:
        return f"{self.var}[{self.body.text()}]"

    def label(self) -> str:
        return f"{self.var}[{self.body.label()}]"


@dataclass(frozen=True, slots=True, repr=False)
class Not(Predicate):
    arg: Predicate
    precedence: ClassVar[int] = 2

    def holds(self, env: Env) -> bool:
        return not self.arg.holds(env)

    def children(self) -> tuple[Predicate, ...]:
        return (self.arg,)

    def text(self) -> str:
        return "NOT " + _paren(self.arg, 3, lambda q: q.text())

    def label(self) -> str:
        return "¬" + _paren(self.arg, 3, lambda q: q.label())


@dataclass(frozen=True, slots=True, repr=False)
class And(Predicate):
    args: tuple[Predicate, ...]
    precedence: ClassVar[int] = 1

    def __post_init__(self) -> None:
        if len(self.args) < 2:
            raise PredicateError("And needs at least two arguments; use conj()")

    def holds(self, env: Env) -> bool:
        return all(a.holds(env) for a in self.args)

    def children(self) -> tuple[Predicate, ...]:
        return self.args

    def text(self) -> str:
        return " AND ".join(_paren(a, 2, lambda q: q.text()) for a in self.args)

    def label(self) -> str:
        return " ∧ ".join(_paren(a, 2, lambda q: q.label()) for a in self.args)


@dataclass(frozen=True, slots=True, repr=False)
class Or(Predicate):
    args: tuple[Predicate, ...]
    precedence: ClassVar[int] = 0

    def __post_init__(self) -> None:
        if len(self.args) < 2:
            raise PredicateError("Or needs at least two arguments; use disj()")

    def holds(self, env: Env) -> bool:
        return any(a.holds(env) for a in self.args)

    def children(self) -> tuple[Predicate, ...]:
        return self.args

    def text(self) -> str:
        return " OR ".join(_paren(a, 1, lambda q: q.text()) for a in self.args)

    def label(self) -> str:
        return " ∨ ".join(_paren(a, 1, lambda q: q.label()) for a in self.args)


# ---------------------------------------------------------------------------------------------- builders


def conj(*preds: Predicate) -> Predicate:
    """Conjunction, flattened; TRUE is dropped, FALSE absorbs, duplicates are removed (order kept)."""
    out: list[Predicate] = []
    for p in preds:
        for q in (p.args if isinstance(p, And) else (p,)):
            if q == FALSE:
                return FALSE
            if q != TRUE and q not in out:
                out.append(q)
    return TRUE if not out else out[0] if len(out) == 1 else And(tuple(out))


def disj(*preds: Predicate) -> Predicate:
    """Disjunction, flattened; FALSE is dropped, TRUE absorbs, duplicates are removed (order kept)."""
    out: list[Predicate] = []
    for p in preds:
        for q in (p.args if isinstance(p, Or) else (p,)):
            if q == TRUE:
                return TRUE
            if q != FALSE and q not in out:
                out.append(q)
    return FALSE if not out else out[0] if len(out) == 1 else Or(tuple(out))


def neg(p: Predicate) -> Predicate:
    """Negation; double negations and constants are folded."""
    if isinstance(p, BoolConst):
        return FALSE if p.value else TRUE
    if isinstance(p, Not):
        return p.arg
    return Not(p)


def attr(name: str, slot: Slot = None) -> Attr:
    return Attr(name, slot)


def cmp(left: Term | Arith | str, op: str, right: Term | Arith | Value, slot: Slot = None) -> Cmp:
    """Shorthand: ``cmp("tmp", ">", 40)`` is ``tmp > 40``; strings on the left name attributes."""
    lt = Attr(left, slot) if isinstance(left, str) else left
    rt = right if isinstance(right, (Attr, Const, Arith)) else Const(right)
    return Cmp(lt, op, rt)


def is_type(name: str, slot: Slot = None) -> IsType:
    return IsType(name, slot)


def unary_body(p: Predicate, slot: str) -> Predicate:
    """Re-read a predicate over the single slot ``slot`` as a unary predicate (slot → ``None``).

    Used to turn a CEL filter atom ``A.x > 3`` into the CEA predicate ``x > 3`` guarding A-marking transitions.
    """
    if p.slots() - {slot}:
        raise PredicateError(f"{p.text()} reads slots {sorted(map(str, p.slots() - {slot}))} besides {slot}")
    return _reslot(p, {slot: None})


def _reslot(p: Predicate, mapping: Mapping[Slot, Slot]) -> Predicate:
    def t(term: Term) -> Term:
        if isinstance(term, Arith):
            return Arith(term.op, t(term.left), t(term.right))  # type: ignore[arg-type]
        return Attr(term.name, mapping.get(term.slot, term.slot)) if isinstance(term, Attr) else term

    if isinstance(p, On):
        target = mapping.get(p.var, p.var)
        return p.body if target is None else On(target, p.body)
    if isinstance(p, Cmp):
        return Cmp(t(p.left), p.op, t(p.right))
    if isinstance(p, IsType):
        return IsType(p.name, mapping.get(p.slot, p.slot))
    if isinstance(p, Opaque):
        return Opaque(p.name, p.fn, mapping.get(p.slot, p.slot))
    if isinstance(p, Not):
        return neg(_reslot(p.arg, mapping))
    if isinstance(p, And):
        return conj(*(_reslot(a, mapping) for a in p.args))
    if isinstance(p, Or):
        return disj(*(_reslot(a, mapping) for a in p.args))
    if isinstance(p, Like):
        return Like(t(p.term), p.pattern)  # type: ignore[arg-type]
    if isinstance(p, InSet):
        return InSet(t(p.term), p.values, p.negated)  # type: ignore[arg-type]
    if isinstance(p, InRange):
        return InRange(t(p.term), p.low, p.high, p.negated)  # type: ignore[arg-type]
    return p


def reslot(p: Predicate, mapping: Mapping[Slot, Slot]) -> Predicate:
    """Rename slots (e.g. ``{None: "r1"}`` to read a unary predicate on register r1)."""
    return _reslot(p, mapping)


# ---------------------------------------------------------------------------------------------- CEQL extensions
# The expression language of CORE's CEQL (the CORE paper §4.4 and CORE.g4; docs/decisions.md D24–D25): arithmetic terms as
# comparison sides, LIKE, IN sets and IN ranges. All of them keep the type guard of D3: a missing attribute
# or a value of the wrong kind makes the atom false.
#
# Arithmetic is *exact*: every float is read as its exact binary rational (as the Z3 encoding does, see
# z3enc.real_val), ``+ - * /`` are computed on rationals, and the result is compared exactly. This departs from
# IEEE (CORE's Java doubles) only where IEEE rounds: ``x / 3 * 3 != x`` never holds here but holds in IEEE for
# x = 0.9, and ``x + y = z`` fails here for 0.1, 0.2, 0.30000000000000004 although IEEE rounds the sum to z.
# Exactness is what makes the Z3 encoding both sound and complete for linear atoms. An arithmetic expression is
# *undefined* (and any comparison with it false) when an operand is missing, is not a number (strings and
# booleans are not numbers), is not finite, or when it divides by zero.

ARITH_OPS = ("+", "-", "*", "/")
_ARITH_LEVEL = {"+": 1, "-": 1, "*": 2, "/": 2}

Number = Union[int, Fraction]


def _exact_number(value: object) -> Number | None:
    """``value`` as an exact rational (ints stay ints), or None when it is not a finite number."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, Fraction)):
        return value
    if isinstance(value, float):
        return Fraction(value) if math.isfinite(value) else None
    return None


@dataclass(frozen=True, slots=True, repr=False)
class Arith:
    """``left op right`` with ``op`` in ``+ - * /``: an arithmetic term, usable as a side of :class:`Cmp`.

    Operands are attributes, numeric constants or arithmetic terms. Evaluation is exact over the rationals and
    undefined (None) on a missing or non-numeric operand, a non-finite value or a division by zero.
    """

    op: str
    left: Attr | Const | Arith
    right: Attr | Const | Arith

    def __post_init__(self) -> None:
        if self.op not in ARITH_OPS:
            raise PredicateError(f"unknown arithmetic operator {self.op!r}; expected one of {' '.join(ARITH_OPS)}")
        for side in (self.left, self.right):
            if not isinstance(side, (Attr, Const, Arith)):
                raise PredicateError(f"an arithmetic operand is an attribute, a number or arithmetic, got {side!r}")
            if isinstance(side, Const) and kind(side.value) != "num":
                raise PredicateError(f"arithmetic needs numbers, got the constant {side}")

    def evaluate(self, env: Env) -> Number | None:
        a = _exact_number(term_value(self.left, env))
        b = _exact_number(term_value(self.right, env))
        if a is None or b is None:
            return None
        if self.op == "+":
            r: Number = a + b
        elif self.op == "-":
            r = a - b
        elif self.op == "*":
            r = a * b
        else:
            if b == 0:
                return None
            r = Fraction(a) / b
        return int(r) if isinstance(r, Fraction) and r.denominator == 1 else r

    def attrs(self) -> tuple[Attr, ...]:
        return _term_attrs(self)

    def __str__(self) -> str:
        return format_term(self)


def format_term(t: Attr | Const | Arith, name: Callable[[Attr], str] = str,
                value: Callable[[Value], str] = format_value) -> str:
    """Text of a term with the fewest parentheses (``*`` ``/`` bind tighter than ``+`` ``-``; all associate to
    the left, so a right operand at the same level is parenthesized: ``x - (y - 1)``)."""
    if isinstance(t, Attr):
        return name(t)
    if isinstance(t, Const):
        return value(t.value)
    level = _ARITH_LEVEL[t.op]

    def side(s: Attr | Const | Arith, minimum: int) -> str:
        text = format_term(s, name, value)
        return f"({text})" if isinstance(s, Arith) and _ARITH_LEVEL[s.op] < minimum else text

    return f"{side(t.left, level)} {t.op} {side(t.right, level + 1)}"


def term_attrs(t: object) -> tuple[Attr, ...]:
    """The attributes a term reads, left to right (none for a constant)."""
    if isinstance(t, Attr):
        return (t,)
    if isinstance(t, Arith):
        return term_attrs(t.left) + term_attrs(t.right)
    return ()


_term_attrs = term_attrs


def term_value(t: Attr | Const | Arith, env: Env) -> Value | Number | None:
    """The value of a term on an environment: an attribute's value, a constant, an arithmetic result."""
    if isinstance(t, Attr):
        return t.value(env)
    if isinstance(t, Const):
        return t.value
    return t.evaluate(env)


def compare_numeric(left: object, op: str, right: object) -> bool:
    """``left op right`` for a comparison with an arithmetic side: both must be numbers (exact rationals,
    ints or floats; not booleans), otherwise the atom is false."""
    if left is None or right is None or isinstance(left, bool) or isinstance(right, bool):
        return False
    if not isinstance(left, (int, float, Fraction)) or not isinstance(right, (int, float, Fraction)):
        return False
    return OPS[op](left, right)


@functools.lru_cache(maxsize=1024)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


@dataclass(frozen=True, slots=True, repr=False)
class Like(Predicate):
    """``attr LIKE 'regex'``: the attribute is a string the regular expression matches *entirely*.

    CORE uses Java regexes; we use Python's ``re.fullmatch``, whose common syntax is the same (character
    classes, ``.``, ``*``, ``+``, ``?``, ``{m,n}``, groups, ``|``). A missing or non-string value makes the atom
    false. The Z3 encoding treats a LIKE atom as a free Boolean (see z3enc): an over-approximation.
    """

    term: Attr
    pattern: str

    def __post_init__(self) -> None:
        if not isinstance(self.term, Attr):
            raise PredicateError(f"LIKE applies to an attribute, got {self.term!r}")
        if not isinstance(self.pattern, str):
            raise PredicateError(f"a LIKE pattern is a string, got {self.pattern!r}")
        try:
            _regex(self.pattern)
        except re.error as exc:
            raise PredicateError(f"bad regular expression {self.pattern!r} in LIKE: {exc}") from None

    def holds(self, env: Env) -> bool:
        v = self.term.value(env)
        return isinstance(v, str) and _regex(self.pattern).fullmatch(v) is not None

    def matches(self, text: str) -> bool:
        return _regex(self.pattern).fullmatch(text) is not None

    def _own_slots(self) -> frozenset[Slot]:
        return frozenset([self.term.slot])

    def text(self) -> str:
        return f"{self.term} LIKE {format_value(self.pattern)}"

    def label(self) -> str:
        return f"{self.term} LIKE '{self.pattern}'"


def _const_key(c: Const) -> tuple[int, Value]:
    return (("num", "str", "bool").index(kind(c.value)), c.value)


@dataclass(frozen=True, slots=True, repr=False)
class InSet(Predicate):
    """``attr IN {v1, v2, ...}`` (``negated``: ``attr NOT IN {...}``).

    ``IN`` is the disjunction of ``attr = v`` and ``NOT IN`` the conjunction of ``attr != v``, each with the
    type guard, so *both* are false on a missing attribute (``NOT IN`` is an atom, like ``!=``, not the
    negation of ``IN``), and ``NOT IN`` is false on a value whose kind differs from some listed value. ``values``
    is a non-empty frozenset of :class:`Const` (plain values are wrapped; pass a list, since a Python set
    merges ``1`` and ``True``).
    """

    term: Attr
    values: frozenset[Const]
    negated: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.term, Attr):
            raise PredicateError(f"IN applies to an attribute, got {self.term!r}")
        vals = frozenset(v if isinstance(v, Const) else Const(v) for v in self.values)
        if not vals:
            raise PredicateError("IN needs at least one value")
        object.__setattr__(self, "values", vals)

    def sorted_values(self) -> list[Const]:
        return sorted(self.values, key=_const_key)

    def holds(self, env: Env) -> bool:
        v = self.term.value(env)
        if self.negated:
            return v is not None and all(compare(v, "!=", c.value) for c in self.values)
        return any(compare(v, "=", c.value) for c in self.values)

    def expand(self) -> Predicate:
        """The equivalent Boolean combination of comparisons."""
        atoms = [Cmp(self.term, "!=" if self.negated else "=", c) for c in self.sorted_values()]
        return conj(*atoms) if self.negated else disj(*atoms)

    def _own_slots(self) -> frozenset[Slot]:
        return frozenset([self.term.slot])

    def text(self) -> str:
        vals = ", ".join(format_value(c.value) for c in self.sorted_values())
        return f"{self.term} {'NOT IN' if self.negated else 'IN'} {{{vals}}}"

    def label(self) -> str:
        vals = ",".join(format_value(c.value) for c in self.sorted_values())
        return f"{self.term}{'∉' if self.negated else '∈'}{{{vals}}}"


@dataclass(frozen=True, slots=True, repr=False)
class InRange(Predicate):
    """``attr IN {low..high}`` (inclusive; either bound may be None: ``{low..}``, ``{..high}``), or ``NOT IN``.

    The attribute must be a number (type guard) for either form to hold: ``NOT IN`` is "a number outside the
    range", not the negation of ``IN``.
    """

    term: Attr
    low: int | float | None
    high: int | float | None
    negated: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.term, Attr):
            raise PredicateError(f"IN applies to an attribute, got {self.term!r}")
        if self.low is None and self.high is None:
            raise PredicateError("a range needs at least one bound")
        for b in (self.low, self.high):
            if b is not None and (isinstance(b, bool) or not isinstance(b, (int, float)) or not math.isfinite(b)):
                raise PredicateError(f"range bounds are finite numbers, got {b!r}")

    def holds(self, env: Env) -> bool:
        v = self.term.value(env)
        if v is None or kind(v) != "num":
            return False
        inside = (self.low is None or self.low <= v) and (self.high is None or v <= self.high)  # type: ignore[operator]
        return inside != self.negated

    def expand(self) -> Predicate:
        """The equivalent Boolean combination of comparisons (each comparison carries the number guard)."""
        if self.negated:
            return disj(*([Cmp(self.term, "<", Const(self.low))] if self.low is not None else []),
                        *([Cmp(self.term, ">", Const(self.high))] if self.high is not None else []))
        return conj(*([Cmp(self.term, ">=", Const(self.low))] if self.low is not None else []),
                    *([Cmp(self.term, "<=", Const(self.high))] if self.high is not None else []))

    def _own_slots(self) -> frozenset[Slot]:
        return frozenset([self.term.slot])

    def bounds_text(self) -> str:
        lo = "" if self.low is None else format_value(self.low)
        hi = "" if self.high is None else format_value(self.high)
        return f"{{{lo}..{hi}}}"

    def text(self) -> str:
        return f"{self.term} {'NOT IN' if self.negated else 'IN'} {self.bounds_text()}"

    def label(self) -> str:
        lo = "(-∞" if self.low is None else f"[{format_value(self.low)}"
        hi = "∞)" if self.high is None else f"{format_value(self.high)}]"
        return f"{self.term}{'∉' if self.negated else '∈'}{lo},{hi}"


def like(name: str, pattern: str, slot: Slot = None) -> Like:
    return Like(Attr(name, slot), pattern)


def in_set(name: str, values: Iterable[Value | Const], negated: bool = False, slot: Slot = None) -> InSet:
    return InSet(Attr(name, slot), frozenset(v if isinstance(v, Const) else Const(v) for v in values), negated)


def in_range(name: str, low: int | float | None, high: int | float | None, negated: bool = False,
             slot: Slot = None) -> InRange:
    return InRange(Attr(name, slot), low, high, negated)


def arith(op: str, left: Attr | Const | Arith | str | Value, right: Attr | Const | Arith | str | Value,
          slot: Slot = None) -> Arith:
    """Shorthand: ``arith("+", "x", 1)`` is ``x + 1``; strings name attributes, other values are constants."""
    def term(t: object) -> Attr | Const | Arith:
        if isinstance(t, (Attr, Const, Arith)):
            return t
        return Attr(t, slot) if isinstance(t, str) else Const(t)  # type: ignore[arg-type]

    return Arith(op, term(left), term(right))
