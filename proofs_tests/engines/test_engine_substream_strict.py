"""STRICT under PARTITION BY in the tECS engine: contiguity is judged in the substream (the CORE paper §2 runs WHERE,
SELECT and WITHIN on each substream; docs/decisions.md D148). The engine's general differential test draws
STRICT with PARTITION BY, but its streams seldom interleave two keys inside one match; these streams always do."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.events import Event, Stream
from cer_theory.core.windows import Window
from cer_theory.engines.core import evaluate_query
from cer_theory.formalisms.ceql.ast import Query
from cer_theory.formalisms.ceql.semantics import evaluate
from cer_theory.testing.harness import report
from cer_theory.testing.strategies.ceql import EVALUABLE_TYPES, evaluable_patterns


@st.composite
def interleaved(draw: st.DrawFn) -> Stream:
    """3–8 events of R/T/U, each with x ∈ {0, 1} and a non-decreasing ``time``: two substreams that interleave."""
    n = draw(st.integers(3, 8))
    time, out = 0, []
    for _ in range(n):
        time += draw(st.sampled_from([0, 1, 2]))
        out.append(Event(draw(st.sampled_from(EVALUABLE_TYPES)), x=draw(st.integers(0, 1)), time=time))
    return Stream(out)


@settings(max_examples=150)
@given(evaluable_patterns(depth=2), interleaved(),
       st.one_of(st.none(), st.builds(Window, st.just("events"), st.integers(1, 4)),
                 st.builds(Window, st.just("time"), st.integers(0, 4))),
       st.sampled_from([None, "ANY", "PARTITION"]))
def test_d148_engine_judges_strict_in_the_substream_like_the_reference(pattern, stream, within, consume):
    q = Query(pattern=pattern, strategy="STRICT", partition_by=(("x",),), within=within, consume=consume)
    expected, actual = evaluate(q, stream), evaluate_query(q, stream)
    assert actual == expected, report(q, stream, expected, actual, candidate="engine")
