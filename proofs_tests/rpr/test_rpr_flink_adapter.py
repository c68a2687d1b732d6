"""The Flink adapter's parts that need no Flink: the SQL it submits, the group's CSV rows, the classification
with the ``flink`` dialect's readings, and the one-line message when Flink or Java is missing."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections import Counter

import pytest

from cer_theory.core.events import Event
from cer_theory.formalisms.rpr import parse
from cer_theory.conformance import flink
from cer_theory.conformance.check import AGREE, ENGINE_ERROR, EXPLAINED, UNEXPLAINED
from cer_theory.conformance.flink import Case, classify, csv_rows, expected_rows, flink_sql, identified, model_rows


def case(text: str, xs: list[int]) -> Case:
    q = identified(parse(text))
    return Case(q, tuple(Event("a", id=i, k=0, x=x, ts=i + 1) for i, x in enumerate(xs)), "t")


def test_the_submitted_sql_partitions_by_case_and_always_has_a_define() -> None:
    sql = flink_sql(parse("MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts PATTERN (A B))"), "ev")
    assert sql.startswith("SELECT * FROM ev MATCH_RECOGNIZE (")
    assert "PARTITION BY cid, k" in sql and "DEFINE A AS TRUE" in sql
    assert "`type` = 'a'" in flink_sql(parse("MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS type = 'a')"), "e")


def test_rows_are_in_time_order_across_cases() -> None:
    a, b = case("MATCH_RECOGNIZE (ORDER BY ts PATTERN (A))", [0, 1]), case("MATCH_RECOGNIZE (ORDER BY ts PATTERN (A))", [2])
    assert csv_rows([a, b]) == [[0, 0, "a", 0, 0, 1], [1, 0, "a", 0, 2, 1], [0, 1, "a", 0, 1, 2]]


def test_prev_before_the_match_is_null_in_the_model() -> None:
    """What Flink 2.3 answers (measured): PREV at a match's first row is NULL, so ``x >= PREV(x)`` never holds for
    a one-row pattern; the standard reads the partition's previous row."""
    c = case("MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS x >= PREV(x))", [0, 2, 1, 1])
    assert sum(expected_rows(c.query, c.events).values()) == 2
    o = classify(c, Counter())
    assert (o.kind, o.readings) == (EXPLAINED, ("flink-nfa",))


def test_the_documentations_missing_row_is_the_possessive_greedy_loop() -> None:
    """``A+ C`` with ``SUM(A.x) < 30``: at the last start row A takes 7 and then 14 (7 + 14 < 30), and a greedy
    loop never stops while its body accepts the row, so no row is left for C: Flink's documentation's SKIP TO
    NEXT ROW table (five rows, the standard has six) and Flink 2.3 (docs/decisions.md D362)."""
    c = case("MATCH_RECOGNIZE (ORDER BY ts MEASURES SUM(A.x) AS s AFTER MATCH SKIP TO NEXT ROW PATTERN (A+ C) "
             "DEFINE A AS SUM(A.x) < 30)", [7, 9, 10, 5, 10, 7, 14])
    standard, flink_rows = expected_rows(c.query, c.events), model_rows(c.query, c.events)
    assert sum(standard.values()) == 6 and sum(flink_rows.values()) == 5 and flink_rows <= standard
    assert classify(c, standard).kind == AGREE
    assert (classify(c, flink_rows).kind, classify(c, flink_rows).readings) == (EXPLAINED, ("flink-nfa",))
    assert classify(c, Counter()).kind == UNEXPLAINED


def test_documented_refusals_are_explained_and_other_errors_are_engine_errors() -> None:
    c = case("MATCH_RECOGNIZE (ORDER BY ts PATTERN (A B*))", [0])
    refused = classify(c, None, "TableException: Greedy quantifiers are not allowed as the last element of a Pattern")
    assert (refused.kind, refused.readings) == (EXPLAINED, ("greedy-last",))
    assert classify(c, None, "java.lang.OutOfMemoryError").kind == ENGINE_ERROR


def test_without_the_extra_the_command_says_what_is_missing_in_one_line(monkeypatch) -> None:
    monkeypatch.setattr(flink.importlib.util, "find_spec", lambda name: None)
    assert "pip install '.[flink]'" in flink.missing_requirements()
    monkeypatch.setattr(flink.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setattr(flink.shutil, "which", lambda name: None)
    assert "Java 17" in flink.missing_requirements()


def test_the_cli_refuses_in_one_line_when_flink_is_not_installed() -> None:
    pytest.importorskip("cer_theory")  # always there; the point is the next line
    if flink.missing_requirements() is None:
        pytest.skip("Flink is installed here: the one-line refusal is tested by the unit test above")
    proc = subprocess.run([sys.executable, "-m", "cer_theory.cli", "conformance", "--engine", "flink", "--cases", "1"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "'.[flink]'" in proc.stderr


def test_the_greedy_gap_encoding_is_silent_in_the_model() -> None:
    """``A X* B`` on ``a a b b``: the standard matches each a up to the last b; Flink 2.3 outputs nothing
    (benchmarks/conformance/flink/sremo_section7.md): X is TRUE, so the greedy loop takes every row and never
    leaves for B, and the partial match is still running when the input ends."""
    q = identified(parse("MATCH_RECOGNIZE (ORDER BY ts AFTER MATCH SKIP TO NEXT ROW PATTERN (A X* B) "
                         "DEFINE A AS type = 'a', B AS type = 'b')"))
    c = Case(q, tuple(Event(t, id=i, k=0, x=0, ts=i + 1) for i, t in enumerate("aabb")), "sremo §7")
    assert sum(expected_rows(c.query, c.events).values()) == 2
    o = classify(c, Counter())
    assert (o.kind, o.readings) == (EXPLAINED, ("flink-nfa",))


def test_the_report_lists_one_finding_per_reduced_case_with_a_folder(tmp_path) -> None:
    c = case("MATCH_RECOGNIZE (ORDER BY ts PATTERN (A B) DEFINE B AS x > 0)", [0, 1])
    first, second = classify(c, Counter()), classify(dataclasses.replace(c, name="u"), Counter())
    assert first.kind == UNEXPLAINED
    first.minimal = second.minimal = dataclasses.replace(first)  # as shrink() gives: one object per group
    agree = classify(dataclasses.replace(c, name="v"), expected_rows(c.query, c.events))
    page = flink.write_report(tmp_path, [first, second, agree], {"command": "cer-theory conformance --engine flink",
                                                                  "replay": "replay {file}"})
    text = page.read_text()
    assert "3 cases: 1 agree, 0 explained, 2 unexplained, 0 engine errors; 1 findings" in text
    assert "### Finding F1: unexplained" in text and "(2 cases: t, u)" in text
    folder = tmp_path / "findings" / "F1"
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "case.json", "repro.sql"]
    assert Case.from_json(json.loads((folder / "case.json").read_text())).query == c.query
    sql = (folder / "repro.sql").read_text()
    assert "CREATE TABLE ev" in sql and "MATCH_RECOGNIZE" in sql and "-- 0,0,a,0,0,1" in sql
    assert "TR 19075-5" in (folder / "README.md").read_text()  # the rule it breaks
