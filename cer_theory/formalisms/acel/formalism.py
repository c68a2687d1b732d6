"""ACEL's record in the formalism registry (the ACEL paper, *A formal query language and automata model for aggregation
in complex event recognition*).

ACEL's outputs are complex events ``(start, end, μ)`` with bags of events (Fig. 1, §5). At position n the outputs
are those ending at n, and ``eval`` prints them on the line of position n like every formalism's outputs (the
output contract, D380), sorted by (start, end, JSON text). Two evaluators: the reference semantics (``bind`` = ``bag`` or ``set``, D67)
and the ACEA of Thm 6.2, compiled with the stream's schema (bag mode; no multiset predicates).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cer_theory.core.events import Event
from cer_theory.core.protocols import Evaluator, Formalism, Level, Paper, Strategies, Unsupported
from cer_theory.formalisms.acel.ast import Formula, has_multiset
from cer_theory.formalisms.acel.compile import run_acea
from cer_theory.formalisms.acel.events import ComplexEvent, complex_event_from_json
from cer_theory.formalisms.acel.parser import parse
from cer_theory.formalisms.acel.printer import format
from cer_theory.formalisms.acel.semantics import evaluate

UNDECIDED = ("ACEL's aggregates compare values computed over bags of events (the ACEL paper §5), which no automaton "
             "without registers checks; equivalence of automata with registers is undecidable in general")
PAPER = Paper("003", "A formal query language and automata model for aggregation in complex event recognition")


def _identity(x: Any) -> Any:
    return x


def run_semantics(phi: Formula, stream: Sequence[Event], bind: str = "bag") -> list[frozenset[ComplexEvent]]:
    return evaluate(phi, stream, bind)


def compilable(phi: Formula) -> bool:
    """Thm 6.2's fragment: every ACEL formula without App. D's multiset predicates."""
    return not has_multiset(phi)


COMPLEX_EVENTS = Level("complex events", "complex_events", _identity, ComplexEvent.sort_key, ComplexEvent.to_json,
                       complex_event_from_json, schema="formalisms/acel/output.schema.json")

ACEL = Formalism(
    name="acel",
    paper=PAPER,
    summary="ACEL formulas with aggregation (Agg), and aggregation automata (ACEA)",
    parse=parse,
    format=format,
    semantics=run_semantics,
    compile="cer_theory.formalisms.acel.compile:compile_automaton",
    evaluators={
        "semantics": Evaluator("semantics", "the event-based bag semantics of Fig. 1 and §5, brute force",
                               "complex events", run=run_semantics, options=("bind",)),
        "acea": Evaluator("acea", "the ACEA of Thm 6.2 (stream's schema; bag AS; no multiset predicates), runs "
                                  "from every position", "complex events", run=run_acea, accepts=compilable,
                          options=("bind",)),
    },
    default="semantics",
    levels=(COMPLEX_EVENTS,),
    automaton_files={"acea": "cer_theory.formalisms.acel.acea_json:acea_from_json"},
    compile_for_stream="cer_theory.formalisms.acel.compile:compile_for_stream",
    strategies=Strategies(formulas="cer_theory.testing.strategies.acel:formulas",
                          streams="cer_theory.testing.strategies.acel:acel_streams",
                          printable="cer_theory.testing.strategies.acel:printable"),
    constructions={
        "step": "cer_theory.stepper.formalisms:step_acel",
        "equivalent": Unsupported(UNDECIDED),
        "contained": Unsupported(UNDECIDED),
        "determinize": Unsupported("the ACEL paper's ACEA carry registers that aggregate values (§6), and the paper "
                                   "gives no determinization of them"),
        "complement": Unsupported("the ACEL paper defines no complement; complement is the SRT paper's windowed dSRA "
                                  "(--logic sremo)"),
        "normal-form": Unsupported("the §9.2 normal form is the CEL paper's, for CEA without registers (--logic cel)"),
        "star-property": Unsupported("the *-property is the CEL paper's and the SO-CEL paper's, for automata without "
                                     "registers; ACEL's outputs carry aggregated values"),
        "to-formula": Unsupported("the ACEL paper gives no translation from an ACEA back to ACEL"),
        "rewrite": Unsupported("the rewrites are the CEL paper §8's, over CEL"),
        "cces": Unsupported("Algorithm 2 over the CCES is the CEL paper §9's, without aggregates (--logic cel)"),
    },
)

__all__ = ["ACEL", "COMPLEX_EVENTS", "compilable", "run_semantics"]
