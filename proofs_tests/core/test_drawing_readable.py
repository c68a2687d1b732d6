"""Drawings a class can read: simplified labels (equivalent by Z3), no Python reprs, useless states left out
unless asked for, ACEA labels on several lines, ``graphviz.Digraph`` for every drawable, and the papers' figures
free of every leak."""

from __future__ import annotations

import re
from pathlib import Path

import graphviz
import pytest

from cer_theory.automata.cea import CEA
from cer_theory.automata.determinize.eager import io_determinize
from cer_theory.core.drawing import shown
from cer_theory.core.predicates.ast import cmp, conj, disj, is_type, neg
from cer_theory.core.predicates.printing import readable
from cer_theory.core.predicates.solver import equivalent
from cer_theory.examples.figures import write_all
from cer_theory.formalisms.cel.compile import compile_automaton
from cer_theory.formalisms.cel.parser import parse

R, S, T = is_type("R"), is_type("S"), is_type("T")
LEAKS = ("frozenset", "\\\\n", "1e999", "inf")


def _labels(dot: str) -> list[str]:
    """Every label of a DOT text, quoted or bare (the graphviz package leaves simple IDs unquoted)."""
    return [quoted or bare for quoted, bare in re.findall(r'label=(?:"((?:[^"\\]|\\.)*)"|([^\s,\]"]+))', dot)]


@pytest.mark.parametrize("p, expected", [
    (disj(neg(R), neg(T)), "⊤"),           # an event has one type: it is never both R and T
    (conj(neg(R), T), "T"),
    (conj(R, T), "⊥"),
    (disj(R, T), "R ∨ T"),
    (conj(neg(R), cmp("x", ">", 1)), "x>1 ∧ ¬R"),
    # not R: an event may lack x, and then neither comparison holds
    (disj(conj(R, cmp("x", ">", 1)), conj(R, cmp("x", "<=", 1))), "R ∧ (x>1 ∨ x≤1)"),
])
def test_labels_are_simplified_modulo_the_meaning_of_atoms(p, expected) -> None:
    q = readable(p)
    assert q.label() == expected, f"{p.label()} → {q.label()}, expected {expected}"
    assert equivalent(p, q), f"{p.label()} and its drawing {q.label()} differ"


def test_determinize_shows_the_dead_state_as_total_only_when_asked() -> None:
    det = io_determinize(compile_automaton(parse("R ; T+"))).relabel_states()
    trimmed, full = det.to_dot(), det.to_dot(trim=False)
    for dot in (trimmed, full):
        assert "¬R ∨ ¬T" not in dot and "¬R ∧ T" not in dot and "frozenset" not in dot
        assert "T / {T}" in dot
    # every state drawn either way, the dead one grey by default (D384)
    assert len(re.findall(r"^  q\d+ \[", trimmed, re.M)) == len(re.findall(r"^  q\d+ \[", full, re.M))
    assert "style=dashed" in trimmed and "style=dashed" not in full
    dead = [q for q in det.states if q not in det.coreachable()]
    assert dead, "the I/O-deterministic automaton of R ; T+ has a dead state"


def test_raw_labels_stay_available() -> None:
    a = CEA(["p", "q"], [("p", conj(neg(R), T), {"x"}, "q")], ["p"], ["q"])
    assert "T / {x}" in a.to_dot() and "¬R ∧ T / {x}" in a.to_dot(merge=False)


def test_state_sets_are_written_as_sets() -> None:
    a = CEA([frozenset({0, 1}), frozenset()], [(frozenset({0, 1}), R, {"x"}, frozenset())],
            [frozenset({0, 1})], [frozenset()])
    dot = a.to_dot()
    assert 'label="{0, 1}"' in dot and 'label="∅"' in dot and "frozenset" not in dot
    assert shown(frozenset({10, 2})) == "{2, 10}" and shown(float("-inf")) == "−∞" and shown((1, "a")) == "(1, a)"


def test_the_equivalence_product_breaks_lines_for_real() -> None:
    from cer_theory.automata.equivalence import compare
    from cer_theory.formalisms.cel.equivalence import automaton

    verdict = compare(automaton(parse("R ; T")), automaton(parse("T")))
    dot = verdict.diagram("φ1", "φ2").to_dot()
    assert "\\\\n" not in dot and "φ1: " in dot and "\\nφ2: " in dot


def test_acea_labels_are_several_short_lines_with_readable_symbols() -> None:
    from cer_theory.core.events import Event, Stream
    from cer_theory.formalisms.acel.compile import compile_automaton, schema_of
    from cer_theory.formalisms.acel.parser import parse as parse_acel

    stocks = Stream([Event("SELL", price=101), Event("BUY", price=85)])
    acea = compile_automaton(parse_acel("AGG M[top <- max(X.price), n <- count(X.price)](SELL AS X ; BUY)"),
                        schema_of(stocks))
    dot = acea.to_dot()
    assert "1e999" not in dot and "−∞ ⊕max" in dot
    for label in _labels(dot)[1:]:
        assert max(len(line) for line in label.split("\\n")) < 60, label
    assert any(label.startswith("[⊤]") for label in _labels(dot))


def test_every_drawable_gives_a_graphviz_digraph() -> None:
    from cer_theory.engines.cces.evaluator import CcesEvaluator
    from cer_theory.examples.running_example import fire_stream, formula
    from cer_theory.formalisms.sremo.compile import compile_automaton as compile_srt
    from cer_theory.formalisms.sremo.parser import parse as parse_sremo

    cea = compile_automaton(parse("R ; T"))
    srt = compile_srt(parse_sremo('<type = "B"> -> r1 . [TRUE]* . <type = "S" AND id = r1.id>'))
    for drawable in (cea, srt):
        g = drawable.to_graphviz()
        assert isinstance(g, graphviz.Digraph)
        assert sorted(_labels(g.source)) == sorted(_labels(drawable.to_dot()))
    ev = CcesEvaluator(compile_automaton(formula("φ1")))
    for e in fire_stream():
        ev.update(e)
    g = ev.to_graphviz()
    assert isinstance(g, graphviz.Digraph) and sorted(_labels(g.source)) == sorted(_labels(ev.to_dot()))
    assert "frozenset" not in g.source


def test_the_papers_figures_have_no_leaks_and_scale(tmp_path: Path) -> None:
    for path in write_all(tmp_path):
        text = path.read_text(encoding="utf-8")
        for leak in ("frozenset", "1e999"):
            assert leak not in text, f"{path.name}: {leak}"
        if path.suffix == ".svg":
            root = text[text.index("<svg"):text.index(">", text.index("<svg"))]
            assert "viewBox" in root and 'width="100%"' in root and 'height="' not in root, path.name
            assert "\\n" not in text, f"{path.name} draws a literal \\n"
