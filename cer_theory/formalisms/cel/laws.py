"""The algebraic laws of CEL (the CEL paper), each decided by :mod:`.equivalence`, and the known non-laws, each
refuted by a shortest stream.

A :class:`Law` says ``left ≡ right`` (or ``left ⊆ right``) at an output level, with the place of the CEL paper that
states or uses it. :func:`decide` runs the decision procedure; :func:`catalogue_markdown` renders
``docs/laws.md`` from the answers, so the page lists the streams the procedure finds today and a test keeps it in
step (``proofs_tests/cel/test_cel_laws.py``). The §8 rewrites enter as laws ``φ ≡ rewrite(φ)`` on a sample φ.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from cer_theory.automata.equivalence import LevelName, Verdict
from cer_theory.formalisms.cel.equivalence import contained, equivalent
from cer_theory.formalisms.cel.parser import parse
from cer_theory.formalisms.cel.printer import format
from cer_theory.formalisms.cel.rewrites import (contig_to_strict, cplus_to_strict, drop_in, push_filters, push_in,
                                                strict_to_contiguous)

Relation = Literal["≡", "⊆"]


@dataclass(frozen=True)
class Law:
    """``left relation right`` at ``level``; ``holds`` says whether it is a law or a known non-law."""

    name: str
    source: str
    left: str
    right: str
    relation: Relation = "≡"
    level: LevelName = "valuations"
    holds: bool = True

    def statement(self) -> str:
        rel = self.relation if self.holds else {"≡": "≢", "⊆": "⊄"}[self.relation]
        return f"{self.left} {rel} {self.right}"


def _rewrite(name: str, source: str, text: str, rewrite: Callable, level: LevelName = "valuations") -> Law:
    return Law(name, source, text, format(rewrite(parse(text))), "≡", level)


LAWS: tuple[Law, ...] = (
    Law("`;` is associative", "§4, Fig. 3 (sequencing)", "(R ; T) ; U", "R ; (T ; U)"),
    Law("`:` is associative", "§8.2 (contiguous sequencing)", "(R : T) : U", "R : (T : U)"),
    Law("OR is commutative", "Fig. 3 (disjunction)", "R OR T", "T OR R"),
    Law("OR is idempotent", "Fig. 3 (disjunction)", "(R ; T) OR (R ; T)", "R ; T"),
    Law("`;` distributes over OR (left)", "§4", "R ; (T OR U)", "(R ; T) OR (R ; U)"),
    Law("`;` distributes over OR (right)", "§4", "(R OR T) ; U", "(R ; U) OR (T ; U)"),
    Law("`:` distributes over OR", "§8.2", "R : (T OR U)", "(R : T) OR (R : U)"),
    Law("`+` unfolds", "Fig. 3 (iteration: ⟦φ+⟧ = ⟦φ⟧ ∪ ⟦φ ; φ+⟧)", "R+", "R OR (R ; R+)"),
    Law("`⊕` unfolds", "§8.2 (contiguous iteration)", "R:+", "R OR (R : R:+)"),
    Law("STRICT of a sequence is contiguity", "§7.1, §8.2", "STRICT(R ; T)", "R : T"),
    Law("STRICT of a sequence, general form", "App. C, Prop. 8.13 (corrected, docs/errata.md F7)",
        "STRICT(R+ ; (T OR U))", "STRICT(R+) : STRICT(T OR U)"),
    Law("φ⊕ ⊆ φ+", "§8.2", "R:+", "R+", "⊆"),
    Law("φ⊕ ⊆ φ+ for a sequence", "§8.2", "(R ; T):+", "(R ; T)+", "⊆"),
    Law("R⊕ ≡ STRICT(R+)", "App. E", "R:+", "STRICT(R+)"),
    Law("START(φ) ⊆ φ", "§8.1 (START keeps the outputs that start at the first position)", "START(R ; T+)",
        "R ; T+", "⊆"),
    Law("filters move to the atom they read", "App. E, step (2)", "(R ; T) FILTER R.x > 1",
        "(R FILTER R.x > 1) ; T"),
    Law("IN distributes over `;`", "App. B", "(R ; T) IN A", "(R IN A) ; (T IN A)"),
    Law("IN is forgotten by complex events", "App. E (\"no labels\")", "(R IN A) ; T", "R ; T",
        level="complex_events"),
    _rewrite("Prop. 8.13 rewrite (strict_to_contiguous)", "Prop. 8.13, App. C", "STRICT((R ; T)+ ; U)",
             strict_to_contiguous),
    _rewrite("Prop. 8.12 rewrite (contig_to_strict)", "Prop. 8.12, App. B", "(R : T+) ; U", contig_to_strict),
    _rewrite("Prop. 8.15 rewrite (cplus_to_strict)", "Prop. 8.15, App. E", "(R ; T):+", cplus_to_strict,
             "complex_events"),
    _rewrite("App. E step (2) rewrite (push_filters)", "App. E", "((R ; T) OR U) FILTER (R.x > 1 AND U.x = 0)",
             push_filters),
    _rewrite("App. B rewrite (push_in)", "App. B", "((R ; T+) OR U) IN A", push_in),
    _rewrite("App. E rewrite (drop_in)", "App. E", "(R IN A) ; (T+ IN B)", drop_in, "complex_events"),
    Law("STRICT is idempotent", "§7.1", "STRICT(STRICT(R ; T+))", "STRICT(R ; T+)"),
    Law("NXT is idempotent", "§7.1", "NXT(NXT(R ; T+))", "NXT(R ; T+)"),
    Law("LAST is idempotent", "§7.1", "LAST(LAST(R ; T+))", "LAST(R ; T+)"),
    Law("MAX is idempotent", "§7.1", "MAX(MAX(R ; T+))", "MAX(R ; T+)"),
    Law("a strategy selects: NXT(φ) ⊆ φ", "§7.1", "NXT(R ; T+)", "R ; T+", "⊆"),
    Law("a strategy selects: LAST(φ) ⊆ φ", "§7.1", "LAST(R ; T+)", "R ; T+", "⊆"),
    Law("a strategy selects: MAX(φ) ⊆ φ", "§7.1", "MAX(R ; T+)", "R ; T+", "⊆"),
    Law("a strategy selects: STRICT(φ) ⊆ φ", "§7.1", "STRICT(R ; T+)", "R ; T+", "⊆"),
    Law("strategies keep single events", "§7.1", "NXT(R) OR LAST(R) OR MAX(R) OR STRICT(R)", "R"),
)
"""Laws of the CEL paper, each proved by the decision procedure (``R``, ``T``, ``U`` stand for any event types)."""

NON_LAWS: tuple[Law, ...] = (
    Law("`;` is not commutative", "Fig. 3", "R ; T", "T ; R", holds=False),
    Law("`;` is not `:`", "§8.2", "R ; T", "R : T", "⊆", holds=False),
    Law("φ+ is not contained in φ⊕", "§8.2", "R+", "R:+", "⊆", holds=False),
    Law("START(φ) is not φ", "§8.1", "R ; T", "START(R ; T)", "⊆", holds=False),
    Law("the printed App. C law", "App. C (the law as printed, docs/errata.md F7)", "STRICT(R ; T)",
        "STRICT(R) ; STRICT(T)", holds=False),
    Law("iteration does not distribute over OR", "Fig. 3", "(R OR T)+", "R+ OR T+", holds=False),
    Law("NOT (x ≤ 1) is not x > 1", "§4 (the universal SO-extension; docs/decisions.md D3)",
        "R FILTER NOT R.x <= 1", "R FILTER R.x > 1", holds=False),
    Law("IN changes valuations", "App. E (\"no labels\" holds for complex events only)", "(R IN A) ; T", "R ; T",
        holds=False),
    Law("NXT is not START", "§7.1, §8.1 (NXT picks the earliest match; START anchors it at the first event)",
        "NXT(R ; T)", "START(R ; T)", holds=False),
    Law("MAX is not LAST", "§7.1", "MAX(R ; T+)", "LAST(R ; T+)", holds=False),
)
"""Known non-laws: the procedure refutes each with a shortest stream (listed in docs/laws.md)."""


def decide(law: Law) -> Verdict:
    """The procedure's answer for ``law`` (a proof, or a shortest distinguishing stream)."""
    run = equivalent if law.relation == "≡" else contained
    return run(law.left, law.right, level=law.level)


def _stream(v: Verdict) -> str:
    return " ".join(json.dumps(e.to_dict(), sort_keys=True, separators=(",", ":")) for e in v.stream or ())


def catalogue_markdown() -> str:
    """The text of docs/laws.md, from the procedure's answers."""
    lines = [
        "# Laws of CEL, checked",
        "",
        "Each law below is decided by `cer_theory.formalisms.cel.equivalence` (the product of the two formulas'",
        "I/O-deterministic automata, the CEL paper Prop. 5.5, explored breadth first) and each non-law is refuted by the",
        "shortest stream the procedure finds. `R`, `T`, `U` stand for event types, `A`, `B` for variables.",
        "Valuation-level laws also hold for complex events. This page is generated by",
        "`cer_theory.formalisms.cel.laws.catalogue_markdown()`; `proofs_tests/cel/test_cel_laws.py` checks that it is",
        "up to date. Try one: `cer-theory equiv \"STRICT(R ; T)\" \"R : T\"`.",
        "",
        "## Laws",
        "",
        "| law | statement | level | CEL paper | product |",
        "|---|---|---|---|---|",
    ]
    for law in LAWS:
        v = decide(law)
        lines.append(f"| {law.name} | `{law.statement()}` | {law.level.replace('_', ' ')} | {law.source} | "
                     f"{v.explored} pairs |")
    lines += ["", "## Non-laws", "",
              "Each with the shortest stream where they differ (JSON Lines, one event per position) and the output",
              "that only one side has at its last position.", ""]
    for law in NON_LAWS:
        v = decide(law)
        only = law.left if v.in_left else law.right
        lines += [f"### {law.name}", "",
                  f"`{law.statement()}` ({law.level.replace('_', ' ')}; {law.source}).", "",
                  "```", _stream(v).replace("} {", "}\n{"), "```", "",
                  f"At position {v.position}, only `{only}` outputs `{json.dumps(_json(v), separators=(',', ':'))}`.",
                  ""]
    return "\n".join(lines)


def _json(v: Verdict) -> object:
    out = v.output
    return out.to_json() if hasattr(out, "to_json") else sorted(out)  # type: ignore[union-attr, arg-type]


__all__ = ["Law", "LAWS", "NON_LAWS", "decide", "catalogue_markdown"]
