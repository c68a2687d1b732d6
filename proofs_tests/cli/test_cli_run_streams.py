"""`cer-theory run` on real streams (issue 16): standard input and FIFOs, query files named explicitly, CORE's
window readings, errors located by file and line, silent progress, and out-of-order input with a lateness."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cer_theory.cli import main

SELL_BUY = "SELECT * FROM S WHERE (SELL as a; BUY as b) WITHIN 2 EVENTS"
TRADES = "".join(json.dumps({"type": t}) + "\n" for t in ("SELL", "BUY", "SELL", "BUY", "BUY"))


def _run(capsys, *argv: str) -> tuple[int, list[tuple[int, ...]], str]:
    code = main(["run", *argv])
    out, err = capsys.readouterr()
    return code, [tuple(json.loads(line)["positions"]) for line in out.splitlines()], err


def _cli(*argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run([sys.executable, "-m", "cer_theory.cli", "run", *argv], input=stdin,
                          capture_output=True, env=env, timeout=120)


@pytest.mark.parametrize("stream", ["-", "/dev/stdin"])
def test_standard_input_is_read_once_and_fully(stream: str) -> None:
    done = _cli("--query", SELL_BUY, "--stream", stream, stdin=TRADES.encode())
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["positions"] for line in done.stdout.decode().splitlines()] == [[0, 1], [2, 3], [2, 4]]
    bad = _cli("--query", SELL_BUY, "--stream", "-", stdin=b'{"type": "SELL", "x": 1}\n{"type": "SELL", "x": "a"}\n')
    assert bad.returncode == 2 and b"<stdin>, line 2, field 'x'" in bad.stderr and b"Traceback" not in bad.stderr


def test_a_fifo_is_read_once(capsys, tmp_path: Path) -> None:
    fifo = tmp_path / "events.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(TRADES))
    writer.start()
    code, rows, err = _run(capsys, "--query", SELL_BUY, "--stream", str(fifo))
    writer.join(10)
    assert code == 0 and rows == [(0, 1), (2, 3), (2, 4)], err


def test_csv_from_standard_input_with_stream_format() -> None:
    done = _cli("--query", SELL_BUY, "--stream", "-", "--input-format", "csv", stdin=b"type\nSELL\nBUY\n")
    assert done.returncode == 0 and json.loads(done.stdout)["positions"] == [0, 1]


def test_query_file_or_text_is_decided_explicitly(capsys, tmp_path: Path) -> None:
    stream = tmp_path / "s.jsonl"
    stream.write_text(TRADES)
    code, _, err = _run(capsys, "--query", "nonexist.ceql", "--stream", str(stream))
    assert code == 2 and "query file nonexist.ceql: no such file" in err and "SELECT" in err
    code, _, err = _run(capsys, "--query-file", str(tmp_path / "q.ceql"), "--stream", str(stream))
    assert code == 2 and "no such file" in err
    code, _, err = _run(capsys, "--query", "SELECT * WHERE SELL ;; BUY", "--stream", str(stream))
    assert code == 2 and "the --query text: line 1, column 22" in err
    query = tmp_path / "q.ceql"
    query.write_text("SELECT * WHERE SELL ;\n; BUY")
    code, _, err = _run(capsys, "--query", f"@{query}", "--stream", str(stream))
    assert code == 2 and f"query file {query}: line 2, column 1" in err
    query.write_text(SELL_BUY)
    for argv in (("--query-file", str(query)), ("--query", f"@{query}"), ("--query", str(query))):
        assert _run(capsys, *argv, "--stream", str(stream))[1] == [(0, 1), (2, 3), (2, 4)]


def test_core_window_readings_on_the_issues_examples(capsys, tmp_path: Path) -> None:
    """CORE (measured on its C++ engine, pycer 0.1.1): WITHIN n EVENTS and durations inclusive, WITHIN n [attr]
    strict. SELL BUY SELL BUY BUY gives [0,1] [2,3] [2,4] under both readings."""
    stream = tmp_path / "s.jsonl"
    stream.write_text(TRADES)
    for reading in ("paper", "core"):
        assert _run(capsys, "--query", SELL_BUY, "--stream", str(stream), "--windows", reading)[1] == \
            [(0, 1), (2, 3), (2, 4)]
    stream.write_text('{"type": "SELL", "time": 0}\n{"type": "BUY", "time": 10}\n')
    for reading in ("paper", "core"):  # a span of exactly 10 s is inside WITHIN 10 SECONDS for both
        assert _run(capsys, "--query", "SELECT * WHERE SELL ; BUY WITHIN 10 SECONDS", "--stream", str(stream),
                    "--windows", reading)[1] == [(0, 1)]
    by_attribute = "SELECT * WHERE SELL ; BUY WITHIN 10 [time]"
    assert _run(capsys, "--query", by_attribute, "--stream", str(stream), "--windows", "paper")[1] == [(0, 1)]
    assert _run(capsys, "--query", by_attribute, "--stream", str(stream), "--windows", "core")[1] == []


@pytest.mark.parametrize("name,text,where", [
    ("s.jsonl", '{"type": "A", "time": 1}\n\n{"type": "A", "time": 5}\n{"type": "B", "time": 3}\n',
     "s.jsonl, line 4, field 'time': window key 3 decreases"),
    ("s.csv", "type,time\nA,1\nA,5\nB,3\n", "s.csv, line 4, field 'time': window key 3 decreases"),
    ("s.csv", 'type,time,note\nA,1,"x\ny"\nB,,z\n', "s.csv, line 4, field 'time': the window needs a numeric"),
])
def test_window_errors_name_the_file_and_its_line(capsys, tmp_path: Path, name: str, text: str, where: str) -> None:
    stream = tmp_path / name
    stream.write_text(text)
    code, _, err = _run(capsys, "--query", "SELECT * WHERE A ; B WITHIN 10 SECONDS", "--stream", str(stream))
    assert code == 2 and f"{tmp_path / name}"[: -len(name)] in err and where in err


def test_progress_zero_prints_no_progress_lines(capsys, tmp_path: Path) -> None:
    stream = tmp_path / "s.jsonl"
    stream.write_text(TRADES * 50)
    code, _, err = _run(capsys, "--query", SELL_BUY, "--stream", str(stream), "--progress", "0")
    assert code == 0 and err.count("\n") == 1 and err.startswith("run: 250 events")


def test_lateness_reorders_and_reports_late_events(capsys, tmp_path: Path) -> None:
    stream = tmp_path / "s.jsonl"
    stream.write_text('{"type": "A", "time": 1}\n{"type": "A", "time": 5}\n{"type": "B", "time": 4}\n'
                      '{"type": "B", "time": 2}\n{"type": "B", "time": 6}\n')
    query = "SELECT * WHERE A ; B WITHIN 10 SECONDS"
    code, _, err = _run(capsys, "--query", query, "--stream", str(stream))
    assert code == 2 and "line 3, field 'time'" in err
    late = tmp_path / "late.jsonl"
    code, rows, err = _run(capsys, "--query", query, "--stream", str(stream), "--lateness", "2 seconds",
                           "--late", str(late))
    # B@2 is 3 s behind A@5: late. B@4 is re-ordered before A@5: positions are those of the time order.
    assert code == 0 and sorted(rows) == [(0, 1), (0, 3), (2, 3)]
    assert "1 event later than the allowed lateness of 2 s" in err and str(late) in err
    assert [json.loads(line) for line in late.read_text().splitlines()] == [
        {"line": 4, "watermark": 3, "event": {"type": "B", "time": 2}}]
    declared = tmp_path / "s.decl"
    declared.write_text("CREATE QUARANTINE { FIXED_TIME 3 seconds {S} }")
    code, rows, err = _run(capsys, "--query", query, "--stream", str(stream), "--declare", str(declared))
    assert code == 0 and sorted(rows) == [(0, 1), (0, 2), (0, 4), (3, 4)] and "later than" not in err
    assert not Path(f"{stream}.late.jsonl").exists()


@pytest.mark.parametrize("name,data,line", [
    ("k.jsonl", b'{"type": "A", "time": 1}\n{"type": "B", "\xfftime": 2}\n', "line 2"),
    ("k.csv", b'type,time,s\nA,1,x\nB,2,caf\xff\n', "line 3"),
])
def test_bytes_that_are_not_utf8_inside_a_batch_are_named_by_line(capsys, tmp_path: Path, name: str,
                                                                    data: bytes, line: str) -> None:
    """The columnar path hands a batch with a byte that is not UTF-8 to the row readers, which name its line
    (Arrow alone would let it through to the output)."""
    stream = tmp_path / name
    stream.write_bytes(data)
    code, out, err = _run(capsys, "--query", "SELECT * WHERE A ; B", "--stream", str(stream))
    assert code == 2 and out == [] and f"{line}: not UTF-8 text" in err, err
