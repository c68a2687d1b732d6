"""Prop 5.1 (the SO-CEL paper, App. B.1): the streaming evaluator of an I/O-deterministic UCEA equals the run semantics,
enumerates without duplicates, updates in at most |Δ| steps per tuple and enumerates with delay linear in the
output; and the I/O-determinization of §4 preserves ⟦A⟧_n."""

from __future__ import annotations

import gc
import random

import pytest
from hypothesis import given, settings

from cer_theory.automata.cea import CEA
from cer_theory.core.errors import AutomatonError
from cer_theory.core.events import Event, Stream
from cer_theory.formalisms.socel.ast import Formula
from cer_theory.formalisms.socel.compile import compile_automaton
from cer_theory.formalisms.socel.streaming import StreamingEvaluator, _Node, evaluate_streaming, io_determinize_ucea
from cer_theory.formalisms.socel.examples import FREEZING_PATTERN, fig2_ucea, sensor_stream
from cer_theory.formalisms.socel.parser import parse
from cer_theory.formalisms.socel.semantics import evaluate
from cer_theory.formalisms.socel.ucea import UCEA
from cer_theory.testing.strategies import streams
from cer_theory.testing.strategies.automata import random_ceas
from cer_theory.testing.strategies.socel import PLUS_OPERATORS, formulas, socel_streams


@settings(max_examples=60)
@given(random_ceas(max_states=3), streams(max_length=6))
def test_io_determinization_preserves_outputs(cea: CEA, stream: Stream) -> None:
    a = UCEA.of(cea)
    d = io_determinize_ucea(a)
    assert d.is_io_deterministic()
    assert d.run(stream) == a.run(stream)


@settings(max_examples=60)
@given(random_ceas(max_states=3), streams(max_length=6))
def test_prop_5_1_evaluator_equals_runs_without_duplicates(cea: CEA, stream: Stream) -> None:
    d = io_determinize_ucea(UCEA.of(cea))
    for listed, expected in zip(evaluate_streaming(d, stream), d.run(stream)):
        assert len(listed) == len(set(listed))  # duplicate-free (I/O-determinism: one run per output)
        assert set(listed) == expected


@settings(max_examples=40)
@given(formulas(PLUS_OPERATORS, max_depth=2), socel_streams(6))
def test_prop_5_1_on_compiled_formulas(phi: Formula, stream: Stream) -> None:
    d = io_determinize_ucea(compile_automaton(phi))
    assert [set(out) for out in evaluate_streaming(d, stream)] == list(evaluate(phi, stream))


def test_update_work_is_independent_of_the_stream_and_delay_is_linear() -> None:
    """Prop 5.1 (1), (2), by counting: on 2000 tuples the update never exceeds |Δ| moves, however many runs are
    alive; each enumeration visits at most a constant times the total size of what it outputs."""
    d = io_determinize_ucea(compile_automaton(parse("(R IN A ; T) FILTER T[x > 0]")))
    ev = StreamingEvaluator(d)
    worst_update = 0
    for k in range(2000):
        ev.push(Event("R" if k % 3 == 0 else "T", x=1 if k % 300 == 1 else 0))
        worst_update = max(worst_update, ev.update_steps)
        if k % 300 == 1:
            outs = list(ev.outputs())
            assert len(outs) == (k + 2) // 3  # one per earlier R
            size = sum(len(c.support()) + 1 for c in outs)
            # every visited node lies on the path of some output: visits ≤ Σ (|supp C| + 1) + |F|
            assert ev.enumeration_steps <= size * 2 + len(d.final)
    assert worst_update <= len(d.transitions)


def test_sensor_stream_by_the_evaluator() -> None:
    """The freezing pattern has incr, which a UCEA cannot check; its unary part is evaluated exactly."""
    unary = parse("(T ; H+ IN HS ; H IN HH) FILTER T[value < 0] FILTER HH[value > 60]")
    d = io_determinize_ucea(compile_automaton(unary))
    outs = evaluate_streaming(d, sensor_stream())
    assert [set(o) for o in outs] == evaluate(unary, sensor_stream())
    assert len(evaluate(parse(FREEZING_PATTERN), sensor_stream())[9]) < len(outs[9])


def test_non_deterministic_input_is_refused() -> None:
    with pytest.raises(AutomatonError, match="not I/O-deterministic"):
        StreamingEvaluator(fig2_ucea())
    assert [set(o) for o in evaluate_streaming(io_determinize_ucea(fig2_ucea()), Stream.from_types("R H T"))] == \
        fig2_ucea().run(Stream.from_types("R H T"))


def test_runs_that_cannot_reach_a_final_state_are_not_kept() -> None:
    """The subset construction adds an empty (dead) state; runs there never yield an output, so the evaluator
    drops them and its memory follows the live runs only: with a contiguous pattern (at most one live run per
    state) the number of nodes does not grow with the stream."""
    rng = random.Random(0)
    d = io_determinize_ucea(compile_automaton(parse("(T IN LOW : H:+ IN RISE : H IN HIGH) FILTER LOW[value < 0]")))
    assert frozenset() in d.states  # the dead state is there
    ev = StreamingEvaluator(d)
    counts = []
    for n in range(3000):
        ev.push(Event(rng.choice("TH"), value=rng.randint(-5, 5)))
        list(ev.outputs())
        if n in (999, 2999):
            gc.collect()
            counts.append(sum(1 for o in gc.get_objects() if isinstance(o, _Node)))
    assert counts[1] <= counts[0] + 10 and counts[1] < 100
