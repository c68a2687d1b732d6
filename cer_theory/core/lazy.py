"""Names resolved on first use: ``"module:attribute"`` references and lazy re-exports for package ``__init__``
files (PEP 562).

A package front door lists its public names without importing their modules, so importing a light module (the
CEQL parser, say) never pulls in Z3, sympy or the engine through a parent package's ``__init__``; a registry
record names an engine evaluator in a higher layer as a reference, as packaging entry points do. :func:`resolve`
is the one place of the package that imports a module by a computed name (the registry's entry points are
loaded by :mod:`importlib.metadata`); ``proofs_tests/core/test_layers.py`` resolves every reference and export
table and checks that it points down the layers.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from cer_theory.core.errors import RegistryError

Ref = str
"""A ``"package.module:attribute"`` reference, imported on first use (``attribute`` may be dotted)."""


def split_ref(target: Ref) -> tuple[str, str]:
    """``(module, attribute)`` of a reference; :class:`RegistryError` when it is not of that form."""
    module, sep, attribute = target.partition(":")
    if not sep or not module or not attribute:
        raise RegistryError(f"bad reference {target!r}: expected 'package.module:attribute'")
    return module, attribute


def resolve(target: Ref | Callable[..., Any]) -> Any:
    """The object ``target`` names (anything that is not a string is returned as it is)."""
    if not isinstance(target, str):
        return target
    module, attribute = split_ref(target)
    obj: Any = importlib.import_module(module)
    for part in attribute.split("."):
        obj = getattr(obj, part)
    return obj


def lazy_exports(package: str, table: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: ``table`` maps each public name to the submodule (relative
    to ``package``) that defines it; the submodule is imported on first access."""

    def __getattr__(name: str) -> object:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return resolve(f"{package}.{module}:{name}")

    def __dir__() -> list[str]:
        return sorted(table)

    return __getattr__, __dir__


__all__ = ["Ref", "lazy_exports", "resolve", "split_ref"]
