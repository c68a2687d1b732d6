"""The CCES data structure and evaluation algorithm of the CEL paper, §9: the structure and Algorithm 1 in
:mod:`~cer_theory.engines.cces.structure`, Algorithm 2 in :mod:`~cer_theory.engines.cces.evaluator`."""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "BOTTOM": "structure",
    "Cces": "structure",
    "CcesError": "structure",
    "EnumerationStats": "evaluator",
    "CcesEvaluator": "evaluator",
    "CcesStats": "evaluator",
    "EventStats": "evaluator",
    "evaluate_cea": "evaluator",
    "compile_formula": "evaluator",
    "evaluate_formula": "evaluator",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
