"""The CEL paper's worked examples as exact oracles, and our own (O7, O8).

O1: §3 (Fig. 1 stream, φ1–φ5; O1.9: the §7.1 strategy examples). O2: §7.1 (≤_next, ≤_last). O3: Example 5.3
(Fig. 4). O4, O5: Figs. 7 and 8 (§9.2), rebuilt. O6: §8 (R UNLESS T before Cor. 8.6; STRICT(R+), §8.2 and App. B;
the Thm. 8.14 formula, App. D). O7, O8: our contiguity examples and operator corner cases (no seed source). O9: the
counterexamples of docs/errata.md (docs/decisions.md D7, D8, D13, D18).

Each oracle runs through the reference semantics (Fig. 3, §7.1) and, for formulas without selection
strategies, through the CEA compiled by Theorem 6.2. Positions are 0-based; unlisted positions output ∅.
"""

from __future__ import annotations

import pytest

from cer_theory.formalisms.cel.compile import compile_automaton
from cer_theory.core.events import Event, Stream, Valuation
from cer_theory.streams.rows import read_csv
from cer_theory.examples.running_example import FORMULAS, example_5_3_cea, fig8_cea, fire_stream
from cer_theory.formalisms.cel.semantics import le_last, le_next, evaluate, evaluate_complex_events
from cer_theory.formalisms.cel.ast import Select, Strategy
from cer_theory.formalisms.cel.parser import parse

Expected = dict[int, set[tuple[int, ...]]]


def _as_dict(outputs) -> Expected:
    return {n: {tuple(sorted(c)) for c in out} for n, out in enumerate(outputs) if out}


def _check(phi_text: str, stream: Stream, expected: Expected, *, via_cea: bool = True) -> None:
    phi = parse(phi_text)
    assert _as_dict(evaluate_complex_events(phi, stream)) == expected, f"semantics of {phi}"
    if via_cea and not any(isinstance(n, Select) for n in phi.walk()):
        cea = compile_automaton(phi)
        assert _as_dict(cea.run_complex_events(stream)) == expected, f"CEA of {phi}"
        assert cea.run(stream) == evaluate(phi, stream), f"valuations of the CEA of {phi}"


# ------------------------------------------------------------------------------------------------ O1

FIRE = fire_stream()
F = FORMULAS

O1 = {
    "O1.1 φ1": (F["φ1"], {2: {(1, 2)}, 8: {(1, 8), (5, 8)}}),
    "O1.2 φ1'": (F["φ1'"], {2: {(1, 2)}}),
    "O1.3 φ2": (F["φ2"], {2: {(1, 2)}, 5: {(2, 5)}, 8: {(1, 8), (5, 8)}}),
    "O1.4 φ2'": (F["φ2'"], {2: {(1, 2)}, 5: {(2, 5)}, 8: {(1, 8), (5, 8)}}),
    "O1.5 φ3": (F["φ3"], {7: {(3, 4, 6, 7), (3, 4, 7), (3, 6, 7)}}),
    "O1.6 φ3'": (F["φ3'"], {7: {(3, 4, 7), (3, 6, 7)}}),
    "O1.7 φ4": (F["φ4"], {7: {(4, 6), (4,), (6,)}}),
    "O1.8 φ5": (F["φ5"], {7: {(3, 4, 6, 7), (3, 4, 7), (3, 6, 7)}}),
    "O1.9 STRICT(φ1)": (f"STRICT({F['φ1']})", {2: {(1, 2)}}),
    "O1.9 NXT(φ1)": (f"NXT({F['φ1']})", {2: {(1, 2)}, 8: {(1, 8)}}),
    "O1.9 LAST(φ1)": (f"LAST({F['φ1']})", {2: {(1, 2)}, 8: {(5, 8)}}),
    "O1.9 MAX(φ1)": (f"MAX({F['φ1']})", {2: {(1, 2)}, 8: {(1, 8), (5, 8)}}),
    "O1.9 NXT(φ3)": (f"NXT({F['φ3']})", {7: {(3, 4, 6, 7)}}),
    "O1.9 LAST(φ3)": (f"LAST({F['φ3']})", {7: {(3, 4, 6, 7)}}),
    "O1.9 MAX(φ3)": (f"MAX({F['φ3']})", {7: {(3, 4, 6, 7)}}),
    "O1.9 STRICT(φ3)": (f"STRICT({F['φ3']})", {}),
    "O1.9 NXT(φ2)": (f"NXT({F['φ2']})", {2: {(1, 2)}, 5: {(2, 5)}, 8: {(1, 8)}}),
    "O1.9 LAST(φ2)": (f"LAST({F['φ2']})", {2: {(1, 2)}, 5: {(2, 5)}, 8: {(5, 8)}}),
}


@pytest.mark.parametrize("name", list(O1))
def test_O1_running_example(name: str) -> None:
    text, expected = O1[name]
    _check(text, FIRE, expected, via_cea="φ5" not in name)


def test_O1_phi5_is_not_unary_and_says_which_filter() -> None:
    from cer_theory.core.errors import NotUnaryError

    with pytest.raises(NotUnaryError, match=r"H\.id = T\.id"):
        compile_automaton(parse(F["φ5"]))


def test_O1_phi1_valuations_exactly() -> None:
    vals = evaluate(parse(F["φ1"]), FIRE)
    assert vals[8] == {Valuation({"T": [1], "H": [8]}), Valuation({"T": [5], "H": [8]})}
    phi3 = evaluate(parse(F["φ3"]), FIRE)[7]
    assert Valuation({"H": [3, 7], "H1": [3], "H2": [7], "T": [4, 6]}) in phi3


def test_O1_csv_and_jsonl_give_the_same_stream() -> None:
    from importlib import resources

    csv_text = resources.files("cer_theory").joinpath("examples/data/fire.csv").read_text()
    assert read_csv(csv_text) == FIRE


# ------------------------------------------------------------------------------------------------ O2


def test_O2_orders() -> None:
    assert le_next(frozenset({5, 8}), frozenset({1, 8}))
    assert not le_next(frozenset({1, 8}), frozenset({5, 8}))
    assert le_last(frozenset({1, 8}), frozenset({5, 8}))
    assert not le_last(frozenset({5, 8}), frozenset({1, 8}))


# ------------------------------------------------------------------------------------------------ O3


def test_O3_example_5_3_fig4() -> None:
    cea = example_5_3_cea()
    assert cea.is_io_deterministic()
    s = Stream.from_types("H T T H X H")
    got = _as_dict(cea.run_complex_events(s))
    # every CE from an H to an H with any subset of the T's in between
    assert got == {3: {(0, 3), (0, 1, 3), (0, 2, 3), (0, 1, 2, 3)},
                   5: {(0, 5), (0, 1, 5), (0, 2, 5), (0, 1, 2, 5), (3, 5)}}


# ------------------------------------------------------------------------------------------------ O5


def test_O5_fig8_normal_form_output() -> None:
    cea = fig8_cea()
    assert cea.is_io_deterministic()
    got = _as_dict(cea.run_complex_events(Stream.from_types("U V V W")))
    assert got == {3: {(0, 3), (0, 1, 3), (0, 2, 3), (0, 1, 2, 3)}}
    _check("U ; ((V+ ; W) OR W)", Stream.from_types("U V V W"), got)


# ------------------------------------------------------------------------------------------------ O6


def test_O6_unless() -> None:
    _check("R UNLESS T", Stream.from_types("R R"), {0: {(0,)}, 1: {(1,)}})
    _check("R UNLESS T", Stream.from_types("T R"), {})


def test_O6_renaming_cea_is_ce_equal_but_valuation_different() -> None:
    from cer_theory.automata.cea import CEA
    from cer_theory.core.predicates import is_type

    renaming = CEA(["p", "q"], [("p", is_type("R"), {"T"}, "q")], ["p"], ["q"])
    s = Stream.from_types("R")
    assert renaming.run(s)[0] == {Valuation({"T": [0]})}
    assert evaluate(parse("R IN T"), s)[0] == {Valuation({"R": [0], "T": [0]})}
    assert renaming.run_complex_events(s) == evaluate_complex_events(parse("R IN T"), s)


def test_O6_strict_plus_gives_suffix_intervals() -> None:
    n = 4
    s = Stream.from_types("R " * (n + 1))
    got = _as_dict(evaluate_complex_events(parse("STRICT(R+)"), s))
    assert got[n] == {tuple(range(k, n + 1)) for k in range(n + 1)}


def test_O6_theorem_8_14_formula() -> None:
    rows = [("A", 1), ("L", 1), ("E", 1), ("A", 2), ("L", 2), ("E", 2), ("A", 3), ("L", 3), ("E", 3)]
    s = Stream([Event(t, a=v) for t, v in rows])
    _check("((A ; E) FILTER A.a = E.a):+", s,
           {2: {(0, 2)}, 5: {(0, 2, 3, 5), (3, 5)}, 8: {(0, 2, 3, 5, 6, 8), (3, 5, 6, 8), (6, 8)}},
           via_cea=False)


# ------------------------------------------------------------------------------------------------ O7

RXS, RS = Stream.from_types("R X S R X S"), Stream.from_types("R S R S")


@pytest.mark.parametrize("text,stream,expected", [
    ("(R ; S):+", RXS, {2: {(0, 2)}, 5: {(0, 2, 3, 5), (0, 5), (3, 5)}}),
    ("(R ; S)+", RXS, {2: {(0, 2)}, 5: {(0, 2, 3, 5), (0, 5), (3, 5)}}),
    ("(R : S):+", RXS, {}),
    ("(R : S):+", RS, {1: {(0, 1)}, 3: {(0, 1, 2, 3), (2, 3)}}),
    ("(R ; S):+", RS, {1: {(0, 1)}, 3: {(0, 1, 2, 3), (0, 3), (2, 3)}}),
])
def test_O7_contiguity(text: str, stream: Stream, expected: Expected) -> None:
    _check(text, stream, expected)


# ------------------------------------------------------------------------------------------------ O8

RTR = Stream.from_types("R T R")


@pytest.mark.parametrize("text,expected", [
    ("START(R)", {0: {(0,)}}),
    ("START(R ; R)", {2: {(0, 2)}}),
    ("PI[](R)", {0: {()}, 2: {()}}),
    ("R AND (R IN A)", {}),
    ("PI[R](R) AND PI[R](R IN A)", {0: {(0,)}, 2: {(2,)}}),
    ("R ALL T", {1: {(0, 1)}, 2: {(1, 2)}}),
    ("(R ; R) ALL T", {2: {(0, 1, 2)}}),
    ("PI[](T) : R", {}),
])
def test_O8_operator_corner_cases(text: str, expected: Expected) -> None:
    _check(text, RTR, expected)


# ------------------------------------------------------------------------------------------------ O9


def test_O9_erratum_cplus_single_transition_iterations() -> None:
    """[erratum] Theorem 6.2, case ⊕ (docs/errata.md; D8): the printed construction misses {0,1,2} on R R R."""
    s = Stream.from_types("R R R")
    expected = {0: {(0,)}, 1: {(1,), (0, 1)}, 2: {(2,), (1, 2), (0, 1, 2)}}
    _check("R:+", s, expected)
    assert (0, 1, 2) in _as_dict(compile_automaton(parse("R:+")).run_complex_events(s))[2]


def test_O9_erratum_unless_checks_every_subinterval() -> None:
    """[erratum] Theorem 6.2, case UNLESS (docs/errata.md; D8): on T R the printed construction outputs {1};
    the semantics gives ∅."""
    s = Stream.from_types("T R")
    assert not compile_automaton(parse("R UNLESS T")).run_complex_events(s)[1]
    assert not evaluate_complex_events(parse("R UNLESS T"), s)[1]


def test_O9_strategies_on_the_tie_counterexample_formula() -> None:
    """The selection strategies keep all valuations that share the selected support (Theorem 7.2 erratum,
    docs/errata.md)."""
    s = Stream.from_types("R R")
    vals = evaluate(parse("MAX((R IN A) OR (R ; R IN B))"), s)[1]
    assert {m.support() for m in vals} == {frozenset({0, 1})}
    for strategy in Strategy:
        assert evaluate(parse(f"{strategy.value}(R)"), s) == evaluate(parse("R"), s)


@pytest.mark.parametrize("text,stream,expected", [
    ("R ALL START(T)", "R X T", {2: {(0, 2)}}),
    ("START(T) ALL R", "R X T", {2: {(0, 2)}}),
    ("R ALL (T UNLESS R)", "R R T", {2: {(0, 2), (1, 2)}}),
])
def test_erratum_all_allows_a_gap_between_the_operands(text: str, stream: str, expected: Expected) -> None:
    """[erratum, ours] Fig. 3's ALL lets the operands' intervals leave a gap; the printed product cannot idle
    there. Found by the Theorem 6.2 property test; see docs/decisions.md D7."""
    _check(text, Stream.from_types(stream), expected)
