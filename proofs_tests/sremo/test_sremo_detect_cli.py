"""`cer-theory detect`: the positions of `eval --logic sremo`'s streaming matches (the SRT paper Def. 32), by the
detector (docs/decisions.md D113–D116); bad input exits 2 with a message."""

import json
import subprocess
import sys

from sremo_oracles import E1, E1_STREAM, SEQ3, SEQ3_DATA, SEQ3_W4_STREAM, TABLE_1


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "cer_theory.cli", *args], capture_output=True, text=True)


def _write(tmp_path, events):
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(e.to_dict()) + "\n" for e in events))
    return str(path)


def test_detect_prints_the_positions_of_the_streaming_matches(tmp_path):
    """The SRT paper's e₁ on Table 1 and seq₃ with w = 4 (§8's oracles, 0-based)."""
    for text, events, expected in ((E1, TABLE_1, E1_STREAM), (f"({SEQ3}) WITHIN 4", SEQ3_DATA, SEQ3_W4_STREAM)):
        got = _cli("detect", text, "--stream", _write(tmp_path, events))
        assert got.returncode == 0, got.stderr
        assert [json.loads(x) for x in got.stdout.splitlines()] == [{"k": k} for k in sorted(expected)]


def test_detect_pure_reading(tmp_path):
    stream = _write(tmp_path, TABLE_1)
    got = _cli("detect", '<type = "B"> . [TRUE]*', "--stream", stream, "--pure")
    assert [json.loads(x)["k"] for x in got.stdout.splitlines()] == [0, 1, 2, 3, 4, 5]


def test_detect_bad_input_exits_2(tmp_path):
    stream = _write(tmp_path, TABLE_1)
    bad = _cli("detect", '<type = "B"', "--stream", stream)
    assert bad.returncode == 2 and "line 1, column 12" in bad.stderr and "Traceback" not in bad.stderr
    # a windowed complement is built (the SRT paper §5.1.2); this one marks nothing, and a window needs a marked
    # position (Def. 39), so it never matches, as the semantics says; over registers !e is refused saying why
    comp = _cli("detect", '(!<type = "B">) WITHIN 2', "--stream", stream)
    assert comp.returncode == 0 and comp.stdout == "", comp.stderr
    over_registers = _cli("detect", '(<type = "B"> -> r . !<id = r.id> . <TRUE>) WITHIN 3', "--stream", stream)
    assert over_registers.returncode == 2 and "!e is built for an e without registers" in over_registers.stderr
