"""CEQL, the query language of CORE (the CORE paper, *CORE: a Complex Event Recognition Engine*).

The front door follows CEL's: :func:`parse` (text → :class:`Query`), :func:`format` (its canonical text),
:func:`evaluate` (the reference semantics) and :func:`compile_automaton` (the CEA of the CORE paper Theorem 1).
"""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "Query": "ast",
    "StreamDeclaration": "ast",
    "parse": "parser",
    "parse_declarations": "parser",
    "format": "printer",
    "evaluate": "semantics",
    "compile_automaton": "compile",
    "Schema": "declarations",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
