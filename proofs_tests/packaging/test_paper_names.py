"""The papers are called by their short names (docs/papers.md: the CEL, CORE, SRT, ACEL and SO-CEL papers) wherever
a reader sees them: the README, the documentation, the notebooks, the exercise banks and the command line's help. Module and file names
(``cer_theory.examples.running_example``) are code, not names."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from cer_theory.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
SEED_NAME = re.compile(r"\b[Ss]eeds?[ -]\d{3}\b")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "notebooks").glob("*.ipynb")),
         *sorted((ROOT / "cer_theory").rglob("data/*.*"))]  # (the exercise banks' statements, the bundled data)
PAGES = [p for p in PAGES if "_build" not in p.parts]


def hits(text: str) -> list[str]:
    return [m.group(0) for m in SEED_NAME.finditer(text)]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_no_seed_numbers_in_the_pages(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    found = [f"line {text[:m.start()].count(chr(10)) + 1}: {m.group(0)}" for m in SEED_NAME.finditer(text)]
    assert not found, f"{page.relative_to(ROOT)} names a paper by its seed number: {found[:10]}"


def test_no_seed_numbers_in_the_command_line_help() -> None:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    texts = {"cer-theory": parser.format_help(), **{f"cer-theory {n}": p.format_help() for n, p in sub.choices.items()}}
    found = {name: hits(text) for name, text in texts.items() if hits(text)}
    assert not found, found


def test_the_papers_page_cites_all_five() -> None:
    text = (ROOT / "docs" / "papers.md").read_text(encoding="utf-8")
    for short in ("the CEL paper", "the CORE paper", "the SRT paper", "the ACEL paper", "the SO-CEL paper"):
        assert f"**{short}**" in text
    for doi_or_id in ("10.1145/3485463", "PVLDB", "arXiv:2407.02884", "arXiv:2601.00967", "arXiv:1712.01063"):
        assert doi_or_id in text
