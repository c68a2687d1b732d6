"""The tree keeps one current report per benchmark, in ``benchmarks/results/`` (docs/decisions.md D391): no report
lies at the top level of ``benchmarks/``, every report the documents cite exists, and every benchmark writes its
report there by default. Earlier reports are in the repository's history, not beside the current ones."""

from __future__ import annotations

import re
from pathlib import Path

from doc_blocks import ROOT

BENCHMARKS = ROOT / "benchmarks"
RESULTS = BENCHMARKS / "results"
REPORT = re.compile(r"benchmarks/results/[\w{},.-]+\.(?:json|md|\{json,md\})")
DOCUMENTS = [ROOT / "README.md", BENCHMARKS / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def expand(path: str) -> list[str]:
    """``a_{x,y}.{json,md}`` → the four paths it names."""
    m = re.search(r"\{([^}]*)\}", path)
    if m is None:
        return [path]
    return [q for part in m.group(1).split(",") for q in expand(path[:m.start()] + part + path[m.end():])]


def test_no_report_at_the_top_of_benchmarks() -> None:
    strays = sorted(p.name for p in BENCHMARKS.iterdir() if p.is_file() and p.suffix in {".json", ".md"}
                    and p.name != "README.md")
    assert not strays, f"reports belong in benchmarks/results/: {strays}"


def test_every_cited_report_exists() -> None:
    cited = {(doc.relative_to(ROOT), q) for doc in DOCUMENTS if doc.is_file() and "_build" not in doc.parts
             for found in REPORT.findall(doc.read_text(encoding="utf-8")) for q in expand(found)}
    assert cited, "the documents cite no report"
    missing = sorted((str(doc), q) for doc, q in cited if not (ROOT / q).is_file())
    assert not missing, missing


def test_every_benchmark_writes_into_results_by_default() -> None:
    defaults = {p.name: re.findall(r'"--out",\s*default="([^"]+)"', p.read_text(encoding="utf-8"))
                for p in BENCHMARKS.glob("*.py")}
    found = {name: outs for name, outs in defaults.items() if outs}
    assert len(found) >= 6
    wrong = {name: outs for name, outs in found.items() if not all(o.startswith("benchmarks/results/") for o in outs)}
    assert not wrong, wrong
