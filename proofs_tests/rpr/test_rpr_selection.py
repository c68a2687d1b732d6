"""The bridge between preferment (ISO/IEC TR 19075-5 §4.12) and the selection strategies NXT, LAST and MAX of the
CEL paper (Grez, Riveros, Ugarte, Vansummeren, *A formal framework for complex event recognition*, §7.1).

A *gap pattern* ``V1 G1*? V2 … G(k-1)*? Vk`` (each ``Vi`` one row of type ``ti``, each gap ``Gi`` undefined, so
TRUE; greedy ``Gi*`` or reluctant ``Gi*?``) is how ``MATCH_RECOGNIZE`` writes CEL's ``t1 ; t2 ; … ; tk``. With
``AFTER MATCH SKIP TO NEXT ROW`` every row r is tried as a start, and its preferred match, without the gap rows,
is one complex event of ``START(t1 ; … ; tk)`` evaluated from r (the CEL paper §7.1's ``START``: the first event
at the interval's start). CEL's strategies choose among the complex events ending at one position; preferment
chooses among the matches starting at one row, whatever their end. The tests state where the two meet:

* all gaps reluctant: the preferred match is NXT's choice at the earliest position where ``START(φ)`` from r
  has a complex event (the chains of positions form a lattice under the componentwise minimum; both choose
  its least element);
* all gaps greedy: it is LAST's choice at the latest such position (the componentwise maximum);
* MAX keeps every complex event of ``t1 ; … ; tk`` (all have k events, none contains another), so preferment
  and MAX coincide only where one complex event ends there;

and the counterexamples, found by searching generated patterns and streams, are kept as exact oracles below.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.events import Event, Stream
from cer_theory.core.protocols import get
from cer_theory.formalisms.rpr import evaluate, parse
from cer_theory.formalisms.rpr.ast import Query
from cer_theory.formalisms.rpr.semantics import preferred_match

CE = frozenset[int]


def gap_query(types: Sequence[str], greedy: Sequence[bool]) -> Query:
    """``V1 G1*? V2 …`` with ``Vi AS type = ti``; gap i greedy when ``greedy[i]``; SKIP TO NEXT ROW."""
    pattern = "V1" + "".join(f" G{i}*{'' if g else '?'} V{i + 1}" for i, g in enumerate(greedy, 1))
    defines = ", ".join(f"V{i} AS type = '{t}'" for i, t in enumerate(types, 1))
    return parse(f"MATCH_RECOGNIZE (AFTER MATCH SKIP TO NEXT ROW PATTERN ({pattern}) DEFINE {defines})")


def preferred(q: Query, stream: Sequence[Event], r: int) -> CE | None:
    """The preferred match at row r (the brute-force semantics) as the complex event of its ``V`` rows."""
    labels = preferred_match(q, stream, r)
    return None if labels is None else frozenset(r + i for i, v in enumerate(labels) if v.startswith("V"))


def anchored(strategy: str, types: Sequence[str], stream: Sequence[Event], r: int) -> dict[int, frozenset[CE]]:
    """``strategy(START(t1 ; … ; tk))`` (no strategy: ``ALL``) over the stream from row r, by the CEL paper's
    semantics: at each position (of the whole stream) the complex events output there, when there are any."""
    cel = get("cel")
    formula = f"START({' ; '.join(types)})"
    if strategy != "ALL":
        formula = f"{strategy}({formula})"
    outputs = cel.levels[-1].outputs(cel.semantics(cel.parse(formula), Stream(stream[r:])))
    return {r + j: frozenset(frozenset(r + p for p in ce) for ce in out) for j, out in enumerate(outputs) if out}


def events(types: str) -> list[Event]:
    return [Event(t) for t in types.split()]


chains = st.lists(st.sampled_from("abc"), min_size=1, max_size=3)
type_streams = st.lists(st.sampled_from("abc"), max_size=7).map(lambda ts: [Event(t) for t in ts])


# ---------------------------------------------------------------------------------------------- theorems


@settings(max_examples=300)
@given(chains, type_streams)
def test_reluctant_gaps_prefer_nxts_complex_event_at_the_earliest_end(types: list[str], stream: list[Event]) -> None:
    q = gap_query(types, [False] * (len(types) - 1))
    for r in range(len(stream)):
        nxt = anchored("NXT", types, stream, r)
        expected = None
        if nxt:
            (expected,) = nxt[min(nxt)]  # NXT's order is total (the CEL paper, Lemma 7.1): one complex event
        assert preferred(q, stream, r) == expected, (types, [e.type for e in stream], r, nxt)


@settings(max_examples=300)
@given(chains, type_streams)
def test_greedy_gaps_prefer_lasts_complex_event_at_the_latest_end(types: list[str], stream: list[Event]) -> None:
    q = gap_query(types, [True] * (len(types) - 1))
    for r in range(len(stream)):
        last = anchored("LAST", types, stream, r)
        expected = None
        if last:
            (expected,) = last[max(last)]
        assert preferred(q, stream, r) == expected, (types, [e.type for e in stream], r, last)


@settings(max_examples=200)
@given(chains, type_streams, st.lists(st.booleans(), min_size=2, max_size=2))
def test_max_keeps_every_complex_event_of_a_gap_pattern(types: list[str], stream: list[Event],
                                                       greedy: list[bool]) -> None:
    """Whatever the gaps, the preferred match is one of the complex events MAX keeps at its end, and MAX keeps
    all of ``START(t1 ; … ; tk)``'s: preferment is MAX's choice only where that is a single complex event."""
    q = gap_query(types, greedy[:len(types) - 1])
    for r in range(len(stream)):
        every, maximal = anchored("ALL", types, stream, r), anchored("MAX", types, stream, r)
        assert maximal == every
        got = preferred(q, stream, r)
        assert (got is None) == (not every)
        if got is not None:
            assert got in every[max(got)]


# ---------------------------------------------------------------------------------------------- where they part


def test_reluctant_is_nxt_and_greedy_is_last_where_they_differ() -> None:
    """``a b b c``, ``a ; b ; c``: two complex events end at c. Reluctant gaps take the first b (NXT's), greedy
    gaps the second (LAST's); MAX keeps both, and the preferred match is one."""
    stream, types = events("a b b c"), "abc"
    assert preferred(gap_query(types, [False, False]), stream, 0) == {0, 1, 3}
    assert preferred(gap_query(types, [True, True]), stream, 0) == {0, 2, 3}
    assert anchored("NXT", types, stream, 0) == {3: {frozenset({0, 1, 3})}}
    assert anchored("LAST", types, stream, 0) == {3: {frozenset({0, 2, 3})}}
    assert anchored("MAX", types, stream, 0) == {3: {frozenset({0, 1, 3}), frozenset({0, 2, 3})}}


def test_mixed_gaps_choose_neither_nxts_nor_lasts_complex_event() -> None:
    """Found by searching generated chains, gaps and streams for a preferred match that is neither NXT's nor
    LAST's choice at its end, and shrunk: reluctant, greedy, reluctant gaps over ``a ; a ; a ; a`` on five a rows.
    The preferred match takes the first a after the start, the last a that still has one after it, then that
    one: {0, 1, 3, 4}; NXT chooses {0, 1, 2, 4} there and LAST {0, 2, 3, 4}. Preferment mixes the two orders gap
    by gap; no strategy of the CEL paper does."""
    stream, types = events("a a a a a"), "aaaa"
    got = preferred(gap_query(types, [False, True, False]), stream, 0)
    assert got == {0, 1, 3, 4}
    assert anchored("NXT", types, stream, 0)[4] == {frozenset({0, 1, 2, 4})}
    assert anchored("LAST", types, stream, 0)[4] == {frozenset({0, 2, 3, 4})}
    assert got in anchored("MAX", types, stream, 0)[4]


def test_preferment_chooses_per_start_row_where_the_strategies_choose_per_end() -> None:
    """``a a b``: with SKIP TO NEXT ROW both a rows start a match ending at b, where NXT(a ; b) keeps only the
    first a and LAST(a ; b) only the second: the union over start rows is no strategy's choice."""
    stream = events("a a b")
    cel = get("cel")
    q = gap_query("ab", [False])
    got = {frozenset(p for p, v in m.rows if v.startswith("V")) for ms in evaluate(q, stream) for m in ms}
    assert got == {frozenset({0, 2}), frozenset({1, 2})}
    for strategy, kept in (("NXT", {0, 2}), ("LAST", {1, 2})):
        outputs = cel.levels[-1].outputs(cel.semantics(cel.parse(f"{strategy}(a ; b)"), Stream(stream)))
        assert outputs[2] == {frozenset(kept)}
