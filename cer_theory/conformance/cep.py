"""Flink CEP's Pattern API as data, and an executable model of its documented semantics.

A :class:`CepPattern` is the small JSON AST the Java driver (``java/CerFlinkCepDriver.java``) builds a
``org.apache.flink.cep.pattern.Pattern`` from: stages in order, each with the edge that joins it to the stage
before (``begin``, ``next``, ``followedBy``, ``followedByAny``, ``notNext``, ``notFollowedBy``), a condition over one
event, a quantifier (``oneOrMore``/``times``/``timesOrMore`` with the loop's inner contiguity: relaxed,
``consecutive()`` or ``allowCombinations()``), ``optional()`` and ``greedy()``, plus ``within`` and the
``AfterMatchSkipStrategy``.

:func:`model_matches` is the model: the matches a pattern has on one stream, by brute force over the documented
rules of Flink's CEP library (the Apache Flink documentation, *FlinkCEP — Complex event processing for Flink*,
sections "Combining Patterns" (contiguity), "Individual Patterns" (quantifiers, ``consecutive``,
``allowCombinations``) and "After Match Skip Strategy"):

* **contiguity** between the last event ``a`` of a stage and the first event ``b`` of the next one, counted in the
  partition's (key's) own order: ``next`` (strict) — ``b`` is the event right after ``a``; ``followedBy``
  (relaxed) — no event between them satisfies the next stage's condition (non-matching events are ignored, the
  first matching one is taken); ``followedByAny`` (non-deterministic relaxed) — any later event;
* **inside a loop**, between two events it takes: relaxed (the default) as ``followedBy``, ``consecutive()`` as
  ``next``, ``allowCombinations()`` as ``followedByAny``; a stage takes between ``min`` and ``max`` events, each
  satisfying its condition; every way out of a loop is a match of its own (``b+`` as the last stage reports
  ``b``, ``b b``, …);
* ``optional()``: the stage may take no event, and the next stage's edge then joins that stage to the last event
  taken; ``notNext`` (between two stages): the event right after the last one taken does not satisfy its
  condition; ``notFollowedBy`` (between two stages): no event between the last one taken and the next stage's
  first does; ``greedy()`` on a loop: no event after the loop's last one, up to and including the next stage's
  first, satisfies the loop's condition (the loop takes it; the documentation: "repeat as many as possible");
* **within(w)** keeps a match whose last event's timestamp is less than ``w`` after its first event's;
* a match is emitted at its last event; matches completed at one event come in the order of their position lists
  (earliest start first, then the earliest second event, …), and the **skip strategy** then prunes:
  ``noSkip`` none, ``skipPastLastEvent`` every match starting at or before the last event of an emitted one,
  ``skipToNext`` every match starting at or before its first event.

Where the model and Flink part, the model is wrong or Flink is: the conformance run says which (a difference
the model reproduces is *explained*; docs/conformance.md, "Flink CEP").
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

EDGES = ("begin", "next", "followedBy", "followedByAny", "notNext", "notFollowedBy")
NEGATIONS = ("notNext", "notFollowedBy")
INNER = ("relaxed", "consecutive", "allowCombinations")
SKIPS = ("noSkip", "skipPastLastEvent", "skipToNext")
CMP_OPS = ("=", "!=", "<", "<=", ">", ">=")

Condition = Mapping[str, Any]
"""A condition over one event, as JSON: ``{"op": "true"}``, ``{"op": "type", "types": [...]}``, ``{"op": "and" |
"or", "args": [...]}``, ``{"op": "not", "arg": ...}``, ``{"op": "cmp", "attr": a, "cmp": op, "value": v}``."""

TRUE: Condition = {"op": "true"}


@dataclass(frozen=True)
class Quantifier:
    """``oneOrMore()`` (min 1, max None), ``timesOrMore(n)``, ``times(n)`` or ``times(n, m)``; ``inner``: the
    contiguity between the loop's own events."""

    min: int = 1
    max: int | None = None
    inner: str = "relaxed"

    def to_json(self) -> dict[str, Any]:
        return {"min": self.min, "max": self.max, "inner": self.inner}


@dataclass(frozen=True)
class Stage:
    name: str
    edge: str
    where: Condition = field(default_factory=lambda: TRUE)
    quantifier: Quantifier | None = None
    optional: bool = False
    greedy: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "edge": self.edge, "where": self.where}
        if self.quantifier is not None:
            out["quantifier"] = self.quantifier.to_json()
        if self.optional:
            out["optional"] = True
        if self.greedy:
            out["greedy"] = True
        return out


@dataclass(frozen=True)
class CepPattern:
    """A pattern sequence; ``within`` in milliseconds of event time, ``skip`` the AfterMatchSkipStrategy."""

    stages: tuple[Stage, ...]
    within: int | None = None
    skip: str = "noSkip"

    def to_json(self) -> dict[str, Any]:
        return {"stages": [s.to_json() for s in self.stages], "within": self.within, "skip": {"kind": self.skip}}

    def java(self, event_class: str = "Ev") -> str:
        """The Pattern API calls that build this pattern, as Java source (for the reproduction files)."""
        out = ""
        for s in self.stages:
            if s.edge == "begin":
                skip = {"noSkip": "noSkip()", "skipPastLastEvent": "skipPastLastEvent()",
                        "skipToNext": "skipToNext()"}[self.skip]
                out += f"Pattern.<{event_class}>begin(\"{s.name}\", AfterMatchSkipStrategy.{skip})"
            else:
                out += f"\n    .{s.edge}(\"{s.name}\")"
            out += f"\n    .where(SimpleCondition.of(e -> {java_condition(s.where)}))"
            q = s.quantifier
            if q is not None:
                out += (".oneOrMore()" if q.max is None and q.min == 1 else f".timesOrMore({q.min})" if q.max is None
                        else f".times({q.min})" if q.max == q.min else f".times({q.min}, {q.max})")
                out += {"relaxed": "", "consecutive": ".consecutive()",
                        "allowCombinations": ".allowCombinations()"}[q.inner]
            if s.optional:
                out += ".optional()"
            if s.greedy:
                out += ".greedy()"
        if self.within is not None:
            out += f"\n    .within(Duration.ofMillis({self.within}))"
        return out


def java_condition(c: Condition) -> str:
    """A condition as a Java boolean expression over an event ``e`` (``e.type``, ``e.num(a)``, ``e.str(a)``)."""
    op = c["op"]
    if op == "true":
        return "true"
    if op == "type":
        return "(" + " || ".join(f"e.type.equals(\"{t}\")" for t in c["types"]) + ")"
    if op in ("and", "or"):
        return "(" + f" {'&&' if op == 'and' else '||'} ".join(java_condition(a) for a in c["args"]) + ")"
    if op == "not":
        return f"!{java_condition(c['arg'])}"
    value, attr, cmp = c["value"], c["attr"], c["cmp"]
    if isinstance(value, str):
        test = f"e.str(\"{attr}\").compareTo(\"{value}\")"
        return f"(e.str(\"{attr}\") != null && {test} {_JAVA_CMP[cmp]} 0)"
    return f"(e.num(\"{attr}\") != null && e.num(\"{attr}\") {_JAVA_CMP[cmp]} {value}L)"


_JAVA_CMP = {"=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


# ---------------------------------------------------------------------------------------------- the model


def holds(c: Condition, event: Mapping[str, Any]) -> bool:
    """Whether an event (``type`` and attributes) satisfies a condition; a comparison with a missing attribute or
    a value of the other kind (number against string) is false, as the driver's."""
    op = c["op"]
    if op == "true":
        return True
    if op == "type":
        return event["type"] in c["types"]
    if op == "and":
        return all(holds(a, event) for a in c["args"])
    if op == "or":
        return any(holds(a, event) for a in c["args"])
    if op == "not":
        return not holds(c["arg"], event)
    v, value = event.get(c["attr"]), c["value"]
    if v is None or isinstance(v, bool) or isinstance(value, str) != isinstance(v, str):
        return False
    return {"=": v == value, "!=": v != value, "<": v < value, "<=": v <= value, ">": v > value,
            ">=": v >= value}[c["cmp"]]


Match = tuple[tuple[int, ...], ...]
"""A match: for each stage, the positions (in the stream) of the events it took."""


def _allowed(kind: str, cond: Condition, between: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the events ``between`` two taken events (of one key) may be skipped under contiguity ``kind``
    with the later event's stage condition ``cond``."""
    if kind in ("next", "consecutive"):
        return not between
    if kind in ("followedBy", "relaxed"):
        return not any(holds(cond, e) for e in between)
    return True  # followedByAny, allowCombinations


def _stage_runs(pattern: CepPattern, events: Sequence[Mapping[str, Any]], k: int, after: int | None,
                negations: tuple[tuple[str, Condition], ...] = ()) -> Iterator[tuple[tuple[int, ...], ...]]:
    """Every way stages k.. take events of ``events`` (one key's, in order) after index ``after``;
    ``negations``: the ``notNext``/``notFollowedBy`` stages met since that event."""
    if k == len(pattern.stages):
        yield ()
        return
    stage = pattern.stages[k]
    if stage.edge in NEGATIONS:
        for rest in _stage_runs(pattern, events, k + 1, after, negations + ((stage.edge, stage.where),)):
            yield ((),) + rest
        return
    if stage.optional:  # skipped: the next stage's edge then joins it to the last event taken
        for rest in _stage_runs(pattern, events, k + 1, after, negations):
            yield ((),) + rest
    q = stage.quantifier or Quantifier(1, 1)
    fits = [i for i in range(0 if after is None else after + 1, len(events)) if holds(stage.where, events[i])]
    for size in range(max(q.min, 1), (len(fits) if q.max is None else min(q.max, len(fits))) + 1):
        for taken in itertools.combinations(fits, size):
            if after is not None:
                gap = events[after + 1:taken[0]]
                if not _allowed(stage.edge, stage.where, gap):
                    continue
                if any(holds(c, events[after + 1]) if kind == "notNext" else any(holds(c, e) for e in gap)
                       for kind, c in negations):
                    continue
            if not all(_allowed(q.inner, stage.where, events[a + 1:b]) for a, b in zip(taken, taken[1:])):
                continue
            if k > 0 and after is not None and pattern.stages[k - 1].greedy and any(
                    holds(pattern.stages[k - 1].where, e) for e in events[after + 1:taken[0] + 1]):
                continue  # after a greedy loop, an event the loop accepts is the loop's: not skipped, not taken
            for rest in _stage_runs(pattern, events, k + 1, taken[-1]):
                yield (taken,) + rest


def model_matches(pattern: CepPattern, events: Sequence[Mapping[str, Any]], *, keys: Sequence[Any],
                  timestamps: Sequence[int]) -> list[Match]:
    """The matches Flink CEP emits (the module docstring), in emission order, over a stream of event dicts
    (``type`` and attributes) with each event's partition key and event-time timestamp; positions are indices
    of ``events``. Events of one key are matched among themselves."""
    for s in pattern.stages:
        if s.edge not in EDGES or (s.quantifier is not None and s.quantifier.inner not in INNER):
            raise ValueError(f"the model has no rule for stage {s}")
    if pattern.stages[-1].edge in NEGATIONS or pattern.stages[0].edge != "begin":
        raise ValueError("the model has no rule for a negation at the end, or a pattern not starting with begin")
    if pattern.skip not in SKIPS:
        raise ValueError(f"the model has no rule for the skip strategy {pattern.skip}")
    out: list[Match] = []
    for key in dict.fromkeys(keys):
        positions = [p for p, k in enumerate(keys) if k == key]
        mine = [events[p] for p in positions]
        found: list[Match] = []
        for run in _stage_runs(pattern, mine, 0, None):
            match = tuple(tuple(positions[i] for i in taken) for taken in run)
            taken_all = [p for ps in match for p in ps]
            if not taken_all:
                continue  # every stage optional and skipped: no match
            first, last = taken_all[0], taken_all[-1]
            if pattern.within is None or timestamps[last] - timestamps[first] < pattern.within:
                found.append(match)
        found.sort(key=lambda m: (max(p for ps in m for p in ps), sorted(p for ps in m for p in ps)))
        floor = -1  # a match starting at or before this position has been pruned
        for m in found:
            start, end = min(p for ps in m for p in ps), max(p for ps in m for p in ps)
            if start <= floor:
                continue
            out.append(m)
            if pattern.skip == "skipPastLastEvent":
                floor = end
            elif pattern.skip == "skipToNext":
                floor = start
    return out


# ---------------------------------------------------------------------------------------------- native patterns

_CONDITIONS = st.one_of(
    st.sampled_from("RTU").map(lambda t: {"op": "type", "types": [t]}),
    st.sampled_from(("RT", "TU", "RU")).map(lambda t: {"op": "type", "types": list(t)}),
    st.tuples(st.sampled_from("RTU"), st.sampled_from(CMP_OPS), st.integers(0, 3)).map(
        lambda a: {"op": "and", "args": [{"op": "type", "types": [a[0]]},
                                         {"op": "cmp", "attr": "x", "cmp": a[1], "value": a[2]}]}))
_QUANTIFIERS = st.one_of(st.none(), st.builds(
    lambda lo, hi, inner: Quantifier(lo, None if hi is None else max(lo, hi), inner),
    st.integers(1, 2), st.one_of(st.none(), st.integers(1, 3)), st.sampled_from(INNER)))


@st.composite
def native_patterns(draw: st.DrawFn) -> CepPattern:
    """Flink CEP patterns beyond what CEQL translates to: every edge (``notNext`` and ``notFollowedBy`` between two
    positive stages), ``times``/``timesOrMore`` loops in every inner contiguity, ``optional()``, ``within`` and
    every skip strategy the model has, over R, T, U events with ``x``."""
    n = draw(st.integers(1, 4))
    stages = []
    for k in range(n):
        edges = ("begin",) if k == 0 else EDGES[1:] if 0 < k < n - 1 and stages[-1].edge not in NEGATIONS \
            else EDGES[1:4]  # a negation neither first, last, nor right after another
        edge = draw(st.sampled_from(edges))
        positive = edge not in NEGATIONS
        quantifier = draw(_QUANTIFIERS) if positive else None
        stages.append(Stage(f"e{k}", edge, draw(_CONDITIONS), quantifier, positive and draw(st.integers(0, 5)) == 0,
                            quantifier is not None and k < n - 1 and draw(st.integers(0, 3)) == 0))
    return CepPattern(tuple(stages), draw(st.one_of(st.none(), st.integers(1, 5))), draw(st.sampled_from(SKIPS)))


__all__ = ["CMP_OPS", "CepPattern", "Condition", "EDGES", "INNER", "NEGATIONS", "Match", "Quantifier", "SKIPS", "Stage", "TRUE",
           "holds", "java_condition", "model_matches", "native_patterns"]
