"""SQL row pattern recognition, ``MATCH_RECOGNIZE`` (ISO/IEC 9075-2:2016 §7.6; ISO/IEC TR 19075-5:2016), in the
fragment Apache Flink runs.

* :func:`parse` / :func:`format`: one ``MATCH_RECOGNIZE ( … )`` clause and back;
* :func:`evaluate`: the reference semantics by brute force (preferment as the least choice sequence, the skip
  rules, running and final semantics), outputs at each match's last row;
* :func:`compile_automaton`: the pattern's ordered NFA; ``compile_automaton(q).run(stream)`` finds each match as
  the first accepting path of a backtracking run.
"""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "Match": "semantics",
    "OrderedNFA": "compile",
    "SkipError": "semantics",
    "compile_automaton": "compile",
    "evaluate": "semantics",
    "format": "printer",
    "parse": "parser",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
