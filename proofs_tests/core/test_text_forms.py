"""Every text a person reads of a model — ``repr``, ``str``, ``describe()``, the ``text/plain`` a notebook shows,
a transition, a state, a counterexample word — writes sets as the papers do (``{0, 1}``, ``∅``) and infinities as
``−∞``: no Python repr (``frozenset({0})``), no escaped newline (``\\n``), no ``1e999``. Checked on the papers'
figures and on the objects the notebooks show."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cer_theory.automata.cea import CEA
from cer_theory.automata.determinize.eager import io_determinize
from cer_theory.core.drawing import SWITCH
from cer_theory.core.events import Event, Stream
from cer_theory.engines.cces.evaluator import CcesEvaluator
from cer_theory.engines.core.evaluator import Evaluator
from cer_theory.engines.core.tecs import Tecs
from cer_theory.examples.running_example import FORMULAS, example_5_3_cea, fig8_cea, fire_stream
from cer_theory.formalisms.acel.compile import compile_automaton as compile_acea, schema_of
from cer_theory.formalisms.acel.examples import w1_doubling, w2_prefix_sums
from cer_theory.formalisms.acel.parser import parse as parse_acel
from cer_theory.formalisms.cel.compile import compile_automaton
from cer_theory.formalisms.cel.equivalence import equivalent
from cer_theory.formalisms.cel.parser import parse
from cer_theory.formalisms.cel.selection import compile_with_selection
from cer_theory.formalisms.cel.star_property import has_star_property
from cer_theory.formalisms.socel.compile import compile_automaton as compile_ucea
from cer_theory.formalisms.socel.examples import fig2_ucea
from cer_theory.formalisms.socel.parser import parse as parse_socel
from cer_theory.formalisms.socel.star_property import has_star_property as has_star_property_ucea
from cer_theory.formalisms.socel.streaming import io_determinize_ucea
from cer_theory.formalisms.sremo.compile import compile_automaton as compile_srt
from cer_theory.formalisms.sremo.parser import parse as parse_sremo
from cer_theory.formalisms.sremo.windowed import determinize_windowed, unroll
from cer_theory.formalisms.sremo.determinize import complement

LEAKS = ("frozenset", "\\n", "1e999", "set()")
E1 = '<type = "B"> -> r1 . [TRUE]* . <type = "S" AND id = r1.id>'
THM38 = '[TRUE]* . [type = "a"] -> r1 . [TRUE]* . <type = "b" AND id = r1.id>'


def _automata() -> dict[str, object]:
    """The papers' figures and the automata the notebooks draw."""
    models: dict[str, object] = {"CEL Fig. 4": example_5_3_cea(), "CEL Fig. 5": compile_automaton(parse("R")),
                                 "CEL Fig. 8": fig8_cea()}
    for name in ("φ1", "φ2", "φ3", "φ4"):
        models[f"CEA of {name}"] = compile_automaton(parse(FORMULAS[name]))
        models[f"I/O-deterministic {name}"] = io_determinize(compile_automaton(parse(FORMULAS[name]), trim=True))
    for strategy in ("NXT", "LAST", "MAX", "STRICT"):
        models[f"{strategy}(φ1)"] = compile_with_selection(parse(f"{strategy}({FORMULAS['φ1']})"))
    models["I/O-deterministic R ; T+"] = io_determinize(compile_automaton(parse("R ; T+"), trim=True))
    models["SO-CEL Fig. 2"] = fig2_ucea()
    low_then_high = compile_ucea(parse_socel("(T IN LOW ; H IN HIGH) FILTER LOW[value < 0] FILTER HIGH[value > 60]"))
    models["UCEA low then high"] = low_then_high
    models["I/O-deterministic UCEA"] = io_determinize_ucea(low_then_high)
    stocks = Stream([Event("SELL", price=101), Event("SELL", price=80), Event("BUY", price=85)])
    models["ACEA max and count"] = compile_acea(parse_acel(
        "AGG M[top <- max(X.price), n <- count(X.price)](SELL+ AS X ; BUY)"), schema_of(stocks))
    models["ACEL w1"], models["ACEL w2"] = w1_doubling(), w2_prefix_sums()
    t38 = compile_srt(parse_sremo(THM38))
    dsra = determinize_windowed(parse_sremo(f"({THM38}) WITHIN 3"))
    models.update({"SRT Fig. 1": compile_srt(parse_sremo(E1)), "SRT Fig. 4": t38, "SRT Fig. 5": unroll(t38, 3),
                   "dSRA": dsra, "complement": complement(dsra)})
    cces = CcesEvaluator(compile_automaton(parse(FORMULAS["φ1"])))
    tecs = Evaluator(compile_automaton(parse(FORMULAS["φ1"])))
    for e in fire_stream():
        cces.update(e)
        tecs.process(e)
    models["CCES after the fire stream"], models["tECS"] = cces, tecs.tecs
    return models


def _texts(model: object) -> Iterator[tuple[str, str]]:
    """Every text form of ``model``, with where it comes from."""
    yield "repr", repr(model)
    yield "str", str(model)
    if isinstance(model, Tecs):
        yield from ((f"describe({n})", model.describe(n)) for n in range(model.next_id))
    elif hasattr(model, "describe"):
        yield "describe()", model.describe()
    if hasattr(model, "_repr_mimebundle_"):
        yield "text/plain", model._repr_mimebundle_(include={"text/plain"})["text/plain"]
    if isinstance(model, CEA):
        yield "transitions", repr(list(model.transitions))
        yield "states", repr(sorted(model.states, key=repr))
        yield "initial", repr(model.initial)
        yield "final", repr(model.final)


@pytest.mark.parametrize("name", list(_automata()))
def test_no_python_repr_in_any_text_form(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SWITCH, "none")  # the text forms only
    for where, text in _texts(_automata()[name]):
        for leak in LEAKS:
            assert leak not in text, f"{name}, {where}: {leak!r} in\n{text}"


def test_the_io_deterministic_states_print_as_sets() -> None:
    d = io_determinize(compile_automaton(parse("R ; T+"), trim=True))
    assert repr(d.states) == "{{0}, {1, 2}, {1}, ∅}" and repr(d.initial) == "{{0}}"
    assert "  initial: {0}" in d.describe() and "  final:   {1, 2}" in d.describe()
    assert "  {0} --¬T ∧ R / {R}--> {1}" in d.describe() and "  ∅ --T ∧ ¬R / {T}--> ∅" in d.describe()
    assert "Transition({1} --T ∧ ¬R / {T}--> {1, 2})" in repr(d.transitions)


def test_counterexample_words_print_as_sets() -> None:
    answer = has_star_property_ucea(fig2_ucea())
    assert not answer.holds
    assert repr(answer.word()) == "[('R', {R}), ('T', ∅)]"
    assert answer.word() == [("R", frozenset({"R"})), ("T", frozenset())]  # still frozensets
    assert all(leak not in str(answer) for leak in LEAKS), str(answer)
    cel = has_star_property(compile_automaton(parse("R : T")))
    assert all(leak not in str(cel) for leak in LEAKS), str(cel)


def test_equivalence_verdicts_print_as_sets() -> None:
    verdict = equivalent(parse("H ; T"), parse("T ; H"))
    assert all(leak not in str(verdict) for leak in LEAKS), str(verdict)
    assert repr(verdict.word) == ("DistinguishingWord(valuations: H ∧ ¬T / {H}, ¬H ∧ T / {T}; left accepts, right "
                                  "rejects; subsets ({0}, {0}) → ({1, 2}, ∅) → ({3}, ∅))")
