"""The house rule of the layout (docs/architecture.md): dependencies point one way, down this list of ranks:

core → streams → automata → formalisms → engines → stepper → examples, exercises → testing → spark →
conformance → server → cli

A module may import its own package's rank or a lower one; packages of one rank (examples
and exercises) do not import each other. Within ``formalisms``, ``ceql``, ``socel`` and ``acel`` may import
``cel``; ``cel`` and ``sremo`` import no other formalism. What counts as an import: ``import``/``from`` at module
level or in a function, and ``importlib.import_module("literal")``; a module named by a computed string is
imported only by ``core.lazy.resolve`` (the registry's entry points are loaded by ``importlib.metadata``). Registry
references (``"module:attribute"`` strings, in the source and in the registered records) and the lazy export
tables of package ``__init__`` files must resolve and point no higher than they may. No module dodges a cycle with
a function-local import. Two kinds of function-local import remain, both for start-up time and neither for a
cycle: the command line loads each command's modules when that command runs, and the heavy back ends of the
predicate language (Z3, sympy, numpy, and Arrow for a DataFrame or Table) are loaded on first use.

Each checker takes a module's name and source (or a table), so the tests at the end plant each kind of violation
and see it caught.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from cer_theory.core.lazy import resolve, split_ref
from cer_theory.core.protocols import Formalism, Unsupported, get, names

PACKAGE = Path(__file__).resolve().parents[2] / "cer_theory"

RANKS: list[set[str]] = [{"core"}, {"streams"}, {"automata"}, {"formalisms"}, {"engines"}, {"stepper"},
                         {"examples", "exercises"}, {"testing"}, {"spark"}, {"conformance"}, {"server"}, {"cli"}]
"""The packages in order (the automata's bit-vector determinizer reads the streams' batches)."""
FORMALISM_IMPORTS = {"cel": set(), "ceql": {"cel"}, "socel": {"cel"}, "acel": {"cel"}, "sremo": set()}
LAZY_IMPORTS_ALLOWED = "cer_theory.cli"  # the package and its command modules
COMPUTED_IMPORTS_ALLOWED = {"cer_theory.core.lazy"}  # resolve(): the one import by a computed name
HEAVY = {"cer_theory.core.predicates.solver", "cer_theory.core.predicates.z3enc", "cer_theory.core.predicates.printing",
         "cer_theory.core.predicates.vectorized", "cer_theory.streams.convert", "cer_theory.streams.frames",
         # numpy and Arrow, loaded with the first batch, not by a run that reads events one at a time (D174)
         "cer_theory.engines.core.batches", "cer_theory.streams.blocks",
         "cer_theory.streams.batch", "cer_theory.streams.schema_check"}
REFERENCE_CEILING = "testing"
"""A registry reference names something lazily, so it may point above its module (a record naming its engine or
its hypothesis strategies, D53), but never above ``testing``: no record names a command, Spark or conformance."""
REFERENCE = re.compile(r"^cer_theory(\.\w+)+:[\w.]+$")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(module: str) -> str | None:
    """The application package of a module (``core``, ``spark``, …); None for the front door ``cer_theory``."""
    parts = module.split(".")
    return parts[1] if len(parts) >= 2 and parts[0] == "cer_theory" else None


def rank(module: str) -> int | None:
    top = package_of(module)
    return next((k for k, members in enumerate(RANKS) if top in members), None)


def imports(tree: ast.Module) -> tuple[list[tuple[int, str]], list[tuple[int, str]], list[int]]:
    """(module-level imports, function-local imports, lines of imports by a computed name) of ``cer_theory``
    modules; ``importlib.import_module("literal")`` and ``__import__("literal")`` count as imports."""
    top: list[tuple[int, str]] = []
    local: list[tuple[int, str]] = []
    computed: list[int] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            names_: list[str] = []
            if isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                names_ = [child.module]
            elif isinstance(child, ast.Import):
                names_ = [a.name for a in child.names]
            elif isinstance(child, ast.Call) and _is_import_call(child.func) and child.args:
                arg = child.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    names_ = [arg.value]
                else:
                    computed.append(child.lineno)
            for name in names_:
                if name == "cer_theory" or name.startswith("cer_theory."):
                    (local if in_function else top).append((child.lineno, name))
            visit(child, inner)

    visit(tree, False)
    return top, local, computed


def _is_import_call(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id in ("import_module", "__import__"))


def import_violations(me: str, source: str) -> list[str]:
    """Upward imports, imports between packages of one rank or between formalisms not allowed to, the front door
    imported, and imports by a computed name outside ``core.lazy``."""
    mine = rank(me)
    if mine is None:
        return []
    top, local, computed = imports(ast.parse(source))
    wrong = [f"line {line}: {me} imports a module by a computed name (use core.lazy.resolve)" for line in computed
             if me not in COMPUTED_IMPORTS_ALLOWED]
    for line, target in top + local:
        theirs = rank(target)
        if theirs is None:
            if target == "cer_theory":
                wrong.append(f"line {line}: {target} (the front door; import the defining module)")
        elif theirs > mine:
            wrong.append(f"line {line}: {me} ({package_of(me)}) imports {target} ({package_of(target)}), a higher "
                         f"layer")
        elif theirs == mine and package_of(me) != package_of(target):
            wrong.append(f"line {line}: {me} imports {target}: {package_of(me)} and {package_of(target)} are of "
                         f"one rank and independent")
        elif package_of(me) == package_of(target) == "formalisms":
            a = me.split(".")[2] if me.count(".") >= 2 else None
            b = target.split(".")[2] if target.count(".") >= 2 else None
            if a is not None and b is not None and a != b and b not in FORMALISM_IMPORTS.get(a, set()):
                wrong.append(f"line {line}: formalism {a} imports formalism {b}")
    return wrong


def local_import_violations(me: str, source: str) -> list[str]:
    """Function-local imports of the package outside the command line and the heavy back ends: a cycle dodged."""
    if me == LAZY_IMPORTS_ALLOWED or me.startswith(LAZY_IMPORTS_ALLOWED + "."):
        return []
    _, local, _ = imports(ast.parse(source))
    return [f"line {line}: {me} imports {target} inside a function; move the shared thing down a layer instead"
            for line, target in local if target not in HEAVY]


def reference_check(me: str, target: str, *, ceiling: str = REFERENCE_CEILING) -> str | None:
    """What is wrong with the registry reference ``target`` written in module ``me`` (None when nothing): it must
    resolve, and point no higher than ``me``'s own layer or ``ceiling``, whichever is higher."""
    module, _ = split_ref(target)
    mine, theirs = rank(me), rank(module)
    limit = max(mine if mine is not None else 0, rank(f"cer_theory.{ceiling}") or 0)
    if theirs is None or theirs > limit:
        return f"{me} refers to {target} ({package_of(module)}), above what a reference may name ({ceiling})"
    try:
        resolve(target)
    except (ImportError, AttributeError) as exc:
        return f"{me} refers to {target}, which does not resolve: {exc}"
    return None


def source_references(source: str) -> Iterator[tuple[int, str]]:
    """The ``"cer_theory.module:attribute"`` string constants of a module's source."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and REFERENCE.match(node.value):
            yield node.lineno, node.value


def record_references(record: Formalism) -> Iterator[tuple[str, str]]:
    """(where, reference) for every part of a registered record given as a reference string."""
    parts: list[tuple[str, Any]] = [("compile", record.compile),
                                    ("strategies.formulas", record.strategies.formulas),
                                    ("strategies.streams", record.strategies.streams),
                                    ("strategies.printable", record.strategies.printable)]
    for name, ev in record.evaluators.items():
        parts += [(f"evaluators[{name}].{f}", getattr(ev, f)) for f in ("run", "compile", "accepts", "iterate")]
    parts += [(f"constructions[{name}]", c) for name, c in record.constructions.items()]
    for where, value in parts:
        if isinstance(value, str) and not isinstance(value, Unsupported):
            yield where, value


def export_violations(package: str, table: Mapping[str, str],
                      load: Callable[[str], Any] = resolve) -> list[str]:
    """A lazy export table of ``package``'s ``__init__``: every name must load, and what it loads must be defined
    in the package's layer or a lower one (a front door re-exporting from above would import upwards lazily)."""
    wrong = []
    for name, module in table.items():
        try:
            obj = load(f"{package}.{module}:{name}")
        except (ImportError, AttributeError) as exc:
            wrong.append(f"{package}: export {name} from {module} does not resolve: {exc}")
            continue
        defined = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
        theirs, mine = rank(defined), rank(package)
        if mine is not None and theirs is not None and theirs > mine:  # (the front door cer_theory has no rank)
            wrong.append(f"{package}: export {name} loads {defined}.{name} ({package_of(defined)}), a higher layer")
    return wrong


def export_table(package: str, source: str) -> Mapping[str, str] | None:
    """The table a package's ``__init__`` gives ``lazy_exports``: a dict literal, or the module variable it names
    (read from the imported package, which is cheap: that is what the table is for)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "lazy_exports":
            table = node.args[1]
            if isinstance(table, ast.Dict):
                return ast.literal_eval(table)
            if isinstance(table, ast.Name):
                found = vars(importlib.import_module(package)).get(table.id)
                return found if isinstance(found, Mapping) else None
    return None


MODULES = sorted(PACKAGE.rglob("*.py"))
IDS = [module_name(p) for p in MODULES]
INITS = [p for p in MODULES if p.name == "__init__.py" and "lazy_exports(" in p.read_text()]


def test_every_module_is_in_a_layer() -> None:
    unplaced = [module_name(p) for p in MODULES if rank(module_name(p)) is None and module_name(p) != "cer_theory"]
    assert not unplaced, f"modules outside the layers of docs/architecture.md: {unplaced}"


def test_no_relative_imports() -> None:
    relative = [f"{module_name(p)}:{n.lineno}" for p in MODULES for n in ast.walk(ast.parse(p.read_text()))
                if isinstance(n, ast.ImportFrom) and n.level > 0]
    assert not relative, f"relative imports (the layer check reads absolute ones): {relative}"


@pytest.mark.parametrize("path", MODULES, ids=IDS)
def test_dependencies_point_one_way(path: Path) -> None:
    wrong = import_violations(module_name(path), path.read_text())
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("path", MODULES, ids=IDS)
def test_no_function_local_imports(path: Path) -> None:
    wrong = local_import_violations(module_name(path), path.read_text())
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("path", MODULES, ids=IDS)
def test_references_in_the_source_resolve_and_point_down(path: Path) -> None:
    me = module_name(path)
    wrong = [f"line {line}: {why}" for line, target in source_references(path.read_text())
             if (why := reference_check(me, target)) is not None]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", names())
def test_references_of_every_record_resolve_and_point_down(name: str) -> None:
    record = get(name)
    home = "cer_theory.formalisms.registry"  # a record is of the formalisms layer, wherever it is declared
    wrong = [f"{name}.{where}: {why}" for where, target in record_references(record)
             if (why := reference_check(home, target)) is not None]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("path", INITS, ids=[module_name(p) for p in INITS])
def test_lazy_export_tables_resolve_and_point_down(path: Path) -> None:
    table = export_table(module_name(path), path.read_text())
    assert table is not None, f"{module_name(path)} calls lazy_exports without an _EXPORTS table"
    wrong = export_violations(module_name(path), table)
    assert not wrong, "\n".join(wrong)


# ---------------------------------------------------------------------------------------------- tests of the test


@pytest.mark.parametrize("me, source, expected", [
    ("cer_theory.spark.plan", "from cer_theory.conformance.report import Report\n", "a higher layer"),
    ("cer_theory.core.events", "import importlib\n\ndef f():\n    return importlib.import_module('cer_theory.cli')\n",
     "cer_theory.core.events (core) imports cer_theory.cli (cli)"),
    ("cer_theory.engines.core.engine", "import importlib\nimportlib.import_module(name)\n", "a computed name"),
    ("cer_theory.exercises.checker", "from cer_theory.examples.running_example import PHI1\n", "of one rank and independent"),
    ("cer_theory.formalisms.sremo.compile", "from cer_theory.formalisms.cel.ast import Atom\n",
     "formalism sremo imports formalism cel"),
])
def test_planted_import_violations_are_caught(me: str, source: str, expected: str) -> None:
    wrong = import_violations(me, source)
    assert any(expected in w for w in wrong), wrong


def test_a_planted_function_local_import_is_caught() -> None:
    source = "def f():\n    from cer_theory.formalisms.cel.parser import parse\n    return parse\n"
    assert local_import_violations("cer_theory.formalisms.cel.compile", source) == [
        "line 2: cer_theory.formalisms.cel.compile imports cer_theory.formalisms.cel.parser inside a function; move "
        "the shared thing down a layer instead"]
    assert local_import_violations("cer_theory.cli.cel", source) == []  # the command line's start-up imports


def test_a_planted_upward_registry_reference_is_caught() -> None:
    source = 'RUN = "cer_theory.cli.formulas:cmd_eval"\nOK = "cer_theory.engines.core.engine:evaluate_query"\n'
    found = list(source_references(source))
    assert [t for _, t in found] == ["cer_theory.cli.formulas:cmd_eval",
                                     "cer_theory.engines.core.engine:evaluate_query"]
    me = "cer_theory.formalisms.ceql.formalism"
    assert "above what a reference may name" in (reference_check(me, found[0][1]) or "")
    assert reference_check(me, found[1][1]) is None
    assert "does not resolve" in (reference_check(me, "cer_theory.engines.core.engine:no_such") or "")


def test_a_planted_upward_lazy_export_is_caught() -> None:
    """A kernel front door lazily exporting the engine: the import would happen on first access, upwards."""
    from cer_theory.engines.core.engine import Engine

    wrong = export_violations("cer_theory.core", {"Engine": "budget"}, load=lambda ref: Engine)
    assert wrong == ["cer_theory.core: export Engine loads cer_theory.engines.core.engine.Engine (engines), a higher "
                     "layer"]
    assert "does not resolve" in export_violations("cer_theory.core", {"Engine": "budget"})[0]
