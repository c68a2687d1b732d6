"""One budget binds everything (docs/robustness.md, "Exponential constructions" and "Budgets that bind before
building"): for EVERY evaluator and EVERY construction of EVERY registered formalism, a pathological input —
exponentially many outputs, a window of a million, eight filtered variables, ``A{1000000000}`` — is refused cleanly
under a work budget of 1,000 units (``SizeBudgetExceeded``, or the stepper's own bound), in a subprocess limited to
2.5 GB of address space and a wall-clock bound, so that a budget that stops binding fails the test instead of
hanging or swapping the machine.

The tables are checked against the registry: a formalism, evaluator or construction registered without a
pathological builder here fails ``test_every_registered_evaluator_and_construction_has_a_pathological_input``.
Run as a script (``python test_budgets_bind.py KIND LOGIC NAME``) the file runs one case and prints its outcome.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

BUDGET = 1000
"""The work budget every case runs under (units, ``core.budget``), and the ``budget=`` of constructions."""

LONG = 24
"""Events in the streams: ``R+`` has 2^23 complex events at the last one."""

# (logic, evaluator) -> (text, events); the stream is LONG events of type R (x = 1, ts = i), or ``events``.
EVALUATORS: dict[tuple[str, str], tuple[str, int]] = {
    **{("cel", ev): ("R+", LONG) for ev in ("semantics", "cea", "cces")},
    **{("ceql", ev): ("SELECT * WHERE R+", LONG) for ev in ("semantics", "cea", "engine")},
    **{("socel", ev): ("R+", LONG) for ev in ("semantics", "ucea", "ucea-star", "prop-5-1")},
    ("focel", "semantics"): ("(R AS x)+", LONG),
    **{("acel", ev): ("R+", LONG) for ev in ("semantics", "acea")},
    ("sremo", "semantics"): ('(<type = "R">)+ . (<type = "R">)+ . (<type = "R">)+', 60),
    ("sremo", "srt"): ('(<type = "R"> . [TRUE]*)+', LONG),
    ("sremo", "dsrt"): ('(<type = "R"> . [TRUE]* . <type = "R">) WITHIN 1000000', LONG),
    ("rpr", "semantics"): ("MATCH_RECOGNIZE (ORDER BY ts PATTERN ((A|B)+ (A|B)* C) "
                           "DEFINE A AS x > 0, B AS x > 0, C AS x < 0)", 60),
    ("rpr", "nfa"): ("MATCH_RECOGNIZE (ORDER BY ts PATTERN (A{1000000000}) DEFINE A AS x > 0)", LONG),
}

EIGHT = " ; ".join(f"(R FILTER R.{a} > 1)" for a in "abcdefgh")
"""Eight filters on one relation: 2^8 types (minterms, the CEL paper Def. 5.6) at every step of a determinization."""

EIGHT_BUT_LAST = EIGHT.replace("R.h > 1", "R.h > 2")
"""Differs from :data:`EIGHT` only at its last filter: an equivalence search explores every pair before it."""

SREMO_EIGHT = " . [TRUE]* . ".join(f'<type = "R" AND {a} > 1>' for a in "abcdefgh")
SREMO_EIGHT_BUT_LAST = SREMO_EIGHT.replace("h > 1", "h > 2")
"""The same in SREMO (register-free and window-free: the fragment its equivalence decides)."""

WINDOWED = '(<type = "R"> . [TRUE]* . <type = "R">) WITHIN 1000000'
"""A window of a million: unrolled (the SRT paper, Lemma 46) into a million copies."""


def _cel_to_formula(record: Any) -> Any:
    from cer_theory.formalisms.cel.compile import compile_automaton

    cea = compile_automaton(record.parse(" ; ".join(f"({v} OR {w})+" for v, w in zip("ABCDEFG", "BCDEFGH"))))
    return record.construction("to-formula")(cea, None, budget=BUDGET)


def _socel_to_formula(record: Any) -> Any:
    from cer_theory.formalisms.socel.compile import compile_automaton

    ucea = compile_automaton(record.parse(" ; ".join(f"({v} OR {w})+" for v, w in zip("ABCDEFG", "BCDEFGH"))))
    return record.construction("to-formula")(ucea, list("ABCDEFGH"), budget=BUDGET)


def _cces(record: Any) -> Any:
    from cer_theory.formalisms.cel.compile import compile_automaton

    evaluator = record.construction("cces")(compile_automaton(record.parse("R+")), budget=BUDGET)
    return [list(evaluator.process(event)) for event in stream(LONG)]


def _step(text: str) -> Callable[[Any], Any]:
    return lambda record: record.construction("step")(record.parse(text), stream(LONG))


def _decide(kind: str, one: str, other: str) -> Callable[[Any], Any]:
    """Equivalence (``one`` against ``other``) or containment (``other`` in ``one``), the budget given."""
    left, right = (one, other) if kind == "equivalent" else (other, one)
    return lambda record: record.construction(kind)(left, right, budget=BUDGET)


def _built(kind: str, text: str) -> Callable[[Any], Any]:
    """A construction of the parsed ``text`` with the budget given; its result's summary computed too."""
    def build(record: Any) -> Any:
        built = record.construction(kind)(record.parse(text), budget=BUDGET)
        return built.result.summary() if hasattr(built, "result") else built
    return build


# (logic, construction) -> what to call with the record
CONSTRUCTIONS: dict[tuple[str, str], Callable[[Any], Any]] = {
    **{(logic, kind): _decide(kind, EIGHT, EIGHT_BUT_LAST) for logic in ("cel", "socel")
       for kind in ("equivalent", "contained")},
    **{("sremo", kind): _decide(kind, SREMO_EIGHT, SREMO_EIGHT_BUT_LAST) for kind in ("equivalent", "contained")},
    **{("cel", kind): _built(kind, EIGHT) for kind in ("determinize", "normal-form", "star-property")},
    **{("socel", kind): _built(kind, EIGHT) for kind in ("determinize", "star-property")},
    **{("sremo", kind): _built(kind, WINDOWED) for kind in ("determinize", "complement")},
    ("cel", "to-formula"): _cel_to_formula,
    ("socel", "to-formula"): _socel_to_formula,
    ("cel", "rewrite"): lambda r: r.construction("rewrite")("contig-to-strict",
                                                            r.parse(" : ".join(["(R OR S)"] * 12))),
    ("cel", "cces"): _cces,
    **{(logic, "step"): _step(text) for logic, text in (("cel", "R+"), ("ceql", "SELECT * WHERE R+"),
                                                        ("sremo", '(<type = "R"> . [TRUE]*)+'), ("acel", "R+"),
                                                        ("socel", "R+"))},
}


def stream(n: int) -> Any:
    from cer_theory.core.events import Event, Stream

    return Stream([Event("R", {"x": 1, "ts": k, "time": k, "id": 1}) for k in range(n)])


def run_case(kind: str, logic: str, name: str) -> str:
    """One case, under a work budget of :data:`BUDGET`: ``REFUSED …`` when the budget (or the stepper's bound, or
    a construction's own state budget) stopped it, ``FINISHED …`` otherwise."""
    from cer_theory.core.budget import work_budget
    from cer_theory.core.errors import CerError, SizeBudgetExceeded
    from cer_theory.core.protocols import get

    record = get(logic)
    try:
        with work_budget(BUDGET):
            if kind == "evaluator":
                text, n = EVALUATORS[logic, name]
                outputs = record.evaluator(name)(record.parse(text), stream(n))
                return f"FINISHED with {sum(len(out) for out in outputs)} outputs"
            CONSTRUCTIONS[logic, name](record)
            return "FINISHED"
    except SizeBudgetExceeded as e:
        return f"REFUSED {e}"
    except CerError as e:
        if "budget" in str(e):  # the stepper's bounds on positions and rows (--max-runs) are budgets too
            return f"REFUSED {e}"
        raise


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (5 * 2**29, 5 * 2**29))


def _outcome(kind: str, logic: str, name: str) -> str:
    done = subprocess.run([sys.executable, __file__, kind, logic, name], capture_output=True, text=True,
                          timeout=180, preexec_fn=_limited)
    assert done.returncode == 0, f"{kind} {logic} {name}: exit {done.returncode}\n{done.stderr[-1500:]}"
    return done.stdout.strip()


def _registered() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    from cer_theory.core.protocols import CONSTRUCTIONS as KINDS, records

    evaluators = [(r.name, ev) for r in records() for ev in r.evaluators]
    constructions = [(r.name, c) for r in records() for c in KINDS if r.supports(c)]
    return evaluators, constructions


def test_every_registered_evaluator_and_construction_has_a_pathological_input() -> None:
    evaluators, constructions = _registered()
    assert not set(evaluators) - set(EVALUATORS), f"add a pathological input for {set(evaluators) - set(EVALUATORS)}"
    assert not set(constructions) - set(CONSTRUCTIONS), \
        f"add a pathological input for {set(constructions) - set(CONSTRUCTIONS)}"


@pytest.mark.parametrize(("logic", "name"), sorted(EVALUATORS))
def test_every_evaluator_stops_at_the_budget(logic: str, name: str) -> None:
    outcome = _outcome("evaluator", logic, name)
    assert outcome.startswith("REFUSED"), f"{logic} --via {name}: {outcome}"


@pytest.mark.parametrize(("logic", "name"), sorted(CONSTRUCTIONS))
def test_every_construction_stops_at_the_budget(logic: str, name: str) -> None:
    outcome = _outcome("construction", logic, name)
    assert outcome.startswith("REFUSED"), f"{logic} {name}: {outcome}"


if __name__ == "__main__":
    print(run_case(*sys.argv[1:4]))


def _subcommands() -> dict[str, Any]:
    from cer_theory.cli import build_parser

    parser = build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return dict(action.choices)


def test_budget_is_named_only_where_it_exists(capsys: pytest.CaptureFixture[str]) -> None:
    """``--budget`` exists wherever a message mentions it: a command's help that names it has the option, and a
    construction past its bound in a command without the option is reported without naming it (a command with
    the option is told to give a larger one)."""
    import argparse

    from cer_theory.cli import _run
    from cer_theory.cli.layer import DECLARATION
    from cer_theory.core.errors import SizeBudgetExceeded

    for name, sub in _subcommands().items():
        options = {o for a in sub._actions for o in a.option_strings}
        texts = [sub.description or "", *(a.help or "" for a in sub._actions)]
        if any("--budget" in t for t in texts):
            assert "--budget" in options, f"{name}'s help names --budget, which it does not take"

        def exceed(_: argparse.Namespace) -> int:
            raise SizeBudgetExceeded("a construction", 10, 11, unit="units")

        # the command's own defaults (its declaration to cli.layer among them), the work replaced by one past its bound
        args = argparse.Namespace(**{a.dest: a.default for a in sub._actions if a.dest != "help"},
                                  **{DECLARATION: sub.get_default(DECLARATION)})
        args.func = exceed
        if "--budget" in options:
            args.budget = 10
        assert _run(args, f"cer-theory {name}", program=False) == 2
        err = capsys.readouterr().err
        assert ("--budget" in err) == ("--budget" in options), (name, err)
    assert {"cces", "detect"} <= {n for n, s in _subcommands().items()
                                  if "--budget" in {o for a in s._actions for o in a.option_strings}}
