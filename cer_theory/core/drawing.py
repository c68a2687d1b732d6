"""Graphviz DOT for automata, and SVG rendering for Jupyter and the command line.

Transitions between the same two states are drawn as one edge with one line per transition, labelled as in
the paper's figures: ``predicate / {variables}`` (``∅`` for a non-marking transition). Initial states get an
incoming arrow from nowhere, final states a double circle.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Hashable
from typing import TYPE_CHECKING

from cer_theory.core.errors import CerError

if TYPE_CHECKING:
    from cer_theory.automata.cea import CEA


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _merged_labels(cea: CEA) -> dict[tuple[Hashable, Hashable], list[str]]:
    """One label per (source, labels, target): parallel transitions become one disjunction, simplified by
    sympy. The drawing shows an equivalent automaton; ``merge=False`` shows Δ exactly."""
    from cer_theory.core.predicates.ast import disj
    from cer_theory.core.predicates.printing import simplified

    groups: dict[tuple, list] = {}
    for t in cea.transitions:
        groups.setdefault((t.source, t.target, t.labels), []).append(t.predicate)
    out: dict[tuple[Hashable, Hashable], list[str]] = {}
    for (src, dst, labels), preds in groups.items():
        pred = preds[0] if len(preds) == 1 else simplified(disj(*preds))
        marks = "{" + ",".join(sorted(labels)) + "}" if labels else "∅"
        out.setdefault((src, dst), []).append(f"{pred.label()} / {marks}")
    return out


def cea_to_dot(cea: CEA, *, title: str | None = None, state_names: dict[Hashable, str] | None = None,
               rankdir: str = "LR", merge: bool = True) -> str:
    """DOT source for a CEA; ``state_names`` overrides how states are printed (default: their ``str``);
    ``merge`` draws parallel transitions with equal labels as one simplified disjunction."""
    order = cea.bfs_order()
    ids = {q: f"q{k}" for k, q in enumerate(order)}
    name = (state_names or {}).get
    lines = [f"digraph {_quote(cea.name or 'CEA')} {{", f"  rankdir={rankdir};",
             '  node [shape=circle, fontname="Helvetica", fontsize=12];',
             '  edge [fontname="Helvetica", fontsize=10];']
    if title or cea.name:
        lines.append(f"  labelloc=t; label={_quote(title or cea.name)};")
    for q in order:
        shape = "doublecircle" if q in cea.final else "circle"
        lines.append(f"  {ids[q]} [label={_quote(name(q) or str(q))}, shape={shape}];")
    for k, q in enumerate(sorted(cea.initial, key=order.index)):
        lines.append(f"  start{k} [shape=point, style=invis, width=0];")
        lines.append(f"  start{k} -> {ids[q]};")
    if merge:
        grouped = _merged_labels(cea)
    else:
        grouped = {}
        for t in cea.transitions:
            grouped.setdefault((t.source, t.target), []).append(t.label())
    for (src, dst), labels in grouped.items():
        lines.append(f"  {ids[src]} -> {ids[dst]} [label={_quote(chr(10).join(labels))}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def graphviz_available() -> bool:
    return shutil.which("dot") is not None


def render(dot_source: str, fmt: str = "svg") -> bytes:
    """Run Graphviz ``dot`` on DOT source; a clear error when Graphviz is not installed."""
    exe = shutil.which("dot")
    if exe is None:
        raise CerError("Graphviz is not installed: the 'dot' program is needed to render drawings "
                       "(Debian: apt-get install graphviz); DOT source is available with to_dot()")
    proc = subprocess.run([exe, f"-T{fmt}"], input=dot_source.encode(), capture_output=True, check=False)
    if proc.returncode != 0:
        raise CerError(f"Graphviz failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


def render_svg(dot_source: str) -> str:
    return render(dot_source, "svg").decode()


def write_drawing(dot_source: str, path: str) -> None:
    """Write a drawing; the format follows the extension (``.dot``/``.gv`` writes the source itself)."""
    from pathlib import Path

    p = Path(path)
    suffix = p.suffix.lower().lstrip(".") or "svg"
    if suffix in ("dot", "gv"):
        p.write_text(dot_source, encoding="utf-8")
    else:
        p.write_bytes(render(dot_source, suffix))
