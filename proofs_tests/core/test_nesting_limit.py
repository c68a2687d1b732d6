"""The one nesting limit (core.tree.MAX_NESTING, docs/robustness.md): every parser rejects a formula nested deeper
with a FormulaTooDeep naming the limit, and a formula of exactly the limit goes through everything (printing,
hashing, equality, every evaluator of its formalism, its automaton and drawing) without exhausting the stack."""

from __future__ import annotations

import pytest

from cer_theory.core.errors import CerError, FormulaTooDeep
from cer_theory.core.events import Event, Stream
from cer_theory.core.protocols import get
from cer_theory.core.tree import MAX_NESTING, nesting_depth

# family name -> (formalism, text with n levels); each family grows one level per step
FAMILIES = {
    "cel OR": ("cel", lambda n: " OR ".join(["R"] * n)),
    "cel +": ("cel", lambda n: "R" + "+" * (n - 1)),
    "cel NXT": ("cel", lambda n: "NXT(" * (n - 1) + "R" + ")" * (n - 1)),
    "cel ;": ("cel", lambda n: " ; ".join(["R"] * n)),
    "cel IN": ("cel", lambda n: "R" + " IN A" * (n - 1)),
    "cel NOT": ("cel", lambda n: "R FILTER " + "NOT " * n + "R.x > 1"),
    "ceql ;": ("ceql", lambda n: "SELECT * FROM S WHERE " + " ; ".join(["R"] * n)),
    "ceql OR": ("ceql", lambda n: "SELECT * FROM S WHERE " + " OR ".join(["R"] * n)),
    "ceql NOT": ("ceql", lambda n: "SELECT * FROM S WHERE R AS r FILTER r[" + "NOT " * n + "x > 1]"),
    "socel ;": ("socel", lambda n: " ; ".join(["R"] * n)),
    "socel OR": ("socel", lambda n: " OR ".join(["R"] * n)),
    "sremo .": ("sremo", lambda n: " . ".join(['<type = "R">'] * n)),
    "sremo |": ("sremo", lambda n: " | ".join(['<type = "R">'] * n)),
    "sremo *": ("sremo", lambda n: "(" * n + '<type = "R">' + ")*" * n),
}

STREAM = Stream([Event("R", {"x": 2}), Event("R", {"x": 3})])


def deepest_accepted(logic, make) -> tuple[int, object]:
    """The largest n whose text parses (the family's member at the limit) and its AST."""
    for n in range(MAX_NESTING, 0, -1):  # n items make at least n levels
        try:
            return n, logic.parse(make(n))
        except FormulaTooDeep:
            continue
    raise AssertionError("no member of the family parses")


@pytest.mark.parametrize("family", FAMILIES)
def test_a_formula_at_the_nesting_limit_goes_through_everything(family: str) -> None:
    name, make = FAMILIES[family]
    logic = get(name)
    n, ast = deepest_accepted(logic, make)
    assert n >= MAX_NESTING - 8, f"{family}: only {n} levels accepted"  # the limit is what stops it
    assert nesting_depth(getattr(ast, "pattern", ast)) <= MAX_NESTING  # a CEQL query: its pattern
    assert logic.parse(logic.format(ast)) == ast
    hash(ast), repr(ast)
    for evaluator in logic.evaluators.values():
        if evaluator.handles(ast):
            list(evaluator(ast, STREAM))
    if logic.compile is not None:
        logic.automaton(ast).to_dot()
    with pytest.raises(FormulaTooDeep, match=f"more than {MAX_NESTING} levels"):
        logic.parse(make(n + 1))


@pytest.mark.parametrize("family", FAMILIES)
def test_a_formula_far_past_the_limit_is_rejected_at_parse_time(family: str) -> None:
    name, make = FAMILIES[family]
    with pytest.raises(FormulaTooDeep) as info:
        get(name).parse(make(5000))
    assert isinstance(info.value, CerError) and info.value.line == 1 and info.value.column == 1


def test_nesting_depth_is_iterative_and_counts_paths() -> None:
    from cer_theory.formalisms.cel.ast import Atom, Disj

    phi = Atom("R")
    for _ in range(10_000):  # far deeper than Python's recursion limit
        phi = Disj(phi, Atom("T"))
    assert nesting_depth(phi) == 10_001
    assert nesting_depth(phi, stop_after=50) == 51
    assert sum(1 for _ in phi.walk()) == 20_001 == phi.size()
