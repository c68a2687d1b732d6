"""One bug, one finding: reduce each failing case to a canonical form, then group the failing cases by it.

A conformance run may hit one engine bug in hundreds of cases. As a fuzzer is judged by *distinct* bugs (Hypothesis
reports one failure per distinct origin; SQLancer's and Csmith's campaigns count bugs, each reduced by C-Reduce
before it is reported), the harness reports one **finding** per group of cases that reduce to the same canonical
case with the same *shape* of difference, with the group's count and the case names it came from.

The machinery is independent of the engine and of the language of its cases. A harness plugs in by giving a
:class:`Reducer` (how a case gets one step smaller, and how big it is) and, for each run of a case, an outcome with
``kind`` (its class: ``unexplained``, ``refused``, ``engine error`` …) and ``case``; :func:`shape` of two outputs
gives the difference's shape for outcomes that carry outputs. Then :func:`reduce` shrinks an outcome and
:func:`group` turns the outcomes of a run into numbered :class:`Finding` objects. The CEQL harness
(:mod:`cer_theory.conformance.check`), Flink's ``MATCH_RECOGNIZE`` (:mod:`cer_theory.conformance.flink`), the
metamorphic relations (:mod:`cer_theory.conformance.metamorphic`) and :func:`cer_theory.testing.harness.check_engine`
use it; docs/conformance.md, *Adding an engine*, describes the interface.

**Reduction** is greedy (delta debugging, docs/decisions.md D81, D360): the reducer's candidates are tried in its
order, and a candidate is kept when the engine's outcome on it has the same class, its :meth:`Reducer.measure` is
smaller, and the kinds of difference in its shape (missing, extra, duplicated; not where they are, which moves as
the stream shrinks) are some of the current case's. The measure is compared lexicographically (fewer events first,
then a smaller query, then canonical steps: fewer event types and attributes, types in first-use order, lower
values), so every kept step lowers it and reduction ends. Keeping to the *shape*, not only the class, stops a case
that hits one bug from sliding to another while it shrinks (the *slippage* C-Reduce and Hypothesis guard
against): a missing complex event stays a missing one; a case that hits two bugs may shed one of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

C = TypeVar("C")
O = TypeVar("O")


class Reducer(Protocol[C]):
    """How one harness's cases get smaller.

    * ``candidates(case)``: the cases one step smaller, most promising first (structural steps, then canonical
      ones); a candidate the engine or the reference cannot run is simply not kept;
    * ``measure(case)``: a tuple compared lexicographically; a kept step must lower it;
    * ``key(case)``: the canonical text of a case, equal for equal cases (used to group findings).
    """

    def candidates(self, case: C) -> Iterable[C]: ...

    def measure(self, case: C) -> tuple: ...

    def key(self, case: C) -> str: ...


class Outcome(Protocol):
    kind: str
    case: Any


Shape = Callable[[Any], frozenset[str]]
"""The shape of an outcome's difference as a set of tags (:func:`shape` for outputs): while reducing it may lose
tags but gain none; the final one is part of the group."""


def shape_text(tags: frozenset[str]) -> str:
    return ", ".join(sorted(tags)) or "no difference"


def shape(expected: Iterable[Any], got: Iterable[Any] | None, *, end: Callable[[Any], int], last: int
          ) -> frozenset[str]:
    """The shape of a difference between two outputs (multisets of complex events): which of *missing* (only
    expected), *extra* (only got, not expected at all) and *duplicated* (expected, but got more times) occur, each
    *at end* (the complex event ends at the stream's ``last`` position) or *middle*. None (``got``) is no output."""
    if got is None:
        return frozenset({"no output"})
    exp, out = Counter(expected), Counter(got)
    tags: set[str] = set()
    for ce, n in (exp - out).items():
        tags.add("missing " + ("at end" if end(ce) == last else "middle"))
    for ce, n in (out - exp).items():
        what = "duplicated" if ce in exp else "extra"
        tags.add(what + " " + ("at end" if end(ce) == last else "middle"))
    return frozenset(tags)


def reduce(outcome: O, run: Callable[[Sequence[C]], Iterator[O]], reducer: Reducer[C], shape_of: Shape, *,
           budget: int) -> tuple[O, int]:
    """The smallest outcome greedy reduction reaches from ``outcome`` (the module docstring), and the engine runs
    it took. ``run(cases)`` yields the outcomes of cases in order, lazily or a batch at once (an engine that
    pays per job, as Flink, runs a batch in one job); reduction stops after ``budget`` runs."""
    best, runs = outcome, 0
    kind = outcome.kind  # type: ignore[attr-defined]
    progress = True
    while progress and runs < budget:
        progress = False
        size, wanted = reducer.measure(best.case), shape_of(best)  # type: ignore[attr-defined]
        smaller = [c for c in reducer.candidates(best.case) if reducer.measure(c) < size]  # type: ignore[attr-defined]
        for trial in run(smaller[:budget - runs]):
            runs += 1
            if trial is not None and trial.kind == kind and _what(shape_of(trial)) and \
                    _what(shape_of(trial)) <= _what(wanted):
                best, progress = trial, True
                break
    return best, runs


def _what(tags: frozenset[str]) -> frozenset[str]:
    """A shape without where: ``missing at end`` and ``missing middle`` are both ``missing`` (a shorter stream
    moves a complex event to the end)."""
    return frozenset(t.split(" ")[0] for t in tags)


@dataclass
class Finding(Generic[O]):
    """One group of failing cases: those whose reduced case is ``minimal``'s and whose difference has ``shape``.
    ``number`` is the finding's number in the report (F1, F2, … in the order shown); ``cases`` the names of the
    cases it came from (their seeds and indices)."""

    number: int
    kind: str
    shape: frozenset[str]
    minimal: O
    cases: list[str] = field(default_factory=list)
    original: O | None = None

    @property
    def count(self) -> int:
        return len(self.cases)

    @property
    def label(self) -> str:
        return f"F{self.number}"


def group(outcomes: Iterable[O], reducer: Reducer, shape_of: Shape, *, minimal: Callable[[O], O],
          name: Callable[[O], str]) -> list[Finding[O]]:
    """The findings of a run: the failing ``outcomes`` grouped by (class, shape, canonical minimal case), numbered
    from 1 in order of first occurrence. ``minimal(o)`` is o's reduced outcome (o itself when not reduced)."""
    groups: dict[tuple, Finding[O]] = {}
    for o in outcomes:
        m = minimal(o)
        k = (m.kind, shape_of(m), reducer.key(m.case))  # type: ignore[attr-defined]
        if k not in groups:
            groups[k] = Finding(len(groups) + 1, m.kind, k[1], m, original=o)  # type: ignore[attr-defined]
        groups[k].cases.append(name(o))
    return list(groups.values())


def cases_text(names: Sequence[str], most: int = 6) -> str:
    """Case names for a report line: the first ``most``, then how many more."""
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


__all__ = ["Finding", "Outcome", "Reducer", "Shape", "cases_text", "group", "reduce", "shape", "shape_text"]
