"""What the reference semantics of row pattern recognition (:mod:`cer_theory.formalisms.rpr`, ISO/IEC TR 19075-5
in Flink's fragment) answers for the ``MATCH_RECOGNIZE`` forms of the suite (:mod:`benchmarks.flink_suite`) on
the stock stream: the oracle the Flink peer's matches are checked against, and the ground on which the suite's
claims about each form's semantics are tested."""

from __future__ import annotations

import itertools
from collections import Counter

from benchmarks.flink_suite import RPR_SUITE
from benchmarks.stock import stock_stream
from cer_theory.core.events import Event
from cer_theory.formalisms.rpr import compile_automaton, parse
from cer_theory.formalisms.rpr.ast import Skip, variables
from cer_theory.formalisms.rpr.semantics import running_term, truth


def stock_rows(start: int, n: int, seed: int = 0) -> list[dict]:
    """Events ``start`` … ``start + n - 1`` of the stock stream for ``seed`` (each ``id`` is the event's position
    in the whole stream): a slice from the middle has the price-filtered queries' matches, which the stream's
    first minutes, with every price at its level, do not."""
    return list(itertools.islice(stock_stream(start + n, seed), start, None))


def rpr_events(rows: list[dict]) -> list[Event]:
    """Stock events as rows of the reference: ``ts`` is ``stock_time`` in seconds, the suite's ``ORDER BY`` and
    ``WITHIN`` column (Flink computes it from ``stock_time`` as a timestamp)."""
    return [Event.from_dict({**e, "ts": e["stock_time"] / 1000}) for e in rows]


def rpr_spans(name: str, events: list[Event]) -> Counter[tuple[int, int]]:
    """The matches of the suite query ``name`` as the ``id``\\ s of their first and last rows (what the suite's
    ``MEASURES`` report as ``first_id`` and ``last_id``), a multiset: the run of the ordered NFA (the rpr property
    tests check it against the brute-force semantics, whose enumeration of every derivation is too slow for a
    window of hundreds of rows)."""
    outputs = compile_automaton(parse(RPR_SUITE[name].clause)).run(events)
    return Counter((events[m.rows[0][0]]["id"], events[m.rows[-1][0]]["id"]) for ms in outputs for m in ms)


def live_partial_matches(name: str, events: list[Event]) -> list[int]:
    """How many partial matches a matcher that keeps every branch holds after each event, for the suite query
    ``name`` (a sequence ``V1 G1*? V2 … Vk`` of one-row variables and reluctant undefined gaps, AFTER MATCH SKIP TO
    NEXT ROW): a model of the work of FlinkCEP's NFA, against which the Flink peer's rates are read.

    FlinkCEP runs a reluctant loop by branching: at a row that satisfies the next variable one branch takes it
    and the loop branch goes on, so a start row keeps a branch for each chain ``V1 … Vm`` of rows (m < k) seen
    inside the window; a completed match drops the partial matches of its start row (SKIP TO NEXT ROW), and
    ``WITHIN`` drops those whose first row is older than the interval (Flink's documentation, *Pattern
    Recognition*, *After Match Strategy* and *Time constraint*). A query whose starts rarely complete keeps
    every chain of its window, which is the number of partial runs of CEQL's all-matches semantics there."""
    q = parse(RPR_SUITE[name].clause)
    steps = [v for v in variables(q.pattern) if not v.startswith("G")]
    assert q.skip == Skip("TO NEXT ROW") and not q.partition_by and len(steps) >= 2, \
        f"{name}: the model covers the suite's sequences under SKIP TO NEXT ROW only"
    live: dict[int, list[int]] = {}  # start row -> its partial matches at each stage: V1, V1 … V2, …, V1 … Vk-1
    counts: list[int] = []
    for i, e in enumerate(events):
        holds = [truth(q.define(v), lambda t, v=v: running_term(t, events, i, (v,))) is True
                 for v in steps]
        if q.within is not None:
            for start in [s for s in live if e["ts"] - events[s]["ts"] > q.within]:
                del live[start]
        for start, stages in list(live.items()):
            if holds[-1] and stages[-1]:
                del live[start]  # a match completes: SKIP TO NEXT ROW drops this start's partial matches
                continue
            for m in range(len(stages) - 1, 0, -1):  # each branch at stage m-1 also takes the row as V(m+1)
                if holds[m]:
                    stages[m] += stages[m - 1]
        if holds[0]:
            live[i] = [1] + [0] * (len(steps) - 2)
        counts.append(sum(sum(s) for s in live.values()))
    return counts


__all__ = ["live_partial_matches", "rpr_events", "rpr_spans", "stock_rows"]
