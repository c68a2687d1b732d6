"""CEQL, the query language of CORE (seed 001, *CORE: a Complex Event Recognition Engine*)."""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "Query": "parser",
    "StreamDeclaration": "parser",
    "parse_query": "parser",
    "parse_declarations": "parser",
    "format_query": "parser",
    "evaluate": "semantics",
    "compile_query": "compile",
    "Schema": "declarations",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
