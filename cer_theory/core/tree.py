"""What every formula AST of the toolkit shares: its subformulas, a pre-order walk and its size.

Each formalism's ``Formula`` base class (CEL, SO-CEL, …) derives from :class:`FormulaTree`; its nodes are frozen
dataclasses whose subformulas are the fields holding another node.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields


class FormulaTree:
    """A formula node: a dataclass whose fields that hold a :class:`FormulaTree` are its subformulas."""

    __slots__ = ()

    def children(self) -> tuple[FormulaTree, ...]:
        return tuple(getattr(self, f.name) for f in fields(self)  # type: ignore[arg-type]
                     if isinstance(getattr(self, f.name), FormulaTree))

    def walk(self) -> Iterator[FormulaTree]:
        """This node and every subformula, pre-order."""
        yield self
        for c in self.children():
            yield from c.walk()

    def size(self) -> int:
        return sum(1 for _ in self.walk())


__all__ = ["FormulaTree"]
