"""Determinization of complex event automata: one subset step (:mod:`.step`, the CEL paper Prop. 5.5) and its drivers,
eager (:mod:`.eager`), lazy per tuple (:mod:`.lazy`), CORE's cached bit-vector determinization (:mod:`.bitmask`,
the CORE paper §4.4) and Theorem 7.2's selection automata (:mod:`.selection`)."""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "io_determinize": "eager",
    "LazyDeterminizer": "lazy",
    "select_cea": "selection",
    "select_cea_printed": "selection",
    "MoveTable": "step",
    "SubsetStep": "step",
    "subset_moves": "step",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
