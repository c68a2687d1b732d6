"""Generated conformance cases: CEQL queries covering the grammar an adapter runs, and streams that fit one fixed
declaration, drawn from the project's hypothesis strategies (:mod:`cer_theory.testing.strategies.ceql`) with a
seed, so the same seed gives the same cases.

The queries are :func:`~cer_theory.testing.strategies.ceql.evaluable_patterns` (event types, ``;``, ``:``, ``+``,
AS, OR, FILTER) with, on top, ``:+`` and FILTER bodies in the rest of CEQL's expression language (arithmetic,
LIKE, IN and NOT IN with lists and ranges, NOT), and every clause of the CORE paper §2: the selection strategies,
SELECT lists and NONE, ``FROM S``, PARTITION BY, WITHIN in events, seconds and ``[attribute]``, CONSUME BY and
LIMIT. The streams are R, T, U events with ``x`` in 0..3, a string ``s`` and a non-decreasing ``time``
(seconds, with ties), every attribute present (CORE's events carry every declared attribute).
"""

from __future__ import annotations

import functools

from hypothesis import strategies as st

from cer_theory.core.events import Stream
from cer_theory.core.predicates.ast import On, Predicate
from cer_theory.core.windows import Window
from cer_theory.formalisms.cel.ast import CPlus, Filter, Formula, variables
from cer_theory.formalisms.ceql.ast import Query
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.testing.harness import conformance_cases
from cer_theory.testing.strategies import Schema, streams as schema_streams
from cer_theory.testing.strategies.ceql import EVALUABLE_TYPES, evaluable_patterns, timestamped
from cer_theory.conformance.protocol import Case

DECLARATIONS = ("CREATE STREAM S { " + ", ".join(f"EVENT {t} {{ x:int, s:string, time:int }}"
                                                for t in EVALUABLE_TYPES) + " }")
"""The one declaration every generated stream fits."""

STRINGS = ("ab", "b", "a1")
SCHEMA = Schema(types=EVALUABLE_TYPES, attributes=(("x", (0, 1, 2, 3)), ("s", STRINGS)), missing=False)  # type: ignore[arg-type]

BODIES = ("x <= 1", "x > 1", "x + 1 > 2", "x * 2 = 4", "x - 1 >= 1", "x / 2 < 1", "-x < -1", "NOT x = 1",
          "s LIKE 'a.*'", "s LIKE '[ab]+'", "s = 'b'", "s != 'ab'", "s IN {'ab', 'b'}", "s NOT IN {'b'}",
          "x IN {1, 3}", "x IN {1..2}", "x IN {2..}", "x IN {..1}", "x NOT IN {0}", "x = 1 OR s = 'b'",
          "x >= 1 AND NOT s LIKE 'b'")
"""FILTER bodies in CEQL's expression language beyond the comparisons of ``evaluable_patterns``."""


@functools.lru_cache(maxsize=None)
def _body(text: str) -> Predicate:
    """A body as the parser builds it (so generated queries print and read back unchanged)."""
    condition = parse(f"SELECT * FROM S WHERE R FILTER R[{text}]").pattern
    assert isinstance(condition, Filter) and isinstance(condition.condition, On)
    return condition.condition.body


@st.composite
def patterns(draw: st.DrawFn) -> Formula:
    """``evaluable_patterns``, sometimes under ``:+`` or one more FILTER with a body from :data:`BODIES`."""
    p = draw(evaluable_patterns())
    extra = draw(st.sampled_from(["none", "none", "filter", "filter", "cplus"]))
    if extra == "cplus":
        return CPlus(p)
    if extra == "filter":
        var = draw(st.sampled_from(sorted(variables(p))))
        return Filter(p, On(var, _body(draw(st.sampled_from(BODIES)))))
    return p


_SIZES = st.integers(0, 4)


@st.composite
def queries(draw: st.DrawFn) -> Query:
    """Queries over :data:`DECLARATIONS` with every clause of the CORE paper §2 (the module docstring)."""
    pattern = draw(patterns())
    names = sorted(variables(pattern))
    kind = draw(st.sampled_from(["star", "star", "star", "none", "vars"]))
    select = None if kind == "star" else () if kind == "none" else tuple(
        draw(st.lists(st.sampled_from(names), unique=True, min_size=1, max_size=2)))
    within = draw(st.one_of(st.none(), st.none(), st.builds(Window, st.just("events"), _SIZES),
                            st.builds(Window, st.just("time"), _SIZES),
                            st.builds(lambda n: Window("attribute", n, attribute="time"), _SIZES)))
    return Query(pattern=pattern, select=select, streams=("S",), within=within,
                 strategy=draw(st.sampled_from(["ALL", "ALL", "ALL", "ANY", "STRICT", "NEXT", "LAST", "MAX"])),
                 partition_by=draw(st.sampled_from([(), (), (), (("x",),), (("s",),)])),
                 consume=draw(st.sampled_from([None, None, None, "ANY", "PARTITION", "NONE"])),
                 limit=draw(st.sampled_from([None, None, None, None, 1, 2])))


def streams(max_length: int = 7) -> st.SearchStrategy[Stream]:
    """Streams fitting :data:`DECLARATIONS`: ``time`` steps of 0–3 seconds, so ties and window edges occur."""
    return timestamped(schema_streams(SCHEMA, max_length=max_length))


def generate_cases(count: int, *, seed: int = 0) -> list[Case]:
    """``count`` cases, the same for the same seed (hypothesis's generation replayed from ``seed``)."""
    pairs = conformance_cases(count, seed=seed, logic="ceql", formulas=queries(), streams=streams())
    return [Case.make(DECLARATIONS, q, s, name=f"seed {seed} case {k}") for k, (q, s) in enumerate(pairs)]


__all__ = ["BODIES", "DECLARATIONS", "generate_cases", "patterns", "queries", "streams"]
