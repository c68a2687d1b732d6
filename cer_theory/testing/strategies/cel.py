"""Hypothesis strategies for CEL formulas (the CEL paper, Fig. 2, and the selection strategies of §7.1).

:func:`formulas` draws small random ASTs using every operator: atoms, ``IN``, ``FILTER``, ``;``, ``:``, ``+``,
``⊕`` (nested too), ``π``, ``START``, ``OR``, ``AND``, ``ALL``, ``UNLESS`` and optionally ``STRICT``/``NXT``/
``LAST``/``MAX``. FILTER conditions mention only variables of the formula vocabulary (relation names and
``IN`` targets), mostly ones the filtered subformula can bind; with ``unary=True`` every literal reads one
variable (the CEL paper, Def. 4.1), with ``unary=False`` cross-variable comparisons such as ``A.x = B.x`` appear.

Formulas are kept small (the reference semantics is brute force): ``max_depth`` bounds the operator nesting,
and leaves are drawn often. Every kind choice shrinks towards an atom, so counterexamples shrink well.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

from cer_theory.core.errors import SyntaxErrorCER
from cer_theory.core.predicates.ast import FALSE, OPS, TRUE, And, Attr, Cmp, Const, IsType, Not, On, Or, Predicate
from cer_theory.formalisms.cel.ast import (All, Atom, Conj, Contig, CPlus, Disj, Filter, Formula, In, Plus, Proj, Select, Seq,
                              Start, Strategy, Unless)
from cer_theory.formalisms.cel.parser import check_filter_variables

OPERATORS = tuple(OPS)

# Kind choices; the first entry is what shrinking goes to. Atoms are repeated to keep formulas small.
_KINDS = ("atom", "atom", "atom", "seq", "contig", "plus", "cplus", "in", "filter", "filter", "disj", "proj",
          "start", "conj", "all", "unless")
_SELECT = ("select",)


@dataclass(frozen=True)
class _Config:
    relations: tuple[str, ...]
    variables: tuple[str, ...]
    unary: bool
    selection: bool
    attributes: tuple[str, ...]
    values: tuple[int, ...]

    @property
    def vocabulary(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.relations + self.variables))


def visible_variables(phi: Formula) -> frozenset[str]:
    """Variables that valuations of ``phi`` can assign (projections and UNLESS right sides hide theirs)."""
    if isinstance(phi, Atom):
        return frozenset([phi.name])
    if isinstance(phi, In):
        return visible_variables(phi.body) | {phi.var}
    if isinstance(phi, Proj):
        return visible_variables(phi.body) & frozenset(phi.variables)
    if isinstance(phi, Unless):
        return visible_variables(phi.left)
    if isinstance(phi, Conj):
        return visible_variables(phi.left) & visible_variables(phi.right)
    out: frozenset[str] = frozenset()
    for c in phi.children():
        out |= visible_variables(c)
    return out


# ---------------------------------------------------------------------------------------------- predicates


def unary_bodies(relations: Sequence[str] = ("R", "T", "U"), attributes: Sequence[str] = ("x",),
                 values: Sequence[int] = (0, 1, 2, 3)) -> st.SearchStrategy[Predicate]:
    """Unqualified unary predicates for ``Var[...]`` blocks: ``x < 2``, ``type = "R"``, TRUE/FALSE, ¬ ∧ ∨."""
    cmp = st.builds(lambda a, o, v: Cmp(Attr(a), o, Const(v)), st.sampled_from(tuple(attributes)),
                    st.sampled_from(OPERATORS), st.sampled_from(tuple(values)))
    atom = st.one_of(cmp, st.sampled_from(tuple(relations)).map(IsType), st.sampled_from([TRUE, FALSE]))
    pair = st.lists(atom, min_size=2, max_size=3).map(tuple)
    return st.one_of(atom, atom.map(Not), pair.map(And), pair.map(Or))


@st.composite
def _literal(draw: st.DrawFn, var: str, others: tuple[str, ...], cfg: _Config) -> Predicate:
    """One filter literal on variable ``var`` (and, for binary ones, another variable from ``others``)."""
    kinds = ["cmp", "type", "on", "rcmp", "ntype"] + (["cross", "cross"] if not cfg.unary and others else [])
    kind = draw(st.sampled_from(kinds))
    attr = Attr(draw(st.sampled_from(cfg.attributes)), var)
    if kind in ("cmp", "rcmp"):
        op, value = draw(st.sampled_from(OPERATORS)), Const(draw(st.sampled_from(cfg.values)))
        return Cmp(attr, op, value) if kind == "cmp" else Cmp(value, op, attr)
    if kind in ("type", "ntype"):
        t = IsType(draw(st.sampled_from(cfg.relations)), var)
        return t if kind == "type" else Not(t)
    if kind == "on":
        return On(var, draw(unary_bodies(cfg.relations, cfg.attributes, cfg.values)))
    other = draw(st.sampled_from(others))
    return Cmp(attr, draw(st.sampled_from(OPERATORS)), Attr(draw(st.sampled_from(cfg.attributes)), other))


@st.composite
def _condition(draw: st.DrawFn, bound: tuple[str, ...], cfg: _Config) -> Predicate:
    """A FILTER condition: a literal or a small ∧/∨/¬ combination; variables mostly from ``bound``."""
    def var() -> str:
        # index 0..6 picks a bound variable, 7 (rare) any vocabulary variable, e.g. an unbound one
        if bound and draw(st.integers(0, 7)) < 7:
            return draw(st.sampled_from(bound))
        return draw(st.sampled_from(cfg.vocabulary))

    def lit() -> Predicate:
        v = var()
        others = tuple(x for x in (bound or cfg.vocabulary) if x != v) or (v,)
        return draw(_literal(v, others, cfg))

    shape = draw(st.sampled_from(("lit", "lit", "and", "or", "not", "nested")))
    if shape == "lit":
        return lit()
    if shape == "not":
        return Not(lit())
    if shape == "nested":  # (a OR b) AND c
        return And((Or((lit(), lit())), lit()))
    args = tuple(lit() for _ in range(draw(st.integers(2, 3))))
    return And(args) if shape == "and" else Or(args)


def conditions(bound: Sequence[str] = ("R", "T"), *, relations: Sequence[str] = ("R", "T", "U"),
               variables: Sequence[str] = ("A", "B"), unary: bool = True, attributes: Sequence[str] = ("x",),
               values: Sequence[int] = (0, 1, 2, 3)) -> st.SearchStrategy[Predicate]:
    """FILTER conditions over the variables ``bound`` (qualified syntax: ``T.x > 1``, ``A[type = "R"]``, …)."""
    cfg = _Config(tuple(relations), tuple(variables), unary, False, tuple(attributes), tuple(values))
    return _condition(tuple(bound), cfg)


# ---------------------------------------------------------------------------------------------- formulas


@st.composite
def _formula(draw: st.DrawFn, depth: int, cfg: _Config) -> Formula:
    kinds = _KINDS + (_SELECT if cfg.selection else ())
    kind = "atom" if depth <= 0 else draw(st.sampled_from(kinds))
    if kind == "atom":
        return Atom(draw(st.sampled_from(cfg.relations)))

    def sub() -> Formula:
        return draw(_formula(depth - 1, cfg))

    if kind in ("seq", "contig", "disj", "conj", "all", "unless"):
        node = {"seq": Seq, "contig": Contig, "disj": Disj, "conj": Conj, "all": All, "unless": Unless}[kind]
        return node(sub(), sub())
    if kind == "plus":
        return Plus(sub())
    if kind == "cplus":
        return CPlus(sub())
    if kind == "start":
        return Start(sub())
    if kind == "select":
        return Select(draw(st.sampled_from(list(Strategy))), sub())
    body = sub()
    visible = tuple(sorted(visible_variables(body)))
    if kind == "in":
        # mostly a fresh variable; sometimes a relation name (IN R is allowed: 𝐋 ⊇ ℛ, the CEL paper §4)
        pool = cfg.variables if cfg.variables and draw(st.integers(0, 4)) < 4 else cfg.relations
        return In(body, draw(st.sampled_from(pool)))
    if kind == "filter":
        return Filter(body, draw(_condition(visible, cfg)))
    # proj: a subset of the visible variables, rarely plus an arbitrary vocabulary variable
    keep = draw(st.lists(st.sampled_from(visible), unique=True, max_size=len(visible))) if visible else []
    if draw(st.integers(0, 5)) == 5:
        keep.append(draw(st.sampled_from(cfg.vocabulary)))
    return Proj(body, tuple(keep))


def formulas(relations: Sequence[str] = ("R", "T", "U"), variables: Sequence[str] = ("A", "B"), max_depth: int = 4,
             unary: bool = True, selection: bool = True, *, attributes: Sequence[str] = ("x",),
             values: Sequence[int] = (0, 1, 2, 3)) -> st.SearchStrategy[Formula]:
    """Random CEL formulas with operator nesting at most ``max_depth``.

    ``relations`` are the atoms (and the types in ``IsType`` tests), ``variables`` the ``IN`` targets;
    FILTER literals compare ``attributes`` with ``values``. ``unary=False`` adds binary literals ``A.x op B.x``;
    ``selection=False`` leaves out STRICT/NXT/LAST/MAX.
    """
    if not relations:
        raise ValueError("formulas() needs at least one relation name")
    cfg = _Config(tuple(relations), tuple(variables), unary, selection, tuple(attributes), tuple(values))
    return _formula(max_depth, cfg)


def registry_formulas() -> st.SearchStrategy[Formula]:
    """The formulas of CEL's registry record (the standard differential properties, ``conformance_cases``):
    unary, every operator and strategy, nesting at most 3 (deeper UNLESS products make the compiled automaton
    large without finding other disagreements). A FILTER on a variable its formula never binds is left out: the
    record's parse, the one users get, refuses it (docs/decisions.md D95); the generic :func:`formulas` keeps
    such filters for the theorems' own tests (Theorem 6.2's among them)."""
    return formulas(max_depth=3).filter(binds_its_filter_variables)


def binds_its_filter_variables(phi: Formula) -> bool:
    """Whether every FILTER of φ reads only variables its formula binds (what the user-facing parse accepts)."""
    try:
        check_filter_variables(phi)
    except SyntaxErrorCER:
        return False
    return True


def unary_formulas(**kwargs: object) -> st.SearchStrategy[Formula]:
    """:func:`formulas` with unary filters only (the fragment compiled by Theorem 6.2)."""
    return formulas(unary=True, **kwargs)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- §8 fragments

_FRAGMENT_KINDS = {":": "contig", "⊕": "cplus", "STRICT": "strict"}


@st.composite
def _fragment_formula(draw: st.DrawFn, depth: int, cfg: _Config, extra: tuple[str, ...]) -> Formula:
    kinds = ("atom", "atom", "seq", "plus", "in", "filter", "disj") + extra
    kind = "atom" if depth <= 0 else draw(st.sampled_from(kinds))
    if kind == "atom":
        return Atom(draw(st.sampled_from(cfg.relations)))

    def sub() -> Formula:
        return draw(_fragment_formula(depth - 1, cfg, extra))

    if kind in ("seq", "contig", "disj"):
        return {"seq": Seq, "contig": Contig, "disj": Disj}[kind](sub(), sub())
    if kind in ("plus", "cplus"):
        return Plus(sub()) if kind == "plus" else CPlus(sub())
    if kind == "strict":
        return Select(Strategy.STRICT, sub())
    body = sub()
    if kind == "in":
        pool = cfg.variables if cfg.variables and draw(st.integers(0, 4)) < 4 else cfg.relations
        return In(body, draw(st.sampled_from(pool)))
    return Filter(body, draw(_condition(tuple(sorted(visible_variables(body))), cfg)))


def fragment_formulas(extra: Sequence[str] = (), relations: Sequence[str] = ("R", "T", "U"),
                      variables: Sequence[str] = ("A", "B"), max_depth: int = 3, unary: bool = True, *,
                      attributes: Sequence[str] = ("x",),
                      values: Sequence[int] = (0, 1, 2, 3)) -> st.SearchStrategy[Formula]:
    """Formulas of the fragment ``CEL* ∪ extra`` of the CEL paper §8: CEL* (Def. 8.1: atoms, ``IN``, ``FILTER``,
    ``;``, ``+``, ``OR``) plus the operators in ``extra`` ⊆ {``":"``, ``"⊕"``, ``"STRICT"``} (§8.2).

    Other parameters as in :func:`formulas`; ``unary=False`` adds binary literals such as ``A.x = B.x`` (CEL*
    allows arbitrary predicates). Every kind choice shrinks towards an atom.
    """
    unknown = set(extra) - set(_FRAGMENT_KINDS)
    if unknown:
        raise ValueError(f"fragment_formulas: unknown operators {sorted(unknown)}; expected a subset of "
                         f"{sorted(_FRAGMENT_KINDS)}")
    if not relations:
        raise ValueError("fragment_formulas() needs at least one relation name")
    cfg = _Config(tuple(relations), tuple(variables), unary, False, tuple(attributes), tuple(values))
    kinds = tuple(_FRAGMENT_KINDS[op] for op in _FRAGMENT_KINDS if op in extra)
    return _fragment_formula(max_depth, cfg, kinds)


__all__ = ["registry_formulas", "formulas", "unary_formulas", "conditions", "unary_bodies", "visible_variables",
           "fragment_formulas"]
