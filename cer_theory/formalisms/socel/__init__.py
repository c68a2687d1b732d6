"""SO-CEL, SO-CEL+, FO-CEL and unary complex event automata (the SO-CEL paper, *A Second-Order Approach to Complex Event
Recognition*). One module per face and construction:

* ``ast``, ``parser`` (+ ``socel.lark``), ``printer``, ``semantics``: SO-CEL(+) (Table 1, §2.1);
* ``ucea``: UCEA and their *-semantics (§4, §5); ``automaton_json``: the JSON file format;
* ``compile``: SO-CEL(+) → UCEA (Prop 5.2; Thm 5.3's loop-free variant; Prop 6.4's STRICT rewrite);
* ``contiguity``: Thm 6.5 part 1, ``:`` rewritten with STRICT;
* ``to_socel``: UCEA → SO-CEL+ (Thm 6.2) and → core SO-CEL (Thm 5.3 ⇐);
* ``star_property``: the §5.3 *-property decider; ``corollaries``: Cor 5.6;
* ``streaming``: Prop 5.1's streaming evaluator and I/O-determinization; ``focel``: FO-CEL (§3);
  ``unary_fo``: Thm 4.3 (unary FO-CEL ↔ SO-CEL); ``binary_fo``: Thm 4.5 (variables bound once);
  ``evaluators``: uniform evaluators for the registry; ``pumping``: Lemma C.1 as a check;
* ``examples``: Fig. 1's sensor stream and freezing pattern, Fig. 2's UCEA.
"""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "Formula": "ast",
    "parse": "parser",
    "format": "printer",
    "complex_events": "semantics",
    "evaluate": "semantics",
    "UCEA": "ucea",
    "compile_automaton": "compile",
    "compile_star_automaton": "compile",
    "strict_to_contiguity": "compile",
    "contiguity_to_strict": "contiguity",
    "ucea_to_socel_plus": "to_socel",
    "ucea_to_core_socel": "to_socel",
    "has_star_property": "star_property",
    "star_property_brute_force": "star_property",
    "to_core_socel": "corollaries",
    "unless_is_primitive": "corollaries",
    "StreamingEvaluator": "streaming",
    "evaluate_streaming": "streaming",
    "io_determinize_ucea": "streaming",
    "fo_to_socel": "unary_fo",
    "binary_fo_to_socel": "binary_fo",
    "socel_to_fo": "unary_fo",
    "load_automaton": "automaton_json",
    "save_automaton": "automaton_json",
    "check_pumpable": "pumping",
    "fig2_ucea": "examples",
    "sensor_stream": "examples",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
