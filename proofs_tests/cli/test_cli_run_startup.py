"""``cer-theory run``'s start-up (D137): the command line never imports pandas (pyarrow would, at its first
conversion, only to ask whether an argument is a pandas object); ``main([...])`` called inside a program leaves
pyarrow's pandas support as it is, so DataFrames and Series still convert exactly afterwards."""
import json
import os
import subprocess
import sys
from pathlib import Path

_QUERY = "SELECT * FROM S WHERE (SELL as m; BUY as i) FILTER m[name = 'MSFT'] WITHIN 3 EVENTS"


def _stream(tmp_path: Path) -> Path:
    stream = tmp_path / "s.jsonl"
    stream.write_text("".join(json.dumps({"type": t, "name": "MSFT", "x": k}) + "\n"
                              for k, t in enumerate(["SELL", "BUY", "SELL", "BUY"])), encoding="utf-8")
    return stream


def test_the_command_line_does_not_import_pandas(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "cer_theory.cli", "run", "--query", _QUERY,
                           "--stream", str(_stream(tmp_path)), "--positions-only"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert proc.returncode == 0, proc.stderr
    imported = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time")}
    assert "numpy" in imported and not {"pandas.core", "pyarrow.pandas_compat"} & imported  # (the probe's attempt shows as "pandas")
    assert sorted(json.loads(line)["positions"] for line in proc.stdout.splitlines()) == [[0, 1], [0, 3], [2, 3]]


def test_main_inside_a_program_leaves_pandas_conversions_alone(tmp_path: Path) -> None:
    script = """
import sys
from cer_theory.cli import main
assert main(["run", "--query", QUERY, "--stream", STREAM, "--positions-only"]) == 0
import pandas as pd
import pyarrow as pa
from cer_theory.engines.core import Engine
assert pa.array(pd.Series([1, None], dtype="Int64")).to_pylist() == [1, None]
rows = [{"type": t, "name": "MSFT", "x": k if k % 2 else None} for k, t in enumerate(["SELL", "BUY"] * 3)]
got = [(m.positions, [e.type for e in m.events]) for m in Engine(QUERY).process(pd.DataFrame(rows))]
want = [(m.positions, [e.type for e in m.events]) for m in Engine(QUERY).process(iter(rows))]
print(got == want and len(got) == 5, got, want, file=sys.stderr)
""".replace("QUERY", repr(_QUERY)).replace("STREAM", repr(str(_stream(tmp_path))))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.stderr.strip().splitlines()[-1].startswith("True"), proc.stderr
