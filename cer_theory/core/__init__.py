"""The shared kernel: events, errors, windows, parsing helpers, drawing and the one predicate language."""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "Event": "events",
    "Stream": "events",
    "ComplexEvent": "events",
    "Valuation": "events",
    "CoreComplexEvent": "events",
    "CerError": "errors",
    "StreamFormatError": "errors",
    "SyntaxErrorCER": "errors",
    "NotUnaryError": "errors",
    "UnsupportedError": "errors",
    "AutomatonError": "errors",
    "SizeBudgetExceeded": "errors",
    "PredicateError": "errors",
    "AggregateError": "errors",
    "Aggregator": "aggregates",
    "NULL": "aggregates",
    "Window": "windows",
    "render_svg": "drawing",
    "write_drawing": "drawing",
    "graphviz_available": "drawing",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
