"""Strategies side by side: one pattern, one stream, the complex events under every selection strategy, CEQL's
``CONSUME BY`` and both readings of a window, each with the automaton behind it one click away.

Every row is a CEQL query evaluated by the reference semantics (the CORE paper §2,
:func:`cer_theory.formalisms.ceql.semantics.evaluate`). The automaton of a strategy row is CEL's ``A_SEL`` of
the CEL paper Theorem 7.2 for the same strategy (ALL: the pattern's CEA of Theorem 6.2; ``NEXT`` is the CEL paper's NXT);
``ANY``, ``CONSUME BY`` and ``WITHIN`` act on the engine's runs, not on the automaton, so their rows show the
pattern's CEA. The two window readings are the paper's (``end − start ≤ n`` for every kind, the CORE paper §2.2) and
CORE's engine's (strict for ``WITHIN n [attribute]``), docs/decisions.md D102.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from cer_theory.core.drawing import render_svg
from cer_theory.core.pages import html_text
from cer_theory.core.events import Event
from cer_theory.formalisms.cel.parser import parse as parse_cel
from cer_theory.formalisms.cel.printer import format as format_cel
from cer_theory.formalisms.cel.selection import compile_with_selection
from cer_theory.formalisms.ceql.parser import parse as parse_ceql
from cer_theory.formalisms.ceql.semantics import evaluate
from cer_theory.stepper.models import event_text

SEED000_STRATEGY = {"NEXT": "NXT", "LAST": "LAST", "MAX": "MAX", "STRICT": "STRICT"}
"""CEQL's strategy keyword → the CEL paper's selection operator of the same name (§7; NEXT is NXT). A test checks
that each row's automaton reports the row's complex events on the documentation's example."""


@dataclass(frozen=True, slots=True)
class Row:
    """One reading: its name, the CEQL query, the complex events reported at each position (those with some),
    the automaton's caption and its SVG."""

    name: str
    query: str
    outputs: tuple[tuple[int, tuple[str, ...]], ...]
    automaton: str
    svg: str


def _ce_text(ce: object, events: Sequence[str]) -> str:
    positions = getattr(ce, "positions")
    return "[" + " ".join(events[k] for k in positions) + "]"


def side_by_side(pattern: str, stream: Sequence[Event], *, within: str | None = None,
                 names: Sequence[str] | None = None) -> tuple[Row, ...]:
    """The rows for CEQL ``pattern`` on ``stream``: ALL, ANY, NEXT, LAST, MAX, STRICT, ``CONSUME BY ANY``, and,
    with ``within`` (e.g. ``"2 [id]"``), the query under the paper's and CORE's window readings. ``names``
    labels the events in the table (default: their types and attributes)."""
    events = list(names) if names is not None else [event_text(e) for e in stream]
    plain = f"SELECT * FROM S WHERE {pattern}"
    base = parse_ceql(plain)
    cel_text = format_cel(base.pattern)
    drawings: dict[str, tuple[str, str]] = {}

    def automaton(strategy: str | None) -> tuple[str, str]:
        key = strategy or "ALL"
        if key not in drawings:
            text = f"{SEED000_STRATEGY[strategy]}({cel_text})" if strategy else cel_text
            caption = f"the CEL paper, Thm 7.2: {text}" if strategy else f"the CEL paper, Thm 6.2: {text}"
            cea = compile_with_selection(parse_cel(text)).trim().relabel_states()
            drawings[key] = (caption, render_svg(cea.to_dot(title=caption)))
        return drawings[key]

    readings: list[tuple[str, str, str | None, bool]] = [("ALL", plain, None, False),
                                                          ("ANY", f"SELECT ANY * FROM S WHERE {pattern}", None, False)]
    readings += [(s, f"SELECT {s} * FROM S WHERE {pattern}", s, False) for s in SEED000_STRATEGY]
    readings.append(("CONSUME BY ANY", f"{plain} CONSUME BY ANY", None, False))
    if within is not None:
        readings.append((f"WITHIN {within}, the paper's reading", f"{plain} WITHIN {within}", None, False))
        readings.append((f"WITHIN {within}, CORE's reading", f"{plain} WITHIN {within}", None, True))
    rows = []
    for name, text, strategy, core in readings:
        query = parse_ceql(text)
        if core:
            assert query.within is not None
            query = dataclasses.replace(query, within=dataclasses.replace(
                query.within, strict=query.within.kind == "attribute"))
        out = evaluate(query, stream)
        outputs = tuple((j, tuple(sorted(_ce_text(c, events) for c in ces))) for j, ces in enumerate(out) if ces)
        caption, svg = automaton(strategy)
        rows.append(Row(name, text, outputs, caption, svg))
    return tuple(rows)


def page(rows: Sequence[Row], pattern: str, stream_names: Sequence[str]) -> str:
    """The rows as one self-contained HTML page: a table, each automaton behind a click (``<details>``)."""
    body = []
    for r in rows:
        cells = "<br>".join(f"at {j}: " + ", ".join(html_text(c) for c in ces) for j, ces in r.outputs) or "none"
        body.append(f"<tr><th>{html_text(r.name)}</th><td><code>{html_text(r.query)}</code></td><td>{cells}</td>"
                    f"<td><details><summary>{html_text(r.automaton)}</summary>{r.svg}</details></td></tr>")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>strategies side by side: {html_text(pattern)}</title>
<style>body {{ font-family: Helvetica, Arial, sans-serif; margin: 1em; }} table {{ border-collapse: collapse; }}
td, th {{ border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }}
svg {{ max-width: 40em; height: auto; }} code {{ font-size: .85em; }}</style></head><body>
<h1 style="font-size:1.2em">{html_text(pattern)} over {html_text(" ".join(stream_names))}</h1>
<table><thead><tr><th>reading</th><th>CEQL</th><th>complex events</th><th>automaton</th></tr></thead>
<tbody>{"".join(body)}</tbody></table></body></html>
"""


__all__ = ["Row", "SEED000_STRATEGY", "page", "side_by_side"]
