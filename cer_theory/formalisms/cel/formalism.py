"""CEL's record in the formalism registry (the CEL paper, *A Formal Framework for Complex Event Recognition*).

Outputs have two levels: the valuations ``⟦φ⟧ᵛ_n(S)`` of Fig. 3 and, one level coarser, their complex events
``sup(μ)`` (§3). Three evaluators must agree with the semantics: the CEA of Theorem 6.2 (with the selection
automata of Theorem 7.2) run as in Def. 5.2, and Algorithm 2 over the CCES of §9 (complex events only, on
unary formulas whose normal form it builds).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from cer_theory.core.events import ComplexEvent, Event, Valuation
from cer_theory.core.protocols import Evaluator, Formalism, Level, Paper, Strategies, Unsupported
from cer_theory.formalisms.cel.ast import Formula, is_unary
from cer_theory.formalisms.cel.parser import parse
from cer_theory.formalisms.cel.printer import format
from cer_theory.formalisms.cel.selection import compile_with_selection
from cer_theory.formalisms.cel.semantics import evaluate

CONSTRUCTIONS = "cer_theory.formalisms.cel.constructions"


def parse_formula(text: str) -> Formula:
    """The parse users get (the command line, the record): a FILTER on a variable its formula never binds is
    refused, as CEQL's parser does (D95). The library's :func:`parse` keeps accepting it, as the CEL paper §4 defines
    it."""
    return parse(text, check_variables=True)


def iterate_cea(phi: Formula, events: Iterable[Event]) -> Iterator[tuple[int, frozenset[Valuation]]]:
    """The compiled automaton's outputs (Theorems 6.2 and 7.2, Def. 5.2) position by position as events arrive."""
    for n, out in enumerate(compile_with_selection(phi).iter_run(events)):
        if out:
            yield n, out


def support(output: Valuation | ComplexEvent) -> ComplexEvent:
    """A valuation's complex event ``sup(μ)`` (the CEL paper §3); a complex event is its own."""
    return output.support() if isinstance(output, Valuation) else frozenset(output)


def _valuation(output: Valuation) -> Valuation:
    return output


def _ce_sort_key(c: ComplexEvent) -> tuple[int, ...]:
    return tuple(sorted(c))


def _ce_json(c: ComplexEvent) -> list[int]:
    return sorted(c)


def _ce_from_json(positions: list[int]) -> ComplexEvent:
    return frozenset(positions)


SCHEMA = "formalisms/cel/output.schema.json"
VALUATIONS = Level("valuations", "valuations", _valuation, Valuation.sort_key, Valuation.to_json, schema=SCHEMA)
COMPLEX_EVENTS = Level("complex events", "complex_events", support, _ce_sort_key, _ce_json, _ce_from_json,
                       schema=SCHEMA)

CEL = Formalism(
    name="cel",
    paper=Paper("000", "A Formal Framework for Complex Event Recognition"),
    summary="CEL formulas and complex event automata",
    parse=parse_formula,
    format=format,
    semantics=evaluate,
    compile="cer_theory.formalisms.cel.selection:compile_with_selection",
    evaluators={
        "semantics": Evaluator("semantics", "the reference semantics (Fig. 3), n-ary filters included",
                               "valuations", run=evaluate),
        "cea": Evaluator("cea", "the compiled automaton (Theorems 6.2 and 7.2) run as in Def. 5.2", "valuations",
                         compile="cer_theory.formalisms.cel.selection:compile_with_selection", accepts=is_unary,
                         iterate=iterate_cea),
        "cces": Evaluator("cces", "Algorithm 2 over the CCES of §9 (complex events only)", "complex events",
                          run="cer_theory.engines.cces.evaluator:evaluate_formula", accepts=is_unary),
    },
    # the compiled automaton is the default (the command line falls back to the semantics, the only evaluator of
    # n-ary filters, outside its fragment): the semantics is brute force, exponential in the stream's length
    default="cea",
    levels=(VALUATIONS, COMPLEX_EVENTS),
    automaton_files={"cea": "cer_theory.formalisms.cel.automaton_file:read_cea"},
    strategies=Strategies(formulas="cer_theory.testing.strategies.cel:registry_formulas",
                          streams="cer_theory.testing.strategies:streams"),
    constructions={
        "step": "cer_theory.stepper.formalisms:step_cel",
        "equivalent": f"{CONSTRUCTIONS}:equivalent",
        "contained": f"{CONSTRUCTIONS}:contained",
        "determinize": f"{CONSTRUCTIONS}:determinize",
        "complement": Unsupported("a CEA outputs valuations, and the complement of a set of valuations is not "
                                  "the output of a CEA in the CEL paper; complement is the SRT paper's windowed dSRA"),
        "normal-form": f"{CONSTRUCTIONS}:normal_form",
        "star-property": f"{CONSTRUCTIONS}:star_property",
        "to-formula": f"{CONSTRUCTIONS}:to_formula",
        "rewrite": f"{CONSTRUCTIONS}:rewrite",
        "cces": "cer_theory.engines.cces.evaluator:CcesEvaluator",
    },
)

__all__ = ["CEL", "COMPLEX_EVENTS", "VALUATIONS", "iterate_cea", "parse_formula", "support"]
