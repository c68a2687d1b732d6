"""Numbers of any size in every parser (docs/robustness.md, "Numbers in formulas"): an integer literal either reads
exactly or, past Python's 4,300-digit conversion limit, is refused by the one number reader
(``core.parsing.number``) with line and column (a float past its range is an infinity, the printers' ``1e999``).
Every registered formalism has a template here: a new one without it fails the first test.
The same literals through every command that reads a formula exit 2 with one line."""

from __future__ import annotations

import contextlib
import io

import pytest

from cer_theory.cli import main
from cer_theory.core.errors import FormulaTooDeep, SyntaxErrorCER
from cer_theory.core.events import MAX_INT_DIGITS
from cer_theory.core.tree import MAX_NESTING
from cer_theory.core.protocols import get, names

# formalism -> texts with a number {n} in each place a number is written
TEMPLATES: dict[str, tuple[str, ...]] = {
    "cel": ("T FILTER T.tmp > {n}", "T FILTER T.tmp + {n} > 1"),
    "socel": ("T FILTER T.tmp > {n}",),
    "focel": ("T AS x FILTER x.tmp > {n}",),
    "acel": ("T FILTER T.tmp > {n}", "AGG Y[s <- sum(T.a)](T FILTER T.a < {n})"),
    "sremo": ("(<x = {n}>) WITHIN 2", "(<x = 1>) WITHIN {n}"),
    "ceql": ("SELECT * FROM S WHERE T FILTER T[tmp > {n}]", "SELECT * FROM S WHERE T WITHIN {n} EVENTS",
             "SELECT * FROM S WHERE T WITHIN {n} SECONDS", "SELECT * FROM S WHERE T WITHIN {n} [time]",
             "SELECT * FROM S WHERE T LIMIT {n}"),
    "rpr": ("MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS x > {n})",
            "MATCH_RECOGNIZE (ORDER BY ts PATTERN (A{{{n}}}) DEFINE A AS x > 0)",
            "MATCH_RECOGNIZE (ORDER BY ts PATTERN (A{{1,{n}}}) DEFINE A AS x > 0)",
            "MATCH_RECOGNIZE (ORDER BY ts PATTERN (A B) DEFINE B AS PREV(B.x, {n}) > 0)"),
}

HUGE = "9" * (MAX_INT_DIGITS + 700)
LONGEST = "9" * MAX_INT_DIGITS
CASES = [(name, template) for name, templates in TEMPLATES.items() for template in templates]


def test_every_registered_formalism_has_templates() -> None:
    assert set(names()) <= set(TEMPLATES), f"write number templates for {sorted(set(names()) - set(TEMPLATES))}"


@pytest.mark.parametrize(("name", "template"), CASES)
def test_a_number_past_the_limit_is_refused_at_its_place(name: str, template: str) -> None:
    text = template.format(n=HUGE)
    with pytest.raises(SyntaxErrorCER) as caught:
        get(name).parse(text)
    message = str(caught.value)
    assert f"{len(HUGE):,} digits, more than the {MAX_INT_DIGITS:,}" in message
    at = text[caught.value.column - 1]
    assert at == "9" or at in "{+", f"the column points at the number, its quantifier or its operator: {message}"
    assert all(len(line) < 200 for line in message.splitlines()), "the source line is shown by an excerpt"


@pytest.mark.parametrize(("name", "template"), CASES)
def test_a_number_at_the_limit_reads_exactly(name: str, template: str) -> None:
    """4,300 digits (and leading zeros, which do not count) read as the exact integer, and print back to it."""
    logic = get(name)
    ast = logic.parse(template.format(n=LONGEST))
    assert logic.parse(logic.format(ast)) == ast
    logic.parse(template.format(n="0" * 5000 + "7"))


@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("literals") / "s.jsonl"
    path.write_text('{"type": "T", "tmp": 1, "x": 1, "ts": 1, "time": 1}\n')
    return str(path)


def commands(stream: str, text: str) -> list[list[str]]:
    """Every command that reads a formula or query, with ``text`` (of the logic the command reads)."""
    cel = f"T FILTER T.tmp > {text}"
    sremo = f"(<x = {text}>) WITHIN 2"
    return [["eval", cel, "--stream", stream], ["draw", cel], ["equiv", cel, "T"], ["determinize", cel],
            ["normal-form", cel], ["star-property", cel], ["cces", cel, "--stream", stream],
            ["eval", "--logic", "rpr", f"MATCH_RECOGNIZE (ORDER BY ts PATTERN (A{{{text}}}) DEFINE A AS x > 0)",
             "--stream", stream],
            ["run", "--query", f"SELECT * FROM S WHERE T FILTER T[tmp > {text}]", "--stream", stream],
            ["detect", sremo, "--stream", stream], ["complement", "--logic", "sremo", sremo, "--window", "2"],
            ["eval", "--logic", "acel", cel, "--stream", stream]]


@pytest.mark.parametrize("index", range(12))
def test_every_command_answers_a_huge_literal_with_one_line(stream: str, index: int) -> None:
    argv = commands(stream, HUGE)[index]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    assert status == 2, (argv[0], err.getvalue()[:300])
    first = err.getvalue().splitlines()[0]
    assert first.startswith(f"cer-theory {argv[0]}: ") and "line 1, column " in first, first
    assert "digits, more than the" in first, first
    assert "Traceback" not in err.getvalue()


# formalism -> a text nested n levels deep
NESTED = {
    "cel": lambda n: "NXT(" * n + "T" + ")" * n,
    "socel": lambda n: " ; ".join(["T"] * n),
    "focel": lambda n: " ; ".join([f"T AS x{i}" for i in range(n)]),
    "acel": lambda n: " ; ".join(["T"] * n),
    "sremo": lambda n: "(" * n + '<type = "T">' + ")*" * n,
    "ceql": lambda n: "SELECT * FROM S WHERE " + " ; ".join(["T"] * n),
    "rpr": lambda n: "MATCH_RECOGNIZE (ORDER BY ts PATTERN (" + "(" * n + "A" + ")+" * n + ") DEFINE A AS x > 0)",
}


@pytest.mark.parametrize("name", sorted(set(names()) | set(NESTED)))
def test_every_parser_refuses_nesting_past_the_limit(name: str) -> None:
    """Each registered formalism's parser refuses a text nested past ``core.tree.MAX_NESTING`` with the one error
    (a new formalism without a family here fails)."""
    assert name in NESTED, f"write a nesting family for {name}"
    with pytest.raises(FormulaTooDeep):
        get(name).parse(NESTED[name](3 * MAX_NESTING))
    with pytest.raises(FormulaTooDeep):
        get(name).parse(NESTED[name](20_000))
