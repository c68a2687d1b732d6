"""A conformance harness never turns an engine's error into an answer: every adapter surfaces what its engine
reports (an error, a refusal, a non-empty stderr, an exit status, output it cannot parse) as an engine error or a
refusal, and every grader has an input that makes it say no (docs/decisions.md D190)."""

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import cer_theory.conformance.adapters as adapters
import cer_theory.engines.core.run as run_module
from cer_theory.conformance.adapters import CommandAdapter, DRIVER, EngineAdapter, ReferenceAdapter, SparkAdapter, \
    pycer_adapter
from cer_theory.conformance.check import AGREE, ENGINE_ERROR, REFUSED, UNEXPLAINED, conforms, judge, per_position, \
    run_case, run_cases
from cer_theory.conformance.dialects import CORE, PAPER
from cer_theory.conformance.generate import DECLARATIONS
from cer_theory.conformance.protocol import Case, ConformanceError, EngineFailure, parse_answer
from cer_theory.core.errors import CerError, UnsupportedError
from cer_theory.formalisms.ceql.semantics import evaluate

HERE = Path(__file__).parent
FAKE = [sys.executable, str(HERE / "fake_engine.py")]
REPO = HERE.parents[1]

OR_CASE = Case.make(DECLARATIONS, "SELECT * FROM S WHERE U OR R", [{"type": "U", "s": "b", "x": 0, "time": 0}])
PLAIN = Case.make(DECLARATIONS, "SELECT * FROM S WHERE T", [{"type": "T", "s": "b", "x": 2, "time": 0}])
SET_LITERAL = Case.make(DECLARATIONS, "SELECT * FROM S WHERE T FILTER T[x NOT IN {0}]",
                        [{"type": "T", "s": "ab", "x": 2, "time": 8}])
"""One of CORE 0.1.6's refusals, as the committed pycer run found it (a FILTER with a set literal)."""


# ---------------------------------------------------------------------------------------------- command:CMD


@pytest.mark.parametrize("flag, kind, words", [
    ("--error-on-or", ENGINE_ERROR, "the engine reported: Exception: Invalid argument"),
    ("--refuse-on-or", REFUSED, "the engine refused the query: OR is not supported"),
    ("--complain-on-or", ENGINE_ERROR, "the engine wrote on stderr: warning: OR evaluated approximately"),
    ("--unparseable-on-or", ENGINE_ERROR, "the answer is not JSON: 'Failed to process client request.'"),
    ("--no-events-on-or", ENGINE_ERROR, "the answer has none of 'complex_events', 'refused', 'error'"),
])
def test_command_adapter_reports_what_the_engine_reports(flag, kind, words):
    adapter = CommandAdapter(FAKE + [flag], name="fake")
    try:
        trouble = run_case(OR_CASE, adapter, PAPER)
        after = run_case(PLAIN, adapter, PAPER)
    finally:
        adapter.close()
    assert trouble.kind == kind and trouble.got is None and words in trouble.error, trouble.to_json()
    assert after.kind == AGREE, after.to_json()  # only the case that went wrong is marked


def test_command_adapter_reports_an_exit_status_after_the_last_case():
    adapter = CommandAdapter(FAKE + ["--exit-1"], name="fake")
    assert run_case(PLAIN, adapter, PAPER).kind == AGREE
    with pytest.raises(EngineFailure, match="after the last case the engine exited with status 1"):
        adapter.close()


@pytest.mark.parametrize("timeout", [float("nan"), -1.0, 0.0, float("inf"), 1e300])
def test_command_adapter_refuses_a_timeout_that_cannot_fire(timeout):
    with pytest.raises(ConformanceError, match="timeout"):
        CommandAdapter(FAKE, timeout=timeout)


def test_command_adapter_refuses_a_command_line_it_cannot_split():
    with pytest.raises(ConformanceError, match="No closing quotation"):
        CommandAdapter("echo 'a")


# ---------------------------------------------------------------------------------------------- in-process engines


def _raises(exc: Exception):
    def engine(*args, **kwargs):
        raise exc
    return engine


class _Broken:
    """An Engine whose ``process`` fails like a bug would."""

    def __init__(self, query):
        pass

    def process(self, events):
        raise KeyError("a bug in the engine")


@pytest.mark.parametrize("make, module, patch, exc, kind", [
    # the engine adapter runs the query through run_stream, which builds the Engine
    (EngineAdapter, run_module, "Engine", _Broken, ENGINE_ERROR),
    (EngineAdapter, run_module, "Engine", _raises(UnsupportedError("this engine has no OR")), REFUSED),
    (ReferenceAdapter, adapters, "evaluate", _raises(CerError("the reference stops")), ENGINE_ERROR),
    (ReferenceAdapter, adapters, "evaluate", _raises(ZeroDivisionError("a bug in the semantics")), ENGINE_ERROR),
])
def test_in_process_adapters_report_what_the_engine_raises(monkeypatch, make, module, patch, exc, kind):
    monkeypatch.setattr(module, patch, exc)
    outcome = run_case(PLAIN, make(), PAPER)
    assert outcome.kind == kind and outcome.got is None and outcome.error, outcome.to_json()


class _FakeSession:
    def createDataFrame(self, frame):
        return frame


def _spark_result(bad_rows: int):
    rows = [(0, 0, [0])]
    matches = SimpleNamespace(select=lambda *cols: SimpleNamespace(collect=lambda: rows))
    return lambda *args, **kwargs: SimpleNamespace(matches=matches, bad_rows=bad_rows, close=lambda: None)


@pytest.mark.parametrize("run, kind, words", [
    (_raises(RuntimeError("Py4JJavaError: the executor died")), ENGINE_ERROR, "the executor died"),
    (_raises(UnsupportedError("no plan for this query")), REFUSED, "no plan for this query"),
    (_spark_result(bad_rows=1), ENGINE_ERROR, "the pipeline rejected 1 of the 1 rows"),
])
def test_spark_adapter_reports_failures_and_rejected_rows(monkeypatch, run, kind, words):
    monkeypatch.setattr(adapters, "run", run)
    outcome = run_case(PLAIN, SparkAdapter(session=_FakeSession()), PAPER)
    assert outcome.kind == kind and words in outcome.error, outcome.to_json()
    monkeypatch.setattr(adapters, "run", _spark_result(bad_rows=0))
    assert run_case(PLAIN, SparkAdapter(session=_FakeSession()), PAPER).kind == AGREE  # the fake itself is sound


# ---------------------------------------------------------------------------------------------- pycer's driver


def fake_pycer(mode: str = "") -> CommandAdapter:
    """The pycer adapter, its driver running on this Python with the stand-in pycer (fake_pycer/pycer.py)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE / "fake_pycer"), str(REPO)]), "FAKE_PYCER": mode}
    return pycer_adapter(sys.executable, env=env)


def test_pycer_driver_answers_a_refusal_as_a_refusal():
    """pycer 0.1.6 prints "Failed to process client request." and get_output() returns "Exception: Invalid
    argument" for a set literal; the driver once kept only the [start,end] lines, so this was an empty answer."""
    adapter = fake_pycer()
    try:
        refused = run_case(SET_LITERAL, adapter, CORE)
        plain = run_case(PLAIN, adapter, CORE)
    finally:
        adapter.close()
    assert refused.kind == REFUSED and refused.got is None
    assert "Failed to process client request." in refused.error and "Exception: Invalid argument" in refused.error
    assert plain.kind == AGREE and plain.got == [(0, 0, (0,))]  # the stand-in's start-up line is not a complaint


@pytest.mark.parametrize("mode, words", [
    ("garbage", "an output line that is not a complex event: 'Warning: a line that is not a complex event'"),
    ("stderr", "CORE printed: warning: the fake engine is unwell"),
    ("raise", "RuntimeError: the fake engine's send_events fails"),
])
def test_pycer_driver_reports_every_other_message_as_an_engine_error(mode, words):
    adapter = fake_pycer(mode)
    try:
        outcome = run_case(PLAIN, adapter, CORE)
    finally:
        adapter.close()
    assert outcome.kind == ENGINE_ERROR and words in outcome.error, outcome.to_json()


def test_pycer_driver_refuses_what_add_query_raises_on():
    driver = subprocess.run([sys.executable, str(DRIVER)], input='{"id": 1, "schema": {"S": {"T": {"x": "int"}}}, '
                            '"query": "not a query", "events": []}\n', capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(HERE / "fake_pycer")}, cwd=str(HERE), timeout=60)
    assert driver.returncode == 0 and driver.stderr == ""
    assert driver.stdout.strip() == ('{"id": 1, "refused": "PyParsingSyntaxException: Syntax error: <EOF> '
                                     'Line: 1"}')


# ---------------------------------------------------------------------------------------------- the graders


def test_every_grader_has_an_input_that_makes_it_say_no():
    c = Case.make(DECLARATIONS, "SELECT * FROM S WHERE R ; T LIMIT 1",
                  [{"type": t, "s": "b", "x": 0, "time": k} for k, t in enumerate("RRT")])
    expected = evaluate(c.ast, c.events)
    assert conforms(expected, [(0, 2, (0, 2))], 1)
    assert not conforms(expected, [(0, 2, (0, 2)), (1, 2, (1, 2))], 1)  # LIMIT 1: one per end position
    assert not conforms(expected, [(0, 2, (0, 1))], 1)  # not an expected CE
    assert not conforms(expected, [(0, 2, (0, 2))], None)  # without LIMIT: the whole multiset
    assert per_position([(0, 3, (0, 3))], 3) is None  # outside the stream
    assert per_position([(2, 1, (1,))], 3) is None  # start after end
    with pytest.raises(EngineFailure, match="integer 'start'"):
        parse_answer([{"start": "zero", "end": 0, "positions": []}], 1)
    with pytest.raises(EngineFailure, match="must be a list"):
        parse_answer(None, 1)
    assert judge(c, [], PAPER).kind == UNEXPLAINED
    assert judge(c, [], CORE).kind == UNEXPLAINED  # no CORE reading explains losing every CE
    assert judge(c, None, PAPER, error="x").kind == ENGINE_ERROR
    assert judge(c, None, PAPER, error="x", refused=True).kind == REFUSED


def test_refusals_are_findings_of_their_own_class_and_are_shrunk():
    class Refusing(ReferenceAdapter):
        name = "refusing"

        def run(self, case):
            if "FILTER" in case.query:
                raise adapters.engine_failure(UnsupportedError("no FILTER here"))
            return super().run(case)

    big = Case.make(DECLARATIONS, "SELECT * FROM S WHERE (T ; R) FILTER T[x > 0] WITHIN 3 EVENTS",
                    [{"type": t, "s": "b", "x": 1, "time": k} for k, t in enumerate("TRTR")])
    outcomes, summary = run_cases([big, PLAIN], Refusing(), PAPER)
    assert summary.line() == "2 cases: 1 agree, 0 explained, 0 unexplained, 1 refused, 0 engine errors"
    assert not summary.passed
    minimal = outcomes[0].minimal
    assert minimal is not None and minimal.kind == REFUSED and "WITHIN" not in minimal.case.query
    assert len(minimal.case.events) == 1


@pytest.mark.parametrize("item, why", [
    ({"start": 0.9, "end": 1, "positions": [1]}, "integer"),  # would have been truncated to 0
    ({"start": "0", "end": 1, "positions": [1]}, "integer"),
    ({"start": 0, "end": True, "positions": [0]}, "integer"),
    ({"start": 0, "end": 1, "positions": "1"}, "integer"),
    ({"start": 0, "end": 3, "positions": [3]}, "not inside the stream"),
    ({"start": -1, "end": 1, "positions": [1]}, "not inside the stream"),
    ({"start": 2, "end": 1, "positions": [1]}, "not inside the stream"),
    ({"start": 1, "end": 2, "positions": [0, 2]}, "distinct and inside"),
    ({"start": 0, "end": 2, "positions": [2, 2]}, "distinct and inside"),
])
def test_an_answer_is_never_coerced_into_a_complex_event(item: dict, why: str) -> None:
    """A complex event the adapter would have to round, convert or clip is not the engine's answer: it is an
    engine error, whatever the expected answer (here a stream of 3 events)."""
    with pytest.raises(EngineFailure, match=why):
        parse_answer([item], 3)
    assert parse_answer([{"start": 0, "end": 2, "positions": [2, 0]}], 3) == [(0, 2, (0, 2))]


@pytest.mark.parametrize("wrong_id", ["true", "1.0", '"1"'])
def test_an_answer_to_another_request_is_not_taken(wrong_id: str) -> None:
    """The answer's id must be the request's integer: JSON ``true`` or ``1.0`` equal 1 in Python, and an engine
    that answers with them has not answered request 1."""
    script = ("import sys\nfor line in sys.stdin:\n"
              f"    print('{{\"id\": {wrong_id}, \"complex_events\": []}}', flush=True)\n")
    adapter = CommandAdapter([sys.executable, "-c", script], name="wrong-id")
    try:
        with pytest.raises(EngineFailure, match="the answer has id"):
            adapter.run(PLAIN)
    finally:
        adapter.close()
