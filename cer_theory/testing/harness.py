"""Differential conformance testing: one formula, one stream, two evaluators, every position compared.

The reference is the denotational semantics (:mod:`cer_theory.formalisms.cel.semantics`); candidates are the compiled
automaton, later the engines, or *your* engine. A disagreement becomes a :class:`Mismatch` whose text shows
the formula, the stream, the first position n that differs and what each side output there, so a shrunk
hypothesis failure reads as a counterexample.

Point this at your own engine with :func:`check_engine` (a Python callable) or :class:`CommandEngine` (any
program that speaks the ``cer-theory eval`` JSON-lines contract).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from cer_theory.core.events import Stream, Valuation
from cer_theory.formalisms.cel import semantics as cel_semantics
from cer_theory.formalisms.cel.ast import Formula

Level = Literal["valuations", "complex events"]
Outputs = Sequence[frozenset]
"""Per-position outputs ``[out_0, out_1, …]``: sets of Valuations or of complex events (frozensets)."""
Evaluator = Callable[[Formula, Stream], Outputs]


def _fmt_item(x: object) -> str:
    if isinstance(x, Valuation):
        return repr(x)
    return "{" + ",".join(map(str, sorted(x))) + "}"  # type: ignore[arg-type]


def _fmt_set(items: Iterable[object]) -> str:
    return "{" + ", ".join(sorted(map(_fmt_item, items))) + "}" if items else "∅"


@dataclass(frozen=True)
class Mismatch:
    """The first position where two evaluators disagree."""

    formula: Formula | str
    stream: Stream
    n: int
    level: Level
    expected: frozenset
    actual: frozenset
    reference: str = "semantics"
    candidate: str = "candidate"
    note: str = field(default="")

    def __str__(self) -> str:
        missing, extra = self.expected - self.actual, self.actual - self.expected
        lines = [
            f"{self.reference} and {self.candidate} disagree on {self.level} at n = {self.n}",
            f"  formula: {self.formula}",
            f"  stream:  {' '.join(f'{k}:{e!r}' for k, e in enumerate(self.stream))}",
            f"  {self.reference:>10}: {_fmt_set(self.expected)}",
            f"  {self.candidate:>10}: {_fmt_set(self.actual)}",
        ]
        if missing:
            lines.append(f"  only in {self.reference}: {_fmt_set(missing)}")
        if extra:
            lines.append(f"  only in {self.candidate}: {_fmt_set(extra)}")
        if self.note:
            lines.append(f"  note: {self.note}")
        return "\n".join(lines)


def first_mismatch(formula: Formula | str, stream: Stream, expected: Outputs, actual: Outputs, *,
                   level: Level, reference: str = "semantics", candidate: str = "candidate") -> Mismatch | None:
    """Compare per-position outputs; a missing position in ``actual`` counts as the empty output."""
    for n in range(len(stream)):
        exp = frozenset(expected[n]) if n < len(expected) else frozenset()
        act = frozenset(actual[n]) if n < len(actual) else frozenset()
        if exp != act:
            return Mismatch(formula, stream, n, level, exp, act, reference, candidate)
    if len(actual) > len(stream):
        return Mismatch(formula, stream, len(stream), level, frozenset(), frozenset(actual[len(stream)]),
                        reference, candidate, note="output past the end of the stream")
    return None


def to_complex_events(outputs: Outputs) -> list[frozenset]:
    """Valuation outputs → complex-event outputs (``sup``)."""
    return [frozenset(m.support() if isinstance(m, Valuation) else frozenset(m) for m in out) for out in outputs]


# ---------------------------------------------------------------------------------------------- evaluators


def semantics(phi: Formula, stream: Stream) -> list[frozenset[Valuation]]:
    """The reference: ``⟦φ⟧ᵛ_n(S)`` for every n (seed 000, Fig. 3)."""
    return cel_semantics.evaluate(phi, stream)


def compiled_cea(phi: Formula, stream: Stream) -> list[frozenset[Valuation]]:
    """The automaton of Theorem 6.2 (with Theorem 7.2 for selection strategies) run on the stream (Def. 5.2)."""
    from cer_theory.formalisms.cel.selection import compile_with_selection

    return compile_with_selection(phi).run(stream)


def cces(phi: Formula, stream: Stream) -> list[frozenset]:
    """Seed 000 §9: Algorithm 2 over the CCES, on the lazily determinized normal form (complex events only)."""
    from cer_theory.engines.cces import evaluate_formula

    return evaluate_formula(phi, stream)


EVALUATORS: dict[str, Evaluator] = {"semantics": semantics, "cea": compiled_cea, "cces": cces}
CE_ONLY = frozenset({"cces"})
"""Evaluators that output complex events, not valuations."""


def check(phi: Formula, stream: Stream, *, candidate: str | Evaluator = "cea", reference: str | Evaluator =
          "semantics", level: Level = "valuations") -> Mismatch | None:
    """Run two evaluators (names from :data:`EVALUATORS`, or callables) and return the first mismatch."""
    ref = EVALUATORS[reference] if isinstance(reference, str) else reference
    cand = EVALUATORS[candidate] if isinstance(candidate, str) else candidate
    expected, actual = ref(phi, stream), cand(phi, stream)
    if level == "complex events":
        expected, actual = to_complex_events(expected), to_complex_events(actual)
    return first_mismatch(phi, stream, expected, actual, level=level,
                          reference=reference if isinstance(reference, str) else getattr(ref, "__name__", "reference"),
                          candidate=candidate if isinstance(candidate, str) else getattr(cand, "__name__", "candidate"))


def assert_agree(phi: Formula, stream: Stream, **kwargs) -> None:
    """``check`` as an assertion whose message is the full mismatch report."""
    mismatch = check(phi, stream, **kwargs)
    if mismatch is not None:
        raise AssertionError(str(mismatch))


# ---------------------------------------------------------------------------------------------- external engines

EngineFn = Callable[[str, list[dict]], Mapping[int, Iterable[Iterable[int]]]]
"""Your engine as a function: (CEL text, events as dicts with a "type" key) → {n: complex events at n}."""


def check_engine(engine: EngineFn, cases: Iterable[tuple[Formula, Stream]], *, name: str = "engine",
                 stop_at_first: bool = True) -> list[Mismatch]:
    """Compare an engine's complex events with the reference semantics on every (formula, stream) case."""
    mismatches: list[Mismatch] = []
    for phi, stream in cases:
        got = engine(str(phi), [e.to_dict() for e in stream])
        actual = [frozenset(frozenset(c) for c in got.get(n, ())) for n in range(len(stream))]
        extra = [n for n in got if not 0 <= n < len(stream)]
        expected = cel_semantics.evaluate_complex_events(phi, stream)
        m = first_mismatch(phi, stream, expected, actual, level="complex events", candidate=name)
        if m is None and extra:
            m = Mismatch(phi, stream, extra[0], "complex events", frozenset(), frozenset(), "semantics", name,
                         note=f"output at positions {extra} outside the stream")
        if m is not None:
            mismatches.append(m)
            if stop_at_first:
                break
    return mismatches


def conformance_cases(count: int = 200, *, seed: int = 0, max_length: int = 8,
                      selection: bool = True) -> list[tuple[Formula, Stream]]:
    """A reproducible list of generated (formula, stream) cases, for engines tested outside pytest."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from cer_theory.testing.strategies.cel import formulas
    from cer_theory.testing.strategies import streams

    cases: list[tuple[Formula, Stream]] = []

    @settings(max_examples=count, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.tuples(formulas(selection=selection), streams(max_length=max_length)))
    def collect(case: tuple[Formula, Stream]) -> None:
        cases.append(case)

    del seed  # derandomized: the same cases every time
    collect()
    return cases


@dataclass(frozen=True)
class CommandEngine:
    """An external program speaking the ``cer-theory eval`` contract, usable with :func:`check_engine`.

    ``command`` is a shell-like template with ``{formula}`` and ``{stream}`` placeholders, e.g.
    ``"cer-theory eval {formula} --stream {stream}"``; the stream is written as JSON Lines to a temporary
    file; each output line is ``{"n": …, "complex_events": [[…], …]}``.
    """

    command: str
    timeout: float = 60.0

    def __call__(self, formula: str, events: list[dict]) -> dict[int, list[list[int]]]:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "stream.jsonl"
            path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
            argv = [part.format(formula=formula, stream=str(path)) for part in shlex.split(self.command)]
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=self.timeout, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"{argv[0]} exited with {proc.returncode}: {proc.stderr.strip()}")
        out: dict[int, list[list[int]]] = {}
        for line in proc.stdout.splitlines():
            if line.strip():
                obj = json.loads(line)
                out[int(obj["n"])] = obj["complex_events"]
        return out
