"""Flink CEP itself (needs ``cer_theory[flink]`` and a JDK; run in CI's Flink step): the driver on oracle cases
whose output Flink's documentation states, a driver failure charged to its case, a small seeded sample of the
conformance run, and a finding's Java reproduction compiling against the same jars."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("pyflink")
if shutil.which("javac") is None:
    pytest.skip("the flink-cep engine needs a JDK (javac)", allow_module_level=True)

from cer_theory.conformance.cep import CepPattern, Quantifier, Stage, model_matches  # noqa: E402
from cer_theory.conformance.cep_translate import generate_cases  # noqa: E402
from cer_theory.conformance.check import ENGINE_ERROR, REFUSED, UNEXPLAINED, Outcome  # noqa: E402
from cer_theory.conformance.flink_cep import FlinkCepAdapter, classify, flink_jars, java_reproduction, \
    model_check  # noqa: E402


@pytest.fixture(scope="module")
def adapter():
    a = FlinkCepAdapter(timeout=60)
    yield a
    a.close()


def typed(t: str) -> dict:
    return {"op": "type", "types": [t]}


def request(ident: int, pattern: CepPattern, types: str) -> dict:
    return {"id": ident, "pattern": pattern.to_json(),
            "events": [{"pos": k, "ts": k, "key": "", "type": t, "attrs": {}} for k, t in enumerate(types)]}


def as_matches(answer: dict, names: tuple[str, ...]) -> list:
    return sorted(tuple(tuple(m.get(n, [])) for n in names) for m in answer["matches"])


def test_documented_outputs(adapter):
    """Restated from the Flink documentation: "a b" on a, c, b1, b2 — strict contiguity (next) no match, relaxed
    (followedBy) {a b1}, non-deterministic relaxed (followedByAny) {a b1}, {a b2}; and skipPastLastEvent: after
    the match of a1 with b, the partial match from a2 is discarded. Each also equals the model's output. One job
    holds the five cases, and a sixth the driver cannot read, which fails alone."""
    cases = [(CepPattern((Stage("a", "begin", typed("a")), Stage("b", edge, typed("b")))), "acbb")
             for edge in ("next", "followedBy", "followedByAny")]
    cases.append((CepPattern((Stage("a", "begin", typed("a")), Stage("b", "followedByAny", typed("b")))), "aab"))
    cases.append((CepPattern((Stage("a", "begin", typed("a")), Stage("b", "followedByAny", typed("b"))),
                             skip="skipPastLastEvent"), "aab"))
    requests = [request(k, p, types) for k, (p, types) in enumerate(cases)]
    requests.append({"id": 99, "pattern": {"stages": [{"name": "a", "edge": "sideways", "where": typed("a")}]},
                     "events": []})
    answers = adapter.driver.run_batch(requests)
    got = [as_matches(a, ("a", "b")) for a in answers[:-1]]
    assert got == [[], [((0,), (2,))], [((0,), (2,)), ((0,), (3,))], [((0,), (2,)), ((1,), (2,))], [((0,), (2,))]]
    for (p, types), g in zip(cases, got):
        model = model_matches(p, [{"type": t} for t in types], keys=[""] * len(types), timestamps=list(range(len(types))))
        assert sorted(model) == g
    assert "error" in answers[-1] and "must be begin" in answers[-1]["error"]


def test_loop_contiguity_and_within(adapter):
    """a b+ c with a d between the bs, in the three loop contiguities, and within: Flink's output is the model's."""
    pats = [CepPattern((Stage("a", "begin", typed("a")), Stage("b", "followedBy", typed("b"), Quantifier(1, None, inner)),
                        Stage("c", "followedBy", typed("c")))) for inner in ("relaxed", "consecutive", "allowCombinations")]
    pats.append(CepPattern((Stage("a", "begin", typed("a")), Stage("c", "followedByAny", typed("c"))), within=3))
    types = ["abdbbc"] * 3 + ["aaac"]
    answers = adapter.driver.run_batch([request(k, p, t) for k, (p, t) in enumerate(zip(pats, types))])
    for p, t, a in zip(pats, types, answers):
        names = tuple(s.name for s in p.stages)
        model = model_matches(p, [{"type": x} for x in t], keys=[""] * len(t), timestamps=list(range(len(t))))
        assert as_matches(a, names) == sorted(model), (p, a)
    assert as_matches(answers[-1], ("a", "c")) == [((1,), (3,)), ((2,), (3,))]  # within(3): 3 - 0 is not < 3


def test_refused_pattern(adapter):
    """Flink's own refusal (MalformedPatternException) is a refusal."""
    p = {"stages": [{"name": "a", "edge": "begin", "where": typed("a")},
                    {"name": "b", "edge": "notFollowedBy", "where": typed("b")}]}
    (answer,) = adapter.driver.run_batch([{"id": 7, "pattern": p, "events": []}])
    assert "refused" in answer and "NotFollowedBy" in answer["refused"]


def test_seeded_sample(adapter):
    """A small seeded sample of the committed run: nothing unexplained, refused or failed."""
    cases = generate_cases(40, seed=11)
    outcomes = [classify(c, r) for c, r in zip(cases, adapter.run_many(cases))]
    bad = [o for o in outcomes if o.kind in (UNEXPLAINED, REFUSED, ENGINE_ERROR)]
    assert not bad, [(o.case.query, o.kind, o.error) for o in bad]


def test_java_reproduction_compiles():
    (case,) = generate_cases(1, seed=11)
    text = java_reproduction(Outcome(case, UNEXPLAINED, [], []), "Repro", "a test")
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "Repro.java").write_text(text, encoding="utf-8")
        cp = ":".join(str(j) for j in flink_jars())
        proc = subprocess.run(["javac", "-nowarn", "-d", d, "-cp", cp, str(Path(d) / "Repro.java")],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr


def test_model_against_flink(adapter):
    """The executable model of Flink CEP on native patterns (followedBy, relaxed and consecutive loops, times,
    skipToNext, ...): Flink's matches are the model's."""
    checked = model_check(adapter.driver, 40, seed=5)
    assert checked.cases == 40 and not checked.differences, checked.differences[:3]
