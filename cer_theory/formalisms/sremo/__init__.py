"""SREMO and symbolic register transducers: the SRT paper (Alevizos, Artikis, Paliouras, *Complex Event Recognition
with Symbolic Register Transducers*).

Faces, as module-level functions, each loaded from its module on first use (the record is ``formalism.py``):

* :func:`parse` / :func:`format` / :func:`display`: the ASCII syntax (docs/sremo-syntax.md);
* :func:`match`, :func:`accepts`, :func:`streaming_matches`, :func:`evaluate`: the reference semantics
  (Defs. 17–18, 32, 39, 44–45);
* :func:`compile_automaton`: SREMO → SRT (Thm. 27); ``compile_automaton(e).run(stream)`` is Alg. 1's per-position output;
  :class:`SharedRecognizer` is Alg. 1 over runs grouped by state and registers (docs/decisions.md D58);
  :class:`Detector` says only where streaming matches end, one integer per group (D113–D115);
* :func:`eliminate_epsilon` (Lemma 29), :func:`unroll` (Lemma 46), :func:`determinize_sra` (Thm. 41),
  :func:`determinize_steps` (Alg. 7 one subset at a time), :func:`complement` (Cor. 43), and the closure constructions of :mod:`.closure` (Thms. 31, 34).
"""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {
    "parse": "parser",
    "format": "printer",
    "display": "printer",
    "match": "semantics",
    "accepts": "semantics",
    "streaming_matches": "semantics",
    "evaluate": "semantics",
    "compile_automaton": "compile",
    "SRT": "srt",
    "Transition": "srt",
    "Recognizer": "srt",
    "recognize": "srt",
    "SharedRecognizer": "shared",
    "recognize_shared": "shared",
    "Detector": "detect",
    "eliminate_epsilon": "epsilon",
    "unroll": "windowed",
    "determinize_sra": "determinize",
    "determinize_steps": "determinize",
    "determinize_windowed": "windowed",
    "complement": "determinize",
    "counts": "determinize",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
