"""What every formula AST of the toolkit shares: its subformulas, a pre-order walk, its size, and the one limit
on how deeply a formula may nest.

Each formalism's ``Formula`` base class (CEL, SO-CEL, …) derives from :class:`FormulaTree`; its nodes are frozen
dataclasses whose subformulas are the fields holding another node.

The walks here are iterative, so they work at any depth. Much else is naturally recursive on a formula (the
semantics rule by rule, the compilations, a frozen dataclass's ``==`` and ``hash``, the printers), and Python's
call stack is bounded: so every parser rejects a formula nested deeper than :data:`MAX_NESTING` levels with a
:class:`~cer_theory.core.errors.FormulaTooDeep` (docs/robustness.md), and everything past the parser may
recurse freely (docs/decisions.md, D93).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import fields

MAX_NESTING = 100
"""How many nodes one root-to-leaf path of a parsed formula may hold (operators, FILTER conditions and their
terms included). A 100-way ``OR``, a 100-step sequence or 100 nested ``NXT(`` are accepted; one more is not. The
tests run formulas of exactly this depth through every evaluator of every formalism."""


class FormulaTree:
    """A formula node: a dataclass whose fields that hold a :class:`FormulaTree` are its subformulas."""

    __slots__ = ()

    def children(self) -> tuple[FormulaTree, ...]:
        return tuple(getattr(self, f.name) for f in fields(self)  # type: ignore[arg-type]
                     if isinstance(getattr(self, f.name), FormulaTree))

    def walk(self) -> Iterator[FormulaTree]:
        """This node and every subformula, pre-order (iterative: any depth)."""
        stack: list[FormulaTree] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children()))

    def size(self) -> int:
        return sum(1 for _ in self.walk())


def _parts(node: object) -> Iterator[object]:
    """The values below ``node`` that may hold further nodes: a dataclass's fields, a container's items, a lark
    parse tree's children (duck-typed: ``core`` does not depend on the parser generator here)."""
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in fields(node):
            yield getattr(node, f.name)
    elif isinstance(node, (tuple, list, frozenset, set)):
        yield from node
    elif isinstance(node, dict):
        yield from node.values()
    elif hasattr(node, "data") and isinstance(getattr(node, "children", None), list):
        yield from node.children  # type: ignore[attr-defined]


def _is_node(value: object) -> bool:
    return ((dataclasses.is_dataclass(value) and not isinstance(value, type))
            or (hasattr(value, "data") and isinstance(getattr(value, "children", None), list)))


def nesting_depth(root: object, *, stop_after: int | None = None) -> int:
    """The number of nodes on the longest root-to-leaf path below ``root`` (a formula, a predicate, a query, a
    parse tree: any nesting of dataclasses, containers and lark trees), computed without recursion. Containers
    (the tuple of an ``AND``'s arguments) add no level. With ``stop_after``, the walk stops as soon as it finds a
    path longer than that (the result is then ``stop_after + 1``)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(root, 1 if _is_node(root) else 0)]
    reached: dict[int, int] = {}  # node id -> the deepest level it was visited at (a shared subtree is walked
    #                               again only when reached by a longer path)
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if stop_after is not None and deepest > stop_after:
                return deepest
        if reached.get(id(node), -1) >= depth:
            continue
        reached[id(node)] = depth
        for part in _parts(node):
            if _is_node(part) or isinstance(part, (tuple, list, frozenset, set, dict)):
                stack.append((part, depth + 1 if _is_node(part) else depth))
    return deepest


__all__ = ["FormulaTree", "MAX_NESTING", "nesting_depth"]
