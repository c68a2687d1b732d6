"""SO-CEL's and FO-CEL's records in the formalism registry (the SO-CEL paper, *A Second-Order Approach to Complex Event
Recognition*).

SO-CEL's outputs at position n are the complex events ⟦φ⟧_n(S), label → set-of-positions maps (Table 1). Three
evaluators must agree with the reference semantics: the UCEA of Prop 5.2, the loop-free UCEA under the
*-semantics (Thm 5.3, core SO-CEL only) and Prop 5.1's evaluator over the I/O-determinized UCEA. FO-CEL (§3)
outputs matches, sets of positions, by its reference semantics with the global valuation.
"""

from __future__ import annotations

from typing import Any

from cer_theory.core.protocols import Evaluator, Formalism, Level, Paper, Strategies, Unsupported
from cer_theory.formalisms.socel.evaluators import (compilable, format_fo, match_sort_key, match_to_json, parse_fo,
                                                    run_fo, run_prop_5_1, run_semantics, run_ucea, run_ucea_star,
                                                    star_compilable, valuation_from_json, valuation_sort_key,
                                                    valuation_to_json)
from cer_theory.formalisms.socel.parser import parse
from cer_theory.formalisms.socel.printer import format

PAPER = Paper("004", "A Second-Order Approach to Complex Event Recognition")
CONSTRUCTIONS = "cer_theory.formalisms.socel.constructions"
FO_UNDECIDED = ("FO-CEL's global valuation compares events with each other (binary predicates, the SO-CEL paper §3), "
                "which no unary automaton checks")
FO_HAS_NO_AUTOMATON = ("FO-CEL has no automaton model in the SO-CEL paper (§3 defines its semantics only); translate a "
                       "unary formula to SO-CEL (Thm 4.3) and use --logic socel")


def _identity(x: Any) -> Any:
    return x


def _match_from_json(data: Any) -> frozenset[int]:
    return frozenset(int(p) for p in data)


SCHEMA = "formalisms/socel/output.schema.json"
VALUATIONS = Level("valuations", "valuations", _identity, valuation_sort_key, valuation_to_json, valuation_from_json,
                   schema=SCHEMA)
MATCHES = Level("matches", "matches", frozenset, match_sort_key, match_to_json, _match_from_json, schema=SCHEMA)

SOCEL = Formalism(
    name="socel",
    paper=PAPER,
    summary="SO-CEL and SO-CEL+ formulas, with unary complex event automata",
    parse=parse,
    format=format,
    semantics=run_semantics,
    compile="cer_theory.formalisms.socel.compile:compile_automaton",
    evaluators={
        "semantics": Evaluator("semantics", "the reference semantics (Table 1, §2.1), brute force", "valuations",
                               run=run_semantics),
        "ucea": Evaluator("ucea", "the UCEA of Prop 5.2, run from position 0 on every tuple (unary filters)",
                          "valuations", run=run_ucea, accepts=compilable),
        "ucea-star": Evaluator("ucea-star", "the loop-free UCEA under the *-semantics (Thm 5.3; core SO-CEL)",
                               "valuations", run=run_ucea_star, accepts=star_compilable),
        "prop-5-1": Evaluator("prop-5-1", "Prop 5.1's streaming evaluator over the I/O-determinized UCEA",
                              "valuations", run=run_prop_5_1, accepts=compilable),
    },
    default="semantics",
    levels=(VALUATIONS,),
    automaton_files={"ucea": "cer_theory.formalisms.socel.automaton_json:read_ucea"},
    strategies=Strategies(formulas="cer_theory.testing.strategies.socel:formulas",
                          streams="cer_theory.testing.strategies.socel:socel_streams"),
    constructions={
        "step": "cer_theory.stepper.formalisms:step_socel",
        "equivalent": "cer_theory.formalisms.socel.equivalence:equivalent",
        "contained": "cer_theory.formalisms.socel.equivalence:contained",
        "determinize": f"{CONSTRUCTIONS}:determinize",
        "complement": Unsupported("the SO-CEL paper defines no complement; complement is the SRT paper's windowed dSRA "
                                  "(--logic sremo)"),
        "normal-form": Unsupported("the §9.2 normal form is the CEL paper's (--logic cel); the SO-CEL paper's streaming "
                                   "evaluator runs the I/O-determinized UCEA (determinize --logic socel)"),
        "star-property": f"{CONSTRUCTIONS}:star_property",
        "to-formula": f"{CONSTRUCTIONS}:to_formula",
        "rewrite": Unsupported("the rewrites are the CEL paper §8's, over CEL; the SO-CEL paper's Thm 6.5 rewrite is "
                               "cer_theory.formalisms.socel.contiguity"),
        "cces": Unsupported("Algorithm 2 over the CCES is the CEL paper §9's (--logic cel); the SO-CEL paper's streaming "
                            "evaluator is eval --via prop-5-1"),
    },
)

FOCEL = Formalism(
    name="focel",
    paper=PAPER,
    summary="FO-CEL (CEPL) formulas with the global valuation (§3)",
    parse=parse_fo,
    format=format_fo,
    semantics=run_fo,
    compile=None,
    evaluators={"semantics": Evaluator("semantics", "the reference semantics of §3 (global valuation, vdef+)",
                                       "matches", run=run_fo)},
    default="semantics",
    levels=(MATCHES,),
    strategies=Strategies(formulas="cer_theory.testing.strategies.socel:fo_formulas",
                          streams="cer_theory.testing.strategies.socel:socel_streams"),
    constructions={
        **{name: Unsupported(FO_HAS_NO_AUTOMATON) for name in ("determinize", "complement", "normal-form",
                                                               "star-property", "to-formula", "cces",
                                                               "step")},
        "equivalent": Unsupported(FO_UNDECIDED),
        "contained": Unsupported(FO_UNDECIDED),
        "rewrite": Unsupported("the rewrites are the CEL paper §8's, over CEL; FO-CEL's translations to SO-CEL are "
                               "cer_theory.formalisms.socel.unary_fo and binary_fo"),
    },
)

__all__ = ["FOCEL", "MATCHES", "SOCEL", "VALUATIONS"]
