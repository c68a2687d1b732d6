"""Strategies side by side on Flink's teaching example (``b+ c`` over ``b1 b2 b3 c``): every row is the CEQL
reference semantics, and a strategy row's automaton (the CEL paper Thm 7.2) reports exactly the same complex events."""

from __future__ import annotations

from cer_theory.core.events import Event
from cer_theory.formalisms.cel.parser import parse
from cer_theory.formalisms.cel.selection import compile_with_selection
from cer_theory.stepper.strategies import SEED000_STRATEGY, page, side_by_side

STREAM = [Event("B", id=1), Event("B", id=2), Event("B", id=3), Event("C", id=4), Event("B", id=5), Event("C", id=6)]
NAMES = ["b1", "b2", "b3", "c", "b4", "c2"]


def _rows():
    return {r.name: r for r in side_by_side("B+ ; C", STREAM, within="2 [id]", names=NAMES)}


def test_flinks_example_under_every_reading() -> None:
    rows = _rows()
    at3 = {name: dict(r.outputs).get(3) for name, r in rows.items()}
    # STRICT is contiguity: Flink's NO_SKIP / SKIP_TO_NEXT result for b+ c with next()-contiguity
    assert at3["STRICT"] == ("[b1 b2 b3 c]", "[b2 b3 c]", "[b3 c]")
    assert at3["NEXT"] == at3["LAST"] == at3["MAX"] == ("[b1 b2 b3 c]",)
    assert len(at3["ALL"]) == 7, "skip-till-any-match: every subsequence of b's before c"
    assert dict(rows["CONSUME BY ANY"].outputs)[5] == ("[b4 c2]",), "b1..b3 were consumed by the match at c"
    assert len(dict(rows["ALL"].outputs)[5]) == 15
    assert at3["WITHIN 2 [id], the paper's reading"] == ("[b2 b3 c]", "[b2 c]", "[b3 c]")
    assert at3["WITHIN 2 [id], CORE's reading"] == ("[b3 c]",)


def test_each_strategy_rows_automaton_reports_the_same_complex_events() -> None:
    rows = _rows()
    for ceql, cel in SEED000_STRATEGY.items():
        cea = compile_with_selection(parse(f"{cel}(B+ ; C)"))
        by_automaton = tuple((j, tuple(sorted("[" + " ".join(NAMES[k] for k in ce.positions) + "]" for ce in ces)))
                             for j, ces in enumerate(cea.run_complex_events(STREAM)) if ces)
        assert rows[ceql].outputs == by_automaton, ceql
        assert rows[ceql].automaton == f"the CEL paper, Thm 7.2: {cel}(B+ ; C)"


def test_the_page_puts_each_automaton_behind_a_click() -> None:
    rows = side_by_side("B+ ; C", STREAM[:4], names=NAMES[:4])
    text = page(rows, "B+ ; C", NAMES[:4])
    assert text.count("<details>") == len(rows) == 7 and "https://" not in text
