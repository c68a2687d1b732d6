"""Equivalence and containment of complex event automata, with a shortest distinguishing word.

*A Formal Framework for Complex Event Recognition* (the CEL paper) makes this decidable without being a theorem of
it: by Def. 5.2 a run over ``t0 … tn`` annotates every position k with a label set ``L_k``, and its valuation
``μ(A) = {k | A ∈ L_k}`` is in one-to-one correspondence with the word ``(t0,L0)…(tn,Ln)``. So
``μ ∈ ⟦A⟧ᵛ_n(S)`` iff the CEA, read as an NFA over letters (type, label set), accepts that word, and
``⟦A⟧ᵛ = ⟦B⟧ᵛ`` is NFA equivalence over a finite alphabet once the tuples are replaced by the *types*
(Z3-pruned minterms, Def. 5.6) of the predicates of both automata: two tuples of the same type are read alike
by both. At the complex-event level (``⟦A⟧_n(S) = {sup μ}``) a letter keeps only whether the position is marked
(``L ≠ ∅``), the projection used by the *-property decider (docs/decisions.md D14, D107).

:func:`compare` determinizes both automata on the fly with the one subset step of Prop. 5.5
(:func:`~cer_theory.automata.determinize.step.subset_moves`) and searches the product of the two subset
automata breadth first: the first letter after which exactly one side accepts ends a **shortest** distinguishing
word. Worst case exponential (NFA equivalence is PSPACE-complete); the product and the minterms are budgeted.
"""

from __future__ import annotations

from collections import deque
import json
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from cer_theory.automata.cea import CEA
from cer_theory.automata.determinize.step import MoveTable, subset_moves
from cer_theory.core.budget import charge
from cer_theory.core.drawing import Diagram, shown, state_diagram
from cer_theory.core.errors import DEFAULT_BUDGET, AutomatonError, SizeBudgetExceeded, UnsupportedError
from cer_theory.core.events import ComplexEvent, Event, Stream, Valuation
from cer_theory.core.predicates.ast import Predicate
from cer_theory.core.predicates.solver import Minterm, minterms, witness

LevelName = Literal["valuations", "complex_events"]
LEVELS: tuple[LevelName, ...] = ("valuations", "complex_events")

Label = Hashable
"""A letter's second component: a label set (valuations) or whether the position is marked (complex events)."""
Pair = tuple[frozenset, frozenset]
"""A state of the product: one subset of states of each automaton (Prop. 5.5)."""


@dataclass(frozen=True)
class ProductProof:
    """No word tells the automata apart (or, for containment, the left one accepts nothing the right one
    rejects): every reachable pair of subsets was explored and agreed. ``explored`` is the product's size,
    ``alphabet`` the number of letters (types × labels) tried from each pair."""

    level: LevelName
    contained: bool
    explored: int
    alphabet: int
    types: int
    pairs: frozenset = frozenset()
    """The explored product: the reachable pairs of subsets (without the dead pair (∅, ∅))."""
    domain: Predicate | None = None
    """The events the streams were made of (:func:`compare`'s ``domain``), None for all."""


@dataclass(frozen=True)
class DistinguishingWord:
    """A shortest word accepted by exactly one automaton (by the left one, for containment).

    ``types[k]`` is the type (minterm) of position k, ``labels[k]`` its label set (or marked flag);
    ``path`` the pairs of subsets visited, ``len(path) = len(types) + 1``; ``left``/``right`` whether each side
    accepts the whole word. :meth:`stream` makes the types concrete with Z3 witnesses.
    """

    level: LevelName
    types: tuple[Predicate, ...]
    labels: tuple[Label, ...]
    path: tuple[Pair, ...]
    left: bool
    right: bool
    explored: int

    @property
    def position(self) -> int:
        """The position n at which the outputs differ (0-based: the last letter)."""
        return len(self.types) - 1

    def stream(self) -> Stream:
        """One concrete event per position: a Z3 witness of its type, so both automata read it as the type,
        with every attribute the type does not need left out (readable counterexamples)."""
        return Stream(_simplest(witness(p), p) for p in self.types)

    def output(self) -> Valuation | ComplexEvent:
        """The output that one side has at :attr:`position` and the other has not: the valuation
        ``μ(A) = {k | A ∈ L_k}`` (the CEL paper Def. 5.2) or the complex event of the marked positions."""
        if self.level == "valuations":
            grouped: dict[str, set[int]] = {}
            for k, labels in enumerate(self.labels):
                for var in labels:  # type: ignore[attr-defined]
                    grouped.setdefault(var, set()).add(k)
            return Valuation(grouped)
        return ComplexEvent(k for k, marked in enumerate(self.labels) if marked)

    def letter(self, k: int) -> str:
        """Letter k as the drawings write it: its type and its label set (``∅`` unmarked), or ``•``/``∘``
        (marked or not) at the level of complex events."""
        lab = self.labels[k]
        if self.level == "valuations":
            marks = "{" + ",".join(sorted(lab)) + "}" if lab else "∅"  # type: ignore[arg-type]
        else:
            marks = "•" if lab else "∘"
        return f"{self.types[k].label()} / {marks}"

    def __repr__(self) -> str:
        letters = ", ".join(self.letter(k) for k in range(len(self.types)))
        path = " → ".join(shown(pair) for pair in self.path)
        return (f"DistinguishingWord({self.level}: {letters}; left {'accepts' if self.left else 'rejects'}, right "
                f"{'accepts' if self.right else 'rejects'}; subsets {path})")

    def diagram(self, left_name: str = "A", right_name: str = "B") -> Diagram:
        """The product path that distinguishes the automata: pairs of subsets joined by the letters read; the
        last pair is drawn final (doubled) whichever side accepts there."""
        states = {k: f"{left_name}: {shown(a)}\n{right_name}: {shown(b)}" for k, (a, b) in enumerate(self.path)}
        edges = [(k, k + 1, self.letter(k)) for k in range(len(self.types))]
        who = left_name if self.left else right_name
        return state_diagram(name="product", states=states, initial=[0], final={len(self.path) - 1},
                             edges=edges, title=f"shortest distinguishing word: only {who} accepts at the end")


Comparison = ProductProof | DistinguishingWord


def _simplest(event: Event, type_: Predicate) -> Event:
    """``event`` without the attributes whose absence keeps it inside ``type_`` (an absent attribute makes
    every comparison on it false, so a witness often carries values that only fill a slot)."""
    attrs = dict(event.attributes)
    for name in sorted(attrs):
        fewer = {k: v for k, v in attrs.items() if k != name}
        if type_(Event(event.type, fewer)):
            attrs = fewer
    return Event(event.type, attrs)


def _table(cea: CEA, level: LevelName) -> MoveTable:
    if level == "valuations":
        return MoveTable.of(cea)
    return MoveTable.of(cea, label=lambda labels: bool(labels))


def _key(minterm: Minterm, index: Sequence[int]) -> int:
    """The key of ``minterm`` (over the union of both automata's predicates) for one automaton whose k-th
    predicate is the ``index[k]``-th of the union: the bits of its predicates that the type lies inside."""
    return sum(1 << k for k, i in enumerate(index) if minterm.signs[i])


def _letters(ta: MoveTable, tb: MoveTable, domain: Predicate | None,
             minterm_budget: int | None) -> tuple[list[Minterm], list[tuple[int, int]]]:
    """The types of the predicates of both tables, each with its key for either side; with a ``domain``, only the
    types inside it (the domain is one more predicate of the union, and its negative types are dropped)."""
    union = tuple(dict.fromkeys(ta.predicates + tb.predicates + ((domain,) if domain is not None else ())))
    where = {p: i for i, p in enumerate(union)}
    types = minterms(union, budget=minterm_budget)
    if domain is not None:
        types = [m for m in types if m.signs[where[domain]]]
    ia, ib = [where[p] for p in ta.predicates], [where[p] for p in tb.predicates]
    return types, [(_key(m, ia), _key(m, ib)) for m in types]


def compare(left: CEA, right: CEA, *, level: LevelName = "valuations", contained: bool = False,
            budget: int | None = DEFAULT_BUDGET, minterm_budget: int | None = 4096,
            domain: Predicate | None = None) -> Comparison:
    """Decide ``⟦left⟧ = ⟦right⟧`` (or ``⟦left⟧ ⊆ ⟦right⟧`` with ``contained=True``) at ``level``, for all
    streams S and positions n, where ``⟦A⟧`` is Def. 5.2's output (valuations, or their supports).

    ``domain`` restricts "all streams" to the streams whose every event satisfies it (a schema: the CEL paper fixes
    the schema and quantifies over its streams): only the types inside it are letters, so the distinguishing
    word, and the stream made from it, stay inside it.

    Returns a :class:`ProductProof` or a shortest :class:`DistinguishingWord` (breadth-first search: every
    shorter word was explored and agreed). Raises :class:`SizeBudgetExceeded` past ``budget`` product states
    or ``minterm_budget`` types, and :class:`UnsupportedError` for an unknown level.
    """
    if level not in LEVELS:
        raise UnsupportedError(f"unknown output level {level!r}: choose one of {', '.join(LEVELS)}")
    ta, tb = _table(left, level), _table(right, level)
    types, keys = _letters(ta, tb, domain, minterm_budget)
    labels = tuple(dict.fromkeys(ta.labels + tb.labels))  # a label neither automaton has leads nowhere
    fa, fb = left.final, right.final

    def differs(a: frozenset, b: frozenset) -> bool:
        acc_a, acc_b = not fa.isdisjoint(a), not fb.isdisjoint(b)
        return acc_a and not acc_b if contained else acc_a != acc_b

    start: Pair = (frozenset(left.initial), frozenset(right.initial))
    parent: dict[Pair, tuple[Pair, int, Label] | None] = {start: None}
    queue = deque([start])
    dead: Pair = (frozenset(), frozenset())
    while queue:
        pair = queue.popleft()
        for m, (ka, kb) in enumerate(keys):
            ma = subset_moves(ta, pair[0], ka).by_label
            mb = subset_moves(tb, pair[1], kb).by_label
            for lab in labels:
                nxt = (ma.get(lab, frozenset()), mb.get(lab, frozenset()))
                if differs(*nxt):
                    return _word(level, types, parent, pair, (m, lab), nxt, fa, fb, len(parent))
                if nxt == dead or nxt in parent:  # the dead pair rejects every continuation on both sides
                    continue
                parent[nxt] = (pair, m, lab)
                charge("equivalence product")  # one unit per pair: the work budget of a command binds it too
                if budget is not None and len(parent) > budget:
                    raise SizeBudgetExceeded("equivalence product", budget, len(parent))
                queue.append(nxt)
    return ProductProof(level, contained, len(parent), len(types) * len(labels), len(types), frozenset(parent),
                        domain)


def certify(left: CEA, right: CEA, proof: ProductProof) -> bool:
    """Re-check a proof independently of the search: its pairs contain the initial pair, are closed under every
    letter (up to the dead pair) and all agree (for ⊆: none accepts on the left only). Such a set is an
    invariant of the product, hence no word distinguishes the automata."""
    ta, tb = _table(left, proof.level), _table(right, proof.level)
    _, keys = _letters(ta, tb, proof.domain, None)
    labels = tuple(dict.fromkeys(ta.labels + tb.labels))
    dead: Pair = (frozenset(), frozenset())
    if (frozenset(left.initial), frozenset(right.initial)) not in proof.pairs:
        return False
    for a, b in proof.pairs:
        acc_a, acc_b = not left.final.isdisjoint(a), not right.final.isdisjoint(b)
        if (acc_a and not acc_b) if proof.contained else acc_a != acc_b:
            return False
        for ka, kb in keys:
            ma = subset_moves(ta, a, ka).by_label
            mb = subset_moves(tb, b, kb).by_label
            for lab in labels:
                nxt = (ma.get(lab, frozenset()), mb.get(lab, frozenset()))
                if nxt != dead and nxt not in proof.pairs:
                    return False
    return True


def _word(level: LevelName, types: Sequence[Minterm], parent: dict, pair: Pair, last: tuple[int, Label],
          end: Pair, fa: frozenset, fb: frozenset, explored: int) -> DistinguishingWord:
    letters = [last]
    path = [end, pair]
    node = parent[pair]
    while node is not None:
        pair, m, lab = node
        letters.append((m, lab))
        path.append(pair)
        node = parent[pair]
    letters.reverse()
    path.reverse()
    return DistinguishingWord(level, tuple(types[m].predicate for m, _ in letters), tuple(lab for _, lab in letters),
                              tuple(path), not fa.isdisjoint(end[0]), not fb.isdisjoint(end[1]), explored)


# ---------------------------------------------------------------------------------------------- verdicts

Output = Valuation | ComplexEvent


def output_json(output: Output) -> Any:
    """A valuation as ``{variable: [positions]}``, a complex event as its sorted positions."""
    return output.to_json() if isinstance(output, Valuation) else sorted(output)


def show_output(output: Output) -> str:
    return json.dumps(output_json(output), separators=(",", ":"))


@dataclass(frozen=True)
class Verdict:
    """The answer to "is ⟦left⟧ = ⟦right⟧?" (or "⊆?") for two formulas, checked against their reference semantics.

    ``holds`` with the explored product (``explored`` pairs of subsets, ``alphabet`` letters per pair) as the
    proof; otherwise the shortest distinguishing ``stream``, the ``position`` n, the ``output`` that only one
    side has there (``in_left`` / ``in_right``) and every output of each side at n by the reference semantics.
    """

    relation: Literal["equivalent", "contained"]
    level: LevelName
    left: str
    right: str
    holds: bool
    explored: int
    alphabet: int = 0
    stream: Stream | None = None
    position: int | None = None
    output: Output | None = None
    in_left: bool = False
    in_right: bool = False
    left_outputs: frozenset = field(default=frozenset())
    right_outputs: frozenset = field(default=frozenset())
    word: DistinguishingWord | None = None
    proof: ProductProof | None = None

    def __bool__(self) -> bool:
        return self.holds

    def explanation(self) -> str:
        """One line: why the formulas are (not) equivalent."""
        what = "valuation" if self.level == "valuations" else "complex event"
        if self.holds:
            claim = "equivalent to" if self.relation == "equivalent" else "contained in"
            return (f"{self.left} is {claim} {self.right} at the level of {self.level.replace('_', ' ')} "
                    f"(product of the determinized automata: {self.explored} pairs of subsets, all agree)")
        only, other = (self.left, self.right) if self.in_left else (self.right, self.left)
        return (f"at position {self.position} of this {len(self.stream or ())}-event stream, {only} outputs the "
                f"{what} {show_output(self.output)} and {other} does not (a shortest such stream)")  # type: ignore[arg-type]

    def jsonl(self) -> list[str]:
        """The distinguishing stream as JSON Lines, one event per line (empty when the relation holds)."""
        return [json.dumps(e.to_dict(), sort_keys=True) for e in (self.stream or ())]

    def __str__(self) -> str:
        if self.holds:
            return f"{self.relation}: {self.explanation()}"
        lines = [f"not {self.relation}: {self.explanation()}"]
        lines += [f"  {k}: {line}" for k, line in enumerate(self.jsonl())]
        for name, outs in ((self.left, self.left_outputs), (self.right, self.right_outputs)):
            listed = ", ".join(sorted(map(show_output, outs))) or "nothing"
            lines.append(f"  at {self.position}, {name} outputs {listed}")
        return "\n".join(lines)


def verdict(result: Comparison, left: str, right: str,
            semantics: Callable[[str, Stream, int], frozenset], *, relation: Literal["equivalent", "contained"]
            ) -> Verdict:
    """Turn :func:`compare`'s answer into a :class:`Verdict`, replaying a distinguishing word through the
    reference semantics: ``semantics(side, stream, n)`` gives the outputs of ``"left"``/``"right"`` at n, at the
    word's level. A word whose output is not in exactly the side's outputs is a bug and raises."""
    if isinstance(result, ProductProof):
        return Verdict(relation, result.level, left, right, True, result.explored, result.alphabet, proof=result)
    stream, n, out = result.stream(), result.position, result.output()
    left_outputs, right_outputs = semantics("left", stream, n), semantics("right", stream, n)
    if (out in left_outputs, out in right_outputs) != (result.left, result.right):
        raise AutomatonError(f"internal error: {show_output(out)} at {n} on {stream!r} is not a distinguishing "
                             f"output of {left} and {right} by their semantics")
    return Verdict(relation, result.level, left, right, False, result.explored, 0, stream, n, out, result.left,
                   result.right, left_outputs, right_outputs, result)


__all__ = ["compare", "certify", "verdict", "Verdict", "output_json", "show_output", "Comparison", "ProductProof", "DistinguishingWord", "LEVELS", "LevelName"]
