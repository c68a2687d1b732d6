"""The report of a conformance run: ``cases.json`` (every case, its class, both outputs, the shrunk case of each
finding), ``report.md`` (the summary and each finding's minimal reproduction with a replay command line), and
``findings/NNN.json`` (each minimal case as one request line of the protocol, to replay it)."""

from __future__ import annotations

import json
import shlex
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cer_theory.conformance.check import EXPLAINED, Outcome, Summary, outcome_text
from cer_theory.conformance.corpus import Skipped
from cer_theory.core.wording import plural


def write_report(directory: str | Path, outcomes: Sequence[Outcome], summary: Summary, *, meta: dict[str, Any],
                 replay: str, skipped: Sequence[Skipped] = ()) -> Path:
    """Write the report files into ``directory``; return the Markdown page's path. ``replay`` is the command
    line prefix that runs one finding's file (``{file}`` is replaced by its path)."""
    out = Path(directory)
    (out / "findings").mkdir(parents=True, exist_ok=True)
    for stale in (out / "findings").glob("[0-9][0-9][0-9].json"):  # an earlier run's: the page would not list them
        stale.unlink()
    findings = [o for o in outcomes if o.finding]
    readings = Counter(r for o in outcomes if o.kind == EXPLAINED for r in o.readings)
    files = []
    for k, o in enumerate(findings, 1):
        path = out / "findings" / f"{k:03d}.json"
        path.write_text(json.dumps((o.minimal or o).case.request(k)) + "\n", encoding="utf-8")
        files.append(path)
    head = {"meta": meta, "summary": dict(summary.counts), "summary_line": summary.line(),
            "explained_by": dict(readings), "skipped": [vars(s) for s in skipped]}
    # one case per line: a large run stays readable and diffable
    body = ",\n".join(json.dumps(o.to_json(), separators=(",", ":")) for o in outcomes)
    (out / "cases.json").write_text(json.dumps(head, indent=1)[:-2] + ',\n "cases": [\n' + body + "\n]}\n",
                                    encoding="utf-8")
    lines = [f"# Conformance report: {meta.get('engine')}", "",
             f"`{meta.get('command')}`", "", f"**{summary.line()}**", ""]
    for key in ("dialect", "seed", "corpus", "engine_version", "date"):
        if meta.get(key) is not None:
            lines.append(f"- {key}: {meta[key]}")
    if readings:
        lines += ["", "## Explained differences", "", "| reading | cases |", "|---|---|"]
        lines += [f"| `{r}` | {n} |" for r, n in readings.most_common()]
    if skipped:
        lines += ["", "## Query files skipped", ""]
        lines += [f"- `{s.path}`: {s.reason}" for s in skipped]
    lines += ["", f"## Findings ({len(findings)})", ""]
    if not findings:
        lines.append("None: every case agrees with the reference or is explained by a declared reading.")
    groups: dict[str, list[int]] = {}
    for k, o in enumerate(findings, 1):
        groups.setdefault(_signature(o), []).append(k)
    for k, (o, path) in enumerate(zip(findings, files), 1):
        minimal = o.minimal or o
        same = groups[_signature(o)]
        if same[0] != k:
            continue  # listed once, with the other cases that shrink to the same reproduction
        lines += [f"### Finding {k}: {o.kind} (from {o.case.name}" + (f"; also {len(same) - 1} more "
                  f"{'case shrinks' if len(same) == 2 else 'cases shrink'} to it: {', '.join(f'#{j}' for j in same[1:6])}{' …' if len(same) > 6 else ''}" if len(same) > 1
                  else "") + ")", "",
                  f"Shrunk from {len(o.case.events)} to {plural(len(minimal.case.events), 'event')} in {o.shrink_runs} "
                  f"engine runs. Original query: `{o.case.query}`", "", "```", outcome_text(minimal), "```", "",
                  f"Replay: `{replay.format(file=shlex.quote(str(path)))}`", ""]
    page = out / "report.md"
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return page


def _signature(o: Outcome) -> str:
    m = o.minimal or o
    return json.dumps([m.kind, m.case.query, [e.to_dict() for e in m.case.events], sorted(m.got or []),
                       m.error.split(";")[0]])


__all__ = ["write_report"]
