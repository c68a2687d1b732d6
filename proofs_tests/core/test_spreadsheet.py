"""CSV cells a spreadsheet cannot run (the OWASP rule, docs/decisions.md D342): no cell written by
:func:`spreadsheet_csv` starts with a formula character unless it is quoted, and the file reads back, through the
csv module, to exactly what was written."""

from __future__ import annotations

import csv
import io

from hypothesis import given
from hypothesis import strategies as st

from cer_theory.core.spreadsheet import DANGEROUS, from_spreadsheet_cell, spreadsheet_cell, spreadsheet_csv

# Text that is likely to begin with what matters: the dangerous characters, quotes, and anything else.
texts = st.text(alphabet=st.sampled_from(DANGEROUS + "'\"\n,; aZ0(") | st.characters(blacklist_categories=["Cs"]))


def test_the_owasp_examples() -> None:
    assert spreadsheet_cell('=HYPERLINK("http://x","y")') == '\'=HYPERLINK("http://x","y")'
    assert [spreadsheet_cell(t) for t in ("-2+3", "+1", "@SUM(A1)", "\t=1", "\r=1")] == \
        ["'-2+3", "'+1", "'@SUM(A1)", "'\t=1", "'\r=1"]
    assert [spreadsheet_cell(t) for t in ("student001", "", "a=b", " =1", "'")] == \
        ["student001", "", "a=b", " =1", "'"]
    assert spreadsheet_cell("'=1") == "''=1" and from_spreadsheet_cell("''=1") == "'=1"


@given(texts)
def test_no_cell_starts_a_formula_unless_quoted(text: str) -> None:
    cell = spreadsheet_cell(text)
    assert not cell.startswith(tuple(DANGEROUS))
    assert cell == text or cell == "'" + text
    assert from_spreadsheet_cell(cell) == text


@given(st.lists(st.lists(texts, min_size=3, max_size=3), max_size=6), st.lists(texts, min_size=3, max_size=3,
                                                                              unique=True))
def test_a_csv_reads_back_through_the_csv_module_with_every_cell_safe(rows: list[list[str]],
                                                                      columns: list[str]) -> None:
    text = spreadsheet_csv(columns, [dict(zip(columns, row)) for row in rows])
    read = list(csv.reader(io.StringIO(text, newline="")))
    assert read == [[spreadsheet_cell(c) for c in columns]] + [[spreadsheet_cell(c) for c in row] for row in rows]
    assert all(not cell.startswith(tuple(DANGEROUS)) for line in read for cell in line)
    assert [[from_spreadsheet_cell(c) for c in line] for line in read[1:]] == rows
