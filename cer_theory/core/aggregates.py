"""Aggregate functions as commutative monoids with a pre-map and a post-map.

Aggregation paper (the ACEL paper, "A formal query language and automata model for aggregation in complex event
recognition"), §4: a monoid ``(M, ⊕, 𝟘)`` is an associative, commutative operation with an identity; an aggregate
``f`` is *self-decomposable* when ``f(X ⊎ Y) = f(X) ⊕ f(Y)`` for disjoint bags, and by **Lemma 4.1** that holds iff
``f(X) = ⊕_{a ∈ X} f'(a)`` for a monoid and a map ``f'``; it is *decomposable* when ``f = g ∘ h`` with ``h``
self-decomposable and ``g`` constant-time (``avg``, ``range``). One :class:`Aggregator` is that quadruple
(operation, identity, pre-map ``f'``, post-map ``g``), so ACEL's ``Agg`` operator, the registers of aggregation
automata and the engine's ``SUM(b.volume)`` all fold a bag the same way, in one pass or incrementally
(:meth:`Aggregator.lift`, :meth:`Aggregator.combine`, :meth:`Aggregator.finish`).

The value structure of §4 (†) makes ``NULL`` absorbing: ``a ⊕ NULL = NULL``, and a missing attribute is ``NULL``.
Decisions (docs/decisions.md, "Aggregates: identities, NULL and count"): the identities over signed data are
``±∞`` (``max`` of an empty bag is ``-inf``, ``min`` is ``inf``; ``sum`` and ``count`` give ``0``); ``avg`` and
``range`` of an empty bag are ``NULL`` (0/0 has no value); ``count`` counts events, so its pre-map ignores the
value and a ``NULL`` attribute is counted, not absorbed. Users add their own aggregates with
:func:`register_aggregator`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from cer_theory.core.errors import AggregateError


class _Null:
    """The absorbing ``NULL`` data value of the ACEL paper §4 (one instance, :data:`NULL`); JSON ``null``."""

    _instance: _Null | None = None

    def __new__(cls) -> _Null:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NULL"

    def __reduce__(self) -> tuple:
        return (_Null, ())


NULL: Any = _Null()


def _number(name: str) -> Callable[[Any], Any]:
    """The pre-map of the numeric aggregates: the value itself, refusing what is not a number (bool included)."""

    def pre(value: Any) -> Any:
        if value is NULL:
            return NULL
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise AggregateError(f"{name} needs numbers; got {value!r} ({type(value).__name__})")
        return value

    return pre


def _ordered(name: str) -> Callable[[Any], Any]:
    """The pre-map of min and max: numbers, or strings (compared as text), never both in one bag."""

    def pre(value: Any) -> Any:
        if value is NULL or isinstance(value, str):
            return value
        return _number(name)(value)

    return pre


@dataclass(frozen=True)
class Aggregator:
    """A decomposable aggregate ``g ∘ ⊕_{a ∈ X} f'(a)`` (the ACEL paper, Lemma 4.1 and the definition after it).

    ``operation`` and ``identity`` form a commutative monoid over the pre-mapped values; ``pre`` is ``f'`` (it also
    checks the value's kind), ``post`` is ``g``. ``NULL`` is absorbing in the monoid (value structure (†))."""

    name: str
    operation: Callable[[Any, Any], Any]
    identity: Any
    pre: Callable[[Any], Any]
    post: Callable[[Any], Any]
    description: str = ""

    def lift(self, value: Any) -> Any:
        """``f'(value)``: a bag of one value, as a monoid element."""
        return self.pre(value)

    def combine(self, left: Any, right: Any) -> Any:
        """``left ⊕ right``, with ``NULL`` absorbing."""
        if left is NULL or right is NULL:
            return NULL
        try:
            return self.operation(left, right)
        except (TypeError, ArithmeticError) as exc:  # e.g. max over a number and a string
            raise AggregateError(f"{self.name} cannot combine {left!r} and {right!r}: {exc}") from None

    def finish(self, accumulated: Any) -> Any:
        """``g(accumulated)``: the aggregate's value. A value ``g`` cannot compute (``avg`` of integers whose mean
        is past the range of a float, as over 400-digit values) is an :class:`AggregateError`, as CEQL's fold
        reports it, not an arithmetic exception."""
        if accumulated is NULL:
            return NULL
        try:
            return self.post(accumulated)
        except ArithmeticError as exc:
            raise AggregateError(f"{self.name} of {_short(accumulated)}: {exc}") from None

    def fold(self, values: Iterable[Any]) -> Any:
        """The aggregate of a bag of values: ``g(⊕_{a ∈ X} f'(a))``, the identity's image on the empty bag."""
        accumulated = self.identity
        for value in values:
            accumulated = self.combine(accumulated, self.lift(value))
            if accumulated is NULL:
                return NULL
        return self.finish(accumulated)

    def __repr__(self) -> str:
        return f"Aggregator({self.name!r})"


def _short(value: Any) -> str:
    """A value in an error message, a huge number by its digit count (a 400-digit integer would fill the line)."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:25]}…{text[-10:]} ({len(text)} characters)"


def _pair_sum(a: tuple, b: tuple) -> tuple:
    return (a[0] + b[0], a[1] + b[1])


def _max_min(a: tuple, b: tuple) -> tuple:
    return (max(a[0], b[0]), min(a[1], b[1]))


def _pre_pair(name: str, make: Callable[[Any], tuple]) -> Callable[[Any], Any]:
    check = _number(name)

    def pre(value: Any) -> Any:
        checked = check(value)
        return NULL if checked is NULL else make(checked)

    return pre


def _identity(value: Any) -> Any:
    return value


def _max(a: Any, b: Any) -> Any:
    # the identity -∞ gives way to any value, so that max also folds strings
    return b if a == -math.inf else a if b == -math.inf else max(a, b)


def _min(a: Any, b: Any) -> Any:
    return b if a == math.inf else a if b == math.inf else min(a, b)


BUILTIN: tuple[Aggregator, ...] = (
    Aggregator("sum", lambda a, b: a + b, 0, _number("sum"), _identity, "(ℤ, +, 0), strong"),
    Aggregator("count", lambda a, b: a + b, 0, lambda _value: 1, _identity,
               "(ℕ, +, 0) after f' ≡ 1: counts events, NULL values included"),
    Aggregator("max", _max, -math.inf, _ordered("max"), _identity, "(D ∪ {-∞}, max, -∞), strong"),
    Aggregator("min", _min, math.inf, _ordered("min"), _identity, "(D ∪ {∞}, min, ∞), strong"),
    Aggregator("avg", _pair_sum, (0, 0), _pre_pair("avg", lambda v: (v, 1)),
               lambda sc: sc[0] / sc[1] if sc[1] else NULL, "(s, c) ↦ s / c after h(x) = (x, 1); NULL when empty"),
    Aggregator("range", _max_min, (-math.inf, math.inf), _pre_pair("range", lambda v: (v, v)),
               lambda mm: mm[0] - mm[1] if mm[0] >= mm[1] else NULL,
               "(M, m) ↦ M − m after h(x) = (x, x) with (max, min); NULL when empty"),
)

_REGISTRY: dict[str, Aggregator] = {agg.name: agg for agg in BUILTIN}


def aggregator(name: str) -> Aggregator:
    """The aggregate called ``name`` (case-insensitive), or a clear error listing the known ones."""
    try:
        return _REGISTRY[name.lower()]
    except KeyError:
        raise AggregateError(f"unknown aggregate {name!r}; known: {', '.join(sorted(_REGISTRY))}") from None


def register_aggregator(agg: Aggregator) -> None:
    """Make a user-defined aggregate known by its (lower-case) name; a built-in cannot be replaced."""
    key = agg.name.lower()
    if key in {b.name for b in BUILTIN}:
        raise AggregateError(f"{agg.name!r} is a built-in aggregate and cannot be replaced")
    _REGISTRY[key] = agg


def aggregate_names() -> list[str]:
    return sorted(_REGISTRY)


def json_value(value: Any) -> Any:
    """A data value as JSON: ``NULL`` is ``null``; the infinite identities are the strings ``"inf"``/``"-inf"``
    (JSON has no infinity)."""
    if value is NULL:
        return None
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value
