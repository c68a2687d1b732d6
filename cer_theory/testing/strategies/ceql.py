"""Hypothesis strategies for CEQL queries (the CORE paper §2; cer_theory.formalisms.ceql.parser), for the round-trip property
``parse(format(q)) == q`` and for tests that need random queries.

Queries are drawn in the *canonical* form the parser builds: conditions use the raw ``And``/``Or``/``Not``
constructors (so nested groups are kept), ``type = 'R'`` is an ``IsType`` (never a ``Cmp`` on ``type`` with
``=``/``!=`` and a string), and there are no TRUE/FALSE or opaque conditions (CEQL cannot write them).
Names include reserved words in some case (``Event``, ``by``, ``Limit``) so that backquoting is exercised.
"""

from __future__ import annotations

import functools

from hypothesis import strategies as st

from cer_theory.core.windows import Window
from cer_theory.core.events import TYPE_KEY
from cer_theory.core.predicates.ast import (And, Arith, Attr, BoolConst, Cmp, Const, InSet, Like, Not, On, Or,
                                            Predicate)
from cer_theory.formalisms.ceql.ast import CONSUME_POLICIES, AggregateItem, Query, STRATEGIES, STREAM_ATTRIBUTE
from cer_theory.core.events import Event, Stream
from cer_theory.formalisms.cel.ast import Atom, Contig, CPlus, Disj, Filter, Formula, In, Plus, Seq, variables
from cer_theory.testing.strategies import Schema, streams
from cer_theory.testing.strategies.predicates import ATTRS, atoms, extended_atoms, values

EVENT_TYPES = ("BUY", "SELL", "R", "Event")
"""Event types; ``Event`` is a reserved word (EVENT) in CEQL and must be printed in backquotes."""

VARIABLES = ("a", "b", "x", "by")
STREAMS = ("S", "Stock", "stream")
PARTITION_ATTRS = ("name", "volume", "Limit")


def _ceql_atom(p: Predicate) -> bool:
    """Atoms the CEQL parser builds as themselves (see the module docstring)."""
    if isinstance(p, BoolConst):
        return False
    return not (isinstance(p, Cmp) and p.left == Attr(TYPE_KEY) and p.op in ("=", "!=")
                and isinstance(p.right, Const) and isinstance(p.right.value, str))


_QUOTING = (Cmp(Attr("s"), "=", Const("it's")), Cmp(Attr("s"), "!=", Const('say "hi" \\ \n')),
            Like(Attr("s"), r"\d+'?"), Cmp(Attr("Limit"), ">", Const(-1.5)),
            InSet(Attr("by"), frozenset([Const("'")])))
"""Atoms whose text needs escaping or backquotes."""


def _combine_raw(children: st.SearchStrategy[Predicate]) -> st.SearchStrategy[Predicate]:
    parts = st.lists(children, min_size=2, max_size=3)
    return st.one_of(children.map(Not), parts.map(lambda ps: And(tuple(ps))), parts.map(lambda ps: Or(tuple(ps))))


@functools.lru_cache(maxsize=None)
def expressions(max_leaves: int = 5) -> st.SearchStrategy[Predicate]:
    """Unary predicates CEQL can write inside ``Var[…]``."""
    leaf = st.one_of(atoms(None), extended_atoms(None), extended_atoms(None), st.sampled_from(_QUOTING))
    leaf = leaf.filter(_ceql_atom)
    return st.recursive(leaf, _combine_raw, max_leaves=max_leaves)


@functools.lru_cache(maxsize=None)  # built once per variable set: _filtered draws it inside a flatmap
def conditions(bound: tuple[str, ...], max_leaves: int = 3) -> st.SearchStrategy[Predicate]:
    """FILTER conditions: ``Var[expr]`` blocks over the variables ``bound`` joined by raw And/Or."""
    on = st.builds(On, st.sampled_from(bound), expressions(max_leaves=3))
    parts = st.lists
    return st.recursive(on, lambda kids: st.one_of(parts(kids, min_size=2, max_size=3).map(lambda ps: And(tuple(ps))),
                                                   parts(kids, min_size=2, max_size=3).map(lambda ps: Or(tuple(ps)))),
                        max_leaves=max_leaves)


def _stream_atom(stream: str, etype: str) -> Formula:
    return Filter(Atom(etype), On(etype, Cmp(Attr(STREAM_ATTRIBUTE), "=", Const(stream))))


@st.composite
def _filtered(draw: st.DrawFn, kids: st.SearchStrategy[Formula]) -> Formula:
    p = draw(kids)
    return Filter(p, draw(conditions(tuple(sorted(variables(p))))))


@functools.lru_cache(maxsize=None)
def patterns(max_leaves: int = 5) -> st.SearchStrategy[Formula]:
    """WHERE patterns: event types, ``S>T``, AS, ``+``, ``:+``, ``;``, ``:``, OR and FILTER."""
    leaf = st.one_of(st.sampled_from(EVENT_TYPES).map(Atom), st.sampled_from(EVENT_TYPES).map(Atom),
                     st.builds(_stream_atom, st.sampled_from(STREAMS), st.sampled_from(EVENT_TYPES)))

    def extend(kids: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
        return st.one_of(
            st.builds(In, kids, st.sampled_from(VARIABLES)), kids.map(Plus), kids.map(CPlus),
            st.builds(Seq, kids, kids), st.builds(Contig, kids, kids), st.builds(Disj, kids, kids),
            _filtered(kids))

    return st.recursive(leaf, extend, max_leaves=max_leaves)


@functools.lru_cache(maxsize=None)
def windows() -> st.SearchStrategy[Window]:
    """Windows CEQL can write: events, durations in seconds (whole or halves), attribute values."""
    return st.one_of(
        st.integers(0, 100).map(lambda n: Window("events", n)),
        st.one_of(st.integers(0, 20000), st.integers(0, 200).map(lambda n: n + 0.5)).map(lambda s: Window("time", s)),
        st.builds(lambda n, a: Window("attribute", n, attribute=a),
                  st.one_of(st.integers(0, 30000), st.sampled_from([0.5, 2.25, 1e-3])),
                  st.sampled_from(("stock_time", "time", "Limit"))))


_GROUPS = st.lists(st.lists(st.sampled_from(PARTITION_ATTRS), min_size=1, max_size=2).map(tuple), max_size=2)
_STREAM_LISTS = st.lists(st.sampled_from(STREAMS), max_size=2)
_CONSUME = st.one_of(st.none(), st.sampled_from(CONSUME_POLICIES))
_LIMITS = st.one_of(st.none(), st.integers(0, 1000))


@st.composite
def queries(draw: st.DrawFn, max_leaves: int = 5) -> Query:
    """Random CEQL queries (every clause optional, strategies and policies from CORE's grammar)."""
    pattern = draw(patterns(max_leaves))
    bound = sorted(variables(pattern))
    kind = draw(st.sampled_from(("star", "none", "vars")))
    select = None if kind == "star" else () if kind == "none" else tuple(
        draw(st.lists(st.sampled_from(bound), min_size=1, max_size=3, unique=True)))
    return Query(
        pattern=pattern,
        strategy=draw(st.sampled_from(STRATEGIES)),
        select=select,
        streams=tuple(draw(_STREAM_LISTS)),
        partition_by=tuple(draw(_GROUPS)),
        within=draw(st.one_of(st.none(), windows())),
        consume=draw(_CONSUME),
        limit=draw(_LIMITS),
    )


# ---------------------------------------------------------------------------------------------- evaluable queries

EVALUABLE_TYPES = ("R", "T", "U")
"""The relations of :func:`evaluable_queries`: those of :data:`MATCHING` streams, so that most queries match."""

MATCHING = Schema(types=EVALUABLE_TYPES)
"""Streams of R, T, U with ``x`` in 0..3 (sometimes absent)."""


_X_TESTS = st.builds(lambda op, v: Cmp(Attr("x"), op, Const(v)), st.sampled_from(["<=", ">=", "=", "!=", "<", ">"]),
                    st.sampled_from([0, 1, 2, 3]))
_BODIES = st.one_of(_X_TESTS, _X_TESTS.map(Not), st.lists(_X_TESTS, min_size=2, max_size=2).map(tuple).map(Or),
                    st.lists(_X_TESTS, min_size=2, max_size=2).map(tuple).map(And))
"""``var[…]`` bodies on ``x`` ∈ 0..3 (which hold often), in the raw form the parser builds."""


@st.composite
def evaluable_patterns(draw: st.DrawFn, depth: int = 3) -> Formula:
    """WHERE patterns over R/T/U that match often: AS, FILTER ``var[x …]`` blocks (one, or an AND/OR of two) on
    bound variables, OR, ``;``, ``:`` and ``+``. Shrinks towards an atom."""
    kind = "atom" if depth <= 0 else draw(st.sampled_from(["atom", "atom", "seq", "seq", "contig", "plus", "as",
                                                            "filter", "or"]))
    if kind == "atom":
        return Atom(draw(st.sampled_from(EVALUABLE_TYPES)))
    sub = evaluable_patterns(depth - 1)
    if kind in ("seq", "contig", "or"):
        return {"seq": Seq, "contig": Contig, "or": Disj}[kind](draw(sub), draw(sub))
    if kind == "plus":
        return Plus(draw(sub))
    body = draw(sub)
    if kind == "as":
        return In(body, draw(st.sampled_from(("A", "B"))))
    block = st.builds(On, st.sampled_from(sorted(variables(body))), _BODIES)
    shape = draw(st.sampled_from(["one", "one", "and", "or"]))
    condition = draw(block) if shape == "one" else (And if shape == "and" else Or)((draw(block), draw(block)))
    return Filter(body, condition)


@st.composite
def evaluable_queries(draw: st.DrawFn) -> Query:
    """Queries the reference semantics, the compiled CEA and the engine all evaluate on :func:`timed_streams`,
    in the form the parser builds (so they print and read back): every strategy, SELECT projections, windows on
    positions and on ``time``, PARTITION BY ``[x]`` and CONSUME BY; no LIMIT (the reference semantics leaves it
    to the engine, the CORE paper §2) and no strict windows (CEQL cannot write them)."""
    pattern = draw(evaluable_patterns())
    names = sorted(variables(pattern))
    select = draw(st.one_of(st.none(), st.lists(st.sampled_from(names), unique=True, max_size=2).map(tuple)))
    size = st.integers(0, 4)
    within = draw(st.one_of(st.none(), st.builds(Window, st.just("events"), size),
                            st.builds(Window, st.just("time"), size)))
    return Query(pattern=pattern, select=select, within=within,
                 strategy=draw(st.sampled_from(["ALL", "ALL", "ANY", "STRICT", "NEXT", "LAST", "MAX"])),
                 partition_by=draw(st.sampled_from([(), (), (("x",),)])),
                 consume=draw(st.sampled_from([None, None, "ANY", "PARTITION", "NONE"])))


def timed_streams(max_length: int = 7) -> st.SearchStrategy[Stream]:
    """Streams of R/T/U with ``x`` in 0..3 (sometimes absent) and a non-decreasing ``time`` (ties included)."""
    return timestamped(streams(MATCHING, max_length=max_length))


@st.composite
def timestamped(draw: st.DrawFn, events_of: st.SearchStrategy[Stream]) -> Stream:
    """The streams of ``events_of`` with a non-decreasing ``time`` attribute added: steps of 0–3 seconds, so
    ties and window edges occur."""
    events = draw(events_of)
    steps = draw(st.lists(st.sampled_from([0, 0, 1, 2, 3]), min_size=len(events), max_size=len(events)))
    out, time = [], 0
    for e, d in zip(events, steps):
        time += d
        out.append(Event(e.type, {**e.attributes, "time": time}))
    return Stream(out)


# ---------------------------------------------------------------------------------------------- aggregates

AGGREGATE_FUNCTIONS = ("SUM", "MIN", "MAX", "COUNT", "AVG", "RANGE")
"""The built-in aggregates of :mod:`cer_theory.core.aggregates` (the ACEL paper §4), as CEQL writes them."""

ALIASES = ("vol", "top", "n", "Limit", "avg")
"""Aggregate aliases; ``Limit`` is a reserved word (printed in backquotes), ``avg`` is also a function name."""


@st.composite
def aggregate_items(draw: st.DrawFn, bound: tuple[str, ...], attributes: tuple[str, ...] = ("x",),
                    max_size: int = 3) -> tuple[AggregateItem, ...]:
    """1..max_size ``FUNCTION(var.attr) AS alias`` items over the variables ``bound``, distinct aliases;
    ``COUNT`` sometimes without attribute."""
    aliases = draw(st.lists(st.sampled_from(ALIASES), min_size=1, max_size=max_size, unique=True))
    out = []
    for alias in aliases:
        function = draw(st.sampled_from(AGGREGATE_FUNCTIONS))
        attribute = (None if function == "COUNT" and draw(st.booleans())
                     else draw(st.sampled_from(attributes)))
        out.append(AggregateItem(function, draw(st.sampled_from(bound)), attribute, alias))
    return tuple(out)


def having_conditions(aliases: tuple[str, ...]) -> st.SearchStrategy[Predicate]:
    """HAVING conditions over the aliases: comparisons of an alias (or alias ± / * a constant, or a sum of two
    aliases) with a small number, under raw Not/And/Or (no division: ±inf identities stay comparable)."""
    alias = st.sampled_from(aliases).map(Attr)
    term = st.one_of(alias, alias, st.builds(lambda a, op, c: Arith(op, a, Const(c)), alias,
                                             st.sampled_from(["+", "-", "*"]), st.integers(-1, 3)),
                     st.builds(lambda a, b: Arith("+", a, b), alias, alias))
    leaf = st.builds(lambda t, op, c: Cmp(t, op, Const(c)), term, st.sampled_from(["<=", ">=", "=", "!=", "<", ">"]),
                     st.sampled_from([0, 1, 2, 3, 5, 2.5]))
    return st.recursive(leaf, _combine_raw, max_leaves=3)


@st.composite
def aggregated_queries(draw: st.DrawFn, max_leaves: int = 5) -> Query:
    """Printable CEQL queries with aggregates in SELECT and sometimes HAVING (for the round trip)."""
    q = draw(queries(max_leaves))
    bound = tuple(sorted(variables(q.pattern)))
    items = draw(aggregate_items(bound, attributes=("x", "price", "Limit", "by")))
    having = draw(st.one_of(st.none(), having_conditions(tuple(a.alias for a in items))))
    return Query(pattern=q.pattern, strategy=q.strategy, select=q.select, streams=q.streams,
                 partition_by=q.partition_by, within=q.within, consume=q.consume, limit=q.limit,
                 aggregates=items, having=having)


@st.composite
def evaluable_aggregated_queries(draw: st.DrawFn) -> Query:
    """:func:`evaluable_queries` with aggregates over ``x`` (absent on some events: NULL) and sometimes HAVING,
    under ALL and ANY (the engine's strategies with aggregates, docs/decisions.md D77)."""
    q = draw(evaluable_queries())
    bound = tuple(sorted(variables(q.pattern)))
    items = draw(aggregate_items(bound))
    having = draw(st.one_of(st.none(), st.none(), having_conditions(tuple(a.alias for a in items))))
    return Query(pattern=q.pattern, strategy=draw(st.sampled_from(["ALL", "ANY"])), select=q.select,
                 partition_by=q.partition_by, within=q.within, consume=q.consume, aggregates=items, having=having)


# ---------------------------------------------------------------------------------------------- several letters

LETTER_VARIABLES = ("A", "B", "C")
"""The variables of :func:`overlapping_patterns`; every one is aggregated in most queries."""

_LETTER_KINDS = ("leaf",) + ("seq", "seq", "seq", "plus", "plus", "plus", "or", "or", "or", "as") * 2
"""Node kinds of :func:`overlapping_patterns`, weighted by repetition; ``leaf`` first, so shrinking prunes."""


@st.composite
def overlapping_patterns(draw: st.DrawFn, depth: int = 3) -> Formula:
    """WHERE patterns whose variables overlap, for Algorithm 1 over letters (``engines/core/labelled.py``,
    docs/decisions.md D77, D283): leaves ``R AS v``, ``T AS v`` (sometimes filtered by ``v[x …]``, sometimes
    without a variable) over :data:`LETTER_VARIABLES`, joined mostly by ``;``, ``+`` and OR. Two leaves of one
    type under OR, or ``(… AS A)+ ; R AS B``, give a det-state two marking letters on one event (the CEA's
    nondeterminism the I/O-determinization keeps apart by letter); ``+`` and ``;`` over repeated starts give
    union-lists of several entries. Shrinks towards a leaf."""
    kind = "leaf" if depth <= 0 else draw(st.sampled_from(_LETTER_KINDS))
    if kind == "leaf":
        leaf: Formula = Atom(draw(st.sampled_from(("R", "R", "T"))))
        if draw(st.sampled_from((True, True, False))):
            var = draw(st.sampled_from(LETTER_VARIABLES))
            leaf = In(leaf, var)
            if draw(st.sampled_from((False, False, False, True))):
                leaf = Filter(leaf, On(var, draw(_X_TESTS)))
        return leaf
    sub = overlapping_patterns(depth - 1)
    if kind == "plus":
        return Plus(draw(sub))
    if kind == "as":
        return In(draw(sub), draw(st.sampled_from(LETTER_VARIABLES)))
    return (Seq if kind == "seq" else Disj)(draw(sub), draw(sub))


@st.composite
def overlapping_aggregated_queries(draw: st.DrawFn) -> Query:
    """Queries over :func:`overlapping_patterns` whose det-states often have several marking letters and
    union-lists of several entries (docs/decisions.md D283 measures how often): one aggregate per variable
    (all of them in three queries of four, so that two variables give two letters), SELECT ``*`` or a
    projection (a marked position outside it is a letter of its own), ALL or ANY, rarely a window on
    positions. Evaluable by the reference semantics on :func:`overlapping_streams`."""
    pattern = draw(overlapping_patterns().filter(variables))
    bound = sorted(variables(pattern))
    aggregated = (bound if draw(st.sampled_from((True, True, True, False)))
                  else sorted(draw(st.lists(st.sampled_from(bound), min_size=1, unique=True))))
    items = []
    for v in aggregated:
        function = draw(st.sampled_from(AGGREGATE_FUNCTIONS))
        items.append(AggregateItem(function, v, None if function == "COUNT" else "x", f"{function.lower()}_{v}"))
    select = draw(st.sampled_from((None, None, "projection")))
    if select is not None:
        select = tuple(draw(st.lists(st.sampled_from(bound), max_size=2, unique=True)))
    within = draw(st.sampled_from((None, None, None, "window")))
    if within is not None:
        within = Window("events", draw(st.integers(1, 6)))
    return Query(pattern=pattern, select=select, within=within, strategy=draw(st.sampled_from(("ALL", "ANY"))),
                 aggregates=tuple(items))


def overlapping_streams(max_length: int = 10) -> st.SearchStrategy[Stream]:
    """Streams of 4..max_length events for :func:`overlapping_aggregated_queries`: two events in three are R
    (runs start and continue on the same event), ``x`` in 0..3 (sometimes absent), a ``time`` attribute."""
    return timestamped(streams(Schema(types=("R", "R", "T")), min_length=4, max_length=max_length))


__all__ = ["aggregate_items", "having_conditions", "aggregated_queries", "evaluable_aggregated_queries",
           "overlapping_patterns", "overlapping_aggregated_queries", "overlapping_streams", "LETTER_VARIABLES",
           "AGGREGATE_FUNCTIONS", "ALIASES", "queries", "patterns", "conditions", "expressions", "windows", "EVENT_TYPES", "VARIABLES", "STREAMS",
           "evaluable_patterns", "evaluable_queries", "timed_streams", "MATCHING", "EVALUABLE_TYPES"]


TIME_STEPS = (0, 0, 1, 2, 500, 3000, 20000)
"""Gaps between timestamps: ties, small steps, and steps past the strategies' windows (up to 20 s)."""


@st.composite
def engine_streams(draw: st.DrawFn, max_length: int = 10, steps: tuple[int, ...] = TIME_STEPS) -> list[Event]:
    """Events for :func:`queries`: its event types and streams, the predicate strategies' attributes, partition
    attributes with few values (collisions; sometimes missing: NULL), and the window attributes
    ``time``/``stock_time``/``Limit`` non-decreasing by gaps drawn from ``steps`` — except, in some streams, one
    missing or decreasing value (an engine must raise the same error on every input path)."""
    n = draw(st.integers(0, max_length))
    broken = draw(st.sampled_from([None, None, None, "missing", "decreasing"]))
    at = draw(st.integers(0, max(n - 1, 0)))
    out, t = [], 0
    for k in range(n):
        t += draw(st.sampled_from(steps))
        attrs = {a: v for a in ATTRS if (v := draw(values(a))) is not None}
        for a in ("name", "volume"):
            v = draw(st.sampled_from([None, "A", "B", 1, 1.0, 2]))
            if v is not None:
                attrs[a] = v
        attrs[STREAM_ATTRIBUTE] = draw(st.sampled_from(STREAMS))
        attrs["time"] = attrs["stock_time"] = t
        attrs["Limit"] = t // 1000
        if broken is not None and k == at:
            for a in ("time", "stock_time", "Limit"):
                if broken == "missing":
                    del attrs[a]
                else:
                    attrs[a] = -1
        out.append(Event(draw(st.sampled_from(EVENT_TYPES)), attrs))
    return out
