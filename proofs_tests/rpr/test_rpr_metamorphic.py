"""The metamorphic relations for MATCH_RECOGNIZE engines (:mod:`cer_theory.conformance.rpr_metamorphic`): they hold
on our reference and on the model of Flink's matcher (two readings of preferment), and each fails on an engine with
a planted bug of the kind it is meant to catch, reported as one reduced finding."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

import pytest

from cer_theory.core.events import Event
from cer_theory.formalisms.rpr.ast import And, Condition, Not, Or, Query, variables
from cer_theory.conformance.flink import Case, expected_rows, generate_groups
from cer_theory.conformance.metamorphic import VIOLATION
from cer_theory.conformance.rpr_metamorphic import RELATIONS, ModelRows, ReferenceRows, Rows, findings, run_relations

GROUPS = generate_groups(40, 8, seed=3)


@pytest.mark.parametrize("engine", [ReferenceRows(), ModelRows()], ids=lambda e: e.name)
def test_every_relation_holds_on_the_reference_and_on_the_model_of_flink(engine) -> None:
    checks, counts = run_relations(GROUPS, engine, shrink_violations=False)
    assert not [c.text() for c in checks if c.finding]
    for r in RELATIONS:  # each relation is checked, and on cases with matches
        assert counts[(r, "holds")] >= 10, r
        assert any(c.relation == r and c.runs[0].out for c in checks), r


class Planted:
    """The reference with one bug: ``rows(q, events)`` is what the buggy engine outputs."""

    name = "planted"

    def run_group(self, cases: Sequence[Case]) -> list[Rows | None]:
        return [self.rows(c.query, c.events) for c in cases]

    def rows(self, q: Query, events: Sequence[Event]) -> Rows:
        return expected_rows(q, events)


class LostPartitions(Planted):
    """PARTITION BY ignored while matching (the partition key still reported)."""

    def rows(self, q, events):
        plain = expected_rows(dataclasses.replace(q, partition_by=()), events)
        by_id = {e["id"]: tuple(e.get(a) for a in q.partition_by) for e in events}
        return Counter({(by_id[dict(ms)["first_id"]], ms): n for (_, ms), n in plain.items()})


class TumblingWithin(Planted):
    """WITHIN n read as tumbling windows of n seconds from time 0: a match must fall in one window."""

    def rows(self, q, events):
        out = expected_rows(q, events)
        if q.within is None:
            return out
        ts = {e["id"]: e["ts"] for e in events}
        return Counter({(k, ms): n for (k, ms), n in out.items()
                        if ts[dict(ms)["first_id"]] // q.within == ts[dict(ms)["last_id"]] // q.within})


def _one_not(c: Condition) -> Condition:
    if isinstance(c, Not) and isinstance(c.arg, Not):
        return Not(_one_not(c.arg.arg))  # the bug: NOT NOT P read as NOT P
    if isinstance(c, Not):
        return Not(_one_not(c.arg))
    if isinstance(c, (And, Or)):
        return type(c)(_one_not(c.left), _one_not(c.right))
    return c


class DoubleNegation(Planted):
    def rows(self, q, events):
        return expected_rows(dataclasses.replace(q, defines=tuple((v, _one_not(c)) for v, c in q.defines)), events)


class DefinesByPosition(Planted):
    """DEFINE's conditions bound to the pattern's variables by position (first entry to the first variable …),
    not by name."""

    def rows(self, q, events):
        used = list(dict.fromkeys(variables(q.pattern)))
        return expected_rows(dataclasses.replace(q, defines=tuple(zip(used, (c for _, c in q.defines)))), events)


class MeasuredVariablesRequired(Planted):
    """A match in which a variable named in MEASURES maps no row is not output (its measures computed by an inner
    join): the measures decide the matches."""

    def rows(self, q, events):
        from cer_theory.formalisms.rpr.ast import column_of, terms
        from cer_theory.formalisms.rpr.semantics import evaluate

        named = {c.var for m in q.measures for t in terms(m.expr) if (c := column_of(t)) is not None and c.var}
        return Counter((m.partition, m.measures) for ms in evaluate(q, events) for m in ms
                       if named <= {v for _, v in m.rows})


class NextRowMissesTheLastStart(Planted):
    """Under SKIP TO NEXT ROW no attempt starts at a partition's last row (a loop bound off by one)."""

    def rows(self, q, events):
        out = expected_rows(q, events)
        if q.skip.kind != "TO NEXT ROW":
            return out
        part = lambda e: tuple(e.get(a) for a in q.partition_by)  # noqa: E731
        last = {part(e): e["id"] for e in sorted(events, key=lambda e: e["ts"])}
        key_of = {e["id"]: part(e) for e in events}
        return Counter({(k, ms): n for (k, ms), n in out.items()
                        if last[key_of[dict(ms)["first_id"]]] != dict(ms)["first_id"]})


@pytest.mark.parametrize("engine, relation, most", [(LostPartitions(), "partition-interleave", 2),
                                                    (TumblingWithin(), "time-shift", 3),
                                                    (DoubleNegation(), "condition-law", 1),
                                                    (DefinesByPosition(), "rename", 4),
                                                    (MeasuredVariablesRequired(), "measures", 4),
                                                    (NextRowMissesTheLastStart(), "skip-subset", 4)],
                         ids=lambda x: type(x).__name__ if isinstance(x, Planted) else str(x))
def test_a_planted_bug_violates_its_relation_in_a_few_reduced_findings(engine, relation, most) -> None:
    """Each planted bug is caught by its relation; its violations (dozens of cases) reduce to at most ``most``
    findings (the bug's different minimal witnesses: a window of 2 or 4 seconds, conditions bound to the wrong
    variable one way or another), each no larger than the smallest violating case and at most 3 rows."""
    groups = GROUPS if relation != "measures" else generate_groups(150, 8, seed=5)  # (an optional measured
    # variable with no row is rarer)
    checks, _ = run_relations(groups, engine, relations=(relation,), shrink_calls=1000)
    violations = [c for c in checks if c.finding]
    assert len(violations) > most, f"{type(engine).__name__} passes {relation}"
    found = findings(checks)
    assert 1 <= len(found) <= most, [f.minimal.text() for f in found]
    for f in found:
        m = f.minimal
        assert m.kind == VIOLATION and m.relation == relation
        assert len(m.case.events) <= min(len(c.case.events) for c in violations)
        assert len(m.case.events) <= 3, m.text()


def test_a_violation_is_reported_with_both_runs_and_a_sql_client_script(tmp_path) -> None:
    """The shared report (:func:`cer_theory.conformance.report.write_metamorphic_report`): a folder per finding
    with the reduced source case (readable back as a case), both runs in ``repro.sql`` and the rule."""
    import json

    from cer_theory.conformance.flink import sql_script
    from cer_theory.conformance.report import runs_reproduction, write_metamorphic_report
    from cer_theory.conformance.rpr_metamorphic import RULES

    checks, counts = run_relations(GROUPS[:20], DoubleNegation(), relations=("condition-law",), shrink_calls=1000)
    found = findings(checks)
    page = write_metamorphic_report(tmp_path, checks, found, "line", rules=RULES, meta={"engine": "flink"},
                                    replay="replay {file}",
                                    reproduction=runs_reproduction(
                                        lambda c, k: sql_script(c, f"/tmp/rpr_case_{k}", f"ev{k}"), "repro.sql", "--"))
    assert f"## Findings ({len(found)})" in page.read_text()
    folder = tmp_path / "findings" / "F1"
    case = Case.from_json(json.loads((folder / "case.json").read_text()))
    assert case == found[0].minimal.case
    sql = (folder / "repro.sql").read_text()
    assert "Run 1 (source)" in sql and "Run 2 (" in sql and sql.count("MATCH_RECOGNIZE") == 2 and "NOT NOT" in sql
    assert "CREATE TABLE ev1 " in sql and "CREATE TABLE ev2 " in sql  # the runs paste one after the other
    readme = (folder / "README.md").read_text()
    assert RULES["condition-law"][:40] in readme and "source:" in readme
    data = json.loads((tmp_path / "checks.json").read_text())
    assert len(data["violations"]) == len([c for c in checks if c.finding])
    assert {r["label"] for r in data["violations"][0]["runs"]} >= {"source"}


@pytest.mark.parametrize("text, why", [('{"query": "MATCH_RECOGNIZE (", "events": []}', "not a MATCH_RECOGNIZE case"),
                                       ("not json", "not a MATCH_RECOGNIZE case"),
                                       ('{"events": []}', "not a MATCH_RECOGNIZE case")])
def test_a_bad_replay_file_is_one_line_before_flink_starts(tmp_path, text, why) -> None:
    import subprocess
    import sys

    bad = tmp_path / "case.json"
    bad.write_text(text)
    r = subprocess.run([sys.executable, "-m", "cer_theory.cli", "conformance", "--engine", "flink", "--metamorphic",
                        "--replay", str(bad)], capture_output=True, text=True, timeout=240)
    assert r.returncode == 2 and why in r.stderr and str(bad) in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_runs_flink_refuses_are_not_checked_and_are_counted_by_reading() -> None:
    """A job Flink refuses as documented leaves its runs unchecked, counted by the dialect's reading; any other
    failure is counted apart (never an empty output)."""
    from cer_theory.conformance.protocol import EngineFailure
    from cer_theory.conformance.rpr_metamorphic import FlinkRows, check_cases

    class Session:
        def run_group(self, cases):
            if cases[0].query.skip.kind == "TO NEXT ROW":
                raise EngineFailure("org.apache.flink.table.api.TableException: Reluctant optional variables are "
                                    "not supported yet.")
            if any(isinstance(c, Not) and isinstance(c.arg, Not) for _, c in cases[0].query.defines):
                raise EngineFailure("java.lang.IllegalStateException: something else")
            return [expected_rows(c.query, c.events) for c in cases]

    engine = FlinkRows(Session())
    group = [g for g in GROUPS if g[0].query.skip.kind != "TO NEXT ROW"][0]
    checks = check_cases(group, engine)
    assert engine.failures > 0 and all(c is None or not c.finding for c in checks)
    assert all(c is None or c.relation not in ("skip-subset", "condition-law") for c in checks)
    note = engine.note()
    assert "runs Flink refuses as documented (reluctant-optional " in note and "runs Flink failed on otherwise" in note
