"""Ctrl-C during a Z3 check: Z3 takes the SIGINT itself (its ``ctrl_c`` parameter) and answers *unknown*
("canceled"); the check hands the signal back to Python, so the command stops as interrupted (exit 130, one
line), never as a formula Z3 "could not decide" (exit 2), which a layer test once saw."""

from __future__ import annotations

import os
import signal
import threading

import pytest
import z3

from cer_theory.core.predicates.solver import _check


def _pigeonhole(pigeons: int) -> z3.Solver:
    """Pigeons in one hole fewer than pigeons: unsatisfiable, and hard enough for a check to last seconds."""
    holes = pigeons - 1
    at = [[z3.Bool(f"p{i}h{j}") for j in range(holes)] for i in range(pigeons)]
    solver = z3.Solver()
    for i in range(pigeons):
        solver.add(z3.Or(*at[i]))
    for j in range(holes):
        for i in range(pigeons):
            for k in range(i + 1, pigeons):
                solver.add(z3.Or(z3.Not(at[i][j]), z3.Not(at[k][j])))
    return solver


@pytest.mark.parametrize("incremental", [False, True], ids=["one-shot", "after-push"])
@pytest.mark.parametrize("nonlinear", [False, True], ids=["linear", "non-linear"])
def test_a_ctrl_c_during_a_z3_check_is_an_interrupt(nonlinear: bool, incremental: bool) -> None:
    """Also on a check with non-linear arithmetic, where *unknown* is read as satisfiable: the interrupt was lost
    there and the command went on (D443). After a ``push`` (the shared solver's way) Z3 words the Ctrl-C
    "canceled", its word for the time limit too, which a non-linear check took for the limit (D445). The time
    limit's own *unknown* is no interrupt (the test below)."""
    solver = _pigeonhole(12)
    if incremental:
        solver.push()
        solver.add(z3.Bool("pushed"))
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            _check(solver, "the pigeonhole principle", nonlinear)
    finally:
        timer.cancel()


@pytest.mark.parametrize("incremental", [False, True], ids=["one-shot", "after-push"])
def test_the_time_limit_of_a_non_linear_check_is_no_interrupt(monkeypatch: pytest.MonkeyPatch,
                                                              incremental: bool) -> None:
    """A non-linear check that runs out of its time limit answers *satisfiable* (the sound over-approximation), not
    an interrupt; also after a ``push``, where Z3 words the limit "canceled", as it words a Ctrl-C there."""
    from cer_theory.core.predicates import solver as module

    monkeypatch.setattr(module, "NONLINEAR_TIMEOUT_MS", 200)
    solver = _pigeonhole(12)
    if incremental:
        solver.push()
        solver.add(z3.Bool("pushed"))
    assert _check(solver, "the pigeonhole principle", True) is True
