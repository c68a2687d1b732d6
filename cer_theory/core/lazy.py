"""Lazy re-exports for package ``__init__`` files (PEP 562).

A package front door lists its public names without importing their modules, so importing a light module (the
CEQL parser, say) never pulls in Z3, sympy or the engine through a parent package's ``__init__``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_exports(package: str, table: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: ``table`` maps each public name to the submodule (relative
    to ``package``) that defines it; the submodule is imported on first access."""

    def __getattr__(name: str) -> object:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    def __dir__() -> list[str]:
        return sorted(table)

    return __getattr__, __dir__
