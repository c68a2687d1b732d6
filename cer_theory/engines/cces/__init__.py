"""The CCES data structure and evaluation algorithm of seed 000, §9."""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "Cces": "cces",
    "CcesEvaluator": "cces",
    "evaluate_cea": "cces",
    "compile_formula": "cces",
    "evaluate_formula": "cces",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
