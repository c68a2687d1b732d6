"""Bundled examples: the CEL paper's running example (Fig. 1 stream, formulas φ1–φ4), the figures, the sample streams by name."""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "fire_stream": "running_example",
    "formula": "running_example",
    "FORMULAS": "running_example",
    "example_5_3_cea": "running_example",
    "fig8_cea": "running_example",
    "write_all": "figures",
    "EXAMPLE_STREAMS": "streams",
    "example_path": "streams",
    "example_stream": "streams",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
