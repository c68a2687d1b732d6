"""Translation of predicates to Z3 formulas, and of Z3 models back to events.

This is the symbolic half of the effective Boolean algebra that the CEL paper (Def. 5.6, the types of Prop. 5.5)
and the SRT paper (Alg. 7, Def. 36) need; the mapping is docs/decisions.md D19.

Encoding (one symbolic record per slot: ``None`` is the current event ``~``, any other slot a variable or
register):

* the event type is a Z3 ``String`` (always defined, non-empty);
* each referenced attribute ``a`` gets a *kind* in the enumeration ``missing | num | str | bool`` and one value
  variable per kind: a ``Real`` (ints and floats, compared exactly as Python does), a ``String`` and a ``Bool``;
* ``x op y`` holds iff both sides have the same defined kind and the values compare in that kind (strings:
  lexicographic by code point, booleans: ``False < True``). A missing attribute or a kind mismatch makes the
  atom false, exactly as :func:`cer_theory.core.predicates.ast.compare` does;
* ``Opaque(name, fn, slot)`` is a free Boolean per ``(name, slot)``; ``On(var, body)`` encodes ``body`` at
  slot ``var``.

CEQL extensions (the CORE paper §4.4 and CORE's grammar CORE.g4; docs/decisions.md D24–D25; ast.py "CEQL extensions"):

* an arithmetic term is a Real expression, defined when every attribute in it has kind ``num`` and every
  divisor is non-zero (the evaluation is exact over the rationals, so linear atoms are encoded *exactly*).
  Non-linear terms (``x * y``, ``x / y``) are Z3's non-linear real arithmetic, which may answer ``unknown``;
  :mod:`cer_theory.core.predicates.solver` then answers "satisfiable", which is sound for determinization;
* ``attr LIKE 'regex'`` is ``kind = str ∧ b`` with a free Boolean ``b`` per ``(slot, attr, regex)``: a sound
  over-approximation (every event satisfying the atom satisfies the encoding, but Z3 does not know what the
  regex matches, so e.g. ``s = "a" ∧ s LIKE "b"`` counts as satisfiable and witnesses may fail);
* ``IN`` / ``NOT IN`` sets and ranges are encoded through their expansion into comparisons (exact).

Z3's reals have no infinities. Events read from JSON or CSV have finite numbers; an infinite value built in
Python makes arithmetic on it undefined (ast.py) while Z3 sees a real, so the correspondence holds for finite
values only.

Strings are built and read through Z3's code-point API because ``z3.StringVal`` rewrites ``\\u{..}`` escapes
and ``as_string`` escapes characters above U+00FF.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

import z3

from cer_theory.core.errors import PredicateError, StreamFormatError
from cer_theory.core.events import TYPE_KEY, Event, Value
from cer_theory.core.predicates.ast import (And, Arith, BoolConst, Cmp, Const, InRange, InSet, IsType, Like, Not, On, Opaque, Or,
                  Predicate, Slot, Term, kind, term_attrs)

KINDS = ("missing", "num", "str", "bool")
"""The constructors of the Z3 enumeration of attribute kinds (``missing`` = the event lacks the attribute)."""

DEFAULT_TYPE = "E"
"""The type given to a witness event whose type the predicate does not constrain."""

MAX_CHAR = 0x2FFFF
"""The largest code point Z3's string theory represents (its default ``unicode`` encoding)."""

_KIND_SORT: tuple[z3.DatatypeSortRef, dict[str, z3.ExprRef]] | None = None


def kind_sort() -> tuple[z3.DatatypeSortRef, dict[str, z3.ExprRef]]:
    """The enumeration sort of kinds and its constants by name (created once: Z3 refuses a second declaration)."""
    global _KIND_SORT
    if _KIND_SORT is None:
        sort, consts = z3.EnumSort("cer_kind", list(KINDS))
        _KIND_SORT = (sort, dict(zip(KINDS, consts)))
    return _KIND_SORT


def string_val(text: str) -> z3.SeqRef:
    """A Z3 string literal with exactly the code points of ``text`` (no escape processing)."""
    codes = [ord(ch) for ch in text]
    if any(c > MAX_CHAR for c in codes):
        raise PredicateError(f"string {text!r} has a character above U+{MAX_CHAR:X}, which Z3 cannot represent")
    ctx = z3.main_ctx()
    arr = (ctypes.c_uint * len(codes))(*codes)
    return z3.SeqRef(z3.z3core.Z3_mk_u32string(ctx.ref(), len(codes), arr), ctx)


def string_of(value: z3.ExprRef) -> str:
    """The Python string of a Z3 string literal (from a model), read code point by code point."""
    ctx = z3.main_ctx()
    n = z3.z3core.Z3_get_string_length(ctx.ref(), value.as_ast())
    arr = (ctypes.c_uint * n)()
    z3.z3core.Z3_get_string_contents(ctx.ref(), value.as_ast(), n, arr)
    return "".join(map(chr, arr))


def real_val(value: int | float) -> z3.ArithRef:
    """An exact rational for a number: ints as they are, floats by their exact binary value."""
    try:
        frac = Fraction(value)
    except (OverflowError, ValueError):
        raise PredicateError(f"the constant {value!r} has no exact rational value; Z3 cannot encode it") from None
    return z3.RealVal(f"{frac.numerator}/{frac.denominator}")


@dataclass(frozen=True)
class AttrVars:
    """The symbolic record of one attribute of one slot."""

    kind: z3.ExprRef
    num: z3.ArithRef
    str: z3.SeqRef
    bool: z3.BoolRef

    def value(self, k: str) -> z3.ExprRef:
        return {"num": self.num, "str": self.str, "bool": self.bool}[k]


@dataclass(frozen=True)
class Footprint:
    """What a predicate reads: slots whose type it reads, attributes ``(slot, name)``, opaque atoms, strings.

    Used to add the domain constraints of exactly the variables involved, and to decode a witness.
    """

    typed: frozenset[Slot] = frozenset()
    attrs: frozenset[tuple[Slot, str]] = frozenset()
    opaques: frozenset[tuple[Slot, str]] = frozenset()
    strings: frozenset[str] = frozenset()

    def __or__(self, other: Footprint) -> Footprint:
        return Footprint(self.typed | other.typed, self.attrs | other.attrs, self.opaques | other.opaques,
                         self.strings | other.strings)


# The symbolic view of a term: per kind it may take, (guard that it has that kind, its value in that kind).
_View = dict[str, tuple[z3.BoolRef, z3.ExprRef]]


class Encoder:
    """Owns the per-slot Z3 variables so that several predicates share the same symbols.

    Variables are named ``<slot>.type``, ``<slot>.<attr>#kind`` / ``#num`` / ``#str`` / ``#bool`` and
    ``<slot>.@<opaque>``, where the current event's slot is written ``~`` (the SRT paper's notation).
    """

    def __init__(self) -> None:
        self._types: dict[Slot, z3.SeqRef] = {}
        self._attrs: dict[tuple[Slot, str], AttrVars] = {}
        self._opaques: dict[tuple[Slot, str], z3.BoolRef] = {}
        self._cache: dict[tuple[Predicate, Slot], tuple[z3.BoolRef, Footprint]] = {}

    # ------------------------------------------------------------------------------------------ variables

    @staticmethod
    def _slot_name(slot: Slot) -> str:
        return "~" if slot is None else slot

    def type_var(self, slot: Slot) -> z3.SeqRef:
        if slot not in self._types:
            self._types[slot] = z3.String(f"{self._slot_name(slot)}.{TYPE_KEY}")
        return self._types[slot]

    def attr_vars(self, slot: Slot, name: str) -> AttrVars:
        key = (slot, name)
        if key not in self._attrs:
            base = f"{self._slot_name(slot)}.{name}"
            sort, _ = kind_sort()
            self._attrs[key] = AttrVars(z3.Const(base + "#kind", sort), z3.Real(base + "#num"),
                                        z3.String(base + "#str"), z3.Bool(base + "#bool"))
        return self._attrs[key]

    def opaque_var(self, slot: Slot, name: str) -> z3.BoolRef:
        key = (slot, name)
        if key not in self._opaques:
            self._opaques[key] = z3.Bool(f"{self._slot_name(slot)}.@{name}")
        return self._opaques[key]

    # ------------------------------------------------------------------------------------------ encoding

    def encode(self, p: Predicate) -> z3.BoolRef:
        """The Z3 formula of ``p`` (without domain constraints: see :meth:`domain`)."""
        return self._encode(p, None)[0]

    def footprint(self, p: Predicate) -> Footprint:
        return self._encode(p, None)[1]

    def domain(self, fp: Footprint) -> list[z3.BoolRef]:
        """Side constraints of the variables of ``fp``, asserted once and never negated: types are non-empty."""
        return [z3.Length(self.type_var(s)) > 0 for s in sorted(fp.typed, key=_slot_key)]

    def _encode(self, p: Predicate, here: Slot) -> tuple[z3.BoolRef, Footprint]:
        # ``here`` is the slot that ``None`` stands for: inside On(var, body) the body's current event is var.
        key = (p, here)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._encode_node(p, here)
            self._cache[key] = hit
        return hit

    def _encode_node(self, p: Predicate, here: Slot) -> tuple[z3.BoolRef, Footprint]:
        def at(slot: Slot) -> Slot:
            return here if slot is None else slot

        if isinstance(p, BoolConst):
            return z3.BoolVal(p.value), Footprint()
        if isinstance(p, IsType):
            s = at(p.slot)
            return self.type_var(s) == string_val(p.name), Footprint(typed=frozenset([s]),
                                                                     strings=frozenset([p.name]))
        if isinstance(p, Opaque):
            s = at(p.slot)
            return self.opaque_var(s, p.name), Footprint(opaques=frozenset([(s, p.name)]))
        if isinstance(p, On):
            return self._encode(p.body, p.var)
        if isinstance(p, Cmp):
            lv, lfp = self._view(p.left, at)
            rv, rfp = self._view(p.right, at)
            cases = [_and(lg, rg, _relate(k, lx, p.op, rx))
                     for k, (lg, lx) in lv.items() if k in rv for rg, rx in [rv[k]]]
            return _or(cases), lfp | rfp
        if isinstance(p, Not):
            f, fp = self._encode(p.arg, here)
            return z3.Not(f), fp
        if isinstance(p, Like):
            return self._encode_like(p, at)
        if isinstance(p, (InSet, InRange)):
            return self._encode(p.expand(), here)
        if isinstance(p, (And, Or)):
            parts = [self._encode(a, here) for a in p.args]
            fp = Footprint()
            for _, f in parts:
                fp = fp | f
            fs = [f for f, _ in parts]
            return (z3.And(fs) if isinstance(p, And) else z3.Or(fs)), fp
        raise PredicateError(f"cannot encode {type(p).__name__} {p.text()} for Z3")

    def _encode_like(self, p: Like, at) -> tuple[z3.BoolRef, Footprint]:
        s = at(p.term.slot)
        free = self.opaque_var(s, f"{p.term.name} LIKE {p.pattern!r}")
        fp = Footprint(opaques=frozenset([(s, f"{p.term.name} LIKE {p.pattern!r}")]))
        if p.term.name == TYPE_KEY:  # the type is always a string
            return free, fp | Footprint(typed=frozenset([s]))
        v = self.attr_vars(s, p.term.name)
        _, consts = kind_sort()
        return z3.And(v.kind == consts["str"], free), fp | Footprint(attrs=frozenset([(s, p.term.name)]))

    def _arith(self, t: Term | Arith, at) -> tuple[tuple[z3.BoolRef, z3.ArithRef] | None, Footprint]:
        """(definedness guard, Real value) of a numeric term, or None when it is never a number."""
        if isinstance(t, Arith):
            left, lfp = self._arith(t.left, at)
            right, rfp = self._arith(t.right, at)
            if left is None or right is None:
                return None, lfp | rfp
            (lg, lx), (rg, rx) = left, right
            if t.op == "/":
                return (_and(lg, rg, rx != 0), lx / rx), lfp | rfp
            value = {"+": lambda: lx + rx, "-": lambda: lx - rx, "*": lambda: lx * rx}[t.op]()
            return (_and(lg, rg), value), lfp | rfp
        view, fp = self._view(t, at)
        return view.get("num"), fp

    def _view(self, t: Term | Arith, at) -> tuple[_View, Footprint]:
        if isinstance(t, Arith):
            num, fp = self._arith(t, at)
            return ({} if num is None else {"num": num}), fp
        if isinstance(t, Const):
            k = kind(t.value)
            if k == "num":
                val: z3.ExprRef = real_val(t.value)  # type: ignore[arg-type]
                fp = Footprint()
            elif k == "str":
                val, fp = string_val(t.value), Footprint(strings=frozenset([t.value]))  # type: ignore[arg-type]
            else:
                val, fp = z3.BoolVal(t.value), Footprint()
            return {k: (z3.BoolVal(True), val)}, fp
        s = at(t.slot)
        if t.name == TYPE_KEY:  # the type is a string that is always defined
            return {"str": (z3.BoolVal(True), self.type_var(s))}, Footprint(typed=frozenset([s]))
        v = self.attr_vars(s, t.name)
        _, consts = kind_sort()
        return {k: (v.kind == consts[k], v.value(k)) for k in ("num", "str", "bool")}, \
            Footprint(attrs=frozenset([(s, t.name)]))

    # ------------------------------------------------------------------------------------------ decoding

    def decode(self, model: z3.ModelRef, fp: Footprint, slots: Iterable[Slot] = ()) -> dict[Slot, Event]:
        """One event per slot (those of ``fp`` and ``slots``) from a model: the witness of a satisfiable formula.

        Unconstrained types become :data:`DEFAULT_TYPE`; attributes of kind ``missing`` are left out;
        non-integral rationals become the nearest float (the caller re-checks the witness by evaluation).
        """
        all_slots = set(slots) | set(fp.typed) | {s for s, _ in fp.attrs} | {s for s, _ in fp.opaques}
        env: dict[Slot, Event] = {}
        for slot in sorted(all_slots, key=_slot_key):
            etype = DEFAULT_TYPE
            if slot in fp.typed:
                etype = string_of(model.eval(self.type_var(slot), model_completion=True)) or DEFAULT_TYPE
            attrs: dict[str, Value] = {}
            for s, name in sorted(fp.attrs):
                if s == slot:
                    value = self._decode_attr(model, self.attr_vars(s, name))
                    if value is not None:
                        attrs[name] = value
            try:
                env[slot] = Event(etype, attrs)
            except StreamFormatError as exc:
                raise PredicateError(f"cannot build a witness event for slot {slot!r}: {exc}") from None
        return env

    @staticmethod
    def _decode_attr(model: z3.ModelRef, v: AttrVars) -> Value | None:
        k = str(model.eval(v.kind, model_completion=True))
        if k == "num":
            val = model.eval(v.num, model_completion=True)
            if z3.is_algebraic_value(val):  # an irrational root (non-linear arithmetic): the nearest float
                val = val.approx(20)
            frac = val.as_fraction()
            return int(frac) if frac.denominator == 1 else float(frac)
        if k == "str":
            return string_of(model.eval(v.str, model_completion=True))
        if k == "bool":
            return z3.is_true(model.eval(v.bool, model_completion=True))
        return None

    def model_vars(self, fp: Footprint) -> list[z3.ExprRef]:
        """The variables a witness is decoded from (used to block a model and ask for another)."""
        out: list[z3.ExprRef] = [self.type_var(s) for s in sorted(fp.typed, key=_slot_key)]
        for s, name in sorted(fp.attrs, key=lambda a: (_slot_key(a[0]), a[1])):
            v = self.attr_vars(s, name)
            out += [v.kind, v.num, v.str, v.bool]
        return out

    def string_vars(self, fp: Footprint) -> list[z3.SeqRef]:
        out = [self.type_var(s) for s in sorted(fp.typed, key=_slot_key)]
        return out + [self.attr_vars(s, n).str for s, n in sorted(fp.attrs, key=lambda a: (_slot_key(a[0]), a[1]))]


def _slot_key(slot: Slot) -> tuple[int, str]:
    return (0, "") if slot is None else (1, slot)


def _and(*fs: z3.BoolRef) -> z3.BoolRef:
    keep = [f for f in fs if not z3.is_true(f)]
    return keep[0] if len(keep) == 1 else z3.And(keep) if keep else z3.BoolVal(True)


def _or(fs: list[z3.BoolRef]) -> z3.BoolRef:
    return fs[0] if len(fs) == 1 else z3.Or(fs) if fs else z3.BoolVal(False)


def _relate(k: str, a: z3.ExprRef, op: str, b: z3.ExprRef) -> z3.BoolRef:
    """``a op b`` within kind ``k``: numbers and strings by their order, booleans with False < True."""
    if op == "=":
        return a == b
    if op == "!=":
        return a != b
    if k == "bool":  # False < True: a < b iff ¬a ∧ b
        return {"<": z3.And(z3.Not(a), b), "<=": z3.Or(z3.Not(a), b),
                ">": z3.And(a, z3.Not(b)), ">=": z3.Or(a, z3.Not(b))}[op]
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]  # type: ignore[operator]


def nice_alphabet(extra: Iterable[str] = ()) -> z3.ReRef:
    """Identifier characters plus the characters of ``extra``: the first alphabet tried for witness strings."""
    parts = [z3.Range("a", "z"), z3.Range("A", "Z"), z3.Range("0", "9"), z3.Re("_")]
    return _alphabet(parts, extra)


def printable_alphabet(extra: Iterable[str] = ()) -> z3.ReRef:
    """Printable ASCII plus the characters of ``extra``: the second alphabet tried for witness strings."""
    return _alphabet([z3.Range(" ", "~")], extra)


def _alphabet(parts: list[z3.ReRef], extra: Iterable[str]) -> z3.ReRef:
    chars = sorted({ch for text in extra for ch in text})
    parts = parts + [z3.Re(string_val(ch)) for ch in chars]
    return z3.Star(z3.Union(parts) if len(parts) > 1 else parts[0])


def env_holds(p: Predicate, env: Mapping[Slot, Event]) -> bool:
    """Evaluate ``p`` on a decoded environment; a slot the predicate needs but the model lacks is a failure."""
    try:
        return p.holds(env)
    except KeyError:
        return False


def is_nonlinear(p: Predicate) -> bool:
    """Does ``p`` (``On`` bodies included) multiply two attribute terms or divide by one? Z3 may then answer
    ``unknown``; linear arithmetic (constants times terms, division by constants) is decided exactly."""
    def term(t: object) -> bool:
        if not isinstance(t, Arith):
            return False
        if t.op == "*" and term_attrs(t.left) and term_attrs(t.right):
            return True
        if t.op == "/" and term_attrs(t.right):
            return True
        return term(t.left) or term(t.right)

    def pred(q: Predicate) -> bool:
        if isinstance(q, On):
            return pred(q.body)
        if isinstance(q, Cmp):
            return term(q.left) or term(q.right)
        return any(pred(c) for c in q.children())

    return pred(p)
