"""CEQL's record in the formalism registry (the CORE paper, *CORE: a Complex Event Recognition Engine*).

A query's outputs at position j are the complex events ``([i, j], D)`` it reports there (§2: the interval is part
of the output). Two evaluators must agree with the reference semantics (``semantics.evaluate``): the CEA of
Theorem 1 run from every start (``compile.evaluate_compiled``; NEXT, LAST and MAX have no any-start automaton,
see ``compile.compile_automaton``) and the engine of §4 (Algorithm 1 over the tECS, the default of
``cer-theory eval --logic ceql``). LIMIT is applied by the engine only (decisions in ``semantics``). A query with aggregates outputs
``(CE, ((alias, value), …))`` records, printed with an ``"aggregates"`` object (docs/decisions.md D75).
"""

from __future__ import annotations

import json
import math

from cer_theory.core.aggregates import NULL, json_value
from cer_theory.core.events import CoreComplexEvent
from cer_theory.core.protocols import Evaluator, Formalism, Level, Paper, Strategies, Unsupported
from cer_theory.formalisms.ceql.ast import Query
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.formalisms.ceql.printer import format
from cer_theory.formalisms.ceql.semantics import AggregatedCE, evaluate

UNDECIDED = ("CEQL's time windows and equality filters between events (the CORE paper) need more than the unary "
             "complex event automata that the decision procedure compares; write the pattern in CEL")

COMPILED_STRATEGIES = frozenset({"ALL", "ANY", "STRICT"})
"""The selection strategies ``compile_automaton`` compiles for runs that start anywhere (the CORE paper Theorem 1)."""


def compiles(query: Query) -> bool:
    """Whether the query's strategy has an any-start automaton (NEXT, LAST and MAX do not) and it has no
    aggregates (the CEA's runs carry no values; the engine's letters do, docs/decisions.md D77)."""
    return query.strategy in COMPILED_STRATEGIES and not query.aggregated


def _identity(c: CoreComplexEvent) -> CoreComplexEvent:
    return c


def _sort_key(c: CoreComplexEvent | AggregatedCE) -> tuple:
    if isinstance(c, tuple):  # (CE, aggregates) of a query with aggregates
        return c[0].start, c[0].end, c[0].positions, json.dumps(_aggregates(c[1]), sort_keys=True)
    return c.start, c.end, c.positions


def _aggregates(pairs: tuple) -> dict:
    return {alias: json_value(v) for alias, v in pairs}


def _to_json(c: CoreComplexEvent | AggregatedCE) -> dict:
    if isinstance(c, tuple):
        return {**c[0].to_json(), "aggregates": _aggregates(c[1])}
    return c.to_json()


def _from_json(obj: dict) -> CoreComplexEvent | AggregatedCE:
    ce = CoreComplexEvent(int(obj["start"]), int(obj["end"]), tuple(int(p) for p in obj["positions"]))
    if "aggregates" in obj:  # null is NULL; "inf"/"-inf" are the infinite identities (json_value's encoding)
        back = {None: NULL, "inf": math.inf, "-inf": -math.inf}
        return ce, tuple((a, back.get(v, v) if v is None or isinstance(v, str) else v)
                         for a, v in obj["aggregates"].items())
    return ce


COMPLEX_EVENTS = Level("complex events", "complex_events", _identity, _sort_key, _to_json, _from_json,
                       schema="formalisms/ceql/output.schema.json")

CEQL = Formalism(
    name="ceql",
    paper=Paper("001", "CORE: a Complex Event Recognition Engine"),
    summary="CEQL queries, evaluated by CORE's engine",
    parse=parse,
    format=format,
    semantics=evaluate,
    compile="cer_theory.formalisms.ceql.compile:compile_automaton",
    evaluators={
        "semantics": Evaluator("semantics", "the reference semantics (§2), brute force; LIMIT not applied",
                               "complex events", run=evaluate),
        "cea": Evaluator("cea", "the CEA of Theorem 1, run from every start (ALL, ANY and STRICT)",
                         "complex events", run="cer_theory.formalisms.ceql.compile:evaluate_compiled",
                         accepts=compiles),
        "engine": Evaluator("engine", "the engine: Algorithm 1 over the tECS (§4)", "complex events",
                            run="cer_theory.engines.core.engine:evaluate_query",
                            iterate="cer_theory.engines.core.streamed:iterate_query"),
    },
    default="engine",
    levels=(COMPLEX_EVENTS,),
    strategies=Strategies(formulas="cer_theory.testing.strategies.ceql:evaluable_queries",
                          streams="cer_theory.testing.strategies.ceql:timed_streams",
                          printable="cer_theory.testing.strategies.ceql:queries"),
    constructions={
        "step": "cer_theory.stepper.formalisms:step_ceql",
        "equivalent": Unsupported(UNDECIDED),
        "contained": Unsupported(UNDECIDED),
        "determinize": Unsupported("the engine determinizes CEQL's CEA lazily, one state at a time as events "
                                   "arrive (the CORE paper §4), and no eager construction is wired; write the pattern "
                                   "in CEL to see the whole deterministic automaton"),
        "complement": Unsupported("the CORE paper defines no complement of a query; complement is the SRT paper's "
                                  "windowed dSRA (--logic sremo)"),
        "normal-form": Unsupported("the §9.2 normal form is the CEL paper's, for the CCES algorithm; CEQL's engine "
                                   "runs the tECS (the CORE paper §4)"),
        "star-property": Unsupported("the *-property (the CEL paper Def. 8.4) is decided for unary CEL and SO-CEL "
                                     "automata; CEQL's windows and filters between events leave that fragment"),
        "to-formula": Unsupported("the CORE paper gives no translation from an automaton back to CEQL"),
        "rewrite": Unsupported("the rewrites are the CEL paper §8's, over CEL"),
        "cces": Unsupported("Algorithm 2 over the CCES is the CEL paper §9's; CEQL's engine is the tECS (eval "
                            "--via engine, cer-theory run)"),
    },
)

__all__ = ["CEQL", "COMPILED_STRATEGIES", "COMPLEX_EVENTS", "compiles"]
