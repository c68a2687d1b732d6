"""cer_theory: the theory of Complex Event Recognition, executable."""

from .events import ComplexEvent, Event, Stream, Valuation

__version__ = "0.1.0"
__all__ = ["ComplexEvent", "Engine", "Event", "Stream", "Valuation", "__version__"]


def __getattr__(name: str):
    # The engine pulls in the CEQL parser and the solver: load it only when asked for.
    if name == "Engine":
        from .engine import Engine

        return Engine
    raise AttributeError(f"module 'cer_theory' has no attribute {name!r}")
