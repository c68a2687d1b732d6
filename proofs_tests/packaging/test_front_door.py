"""The front door: ``import cer_theory as ct`` gives every public name in ``__all__``, lazily, and every formalism
of the registry the same parse function and the same formula verbs."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import cer_theory as ct
from cer_theory.formalisms.formula import Formula
from cer_theory.core.errors import RegistryError
from cer_theory.core.protocols import declared_names, get

# one formula per formalism that its automaton compiles (FO-CEL has no automaton model of its own)
SAMPLES = {
    "cel": "(T ; H) FILTER (T.tmp > 40 AND H.hum <= 25 AND T.id = 0 AND H.id = 0)",
    "ceql": "SELECT * WHERE T ; H FILTER T[tmp > 40] WITHIN 10 EVENTS",
    "socel": "T ; H",
    "focel": "T AS x ; H AS y",
    "acel": "AGG M[top <- max(X.hum)](H AS X ; T)",
    "sremo": '<type = "T"> . [TRUE]* . <type = "H">',
    "rpr": "MATCH_RECOGNIZE (PARTITION BY id ORDER BY rowtime MEASURES FIRST(A.tmp) AS hot, LAST(B.hum) AS dry "
           "ONE ROW PER MATCH PATTERN (A B) DEFINE A AS A.tmp > 40, B AS B.hum <= 25)",
}


def test_all_lists_every_public_name_and_each_resolves() -> None:
    assert ct.__all__ == sorted(set(ct.__all__))
    for name in ct.__all__:
        assert getattr(ct, name) is not None, name
    assert set(declared_names()) <= set(ct.__all__)
    assert {"Engine", "Stream", "Event", "Formula", "fire_stream", "example_stream"} <= set(ct.__all__)


def test_import_is_lazy() -> None:
    """``import cer_theory`` loads no formalism, no engine and no solver: they come on first use."""
    code = ("import sys, cer_theory as ct; heavy = [m for m in sys.modules if m.startswith(("
            "'cer_theory.formalisms', 'cer_theory.engines', 'z3', 'sympy', 'pyarrow', 'pandas'))]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_readme_first_example_in_one_import() -> None:
    S = ct.fire_stream()
    phi = ct.cel("(T ; H) FILTER (T.tmp > 40 AND H.hum <= 25 AND T.id = 0 AND H.id = 0)")
    assert {tuple(sorted(ce)) for ce in phi.evaluate(S)[8]} == {(1, 8), (5, 8)}  # the CEL paper, Fig. 3
    assert phi.evaluate(S, via="cea") == phi.evaluate(S)


@pytest.mark.parametrize("logic", sorted(SAMPLES))
def test_every_formalism_has_the_same_front_door(logic: str) -> None:
    record = get(logic)
    phi = getattr(ct, logic)(SAMPLES[logic])
    assert isinstance(phi, Formula) and phi.logic == logic
    assert getattr(ct, logic)(str(phi)) == phi  # printed back, it parses to the same formula
    S = ct.fire_stream()
    reference = phi.evaluate(S)
    assert len(reference) == len(S)
    for via, evaluator in record.evaluators.items():
        if evaluator.handles(phi.ast) and not evaluator.options:
            assert phi.evaluate(S, via=via) == reference, via
    if record.compile is not None:
        assert phi.draw().to_dot().lstrip().startswith(("digraph", "strict digraph"))


def test_a_path_and_dicts_are_streams(tmp_path) -> None:
    phi = ct.cel("H ; T")
    path = ct.example_path("fire")
    rows = [e.to_dict() for e in ct.example_stream("fire")]
    assert phi.evaluate(path) == phi.evaluate(rows) == phi.evaluate(ct.load(path))


def test_draw_writes_a_file(tmp_path) -> None:
    out = tmp_path / "phi.dot"
    ct.cel("H ; T+").draw(out)
    assert out.read_text().lstrip().startswith("digraph")


def test_unknown_names_say_so() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        ct.nope  # noqa: B018
    with pytest.raises(RegistryError, match="choose one of fire, sensors, stocks"):  # (a CerError, a LookupError)
        ct.example_stream("nope")


def test_type_checkers_see_every_public_name() -> None:
    """Every name of ``__all__`` is declared for type checkers too (the ``TYPE_CHECKING`` block of the front door),
    so a typed program sees the same names the interpreter gives."""
    tree = ast.parse(Path(ct.__file__).read_text(encoding="utf-8"))
    (block,) = [n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"]
    declared = {a.asname or a.name for n in block.body if isinstance(n, ast.ImportFrom) for a in n.names}
    declared |= {n.target.id for n in block.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    assert set(ct.__all__) - {"__version__"} == declared
