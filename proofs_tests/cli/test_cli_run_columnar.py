"""`cer-theory run` through the columnar path (docs/decisions.md D87–D90): every input format gives the same
complex events, a bad row deep inside a batch exits 2 naming its line and field after the matches before it,
and the output formats and ``--positions-only``."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cer_theory.cli import main

QUERY = "SELECT * FROM S WHERE (SELL as s; BUY as b) FILTER s[name = 'A'] AND b[price > 10] WITHIN 3 [time]"
ROWS = [{"type": "SELL" if k % 3 else "BUY", "name": "AB"[k % 2], "price": k % 17, "time": k // 2}
        for k in range(20000)]


def _write(path: Path, rows: list[dict]) -> Path:
    if path.suffix == ".csv":
        with path.open("w", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, ["type", "name", "price", "time"])
            writer.writeheader()
            writer.writerows(rows)
    elif path.suffix == ".parquet":
        pq.write_table(pa.Table.from_pylist(rows), path)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_every_input_format_gives_the_same_complex_events(capsys, tmp_path: Path, suffix: str) -> None:
    """The same stream as JSON Lines, CSV and Parquet (several batches each): byte-identical output."""
    rows = ROWS[:3000]
    assert main(["run", "--query", QUERY, "--stream", str(_write(tmp_path / f"s{suffix}", rows))]) == 0
    got = capsys.readouterr().out
    assert main(["run", "--query", QUERY, "--stream", str(_write(tmp_path / "ref.jsonl", rows))]) == 0
    want = capsys.readouterr().out
    assert got == want and want.count("\n") > 100


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_a_bad_row_deep_inside_a_batch_exits_2_with_line_and_field(capsys, tmp_path: Path, suffix: str) -> None:
    """Row 16,000 (inside the second 1 MiB batch) changes ``price`` to a string: exit 2, its line and field
    named (and the line where SELL.price was first a number, row 1), the complex events of the rows before it
    written — none after."""
    rows = [dict(r) for r in ROWS]
    rows[16000]["price"] = "oops"
    line = 16001 + (suffix == ".csv")  # (the CSV header is line 1)
    path = _write(tmp_path / f"s{suffix}", rows)
    assert main(["run", "--query", QUERY, "--stream", str(path)]) == 2
    captured = capsys.readouterr()
    assert (f"line {line}, field 'price': SELL.price is a string here but a number at line "
            f"{2 + (suffix == '.csv')}") in captured.err
    ends = [json.loads(out)["end"] for out in captured.out.splitlines()]
    assert ends and 15900 < max(ends) < 16000


def test_a_decreasing_time_key_deep_inside_a_batch_exits_2(capsys, tmp_path: Path) -> None:
    rows = [dict(r) for r in ROWS]
    rows[15000]["time"] = 0
    path = _write(tmp_path / "s.jsonl", rows)
    assert main(["run", "--query", QUERY, "--stream", str(path)]) == 2
    assert "field 'time': window key 0 decreases" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_output_formats_and_positions_only(capsys, tmp_path: Path, fmt: str) -> None:
    path = _write(tmp_path / "s.jsonl", ROWS[:600])
    assert main(["run", "--query", QUERY, "--stream", str(path)]) == 0
    want = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    out = tmp_path / f"o.{fmt}"
    assert main(["run", "--query", QUERY, "--stream", str(path), "--output", str(out), "--output-format", fmt,
                 "--positions-only"]) == 0
    if fmt == "parquet":
        got = pq.read_table(out).column("positions").to_pylist()
    elif fmt == "csv":
        got = [[int(p) for p in r["positions"].split()] for r in csv.DictReader(out.open(encoding="utf-8"))]
    else:
        body = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        assert all("events" not in r for r in body)
        got = [r["positions"] for r in body]
    assert got == [w["positions"] for w in want] and got


def test_parquet_output_needs_output_file(capsys, tmp_path: Path) -> None:
    path = _write(tmp_path / "s.jsonl", ROWS[:10])
    assert main(["run", "--query", QUERY, "--stream", str(path), "--output-format", "parquet"]) == 2
    assert "needs --output" in capsys.readouterr().err
