"""I/O-determinization of complex event automata (seed 000, Prop. 5.5): eager and lazy drivers."""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "io_determinize": "eager",
    "LazyDeterminizer": "lazy",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
