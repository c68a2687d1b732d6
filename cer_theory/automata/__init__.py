"""Automata on the kernel: complex event automata (the CEL paper, Def. 5.1) and their determinization."""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "CEA": "cea",
    "Transition": "cea",
    "io_determinize": "determinize.eager",
    "LazyDeterminizer": "determinize.lazy",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
