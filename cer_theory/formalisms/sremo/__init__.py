"""SREMO and symbolic register transducers: seed 002 (Alevizos, Artikis, Paliouras, *Complex Event Recognition
with Symbolic Register Transducers*).

Faces, as module-level functions (ready for one registry record):

* :func:`parse` / :func:`format` / :func:`display`: the ASCII syntax (docs/sremo-syntax.md);
* :func:`match`, :func:`accepts`, :func:`streaming_matches`, :func:`evaluate`: the reference semantics
  (Defs. 17–18, 32, 39, 44–45);
* :func:`compile_automaton`: SREMO → SRT (Thm. 27); ``compile_automaton(e).run(stream)`` is Alg. 1's per-position output;
  :class:`SharedRecognizer` is Alg. 1 over runs grouped by state and registers (docs/decisions.md D58);
  :class:`Detector` / :func:`detect` say only where streaming matches end, one integer per group (D113–D115);
* :func:`eliminate_epsilon` (Lemma 29), :func:`unroll` (Lemma 46), :func:`determinize_sra` (Thm. 41),
  :func:`determinize_steps` (Alg. 7 one subset at a time), :func:`complement` (Cor. 43), and the closure constructions of :mod:`.closure` (Thms. 31, 34).
"""

from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.determinize import complement, counts, determinize_sra, determinize_steps
from cer_theory.formalisms.sremo.detect import Detector, detect
from cer_theory.formalisms.sremo.epsilon import eliminate_epsilon
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.printer import display, format
from cer_theory.formalisms.sremo.semantics import accepts, match, evaluate, streaming_matches
from cer_theory.formalisms.sremo.shared import SharedRecognizer, recognize_shared
from cer_theory.formalisms.sremo.srt import SRT, Recognizer, Transition, recognize
from cer_theory.formalisms.sremo.windowed import determinize_windowed, unroll

__all__ = ["parse", "format", "display", "match", "accepts", "streaming_matches", "evaluate", "compile_automaton",
           "SRT", "Transition", "Recognizer", "recognize", "SharedRecognizer", "recognize_shared", "Detector", "detect", "eliminate_epsilon", "unroll", "determinize_sra",
           "complement", "determinize_windowed", "determinize_steps", "counts"]
