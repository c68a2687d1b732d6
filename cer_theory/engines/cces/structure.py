"""The Compact Complex Event Set (CCES) of the CEL paper, §9.2, and its enumeration, Algorithm 1.

:class:`Cces` is ``D = (N, ⊥, event, first, last, next)`` with the O(1) operations ``init``/``extend``/``append``
and :meth:`Cces.enumerate` — Algorithm 1, iterative, output-linear delay. Instrumented by counting, never
timing: :class:`EnumerationStats` (nodes visited per enumeration and per output). Algorithm 2, which builds a
CCES while reading a stream, is :mod:`cer_theory.engines.cces.evaluator`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from cer_theory.core.drawing import LABEL_FONT, NODE_FONT, Diagram, Drawable, Edge, Node as DrawnNode
from cer_theory.core.errors import CerError
from cer_theory.core.events import ComplexEvent
from cer_theory.core.wording import plural
from cer_theory.engines.enumeration import EnumerationStats

Value = TypeVar("Value")

Node = int
BOTTOM: Node = 0
"""⊥: the only sink of G_D; ``CE(⊥) = {∅}``."""
_UNDEFINED = -1


class CcesError(CerError, ValueError):
    """A CCES operation whose precondition fails (the CEL paper §9.2: extend, append) or an invalid CCES."""


class Cces(Drawable):
    """A Compact Complex Event Set ``D = (N, ⊥, event, first, last, next)`` (the CEL paper §9.2).

    Nodes are integers, ⊥ is 0; the maps are arrays, so every operation is O(1). ``debug=True`` checks the
    O(|list|) preconditions of :meth:`extend` and :meth:`append` (reachability, positions decrease, next stays
    acyclic); the O(1) precondition of :meth:`append` (``next(n1)`` undefined) is always checked.
    """

    __slots__ = ("_event", "_first", "_last", "_next", "debug", "visits")

    def __init__(self, *, debug: bool = False) -> None:
        self._event: list[int] = [-1]
        self._first: list[Node] = [_UNDEFINED]
        self._last: list[Node] = [_UNDEFINED]
        self._next: list[Node] = [_UNDEFINED]
        self.debug = debug
        self.visits = 0  # nodes visited by every enumeration so far

    # ------------------------------------------------------------------ operations (all O(1))

    @classmethod
    def init(cls, *, debug: bool = False) -> tuple[Cces, Node]:
        """``init() → (D, ⊥)``."""
        return cls(debug=debug), BOTTOM

    @property
    def bottom(self) -> Node:
        return BOTTOM

    def __len__(self) -> int:
        """|N|, ⊥ included."""
        return len(self._event)

    def extend(self, i: int, n1: Node, n2: Node) -> Node:
        """A fresh node n with ``event(n) = i``, ``first(n) = n1``, ``last(n) = n2``, next undefined.
        Requires n1 to reach n2 via next (and, for property 4, i above every child's position)."""
        self._check_node(n1)
        self._check_node(n2)
        if self.debug:
            children = self._list(n1, n2)
            low = [c for c in children if c != BOTTOM and self._event[c] >= i]
            if low:
                raise CcesError(f"extend({i}, {n1}, {n2}): child {low[0]} has position {self._event[low[0]]} ≥ {i}")
        self._event.append(i)
        self._first.append(n1)
        self._last.append(n2)
        self._next.append(_UNDEFINED)
        return len(self._event) - 1

    def append(self, n1: Node, n2: Node) -> None:
        """``next(n1) := n2``; requires ``next(n1)`` undefined (and, in debug mode, that n2 not reach n1)."""
        self._check_node(n1)
        self._check_node(n2)
        if self._next[n1] != _UNDEFINED:
            raise CcesError(f"append({n1}, {n2}): next({n1}) is already {self._next[n1]}")
        if self.debug and self.reaches(n2, n1):
            raise CcesError(f"append({n1}, {n2}): {n2} reaches {n1}, next would become cyclic")
        self._next[n1] = n2

    def _check_node(self, n: Node) -> None:
        if not 0 <= n < len(self._event):
            raise CcesError(f"{n} is not a node of this CCES")

    # ------------------------------------------------------------------ reading

    def event(self, n: Node) -> int:
        return self._event[n]

    def first(self, n: Node) -> Node:
        return self._first[n]

    def last(self, n: Node) -> Node:
        return self._last[n]

    def next(self, n: Node) -> Node | None:
        nxt = self._next[n]
        return None if nxt == _UNDEFINED else nxt

    def reaches(self, n1: Node, n2: Node) -> bool:
        """Whether n1 reaches n2 in Next_D (n1 = n2 included). O(length of the chain)."""
        seen: set[Node] = set()
        n = n1
        while n != n2:
            if n == _UNDEFINED or n in seen:
                return False
            seen.add(n)
            n = self._next[n]
        return True

    def _list(self, n1: Node, n2: Node) -> list[Node]:
        """``list(n1, n2)``: follow next from n1 to n2 (both included)."""
        out = [n1]
        n = n1
        while n != n2:
            n = self._next[n]
            if n == _UNDEFINED or len(out) > len(self._event):
                raise CcesError(f"{n1} does not reach {n2} via next")
            out.append(n)
        return out

    def chain(self, n1: Node, n2: Node) -> list[Node]:
        """``list(n1, n2)`` of the paper."""
        return self._list(n1, n2)

    def children(self, n: Node) -> list[Node]:
        """``list(first(n), last(n))``; ⊥ has none."""
        return [] if n == BOTTOM else self._list(self._first[n], self._last[n])

    def nodes(self) -> range:
        return range(len(self._event))

    # ------------------------------------------------------------------ CE sets by definition (test oracle)

    def _fold(self, roots: Iterable[Node], bottom: Value,
              combine: Callable[[Node, list[Value]], Value]) -> dict[Node, Value]:
        """Values bottom-up over G_D from ⊥ (``bottom``) to ``roots``, in post-order without recursion: G_D paths
        can be as long as the stream."""
        memo: dict[Node, Value] = {BOTTOM: bottom}
        stack = list(roots)
        while stack:
            m = stack[-1]
            if m in memo:
                stack.pop()
                continue
            pending = [c for c in self.children(m) if c not in memo]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            memo[m] = combine(m, [memo[c] for c in self.children(m)])
        return memo

    def ce(self, n: Node) -> frozenset[ComplexEvent]:
        """``CE(n)``: the CEs of all paths from n to ⊥ in G_D, computed from the definition (not Algorithm 1)."""
        def extend(m: Node, below: list[frozenset[ComplexEvent]]) -> frozenset[ComplexEvent]:
            return frozenset(ComplexEvent(c | {self._event[m]}) for ces in below for c in ces)

        return self._fold([n], frozenset({ComplexEvent()}), extend)[n]

    def ce_range(self, n1: Node, n2: Node) -> frozenset[ComplexEvent]:
        """``CE(n1, n2) = ⋃_{n ∈ list(n1,n2)} CE(n)``."""
        return frozenset().union(*(self.ce(n) for n in self._list(n1, n2)))

    def path_count(self, n1: Node, n2: Node) -> int:
        """The number of paths to ⊥ starting in ``list(n1, n2)``; property 5 says it equals ``|CE(n1,n2)|``."""
        heads = list(self._list(n1, n2))
        counts = self._fold(heads, 1, lambda _m, below: sum(below))
        return sum(counts[n] for n in heads)

    def check_valid(self) -> None:
        """Validity conditions 1–4 of the CEL paper §9.2 (5 is per pair: compare :meth:`path_count` with
        :meth:`ce_range`). Raises :class:`CcesError` naming the violated condition."""
        # 1. Next_D is acyclic: every node has out-degree ≤ 1, so walk each chain with colours.
        done: set[Node] = set()
        for start in self.nodes():
            path: list[Node] = []
            on_path: set[Node] = set()
            n = start
            while n != _UNDEFINED and n not in done:
                if n in on_path:
                    raise CcesError(f"condition 1: next is cyclic through {n}")
                on_path.add(n)
                path.append(n)
                n = self._next[n]
            done.update(path)
        for n in self.nodes():
            if n == BOTTOM:
                continue
            # 2. first(n) reaches last(n).
            if not self.reaches(self._first[n], self._last[n]):
                raise CcesError(f"condition 2: first({n}) does not reach last({n})")
            # 4. positions strictly decrease towards children (this also makes G_D acyclic: condition 3).
            for c in self.children(n):
                if c != BOTTOM and self._event[c] >= self._event[n]:
                    raise CcesError(f"condition 4: child {c} of {n} has position {self._event[c]} ≥ "
                                    f"{self._event[n]}")
        # 3. ⊥ is the only sink: every other node has a non-empty children list by condition 2.

    # ------------------------------------------------------------------ Algorithm 1

    def enumerate(self, n1: Node, n2: Node, stats: EnumerationStats | None = None) -> Iterator[ComplexEvent]:
        """Algorithm 1 (the CEL paper §9.2): yield every C' ∈ CE(n1, n2), each once if the CCES is valid.

        The recursion ``ENUMERATE(first(n1), last(n1), C ∪ {event(n1)})`` then ``ENUMERATE(next(n1), n2, C)``
        runs on an explicit stack (the next chains grow with the stream). C is a shared cons list, so
        a frame costs O(1) and no backtracking work is ever done. Output-linear delay, by counting: every pop of
        a node ≠ ⊥ pushes its first child on top, so the pops after an output form one descent that adds one
        position per pop to the next output C and ends at ⊥; hence at most ``|C| + 1`` visits per output, and
        none after the last one (every pushed frame yields at least one output, as ⊥ is the only sink).
        """
        ev, first, last, nxt = self._event, self._first, self._last, self._next
        if stats is not None:
            stats.enumerations += 1
        stack: list[tuple[Node, Node, Any]] = [(n1, n2, None)]
        since = 0
        while stack:
            n, end, c = stack.pop()
            since += 1
            self.visits += 1
            if n != end:
                sibling = nxt[n]
                if sibling == _UNDEFINED:
                    raise CcesError(f"enumerate: the list ends at {n} before reaching {end}")
                stack.append((sibling, end, c))
            if n == BOTTOM:
                positions = []
                while c is not None:
                    positions.append(c[0])
                    c = c[1]
                if stats is not None:
                    stats.visits += since
                    stats.outputs += 1
                    stats.max_excess = max(stats.max_excess, since - len(positions))
                    if stats.delays is not None:
                        stats.delays.append((since, len(positions)))
                since = 0
                yield ComplexEvent(positions)
            else:
                stack.append((first[n], last[n], (ev[n], c)))
        if stats is not None:
            stats.visits += since
            stats.tail = max(stats.tail, since)

    # ------------------------------------------------------------------ drawing and text

    def diagram(self, *, title: str | None = None, roots: Mapping[str, tuple[Node, Node]] | None = None,
                rankdir: str = "RL") -> Diagram:
        """G_D drawn: one box per node labelled by its position (⊥ for ⊥), ``first`` edges solid, ``last``
        edges dashed, ``next`` edges dotted blue; ``roots`` (e.g. Algorithm 2's table) point at their lists."""
        counts: dict[int, int] = {}
        for n in self.nodes():
            counts[self._event[n]] = counts.get(self._event[n], 0) + 1
        nodes = [DrawnNode("n0", "⊥", {"shape": "plaintext"})]
        nodes += [DrawnNode(f"n{n}", str(self._event[n]) if counts[self._event[n]] == 1
                            else f"{self._event[n]} (#{n})") for n in self.nodes() if n != BOTTOM]
        edges = []
        for n in self.nodes():
            if n != BOTTOM:
                if self._first[n] == self._last[n]:
                    edges.append(Edge(f"n{n}", f"n{self._first[n]}", "first/last"))
                else:
                    edges.append(Edge(f"n{n}", f"n{self._first[n]}", "first"))
                    edges.append(Edge(f"n{n}", f"n{self._last[n]}", "last", {"style": "dashed"}))
            if self._next[n] != _UNDEFINED:
                edges.append(Edge(f"n{n}", f"n{self._next[n]}", "next",
                                  {"style": "dotted", "color": "blue", "constraint": "false"}))
        for k, (name, (m1, m2)) in enumerate((roots or {}).items()):
            nodes.append(DrawnNode(f"r{k}", name, {"shape": "plaintext"}))
            edges.append(Edge(f"r{k}", f"n{m1}", attrs={"color": "gray"}))
            if m2 != m1:
                edges.append(Edge(f"r{k}", f"n{m2}", attrs={"color": "gray", "style": "dashed"}))
        return Diagram(title or "CCES", tuple(nodes), tuple(edges), title=title, rankdir=rankdir,
                       node_style={"shape": "box", "style": "rounded", **NODE_FONT}, edge_style=dict(LABEL_FONT))

    def node_name(self, n: Node) -> str:
        """``⊥`` or the node's position, as in the paper's figures."""
        return "⊥" if n == BOTTOM else str(self._event[n])

    def describe(self) -> str:
        """One line per node: its position, its children list ``first..last`` and its ``next``."""
        def ref(n: Node) -> str:
            return "-" if n == _UNDEFINED else "⊥" if n == BOTTOM else f"#{n}"

        lines = [repr(self)]
        lines += [f"  #{n}: position {self._event[n]}, children {ref(self._first[n])}..{ref(self._last[n])}, "
                  f"next {ref(self._next[n])}" for n in self.nodes() if n != BOTTOM]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Cces({plural(len(self) - 1, 'node')} + ⊥)"


__all__ = ["BOTTOM", "Cces", "CcesError", "Node"]
