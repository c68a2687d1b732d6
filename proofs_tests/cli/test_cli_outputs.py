"""Outputs never destroy inputs, and are never half-written (docs/decisions.md D160–D163, docs/robustness.md):

* every output option of every command × {the input itself, a symbolic link to it, a hard link to it, the folder
  holding it} is refused before anything is written, the input untouched;
* ``run``'s outputs are written aside and renamed into place: SIGTERM or SIGINT at any point leaves the old output
  intact or the new one complete and readable (Parquet with its footer), never a part, and no temporary file;
* ``--max-output`` stops an exploding query with a clear message, the old output intact, and changes nothing
  while the bound holds.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from cer_theory.cli import main

QUERY = "SELECT * FROM S WHERE A ; B"
UMASK = os.umask(0o022)
os.umask(UMASK)


def _files(folder: Path) -> dict[str, Path]:
    """An input of each kind a command reads, in one folder."""
    folder.mkdir()
    stream = folder / "s.jsonl"
    stream.write_text('{"type": "A", "time": 1}\n{"type": "B", "time": 2}\n', encoding="utf-8")
    query = folder / "q.ceql"
    query.write_text(QUERY, encoding="utf-8")
    declare = folder / "d.ceql"
    declare.write_text("CREATE STREAM S (A(time double), B(time double))", encoding="utf-8")
    formula = folder / "f.cel"
    formula.write_text("A ; B", encoding="utf-8")
    return {"stream": stream, "query": query, "declare": declare, "formula": formula}


def _commands(f: dict[str, Path], out: str) -> dict[str, tuple[list[str], Path]]:
    """(arguments, the input ``out`` points at) per (command, output option, input option)."""
    s, q, d, phi = (str(f[k]) for k in ("stream", "query", "declare", "formula"))
    return {
        "run --output/--stream": (["run", "--query", QUERY, "--stream", s, "--output", out], f["stream"]),
        "run --output/--query-file": (["run", "--query-file", q, "--stream", s, "--output", out], f["query"]),
        "run --output/--declare": (["run", "--query", QUERY, "--stream", s, "--declare", d, "--output", out],
                                   f["declare"]),
        "run --late/--stream": (["run", "--query", QUERY, "--stream", s, "--lateness", "1", "--late", out],
                                f["stream"]),
        "cces --dot/--stream": (["cces", f"@{phi}", "--stream", s, "--dot", out], f["stream"]),
        "cces --dot/formula": (["cces", f"@{phi}", "--stream", s, "--dot", out], f["formula"]),
        "determinize --dot": (["determinize", f"@{phi}", "--dot", out], f["formula"]),
        "draw --output": (["draw", f"@{phi}", "--output", out], f["formula"]),
        "equiv --dot": (["equiv", f"@{phi}", "A", "--dot", out], f["formula"]),
        "step --output/--stream": (["step", f"@{phi}", "--stream", s, "--output", out], f["stream"]),
        "step --output/formula": (["step", f"@{phi}", "--stream", s, "--output", out], f["formula"]),
        "spark --output/--input": (["spark", "--query", QUERY, "--input", s, "--output", out, "--overwrite"],
                                   f["stream"]),
        "spark --output/--query-file": (["spark", "--query-file", q, "--input", s, "--output", out,
                                         "--overwrite"], f["query"]),
        "spark --output/--declare": (["spark", "--query", QUERY, "--declare", d, "--input", s, "--output", out,
                                      "--overwrite"], f["declare"]),
        "spark --rejected/--query-file": (["spark", "--query-file", q, "--input", s, "--output",
                                           str(Path(out).parent.parent / "elsewhere"), "--rejected", out],
                                          f["query"]),
        "conformance --report/--replay": (["conformance", "--engine", "ours", "--replay", q, "--report", out],
                                          f["query"]),
    }


KINDS = ("itself", "symlink", "hardlink", "folder")
CASES = list(_commands({k: Path(k) for k in ("stream", "query", "declare", "formula")}, "x"))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", CASES)
def test_no_output_option_may_overwrite_an_input(capsys, tmp_path: Path, case: str, kind: str) -> None:
    """Every output option × {the input, a symbolic link to it, a hard link to it, the folder holding it}:
    refused (exit 2, one line naming both), nothing written, the input byte for byte as before."""
    files = _files(tmp_path / "in")
    target = _commands(files, "x")[case][1]
    if kind == "itself":
        out = target
    elif kind == "symlink":
        out = tmp_path / "link"
        out.symlink_to(target)
    elif kind == "hardlink":
        out = tmp_path / "hard"
        os.link(target, out)
    else:
        out = target.parent
    argv, victim = _commands(files, str(out))[case]
    before = {p.name: p.read_bytes() for p in files.values()}
    listing = sorted(p.name for p in (tmp_path / "in").iterdir())
    assert main(argv) == 2, case
    err = capsys.readouterr().err
    assert "overlaps the input" in err and "Traceback" not in err and err.count("\n") == 1, err
    assert {p.name: p.read_bytes() for p in files.values()} == before
    assert sorted(p.name for p in (tmp_path / "in").iterdir()) == listing
    assert victim.exists()


def test_spark_overwrite_replaces_only_its_own_output_folder(capsys, tmp_path: Path) -> None:
    """``spark --overwrite`` never deletes a folder of other files (no marker of an earlier output): refused
    before Spark starts."""
    files = _files(tmp_path / "in")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine", encoding="utf-8")
    code = main(["spark", "--query", QUERY, "--input", str(files["stream"]), "--output", str(other),
                 "--overwrite"])
    err = capsys.readouterr().err
    assert code == 2 and "did not write" in err and "_cer_theory_output" in err
    assert (other / "notes.txt").read_text(encoding="utf-8") == "mine"


# ---------------------------------------------------------------------------------------------- kills


def _stream(path: Path, n: int) -> None:
    lines = [json.dumps({"type": "AB"[k % 2], "time": k, "x": k % 7}) for k in range(n)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _readable(path: Path, fmt: str) -> int:
    """The rows of a complete output (raises if it is not one)."""
    if fmt == "parquet":
        return pq.read_table(path).num_rows  # (needs the footer)
    text = path.read_text(encoding="utf-8")
    assert text == "" or text.endswith("\n")
    if fmt == "jsonl":
        return sum(1 for line in text.splitlines() if json.loads(line))
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["start", "end", "positions", "partition", "events", "aggregates"]
    return len(rows) - 1


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_sigterm_and_sigint_at_random_points_never_leave_a_part(tmp_path: Path, fmt: str) -> None:
    """``run`` killed by SIGTERM or SIGINT at random points once it is under way (after its first progress line):
    exit 143 or 130 with one line, the old output intact (or, when the run finished first, the new one complete),
    no temporary file left beside it."""
    stream = tmp_path / "s.jsonl"
    _stream(stream, 60_000)
    out = tmp_path / f"o.{fmt}"
    query = "SELECT * FROM S WHERE A ; B WITHIN 6 EVENTS"  # (90k complex events: a few seconds)
    argv = [sys.executable, "-m", "cer_theory.cli", "run", "--query", query, "--stream", str(stream),
            "--output", str(out), "--output-format", fmt, "--progress", "0"]
    subprocess.run(argv, check=True, capture_output=True, timeout=600)
    complete = _readable(out, fmt)
    rng = random.Random(f"kills {fmt}")
    for sig, code in [(signal.SIGTERM, 143), (signal.SIGINT, 130)]:
        old = out.read_bytes()
        proc = subprocess.Popen(argv[:-1] + ["0.05"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = proc.stderr.readline()  # (a progress line: the run is under way, past start-up and imports)
        time.sleep(rng.uniform(0.0, 2.0))
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=600)
        err = first + err
        if proc.returncode == 0 or " complex events in " in err:  # (it finished first: the new output complete)
            assert _readable(out, fmt) == complete  # (a signal after the summary may still end the interpreter)
        else:
            assert proc.returncode == code, (sig, proc.returncode, err)
            assert err.strip().splitlines()[-1] == ("cer-theory run: terminated" if code == 143 else
                                                    "cer-theory run: interrupted"), err
            assert "Traceback" not in err, err
            assert out.read_bytes() == old and _readable(out, fmt) == complete
        assert out.stat().st_mode & 0o777 == 0o666 & ~UMASK  # (the file made aside gets an ordinary file's mode)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["o." + fmt, "s.jsonl"]


# ---------------------------------------------------------------------------------------------- explosions


EXPLODING = "SELECT * FROM S WHERE A ; B+ ; C WITHIN 300 EVENTS"


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_max_output_stops_an_exploding_query_and_keeps_the_old_output(capsys, tmp_path: Path, fmt: str) -> None:
    stream = tmp_path / "s.jsonl"
    stream.write_text("".join(json.dumps({"type": t}) + "\n" for t in ["A"] + ["B"] * 40 + ["C"]), encoding="utf-8")
    out = tmp_path / f"o.{fmt}"
    out.write_bytes(b"old")
    code = main(["run", "--query", EXPLODING, "--stream", str(stream), "--output", str(out), "--output-format", fmt,
                 "--max-output", "1000", "--progress", "0"])
    err = capsys.readouterr().err
    assert code == 2 and "more than --max-output 1,000 complex events" in err and "Traceback" not in err
    assert out.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"o.{fmt}", "s.jsonl"]


@pytest.mark.parametrize("bound", [7, 8, 1000])
def test_max_output_changes_nothing_while_the_bound_holds(capsys, tmp_path: Path, bound: int) -> None:
    """B+ over 3 Bs: 7 complex events at the C. At or above 7 the output is the unbounded run's, byte for byte
    (at most bound + 1 are enumerated per position, LIMIT-style); below it the run stops."""
    stream = tmp_path / "s.jsonl"
    stream.write_text("".join(json.dumps({"type": t}) + "\n" for t in "ABBBC"), encoding="utf-8")
    assert main(["run", "--query", EXPLODING, "--stream", str(stream), "--progress", "0"]) == 0
    unbounded = capsys.readouterr().out
    assert unbounded.count("\n") == 7
    assert main(["run", "--query", EXPLODING, "--stream", str(stream), "--progress", "0", "--max-output",
                 str(bound)]) == 0
    assert capsys.readouterr().out == unbounded
    assert main(["run", "--query", EXPLODING, "--stream", str(stream), "--progress", "0", "--max-output", "6"]) == 2
    assert "more than --max-output 6" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_a_device_or_a_fifo_is_written_in_place_never_replaced(capsys, tmp_path: Path, fmt: str) -> None:
    """``--output /dev/null`` (the benchmarks' sink) and a FIFO are written through: renaming a file over them
    would replace the device."""
    stream = tmp_path / "s.jsonl"
    stream.write_text('{"type": "A"}\n{"type": "B"}\n', encoding="utf-8")
    null = Path(os.devnull)
    before = null.stat()
    assert main(["run", "--query", QUERY, "--stream", str(stream), "--output", os.devnull, "--output-format", fmt,
                 "--progress", "0"]) == 0
    after = null.stat()
    assert (after.st_ino, after.st_rdev, after.st_mode) == (before.st_ino, before.st_rdev, before.st_mode)
    assert not [p for p in null.parent.iterdir() if p.name.startswith(".null.")]
    if fmt == "jsonl":
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
        assert main(["run", "--query", QUERY, "--stream", str(stream), "--output", str(fifo), "--progress", "0"]) == 0
        assert json.loads(reader.communicate(timeout=60)[0])["positions"] == [0, 1]
        assert fifo.is_fifo()
