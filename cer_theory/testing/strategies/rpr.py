"""Hypothesis strategies for ``MATCH_RECOGNIZE`` queries and their streams, over a tiny schema so that generated
patterns match something and preferment, skipping and navigation all matter.

Schema: rows of type ``a`` or ``b`` with ``id`` (the row's position), ``ts`` (its time in seconds, strictly
increasing), ``k`` (a partition key, 0 or 1) and ``x`` (0..2); pattern variables ``A``, ``B``, ``C``.
"""

from __future__ import annotations

from hypothesis import strategies as st

from cer_theory.core.events import Event
from cer_theory.formalisms.rpr.ast import (Agg, Alt, And, Cmp, Col, Concat, Condition, Const, Measure, Nav, Not,
                                           Or, Pattern, Prev, Quant, Query, Skip, Term, Truth, Var, nullable,
                                           variables)

VARS = ("A", "B", "C")
XS = (0, 1, 2)
OPS = ("=", "<>", "<", "<=", ">", ">=")


@st.composite
def streams(draw: st.DrawFn, max_length: int = 7) -> list[Event]:
    """Rows with strictly increasing ``ts`` (steps of 1 or 2 seconds, so ``WITHIN`` cuts) and ``id`` = position."""
    n = draw(st.integers(0, max_length))
    out, ts = [], 0
    for i in range(n):
        ts += draw(st.sampled_from((1, 1, 2)))
        out.append(Event(draw(st.sampled_from(("a", "b"))), id=i, ts=ts, k=draw(st.sampled_from((0, 1))),
                         x=draw(st.sampled_from(XS))))
    return out


def quantified(body: st.SearchStrategy[Pattern]) -> st.SearchStrategy[Pattern]:
    bounds = st.sampled_from([(0, None), (1, None), (0, 1), (2, 2), (1, 2), (0, 2), (2, None), (1, 3)])
    return st.builds(lambda p, b, g: Quant(p, b[0], b[1], g), body, bounds, st.booleans())


def patterns(max_leaves: int = 4) -> st.SearchStrategy[Pattern]:
    """Patterns over ``A B C`` with concatenation, alternation and every quantifier form (possibly nullable)."""
    leaves = st.sampled_from([Var(v) for v in VARS])
    return st.recursive(leaves, lambda p: st.one_of(
        quantified(p),
        st.builds(lambda a, b: Concat((a, b)), p, p),
        st.builds(lambda a, b: Alt((a, b)), p, p)), max_leaves=max_leaves)


@st.composite
def flink_patterns(draw: st.DrawFn) -> Pattern:
    """Patterns Flink accepts: a concatenation of distinct variables, each maybe quantified (Flink refuses
    alternation, groups and a variable used twice), the first one not nullable; the last one greedy only now
    and then (Flink refuses a greedy quantifier last, and the dialect checks that it does)."""
    n = draw(st.integers(1, len(VARS)))
    parts: list[Pattern] = []
    for i, v in enumerate(VARS[:n]):
        q = draw(st.one_of(st.just(Var(v)), quantified(st.just(Var(v)))))
        if i == 0 and nullable(q):
            q = Var(v)
        if i == n - 1 and isinstance(q, Quant) and q.greedy and q.high != q.low and draw(st.integers(0, 3)):
            q = Quant(q.body, q.low, q.high, greedy=False)
        parts.append(q)
    return parts[0] if n == 1 else Concat(tuple(parts))


def non_empty(p: Pattern) -> Pattern:
    """``p``, or ``A p`` when ``p`` matches the empty sequence (outside the fragment, D221)."""
    return Concat((Var("A"), p)) if nullable(p) else p


def columns(var: str | None) -> st.SearchStrategy[Col]:
    return st.builds(lambda v: Col(v, "x"), st.sampled_from((None, var) if var else (None,)))


def define_terms(used: tuple[str, ...]) -> st.SearchStrategy[Term]:
    """Terms of a ``DEFINE`` condition: constants, the current row, ``PREV``, ``FIRST``/``LAST`` of a variable."""
    var_cols = st.builds(lambda v: Col(v, "x"), st.sampled_from(used))
    return st.one_of(
        st.builds(Const, st.sampled_from(XS)),
        st.just(Col(None, "x")),
        var_cols,
        st.builds(Prev, st.one_of(st.just(Col(None, "x")), var_cols), st.sampled_from((1, 1, 2))),
        st.builds(Nav, st.booleans(), var_cols),
    )


def conditions(used: tuple[str, ...]) -> st.SearchStrategy[Condition]:
    terms = define_terms(used)
    atoms = st.one_of(
        st.builds(lambda t: Cmp(Col(None, "type"), "=", Const(t)), st.sampled_from(("a", "b"))),
        st.builds(Cmp, terms, st.sampled_from(OPS), terms),
        st.builds(Cmp, st.just(Col(None, "x")), st.sampled_from(OPS), st.builds(Const, st.sampled_from(XS))),
        st.just(Truth(True)))
    return st.recursive(atoms, lambda c: st.one_of(st.builds(And, c, c), st.builds(Or, c, c), st.builds(Not, c)),
                        max_leaves=3)


def measures(used: tuple[str, ...]) -> st.SearchStrategy[tuple[Measure, ...]]:
    var_cols = st.sampled_from([Col(v, a) for v in used for a in ("x", "id")])
    exprs = st.one_of(st.builds(Nav, st.booleans(), var_cols), var_cols, st.just(Agg("COUNT", None)),
                      st.builds(Agg, st.sampled_from(("SUM", "MIN", "MAX", "COUNT")), var_cols))
    return st.lists(exprs, max_size=3).map(lambda es: tuple(Measure(e, f"m{i}") for i, e in enumerate(es)))


def safe_skip_targets(p: Pattern, kind: str) -> tuple[str, ...]:
    """Variables ``v`` for which ``AFTER MATCH SKIP <kind> v`` never raises: every match maps a row to ``v`` and
    the row skipped to is never the match's first. Plain variables at top-level positions ≥ 1 of a concatenation
    whose first part is not nullable; for ``TO FIRST``, not occurring in the first part either."""
    if not isinstance(p, Concat) or nullable(p.parts[0]):
        return ()
    first = set(variables(p.parts[0]))
    return tuple(dict.fromkeys(q.name for q in p.parts[1:] if isinstance(q, Var)
                               and (kind == "TO LAST" or q.name not in first)))


@st.composite
def queries(draw: st.DrawFn, max_leaves: int = 4, raising: bool = False, flink: bool = False) -> Query:
    """A checked query: a non-empty pattern, conditions for some of its variables, measures, a skip mode,
    sometimes a partition and a ``WITHIN``. ``SKIP TO FIRST/LAST v`` names a variable for which the standard
    cannot raise (:func:`safe_skip_targets`), unless ``raising``: then any variable of the pattern. With
    ``flink``, the patterns are :func:`flink_patterns`."""
    pattern = draw(flink_patterns()) if flink else non_empty(draw(patterns(max_leaves)))
    used = tuple(dict.fromkeys(variables(pattern)))
    defined = draw(st.lists(st.sampled_from(used), unique=True, max_size=len(used)))
    defines = tuple((v, draw(conditions(used))) for v in sorted(defined))
    targets = {kind: used if raising else safe_skip_targets(pattern, kind) for kind in ("TO FIRST", "TO LAST")}
    kind = draw(st.sampled_from(["PAST LAST ROW", "TO NEXT ROW"] + [k for k, vs in targets.items() if vs]))
    skip = Skip(kind, draw(st.sampled_from(targets[kind])) if kind in targets else None)
    partition = draw(st.sampled_from(((), ("k",))))
    within = draw(st.sampled_from((None, None, 2, 4)))
    return Query(pattern, partition, "ts", draw(measures(used)), skip, within, defines)


__all__ = ["conditions", "flink_patterns", "measures", "non_empty", "patterns", "queries", "safe_skip_targets", "streams"]
