"""`cer-theory run` loads only what its input needs (docs/decisions.md D174): pandas never without a DataFrame, and
Arrow's compute kernels (nor, in the engine, numpy) not for a small file, standard input or a re-ordered
stream, which the row readers read. Each case runs in a fresh interpreter, so the modules a case loads are its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

QUERY = "SELECT * FROM S WHERE SELL as a ; BUY as b WITHIN 5 [time]"

PROBE = """
import sys
from cer_theory.cli import main
code = main({argv!r})
loaded = [m for m in ("pandas", "numpy", "pyarrow.compute") if m in sys.modules]
print("LOADED " + ",".join(loaded), file=sys.stderr)
sys.exit(code)
"""


def _loaded(argv: list[str], stdin: str | None = None) -> tuple[set[str], str]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], input=stdin, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    line = [ln for ln in done.stderr.splitlines() if ln.startswith("LOADED ")][-1]
    return set(filter(None, line[len("LOADED "):].split(","))), done.stdout


def _events(n: int) -> str:
    return "".join(json.dumps({"type": "SELL" if k % 2 == 0 else "BUY", "time": k}) + "\n" for k in range(n))


MATCHES_OF_TEN = 3 + 3 + 3 + 2 + 1
"""Each SELL (times 0, 2, …, 8) with each later BUY at most 5 after it."""


@pytest.mark.parametrize("how", ["small file", "standard input", "lateness"])
def test_run_on_a_small_stream_loads_neither_pandas_nor_arrow_kernels(tmp_path: Path, how: str) -> None:
    stream = tmp_path / "ten.jsonl"
    stream.write_text(_events(10))
    argv = ["run", "--query", QUERY, "--stream", "-" if how == "standard input" else str(stream)]
    if how == "lateness":
        argv += ["--lateness", "1", "--late", str(tmp_path / "late.jsonl")]
    loaded, out = _loaded(argv, stdin=_events(10) if how == "standard input" else None)
    assert len(out.splitlines()) == MATCHES_OF_TEN
    assert not loaded & {"pandas", "pyarrow.compute"}, loaded  # (numpy comes with the writers' pyarrow)


def test_run_stream_on_a_small_file_loads_neither_numpy_nor_arrow(tmp_path: Path) -> None:
    """The engine and :func:`run_stream` themselves: the row readers only."""
    stream = tmp_path / "ten.jsonl"
    stream.write_text(_events(10))
    probe = ("import sys\nfrom cer_theory.engines.core.run import run_stream\n"
             f"print(len(list(run_stream({QUERY!r}, {str(stream)!r}))))\n"
             "print(','.join(m for m in ('pandas', 'numpy', 'pyarrow') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == [str(MATCHES_OF_TEN), ""], done.stdout


def test_run_on_a_file_from_columnar_from_bytes_goes_through_the_columns(tmp_path: Path) -> None:
    """The other side of the threshold: numpy and Arrow's kernels are loaded, and the output is the row path's."""
    from cer_theory.engines.core.run import COLUMNAR_FROM

    n = COLUMNAR_FROM // 20
    stream = tmp_path / "big.jsonl"
    stream.write_text(_events(n))
    assert stream.stat().st_size >= COLUMNAR_FROM
    loaded, out = _loaded(["run", "--query", QUERY, "--stream", str(stream), "--positions-only"])
    assert {"numpy", "pyarrow.compute"} <= loaded
    _, by_rows = _loaded(["run", "--query", QUERY, "--stream", "-", "--positions-only"], stdin=_events(n))
    assert out == by_rows and len(out.splitlines()) > n


AS_PROGRAM = """
import sys
from cer_theory import cli
leave = cli._leave
def report_and_leave(code):  # (the program leaves at once when done, D461: report before)
    print("LOADED " + ",".join(m for m in ("pandas", "pyarrow.compute") if m in sys.modules), file=sys.stderr)
    leave(code)
cli._leave = report_and_leave
sys.argv = ["cer-theory", *{argv!r}]
report_and_leave(cli.main())
"""


def test_run_as_the_program_reads_a_columnar_file_without_pandas(tmp_path: Path) -> None:
    """Arrow asks for pandas at its first conversion of a column; ``cer-theory run`` as the program says no
    (docs/decisions.md D350) and writes what ``main([...])`` called from Python, which loads it, writes."""
    from cer_theory.engines.core.run import COLUMNAR_FROM

    stream = tmp_path / "big.jsonl"
    stream.write_text(_events(COLUMNAR_FROM // 20))
    argv = ["run", "--query", QUERY, "--stream", str(stream)]
    done = subprocess.run([sys.executable, "-c", AS_PROGRAM.format(argv=argv)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert [ln for ln in done.stderr.splitlines() if ln.startswith("LOADED ")][-1] == "LOADED pyarrow.compute"
    loaded, from_python = _loaded(argv)
    assert "pandas" in loaded  # (else the case above proves nothing: Arrow no longer asks for pandas)
    assert done.stdout == from_python and len(from_python.splitlines()) > 1000


def test_engine_on_a_list_of_dicts_loads_no_arrow() -> None:
    """A list of dicts is cut into batches of dicts (streams.convert), never through Arrow: pyarrow is loaded only
    for a DataFrame or a Table (streams.frames; docs/decisions.md D280)."""
    probe = ("import sys\nfrom cer_theory.engines.core.engine import Engine\n"
             f"rows = [{{'type': 'SELL' if k % 2 == 0 else 'BUY', 'time': k}} for k in range(10)]\n"
             f"print(sum(1 for _ in Engine({QUERY!r}).process(rows)))\n"
             "print(','.join(m for m in ('pandas', 'pyarrow', 'cer_theory.streams.frames') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == [str(MATCHES_OF_TEN), ""], done.stdout


NOT_ON_THE_RUN_PATH = (
    "z3", "sympy", "networkx", "pandas", "numpy", "pyarrow", "wasmtime", "importlib.metadata",
    "cer_theory.core.predicates.solver", "cer_theory.stepper.models", "cer_theory.engines.cces",
    "cer_theory.formalisms.socel", "cer_theory.formalisms.acel", "cer_theory.formalisms.sremo",
    "cer_theory.formalisms.rpr", "cer_theory.spark", "cer_theory.conformance", "cer_theory.exercises",
    "cer_theory.examples", "cer_theory.core.drawing.dot", "cer_theory.core.drawing.render")
"""What ``run`` on a small JSON Lines file has no use for (docs/decisions.md D281, D460): the solver and Z3 (the
engine's determinizer works on bit vectors), the other formalisms, the stepper's models, the DOT writer (a run
draws nothing) and the drawing back ends, the
installed-distribution metadata (read for ``--version`` only), and numpy, pandas and Arrow (the row readers)."""


def test_run_on_a_small_file_loads_none_of_the_modules_it_does_not_need(tmp_path: Path) -> None:
    stream = tmp_path / "ten.jsonl"
    stream.write_text(_events(10))
    probe = ("import sys\nfrom cer_theory.cli import main\n"
             f"code = main(['run', '--query', {QUERY!r}, '--stream', {str(stream)!r}])\n"
             f"names = {NOT_ON_THE_RUN_PATH!r}\n"
             "print(','.join(n for n in names if any(m == n or m.startswith(n + '.') for m in sys.modules)),"
             " file=sys.stderr)\nsys.exit(code)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == MATCHES_OF_TEN
    loaded = [n for n in done.stderr.splitlines()[-1].split(",") if n]
    assert len(loaded) == 0, f"run loaded {len(loaded)} modules it does not need: {loaded}"


@pytest.mark.parametrize("output", ["stdout", "jsonl", "csv", "parquet"])
def test_run_as_the_program_leaves_at_once_with_every_output_whole(tmp_path: Path, output: str) -> None:
    """``cer-theory run`` ends without the interpreter's teardown once done (docs/decisions.md D461): what it
    wrote — its output (a file or standard output, past a pipe's buffer), its late events, its summary — is what
    ``main`` called from Python writes, byte for byte, with the same exit status."""
    stream = tmp_path / "s.jsonl"
    events = [json.loads(line) for line in _events(600).splitlines()]
    events[100], events[101] = events[101], events[100]  # (one event late, within the lateness: reordered)
    events[300]["time"] = 290  # (one event later than the lateness: to the late file)
    stream.write_text("".join(json.dumps(e) + "\n" for e in events))

    def argv(folder: str) -> list[str]:
        out = [] if output == "stdout" else ["--output", str(tmp_path / f"{folder}.{output}"),
                                              "--output-format", output]
        return ["run", "--query", QUERY, "--stream", str(stream), "--lateness", "1", "--late",
                str(tmp_path / f"{folder}.late.jsonl"), "--progress", "0", *out]

    program = subprocess.run([sys.executable, "-m", "cer_theory.cli", *argv("program")], capture_output=True,
                             timeout=120)
    called = subprocess.run([sys.executable, "-c", f"import sys\nfrom cer_theory.cli import main\n"
                                                   f"sys.exit(main({argv('called')!r}))"],
                            capture_output=True, timeout=120)
    assert program.returncode == called.returncode == 0, program.stderr
    summary = [line.split(b" in ")[0] for line in program.stderr.splitlines()]  # (but the time taken)
    assert summary == [line.split(b" in ")[0] for line in called.stderr.splitlines()], program.stderr
    assert program.stdout == called.stdout
    assert len(program.stdout) > (1 << 16) if output == "stdout" else program.stdout == b""
    for name in ([] if output == "stdout" else [output]) + ["late.jsonl"]:
        assert (tmp_path / f"program.{name}").read_bytes() == (tmp_path / f"called.{name}").read_bytes(), name
    assert (tmp_path / "program.late.jsonl").read_bytes().count(b"\n") == 1
    assert not [f.name for f in tmp_path.iterdir() if f.name.endswith(".partial")]  # (no temporary output left)


def test_run_as_the_program_leaves_at_once_with_its_exit_status(tmp_path: Path) -> None:
    """Bad input as the program: exit 2, the one line naming the line, and no output (D461 keeps the status)."""
    stream = tmp_path / "s.jsonl"
    stream.write_text(_events(5) + "{not json\n")
    out = tmp_path / "o.jsonl"
    done = subprocess.run([sys.executable, "-m", "cer_theory.cli", "run", "--query", QUERY, "--stream", str(stream),
                           "--output", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "line 6" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not out.exists()
