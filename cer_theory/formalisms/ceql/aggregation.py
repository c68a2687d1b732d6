"""Aggregates of CEQL matches: the ACEL paper's ``Agg`` operator applied to one match (aggregation paper, *A formal
query language and automata model for aggregation in complex event recognition*, §4–5).

``SELECT s1, SUM(b.volume) AS vol … HAVING vol > 100`` reads, in the ACEL paper's terms, as
``FILTER M[vol > 100](AGG M[vol <- sum(b.volume)](φ))`` projected on ``s1`` and ``M``: for each match (a
valuation μ of the WHERE pattern, the CORE paper Fig. 2), ``Agg`` folds each aggregate's monoid
(:mod:`cer_theory.core.aggregates`, Lemma 4.1) over the attribute values of the events bound to its variable, and
creates one event whose attributes are the results (§5, the created event has no type); ``HAVING`` is a filter on
that created event. The empty bag gives the monoid's identity (``SUM`` 0, ``COUNT`` 0, ``MAX`` -inf, ``AVG`` NULL;
docs/decisions.md D65); a missing attribute is ``NULL``, which absorbs (value structure (†) of §4).

**A variable's events** (docs/decisions.md D75): CEQL valuations map a variable to a *set* of positions (the CORE paper
Fig. 2: ``AS`` and ``;`` take unions), so an event bound twice to the same variable — ``(B AS b) AS b`` — is in
its bag once: the bag of ``b`` is ``{{ t_p | p ∈ μ(b) }}`` in stream order, the ACEL paper's ``set`` binding mode, not its
literal bag mode. Values are folded in stream order (float sums are then reproducible).

**Type errors** (D76): a value of the wrong kind (the sum of strings, a number and a string under ``MAX``) raises
:class:`~cer_theory.core.errors.AggregateError` naming the aggregate and the stream position, never a NULL: a
silent NULL would hide a schema error that every match of the query repeats.

:func:`match_aggregates` is the reference for one match, shared by the CEQL semantics and cross-checks against
ACEL; the engine folds the same way through :func:`fold_positions` over its decoded positions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from cer_theory.core.aggregates import NULL, json_value
from cer_theory.core.errors import AggregateError
from cer_theory.core.events import TYPE_KEY, Event
from cer_theory.core.predicates.ast import Predicate
from cer_theory.formalisms.ceql.ast import AggregateItem
from cer_theory.formalisms.ceql.printer import format_aggregate


class CreatedEvent:
    """The event ``Agg`` creates (the ACEL paper §5): no type, one attribute per alias; a ``NULL`` value is an absent
    attribute, so every comparison on it is false in HAVING (the predicate language's reading of a missing
    attribute)."""

    __slots__ = ("values",)
    type = ""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self.values = {k: v for k, v in values.items() if v is not NULL}

    def get(self, name: str) -> Any:
        return self.values.get(name)

    def __repr__(self) -> str:
        return f"CreatedEvent({self.values!r})"


Fold = Callable[[Sequence[Event], Sequence[int]], Any]
"""``fold(events, positions)``: one aggregate's value over a variable's events (their positions name errors)."""


def compile_fold(item: AggregateItem) -> Fold:
    """The fold of one aggregate, ``g(⊕_{t ∈ bag} f'(t.a))`` over a variable's events in the order given (stream
    order), as a closure with the monoid looked up once (the engine calls it per match). A missing attribute is
    NULL, which absorbs (the fold stops there); a value of the wrong kind is an :class:`AggregateError` naming
    the aggregate and the stream position (D76). ``COUNT(b)`` reads no attribute."""
    agg = item.aggregator
    attribute, operation, pre, post, identity = item.attribute, agg.operation, agg.pre, agg.post, agg.identity
    label = format_aggregate(item)
    by_type = attribute == TYPE_KEY

    def fold(events: Sequence[Event], positions: Sequence[int]) -> Any:
        acc = identity
        k = -1
        try:
            for k, e in enumerate(events):
                value = NULL
                if attribute is not None:
                    found = e.type if by_type else e._values.get(attribute)
                    if found is not None:
                        value = found
                lifted = pre(value)
                if lifted is NULL:
                    return NULL
                acc = operation(acc, lifted)
            return NULL if acc is NULL else post(acc)
        except AggregateError as exc:
            raise AggregateError(f"{label}: {exc}, at stream position {positions[k]}") from None
        except (TypeError, ArithmeticError) as exc:  # e.g. max over a number and a string
            where = f" with the value at stream position {positions[k]}" if k >= 0 else ""
            raise AggregateError(f"{label}: {agg.name} cannot combine {acc!r}{where}: {exc}") from None

    return fold


def fold_positions(item: AggregateItem, positions: Sequence[int], event_at: Callable[[int], Event]) -> Any:
    """:func:`compile_fold` of ``item`` over the events at ``positions``."""
    return compile_fold(item)([event_at(p) for p in positions], positions)


def match_aggregates(items: Sequence[AggregateItem], stream: Sequence[Event], valuation: Mapping[str, Iterable[int]]
                     ) -> tuple:
    """The ACEL paper's ``Agg`` on one match: the value of each aggregate of ``items`` (in order) for the valuation
    ``μ`` (variable → positions of ``stream``), each folded over the events of ``μ(var)`` in stream order; a
    variable the match leaves unbound has the empty bag (the monoid's identity)."""
    return tuple(fold_positions(it, sorted(valuation.get(it.variable, ())), stream.__getitem__) for it in items)


def having_holds(having: Predicate | None, items: Sequence[AggregateItem], values: Sequence[Any]) -> bool:
    """``HAVING`` on the created event of one match: the condition over the aliases (True without HAVING)."""
    if having is None:
        return True
    return having(CreatedEvent({it.alias: v for it, v in zip(items, values)}))  # type: ignore[arg-type]


def aggregates_json(items: Sequence[AggregateItem], values: Sequence[Any]) -> dict[str, Any]:
    """``{"vol": 12000, …}``: the aggregate values as JSON (NULL → null, ±inf → "inf"/"-inf")."""
    return {it.alias: json_value(v) for it, v in zip(items, values)}


__all__ = ["CreatedEvent", "Fold", "compile_fold", "fold_positions", "match_aggregates", "having_holds", "aggregates_json"]
