"""The stepper shows exactly the run: frame by frame on the papers' running examples, the shaded states and the
listed valuations (registers, bags, run pool) are the model's own configurations at that position, and every
frame's outputs are the evaluator's."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from cer_theory.core.drawing import shown, state_ids
from cer_theory.core.errors import CerError
from cer_theory.core.events import Event, Stream
from cer_theory.engines.cces.evaluator import CcesEvaluator
from cer_theory.engines.core.evaluator import Evaluator
from cer_theory.examples.running_example import fire_stream, formula
from cer_theory.formalisms.cel.compile import compile_automaton
from cer_theory.formalisms.cel.parser import parse
from cer_theory.stepper import Row, acea_run, cces_run, cea_run, srt_run, step, tecs_run, valuation_text
from cer_theory.stepper.models import acea_output_text

SVG = "{http://www.w3.org/2000/svg}"


def _node_texts(svg: str) -> dict[str, str]:
    """DOT node id → the text drawn in it, read from the rendered SVG."""
    root = ET.fromstring(svg.encode("utf-8"))
    out = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "node":
            out[g.find(f"{SVG}title").text] = " ".join(t.text or "" for t in g.iter(f"{SVG}text"))
    return out


@pytest.mark.parametrize("name", ["φ1", "φ2", "φ3"])
def test_cea_frames_are_the_configurations(name: str) -> None:
    """The CEL paper's running example: the fire stream under φ1–φ3 (Def. 5.2's runs, merged by (q, μ))."""
    cea, stream = compile_automaton(formula(name)), list(fire_stream())
    run = cea_run(cea, stream)
    ids = state_ids(cea.bfs_order())
    drawn = _node_texts(run.svg)
    assert all(drawn[ids[q]] == shown(q) for q in cea.states), "each id names its own state in the drawing"
    assert run.frames[0].position is None and run.frames[0].active == {ids[q] for q in cea.initial}
    outputs = cea.run(stream)
    for n, (frame, config) in enumerate(zip(run.frames[1:], cea.configurations(stream), strict=True)):
        assert frame.position == n
        assert frame.active == {ids[q] for q, _ in config}, f"position {n}"
        assert set(frame.rows) == {Row(shown(q), valuation_text(mu)) for q, mu in config}, f"position {n}"
        assert set(frame.outputs) == {str(v) if v else "∅" for v in outputs[n]}, f"position {n}"
        for source, target in frame.taken:
            assert any(ids[t.source] == source and ids[t.target] == target and t.predicate(stream[n])
                       for t in cea.transitions), (source, target)
    # the last frame lists ⟦A⟧ᵛ_n(S), whose supports are what the CCES engine enumerates at n
    engine = list(CcesEvaluator(cea).run(stream))[-1]
    assert {str(c) for c in engine} == {str(v.support()) for v in outputs[-1]}
    assert len(run.frames[-1].outputs) == len(outputs[-1])


def test_ucea_steps_like_a_cea() -> None:
    from cer_theory.formalisms.socel.compile import compile_automaton as compile_ucea
    from cer_theory.formalisms.socel.parser import parse as parse_socel

    a = compile_ucea(parse_socel("(R IN A ; T) FILTER A.value < 0"))
    stream = [Event("R", value=-1), Event("T"), Event("R", value=2), Event("T")]
    run = step(a, stream)
    assert run.model == "UCEA"
    for n, (frame, config) in enumerate(zip(run.frames[1:], a.configurations(stream), strict=True)):
        assert set(frame.rows) == {Row(shown(q), valuation_text(mu)) for q, mu in config}, n


def test_cces_and_tecs_frames_end_with_the_evaluators_outputs() -> None:
    cea, stream = compile_automaton(formula("φ1")), list(fire_stream())
    cces = cces_run(cea, stream)
    expected = list(CcesEvaluator(cea).run(stream))
    for n, frame in enumerate(cces.frames[1:]):
        assert set(frame.outputs) == {str(c) for c in expected[n]}, n
        assert set(_node_texts(frame.svg)) >= frame.new | frame.active, n
    tecs = tecs_run(cea, stream)
    core = Evaluator(cea).run(stream)
    for n, frame in enumerate(tecs.frames[1:]):
        assert set(frame.outputs) == {str(c) for c in core[n]}, n
    # the tECS grows: some event creates nodes, drawn with the ids the frame marks as new
    grown = [f for f in tecs.frames[1:] if f.new]
    assert grown and all(set(_node_texts(f.svg)) >= f.new | f.active for f in grown)


def test_acea_frames_are_the_configurations_of_every_start() -> None:
    """The ACEL paper's running example (the stock stream of §1 with max and count)."""
    from cer_theory.formalisms.acel.compile import compile_automaton, schema_of
    from cer_theory.formalisms.acel.events import timed_stream
    from cer_theory.formalisms.acel.parser import parse as parse_acel

    stocks = Stream([Event("SELL", price=101), Event("SELL", price=80), Event("BUY", price=85),
                     Event("SELL", price=99)])
    acea = compile_automaton(parse_acel("AGG M[top <- max(X.price), n <- count(X.price)](SELL AS X ; BUY)"),
                        schema_of(stocks))
    run = acea_run(acea, stocks)
    ids = state_ids(acea.bfs_order())
    expected = acea.run(stocks)
    events = timed_stream(stocks)
    for k, frame in enumerate(run.frames[1:]):
        assert set(frame.outputs) == {acea_output_text(c) for c in expected[k]}, k
        live = set()
        for i in range(k + 1):  # runs started at i, stepped to k by the model's own step
            configs = {(acea.initial, (), ())}
            for e in events[i:k + 1]:
                configs = acea.step(configs, e)
            live |= {q for q, _, _ in configs}
        assert frame.active == {ids[q] for q in live}, k
    assert any(frame.outputs for frame in run.frames)


def test_srt_frames_are_the_run_pool_of_algorithm_1() -> None:
    from cer_theory.formalisms.sremo.compile import compile_automaton as compile_srt
    from cer_theory.formalisms.sremo.parser import parse as parse_sremo
    from cer_theory.formalisms.sremo.srt import Recognizer

    srt = compile_srt(parse_sremo('<type = "B"> -> r1 . [TRUE]* . <type = "S" AND id = r1.id>'))
    stream = [Event("B", id=1), Event("B", id=2), Event("S", id=1), Event("S", id=2)]
    run = srt_run(srt, stream)
    reference = Recognizer(srt)
    for k, frame in enumerate(run.frames[1:]):
        matches = reference.feed(stream[k])
        assert set(frame.outputs) == {shown(m) for m in matches}, k
        assert frame.active == {f"q{q}" for q, _, _ in reference.runs}, k
        assert len(frame.rows) == len({(q, v, m) for q, v, m in reference.runs}), k
    assert run.frames[3].outputs == ("{0, 2}",) and run.frames[4].outputs == ("{1, 3}",)


def test_past_the_budget_the_stepper_says_so() -> None:
    cea = compile_automaton(parse("R ; T"))
    with pytest.raises(CerError, match="at most 3 positions and the stream has 4"):
        cea_run(cea, [Event("R")] * 4, max_positions=3)
    with pytest.raises(CerError, match="more than the stepper's budget of 1"):
        cea_run(compile_automaton(parse("R+")), [Event("R")] * 3, max_rows=1)


def test_the_page_is_self_contained() -> None:
    run = cea_run(compile_automaton(formula("φ1")), list(fire_stream()))
    page = run.to_html()
    assert "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page
    assert "<script src" not in page and 'id="run-data"' in page
    assert run._repr_html_().startswith("<iframe srcdoc=")
    assert repr(run) == "Run(CEA: CEA, 9 positions)"
