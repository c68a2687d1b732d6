"""Fuzzing the parsers and the formula commands (issue 16, docs/robustness.md): mutated formulas and queries of
every logic give a parsed AST or the project's own error (a ``CerError``), and through the command line exit
status 0 or 2 with a one-line message, never a Python traceback. Derandomized in the "ci" profile; run it longer
with ``HYPOTHESIS_PROFILE=deep``."""

from __future__ import annotations

import contextlib
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.cli import main
from cer_theory.core.errors import CerError
from cer_theory.core.protocols import get

SEEDS = {
    "cel": ['(H IN H1 ; T+ ; H IN H2) FILTER (H1.tmp > 40 AND T[tmp < 30] AND H2.id = H1.id)',
            'MAX(R ; T) OR STRICT(R : T+)', 'PI[A](R IN A ; T) UNLESS U', 'NXT(R+ ; (T OR U) FILTER T.x != 1)'],
    "ceql": ['SELECT * FROM S WHERE (SELL as s ; BUY as b) FILTER s[price > 10] WITHIN 2 EVENTS',
             'SELECT MAX s, b FROM S WHERE SELL as s ; BUY+ as b PARTITION BY [name] WITHIN 10 SECONDS'],
    "socel": ['(R AS x ; T AS y) FILTER x.a = 1', 'R+ ; T OR U', 'START(R ; T+)'],
    "sremo": ['<type = "R"> -> r1 . <x > r1.x>*', '(<x = 1> | !<y = 2>) WITHIN 3', 'ANY(<x = 1>, <y = 2>)'],
}
# fragments a mutation inserts: operators, brackets, keywords, quotes, odd characters, deep prefixes
PIECES = [" ", ";", ":", "+", "(", ")", "[", "]", ".", ",", "=", "<", ">", "!", "*", "|", "&", '"', "'", "-", "1",
          "x", "R", "T", "AND", "OR", "NOT", "FILTER", "IN", "AS", "SELECT", "WHERE", "WITHIN", "MAX", "NXT(",
          "PI[", "START(", "\n", "\t", "\x00", "é", "∧", "⊕", "π", "1e999", "9" * 30, "(" * 120, "NOT " * 120]


@st.composite
def mutated(draw: st.DrawFn, logic: str) -> str:
    text = draw(st.sampled_from(SEEDS[logic]))
    for _ in range(draw(st.integers(1, 4))):
        k = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "repeat"]))
        if op == "insert":
            text = text[:k] + draw(st.sampled_from(PIECES)) + text[k:]
        elif op == "delete":
            text = text[:k] + text[k + draw(st.integers(1, 5)):]
        elif op == "replace":
            text = text[:k] + draw(st.sampled_from(PIECES)) + text[k + 1:]
        else:  # a piece repeated many times: deep or long formulas
            j = draw(st.integers(k, min(len(text), k + 8)))
            text = text[:k] + text[k:j] * draw(st.integers(2, 150)) + text[j:]
    return text


LOGICS = st.sampled_from(sorted(SEEDS))


@settings(max_examples=max(300, settings.default.max_examples))
@given(st.data())
def test_mutated_texts_parse_or_raise_the_projects_own_error(data) -> None:
    logic = data.draw(LOGICS)
    text = data.draw(mutated(logic))
    try:
        ast = get(logic).parse(text)
    except CerError:
        return
    str(ast), repr(ast), hash(ast)  # what parses can be printed and hashed


@settings(max_examples=max(40, settings.default.max_examples // 10))
@given(st.data())
def test_mutated_formulas_through_the_command_line_exit_0_or_2(tmp_path_factory, data) -> None:
    logic = data.draw(LOGICS)
    text = data.draw(mutated(logic))
    folder = tmp_path_factory.mktemp("fuzz")
    stream = folder / "s.jsonl"
    stream.write_text('{"type": "R", "x": 1, "price": 11}\n{"type": "T", "x": 2}\n{"type": "SELL", "price": 12}\n')
    commands = {"cel": [["eval", text, "--stream", str(stream)], ["draw", text, "--budget", "3000"],
                        ["determinize", text, "--budget", "3000"]],
                "ceql": [["run", "--query", text, "--stream", str(stream), "--progress", "1000"],
                         ["draw", text, "--logic", "ceql", "--budget", "3000"]],
                "socel": [["eval", text, "--logic", "socel", "--stream", str(stream)]],
                "sremo": [["eval", text, "--logic", "sremo", "--stream", str(stream), "--budget", "3000"]]}[logic]
    for argv in commands:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)  # any exception other than the project's own escapes here and fails the test
        assert status in (0, 2), (argv, status, err.getvalue())
        if status == 2:
            assert err.getvalue().startswith(f"cer-theory {argv[0]}: ") and "Traceback" not in err.getvalue()
