"""The bridge to CEL (Grez, Riveros, Ugarte, Vansummeren, *A formal framework for complex event recognition*):
what ``MATCH_RECOGNIZE`` computes for the usual encodings of CEL's sequencing, checked against CEL's own
reference semantics on generated streams of ``a`` and ``b`` rows."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.events import Event, Stream
from cer_theory.core.protocols import get
from cer_theory.formalisms.rpr import evaluate, parse

ENCODING = "MATCH_RECOGNIZE (AFTER MATCH SKIP TO NEXT ROW PATTERN (A X{q} B) DEFINE A AS type = 'a', B AS type = 'b')"

type_streams = st.lists(st.sampled_from("ab"), max_size=8).map(lambda ts: [Event(t) for t in ts])


def spans(text: str, stream: list[Event]) -> set[tuple[int, int]]:
    """Each match as (first row, last row)."""
    return {(m.rows[0][0], m.rows[-1][0]) for ms in evaluate(parse(text), stream) for m in ms}


def cel_pairs(formula: str, stream: list[Event]) -> set[tuple[int, int]]:
    cel = get("cel")
    level = cel.levels[-1]
    return {tuple(sorted(ce)) for out in level.outputs(cel.semantics(cel.parse(formula), Stream(stream)))
            for ce in out}


@settings(max_examples=200)
@given(type_streams)
def test_reluctant_gap_encoding_is_the_first_b_after_each_a(stream: list[Event]) -> None:
    """``A X*? B`` with SKIP TO NEXT ROW: one match per a row, ending at the first b after it — a subset of CEL's
    ``a ; b`` (all pairs), equal to it exactly when no a row has two later b rows."""
    types = [e.type for e in stream]
    first_b = {i: next((j for j in range(i + 1, len(types)) if types[j] == "b"), None) for i in range(len(types))}
    expected = {(i, j) for i, j in first_b.items() if types[i] == "a" and j is not None}
    got = spans(ENCODING.format(q="*?"), stream)
    assert got == expected
    all_pairs = cel_pairs("a ; b", stream)
    assert got <= all_pairs
    at_most_one_b = all(types[i + 1:].count("b") <= 1 for i in range(len(types)) if types[i] == "a")
    assert (got == all_pairs) == at_most_one_b


@settings(max_examples=200)
@given(type_streams)
def test_greedy_gap_encoding_is_the_last_b_after_each_a(stream: list[Event]) -> None:
    """``A X* B``: the greedy gap runs to the last b of the partition."""
    types = [e.type for e in stream]
    last_b = max((j for j, t in enumerate(types) if t == "b"), default=None)
    expected = {(i, last_b) for i, t in enumerate(types) if t == "a" and last_b is not None and last_b > i}
    assert spans(ENCODING.format(q="*"), stream) == expected


@settings(max_examples=200)
@given(type_streams)
def test_concatenation_is_strict_sequencing(stream: list[Event]) -> None:
    """``A B`` matches exactly the adjacent pairs: CEL's ``a : b``-style strict contiguity, never a gap."""
    types = [e.type for e in stream]
    text = "MATCH_RECOGNIZE (AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) DEFINE A AS type = 'a', B AS type = 'b')"
    assert spans(text, stream) == {(i, i + 1) for i in range(len(types) - 1) if types[i:i + 2] == ["a", "b"]}


def test_no_skip_mode_gives_all_of_cels_pairs() -> None:
    """``a a b b``: CEL's ``a ; b`` has four complex events; the encodings give two each, under every skip."""
    stream = [Event(t) for t in "a a b b".split()]
    assert len(cel_pairs("a ; b", stream)) == 4
    for q in ("*?", "*"):
        for skip in ("TO NEXT ROW", "PAST LAST ROW", "TO LAST B"):
            text = ENCODING.format(q=q).replace("TO NEXT ROW", skip)
            assert len(spans(text, stream)) <= 2, text
