"""``cer-theory eval --logic acel`` and ``draw --logic acel`` through the registry: the JSON output format, both
evaluators, ``--bind``, and bad input (exit 2 with a clear message, never a traceback)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cer_theory.cli import main
from cer_theory.core.protocols import get

STOCKS = [{"type": "SELL", "name": "MSFT", "price": 101}, {"type": "SELL", "name": "INTL", "price": 80},
          {"type": "SELL", "name": "INTL", "price": 85}, {"type": "BUY", "name": "INTL", "price": 99},
          {"type": "SELL", "name": "AMZN", "price": 1900}]
PHI6 = ('AGG M[MAX <- max(intel.price)]((SELL AS msft ; (SELL AS intel)+ ; SELL AS amzn) FILTER '
        '(msft[name = "MSFT"] AND intel[name = "INTL"] AND amzn[name = "AMZN"]))')


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cer_theory.cli", *args], capture_output=True, text=True)


def in_process(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    """The same command run in this process (argparse errors exit with SystemExit 2)."""
    try:
        code = main(list(args))
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture()
def stocks(tmp_path: Path) -> Path:
    path = tmp_path / "stocks.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in STOCKS))
    return path


def test_eval_prints_the_complex_events_sorted_on_the_line_of_their_end_by_either_evaluator(stocks: Path) -> None:
    outs = [cli("eval", "--logic", "acel", PHI6, "--stream", str(stocks), "--via", via) for via in ("semantics", "acea")]
    assert [r.returncode for r in outs] == [0, 0] and outs[0].stdout == outs[1].stdout
    printed = [json.loads(line) for line in outs[0].stdout.splitlines()]
    assert [(line["position"], line["kind"]) for line in printed] == [(4, "complex_events")]
    lines = printed[0]["outputs"]
    assert [(c["start"], c["end"], c["bags"]["M"], [e["time"] for e in c["bags"]["intel"]]) for c in lines] == [
        (0, 4, [{"time": 4, "attributes": {"MAX": 80}}], [1]), (0, 4, [{"time": 4, "attributes": {"MAX": 85}}], [1, 2]),
        (0, 4, [{"time": 4, "attributes": {"MAX": 85}}], [2])]
    assert lines[0]["bags"]["msft"] == [{"time": 0, "attributes": {"name": "MSFT", "price": 101, "type": "SELL"}}]
    assert list(lines[0]["bags"]) == sorted(lines[0]["bags"])


def test_bind_switches_the_reading_of_AS(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "orders.jsonl"
    path.write_text('{"type": "S", "price": 30}\n{"type": "P", "price": 40}\n')
    phi = "AGG Y[e <- sum(X.price)]((S AS a ; P AS b) AS X)"
    sums = {bind: json.loads(in_process(capsys, "eval", "--logic", "acel", phi, "--stream", str(path), "--bind",
                                        bind)[1])["outputs"][0]["bags"]["Y"][0]["attributes"]["e"] for bind in ("bag", "set")}
    assert sums == {"bag": 140, "set": 70}


@pytest.mark.parametrize("args, message", [
    (["AGG Y[b <- median(X.price)](SELL)"], "unknown aggregate 'median'"),
    (["AGG Y[b <- sum(X.name)](SELL AS X)"], "sum needs numbers; got '"),
    (["SELL FILTER X[name]", "--via", "acea"], "not covered by Thm 6.2"),
    (["SELL", "--via", "acea", "--bind", "set"], "--bind set needs --via semantics"),
    (["SELL", "--bind", "multiset"], "invalid choice"),
])
def test_bad_input_exits_2_with_a_clear_message(stocks: Path, capsys: pytest.CaptureFixture, args: list[str],
                                                message: str) -> None:
    code, _, err = in_process(capsys, "eval", "--logic", "acel", *args[:1], "--stream", str(stocks), *args[1:])
    assert code == 2 and message in err and "Traceback" not in err


def test_draw_works_through_the_registry(tmp_path: Path) -> None:
    r = cli("draw", "--logic", "acel", "AGG Y[s <- sum(X.price)](SELL AS X ; BUY)")
    assert r.returncode == 0 and "← 0 ⊕sum sum'(price)" in r.stdout and "Y: [s↦sum(c" in r.stdout
    record = get("acel")
    assert record.paper.seed == "003" and list(record.evaluators) == ["semantics", "acea"]
