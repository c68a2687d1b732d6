"""SO-CEL, SO-CEL+ and unary complex event automata (seed 004, *A Second-Order Approach to Complex Event
Recognition*)."""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "Formula": "ast",
    "parse": "parser",
    "format_formula": "printer",
    "complex_events": "semantics",
    "run": "semantics",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
