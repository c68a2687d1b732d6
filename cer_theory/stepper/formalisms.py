"""What each formalism steps: the ``step`` construction of its registry record (``core.protocols.CONSTRUCTIONS``).

Each function takes the formula's AST and the stream and returns the :class:`~cer_theory.stepper.frames.Run` of
the automaton the formula compiles to, read off that model's own run semantics. A formalism whose formula needs
more than its AST to compile (ACEL: the stream's schema) or whose meaning is an engine's (CEQL: CORE's runs start
at every position) says so here, once, instead of in every caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import Event
from cer_theory.formalisms.acel.compile import compile_automaton as compile_acea, schema_of
from cer_theory.formalisms.cel.selection import compile_with_selection
from cer_theory.formalisms.ceql.compile import compile_automaton as compile_ceql
from cer_theory.formalisms.socel.compile import compile_automaton as compile_ucea
from cer_theory.formalisms.sremo.compile import compile_automaton as compile_srt
from cer_theory.stepper.frames import Run
from cer_theory.stepper.models import step


def step_cel(phi: Any, stream: Sequence[Event], *, structure: str | None = None, **bounds: Any) -> Run:
    """CEL's CEA (the CEL paper Theorems 6.2 and 7.2: selection strategies at any depth), or the CCES / tECS running
    it (``structure``)."""
    return step(compile_with_selection(phi), stream, structure=structure, **_bounds(bounds))


def step_ceql(query: Any, stream: Sequence[Event], *, structure: str | None = None, **bounds: Any) -> Run:
    """A CEQL query on CORE's tECS (the CORE paper §4): its runs start at every position, inside the query's window,
    where the CEA alone starts at position 0 only."""
    if structure not in (None, "tECS"):
        raise UnsupportedError("--logic ceql is stepped on CORE's tECS (--engine tecs), not the CCES")
    window = {} if query.within is None else {"window": query.within}
    return step(compile_ceql(query), stream, structure="tECS", **_bounds(bounds), **window)


def step_socel(phi: Any, stream: Sequence[Event], *, structure: str | None = None, **bounds: Any) -> Run:
    """SO-CEL's unary CEA (the SO-CEL paper Thm 5.3), or the CCES / tECS running it (``structure``)."""
    return step(compile_ucea(phi), stream, structure=structure, **_bounds(bounds))


def step_acel(phi: Any, stream: Sequence[Event], *, structure: str | None = None, **bounds: Any) -> Run:
    """ACEL's ACEA (the ACEL paper Thm 6.2), its templates copying the attributes each type has in this stream."""
    _no_engine(structure, "ACEL's ACEA")
    return step(compile_acea(phi, schema_of(stream)), stream, **_bounds(bounds))


def step_sremo(e: Any, stream: Sequence[Event], *, structure: str | None = None, **bounds: Any) -> Run:
    """SREMO's SRT (the SRT paper Thm 27) run by Alg. 1."""
    _no_engine(structure, "SREMO's SRT")
    return step(compile_srt(e), stream, **_bounds(bounds))


BOUNDS = ("title", "max_positions", "max_rows", "budget")
"""What every stepper takes besides the formula and the stream: the page's title and the two bounds of the
frames (stepper.frames); ``budget`` bounds the compilation and is applied by the caller (core.budget)."""


def _bounds(options: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(options) - set(BOUNDS))
    if unknown:
        raise TypeError(f"a stepper takes {', '.join(BOUNDS)}, not {', '.join(unknown)}")
    return {key: value for key, value in options.items() if key != "budget"}


def _no_engine(structure: str | None, model: str) -> None:
    if structure is not None:
        raise UnsupportedError(f"--engine runs a complex event automaton; {model} is stepped by its own run")


__all__ = ["BOUNDS", "step_acel", "step_cel", "step_ceql", "step_socel", "step_sremo"]
