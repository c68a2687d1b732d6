"""cer_theory: the theory of Complex Event Recognition, executable.

The kernel is :mod:`cer_theory.core`; automata are in :mod:`cer_theory.automata`; each seed paper's formalism is
one package of :mod:`cer_theory.formalisms`; the engines are in :mod:`cer_theory.engines`.
"""

from cer_theory.core.events import ComplexEvent, Event, Stream, Valuation
from cer_theory.core.lazy import lazy_exports

__version__ = "0.1.0"
# The engine pulls in the CEQL parser and the solver: it is loaded only when asked for.
__getattr__, _ = lazy_exports(__name__, {"Engine": "engines.core.engine"})
__all__ = ["ComplexEvent", "Engine", "Event", "Stream", "Valuation", "__version__"]
