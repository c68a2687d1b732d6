"""`cer-theory run`: CEQL over a stream file with the tECS engine (the CORE paper), and its error cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cer_theory.cli import main

E1 = [("SELL", "MSFT", 101), ("SELL", "MSFT", 102), ("SELL", "INTC", 80), ("BUY", "AMZN", 1900),
      ("SELL", "AMZN", 1920), ("SELL", "INTC", 81), ("SELL", "AMZN", 1950)]
Q1 = ("SELECT * FROM S WHERE (SELL as msft; SELL as intel; SELL as amzn) FILTER msft[name = 'MSFT'] AND "
      "msft[price > 100] AND intel[name = 'INTC'] AND amzn[name = 'AMZN'] AND amzn[price < 2000]")


@pytest.fixture
def e1(tmp_path: Path) -> Path:
    path = tmp_path / "e1.jsonl"
    path.write_text("".join(json.dumps({"type": t, "name": n, "price": p}) + "\n" for t, n, p in E1))
    return path


def _run(capsys, *argv: str) -> list[dict]:
    assert main(["run", *argv]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize("window,expected", [
    ("", {(1, 4, (1, 2, 4)), (0, 4, (0, 2, 4)), (1, 6, (1, 2, 6)), (0, 6, (0, 2, 6)), (1, 6, (1, 5, 6)),
          (0, 6, (0, 5, 6))}),
    (" WITHIN 5 EVENTS", {(1, 4, (1, 2, 4)), (0, 4, (0, 2, 4)), (1, 6, (1, 2, 6)), (1, 6, (1, 5, 6))}),
    (" WITHIN 3 EVENTS", {(1, 4, (1, 2, 4))}),
])
def test_run_oracle_e1(capsys, e1: Path, window: str, expected: set) -> None:
    rows = _run(capsys, "--query", Q1 + window, "--stream", str(e1))
    assert {(r["start"], r["end"], tuple(r["positions"])) for r in rows} == expected
    assert len(rows) == len(expected)
    first = rows[0]
    assert first["events"][0] == {"type": "SELL", "name": "MSFT", "price": 102}
    assert [r["end"] for r in rows] == sorted(r["end"] for r in rows)  # emitted as soon as the last event is read


def test_run_query_from_file_csv_input_and_window_readings(capsys, tmp_path: Path) -> None:
    q = tmp_path / "q.ceql"
    q.write_text("SELECT * FROM S\nWHERE A ; B\nWITHIN 2 EVENTS\n")
    s = tmp_path / "s.csv"
    s.write_text("type,v\nA,1\nX,2\nB,3\n")
    assert {r["start"] for r in _run(capsys, "--query", str(q), "--stream", str(s))} == {0}
    # CORE reads n EVENTS inclusively too (docs/decisions.md D102); only WITHIN n [attr] is strict.
    assert {r["start"] for r in _run(capsys, "--query-file", str(q), "--stream", str(s), "--windows", "core")} == {0}
    q.write_text("SELECT * FROM S WHERE A ; B WITHIN 2 [v]")
    assert _run(capsys, "--query", f"@{q}", "--stream", str(s), "--windows", "core") == []


def test_run_partition_key_and_null_report(capsys, tmp_path: Path) -> None:
    s = tmp_path / "s.jsonl"
    s.write_text('{"type": "A", "k": 1}\n{"type": "A", "k": 2}\n{"type": "B", "k": 1}\n{"type": "B"}\n')
    assert main(["run", "--query", "SELECT * WHERE A ; B PARTITION BY [k]", "--stream", str(s)]) == 0
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert rows == [{"start": 0, "end": 2, "positions": [0, 2], "events": [{"type": "A", "k": 1},
                                                                          {"type": "B", "k": 1}], "partition": [1]}]
    assert "1 event without a PARTITION BY attribute" in captured.err


def test_run_query_syntax_error_exits_2_with_line_and_column(capsys, e1: Path) -> None:
    assert main(["run", "--query", "SELECT *\nWHERE SELL ;; BUY", "--stream", str(e1)]) == 2
    assert "line 2, column" in capsys.readouterr().err


def test_run_inferred_declaration_rejects_inconsistent_kinds(capsys, tmp_path: Path) -> None:
    s = tmp_path / "s.jsonl"
    s.write_text('{"type": "A", "v": 1}\n{"type": "A", "v": "one"}\n')
    assert main(["run", "--query", "SELECT * WHERE A", "--stream", str(s)]) == 2
    err = capsys.readouterr().err
    assert "line 2, field 'v'" in err and "a string here but a number at line 1" in err


def test_run_declared_stream_rejects_mismatching_events(capsys, tmp_path: Path, e1: Path) -> None:
    decl = tmp_path / "s.decl"
    decl.write_text("CREATE STREAM S { EVENT SELL { name:string, price:double }, EVENT BUY { name:string } }")
    assert main(["run", "--query", "SELECT * WHERE BUY", "--stream", str(e1), "--declare", str(decl)]) == 2
    assert "line 4, field 'price': BUY declares no attribute 'price'" in capsys.readouterr().err
    decl.write_text("CREATE STREAM S { EVENT SELL { name:string, price:string } }")
    assert main(["run", "--query", "SELECT * WHERE SELL", "--stream", str(e1), "--declare", str(decl)]) == 2
    assert "line 1, field 'price': SELL.price is declared a string, got 101" in capsys.readouterr().err
    decl.write_text("CREATE STREAM S { EVENT SELL { name:string, price:int } }")
    assert main(["run", "--query", "SELECT * WHERE SELL", "--stream", str(e1), "--declare", str(decl)]) == 2
    assert "line 4, field 'type': event type 'BUY' is not declared" in capsys.readouterr().err


def test_engine_is_importable_from_the_package() -> None:
    import cer_theory

    engine = cer_theory.Engine("SELECT * WHERE A ; B")
    out = list(engine.process([{"type": "A"}, {"type": "B"}]))
    assert [(m.start, m.end, m.positions) for m in out] == [(0, 1, (0, 1))]
