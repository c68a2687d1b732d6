"""The effective Boolean algebra of predicates: satisfiability, implication, witnesses and minterms.

This module is the one seam between automata and predicates. The CEL paper Prop. 5.5 determinizes over the
*types* of Def. 5.6 (here :func:`minterms`); the SRT paper Alg. 7 prunes its minterms and Def. 36 checks
``sat(φ₁ ∧ φ₂)`` (docs/decisions.md D19). All answers come from Z3 through
:mod:`cer_theory.core.predicates.z3enc` and are cached, keyed by the (hashable) predicates; an ``Opaque`` atom
hashes by its name and slot, so two opaque tests with the same name are taken to be the same test.

Numbers are encoded as reals, a superset of Python's ints and floats. The only visible difference is a strict
gap between two adjacent floats (``x > 0.1 AND x < nextafter(0.1)``): satisfiable here, with no float witness;
:func:`witness` then reports it.

Cost: a query on constants is about a millisecond. Orderings between two attributes (``A.x < B.x``) are the
slow case (up to some hundreds of ms): kinds are dynamic, so Z3's string solver must also rule out the case
where both sides are strings. Equalities between attributes stay cheap.
"""

from __future__ import annotations

import itertools
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import z3

from cer_theory.core import budget as work
from cer_theory.core.errors import PredicateError, SizeBudgetExceeded
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import Predicate, Slot, conj, neg
from cer_theory.core.predicates.z3enc import DEFAULT_TYPE, Encoder, env_holds, is_nonlinear, nice_alphabet, printable_alphabet


def new_solver() -> z3.Solver:
    """A fresh Z3 solver: the one place to tune solver parameters (defaults are best on the test suite)."""
    return z3.Solver()


_ENCODER = Encoder()
_SAT_SOLVER = new_solver()
_CACHE_SIZE = 1 << 16
_WITNESS_TRIES = 8  # models tried per alphabet when Opaque atoms (or float rounding) defeat a decoded witness


def encoder() -> Encoder:
    """The shared encoder: every predicate checked here uses the same Z3 symbols."""
    return _ENCODER


NONLINEAR_TIMEOUT_MS = 5000
"""Time limit of one Z3 check on a problem with non-linear arithmetic (CEQL ``x * y``, ``x / y``)."""

_NO_TIMEOUT = 4294967295  # Z3's default "timeout" parameter (unsigned max: no limit)


_KEYBOARD = "interrupted from keyboard"
"""Z3's reason for *unknown* when it took a Ctrl-C itself (its ``ctrl_c`` parameter): the SIGINT never reached
Python's handler."""


def _interrupted() -> None:
    """Hand a Ctrl-C that Z3 took back to Python: the command stops as interrupted (one line, exit 130)."""
    signal.raise_signal(signal.SIGINT)  # Python's handler (the layer's) raises here
    raise KeyboardInterrupt  # (SIGINT ignored: stop all the same, as the user asked)


def _check(solver: z3.Solver, what: Predicate | str, nonlinear: bool = False) -> bool:
    """Z3's answer. ``unknown`` is an error, except on a problem with non-linear arithmetic, where it is taken
    as *satisfiable* (and the check is time-limited): an over-approximation of satisfiability keeps
    determinization sound (at worst an empty minterm survives), and ``implies`` then answers False."""
    work.charge("Z3 satisfiability checks")  # one unit of the active work budget (core.budget) per check
    if nonlinear:
        solver.set("timeout", NONLINEAR_TIMEOUT_MS)
        started = time.monotonic()
        try:
            result = solver.check()
        finally:
            solver.set("timeout", _NO_TIMEOUT)
        if result == z3.unknown:
            # Z3 words a Ctrl-C it took as "interrupted from keyboard" or, depending on where the check was, as
            # "canceled", its word for the time limit too: a cancel well before the limit can only be the Ctrl-C
            # (the margin: a clock as coarse as Windows' 15.6 ms ticks).
            reason = solver.reason_unknown()
            if reason == _KEYBOARD or (reason == "canceled" and
                                       time.monotonic() - started < NONLINEAR_TIMEOUT_MS / 1000 - 0.05):
                _interrupted()
        return result != z3.unsat
    result = solver.check()
    if result == z3.unknown:
        reason = solver.reason_unknown()
        if reason in ("canceled", _KEYBOARD):  # Z3 took a Ctrl-C itself (its ctrl_c parameter); no time limit here
            _interrupted()
        text = what.text() if isinstance(what, Predicate) else what
        raise PredicateError(f"Z3 could not decide {text} ({reason})")
    return result == z3.sat


@lru_cache(maxsize=_CACHE_SIZE)
def is_satisfiable(p: Predicate) -> bool:
    """Is some environment (one event per slot) in ``p``? Works for unary and n-ary predicates."""
    # One long-lived solver with push/pop: about 3x cheaper per query than a fresh solver.
    _SAT_SOLVER.push()
    try:
        _SAT_SOLVER.add(*_ENCODER.domain(_ENCODER.footprint(p)), _ENCODER.encode(p))
        return _check(_SAT_SOLVER, p, is_nonlinear(p))
    finally:
        _SAT_SOLVER.pop()


@lru_cache(maxsize=_CACHE_SIZE)
def implies(p: Predicate, q: Predicate) -> bool:
    """``p ⊆ q``: every environment satisfying ``p`` satisfies ``q`` (``p ∧ ¬q`` is unsatisfiable)."""
    return not is_satisfiable(conj(p, neg(q)))


def equivalent(p: Predicate, q: Predicate) -> bool:
    """``p`` and ``q`` denote the same set of environments."""
    return p == q or (implies(p, q) and implies(q, p))


def witness_env(p: Predicate) -> dict[Slot, Event]:
    """A concrete environment (one event per slot of ``p``) on which ``p`` holds, checked by evaluation.

    Witnesses are kept readable: a first unconstrained model is kept only if its strings use identifier
    characters (or characters of the predicate's constants); otherwise strings are sought over identifier
    characters, then printable ASCII, then anything. Each stage tries a few models, blocking the previous one.
    Raises :class:`PredicateError` if ``p`` is unsatisfiable or no decoded model satisfies ``p`` when evaluated
    (an ``Opaque`` test that disagrees with the free atom Z3 chose, or a gap between two adjacent floats).
    """
    if not is_satisfiable(p):
        raise PredicateError(f"no witness: {p.text()} is unsatisfiable")
    fp = _ENCODER.footprint(p)
    slots = p.slots()
    strings = _ENCODER.string_vars(fp)
    decision_vars = _ENCODER.model_vars(fp)
    solver = new_solver()
    solver.add(*_ENCODER.domain(fp), _ENCODER.encode(p))
    # Regular-expression constraints are slow in Z3: try one plain model before restricting the alphabet.
    if _check(solver, p):
        env = _ENCODER.decode(solver.model(), fp, slots)
        if env_holds(p, env) and _readable(env, fp.strings):
            return env
    for alphabet in (nice_alphabet(fp.strings), printable_alphabet(fp.strings), None):
        solver.push()
        if alphabet is not None and strings:
            solver.add(*(z3.InRe(s, alphabet) for s in strings))
        for _ in range(_WITNESS_TRIES):
            if not _check(solver, p):
                break
            model = solver.model()
            env = _ENCODER.decode(model, fp, slots)
            if env_holds(p, env):
                return env
            if not decision_vars:  # nothing to vary: every model decodes to the same environment
                break
            solver.add(z3.Or([v != model.eval(v, model_completion=True) for v in decision_vars]))
        solver.pop()
    raise PredicateError(f"{p.text()} is satisfiable for Z3, but no decoded witness satisfies it when evaluated "
                         f"(Opaque tests are free atoms for Z3; numbers are reals for Z3 but floats here)")


def _readable(env: dict[Slot, Event], extra: frozenset[str]) -> bool:
    allowed = set(_IDENT_CHARS).union(*extra) if extra else set(_IDENT_CHARS)
    texts = [e.type for e in env.values()] + [v for e in env.values() for v in e.attributes.values()
                                              if isinstance(v, str)]
    return all(ch in allowed for t in texts for ch in t)


_IDENT_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"


def witness(p: Predicate) -> Event:
    """A concrete event ``e`` with ``p(e)`` True, for a satisfiable unary predicate ``p``."""
    if not p.is_unary():
        raise PredicateError(f"witness() takes a unary predicate; {p.text()} reads slots "
                             f"{sorted(str(s) for s in p.slots() - {None})}: use witness_env()")
    env = witness_env(p)
    return env[None] if None in env else Event(DEFAULT_TYPE)  # p reads nothing (e.g. TRUE): any event does


# ---------------------------------------------------------------------------------------------- minterms


@dataclass(frozen=True)
class Minterm:
    """One type ``P_X`` of the CEL paper Def. 5.6: ``⋂_{i∈X} P_i \\ ⋃_{i∉X} P_i``.

    ``signs[i]`` says whether input predicate ``i`` is taken positively (``i ∈ X``); ``predicate`` is the
    conjunction of the signed predicates.
    """

    signs: tuple[bool, ...]
    predicate: Predicate

    @property
    def positives(self) -> tuple[int, ...]:
        """``X``: the indices of the predicates taken positively."""
        return tuple(i for i, s in enumerate(self.signs) if s)

    def __call__(self, event: Event) -> bool:
        return self.predicate(event)


def _minterm(preds: Sequence[Predicate], signs: Sequence[bool]) -> Minterm:
    return Minterm(tuple(signs), conj(*(p if s else neg(p) for p, s in zip(preds, signs))))


_MINTERMS: dict[tuple[Predicate, ...], tuple[Minterm, ...]] = {}


def minterms(preds: Sequence[Predicate], budget: int | None = 4096) -> list[Minterm]:
    """The satisfiable types of ``preds`` (the CEL paper Def. 5.6), in DFS order, positive sign first.

    Depth-first over the predicates on one incremental Z3 solver (push/pop): a branch is cut as soon as its
    prefix conjunction is unsatisfiable. When ``prefix ∧ P_i`` is unsatisfiable, ``prefix ∧ ¬P_i`` is not
    checked (it equals the satisfiable prefix). Duplicate or dependent inputs need no special care: their
    inconsistent sign vectors are pruned. The result is pairwise disjoint and covers TRUE.

    Raises :class:`SizeBudgetExceeded` ``("minterms", budget, reached)`` when there would be more than
    ``budget`` satisfiable minterms. Results are cached by the tuple of predicates. Inside an active work
    budget (:mod:`cer_theory.core.budget`) that budget replaces ``budget``: each minterm and each solver call
    counts against it, cached or not.
    """
    if work.active() is not None:
        budget = None
    key = tuple(preds)
    cached = _MINTERMS.get(key)
    if cached is None:
        cached = _compute_minterms(key, budget)
        if len(_MINTERMS) >= _CACHE_SIZE:
            _MINTERMS.clear()
        _MINTERMS[key] = cached
    elif budget is not None and len(cached) > budget:
        raise SizeBudgetExceeded("minterms", budget, len(cached))
    else:
        work.charge("minterms", len(cached))
    return list(cached)


def _compute_minterms(preds: tuple[Predicate, ...], budget: int | None) -> tuple[Minterm, ...]:
    k = len(preds)
    solver = new_solver()
    fp = None
    for p in preds:
        f = _ENCODER.footprint(p)
        fp = f if fp is None else fp | f
    if fp is not None:
        solver.add(*_ENCODER.domain(fp))
    formulas = [_ENCODER.encode(p) for p in preds]
    nonlinear = any(is_nonlinear(p) for p in preds)
    out: list[Minterm] = []
    signs: list[bool] = []
    # Iterative DFS (no recursion limit on the number of predicates). state[i]: 0 = untried, 1 = positive
    # branch taken, 2 = both taken. Invariant: the solver holds one push per entry of ``signs``.
    state = [0] * k
    positive_sat = [False] * k
    i = 0
    while True:
        if i == k:
            out.append(_minterm(preds, signs))
            work.charge("minterms")
            if budget is not None and len(out) > budget:
                raise SizeBudgetExceeded("minterms", budget, len(out))
            if k == 0:
                break
            i -= 1
            solver.pop()
            signs.pop()
            continue
        if state[i] == 0:
            state[i] = 1
            solver.push()
            solver.add(formulas[i])
            positive_sat[i] = _check(solver, preds[i], nonlinear)
            if positive_sat[i]:
                signs.append(True)
                i += 1
                continue
            solver.pop()
        if state[i] == 1:
            state[i] = 2
            solver.push()
            solver.add(z3.Not(formulas[i]))
            # If prefix ∧ P_i is unsat then prefix ∧ ¬P_i ≡ prefix, which is sat: skip the check.
            if not positive_sat[i] or _check(solver, neg(preds[i]), nonlinear):
                signs.append(False)
                i += 1
                continue
            solver.pop()
        state[i] = 0
        if i == 0:
            break
        i -= 1
        solver.pop()
        signs.pop()
    return tuple(out)


def naive_minterms(preds: Sequence[Predicate]) -> list[Minterm]:
    """**Test oracle only**: all ``2^k`` sign vectors of Def. 5.6, unsatisfiable ones included, in the order of
    :func:`minterms` (positive sign first), so that ``minterms(ps)`` is exactly the satisfiable sublist.
    """
    preds = tuple(preds)
    return [_minterm(preds, signs) for signs in itertools.product((True, False), repeat=len(preds))]


def clear_caches() -> None:
    """Forget every cached answer (for benchmarks; answers never go stale)."""
    global _ENCODER, _SAT_SOLVER
    is_satisfiable.cache_clear()
    implies.cache_clear()
    _MINTERMS.clear()
    _ENCODER, _SAT_SOLVER = Encoder(), new_solver()
