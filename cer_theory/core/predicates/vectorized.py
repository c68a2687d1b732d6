"""Unary predicates evaluated over a batch of events as numpy columns, giving one bitmask per event.

The engine (the CORE paper, CORE §4.4) reads each event once and needs, for every predicate of its automaton, whether
the event satisfies it: ``bitmasks(preds, events)[i]`` has bit k set iff ``preds[k](events[i])``. This module
computes that column-wise and must agree exactly with the per-event semantics of
:mod:`cer_theory.core.predicates.ast` (type guard, exact rational arithmetic):

* each attribute becomes a :class:`Column`: a kind code per event (missing / number / string / boolean) and one
  array per kind (float64 numbers, object strings, booleans);
* comparisons are evaluated per kind under the type guard (a kind mismatch or a missing value gives False);
* numbers are float64 values with a rigorous *error bound* (0 when the float is the exact value): an int
  beyond 2^53 carries its conversion error, and each arithmetic step adds its rounding error, computed exactly
  by an error-free transformation (TwoSum for ``+``/``-``, Dekker's TwoProduct for ``*`` and for checking
  ``q·b = a`` in ``a / b``) and propagated through the operands' bounds. A comparison is decided in float64
  when its sides are exact or farther apart than their bounds; the other rows (near-ties, overflow, a divisor
  that may be zero) are re-evaluated with the exact scalar semantics (``p(event)``), so the result equals the
  scalar one on every row;
* LIKE runs the regex once per distinct string; IN sets and ranges use their expansion into comparisons;
  ``Opaque`` tests call their Python function per event.

Input: a :class:`Batch`, the columns of a batch of events (:class:`cer_theory.streams.batch.Rows` builds one from
events, dicts, a pandas DataFrame or a pyarrow Table: :func:`cer_theory.streams.convert.as_rows`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from cer_theory.core.errors import PredicateError
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import (And, Arith, Attr, BoolConst, Cmp, Const, InRange, InSet, IsType, Like, Not, Opaque, Or, Predicate,
                  kind)

MISSING, NUM, STR, BOOL = 0, 1, 2, 3
_KIND_CODE = {"num": NUM, "str": STR, "bool": BOOL}
_SAFE_HI, _SAFE_LO = 2.0**500, 2.0**-500  # TwoProduct is error-free for magnitudes in this range (or 0)
_SPLIT = 134217729.0  # 2^27 + 1: Veltkamp's splitter for float64
_SLACK = 1 + 2.0**-40  # covers the rounding of the few float operations that compute an error bound
_ULP = 2.0**-52  # |fl(x) - x| <= |fl(x)| * 2^-52 for a normal result
_TINY = 2.0**-1060  # exceeds the sum of the few subnormal roundings (each < 2^-1074) in one error bound


@dataclass(frozen=True)
class Column:
    """One attribute over a batch: ``kinds[i]`` is MISSING, NUM, STR or BOOL; ``num`` (float64, 0 elsewhere),
    ``err`` (a bound on ``|num - value|``: 0 when the float is exact, inf when unknown; 0 where not a number),
    ``text`` (object, ``""`` elsewhere) and ``flag`` (bool, False elsewhere) hold the values of each kind."""

    kinds: np.ndarray
    num: np.ndarray
    err: np.ndarray
    text: np.ndarray
    flag: np.ndarray


def _missing(v: object) -> bool:
    return v is None or (isinstance(v, float) and v != v) or type(v).__name__ in ("NAType", "NaTType")


def column_from_values(values: Sequence[object]) -> Column:
    """A column from Python (or numpy scalar) values; None, NaN and pandas' NA are absent values."""
    n = len(values)
    kinds = np.zeros(n, dtype=np.int8)
    num = np.zeros(n, dtype=np.float64)
    err = np.zeros(n, dtype=np.float64)
    text = np.full(n, "", dtype=object)
    flag = np.zeros(n, dtype=bool)
    for i, v in enumerate(values):
        if _missing(v):
            continue
        if isinstance(v, (bool, np.bool_)):
            kinds[i], flag[i] = BOOL, bool(v)
        elif isinstance(v, (int, np.integer)):
            kinds[i] = NUM
            try:
                f = float(v)
            except OverflowError:  # beyond float range: only the scalar semantics can compare it
                num[i], err[i] = 0.0, math.inf
            else:
                num[i], err[i] = f, (0.0 if f == int(v) else abs(f) * _ULP)
        elif isinstance(v, (float, np.floating)):
            kinds[i], num[i] = NUM, float(v)
        elif isinstance(v, str):
            kinds[i], text[i] = STR, v
        else:
            raise PredicateError(f"not an attribute value: {v!r}")
    return Column(kinds, num, err, text, flag)


class Batch(Protocol):
    """What the evaluator reads of a batch of events: ``types`` (an object array of the event types), ``column(name)``
    (the :class:`Column` of an attribute, all absent where no event has it; ``type`` gives the types) and
    ``event(i)`` (the i-th event, for the rows only the exact scalar semantics can decide). The one implementation
    is :class:`cer_theory.streams.batch.Rows`, which builds a batch from events, dicts, DataFrames, Arrow tables and
    files (:func:`cer_theory.streams.convert.as_rows`); the kernel declares only what it reads
    (docs/decisions.md D160)."""

    types: np.ndarray

    def __len__(self) -> int: ...

    def column(self, name: str) -> Column: ...

    def event(self, i: int) -> Event: ...


# ---------------------------------------------------------------------------------------------- evaluation

_CMP = {"=": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
        ">=": np.greater_equal}

Result = tuple[np.ndarray, np.ndarray | None]
"""(truth values, rows that need the scalar semantics or None)."""


@dataclass(frozen=True)
class _Num:
    """A numeric term over the batch: float64 values, where it is defined, and a bound on the float's error
    (0: exact; inf: unknown, which includes "may or may not be defined")."""

    value: np.ndarray
    defined: np.ndarray
    err: np.ndarray


def _bound(x: np.ndarray, inexact: np.ndarray | None = None) -> np.ndarray:
    """An error bound rounded up: relative slack for the float operations that computed it, plus an absolute
    floor (a term such as ``|a|·err_b`` may underflow to 0 although it is positive) on the rows that are
    ``inexact``; NaN (from inf · 0) becomes inf: unknown."""
    up = x * _SLACK
    if inexact is not None:
        up = np.where(inexact, up + _TINY, up)
    return np.where(np.isnan(x), math.inf, up)


def _decided(left: np.ndarray, el: np.ndarray, right: np.ndarray, er: np.ndarray) -> np.ndarray:
    """Rows where comparing the floats gives the exact answer: both exact, or farther apart than the bounds."""
    total = el + er
    with np.errstate(all="ignore"):
        return (total == 0) | (np.abs(left - right) > _bound(total))


def _either(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    return b if a is None else a if b is None else a | b


class _Evaluator:
    def __init__(self, batch: Batch) -> None:
        self.batch = batch
        self.n = len(batch)
        self.memo: dict[Predicate, Result] = {}

    def full(self, value: bool) -> np.ndarray:
        return np.full(self.n, value, dtype=bool)

    def eval(self, p: Predicate) -> Result:
        hit = self.memo.get(p)
        if hit is None:
            hit = self.memo[p] = self._eval(p)
        return hit

    def _eval(self, p: Predicate) -> Result:
        if isinstance(p, BoolConst):
            return self.full(p.value), None
        if isinstance(p, IsType):
            self._unary(p, p.slot)
            return np.asarray(self.batch.types == p.name, dtype=bool), None
        if isinstance(p, Not):
            res, unsure = self.eval(p.arg)
            return ~res, unsure
        if isinstance(p, (And, Or)):
            parts = [self.eval(a) for a in p.args]
            res = parts[0][0].copy()
            unsure: np.ndarray | None = None
            for r, u in parts:
                res = (res & r) if isinstance(p, And) else (res | r)
                unsure = _either(unsure, u)
            return res, unsure
        if isinstance(p, Cmp):
            if isinstance(p.left, Arith) or isinstance(p.right, Arith):
                return self._arith_cmp(p)
            return self._cmp(p)
        if isinstance(p, Like):
            return self._like(p)
        if isinstance(p, (InSet, InRange)):
            self._unary(p, p.term.slot)
            return self.eval(p.expand())
        if isinstance(p, Opaque):
            self._unary(p, p.slot)
            return np.fromiter((bool(p.fn(self.batch.event(i))) for i in range(self.n)), bool, self.n), None
        raise PredicateError(f"bitmasks take unary predicates; cannot evaluate {type(p).__name__} {p.text()}")

    @staticmethod
    def _unary(p: Predicate, slot: object) -> None:
        if slot is not None:
            raise PredicateError(f"bitmasks take unary predicates; {p.text()} reads slot {slot}")

    def _attr(self, a: Attr) -> Column:
        if a.slot is not None:
            raise PredicateError(f"bitmasks take unary predicates; {a} reads slot {a.slot}")
        return self.batch.column(a.name)

    # comparisons under the type guard -----------------------------------------------------------------

    def _cmp(self, p: Cmp) -> Result:
        op = _CMP[p.op]
        sides = [self._attr(t) if isinstance(t, Attr) else t for t in (p.left, p.right)]
        res = self.full(False)
        unsure: np.ndarray | None = None
        for k, code in _KIND_CODE.items():
            masks, vals, errs = [], [], []
            for side in sides:
                if isinstance(side, Column):
                    masks.append(side.kinds == code)
                    vals.append({"num": side.num, "str": side.text, "bool": side.flag}[k])
                    errs.append(side.err)
                elif kind(side.value) != k:
                    break
                else:
                    masks.append(None)
                    value, err = side.value, 0.0
                    if k == "num":
                        try:
                            value = float(side.value)
                        except OverflowError:
                            value, err = 0.0, math.inf
                        else:
                            err = 0.0 if value == side.value else abs(value) * _ULP
                    vals.append(value)
                    errs.append(np.full(self.n, err))
            else:
                mask = _and_masks(masks, self.n)
                if not mask.any():
                    continue
                with np.errstate(all="ignore"):
                    hit = np.asarray(op(vals[0], vals[1]), dtype=bool)
                res |= mask & hit
                if k == "num":
                    bad = mask & ~_decided(vals[0], errs[0], vals[1], errs[1])
                    if bad.any():
                        unsure = _either(unsure, bad)
        return res, unsure

    def _num(self, t: Attr | Const | Arith, inside: bool) -> _Num:
        """A numeric term; ``inside`` an arithmetic expression, non-finite values are undefined."""
        if isinstance(t, Attr):
            col = self._attr(t)
            defined = col.kinds == NUM
            if inside:  # an infinite float is undefined; an int beyond float range is defined (its err is inf)
                defined = defined & np.isfinite(col.num)
            return _Num(col.num, defined, np.where(defined | ~inside, col.err, 0.0))
        if isinstance(t, Const):
            v = t.value
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                return _Num(np.zeros(self.n), self.full(False), np.zeros(self.n))
            try:
                f = float(v)
            except OverflowError:
                return _Num(np.zeros(self.n), self.full(True), np.full(self.n, math.inf))
            err = 0.0 if f == v else abs(f) * _ULP
            return _Num(np.full(self.n, f), self.full(not inside or math.isfinite(f)), np.full(self.n, err))
        a, b = self._num(t.left, True), self._num(t.right, True)
        defined = a.defined & b.defined
        unknown = (a.err == math.inf) | (b.err == math.inf)  # an operand's value or definedness is unknown
        with np.errstate(all="ignore"):
            if t.op in ("+", "-"):
                value, rounding = _two_sum(a.value, b.value if t.op == "+" else -b.value)
                inexact = (a.err > 0) | (b.err > 0) | (rounding != 0)
                err = _bound(a.err + b.err + np.abs(rounding), inexact)
                err = np.where(np.isfinite(value), err, math.inf)
            elif t.op == "*":
                value, rounding = _two_prod(a.value, b.value)
                inexact = (a.err > 0) | (b.err > 0) | (rounding != 0)
                err = _bound(np.abs(a.value) * b.err + np.abs(b.value) * a.err + a.err * b.err + np.abs(rounding),
                             inexact)
                err = np.where(_safe(a.value) & _safe(b.value) & np.isfinite(value), err, math.inf)
            else:
                unknown = unknown | ((np.abs(b.value) <= b.err) & (b.err > 0))  # the divisor may be 0 or not
                defined = defined & (b.value != 0)
                value = a.value / b.value
                prod, rounding = _two_prod(value, b.value)
                exact_q = _safe(value) & _safe(b.value) & (prod == a.value) & (rounding == 0)
                propagated = (np.abs(a.value) * b.err + np.abs(b.value) * a.err) / (
                    np.abs(b.value) * (np.abs(b.value) - b.err))
                inexact = (a.err > 0) | (b.err > 0) | ~exact_q
                err = _bound(np.where((a.err == 0) & (b.err == 0), 0.0, propagated)
                             + np.where(exact_q, 0.0, np.abs(value) * _ULP), inexact)
                normal_q = (np.abs(value) > _SAFE_LO) & _safe(value)  # the relative rounding bound needs it
                err = np.where((normal_q | exact_q) & np.isfinite(value), err, math.inf)
        return _Num(value, defined, np.where(unknown, math.inf, np.where(defined, err, 0.0)))

    def _arith_cmp(self, p: Cmp) -> Result:
        a, b = self._num(p.left, False), self._num(p.right, False)
        both = a.defined & b.defined
        with np.errstate(all="ignore"):
            res = both & np.asarray(_CMP[p.op](a.value, b.value), dtype=bool)
        unknown = (a.err == math.inf) | (b.err == math.inf)  # value, or whether it is defined, is unknown
        bad = unknown | (both & ~_decided(a.value, a.err, b.value, b.err))
        return res, (bad if bad.any() else None)

    def _like(self, p: Like) -> Result:
        col = self._attr(p.term)
        seen: dict[str, bool] = {}

        def match(s: str) -> bool:
            hit = seen.get(s)
            if hit is None:
                hit = seen[s] = p.matches(s)
            return hit

        res = np.fromiter((match(s) for s in col.text), bool, self.n)
        return res & (col.kinds == STR), None


def _and_masks(masks: list[np.ndarray | None], n: int) -> np.ndarray:
    out = np.ones(n, dtype=bool)
    for m in masks:
        if m is not None:
            out = out & m
    return out


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knuth's TwoSum: s = fl(a + b) and the exact rounding error (s + err = a + b)."""
    s = a + b
    bp = s - a
    ap = s - bp
    return s, (a - ap) + (b - bp)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dekker's TwoProduct: p = fl(a · b) and its exact error, valid for magnitudes passing :func:`_safe`."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _safe(x: np.ndarray) -> np.ndarray:
    mag = np.abs(x)
    return (mag == 0) | ((mag < _SAFE_HI) & (mag > _SAFE_LO))


# ---------------------------------------------------------------------------------------------- entry points


def evaluate(p: Predicate, batch: Batch) -> np.ndarray:
    """``p`` on every event of ``batch``: a bool array."""
    return evaluate_all([p], batch)[0]


def evaluate_all(preds: Sequence[Predicate], batch: Batch) -> list[np.ndarray]:
    """Each predicate on every event; shared subpredicates and columns are computed once."""
    ev = _Evaluator(batch)
    out = []
    for p in preds:
        res, unsure = ev.eval(p)
        if unsure is not None and unsure.any():
            res = res.copy()
            for i in np.flatnonzero(unsure):
                res[i] = p(batch.event(int(i)))
        out.append(res)
    return out


def bitmasks(preds: Sequence[Predicate], batch: Batch) -> list[int]:
    """Per event, the bitmask of the predicates it satisfies: bit k is set iff ``preds[k](event)``."""
    n = len(batch)
    columns = evaluate_all(preds, batch)
    words: list[np.ndarray] = []
    for start in range(0, len(columns), 63):  # 63 bits per int64 word, combined into Python ints below
        word = np.zeros(n, dtype=np.int64)
        for k, col in enumerate(columns[start:start + 63]):
            word |= col.astype(np.int64) << k
        words.append(word)
    if not words:
        return [0] * n
    if len(words) == 1:
        return words[0].tolist()
    lists = [w.tolist() for w in words]
    return [sum(lst[i] << (63 * w) for w, lst in enumerate(lists)) for i in range(n)]


__all__ = ["bitmasks", "evaluate", "evaluate_all", "Batch", "Column", "column_from_values",
           "MISSING", "NUM", "STR", "BOOL"]
