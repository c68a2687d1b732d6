"""The ``flink-cep`` dialect: CEQL queries (the CORE paper §2; CEL's operators and the CEL paper's selection
strategies, §7.1) translated to Flink CEP patterns (:mod:`.cep`), each translation stating when it is exact.

A pattern in the translatable fragment is a chain ``e1 op e2 op … ek`` (``op`` is ``;`` or ``:``) of *elements*,
each an event type or an OR of event types, possibly under ``+`` or ``:+``, with AS and FILTER anywhere as long as
every FILTER is a conjunction of ``var[body]`` blocks whose bodies compare one attribute with a constant (and
NOT/AND/OR of such). A filter then becomes a condition on the events of the elements it names (the CEL paper §4's
universal reading: each event bound to ``var`` satisfies the body), and each element one Flink stage.

The correspondences (docs/conformance.md, "Flink CEP", has the table; decisions D370–D375):

==============================  ====================================  ==================================
CEQL                            Flink CEP                             exact when
==============================  ====================================  ==================================
``e1 ; e2`` (ALL, ANY)          ``followedByAny`` (non-deterministic  always (skip-till-any-match is CEL's
                                relaxed contiguity)                   sequencing without a strategy)
``e1 : e2``                     ``next`` (strict contiguity)          always
``e+`` (ALL, ANY)               ``oneOrMore().allowCombinations()``   always
``e :+``                        ``oneOrMore().consecutive()``         always
SELECT STRICT                   every edge ``next``, every loop       always (a gap-free D is a chain of
                                ``consecutive()``                     adjacent events, in the partition)
CONSUME BY ANY / PARTITION      ``skipPastLastEvent()``               with SELECT NEXT, without WITHIN,
                                                                      and (ANY) without PARTITION BY
SELECT NEXT (with CONSUME BY)   as ALL, ``skipPastLastEvent()``       as the line above
PARTITION BY                    ``keyBy`` on the attributes           always
WITHIN n EVENTS                 ``within(n+1 ms)``, timestamp =       always
                                position
WITHIN n SECONDS / n [time]     ``within((n+1)·10⁶ ms)``, timestamp   always (integer times)
                                = time·10⁶ + position
==============================  ====================================  ==================================

``followedBy`` (relaxed contiguity, skip-till-next-match) and a relaxed ``oneOrMore()`` correspond to no CEL
strategy: NXT chooses among the complex events that *end* at a position, skip-till-next-match among the
continuations of one partial match, from its *start*; they are not produced by the translation (the model and the
driver still run them). SELECT LAST and MAX, SELECT NEXT without CONSUME BY, projections (SELECT lists), LIMIT,
aggregates and OR or sequences under ``+`` are refused as untranslatable (:class:`Untranslatable`).

Where a translation is not exact, a *departure* names the reason and the difference is explained only when the
executable model of Flink CEP (:func:`~cer_theory.conformance.cep.model_matches`) reproduces Flink's output:

* ``skip-emits-one`` — CONSUME BY under ALL, ANY or STRICT: CEQL reports every complex event ending at the
  position where the consumption happens, Flink's skip strategy one match (the first) and prunes the rest;
* ``window-before-selection`` — SELECT NEXT with CONSUME BY and WITHIN: CEQL chooses NXT's complex event, then the
  window may drop it (and nothing is consumed); Flink drops the partial matches out of the window first;
* ``skip-per-key`` — CONSUME BY ANY with PARTITION BY: CEQL forgets every partition's runs, Flink's skip strategy
  prunes only the partial matches of the emitting key.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from cer_theory.core.events import Event, Stream
from cer_theory.core.predicates.ast import And, Attr, Cmp, Const, Not, On, Or, Predicate
from cer_theory.core.windows import Window
from cer_theory.formalisms.cel.ast import Atom, Contig, CPlus, Disj, Filter, Formula, In, Plus, Seq, variables
from cer_theory.formalisms.ceql.ast import Query
from cer_theory.testing.harness import conformance_cases
from cer_theory.conformance.cep import CepPattern, Condition, Quantifier, Stage, model_matches
from cer_theory.testing.strategies.ceql import timestamped
from cer_theory.conformance.protocol import Case, ComplexEvent, EngineRefusal

TIME_SCALE = 1_000_000
"""Under a time window an event's timestamp is ``time · TIME_SCALE + position`` (milliseconds), so that equal
times stay in stream order and a window of n seconds is ``within((n + 1) · TIME_SCALE)``: it admits exactly the
pairs whose times differ by at most n (streams have fewer than TIME_SCALE events)."""

DEPARTURES = {
    "skip-emits-one": "CONSUME BY under ALL, ANY or STRICT: CEQL reports every complex event ending where it "
                      "consumes, Flink's skipPastLastEvent the first match and prunes the others",
    "window-before-selection": "SELECT NEXT with CONSUME BY and WITHIN: CEQL chooses, then windows; Flink windows "
                               "its partial matches before one is chosen",
    "skip-per-key": "CONSUME BY ANY with PARTITION BY: CEQL forgets the runs of every partition, Flink's skip "
                    "strategy prunes the emitting key's only",
}


class Untranslatable(EngineRefusal):
    """The query (or the stream) is outside the fragment the dialect translates to Flink CEP: the case is
    *refused* (no answer), never compared."""


@dataclass(frozen=True)
class Branch:
    """One event type an element accepts, the variables its events are bound to, and the filter bodies they
    must satisfy."""

    type: str
    labels: frozenset[str]
    conditions: tuple[Condition, ...] = ()


@dataclass(frozen=True)
class Element:
    branches: tuple[Branch, ...]
    loop: str | None = None  # None, "+" or ":+"

    def condition(self) -> Condition:
        parts = []
        for b in self.branches:
            parts.append(_and([{"op": "type", "types": [b.type]}, *b.conditions]))
        return parts[0] if len(parts) == 1 else {"op": "or", "args": parts}


def _and(conditions: Sequence[Condition]) -> Condition:
    return conditions[0] if len(conditions) == 1 else {"op": "and", "args": list(conditions)}


@dataclass(frozen=True)
class Translation:
    """A query's Flink pattern, how events are keyed and stamped, and the departures that may apply."""

    pattern: CepPattern
    partition_by: tuple[str, ...] = ()
    time_window: bool = False
    departures: tuple[str, ...] = field(default=())

    def events(self, events: Sequence[Event]) -> list[dict[str, Any]]:
        """The driver's events: position, timestamp, key, type and attributes (integers and strings only);
        an event without a partition attribute is in no partition, and not sent."""
        out = []
        for p, e in enumerate(events):
            attrs = {k: v for k, v in e.to_dict().items() if k != "type"}
            for k, v in attrs.items():
                if isinstance(v, bool) or not isinstance(v, (int, str)):
                    raise Untranslatable(f"the driver carries integer and string attributes, not {k}={v!r}")
            if any(attrs.get(a) is None for a in self.partition_by):
                continue
            key = json.dumps([attrs[a] for a in self.partition_by])
            if self.time_window:
                t = attrs.get("time")
                if not isinstance(t, int) or t < 0 or len(events) >= TIME_SCALE:
                    raise Untranslatable(f"a time window needs whole non-negative times, event {p} has {t!r}")
                ts = t * TIME_SCALE + p
            else:
                ts = p
            out.append({"pos": p, "ts": ts, "key": key, "type": e.type, "attrs": attrs})
        return out


# ---------------------------------------------------------------------------------------------- conditions


def body_condition(p: Predicate) -> Condition:
    """A FILTER body over one event as a driver condition: ``attr op constant`` (either side), NOT, AND, OR."""
    if isinstance(p, Not):
        return {"op": "not", "arg": body_condition(p.arg)}
    if isinstance(p, (And, Or)):
        return {"op": "and" if isinstance(p, And) else "or", "args": [body_condition(a) for a in p.args]}
    if isinstance(p, Cmp):
        flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}
        left, op, right = p.left, p.op, p.right
        if isinstance(left, Const) and isinstance(right, Attr):
            left, op, right = right, flip[op], left
        if isinstance(left, Attr) and left.slot is None and isinstance(right, Const):
            v = right.value
            if isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)):
                return {"op": "cmp", "attr": left.name, "cmp": op, "value": v}
    raise Untranslatable(f"the filter body {p} is not a comparison of an attribute with an integer or a string")


def _blocks(p: Predicate) -> list[On]:
    """A FILTER condition as its ``var[body]`` blocks, when it is their conjunction."""
    if isinstance(p, On):
        return [p]
    if isinstance(p, And):
        return [b for a in p.args for b in _blocks(a)]
    raise Untranslatable(f"the filter {p} is not a conjunction of var[...] blocks (an OR of blocks unions "
                         f"valuations, which no single condition per event expresses)")


# ---------------------------------------------------------------------------------------------- patterns


def elements(phi: Formula) -> tuple[list[Element], list[str]]:
    """The chain of elements of a pattern and the operators (``;``, ``:``) between them."""
    if isinstance(phi, Atom):
        return [Element((Branch(phi.name, frozenset({phi.name})),))], []
    if isinstance(phi, (Seq, Contig)):
        left, lops = elements(phi.left)
        right, rops = elements(phi.right)
        return left + right, lops + [";" if isinstance(phi, Seq) else ":"] + rops
    if isinstance(phi, In):
        els, ops = elements(phi.body)
        return [Element(tuple(Branch(b.type, b.labels | {phi.var}, b.conditions) for b in e.branches), e.loop)
                for e in els], ops
    if isinstance(phi, Filter):
        els, ops = elements(phi.body)
        for block in _blocks(phi.condition):
            cond = body_condition(block.body)
            els = [Element(tuple(Branch(b.type, b.labels, b.conditions + ((cond,) if block.var in b.labels else ()))
                                 for b in e.branches), e.loop) for e in els]
        return els, ops
    if isinstance(phi, Disj):
        left, right = _single(phi.left, "OR"), _single(phi.right, "OR")
        if left.loop or right.loop:
            raise Untranslatable(f"an OR of iterations ({phi}) is not one Flink stage")
        return [Element(left.branches + right.branches)], []
    if isinstance(phi, (Plus, CPlus)):
        body = _single(phi.body, "+")
        if body.loop:
            raise Untranslatable(f"a nested iteration ({phi}) is not one Flink stage")
        return [Element(body.branches, "+" if isinstance(phi, Plus) else ":+")], []
    raise Untranslatable(f"{type(phi).__name__} ({phi}) has no Flink CEP translation here")


def _single(phi: Formula, where: str) -> Element:
    els, _ = elements(phi)
    if len(els) != 1:
        raise Untranslatable(f"a sequence under {where} ({phi}) would need a group pattern")
    return els[0]


def translate(q: Query) -> Translation:
    """The Flink CEP pattern of a CEQL query (the module docstring), or :class:`Untranslatable`."""
    if q.select is not None:
        raise Untranslatable("SELECT with a list of variables (a projection) has no Flink CEP counterpart here")
    if q.limit is not None or q.aggregates or q.having is not None:
        raise Untranslatable("LIMIT, aggregates and HAVING have no Flink CEP counterpart here")
    consume = q.consume if q.consume in ("ANY", "PARTITION") else None
    strategy = q.strategy.upper()
    if strategy in ("LAST", "MAX") or (strategy == "NEXT" and consume is None):
        raise Untranslatable(f"SELECT {strategy}{'' if consume else ' without CONSUME BY'} chooses among the complex "
                             f"events ending at a position, which no Flink contiguity or skip strategy does")
    els, ops = elements(q.pattern)
    strict, nxt = strategy == "STRICT", strategy == "NEXT"
    stages = []
    for k, e in enumerate(els):
        # Under NEXT with consumption the first match completed at a position is the lexicographically least
        # (the model's order), and its events after a ';' are each the first that fits, unless the element is an
        # iteration or a ':' binds it to the element after (D372): there skip-till-next-match is exact.
        next_match = nxt and e.loop is None and (k + 1 == len(els) or ops[k] == ";")
        edge = ("begin" if k == 0 else "next" if strict or ops[k - 1] == ":" else
                "followedBy" if next_match else "followedByAny")
        quant = None
        if e.loop is not None:
            quant = Quantifier(1, None, "consecutive" if strict or e.loop == ":+" else "allowCombinations")
        stages.append(Stage(f"e{k}", edge, e.condition(), quant))
    within, time_window = None, False
    w: Window | None = q.within
    if w is not None:
        if w.strict or not isinstance(w.size, int) or isinstance(w.size, bool):
            raise Untranslatable(f"the window {w} is not a whole number of events or seconds")
        if w.kind == "events":
            within = w.size + 1
        elif w.kind == "time" or (w.kind == "attribute" and w.attribute == "time"):
            within, time_window = (w.size + 1) * TIME_SCALE, True
        else:
            raise Untranslatable(f"the window {w} reads an attribute other than time")
    partition = tuple(dict.fromkeys(a for group in q.partition_by for a in group))
    departures = []
    if consume is not None:
        if strategy != "NEXT":
            departures.append("skip-emits-one")
        elif within is not None:
            departures.append("window-before-selection")
        if consume == "ANY" and partition:
            departures.append("skip-per-key")
    pattern = CepPattern(tuple(stages), within, "skipPastLastEvent" if consume else "noSkip")
    return Translation(pattern, partition, time_window, tuple(departures))


def complex_events(matches: Sequence[dict[str, Sequence[int]]]) -> list[ComplexEvent]:
    """Flink's matches (variable → positions) as CORE's complex events ``([min, max], positions)``."""
    out = []
    for m in matches:
        positions = tuple(sorted(p for ps in m.values() for p in ps))
        out.append((positions[0], positions[-1], positions))
    return out


def model_complex_events(t: Translation, events: Sequence[Event]) -> list[ComplexEvent]:
    """What the executable model of Flink CEP (:func:`~cer_theory.conformance.cep.model_matches`) says Flink
    outputs for a translated case."""
    sent = t.events(events)
    ms = model_matches(t.pattern, [{"type": e["type"], **e["attrs"]} for e in sent], keys=[e["key"] for e in sent],
                       timestamps=[e["ts"] for e in sent])
    return complex_events([{f"e{k}": [sent[i]["pos"] for i in ps] for k, ps in enumerate(m)} for m in ms])


# ---------------------------------------------------------------------------------------------- generation

DECLARATIONS = "CREATE STREAM S { " + ", ".join(f"EVENT {t} {{ x:int, s:string, time:int }}"
                                               for t in ("R", "T", "U")) + " }"

_TESTS = st.builds(lambda op, v: Cmp(Attr("x"), op, Const(v)), st.sampled_from(["<=", ">=", "=", "!=", "<", ">"]),
                   st.sampled_from([0, 1, 2, 3]))
_BODIES = st.one_of(_TESTS, _TESTS, _TESTS.map(Not), st.lists(_TESTS, min_size=2, max_size=2).map(tuple).map(Or),
                    st.lists(_TESTS, min_size=2, max_size=2).map(tuple).map(And),
                    st.sampled_from(["ab", "b"]).map(lambda s: Cmp(Attr("s"), "=", Const(s))))


@st.composite
def _element(draw: st.DrawFn) -> Formula:
    types = st.sampled_from(("R", "T", "U"))
    phi: Formula = Atom(draw(types))
    if draw(st.integers(0, 4)) == 0:
        phi = Disj(phi, Atom(draw(types)))
    loop = draw(st.sampled_from([None, None, None, "+", "+", ":+"]))
    if loop is not None:
        phi = Plus(phi) if loop == "+" else CPlus(phi)
    if draw(st.integers(0, 5)) == 0:
        phi = In(phi, draw(st.sampled_from(("A", "B"))))
    return phi


@st.composite
def patterns(draw: st.DrawFn) -> Formula:
    """Chains of one to three elements with FILTER blocks: the translatable fragment (module docstring)."""
    phi = draw(_element())
    for _ in range(draw(st.sampled_from([0, 1, 1, 2, 2]))):
        right = draw(_element())
        phi = (Seq if draw(st.integers(0, 4)) < 3 else Contig)(phi, right)
    for _ in range(draw(st.sampled_from([0, 0, 1, 1, 2]))):
        var = draw(st.sampled_from(sorted(variables(phi))))
        phi = Filter(phi, On(var, draw(_BODIES)))
    return phi


@st.composite
def queries(draw: st.DrawFn) -> Query:
    """Translatable queries: every strategy and clause the dialect translates, exact or with a departure."""
    strategy, consume = draw(st.sampled_from([("ALL", None), ("ALL", None), ("ANY", None), ("STRICT", None),
                                              ("NEXT", "ANY"), ("NEXT", "PARTITION"), ("ALL", "ANY"),
                                              ("STRICT", "PARTITION"), ("ALL", "NONE")]))
    within = draw(st.one_of(st.none(), st.none(), st.builds(Window, st.just("events"), st.integers(0, 4)),
                            st.builds(Window, st.just("time"), st.integers(0, 4))))
    return Query(pattern=draw(patterns()), strategy=strategy, streams=("S",), within=within,
                 partition_by=draw(st.sampled_from([(), (), (), (("x",),)])), consume=consume)


def event_streams(types: Sequence[str] = ("R", "T", "U"), min_length: int = 3, max_length: int = 8
                  ) -> st.SearchStrategy[Stream]:
    """Streams of events of ``types`` (and now and then another of R, T, U) with ``x`` in 0..3, ``s`` in 'ab',
    'b' and a non-decreasing ``time`` (steps of 0-3 seconds), of at least ``min_length`` events."""
    kinds = st.one_of(st.sampled_from(tuple(types)), st.sampled_from(tuple(types)), st.sampled_from(("R", "T", "U")))
    event = st.builds(lambda t, x, s: Event(t, {"x": x, "s": s}), kinds, st.integers(0, 3), st.sampled_from(("ab", "b")))
    return timestamped(st.lists(event, min_size=min_length, max_size=max_length).map(Stream))


@st.composite
def query_and_stream(draw: st.DrawFn) -> tuple[Query, Stream]:
    """A translatable query and a stream mostly of the event types its pattern names (so that most cases have
    complex events to compare)."""
    q = draw(queries())
    named = sorted(t for t in ("R", "T", "U") if t in str(q.pattern))
    return q, draw(event_streams(named or ("R", "T", "U")))


def generate_cases(count: int, *, seed: int = 0) -> list[Case]:
    """``count`` translatable cases over R, T, U events (``x``, ``s``, ``time``), the same for the same seed."""
    pairs = conformance_cases(count, seed=seed, logic="ceql", formulas=query_and_stream(), streams=st.just(()))
    return [Case.make(DECLARATIONS, q, s, name=f"seed {seed} #{k}") for k, ((q, s), _) in enumerate(pairs)]


__all__ = ["Branch", "DECLARATIONS", "DEPARTURES", "Element", "TIME_SCALE", "Translation", "Untranslatable",
           "body_condition", "complex_events", "elements", "event_streams", "generate_cases", "model_complex_events", "patterns", "query_and_stream",
           "queries", "translate"]
