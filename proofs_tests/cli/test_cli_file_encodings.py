"""Every command that reads a whole text file the user names (a formula ``@FILE``, a query file, declarations, an
automaton file, an exercise file) × every encoding and malformation a file picks up (Latin-1, UTF-16, binary,
empty, truncated JSON): exit status 2 and one line on stderr that names the file, never a traceback
(docs/robustness.md, "Files"). Streams are read by the stream readers and tested with them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cer_theory.cli import main

UCEA = {"kind": "ucea", "states": ["q0", "q1"], "initial": ["q0"], "final": ["q1"],
        "transitions": [{"from": "q0", "guard": "TRUE", "labels": [], "to": "q0"},
                        {"from": "q0", "guard": "type = \"R\"", "labels": ["R"], "to": "q1"}]}
EXERCISE = ('title = "Ré"\ntext = "An R"\nreference = "R"\ndifficulty = 1\n[schema]\nR = ["x"]\n')

# what a file holds when it is well-formed: the malformations are made from it
GOOD = {"cel": "R ; T", "socel": "R ; T", "sremo": "<type = \"R\"> . <TRUE>", "ceql": "SELECT * WHERE R ; T",
        "declarations": "CREATE STREAM S { EVENT R { x:int } }", "automaton": json.dumps(UCEA, ensure_ascii=False),
        "exercise": EXERCISE}


def _malformed(kind: str, how: str) -> bytes:
    text = GOOD[kind] + " é"  # a character Latin-1 and UTF-8 write differently
    if kind in ("automaton", "exercise"):
        text = GOOD[kind].replace('"q1"]', '"é"]') if kind == "automaton" else GOOD[kind]
    return {"latin-1": text.encode("latin-1"), "utf-16": text.encode("utf-16"),
            "binary": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00",
            "empty": b"", "truncated": text.encode()[: len(text.encode()) // 2]}[how]


STREAM = '{"type": "R", "x": 1}\n{"type": "T", "x": 2}\n'

# (the kind of file, the command line with FILE where the file goes, STREAM where a good stream goes)
COMMANDS = [
    ("cel", ["eval", "@FILE", "--stream", "STREAM"]),
    ("cel", ["draw", "@FILE", "-o", "OUT.dot"]),
    ("cel", ["determinize", "@FILE"]),
    ("cel", ["normal-form", "@FILE"]),
    ("cel", ["star-property", "@FILE"]),
    ("cel", ["to-cel", "@FILE"]),
    ("cel", ["rewrite", "contiguize", "@FILE"]),
    ("cel", ["cces", "@FILE", "--stream", "STREAM"]),
    ("cel", ["equiv", "@FILE", "R ; T"]),
    ("cel", ["equiv", "R ; T", "@FILE"]),
    ("cel", ["check-exercise", "fire_01_later", "@FILE"]),
    ("socel", ["eval", "--logic", "socel", "@FILE", "--stream", "STREAM"]),
    ("sremo", ["eval", "--logic", "sremo", "@FILE", "--stream", "STREAM"]),
    ("sremo", ["complement", "@FILE"]),
    ("ceql", ["run", "--query-file", "FILE", "--stream", "STREAM"]),
    ("ceql", ["run", "--query", "@FILE", "--stream", "STREAM"]),
    ("ceql", ["eval", "--logic", "ceql", "@FILE", "--stream", "STREAM"]),
    ("declarations", ["run", "--query", "SELECT * WHERE R", "--declare", "FILE", "--stream", "STREAM"]),
    ("automaton", ["to-socel", "FILE"]),
    ("automaton", ["star-property", "--automaton", "FILE"]),
    ("exercise", ["check-exercise", "FILE", "R"]),
]
MALFORMATIONS = ["latin-1", "utf-16", "binary", "empty", "truncated"]


def _truncation_applies(kind: str, command: list[str]) -> bool:
    """A prefix of a formula may be a formula (R ; T → R): nothing to refuse; and a formula's syntax error names
    line and column of the formula, wherever it came from. Truncation is a malformation of the structured files
    and of the query files that `run` reads (its messages name the file)."""
    return kind in ("automaton", "exercise", "declarations") or (kind == "ceql" and command[0] == "run")


CASES = [(kind, command, how) for kind, command in COMMANDS for how in MALFORMATIONS
         if how != "truncated" or _truncation_applies(kind, command)]


@pytest.mark.parametrize("kind,command,how", CASES, ids=[f"{' '.join(c)}-{h}" for _, c, h in CASES])
def test_a_malformed_file_is_one_line_naming_it(tmp_path: Path, capsys, kind: str, command: list[str],
                                                how: str) -> None:
    file = tmp_path / f"input-{kind}.txt"
    file.write_bytes(_malformed(kind, how))
    stream = tmp_path / "s.jsonl"
    stream.write_text(STREAM)
    argv = [a.replace("FILE", str(file)).replace("STREAM", str(stream)).replace("OUT", str(tmp_path / "out"))
            for a in command]
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2, (argv, status, err)
    assert "Traceback" not in err and err.count("\n") <= 3, err  # one line (a syntax error adds its line and caret)
    assert str(file) in err.splitlines()[0] or file.stem in err.splitlines()[0], (argv, err)


def test_the_well_formed_files_are_accepted(tmp_path: Path, capsys) -> None:
    """The malformations above are made from files that work, so each refusal is the malformation's."""
    stream = tmp_path / "s.jsonl"
    stream.write_text(STREAM)
    for kind, command in COMMANDS:
        file = tmp_path / f"input-{kind}.txt"
        file.write_text(GOOD[kind], encoding="utf-8")
        argv = [a.replace("FILE", str(file)).replace("STREAM", str(stream)).replace("OUT", str(tmp_path / "out"))
                for a in command]
        main(argv)  # (an answer outside an exercise's schema is exit 2, with its own message)
        err = capsys.readouterr().err
        assert str(file) not in err and file.stem not in err, (argv, err)
