"""Reachability in a directed graph given by its edges: which states some run can reach, or from which some run
can reach a final state. Automata of every formalism trim their drawings with it."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import TypeVar

N = TypeVar("N", bound=Hashable)


def reach(starts: Iterable[N], edges: Iterable[tuple[N, N]]) -> frozenset[N]:
    """The nodes reachable from ``starts`` along ``edges`` (``(source, target)`` pairs), ``starts`` included.
    Co-reachability is reachability along the reversed edges."""
    successors: dict[N, list[N]] = {}
    for source, target in edges:
        successors.setdefault(source, []).append(target)
    seen = set(starts)
    todo = list(seen)
    while todo:
        for n in successors.get(todo.pop(), ()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return frozenset(seen)


__all__ = ["reach"]
