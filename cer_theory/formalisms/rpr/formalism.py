"""Row pattern recognition's record in the formalism registry: SQL's ``MATCH_RECOGNIZE`` (ISO/IEC 9075-2:2016
§7.6; ISO/IEC TR 19075-5:2016) in the fragment Apache Flink runs.

The outputs at position n are the matches (ONE ROW PER MATCH) whose last row is at n: their classified rows, the
partition key and the measures. The ordered NFA run by backtracking must agree with the brute-force semantics.
A coarser level, ``rows``, keeps only what ``ONE ROW PER MATCH`` outputs (partition key and measures): what an
engine such as Flink returns.
"""

from __future__ import annotations

from typing import Any

from cer_theory.core.contract import json_order
from cer_theory.core.protocols import Evaluator, Formalism, Level, Paper, Strategies, Unsupported
from cer_theory.formalisms.rpr.parser import parse
from cer_theory.formalisms.rpr.printer import format
from cer_theory.formalisms.rpr.semantics import Match, evaluate


def _rows_of(m: Any) -> Any:
    """A match's output row, (partition key, measures); a row stays as it is."""
    return (m.partition, m.measures) if isinstance(m, Match) else m


def _row_json(row: Any) -> dict[str, Any]:
    partition, measures = row
    return {"partition": list(partition), "measures": dict(measures)}


def _row_from_json(data: dict[str, Any]) -> Any:
    return (tuple(data.get("partition", ())), tuple(data.get("measures", {}).items()))


def _row_key(row: Any) -> tuple[Any, ...]:
    """Rows in the order of their partition key, then their measures (values compared as numbers)."""
    data = _row_json(row)
    return json_order([data["partition"], data["measures"]])


SCHEMA = "formalisms/rpr/output.schema.json"
MATCHES = Level("matches", "matches", lambda m: m, Match.sort_key, Match.to_json, Match.from_json, schema=SCHEMA)
UNDECIDED = ("deciding equivalence of row patterns under preferment and AFTER MATCH SKIP is not implemented; "
             "compare two queries on generated streams (cer-theory eval --logic rpr)")

ROWS = Level("rows", "rows", _rows_of, _row_key, _row_json, _row_from_json, schema=SCHEMA)

RPR = Formalism(
    name="rpr",
    paper=Paper("SQL", "ISO/IEC TR 19075-5:2016, Row Pattern Recognition in SQL (MATCH_RECOGNIZE)"),
    summary="SQL row pattern recognition (MATCH_RECOGNIZE), Flink's fragment, with an ordered NFA",
    parse=parse,
    format=format,
    semantics=evaluate,
    compile="cer_theory.formalisms.rpr.compile:compile_automaton",
    evaluators={
        "semantics": Evaluator("semantics", "brute force: every derivation with its choice sequence, the least "
                                            "match by preferment (TR 19075-5 §4.12), then AFTER MATCH SKIP",
                               "matches", run=evaluate),
        "nfa": Evaluator("nfa", "the ordered NFA of the pattern run by backtracking: the first accepting path is "
                                "the preferred match", "matches",
                         compile="cer_theory.formalisms.rpr.compile:compile_automaton"),
    },
    default="nfa",
    levels=(MATCHES, ROWS),
    strategies=Strategies(formulas="cer_theory.testing.strategies.rpr:queries",
                          streams="cer_theory.testing.strategies.rpr:streams"),
    constructions={
        **{name: Unsupported(UNDECIDED) for name in ("equivalent", "contained")},
        "determinize": Unsupported("the ordered NFA is run by backtracking in preferment order (TR 19075-5 "
                                   "§4.12); a subset construction would lose which path is preferred"),
        "complement": Unsupported("MATCH_RECOGNIZE reports one preferred match per start row, and the standard "
                                  "defines no complement of a row pattern"),
        "normal-form": Unsupported("the standard gives row patterns no normal form"),
        "star-property": Unsupported("the *-property is the CEL paper's, over CEL's complex event automata"),
        "to-formula": Unsupported("no translation from an ordered NFA back to a row pattern is implemented"),
        "rewrite": Unsupported("the rewrites are the CEL paper's §8, over CEL"),
        "cces": Unsupported("Algorithm 2 over the CCES runs a CEL automaton, which outputs every match; a row "
                            "pattern outputs the preferred one (docs/rpr.md)"),
        "step": Unsupported("the stepper shows automata with a run semantics of sets of runs; the ordered NFA's "
                            "backtracking run is not drawn yet"),
    },
)

__all__ = ["MATCHES", "ROWS", "RPR"]
