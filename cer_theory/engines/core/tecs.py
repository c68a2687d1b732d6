"""The timed Enumerable Compact Set (tECS) of CORE: the CORE paper §4.1–4.3 and App. B.

A tECS is a DAG of three node kinds: *bottom* (a start position, no child), *output* (a position and one child
``next``) and *union* (two children ``left``/``right``). A full path from n to a bottom node b is the open CE
``(pos(b), {positions of the output nodes on the path})``. Every node stores its **max-start** ``max(n)``, the
largest start in ⟦n⟧, and the structure is kept **time-ordered** (``max(left) ≥ max(right)``) and
**3-bounded** (output-depth ≤ 3), which gives Theorem 2: ⟦n⟧^ε(j) is enumerated without duplicates and with
output-linear delay by :meth:`Tecs.enumerate` (Algorithm 2).

Representation (chosen by a micro-benchmark: creating 900k nodes takes 0.10 s as parallel lists of ints against
0.61 s as ``__slots__`` objects and 0.57 s as tuples, the latter two paying for the cyclic GC): node ids are
global, increasing integers and the node ``n`` lives at index ``n - base`` of four parallel lists

* ``pos``: the position of a bottom or output node (unused, -1, for union nodes);
* ``nxt``: ``next`` of an output node, ``left`` of a union node, -1 for a bottom node;
* ``rgt``: ``right`` of a union node, -1 for the other kinds (so ``rgt ≥ 0`` means "union");
* ``mx``: the **id of the bottom node** whose position is max(n). Bottom nodes are created in stream order, at
  most one per position, so comparing bottom ids is comparing max-starts. A window then becomes one integer
  threshold τ, the id of the oldest bottom still inside the window: n can still produce outputs iff
  ``mx[n] ≥ τ``, for event windows and time windows alike.

Memory (the CORE paper §4.4 and docs/decisions.md D26, CORE's GC without weak references): a node is never older than its
max-start, so every node with id < τ is expired for good; :meth:`Tecs.compact` drops that prefix of the arrays (a ring
buffer advanced by ``base``). Only *right* children can then dangle (a live node shares its max with its left/next
child), and a dangling id is < τ, so the window test ``right ≥ τ`` that enumeration performs anyway also guards it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from cer_theory.core import drawing
from cer_theory.core.drawing import Drawable
from cer_theory.core.errors import CerError
from cer_theory.core.events import CoreComplexEvent
from cer_theory.engines.enumeration import EnumerationStats

if TYPE_CHECKING:
    from cer_theory.core.drawing.dot import Diagram

NIL = -1

_new, _set_start, _set_end, _set_positions = (object.__new__, CoreComplexEvent.start.__set__,  # type: ignore
                                              CoreComplexEvent.end.__set__, CoreComplexEvent.positions.__set__)


def make_ce(start: int, end: int, positions: tuple[int, ...]) -> CoreComplexEvent:
    """``CoreComplexEvent(start, end, positions)`` without the frozen dataclass's checked ``__init__`` (2.7x
    faster; enumeration creates one per output). The fields are exactly those ``__init__`` would set."""
    ce = _new(CoreComplexEvent)
    _set_start(ce, start)
    _set_end(ce, end)
    _set_positions(ce, positions)
    return ce


UnionList = list
"""A union-list (the CORE paper §4.2): node ids ``n0, n1, …, nk``, n0 non-union, ``max(n0) ≥ max(n1) > … > max(nk)``."""


class TecsError(CerError, AssertionError):
    """A violated tECS invariant or operation precondition (raised in debug mode and by the checkers)."""


class Tecs(Drawable):
    """A tECS in parallel arrays with the O(1) operations of the CORE paper §4.2 (new_bottom, extend, union) and the
    union-list operations (new_ulist, insert, merge). ``debug=True`` checks every precondition."""

    __slots__ = ("pos", "nxt", "rgt", "mx", "base", "debug")

    def __init__(self, *, debug: bool = False) -> None:
        self.pos: list[int] = []
        self.nxt: list[int] = []
        self.rgt: list[int] = []
        self.mx: list[int] = []
        self.base = 0  # id of the node at index 0; the next node created gets id ``base + len(pos)``
        self.debug = debug

    @property
    def next_id(self) -> int:
        """The id the next node will get."""
        return self.base + len(self.pos)

    # ------------------------------------------------------------------ reading

    def __len__(self) -> int:
        """Live (stored) nodes."""
        return len(self.pos)

    def alive(self, n: int) -> bool:
        return self.base <= n < self.next_id

    def kind(self, n: int) -> str:
        i = self._index(n)
        return "union" if self.rgt[i] >= 0 else "bottom" if self.nxt[i] < 0 else "output"

    def max_start(self, n: int) -> int:
        """max(n) as a stream position."""
        return self.pos[self.mx[self._index(n)] - self.base]

    def max_id(self, n: int) -> int:
        """max(n) as the id of its bottom node (the comparable form used everywhere)."""
        return self.mx[self._index(n)]

    def position(self, n: int) -> int:
        return self.pos[self._index(n)]

    def next(self, n: int) -> int:
        """next(n) of an output node, left(n) of a union node."""
        return self.nxt[self._index(n)]

    left = next

    def right(self, n: int) -> int:
        return self.rgt[self._index(n)]

    def _index(self, n: int) -> int:
        if not self.base <= n < self.next_id:
            raise TecsError(f"node {n} is not stored (live ids are {self.base}..{self.next_id - 1})")
        return n - self.base

    # ------------------------------------------------------------------ node operations (O(1))

    def new_bottom(self, i: int) -> int:
        """``new_bottom(i)``: a bottom node with position i, max = itself. Positions must increase."""
        n = self.base + len(self.pos)
        self.pos.append(i)
        self.nxt.append(NIL)
        self.rgt.append(NIL)
        self.mx.append(n)
        return n

    def extend(self, n: int, j: int) -> int:
        """``extend(n, j)``: an output node with position j and next n; max = max(n)."""
        o = self.base + len(self.pos)
        self.pos.append(j)
        self.nxt.append(n)
        self.rgt.append(NIL)
        self.mx.append(self.mx[n - self.base])
        return o

    def _u(self, left: int, right: int) -> int:
        """A raw union node U(left, right); the caller guarantees max(left) ≥ max(right)."""
        u = self.base + len(self.pos)
        mx = self.mx
        lm = mx[left - self.base]
        if self.debug and right >= self.base and mx[right - self.base] > lm:
            raise TecsError(f"U({left}, {right}) is not time-ordered")
        self.pos.append(NIL)
        self.nxt.append(left)
        self.rgt.append(right)
        mx.append(lm)
        return u

    def union(self, n1: int, n2: int) -> int:
        """``union(n1, n2)`` for safe nodes with max(n1) = max(n2): Fig. 5 (a)–(d), at most 3 new nodes, the result
        safe, time-ordered and 3-bounded (the CORE paper §4.2, App. B)."""
        b, rgt, mx = self.base, self.rgt, self.mx
        if self.debug:
            if mx[n1 - b] != mx[n2 - b]:
                raise TecsError(f"union({n1}, {n2}) needs equal max-starts")
            for n in (n1, n2):
                if not self.is_safe(n):
                    raise TecsError(f"union({n1}, {n2}): node {n} is not safe")
        r1 = rgt[n1 - b]
        if r1 < 0:  # (a) n1 non-union
            return self._u(n1, n2)
        r2 = rgt[n2 - b]
        if r2 < 0:  # (b) n2 non-union
            return self._u(n2, n1)
        # (c/d) both safe unions: their left children are non-union with the common max. A right child below
        # ``base`` was dropped by compaction, hence expired: leaving it out keeps ⟦·⟧ inside every future window.
        l1, l2 = self.nxt[n1 - b], self.nxt[n2 - b]
        if r1 < b:
            return self._u(l1, n2 if r2 >= b else l2)
        if r2 < b:
            return self._u(l2, n1)
        r = self._u(r1, r2) if mx[r1 - b] >= mx[r2 - b] else self._u(r2, r1)
        return self._u(l1, self._u(l2, r))

    # ------------------------------------------------------------------ union-lists

    @staticmethod
    def new_ulist(n: int) -> UnionList:
        """``new_ulist(n)`` for a non-union node n."""
        return [n]

    def insert(self, ul: UnionList, n: int) -> None:
        """``insert(ul, n)`` for a safe n with max(n) ≤ max(n0): union with the entry of equal max if any (i > 0),
        else keep the order ``max(n0) ≥ max(n1) > max(n2) > …`` (the CORE paper §4.2). In place, O(|ul|)."""
        b, mx = self.base, self.mx
        m = mx[n - b]
        if self.debug and m > mx[ul[0] - b]:
            raise TecsError(f"insert: max-start of {n} exceeds the head's (B.3 invariant 1)")
        for k in range(1, len(ul)):
            mk = mx[ul[k] - b]
            if mk == m:
                ul[k] = self.union(ul[k], n)
                return
            if mk < m:
                ul.insert(k, n)
                return
        ul.append(n)

    def merge(self, ul: Sequence[int]) -> int:
        """``merge(ul) = U(n0, U(n1, … U(n_{k−1}, n_k)…))`` (Fig. 5e): k new union nodes, the result safe."""
        k = len(ul) - 1
        if k == 0:
            return ul[0]
        n = ul[k]
        for i in range(k - 1, -1, -1):
            n = self._u(ul[i], n)
        return n

    # ------------------------------------------------------------------ Algorithm 2

    def enumerate(self, n: int, end: int, tau: int = 0) -> Iterator[CoreComplexEvent]:
        """Algorithm 2 as a lazy generator: ⟦n⟧^ε(end) where τ is the id of the oldest bottom node inside the
        window (0: no window). Consume it before the tECS is compacted or cleared. :meth:`enumerate_into` is the
        same traversal, inlined for the evaluator's hot path (no generator frame per output)."""
        return self.enumerate_counted(n, end, tau, None)

    def enumerate_into(self, n: int, end: int, tau: int, out: list[CoreComplexEvent], limit: int = -1,
                       dfs: tuple[list[int], list[int]] | None = None) -> int:
        """Algorithm 2 appending ⟦n⟧^ε(end) to ``out`` in its order; stops after ``limit`` outputs if ≥ 0.
        Returns the number of outputs.

        A left-first DFS with an explicit stack that pushes a right child only if its max is ≥ τ, so each pop
        descends straight to an output (output-linear delay, Theorem 2). The current path is one shared list of
        positions truncated on backtrack, so a push is O(1) and no work is repeated.

        ``dfs``: the traversal's ``(stack, path)`` — ``([n, 0], [])`` to start — given again to resume it after a
        stop at ``limit``; its stack is empty once every output is out. A position's outputs
        are handed over in pieces that way, in bounded memory (:class:`~cer_theory.engines.core.evaluator.Outputs`).
        """
        b, pos, nxt, rgt, mx = self.base, self.pos, self.nxt, self.rgt, self.mx
        if mx[n - b] < tau or limit == 0:
            return 0
        emit = out.append
        new, set_start, set_end, set_positions = _new, _set_start, _set_end, _set_positions
        count = 0
        stack, path = ([n, 0], []) if dfs is None else dfs
        pop, push, add = stack.pop, stack.append, path.append
        while stack:
            plen = pop()
            m = pop()
            del path[plen:]
            while True:
                i = m - b
                r = rgt[i]
                if r >= 0:
                    if r >= tau and mx[r - b] >= tau:  # r < τ: expired, and maybe dropped by compaction
                        push(r)
                        push(len(path))
                    m = nxt[i]
                    continue
                m = nxt[i]
                if m < 0:
                    ce = new(CoreComplexEvent)  # make_ce, inlined
                    set_start(ce, pos[i])
                    set_end(ce, end)
                    set_positions(ce, tuple(reversed(path)))
                    emit(ce)
                    count += 1
                    if count == limit:
                        return count
                    break
                add(pos[i])
        return count

    def enumerate_counted(self, n: int, end: int, tau: int,
                          stats: EnumerationStats | None) -> Iterator[CoreComplexEvent]:
        """Algorithm 2 lazily, counting node visits into ``stats`` when given (the CORE paper Theorem 2 and
        Lemma 2, App. B.1, are checked by counting, never by timing)."""
        b, pos, nxt, rgt, mx = self.base, self.pos, self.nxt, self.rgt, self.mx
        if stats is not None:
            stats.enumerations += 1
        if mx[n - b] < tau:
            return
        stack: list[tuple[int, int]] = [(n, 0)]
        path: list[int] = []
        since = 0
        while stack:
            m, plen = stack.pop()
            del path[plen:]
            while True:
                since += 1
                i = m - b
                r = rgt[i]
                if r >= 0:
                    if r >= tau and mx[r - b] >= tau:  # r < τ: expired, and maybe dropped by compaction
                        stack.append((r, len(path)))
                    m = nxt[i]
                    continue
                m = nxt[i]
                if m < 0:
                    if stats is not None:
                        stats.output(since, len(path))
                    since = 0
                    yield make_ce(pos[i], end, tuple(reversed(path)))
                    break
                path.append(pos[i])
        if stats is not None:
            stats.finish(since)

    # ------------------------------------------------------------------ memory

    def compact(self, boundary: int) -> int:
        """Drop every node with id < ``boundary`` (the caller guarantees they are expired: boundary ≤ τ).
        Returns the number of nodes dropped; amortized O(1) per node when called with large enough prefixes."""
        k = min(boundary, self.next_id) - self.base
        if k <= 0:
            return 0
        del self.pos[:k], self.nxt[:k], self.rgt[:k], self.mx[:k]
        self.base += k
        return k

    def clear(self) -> None:
        """Drop every node (CONSUME BY: forget everything read so far); ids keep increasing."""
        self.compact(self.next_id)

    # ------------------------------------------------------------------ invariants and definitions (tests, debug)

    def odepth(self, n: int) -> int:
        """Output-depth: 0 for a non-union node, 1 + odepth(left) for a union node."""
        d = 0
        b = self.base
        while n >= b and self.rgt[n - b] >= 0:  # a dropped (expired) left child counts as depth 0
            d += 1
            n = self.nxt[n - b]
        return d

    def is_safe(self, n: int) -> bool:
        """Non-union, or a union with odepth 1 whose right child has odepth ≤ 2 (the CORE paper §4.2)."""
        r = self.rgt[n - self.base]
        if r < 0:
            return True
        return self.odepth(n) == 1 and (r < self.base or self.odepth(r) <= 2)

    def check_nodes(self, k: int = 3) -> None:
        """Every stored node is time-ordered, k-bounded and has a correct max (children before parents)."""
        b = self.base
        for idx in range(len(self.pos)):
            n = idx + b
            left, r = self.nxt[idx], self.rgt[idx]
            if 0 <= left < b:
                continue  # an expired node whose children were dropped: unreachable by enumeration
            if r >= 0:
                if self.mx[idx] != self.mx[left - b]:
                    raise TecsError(f"union {n}: max differs from its left child's")
                if r >= b and self.mx[r - b] > self.mx[idx]:
                    raise TecsError(f"union {n} is not time-ordered: max(right) > max(left)")
                if self.odepth(n) > k:
                    raise TecsError(f"union {n} has odepth {self.odepth(n)} > {k}")
            elif left >= 0:
                if self.mx[idx] != self.mx[left - b]:
                    raise TecsError(f"output {n}: max differs from next's")
            elif self.mx[idx] != n:
                raise TecsError(f"bottom {n}: max must be the node itself")

    def check_ulist(self, ul: Sequence[int]) -> None:
        """Union-list shape: n0 non-union, ``max(n0) ≥ max(n1) > max(n2) > …``, every entry safe."""
        b, mx = self.base, self.mx
        if not ul:
            raise TecsError("empty union-list")
        if self.rgt[ul[0] - b] >= 0:
            raise TecsError(f"union-list head {ul[0]} is a union node")
        for k, n in enumerate(ul):
            if not self.is_safe(n):
                raise TecsError(f"union-list entry {n} is not safe")
            if k >= 1 and mx[n - b] > mx[ul[0] - b]:
                raise TecsError("union-list: an entry's max exceeds the head's")
            if k >= 2 and mx[n - b] >= mx[ul[k - 1] - b]:
                raise TecsError("union-list: maxima after n1 must strictly decrease")

    def diagram(self, *, title: str | None = None, roots: Mapping[str, Sequence[int]] | None = None) -> Diagram:
        """The stored DAG as the CORE paper Fig. 5 draws it: a bottom node ``⊥i`` (a box, start i), an output node
        its position (a circle) with its ``next`` edge, a union node ``∪`` with ``left`` solid and ``right``
        dashed; each node's max-start under it. ``roots`` (Algorithm 1's table T) point at their union-lists'
        entries in order (gray). Node ``n`` has the DOT id ``t<n>``; expired nodes are not drawn."""
        nodes, edges = [], []
        for n in range(self.base, self.next_id):
            kind, ms = self.kind(n), self.max_start(n)
            if kind == "bottom":
                nodes.append(drawing.Node(f"t{n}", f"⊥{self.position(n)}", {"shape": "box"}))
            elif kind == "output":
                # the max-start inside the node, on a second line: as an external label Graphviz places it after
                # the edges are routed, over them
                nodes.append(drawing.Node(f"t{n}", f"{self.position(n)}\nmax {ms}"))
                if self.alive(self.next(n)):
                    edges.append(drawing.Edge(f"t{n}", f"t{self.next(n)}"))
            else:
                nodes.append(drawing.Node(f"t{n}", f"∪\nmax {ms}"))
                for child, style in ((self.left(n), "solid"), (self.right(n), "dashed")):
                    if self.alive(child):
                        edges.append(drawing.Edge(f"t{n}", f"t{child}", attrs={"style": style}))
        for k, (name, entries) in enumerate((roots or {}).items()):
            nodes.append(drawing.Node(f"T{k}", name, {"shape": "plaintext"}))
            edges += [drawing.Edge(f"T{k}", f"t{n}", str(i) if len(entries) > 1 else None, {"color": "gray"})
                      for i, n in enumerate(entries) if self.alive(n)]
        return drawing.Diagram(title or "tECS", tuple(nodes), tuple(edges), title=title, rankdir="RL",
                               node_style={"shape": "circle", **drawing.NODE_FONT}, edge_style=dict(drawing.LABEL_FONT))

    def describe(self, n: int) -> str:
        """``B3(3)``, ``O4(1)``, ``U(1)``: kind, position and max-start (the trace notation of the CORE paper Fig. 6)."""
        kind = self.kind(n)
        ms = self.max_start(n)
        if kind == "union":
            return f"U({ms})"
        return f"{'B' if kind == 'bottom' else 'O'}{self.position(n)}({ms})"


__all__ = ["NIL", "Tecs", "TecsError", "UnionList", "make_ce"]
