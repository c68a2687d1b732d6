"""The uniform evaluators of SO-CEL/FO-CEL (ready for a Formalism record): they agree with the semantics on their
fragments, and outputs print in issue 11's JSON form."""

from __future__ import annotations

import json

from hypothesis import given, settings

from cer_theory.core.events import Stream, Valuation
from cer_theory.formalisms.socel.ast import Formula
from cer_theory.formalisms.socel.evaluators import (compilable, format_fo, match_sort_key, match_to_json, parse_fo,
                                                    run_fo, run_prop_5_1, run_semantics, run_ucea, run_ucea_star,
                                                    star_compilable, valuation_from_json, valuation_sort_key,
                                                    valuation_to_json)
from cer_theory.formalisms.socel.examples import FREEZING_PATTERN, sensor_stream
from cer_theory.formalisms.socel.parser import parse
from cer_theory.testing.strategies.socel import fo_formulas, formulas, socel_streams


@settings(max_examples=40)
@given(formulas(max_depth=2), socel_streams(5))
def test_every_evaluator_agrees_with_the_semantics_on_its_fragment(phi: Formula, stream: Stream) -> None:
    expected = run_semantics(phi, stream)
    if compilable(phi):
        assert run_ucea(phi, stream) == expected
        assert run_prop_5_1(phi, stream) == expected
    if star_compilable(phi):
        assert run_ucea_star(phi, stream) == expected


def test_sensor_output_line_format() -> None:
    out = run_semantics(parse(FREEZING_PATTERN), sensor_stream())[9]
    line = [valuation_to_json(c) for c in sorted(out, key=valuation_sort_key)]
    assert len(line) == 26 and {"H": [4, 6, 7, 9], "HH": [9], "HS": [4, 6, 7], "T": [3]} in line
    assert [json.dumps(x, sort_keys=True) for x in line] == sorted(json.dumps(x, sort_keys=True) for x in line)
    assert valuation_to_json(Valuation()) == {} and valuation_from_json({"A": [2, 1]}) == Valuation({"A": [1, 2]})


@settings(max_examples=40)
@given(fo_formulas(), socel_streams(4))
def test_fo_print_parse_round_trip(phi, stream: Stream) -> None:
    back = parse_fo(format_fo(phi))
    assert back == phi
    assert run_fo(back, stream) == run_fo(phi, stream)


def test_fo_matches_print_sorted() -> None:
    phi = parse_fo("R AS x ; T AS y")
    out = run_fo(phi, Stream.from_types("R R T"))[2]
    assert sorted(map(match_to_json, out)) == [[0, 2], [1, 2]]
    # the canonical order is numeric (docs/output-contract.md): [2, 10] before [10, 11], which text order reverses
    assert match_sort_key(frozenset({2, 0})) == (0, 2)
    assert sorted([frozenset({10, 11}), frozenset({2, 10})], key=match_sort_key) == [frozenset({2, 10}),
                                                                                     frozenset({10, 11})]
