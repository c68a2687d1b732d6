"""`cer-theory spark` on bad paths and bad data (issue 16, items 1, 2, 9, 10): it never writes over its input,
replaces an output only with --overwrite, checks rows against the schema `cer-theory run` infers whatever Spark
infers, names a missing input and a missing PySpark, and reports malformed and out-of-order rows with the row."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cer_theory.cli import main
from cer_theory.cli.ceql import _with_windows
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.spark import read_events, run
from cer_theory.spark.batch import query_id_of

QUERY = "SELECT * FROM S WHERE BUY as b ; SELL as s FILTER b[volume > 10]"


def _trades(path: Path, bad_line: int | None = None, n: int = 300) -> Path:
    rows = []
    for i in range(n):
        volume: object = "lots" if i + 1 == bad_line else 20 + i % 7
        rows.append(json.dumps({"type": "BUY" if i % 2 == 0 else "SELL", "volume": volume}))
    path.write_text("\n".join(rows) + "\n")
    return path


def _spark(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["spark", "--progress", "0", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_output_over_the_input_folder_is_refused_and_the_input_kept(capsys, tmp_path: Path) -> None:
    data = tmp_path / "d"
    data.mkdir()
    good = _trades(data / "good.jsonl")
    before = good.read_bytes()
    for output in (str(data), str(good), str(tmp_path)):
        code, _, err = _spark(capsys, "--query", QUERY, "--input", str(good), "--output", output, "--overwrite")
        assert code == 2 and "overlaps the input" in err
    code, _, err = _spark(capsys, "--query", QUERY, "--input", str(data), "--output", str(data / "out"))
    assert code == 2 and "--output" in err and "overlaps the input" in err
    assert good.read_bytes() == before and sorted(p.name for p in data.iterdir()) == ["good.jsonl"]


def test_an_existing_output_is_replaced_only_with_overwrite(capsys, tmp_path: Path) -> None:
    good = _trades(tmp_path / "good.jsonl")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    code, _, err = _spark(capsys, "--query", QUERY, "--input", str(good), "--output", str(tmp_path / "out"))
    assert code == 2 and "exists: pass --overwrite to replace it" in err
    assert (tmp_path / "out" / "keep.txt").read_text() == "mine"


def test_an_empty_json_lines_file_names_no_internal_column(capsys, tmp_path: Path) -> None:
    """An empty input has no columns: the message says so, without the reader's own columns (``__file`` …)."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    code, _, err = _spark(capsys, "--query", QUERY, "--input", str(empty), "--output", str(tmp_path / "out"))
    assert code == 2 and "holds no events" in err and "__" not in err and "Traceback" not in err


def test_overwrite_replaces_an_earlier_output_but_never_a_folder_of_other_files(capsys, tmp_path: Path) -> None:
    """``--overwrite`` replaces the folder a previous run wrote (its marker file), and refuses one holding other
    files, such as the query file's folder, which it would otherwise delete whole."""
    good = _trades(tmp_path / "good.jsonl")
    out = tmp_path / "out"
    assert _spark(capsys, "--query", QUERY, "--input", str(good), "--output", str(out))[0] == 0
    assert (out / "_cer_theory_output").is_file()
    assert _spark(capsys, "--query", QUERY, "--input", str(good), "--output", str(out), "--overwrite")[0] == 0
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep", encoding="utf-8")
    code, _, err = _spark(capsys, "--query", QUERY, "--input", str(good), "--output", str(mine), "--overwrite")
    assert code == 2 and "did not write" in err
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "keep"


def test_a_missing_input_and_a_missing_pyspark_are_named(capsys, tmp_path: Path, monkeypatch) -> None:
    code, _, err = _spark(capsys, "--query", QUERY, "--input", str(tmp_path / "nope.jsonl"), "--output",
                          str(tmp_path / "out"))
    assert code == 2 and "nope.jsonl: no such file or directory" in err and "Traceback" not in err
    monkeypatch.setitem(sys.modules, "pyspark", None)  # as if the spark extra were not installed
    code, _, err = _spark(capsys, "--sample", "--output", str(tmp_path / "out"))
    assert code == 2 and "pip install '.[spark]'" in err


def test_one_wrong_kind_value_fails_as_in_run_naming_line_and_field(capsys, tmp_path: Path) -> None:
    """Spark alone would read the whole column as strings and find nothing; the schema `run` infers rejects
    the row, with `run`'s message, before Spark starts."""
    trades = _trades(tmp_path / "t.jsonl", bad_line=11)
    assert main(["run", "--query", QUERY, "--stream", str(trades)]) == 2
    run_err = capsys.readouterr().err.split(": ", 1)[1]
    code, _, err = _spark(capsys, "--query", QUERY, "--input", str(trades), "--output", str(tmp_path / "out"))
    assert code == 2 and "line 11, field 'volume'" in err and err.split(": ", 1)[1] == run_err


def test_malformed_csv_fails_before_spark_with_runs_message(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "t.csv"
    bad.write_text("type,volume\nBUY,20\nSELL,1,2\n")
    code, _, err = _spark(capsys, "--query", QUERY, "--input", str(bad), "--output", str(tmp_path / "out"))
    assert code == 2 and "line 3: expected 2 cells, found 3" in err


@pytest.mark.spark
def test_one_wrong_kind_value_is_reported_and_the_rest_evaluated(spark, capsys, tmp_path: Path) -> None:
    trades = _trades(tmp_path / "t.jsonl", bad_line=11)
    out = tmp_path / "out"
    code, summary, err = _spark(capsys, "--query", QUERY, "--input", str(trades), "--output", str(out),
                                "--on-bad-rows", "report")
    assert code == 0, err
    rejected = [json.loads(line) for f in sorted((tmp_path / "out.rejected").glob("part-*")) for line in
                f.read_text().splitlines()]
    assert [(r["position"], r["field"]) for r in rejected] == [(10, "volume")]
    assert "lots" in rejected[0]["error"] and json.loads(rejected[0]["row"])["volume"] == "lots"
    good = [json.loads(line) for line in trades.read_text().splitlines()]
    good[10] = {"type": "BUY"}  # …the engine's answer without the rejected row: its position stays a gap
    expected = sum(1 for i, e in enumerate(good) if e["type"] == "BUY" and i != 10 for j in range(i + 1, len(good))
                   if good[j]["type"] == "SELL")
    assert f"complex events found: {expected:,}" in summary


@pytest.mark.spark
def test_quoted_newlines_and_a_bom_in_csv_give_runs_complex_events(spark, capsys, tmp_path: Path) -> None:
    data = tmp_path / "t.csv"
    data.write_bytes(b'\xef\xbb\xbftype,note\nBUY,"two\nlines"\nSELL,x\nBUY,"a ""quote"""\nSELL,y\n')  # a BOM too
    code, summary, err = _spark(capsys, "--query", "SELECT * FROM S WHERE BUY ; SELL", "--input", str(data),
                                "--output", str(tmp_path / "out"), "--check")
    assert code == 0, err
    assert "events read: 4" in summary and "complex events found: 3" in summary and "finds the same 3" in summary


@pytest.mark.spark
def test_invalid_json_and_out_of_order_rows_are_reported_with_their_row(spark, tmp_path: Path) -> None:
    data = tmp_path / "t.jsonl"
    data.write_text('{"type": "A", "time": 1}\n{"type": "A", "time": 5}\n{oops\n{"type": "B", "time": 3}\n'
                    '{"type": "B", "time": 6}\n')
    result = run(spark, read_events(spark, str(data)), "SELECT * WHERE A ; B WITHIN 10 SECONDS",
                 on_bad_rows="report")
    rejected = {r.position: r for r in result.rejected.collect()}
    assert sorted(rejected) == [2, 3]
    assert rejected[2].field == "row" and rejected[2].error.startswith("invalid JSON") and rejected[2].row == "{oops"
    assert rejected[3].field == "time" and json.loads(rejected[3].row) == {"type": "B", "time": 3}
    assert sorted(tuple(r.positions) for r in result.matches.collect()) == [(0, 4), (1, 4)]
    result.close()


def test_a_core_reading_strict_window_gets_its_own_query_id() -> None:
    """`--windows core` makes `WITHIN n [attr]` strict, which CEQL cannot write: the id must not need the text."""
    query = parse("SELECT * WHERE A ; B WITHIN 3 [t]")
    core = _with_windows(query, "core", None)
    assert core.within.strict and not _with_windows(query, "paper", None).within.strict
    assert query_id_of(core) != query_id_of(query)
