"""The report of a conformance run: ``cases.json`` (every case, its class, both outputs, the shrunk case of each
failing case and the finding it belongs to), ``report.md`` (the summary and one section per finding), and one
folder per finding, ``findings/F1/`` …, ready to send upstream (:func:`write_finding`).

Findings are numbered once, F1, F2, … in the order the report shows them; a case is named by where it came from
(``seed 0 case 17``, a corpus file and ``case 3``): "case" for a case, "finding F3" for a finding, never ``#N``.
"""

from __future__ import annotations

import json
import re
import shlex
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from cer_theory.core.outputs import write_output

from cer_theory.conformance.check import EXPLAINED, Outcome, Summary, findings, outcome_text
from cer_theory.conformance.corpus import Skipped
from cer_theory.testing.findings import Finding, cases_text, shape_text

Reproduction = Callable[[Any], tuple[str, str]]
"""An engine's own reproduction of a minimal case: (file name, text), e.g. a pycer script or a Flink SQL client
script. The name is the harness's own (``repro.py``), never taken from the engine's output."""


def write_text(path: Path, text: str) -> None:
    """Written aside, then renamed into place (:mod:`cer_theory.core.outputs`): an interrupted run leaves the old
    file or the new one."""
    write_output(path, text)


def fenced(text: str, info: str = "") -> str:
    """``text`` in a Markdown code fence longer than any run of backticks in it (engine output is shown, never
    read as markup)."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def clear_findings(directory: Path, found: Sequence[Finding]) -> None:
    """Remove what an earlier run left in ``directory/findings`` that this run's page would not list: folders
    ``F<n>`` of findings it does not have, and the numbered files of the older layouts (``001.json``,
    ``001.sql``, ``Finding001.java``). Only names the harness makes are touched."""
    folder = directory / "findings"
    folder.mkdir(parents=True, exist_ok=True)
    keep = {f.label for f in found}
    for stale in folder.iterdir():
        old_layout = re.fullmatch(r"\d{3}\.(json|sql)|Finding\d{3}\.java", stale.name)
        if stale.is_file() and not stale.is_symlink() and old_layout:
            stale.unlink()
        elif stale.is_dir() and not stale.is_symlink() and re.fullmatch(r"F\d+", stale.name) and stale.name not in keep:
            for f in stale.iterdir():
                if f.is_file() and not f.is_symlink():
                    f.unlink()
            stale.rmdir()


def write_cases(directory: Path, head: dict[str, Any], outcomes: Sequence[Any], found: Sequence[Finding]) -> None:
    """``cases.json``: ``head`` (meta data and summary), then every outcome's ``to_json()`` with the finding its
    case belongs to, one case per line (a large run stays readable and diffable)."""
    label = {name: f.label for f in found for name in f.cases}
    body = ",\n".join(json.dumps({**o.to_json(), **({"finding": label[o.case.name]} if o.finding
                                                      and o.case.name in label else {})},
                                 separators=(",", ":"), default=str) for o in outcomes)
    write_text(directory / "cases.json", json.dumps(head, indent=1)[:-2] + ',\n "cases": [\n' + body + "\n]}\n")


def finding_folder(directory: Path, finding: Finding) -> Path:
    """``directory/findings/F<n>``: a name the harness makes from the finding's number alone."""
    folder = directory / "findings" / finding.label
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_finding(directory: Path, finding: Finding, *, engine: str, case_json: dict[str, Any], what: str,
                  rule: str, reproduction: tuple[str, str] | None, replay: str) -> Path:
    """One finding's folder: ``case.json`` (the minimal case, replayable), ``README.md`` (a report an engine's
    maintainers can read without this toolkit: the case, expected against got, the rule it breaks, how often it
    came up) and, when given, the engine's own reproduction. Returns the folder."""
    folder = finding_folder(directory, finding)
    for stale in folder.iterdir():  # an earlier run's files: a reproduction of another engine must not linger
        if stale.is_file():
            stale.unlink()
    write_text(folder / "case.json", json.dumps(case_json) + "\n")
    files = ["`case.json`: the minimal case (replay: " + f"`{replay.format(file=shlex.quote(str(folder / 'case.json')))}`)"]
    if reproduction is not None:
        name, text = reproduction
        write_text(folder / name, text)
        files.append(f"`{name}`: the reproduction in the engine's own terms")
    lines = [f"# {engine}: finding {finding.label} ({heading(finding)})", "",
             fenced(what), "", f"**Rule.** {rule}", "",
             f"Found in {finding.count} generated case(s): {cases_text(finding.cases)}; each reduced to the case "
             "above.", "", *[f"- {f}" for f in files], ""]
    write_text(folder / "README.md", "\n".join(lines))
    return folder


CEQL_RULE = ("The CORE paper (Bucchi, Grez, Quintana, Riveros, Vansummeren, *CORE: a COmplex event Recognition "
             "Engine*, VLDB 2022), §2: the complex events of a CEQL query over a stream are those of its pattern "
             "(CEL, Grez, Riveros, Ugarte, Vansummeren, *A formal framework for complex event recognition*, "
             "TODS 2021, §3), within the window, per partition, under the selection strategy; each once.")
REFUSAL_RULE = ("The query is CEQL as the CORE paper §2 (Fig. 1) defines it; the engine declares no such "
                "restriction.")



def heading(f: Finding) -> str:
    """A finding's class, and its shape when that says more (a refusal's shape is its class)."""
    shape = shape_text(f.shape)
    return f.kind if shape == f.kind else f"{f.kind}, {shape}"


def write_report(directory: str | Path, outcomes: Sequence[Outcome], summary: Summary, *, meta: dict[str, Any],
                 replay: str, skipped: Sequence[Skipped] = (), reproduction: Reproduction | None = None) -> Path:
    """Write the report files into ``directory``; return the Markdown page's path. ``replay`` is the command
    line prefix that runs one finding's case file (``{file}`` is replaced by its path); ``reproduction(case)``
    the engine's own script for a minimal case."""
    out = Path(directory)
    found = findings(outcomes)
    clear_findings(out, found)
    readings = Counter(r for o in outcomes if o.kind == EXPLAINED for r in o.readings)
    head = {"meta": meta, "summary": dict(summary.counts), "summary_line": summary.line(),
            "findings": len(found), "explained_by": dict(readings), "skipped": [vars(s) for s in skipped]}
    write_cases(out, head, outcomes, found)
    lines = [f"# Conformance report: {meta.get('engine')}", "",
             f"`{meta.get('command')}`", "", f"**{summary.line()}; {len(found)} findings**", ""]
    for key in ("dialect", "seed", "corpus", "engine_version", "date"):
        if meta.get(key) is not None:
            lines.append(f"- {key}: {meta[key]}")
    if readings:
        lines += ["", "## Explained differences", "", "| reading | cases |", "|---|---|"]
        lines += [f"| `{r}` | {n} |" for r, n in readings.most_common()]
    if skipped:
        lines += ["", "## Query files skipped", ""]
        lines += [f"- `{s.path}`: {s.reason}" for s in skipped]
    lines += ["", f"## Findings ({len(found)})", ""]
    if not found:
        lines.append("None: every case agrees with the reference or is explained by a declared reading.")
    for f in found:
        m, o = f.minimal, f.original
        assert o is not None
        folder = write_finding(out, f, engine=str(meta.get("engine")), case_json=m.case.request(f.number),
                               what=outcome_text(m), rule=REFUSAL_RULE if f.kind != "unexplained" else CEQL_RULE,
                               reproduction=reproduction(m.case) if reproduction is not None else None,
                               replay=replay)
        lines += [f"### Finding {f.label}: {heading(f)} ({f.count} "
                  f"{'case' if f.count == 1 else 'cases'}: {cases_text(f.cases)})", "",
                  f"Reduced from {len(o.case.events)} to {len(m.case.events)} events in {o.shrink_runs} engine runs "
                  f"(from {o.case.name}: `{o.case.query}`).", "", fenced(outcome_text(m)), "",
                  f"Folder: `{folder.relative_to(out)}/`; replay: "
                  f"`{replay.format(file=shlex.quote(str(folder / 'case.json')))}`", ""]
    page = out / "report.md"
    write_text(page, "\n".join(lines) + "\n")
    return page


def pycer_script(case: Any) -> tuple[str, str]:
    """A standalone pycer script for a CEQL case (``pip install pycer``, CPython 3.13): declare, add the query,
    send the events (primary time = position, or ``time`` in nanoseconds under a duration window), print what
    CORE outputs. Positions are the events' order from 0."""
    request = case.request(0)
    timed = re.search(r"\bWITHIN\b[^\[]*?\b(SECONDS?|MINUTES?|HOURS?)\b", case.query, re.I) is not None
    return "repro.py", f'''"""Reproduces a CORE finding with pycer alone: python repro.py (CPython 3.13, pip install pycer)."""
import json

import pycer

DECLARATIONS = {json.dumps(request["declarations"])}
SCHEMA = {json.dumps(request["schema"])}
QUERY = {json.dumps(case.query)}
EVENTS = {json.dumps(request["events"])}

MAKE = {{"int": pycer.PyIntValue, "double": pycer.PyDoubleValue, "string": pycer.PyStringValue,
        "bool": pycer.PyBoolValue}}
server = pycer.PyOfflineServer()
ids = {{}}
for stream in SCHEMA:
    info = server.declare_stream(DECLARATIONS)
    ids.update({{e.name: e.id for e in info.events_info}})
    break  # one CREATE STREAM
server.add_query(QUERY)
attrs = {{t: list(a.items()) for s in SCHEMA.values() for t, a in s.items()}}
batch = []
for position, e in enumerate(EVENTS):
    stamp = e["time"] * 1_000_000_000 if {timed!r} else position  # primary time
    values = [MAKE[kind](e[name]) for name, kind in attrs[e["type"]]]
    batch.append(pycer.PyEvent(ids[e["type"]], values, pycer.PyIntValue(stamp)))
server.send_events(batch)
print(server.get_output())
'''


def write_metamorphic_report(directory: str | Path, checks: Sequence[Any], found: Sequence[Finding], line: str, *,
                             rules: dict[str, str], meta: dict[str, Any], replay: str,
                             reproduction: Reproduction | None = None) -> Path:
    """The report of a metamorphic run (:mod:`cer_theory.conformance.metamorphic` for CEQL engines,
    :mod:`cer_theory.conformance.rpr_metamorphic` for ``MATCH_RECOGNIZE``): ``checks.json`` (every violation with
    its runs), ``report.md`` and one folder per finding of ``found``, whose ``case.json`` is the reduced source
    case; ``rules`` gives each relation's rule, ``reproduction(check)`` the engine's own scripts of its runs. A
    check has ``relation``, ``case.name``, ``why``, ``text()``, ``runs_json()`` and ``case_json(number)``."""
    out = Path(directory)
    clear_findings(out, found)
    body = [{"relation": c.relation, "case": c.case.name, "why": c.why, "runs": (c.minimal or c).runs_json()}
            for c in checks if c.finding]
    write_text(out / "checks.json", json.dumps({"meta": meta, "summary_line": line, "findings": len(found),
                                                "violations": body}, indent=1, default=str) + "\n")
    lines = [f"# Metamorphic relations: {meta.get('engine')}", "", f"`{meta.get('command')}`", "",
             f"**{line}; {len(found)} findings**", "", f"## Findings ({len(found)})", ""]
    if not found:
        lines.append("None: every relation holds on every case it applies to.")
    for f in found:
        m = f.minimal
        folder = write_finding(out, f, engine=str(meta.get("engine")), case_json=m.case_json(f.number),
                               what=m.text(), rule=rules[m.relation],
                               reproduction=None if reproduction is None else reproduction(m), replay=replay)
        lines += [f"### Finding {f.label}: {m.relation} ({f.count} {'case' if f.count == 1 else 'cases'}: "
                  f"{cases_text(f.cases)})", "", fenced(m.text()), "", f"Folder: `{folder.relative_to(out)}/`", ""]
    page = out / "report.md"
    write_text(page, "\n".join(lines) + "\n")
    return page


def runs_reproduction(script: Callable[[Any, int], str], name: str, comment: str) -> Reproduction:
    """A metamorphic finding's reproduction: ``script(case, k)`` for each run k = 1, 2, … of the relation, one
    after the other in one file ``name``, each headed by a ``comment`` line naming the run."""
    def reproduce(check: Any) -> tuple[str, str]:
        return name, "\n\n".join(f"{comment} Run {k} ({r.label}) of the relation\n{script(r.case, k)}"
                                   for k, r in enumerate(check.runs, 1))
    return reproduce


__all__ = ["CEQL_RULE", "clear_findings", "fenced", "finding_folder", "heading", "pycer_script", "REFUSAL_RULE",
           "Reproduction", "runs_reproduction", "write_finding", "write_metamorphic_report", "write_report",
           "write_text"]
