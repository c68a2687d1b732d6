"""SREMO's record in the formalism registry (the SRT paper, *Complex Event Recognition with Symbolic Register
Transducers*).

The outputs at position k are the streaming matches of Def. 32 that end at k (the last-• reading, D43): sets of
0-based positions. The compiled SRT (Thm. 27) run by Alg. 1 must agree with the reference semantics; expressions
with a complement ``!e`` have no SRT here and are evaluated by the semantics only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import Event
from cer_theory.core.protocols import Evaluator, Formalism, Level, Paper, Strategies, Unsupported
from cer_theory.formalisms.sremo.ast import Expr
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.printer import format
from cer_theory.formalisms.sremo.semantics import evaluate
from cer_theory.formalisms.sremo.srt import Recognizer

Outputs = list[frozenset]


def compiles(e: Expr) -> bool:
    """Whether Thm. 27's construction covers ``e`` (everything but a complement over registers, D202)."""
    try:
        compile_automaton(e)
    except UnsupportedError:
        return False
    return True


def run_srt(e: Expr, stream: Sequence[Event]) -> Outputs:
    """The streaming matches by Alg. 1 over the compiled SRT (Thm. 27)."""
    return compile_automaton(e).run(stream)


def iterate_srt(e: Expr, events: Iterable[Event]) -> Iterator[tuple[int, frozenset[int]]]:
    """The streaming matches by Alg. 1 (:class:`Recognizer`) as the events arrive: ``(k, matches ending at k)``."""
    for output in Recognizer(compile_automaton(e)).run(events):
        yield output.k, output.matches


def _sorted(match: frozenset[int]) -> list[int]:
    return sorted(match)


def _sort_key(match: frozenset[int]) -> tuple[int, ...]:
    return tuple(sorted(match))


def _from_json(data: list) -> frozenset[int]:
    return frozenset(int(p) for p in data)


MATCHES = Level("matches", "matches", frozenset, _sort_key, _sorted, _from_json,
                schema="formalisms/sremo/output.schema.json")

SREMO = Formalism(
    name="sremo",
    paper=Paper("002", "Complex Event Recognition with Symbolic Register Transducers"),
    summary="SREMO expressions, with symbolic register transducers",
    parse=parse,
    format=format,
    semantics=evaluate,
    compile="cer_theory.formalisms.sremo.compile:compile_automaton",
    evaluators={
        "semantics": Evaluator("semantics", "the reference semantics (Defs. 17-18, 32, 39), brute force", "matches",
                               run=evaluate),
        "srt": Evaluator("srt", "the SRT of Thm. 27 run by Alg. 1 (the streaming run-pool recognizer)", "matches",
                         run=run_srt, accepts=compiles, iterate=iterate_srt),
        "dsrt": Evaluator("dsrt", "(e) WITHIN w by the unrolled, determinized SRA (Lemma 46, Thm. 41), one "
                                  "deterministic run per start in the window; matches must begin with a mark",
                          "matches", run="cer_theory.formalisms.sremo.dsrt:run_dsrt",
                          accepts="cer_theory.formalisms.sremo.dsrt:handles"),
    },
    default="srt",
    levels=(MATCHES,),
    automaton_files={"srt": "cer_theory.formalisms.sremo.srt_file:read_srt"},
    strategies=Strategies(formulas="cer_theory.testing.strategies.sremo:expressions",
                          streams="cer_theory.testing.strategies.sremo:streams"),
    constructions={
        "step": "cer_theory.stepper.formalisms:step_sremo",
        "equivalent": "cer_theory.formalisms.sremo.equivalence:equivalent",
        "contained": "cer_theory.formalisms.sremo.equivalence:contained",
        "determinize": "cer_theory.formalisms.sremo.constructions:determinize",
        "complement": "cer_theory.formalisms.sremo.constructions:complement",
        "normal-form": Unsupported("the §9.2 normal form is the CEL paper's, for CEA without registers (--logic cel)"),
        "star-property": Unsupported("the *-property is the CEL paper's and the SO-CEL paper's, for automata without "
                                     "registers; an SRT's outputs are streaming matches (Def. 32)"),
        "to-formula": Unsupported("the SRT paper gives no translation from an SRT back to SREMO"),
        "rewrite": Unsupported("the rewrites are the CEL paper §8's, over CEL"),
        "cces": Unsupported("Algorithm 2 over the CCES is the CEL paper §9's; SREMO streams by Alg. 1 (eval --via srt) "
                            "and by its detector (cer-theory detect)"),
    },
)

__all__ = ["MATCHES", "SREMO", "compiles", "iterate_srt", "run_srt"]
