"""Selection strategies: the one definition that CEL, CEQL, the selection automata and the engines share.

:class:`Strategy` holds the four strategies of seed 000 (*A Formal Framework for Complex Event Recognition*,
§7.1): STRICT, NXT, LAST and MAX. It lives in the kernel because the automata layer builds their automata
(Theorem 7.2, :mod:`cer_theory.automata.determinize.selection`) and must not import a formalism.
"""

from __future__ import annotations

import enum


class Strategy(enum.Enum):
    """Selection strategies of seed 000 §7.1."""

    STRICT = "STRICT"
    NXT = "NXT"
    LAST = "LAST"
    MAX = "MAX"


__all__ = ["Strategy"]
