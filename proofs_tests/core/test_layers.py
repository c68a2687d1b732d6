"""The house rule of the layout (docs/architecture.md): dependencies point one way,
core → streams → automata → formalisms → engines → the applications (examples, testing, conformance, spark) → cli.

Within ``formalisms``, ``ceql``, ``socel`` and ``acel`` may import ``cel``; ``cel`` and ``sremo`` import no other
formalism. No module dodges a cycle with a function-local import. Two kinds of function-local import remain, both for
start-up time and neither for a cycle: the command line loads each command's modules when that command runs, and
the heavy back ends of the predicate language (Z3, sympy, numpy, and Arrow for a DataFrame or Table) are loaded
on first use.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "cer_theory"

LAYERS = ["core", "streams", "automata", "formalisms", "engines", "application", "cli"]
APPLICATIONS = {"examples", "testing", "conformance", "spark", "exercises", "stepper"}
FORMALISM_IMPORTS = {"cel": set(), "ceql": {"cel"}, "socel": {"cel"}, "acel": {"cel"}, "sremo": set()}
LAZY_IMPORTS_ALLOWED = "cer_theory.cli"  # the package and its command modules
HEAVY = {"cer_theory.core.predicates.solver", "cer_theory.core.predicates.z3enc", "cer_theory.core.predicates.printing",
         "cer_theory.core.predicates.vectorized", "cer_theory.streams.convert",
         # numpy and Arrow, loaded with the first batch, not by a run that reads events one at a time (D174)
         "cer_theory.engines.core.batches", "cer_theory.streams.blocks",
         "cer_theory.streams.batch", "cer_theory.streams.schema_check"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) < 2:
        return None  # the package front door re-exports from every layer
    top = parts[1]
    if top in APPLICATIONS:
        return "application"
    return top if top in LAYERS else None


def imports(tree: ast.Module) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(module-level imports, function-local imports) of cer_theory modules, with line numbers."""
    top: list[tuple[int, str]] = []
    local: list[tuple[int, str]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            names: list[str] = []
            if isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                names = [child.module]
            elif isinstance(child, ast.Import):
                names = [a.name for a in child.names]
            for name in names:
                if name == "cer_theory" or name.startswith("cer_theory."):
                    (local if in_function else top).append((child.lineno, name))
            visit(child, inner)

    visit(tree, False)
    return top, local


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_is_in_a_layer() -> None:
    unplaced = [module_name(p) for p in MODULES if layer(module_name(p)) is None and module_name(p) != "cer_theory"]
    assert not unplaced, f"modules outside the layers of docs/architecture.md: {unplaced}"


def test_no_relative_imports() -> None:
    relative = [f"{module_name(p)}:{n.lineno}" for p in MODULES for n in ast.walk(ast.parse(p.read_text()))
                if isinstance(n, ast.ImportFrom) and n.level > 0]
    assert not relative, f"relative imports (the layer check reads absolute ones): {relative}"


@pytest.mark.parametrize("path", MODULES, ids=[module_name(p) for p in MODULES])
def test_dependencies_point_one_way(path: Path) -> None:
    me = module_name(path)
    mine = layer(me)
    if mine is None:
        return
    top, local = imports(ast.parse(path.read_text()))
    wrong = []
    for line, target in top + local:
        theirs = layer(target)
        if theirs is None:
            if target != "cer_theory":
                continue
            wrong.append(f"line {line}: {target} (the front door; import the defining module)")
        elif LAYERS.index(theirs) > LAYERS.index(mine):
            wrong.append(f"line {line}: {me} ({mine}) imports {target} ({theirs})")
        elif mine == theirs == "formalisms":
            a, b = me.split(".")[2], target.split(".")[2] if target.count(".") >= 2 else None
            if b is not None and a != b and b not in FORMALISM_IMPORTS.get(a, set()):
                wrong.append(f"line {line}: formalism {a} imports formalism {b}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("path", MODULES, ids=[module_name(p) for p in MODULES])
def test_no_function_local_imports(path: Path) -> None:
    me = module_name(path)
    if me == LAZY_IMPORTS_ALLOWED or me.startswith(LAZY_IMPORTS_ALLOWED + "."):
        return
    _, local = imports(ast.parse(path.read_text()))
    local = [(line, target) for line, target in local if target not in HEAVY]
    assert not local, f"{me}: function-local imports {local}; move the shared thing down a layer instead"
