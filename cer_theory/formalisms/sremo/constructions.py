"""SREMO's constructions in the shapes the registry gives them (``core.protocols.CONSTRUCTIONS``), so that every
command reads them from the record (the SRT paper, *Complex Event Recognition with Symbolic Register Transducers*).

The windowed constructions compile the expression (Thm. 27), unroll it to strings of length ≤ w (Lemma 46) and
determinize (Thm. 41, Alg. 7); the complement then completes and flips the finals (Cor. 43, Alg. 8).
"""

from __future__ import annotations

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.protocols import Built, Stage
from cer_theory.core.wording import plural
from cer_theory.formalisms.sremo.ast import Expr, Window
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.determinize import complement as _complement
from cer_theory.formalisms.sremo.determinize import counts, determinize_sra
from cer_theory.formalisms.sremo.printer import format
from cer_theory.formalisms.sremo.srt import SRT
from cer_theory.formalisms.sremo.windowed import unroll


def summary(t: SRT) -> str:
    """An SRA's sizes: states, transitions (for a dSRA, one per satisfiable minterm) and registers."""
    c = counts(t)
    return (f"{plural(c['states'], 'state')}, {plural(c['transitions'], 'transition')}, "
            f"{plural(c['registers'], 'register')}")


def _stage(title: str, t: SRT, caption: str | None = None) -> Stage:
    return Stage(title, t, lambda: summary(t), caption)


def _windowed(e: Expr, window: int | None, budget: int) -> tuple[str, int, SRT, SRT]:
    """(heading, w, unrolled SRA, dSRA) of ``e`` with ``window`` (default: the expression's own WITHIN)."""
    text, w = format(e), window
    if w is None:
        if not isinstance(e, Window):
            raise UnsupportedError("determinization needs a window: --window W or (e) WITHIN w (the SRT paper Thm. 38: "
                                   "without one, an SRT need not have a deterministic equivalent)")
        e, w = e.body, e.w
    if w < 1:
        raise UnsupportedError(f"--window: a window is a positive integer, got {w}")
    sra = unroll(compile_automaton(e, native_window=False, windowed=True), w, budget=budget)
    return f"{text}  (w = {w})", w, sra, determinize_sra(sra, budget=budget)


def determinize(e: Expr, *, budget: int, window: int | None = None) -> Built:
    """The unrolled SRA of a windowed expression (Lemma 46) and its dSRA (Thm. 41, Alg. 7)."""
    heading, w, sra, dsra = _windowed(e, window, budget)
    return Built((_stage("unrolled SRA (Lemma 46)", sra),
                  _stage("dSRA (Thm. 41, Alg. 7; transitions = minterms)", dsra, f"dSRA of {format(e)}, w = {w}")),
                 heading=heading)


def complement(e: Expr, *, budget: int, window: int | None = None) -> Built:
    """The dSRA of a windowed expression and Alg. 8's complement of it (Cor. 43): it accepts the strings of length
    ≤ w that the expression rejects, and every longer string."""
    heading, w, _, dsra = _windowed(e, window, budget)
    return Built((_stage("dSRA (Thm. 41, Alg. 7)", dsra),
                  _stage("complement (Cor. 43, Alg. 8; with the dead state)", _complement(dsra),
                         f"complement of {format(e)}, w = {w}")), heading=heading)


__all__ = ["complement", "determinize", "summary"]
