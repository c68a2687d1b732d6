"""The shape of the CEQL package (the CORE paper, *CORE: a Complex Event Recognition Engine*, §2): the parser is light,
the front doors are lazy, and the selection strategies and CONSUME BY policies are defined once.

Each import check runs in a fresh interpreter, so that modules this test session already loaded do not hide what
an import pulls in.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.strategies import (CEQL_STRATEGIES, CONSUME_POLICIES, Strategy, ceql_keyword, ceql_strategy,
                                        consume_policy)
from cer_theory.formalisms import cel, ceql
from cer_theory.formalisms.cel import ast as cel_ast
from cer_theory.formalisms.ceql.ast import STRATEGIES, Query
from cer_theory.formalisms.ceql.parser import parse

HEAVY = ("z3", "sympy", "numpy", "cer_theory.engines")


def _modules_after(statement: str) -> list[str]:
    """The modules loaded by running ``statement`` in a fresh interpreter (same path as this one)."""
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout)


def _heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]


@pytest.mark.parametrize("statement", [
    "import cer_theory.formalisms.ceql.parser",
    "from cer_theory.formalisms.ceql.parser import parse; parse('SELECT * WHERE A ; B FILTER B[x > 1]')",
    "from cer_theory.formalisms.ceql import parse, format; format(parse('SELECT * WHERE A WITHIN 3 EVENTS'))",
    "import cer_theory.formalisms.cel.parser",
    "from cer_theory.core.predicates import Cmp, Attr, Const",
])
def test_parsing_loads_no_solver_algebra_numpy_or_engine(statement: str) -> None:
    modules = _modules_after(statement)
    assert _heavy(modules) == [], f"{statement!r} loaded {_heavy(modules)}"


def test_the_predicates_front_door_loads_the_solver_on_first_use() -> None:
    # The check above must be able to fail: the same interpreter does load Z3 once a solver name is used.
    modules = _modules_after("from cer_theory.core.predicates import is_satisfiable")
    assert "z3" in modules


def test_front_doors_share_one_naming_scheme() -> None:
    """docs/decisions.md D52: parse, format, evaluate and compile_automaton in every formalism package."""
    for package in (cel, ceql):
        for name in ("parse", "format", "evaluate", "compile_automaton"):
            assert name in package.__all__, (package.__name__, name)
            assert callable(getattr(package, name)), (package.__name__, name)
    q = ceql.parse("SELECT * WHERE A ; B")
    assert ceql.parse(ceql.format(q)) == q
    assert cel.parse(cel.format(cel.parse("R ; T"))) == cel.parse("R ; T")


def test_one_strategy_enum() -> None:
    assert cel_ast.Strategy is Strategy
    assert [(s.name, s.value) for s in Strategy] == [("STRICT", "STRICT"), ("NXT", "NXT"), ("LAST", "LAST"),
                                                       ("MAX", "MAX")]


def test_ceql_strategy_keywords() -> None:
    """The CORE paper §2 writes the CEL paper's strategies as SELECT keywords; NEXT is the CEL paper's NXT, ALL and ANY select
    nothing."""
    assert STRATEGIES == ("ALL", "ANY", "NEXT", "LAST", "MAX", "STRICT")
    assert ceql_strategy("next") is Strategy.NXT and ceql_strategy("ALL") is None and ceql_strategy("any") is None
    for keyword, strategy in CEQL_STRATEGIES.items():
        assert ceql_strategy(keyword) is strategy
        if strategy is not None:
            assert ceql_keyword(strategy) == keyword
    assert ceql_keyword(None) == "ALL"
    with pytest.raises(UnsupportedError, match="unknown selection strategy 'FIRST'"):
        ceql_strategy("FIRST")
    assert parse("SELECT NEXT * WHERE A").to_cel(strategy=True).strategy is Strategy.NXT  # type: ignore[attr-defined]


def test_consume_policies() -> None:
    assert CONSUME_POLICIES == ("ANY", "PARTITION", "NONE")
    assert consume_policy("partition") == "PARTITION" and consume_policy(None) is None
    with pytest.raises(UnsupportedError, match="unknown consumption policy 'ALL'"):
        consume_policy("ALL")
    with pytest.raises(ValueError, match="CONSUME BY"):
        Query(parse("SELECT * WHERE A").pattern, consume="ALL")
