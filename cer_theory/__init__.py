"""cer_theory: the theory of Complex Event Recognition, executable.

The front door, one import for everyday use::

    import cer_theory as ct
    phi = ct.cel("(T ; H) FILTER (T.tmp > 40 AND H.hum <= 25 AND T.id = 0 AND H.id = 0)")
    phi.evaluate(ct.fire_stream())[8]       # the complex events at position 8
    phi.compile()                           # its complex event automaton
    phi.draw()                              # drawn (SVG in Jupyter)

Every formalism of the registry has a parse function of its own name (``ct.cel``, ``ct.ceql``, ``ct.socel``,
``ct.focel``, ``ct.acel``, ``ct.sremo``, ``ct.rpr``) returning a :class:`~cer_theory.formalisms.formula.Formula` with the same
``evaluate`` / ``compile`` / ``draw``. Everything here is loaded on first use, so ``import cer_theory`` stays cheap.

Beyond the front door, the kernel is :mod:`cer_theory.core`; automata are in :mod:`cer_theory.automata`; each
paper's formalism is one package of :mod:`cer_theory.formalisms`; the engines are in :mod:`cer_theory.engines`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cer_theory.core.lazy import resolve

if TYPE_CHECKING:  # what type checkers see; at run time the same names are loaded on first use (__getattr__)
    from cer_theory.core.events import ComplexEvent as ComplexEvent
    from cer_theory.core.events import Event as Event
    from cer_theory.core.events import Stream as Stream
    from cer_theory.streams.rows import load as load
    from cer_theory.core.events import Valuation as Valuation
    from cer_theory.formalisms.formula import Drawing as Drawing
    from cer_theory.formalisms.formula import Formula as Formula
    from cer_theory.formalisms.formula import parser as parser
    from cer_theory.engines.core.engine import Engine as Engine
    from cer_theory.examples.running_example import fire_stream as fire_stream
    from cer_theory.examples.streams import EXAMPLE_STREAMS as EXAMPLE_STREAMS
    from cer_theory.examples.streams import example_path as example_path
    from cer_theory.examples.streams import example_stream as example_stream

    cel: Callable[[str], Formula]
    ceql: Callable[[str], Formula]
    socel: Callable[[str], Formula]
    focel: Callable[[str], Formula]
    sremo: Callable[[str], Formula]
    acel: Callable[[str], Formula]
    rpr: Callable[[str], Formula]

__version__ = "0.1.0"

# name → the module that defines it, imported on first access (PEP 562): the engine pulls in the CEQL parser and
# the solver, the formula objects the registry.
_EXPORTS = {
    "ComplexEvent": "cer_theory.core.events",
    "Event": "cer_theory.core.events",
    "Stream": "cer_theory.core.events",
    "Valuation": "cer_theory.core.events",
    "load": "cer_theory.streams.rows",
    "Engine": "cer_theory.engines.core.engine",
    "Formula": "cer_theory.formalisms.formula",
    "Drawing": "cer_theory.formalisms.formula",
    "parser": "cer_theory.formalisms.formula",
    "fire_stream": "cer_theory.examples.running_example",
    "example_stream": "cer_theory.examples.streams",
    "example_path": "cer_theory.examples.streams",
    "EXAMPLE_STREAMS": "cer_theory.examples.streams",
}


def _logics() -> tuple[str, ...]:
    """One parse function per formalism declared in the registry (its entry points), named after it: read on first
    use, since reading the entry points costs start-up time that ``cer-theory run`` does not pay."""
    names: tuple[str, ...] = resolve("cer_theory.core.protocols:declared_names")()  # (the registry: loaded on use)
    return names


def __getattr__(name: str) -> Any:
    if name == "__all__":
        value: Any = sorted([*_EXPORTS, *_logics(), "__version__"])
    elif name in _EXPORTS:
        value = resolve(f"{_EXPORTS[name]}:{name}")
    elif name in _logics():
        value = resolve("cer_theory.formalisms.formula:parser")(name)
    else:
        raise AttributeError(f"module 'cer_theory' has no attribute {name!r}")
    globals()[name] = value  # once loaded, an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__getattr__("__all__")))
