"""cer_theory: the theory of Complex Event Recognition, executable."""

from .events import ComplexEvent, Event, Stream, Valuation

__version__ = "0.1.0"
__all__ = ["ComplexEvent", "Event", "Stream", "Valuation", "__version__"]
