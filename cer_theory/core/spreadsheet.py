"""CSV for people who open it in a spreadsheet: no cell a spreadsheet would run as a formula.

A cell that begins with ``=``, ``+``, ``-`` or ``@`` is a formula to Excel, LibreOffice and Google Sheets, and a
leading tab or carriage return lets one through the checks some of them make (OWASP, "CSV Injection"). A grades
file holds names and text the students chose (a folder named ``=HYPERLINK("http://x","y")`` is a link the
teacher clicks), so every cell of such a file goes through :func:`spreadsheet_cell`, which applies the OWASP rule:
such a cell is prefixed with a single quote, which the spreadsheet reads as "this is text" (docs/decisions.md
D342).

The rule is made one-to-one so that a program reading the file back can undo it
(:func:`from_spreadsheet_cell`): a cell that is already one or more quotes followed by a dangerous character gets
one more quote too, so ``'=x`` (as typed) and ``=x`` (protected) stay distinct. The CSV layer itself (quoting of
commas, quotes and newlines) is the :mod:`csv` module's; :func:`spreadsheet_csv` puts the two together.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping, Sequence

DANGEROUS = "=+-@\t\r"
"""The first characters that make a cell a formula (OWASP, "CSV Injection": equals, plus, minus, at, tab, CR)."""

_PROTECT = re.compile(f"'*[{re.escape(DANGEROUS)}]")
"""A cell that needs a quote in front: a dangerous first character, possibly behind quotes already there."""


def spreadsheet_cell(text: str) -> str:
    """``text`` as a cell no spreadsheet runs: prefixed with ``'`` when it begins with one of :data:`DANGEROUS`
    (or with quotes and then one of them), unchanged otherwise."""
    return "'" + text if _PROTECT.match(text) else text


def from_spreadsheet_cell(cell: str) -> str:
    """The text a cell of :func:`spreadsheet_cell` was made from (its inverse)."""
    return cell[1:] if cell.startswith("'") and _PROTECT.match(cell, 1) else cell


def spreadsheet_csv(columns: Sequence[str], rows: Iterable[Mapping[str, str]]) -> str:
    """A CSV text (RFC 4180: a header, then one line per row, each ending in CRLF) whose every cell went through
    :func:`spreadsheet_cell`; a row's missing column is an empty cell."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)  # lines end in CRLF (RFC 4180): with "\n" alone, a cell holding a CR is not quoted
    writer.writerow([spreadsheet_cell(c) for c in columns])
    for row in rows:
        writer.writerow([spreadsheet_cell(str(row.get(c, ""))) for c in columns])
    return buffer.getvalue()


__all__ = ["DANGEROUS", "from_spreadsheet_cell", "spreadsheet_cell", "spreadsheet_csv"]
