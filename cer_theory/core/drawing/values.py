"""How values are written in drawings and descriptions, as the papers write them: sets as ``{0, 1}`` and ``∅``,
tuples as ``(p, q)``, infinities as ``∞``.

Apart from :mod:`~cer_theory.core.drawing.dot` because every automaton writes its states with it when it is built
(its states are a :class:`Subset`), and a run that draws nothing should not load the DOT writer (D460).
"""

from __future__ import annotations

import re


def shown(value: object) -> str:
    """How a value is written in a drawing, as the papers write it: a set as ``{0, 1}`` (sorted, ``∅`` when
    empty), a tuple as ``(p, q)``, infinities as ``∞``/``−∞``, everything else by ``str`` — never a Python repr
    such as ``frozenset({0})`` or ``-1e999``."""
    if isinstance(value, (set, frozenset)):
        if not value:
            return "∅"
        return "{" + ", ".join(sorted((shown(v) for v in value), key=_natural)) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(shown(v) for v in value) + ")"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "∞" if value > 0 else "−∞"
    return str(value)


class Subset(frozenset):
    """A frozenset that prints as the papers write sets (:func:`shown`: ``{0, 1}``, ``∅``), for sets a person
    reads as values: the states of a subset construction, the label set of a letter. It equals and hashes as
    the frozenset of its elements; set operations on it give plain frozensets."""

    __slots__ = ()

    def __repr__(self) -> str:
        return shown(self)

    __str__ = __repr__


def _natural(text: str) -> tuple:
    """Sort key putting ``2`` before ``10``."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text))


__all__ = ["Subset", "shown"]
