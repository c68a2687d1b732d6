"""CEL and complex event automata (the CEL paper, *A Formal Framework for Complex Event Recognition*)."""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "Formula": "ast",
    "Strategy": "ast",
    "parse": "parser",
    "parse_predicate": "parser",
    "format": "printer",
    "valuations": "semantics",
    "complex_events": "semantics",
    "evaluate": "semantics",
    "evaluate_complex_events": "semantics",
    "compile_automaton": "compile",
    "compile_with_selection": "selection",
    "select_cea": "selection",
    "cea_to_cel": "to_cel",
    "cea_to_cel_star": "to_cel",
    "has_star_property": "star_property",
    "star_run_complex_events": "star_property",
    "equivalent": "equivalence",
    "contained": "equivalence",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
