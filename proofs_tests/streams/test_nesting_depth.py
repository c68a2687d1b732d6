"""Values nested past ``streams.rows.MAX_JSON_DEPTH`` are refused before any JSON parser reads them
(docs/robustness.md, "Nesting in streams"): Arrow's JSON reader given 100,000 nested objects overflowed its stack and
killed ``cer-theory run`` (exit 139, no message, a ``.partial`` file left). Every reader — the row reader, the block
reader, standard input — answers with one line naming the file, the line and the field, in a subprocess bounded in
memory and time so that a regression fails rather than crashes the test run."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.errors import StreamFormatError
from cer_theory.streams.blocks import iter_rows
from cer_theory.streams.rows import MAX_JSON_DEPTH, iter_jsonl, nested_too_deeply

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(alphabet="{}[]\"\\ab:,", max_size=6),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=60)


def depth(x: Any) -> int:
    """How deeply arrays and objects nest in ``x`` (a scalar: 0)."""
    if isinstance(x, list):
        return 1 + max(map(depth, x), default=0)
    if isinstance(x, dict):
        return 1 + max(map(depth, x.values()), default=0)
    return 0


def nest(value: Any, levels: int) -> Any:
    for _ in range(levels):
        value = [value]
    return value


@settings(max_examples=300)
@given(st.dictionaries(st.text(alphabet="ab\"{", max_size=3), JSON, max_size=3), st.integers(0, 40))
def test_the_prescan_measures_the_depth_the_parser_would_see(event: dict[str, Any], extra: int) -> None:
    """The scan agrees with the depth of the parsed value, brackets inside strings not counted, and names the
    top-level key whose value is too deep."""
    event = {**event, "deep": nest(event.get("deep", 1), extra)}
    text = json.dumps(event)
    found = nested_too_deeply(text)
    if depth(event) <= MAX_JSON_DEPTH:
        assert found is None, text
    else:
        assert found is not None and depth(event[found]) + 1 > MAX_JSON_DEPTH, (found, text)


def test_brackets_in_strings_are_not_nesting(tmp_path: Path) -> None:
    """A string holding many brackets is an ordinary value on both paths (the block reader hands such a block to
    the row reader, which reads it exactly)."""
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"type": "T", "x": "{[" * 100}) + "\n" + json.dumps({"type": "T", "x": 1}) + "\n")
    rows = list(iter_jsonl(path))
    assert [e for _, e in iter_rows(path, "jsonl")] == [e for _, e in rows]
    assert rows[0][1]["x"] == "{[" * 100


@pytest.mark.parametrize("opening", ['{"a":', "["])
def test_the_row_reader_names_line_and_field(tmp_path: Path, opening: str) -> None:
    closing = "}" if opening.startswith("{") else "]"
    path = tmp_path / "s.jsonl"
    path.write_text('{"type": "T"}\n{"type": "T", "x": ' + opening * 100_000 + "1" + closing * 100_000 + "}\n")
    with pytest.raises(StreamFormatError, match=rf"s.jsonl, line 2, field 'x': a value nested more than "
                                                rf"{MAX_JSON_DEPTH} levels"):
        list(iter_jsonl(path))


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))


READINGS = {
    "run (blocks)": lambda s, out: ["run", "--query", "SELECT * WHERE T", "--stream", s, "--progress", "0"],
    "run parquet": lambda s, out: ["run", "--query", "SELECT * WHERE T", "--stream", s, "--output",
                                   str(out / "o.parquet")],
    "run csv": lambda s, out: ["run", "--query", "SELECT * WHERE T", "--stream", s, "--output", str(out / "o.csv")],
    "eval (rows)": lambda s, out: ["eval", "T", "--stream", s],
    "stdin": lambda s, out: ["run", "--query", "SELECT * WHERE T", "--stream", "-"],
}


@pytest.mark.parametrize("reading", READINGS)
@pytest.mark.parametrize("opening", ['{"a":', "["])
def test_a_100000_deep_value_is_one_line_on_every_reader(tmp_path: Path, reading: str, opening: str) -> None:
    closing = "}" if opening.startswith("{") else "]"
    stream = tmp_path / "deep.jsonl"
    stream.write_text('{"type": "T", "x": 1}\n' * 3 + '{"type": "T", "y": 2, "x": ' + opening * 100_000 + "1"
                      + closing * 100_000 + "}\n")
    out = tmp_path / "out"
    out.mkdir()
    argv = READINGS[reading](str(stream), out)
    stdin = stream.open("rb") if "-" in argv else subprocess.DEVNULL
    done = subprocess.run([sys.executable, "-m", "cer_theory.cli", *argv], stdin=stdin, capture_output=True,
                          text=True, timeout=120, preexec_fn=_limited)
    name = "<stdin>" if "-" in argv else str(stream)
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"{name}, line 4, field 'x': a value nested more than {MAX_JSON_DEPTH} levels deep" in done.stderr
    assert list(out.iterdir()) == [], "no output and no partial file is left"
