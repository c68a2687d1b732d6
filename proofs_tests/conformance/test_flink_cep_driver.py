"""The Flink CEP adapter's honesty without Java: a driver that hangs, exits, answers garbage or answers matches it
cannot read is an engine error for every case of its batch, never an empty answer; a query outside the dialect is
refused (docs/conformance.md, "Flink CEP")."""

from __future__ import annotations

import sys

import pytest

from cer_theory.conformance.check import ENGINE_ERROR, REFUSED
from cer_theory.conformance.cep_translate import DECLARATIONS, Untranslatable
from cer_theory.conformance.flink_cep import CepDriver, FlinkCepAdapter, classify, read_matches
from cer_theory.conformance.protocol import Case, EngineFailure

CASE = Case.make(DECLARATIONS, "SELECT * FROM S WHERE R ; T", [{"type": "R", "x": 1, "s": "a", "time": 0},
                                                              {"type": "T", "x": 1, "s": "a", "time": 0}])


def stand_in(code: str, timeout: float = 2.0) -> FlinkCepAdapter:
    return FlinkCepAdapter(driver=CepDriver(argv=[sys.executable, "-c", code], timeout=timeout, start_seconds=0))


@pytest.mark.parametrize("code, why", [
    ("import time; time.sleep(30)", "no answer within"),
    ("import sys; sys.exit(3)", "exited without answering"),
    ("print('not json', flush=True); import time; time.sleep(30)", "not JSON"),
    ("import sys; [sys.stdin.readline() for _ in range(2)]; print('{\"done\": 1}', flush=True)", "answered 0 cases"),
])
def test_a_failing_driver_is_an_engine_error(code, why):
    adapter = stand_in(code)
    try:
        (result,) = adapter.run_many([CASE])
        assert isinstance(result, EngineFailure) and why in str(result), result
        o = classify(CASE, result)
        assert o.kind == ENGINE_ERROR and o.got is None
        with pytest.raises(EngineFailure):
            adapter.run(CASE)
    finally:
        adapter.close()


def test_an_error_answer_is_an_engine_error_and_a_refusal_a_refusal():
    code = ("import sys, json\n"
            "lines = [json.loads(sys.stdin.readline()) for _ in range(3)]\n"
            "print(json.dumps({'id': lines[0]['id'], 'error': 'boom'}))\n"
            "print(json.dumps({'id': lines[1]['id'], 'refused': 'MalformedPatternException: no'}))\n"
            "print(json.dumps({'done': 2}), flush=True)\n")
    adapter = stand_in(code)
    try:
        error, refusal = adapter.run_many([CASE, CASE])
        assert classify(CASE, error).kind == ENGINE_ERROR and "boom" in str(error)
        assert classify(CASE, refusal).kind == REFUSED
    finally:
        adapter.close()


@pytest.mark.parametrize("answer", [
    {"id": 1}, {"id": 1, "matches": "none"}, {"id": 1, "matches": [{"e0": [0], "e9": [1]}]},
    {"id": 1, "matches": [{"e0": []}]}, {"id": 1, "matches": [{"e0": [7]}]}, {"id": 1, "matches": [{"e0": [True]}]},
])
def test_matches_the_adapter_cannot_read(answer):
    with pytest.raises(EngineFailure):
        read_matches(answer, 2, {0, 1})


def test_untranslatable_is_refused_not_sent():
    adapter = stand_in("import time; time.sleep(30)")  # never asked: the refusal comes before the driver
    try:
        c = Case.make(DECLARATIONS, "SELECT LAST * FROM S WHERE R ; T", CASE.events)
        (result,) = adapter.run_many([c])
        assert isinstance(result, Untranslatable)
        o = classify(c, result)
        assert o.kind == REFUSED and o.error.startswith("untranslatable: ")
        assert adapter.driver.jobs == 0
    finally:
        adapter.close()
