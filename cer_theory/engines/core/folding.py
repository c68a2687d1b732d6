"""Decoding an enumerated path and folding its aggregates in one generated function (docs/decisions.md D77).

The engine enumerates paths of encoded positions (``pos = j · width + code``,
:mod:`cer_theory.engines.core.labelled`). For each path it needs D, D's events and the value of every aggregate,
the ACEL paper's ``Agg`` (aggregation paper §4–5) over the events each aggregated variable binds. :func:`compile_decoder`
writes that loop once per query, as :func:`cer_theory.core.predicates.masks.compile_mask` writes the bit-vector
function: one branch per letter, and in it the monoid step of each aggregate whose variable the letter binds.
``SUM``/``COUNT``/``MAX``/``MIN`` over numbers take an inline step. Every other case (other aggregates, a
``NULL`` or a value of another kind) goes through :func:`_slow_step`, the exact step of
:func:`cer_theory.formalisms.ceql.aggregation.compile_fold`, with the same NULL absorption and the same errors.
The engine's differential test checks the result against the reference semantics.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cer_theory.core.aggregates import NULL
from cer_theory.core.errors import AggregateError
from cer_theory.core.events import TYPE_KEY, Event
from cer_theory.formalisms.ceql.ast import AggregateItem
from cer_theory.formalisms.ceql.printer import format_aggregate

Decoder = Callable[[Sequence[int], Callable[[int], Event]], tuple[list[int], list[Event], tuple]]
"""``decode(encoded positions, event_at) -> (D, D's events, aggregate values)``."""

_INLINE = {"SUM": "{a} += v", "MAX": "if v > {a}: {a} = v", "MIN": "if v < {a}: {a} = v"}
"""Inline monoid steps over numbers (``max``/``min`` keep the first maximum, as the kernel's do)."""


def _slow_step(item: AggregateItem) -> Callable[[Any, Any, int], Any]:
    """One step of :func:`~cer_theory.formalisms.ceql.aggregation.compile_fold`: ``acc ⊕ f'(value)`` with NULL
    absorbing and the same error messages."""
    agg = item.aggregator
    pre, operation, label = agg.pre, agg.operation, format_aggregate(item)

    def step(acc: Any, value: Any, position: int) -> Any:
        try:
            lifted = pre(NULL if value is None else value)
            return NULL if lifted is NULL else operation(acc, lifted)
        except AggregateError as exc:
            raise AggregateError(f"{label}: {exc}, at stream position {position}") from None
        except (TypeError, ArithmeticError) as exc:
            raise AggregateError(f"{label}: {agg.name} cannot combine {acc!r} with the value at stream position "
                                 f"{position}: {exc}") from None

    return step


def _finish(item: AggregateItem) -> Callable[[Any], Any]:
    agg = item.aggregator
    post, label = agg.post, format_aggregate(item)

    def finish(acc: Any) -> Any:
        if acc is NULL:
            return NULL
        try:
            return post(acc)
        except (TypeError, ArithmeticError) as exc:
            raise AggregateError(f"{label}: {exc}") from None

    return finish


def compile_decoder(codes: Sequence[tuple[bool, tuple[int, ...]]], width: int, items: Sequence[AggregateItem],
                    slots: Sequence[int]) -> Decoder:
    """The decoder of one query: ``codes[c] = (in D, aggregated-variable indices)`` for letter code c,
    ``slots[k]`` the variable index of ``items[k]``."""
    ns: dict[str, Any] = {"NULL": NULL}
    lines = ["def decode(encoded, event_at):", "    data = []", "    evs = []"]
    for k, item in enumerate(items):
        ns[f"I{k}"] = item.aggregator.identity
        lines.append(f"    a{k} = I{k}")
    lines += ["    for p in encoded:", f"        j = p // {width}", f"        c = p - j * {width}",
              "        e = event_at(j)"]
    first = True
    for c, (in_data, variables) in enumerate(codes):
        body: list[str] = []
        if in_data:
            body += ["data.append(j)", "evs.append(e)"]
        for k, item in enumerate(items):
            if slots[k] not in variables:
                continue
            a = f"a{k}"
            if item.function == "COUNT":
                body.append(f"{a} += 1")  # count's pre-map is 1 whatever the value: never NULL
                continue
            attr = item.attribute
            read = "e.type" if attr == TYPE_KEY else f"e._values.get({attr!r})"
            ns[f"S{k}"] = _slow_step(item)
            body += [f"if {a} is not NULL:", f"    v = {read}"]
            inline = _INLINE.get(item.function)
            if inline is None:
                body.append(f"    {a} = S{k}({a}, v, j)")
            else:
                body += [f"    if (v.__class__ is int or v.__class__ is float) and "
                         f"({a}.__class__ is int or {a}.__class__ is float):",
                         "        " + inline.format(a=a),
                         "    else:", f"        {a} = S{k}({a}, v, j)"]
        if not body:
            continue
        lines.append(f"        {'if' if first else 'elif'} c == {c}:")
        first = False
        for b in body:
            lines += ["            " + x for x in b.split("\n")]
    results = []
    for k, item in enumerate(items):
        if item.function in ("SUM", "COUNT", "MAX", "MIN"):  # post-map the identity; NULL stays NULL
            results.append(f"a{k}")
        else:
            ns[f"F{k}"] = _finish(item)
            results.append(f"F{k}(a{k})")
    lines.append(f"    return data, evs, ({', '.join(results)}{',' if len(results) == 1 else ''})")
    source = "\n".join(lines) + "\n"
    exec(compile(source, "<cer_theory.engines.core.folding>", "exec"), ns)
    decode: Decoder = ns["decode"]
    decode.source = source  # type: ignore[attr-defined]
    return decode


__all__ = ["Decoder", "compile_decoder"]
