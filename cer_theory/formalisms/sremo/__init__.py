"""SREMO and symbolic register transducers: seed 002 (Alevizos, Artikis, Paliouras, *Complex Event Recognition
with Symbolic Register Transducers*).

Faces: :mod:`.ast` (Def. 15 and derived forms), :mod:`.parser` / :mod:`.printer` (the ASCII syntax,
docs/sremo-syntax.md), :mod:`.semantics` (Defs. 17–18, 32, 39), :mod:`.selection` (Defs. 44–45).
"""

from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.printer import display, to_text
from cer_theory.formalisms.sremo.semantics import accepts, match, streaming_matches

__all__ = ["parse", "to_text", "display", "match", "accepts", "streaming_matches"]
