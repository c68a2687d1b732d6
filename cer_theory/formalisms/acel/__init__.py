"""ACEL and aggregation automata (the ACEL paper, *A formal query language and automata model for aggregation in complex
event recognition*). One module per face and construction:

* ``ast``, ``parser`` (+ ``acel.lark``), ``printer``: the syntax (docs/acel-syntax.md);
* ``events``: events with times, complex events with bags, their JSON form;
* ``semantics``: the event-based bag semantics of Fig. 1 and the ``Agg`` operator of §5 (bag and set ``AS``);
* ``acea``: aggregation automata (§6) and their run-based evaluator; ``acea_json``: their JSON file format;
* ``compile``: CEA → ACEA (Thm 6.1) and ACEL → ACEA (Thm 6.2);
* ``examples``: the witnesses W1 (doubling) and W2 (prefix sums); ``formalism``: the registry record.

Aggregate functions are the kernel's monoids (:mod:`cer_theory.core.aggregates`).
"""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "Formula": "ast",
    "parse": "parser",
    "format": "printer",
    "ComplexEvent": "events",
    "TimedEvent": "events",
    "complex_events": "semantics",
    "evaluate": "semantics",
    "ACEA": "acea",
    "compile_automaton": "compile",
    "cea_to_acea": "compile",
    "w1_doubling": "examples",
    "w2_prefix_sums": "examples",
    "load_acea": "acea_json",
    "save_acea": "acea_json",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
