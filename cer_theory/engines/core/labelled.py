"""Algorithm 1 with *letters* on the output nodes, for queries with aggregates (docs/decisions.md D77).

CORE's engine (the CORE paper §4) determinizes the CEA with its labels cut to "marks or not" and stores positions only:
a tECS path is ``(start, D)``. Aggregates need more of the match: for ``SUM(b.volume)`` the positions bound to
``b`` (the ACEL paper's ``Agg`` folds over the bag of ``b``), and ``b`` need not be among SELECT's variables. The
cheapest faithful addition is the CEL paper's own I/O-determinization (Prop. 5.5), which keeps the label set ``L`` as
the output letter, applied to the labels *abstracted* to what the output needs:

    letter(L) = (L ∩ SEL ≠ ∅,  L ∩ AGG)

where SEL is SELECT's variables (all for ``*``) and AGG the aggregated ones; ``(False, ∅)`` does not mark. A
det-state then has one •-successor per letter instead of one, and by I/O-determinism one start and one letter
sequence still give one run, so Algorithm 2 enumerates every distinct ``(start, letters)`` once, with
output-linear delay (Theorem 2 is unchanged: the tECS operations are the same).

The letter rides in the output node's position field, ``pos = j · width + code`` (code 1..K numbers the marking
letters), so the tECS itself is untouched and a plain query keeps its exact path and cost. Decoding a path is
linear in its length: :meth:`LabelledDeterminizer.decode`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cer_theory.automata.cea import CEA
from cer_theory.automata.determinize.bitmask import NO_MOVE, Determinizer
from cer_theory.automata.determinize.step import MoveTable, subset_moves
from cer_theory.core.errors import DEFAULT_BUDGET
from cer_theory.engines.core.evaluator import Evaluator

Letter = tuple[bool, frozenset]
"""``(in D, aggregated variables)`` of one marked position."""

_SILENT: Letter = (False, frozenset())


class LabelledDeterminizer(Determinizer):
    """CORE's lazy determinization (:class:`Determinizer`) keyed by letters instead of "marks or not": a
    successor pair is ``(((code, det-state), …), ∘-det-state)``, or ``NO_MOVE`` when nothing moves.

    ``select`` is SELECT's variable list (None for ``*``), ``aggregated`` the aggregated variables in the order
    :meth:`decode` returns their positions."""

    __slots__ = ("aggregated", "letters", "codes", "width", "_code")

    def __init__(self, cea: CEA, *, select: Iterable[str] | None, aggregated: Sequence[str],
                 budget: int | None = DEFAULT_BUDGET, cache_limit: int = 1 << 20) -> None:
        super().__init__(cea, budget=budget, cache_limit=cache_limit)
        keep = None if select is None else frozenset(select)
        self.aggregated: tuple[str, ...] = tuple(dict.fromkeys(aggregated))
        agg = frozenset(self.aggregated)

        def letter(labels: frozenset[str]) -> Letter:
            return (bool(labels) if keep is None else not labels.isdisjoint(keep)), labels & agg

        index = {q: i for i, q in enumerate(self.states)}
        plain = MoveTable.of(cea, name=index.__getitem__, label=letter)
        self._table = MoveTable(plain.out, plain.predicates, plain.labels,
                                {L: L != _SILENT for L in plain.labels})
        self.letters: list[Letter] = [_SILENT] + [L for L in plain.labels if L != _SILENT]
        self._code = {L: c for c, L in enumerate(self.letters)}
        self.width = len(self.letters)
        """Codes 0..width-1 (0: the silent letter, never stored): ``pos = j · width + code``."""
        order = {v: k for k, v in enumerate(self.aggregated)}
        self.codes: list[tuple[bool, tuple[int, ...]]] = [
            (d, tuple(sorted(order[v] for v in vs))) for d, vs in self.letters]
        """Per code: whether the position is in D, and the indices of the aggregated variables it binds."""

    construction = "lazy I/O-determinization with letters (CORE with aggregates)"

    def _pair(self, state: int, mask: int) -> tuple:  # type: ignore[override]
        moves = subset_moves(self._table, self.subsets[state], mask)
        code = self._code
        marks = tuple(sorted((code[L], self._intern(qs)) for L, qs in moves.by_label.items() if L != _SILENT))
        skip = self._intern(moves.skip)
        if not marks and skip < 0:
            return NO_MOVE
        return marks, skip

    def is_quiet(self, states: Iterable[int], mask: int) -> bool:
        """:meth:`Determinizer.is_quiet` for letter pairs: no run starts, every state stays put by ∘ only."""
        if self.successors(self.initial, mask) is not NO_MOVE:
            return False
        final = self.final
        return all(not final[p] and self.successors(p, mask) == ((), p) for p in states)  # type: ignore

    def decode(self, encoded: Sequence[int]) -> tuple[tuple[int, ...], list[list[int]]]:
        """A tECS path of encoded positions → (D, the positions of each aggregated variable), in stream order."""
        width, codes = self.width, self.codes
        data: list[int] = []
        bags: list[list[int]] = [[] for _ in self.aggregated]
        for p in encoded:
            j, c = divmod(p, width)
            in_data, variables = codes[c]
            if in_data:
                data.append(j)
            for v in variables:
                bags[v].append(j)
        return tuple(data), bags


class LabelledEvaluator(Evaluator):
    """Algorithm 1 over a :class:`LabelledDeterminizer`: the update of :meth:`Evaluator._update` with one
    ``extend(merge(ul), j·width + code)`` per letter of the •-moves (the order of T, the pruning and the
    statistics are Evaluator's; only what a successor pair does differs). Outputs are the raw CEs whose positions are
    encoded (:meth:`LabelledDeterminizer.decode`); LIMIT and HAVING are the engine's, after decoding."""

    det: LabelledDeterminizer

    def _update(self, j: int, mask: int, tau: int, key: float) -> None:
        """The CORE paper §4.3's update phase (see :meth:`Evaluator._update`), with several •-successors per state."""
        det, tecs = self.det, self.tecs
        row = det.rows.get(mask)
        if row is None:
            row = det.row(mask)
        step = det.step
        pos, mx, b = tecs.pos, tecs.mx, tecs.base
        new_bottom, extend, insert, merge = tecs.new_bottom, tecs.extend, tecs.insert, tecs.merge
        base_pos = j * det.width
        created0 = len(pos)
        table = self.table
        new: dict[int, list[int]] = {}
        get = new.get

        def put(q: int, n: int) -> None:
            ul2 = get(q)
            if ul2 is None:
                new[q] = [n]
            else:
                insert(ul2, n)

        init = self.initial
        pair = row.get(init)
        if pair is None:
            pair = step(row, mask, init)
        if pair is not NO_MOVE:
            marks, qs = pair
            bot = new_bottom(j)
            if self.window is not None and tau <= bot:
                self._bottoms.append((key, bot))
            for code, qm in marks:
                put(qm, extend(bot, base_pos + code))
            if qs >= 0:
                put(qs, bot)

        for p, ul in table.items():
            if tau:
                if mx[ul[0] - b] < tau:
                    continue  # expired for good: skip (and so delete) the state
                while mx[ul[-1] - b] < tau:
                    ul.pop()
            pair = row.get(p)
            if pair is None:
                pair = step(row, mask, p)
            if pair is NO_MOVE:
                continue
            marks, qs = pair
            n = -1
            if marks:
                n = ul[0] if len(ul) == 1 else merge(ul)
                for code, qm in marks:
                    put(qm, extend(n, base_pos + code))
            if qs >= 0:
                ul2 = get(qs)
                if ul2 is None:
                    new[qs] = ul
                else:
                    insert(ul2, n if n >= 0 else ul[0] if len(ul) == 1 else merge(ul))

        self.table = new
        self._count_update(created0, len(table), new)


__all__ = ["LabelledDeterminizer", "LabelledEvaluator", "Letter"]
