"""Fuzzing `cer-theory run` with mutated streams (issue 16): JSON Lines and CSV bytes with inserted, deleted,
flipped and duplicated pieces. Whatever the bytes, the command exits 0, or 2 with a message naming the place;
it never raises (a traceback). Derandomized under the "ci" profile, like every property test."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cer_theory.cli import main

JSONL = (b'{"type": "A", "k": 1, "time": 1, "x": 2.5}\n{"type": "B", "k": 1, "time": 2, "s": "caf\xc3\xa9"}\n'
         b'{"type": "B", "k": 2, "time": 2, "b": true}\n\n{"type": "A", "k": 2, "time": 4}\n'
         b'{"type": "C", "time": 5, "x": -1e3}\n')
CSV = b'type,k,time,x,s\nA,1,1,2.5,"a,b"\nB,1,2,,"say ""hi"""\nB,2,2,3,"two\nlines"\nA,2,4,,x\nC,,5,-1e3,\n'
PIECES = [b'"', b",", b"\n", b"\r\n", b"{", b"}", b"[", b":", b"\\", b"\x00", b"\xff", b"\xe9", b"\xef\xbb\xbf",
          b"\xff\xfe", b"9" * 4400, b"[" * 3000, b"a" * 140_000, b'"type"', b"null", b"NaN", b"-", b"1e999", b" "]
QUERIES = ("SELECT * WHERE A ; B+ PARTITION BY [k] WITHIN 5 SECONDS", "SELECT * WHERE (A ; B) FILTER A[x > 1] "
           "WITHIN 3 EVENTS", "SELECT LAST * WHERE A ; C WITHIN 3 [time]")


@st.composite
def mutated(draw) -> tuple[str, bytes]:
    name, data = draw(st.sampled_from([("s.jsonl", JSONL), ("s.csv", CSV)]))
    data = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["insert", "delete", "flip", "duplicate"]))
        if op == "insert":
            data[at:at] = draw(st.sampled_from(PIECES) | st.binary(min_size=1, max_size=4))
        elif op == "delete":
            del data[at:at + draw(st.integers(1, 12))]
        elif op == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        else:
            end = data.find(b"\n", at)
            data[at:at] = data[at:end + 1 if end >= 0 else len(data)]
    return name, bytes(data)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stream=mutated(), query=st.sampled_from(QUERIES), lateness=st.sampled_from([None, "1", "2 seconds"]))
def test_mutated_streams_exit_0_or_2_with_a_message(tmp_path: Path, stream: tuple[str, bytes], query: str,
                                                      lateness: str | None) -> None:
    name, data = stream
    path = tmp_path / name
    path.write_bytes(data)
    argv = ["run", "--query", query, "--stream", str(path), "--progress", "0"]
    if lateness is not None:
        argv += ["--lateness", lateness, "--late", str(tmp_path / "late.jsonl")]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    assert code in (0, 2), f"exit {code} on {data!r}"
    if code == 2:
        message = err.getvalue()
        assert message.startswith("cer-theory run: ") and "Traceback" not in message, message
        assert str(path) in message or "--" in message, f"no place named: {message}"
