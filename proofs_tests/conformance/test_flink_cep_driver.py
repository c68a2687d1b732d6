"""The Flink CEP adapter's honesty without Java: a driver that hangs, exits, answers garbage or answers matches it
cannot read is an engine error for every case of its batch, never an empty answer; a query outside the dialect is
refused (docs/conformance.md, "Flink CEP")."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from cer_theory.conformance import flink_cep
from cer_theory.conformance.adapters import ReferenceAdapter
from cer_theory.conformance.cep import CepPattern, Quantifier, Stage
from cer_theory.conformance.check import ENGINE_ERROR, REFUSED, UNEXPLAINED
from cer_theory.conformance.cep_translate import DECLARATIONS, Untranslatable
from cer_theory.conformance.flink_cep import CepDriver, FlinkCepAdapter, classify, driver_classes, known_finding, \
    read_matches, run_cases, write_report
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


# ---------------------------------------------------------------------------------------------- the compiled driver


@pytest.fixture
def fake_javac(monkeypatch):
    """The compiler replaced by one that writes a marker class (the cache policy is what is tested here)."""
    compiled: list[Path] = []

    def compile_(into: Path, jars) -> None:
        (into / "CerFlinkCepDriver.class").write_bytes(b"\xca\xfe\xba\xbe")
        compiled.append(into)

    monkeypatch.setattr(flink_cep, "_compile", compile_)
    return compiled


def test_driver_classes_are_cached_in_a_private_folder(tmp_path, monkeypatch, fake_javac):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("CER_THEORY_CACHE", str(cache))
    jar = tmp_path / "flink-cep-2.3.0.jar"
    jar.write_bytes(b"jar")
    first = driver_classes([jar])
    assert first.parent == cache / "flink-cep-driver" and (first / "CerFlinkCepDriver.class").exists()
    assert driver_classes([jar]) == first and len(fake_javac) == 1  # compiled once
    jar.write_bytes(b"another jar")
    assert driver_classes([jar]) != first and len(fake_javac) == 2  # other jars: compiled again


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX modes")
def test_driver_classes_in_a_folder_others_can_write_are_not_run(tmp_path, monkeypatch, fake_javac):
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("CER_THEORY_CACHE", str(cache))
    jar = tmp_path / "flink-cep-2.3.0.jar"
    jar.write_bytes(b"jar")
    cached = driver_classes([jar])
    os.chmod(cached, 0o777)  # someone else could now swap the classes
    chosen = driver_classes([jar])
    assert chosen != cached and not chosen.is_relative_to(cache) and (chosen / "CerFlinkCepDriver.class").exists()
    assert stat.S_IMODE(chosen.stat().st_mode) == 0o700


@pytest.mark.skipif(flink_cep.missing_requirements() is None, reason="the extra and a JDK are here")
def test_cli_without_the_extra_exits_2():
    r = subprocess.run([sys.executable, "-m", "cer_theory.cli", "conformance", "--engine", "flink-cep", "--cases", "5"],
                       capture_output=True, text=True, timeout=240)
    assert r.returncode == 2 and "flink-cep engine needs" in r.stderr and "Traceback" not in r.stderr


# ---------------------------------------------------------------------------------------------- findings


class DropsTheLast:
    """A planted bug in place of Flink: the reference's complex events, without the one that ends last."""

    name = "drops-the-last"

    def run_many(self, cases):
        out = []
        for c in cases:
            ces = sorted(ReferenceAdapter().run(c), key=lambda ce: (ce[1], ce))
            out.append(ces[:-1])
        return out

    def close(self):
        pass


def test_a_finding_is_shrunk_and_reported_with_a_java_reproduction(tmp_path):
    events = [{"type": t, "x": k % 4, "s": "ab", "time": k} for k, t in enumerate("RTRRTUTR")]
    big = Case.make(DECLARATIONS, "SELECT * FROM S WHERE R ; T FILTER R[x >= 0] WITHIN 5 EVENTS", events, "planted")
    outcomes, summary = run_cases([big], DropsTheLast())
    (o,) = outcomes
    assert o.kind == UNEXPLAINED and summary.counts[UNEXPLAINED] == 1
    m = o.minimal
    assert m is not None and m.kind == UNEXPLAINED and len(m.case.events) == 1  # one R: its complex event dropped
    assert m.case.query == "SELECT * FROM S WHERE R" and m.got == [] and len(m.expected) == 1
    page = write_report(tmp_path, outcomes, summary, {"command": "test", "replay": "replay {file}"})
    text = page.read_text()
    assert "## Findings on the translated CEQL cases (1)" in text and "Reduced from 8 to 1 events in" in text
    assert "### Finding F1: unexplained, missing at end (1 case: planted)" in text
    folder = tmp_path / "findings" / "F1"
    java = (folder / "Finding1.java").read_text()
    assert "public class Finding1 " in java and "begin(\"e0\"" in java and "[0,0]{0}" in java
    assert "Rule." in (folder / "README.md").read_text()
    replayed = json.loads((folder / "case.json").read_text())
    assert Case.from_json(replayed).query == m.case.query


def test_the_findings_of_a_run_are_grouped_and_an_old_layout_is_cleared(tmp_path):
    """Cases that reduce to one minimal case are one finding (the shared machinery); the dialect's own refusals
    are none; files of the older numbered layout go."""
    (tmp_path / "findings").mkdir()
    (tmp_path / "findings" / "Finding001.java").write_text("old")
    events = [{"type": t, "x": 1, "s": "ab", "time": k} for k, t in enumerate("RTR")]
    cases = [Case.make(DECLARATIONS, q, events, f"case {k}") for k, q in enumerate(
        ["SELECT * FROM S WHERE R ; T", "SELECT * FROM S WHERE R", "SELECT LAST * FROM S WHERE R"])]
    outcomes, summary = run_cases(cases[:2], DropsTheLast())
    outcomes.append(classify(cases[2], Untranslatable("SELECT LAST")))
    assert [o.kind for o in outcomes] == [UNEXPLAINED, UNEXPLAINED, REFUSED]
    found = flink_cep.cep_findings(outcomes)
    assert len(found) == 1 and found[0].cases == ["case 0", "case 1"]
    write_report(tmp_path, outcomes, summary, {"command": "test", "replay": "replay {file}"})
    assert sorted(p.name for p in (tmp_path / "findings").iterdir()) == ["F1"]


def test_differences_are_attributed_to_known_findings_only_by_shape():
    t = {"op": "type", "types": ["R"]}
    loop_not = CepPattern((Stage("a", "begin", t, Quantifier(1, None, "relaxed")), Stage("n", "notNext", t),
                           Stage("c", "next", t)))
    plain = CepPattern((Stage("a", "begin", t), Stage("c", "next", t)))
    skipping = dataclasses.replace(plain, skip="skipPastLastEvent")
    every = [[[0], [1]], [[1], [2]]]
    assert known_finding(loop_not, every, [[[1], [2]]]) == "notnext-after-loop"
    assert known_finding(skipping, every, [[[0], [1]]]) == "held-back-match"
    assert known_finding(plain, every, [[[0], [1]]]) is None  # no known shape: a new difference
    assert known_finding(skipping, every, [[[0], [2]]]) is None  # Flink invents a match: never a known finding


@pytest.mark.skipif(flink_cep.missing_requirements() is None, reason="the extra and a JDK are here")
def test_the_generic_adapter_factory_knows_flink_cep_and_says_what_is_missing():
    """``make_adapter`` is the one way to get an engine's adapter, Flink CEP's too (the metamorphic relations run
    through it); without the extra, one line and exit 2."""
    from cer_theory.conformance.adapters import ENGINES, make_adapter
    from cer_theory.conformance.protocol import ConformanceError

    assert "flink-cep" in ENGINES
    with pytest.raises(ConformanceError, match="flink-cep engine needs"):
        make_adapter("flink-cep")
    r = subprocess.run([sys.executable, "-m", "cer_theory.cli", "conformance", "--engine", "flink-cep", "--metamorphic",
                        "--cases", "5"], capture_output=True, text=True, timeout=240)
    assert r.returncode == 2 and "flink-cep engine needs" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_an_answer_equal_to_the_reference_agrees():
    from cer_theory.conformance.check import AGREE

    assert classify(CASE, ReferenceAdapter().run(CASE)).kind == AGREE
