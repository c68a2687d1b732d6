"""Formula rewrites and witnesses for the expressiveness results of the CEL paper §8 and Apps. B–E.

* Fragments: CEL* (Def. 8.1) and its extensions ``CEL* ∪ O`` with ``O ⊆ {:, ⊕, STRICT}`` (§8.2).
* :func:`strict_to_contiguous` and :func:`contiguize`: Prop. 8.13 / App. C. STRICT becomes ``:`` and ``⊕``,
  using the corrected law ``STRICT(ρ1;ρ2) ≡ STRICT(ρ1):STRICT(ρ2)`` (docs/errata.md).
  Equivalent at the valuation level.
* :func:`contig_to_strict`: the inclusion of Prop. 8.12 / App. B. ``:`` becomes STRICT. Equivalent at the
  valuation level.
* :func:`cplus_to_strict`: Prop. 8.15 / App. E, for unary predicates. ``⊕`` and ``:`` become STRICT, using the
  corrected sixth term (docs/errata.md). Equivalent at the complex-event level, or at the valuation level with
  ``keep_in=True``.
* :func:`insert_event` and :func:`pump`: the witness operations of Lemma B.1 (strict-bounded) and Lemma D.1
  (pumpable).

Every rewrite is a pure function on the CEL AST. The laws it applies hold at the valuation level for
operands in ``CEL* ∪ {:, ⊕, STRICT}``, because Lemma 8.2 holds there: every output has a non-empty support
that contains the end of its interval. proofs_tests/cel/test_section_8.py checks each law on generated operands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields, replace

from cer_theory.core.errors import DEFAULT_BUDGET, NotUnaryError, SizeBudgetExceeded, UnsupportedError
from cer_theory.core.events import Event, Stream, Valuation
from cer_theory.core.predicates.ast import BoolConst, On, Predicate, conj, unary_body
from cer_theory.formalisms.cel.ast import (Atom, Contig, CPlus, Disj, Filter, Formula, In, Plus, Select, Seq, Strategy,
                              filter_literals, is_unary, literal_variables, variables)

CONTIG, CPLUS, STRICT = ":", "⊕", "STRICT"
"""The operators of §8.2 beyond CEL*, as :func:`fragment_of` names them."""

_CEL_STAR = (Atom, In, Filter, Seq, Plus, Disj)
"""Default bound on the size of a rewritten formula (tree nodes). The App. E rewrite grows exponentially."""


# ---------------------------------------------------------------------------------------------- fragments


def _operator(node: Formula) -> str | None:
    if isinstance(node, _CEL_STAR):
        return None
    if isinstance(node, Select):
        return node.strategy.value
    return type(node).operator  # ":", "⊕", "π", "START", "AND", "ALL", "UNLESS"


def fragment_of(phi: Formula) -> frozenset[str]:
    """The operators ``phi`` uses beyond CEL* (the CEL paper Def. 8.1), e.g. ``{":", "STRICT"}``.

    ``:``, ``⊕`` and ``STRICT`` are the extensions of §8.2. ``π``, ``START``, ``AND``, ``ALL``, ``UNLESS``,
    ``NXT``, ``LAST`` and ``MAX`` are reported by the same names.
    """
    return frozenset(op for node in phi.walk() if (op := _operator(node)) is not None)


def is_cel_star(phi: Formula) -> bool:
    """The CEL paper Def. 8.1: φ is built from ``R``, ``IN``, ``FILTER`` (any predicate), ``;``, ``+`` and ``OR``."""
    return not fragment_of(phi)


def in_fragment(phi: Formula, extra: Iterable[str]) -> bool:
    """Whether φ lies in ``CEL* ∪ extra`` (the CEL paper §8.2), e.g. ``in_fragment(φ, {":", "⊕"})``."""
    return fragment_of(phi) <= frozenset(extra)


def _require(phi: Formula, allowed: frozenset[str], construction: str) -> None:
    bad = fragment_of(phi) - allowed
    if bad:
        raise UnsupportedError(
            f"{construction} handles CEL* ∪ {{{', '.join(sorted(allowed))}}} (the CEL paper §8.2), but {phi} also "
            f"uses {', '.join(sorted(bad))}")


# ---------------------------------------------------------------------------------------------- helpers


def _rebuild(phi: Formula, f: Callable[[Formula], Formula]) -> Formula:
    """``phi`` with ``f`` applied to each direct subformula."""
    changes = {fld.name: f(getattr(phi, fld.name)) for fld in fields(phi)
               if isinstance(getattr(phi, fld.name), Formula)}
    return replace(phi, **changes) if changes else phi


def _or(parts: Sequence[Formula]) -> Formula:
    out = parts[0]
    for p in parts[1:]:
        out = Disj(out, p)
    return out


def _disjuncts(phi: Formula) -> list[Formula]:
    return _disjuncts(phi.left) + _disjuncts(phi.right) if isinstance(phi, Disj) else [phi]


def _is_leaf(phi: Formula) -> bool:
    """An atom under IN and FILTER layers: the "atomic level" of App. B and App. E."""
    while isinstance(phi, (In, Filter)):
        phi = phi.body
    return isinstance(phi, Atom)


def _is_strict_select(phi: Formula) -> bool:
    return isinstance(phi, Select) and phi.strategy is Strategy.STRICT


def _strict_atomic(phi: Formula) -> bool:
    """A leaf or ``STRICT(ψ)``: every output support is an interval, so ``:`` and ``⊕`` reduce to STRICT."""
    return _is_leaf(phi) or _is_strict_select(phi)


def _unstrict(phi: Formula) -> Formula:
    return phi.body if _is_strict_select(phi) else phi


def _strict(phi: Formula) -> Formula:
    return Select(Strategy.STRICT, phi)


def _filter_reads(condition: Predicate) -> frozenset[str]:
    return frozenset(v for clause in filter_literals(condition) for lit in clause for v in literal_variables(lit))


# ---------------------------------------------------------------------------------------------- Prop 8.13


def contiguize(phi: Formula) -> Formula:
    """Replace every ``;`` with ``:`` and every ``+`` with ``⊕`` (the CEL paper §8.2, App. C, proof of Prop. 8.13).

    For φ in ``CEL* ∪ {:, ⊕}`` the result is valuation-equivalent to ``STRICT(φ)``. Other nodes are copied
    unchanged.
    """
    if isinstance(phi, Seq):
        return Contig(contiguize(phi.left), contiguize(phi.right))
    if isinstance(phi, Plus):
        return CPlus(contiguize(phi.body))
    return _rebuild(phi, contiguize)


def _strict_equivalent(phi: Formula) -> Formula:
    """A ``CEL* ∪ {:, ⊕}`` formula ≡ ``STRICT(φ)`` (valuation level): the equivalences of the CEL paper App. C.

    ``STRICT(R) ≡ R``, ``STRICT(ρ IN A) ≡ STRICT(ρ) IN A``, ``STRICT(ρ FILTER P) ≡ STRICT(ρ) FILTER P``,
    ``STRICT(ρ1 OR ρ2) ≡ STRICT(ρ1) OR STRICT(ρ2)`` and ``STRICT(ρ+) ≡ STRICT(ρ)⊕``.
    ``STRICT(ρ1;ρ2) ≡ STRICT(ρ1) : STRICT(ρ2)`` is the corrected law: the OCR prints ``;``, which is false
    (docs/errata.md; docs/decisions.md D16).
    Also ``STRICT(STRICT(ρ)) ≡ STRICT(ρ)``, and ``:``/``⊕`` behave like ``;``/``+`` here.
    """
    if isinstance(phi, Atom):
        return phi
    if isinstance(phi, (Seq, Contig)):
        return Contig(_strict_equivalent(phi.left), _strict_equivalent(phi.right))
    if isinstance(phi, (Plus, CPlus)):
        return CPlus(_strict_equivalent(phi.body))
    if _is_strict_select(phi):
        return _strict_equivalent(phi.body)  # type: ignore[attr-defined]
    if isinstance(phi, (In, Filter, Disj)):
        return _rebuild(phi, _strict_equivalent)
    raise UnsupportedError(f"STRICT over {type(phi).__name__} is outside CEL* ∪ {{:, ⊕, STRICT}}: {phi}")


def strict_to_contiguous(phi: Formula) -> Formula:
    """The CEL paper Prop. 8.13 (App. C): ``CEL* ∪ {STRICT}`` → ``CEL* ∪ {:, ⊕}``, valuation-equivalent.

    Each ``STRICT(ψ)`` is replaced by :func:`_strict_equivalent`, which pushes STRICT down to the atoms. ``:``
    and ``⊕`` may already occur in φ. Raises :class:`UnsupportedError` for operators outside
    ``CEL* ∪ {:, ⊕, STRICT}``.
    """
    _require(phi, frozenset({CONTIG, CPLUS, STRICT}), "strict_to_contiguous")

    def go(f: Formula) -> Formula:
        return _strict_equivalent(f.body) if _is_strict_select(f) else _rebuild(f, go)  # type: ignore[attr-defined]

    return go(phi)


# ---------------------------------------------------------------------------------------------- normalisation


def push_filters(phi: Formula) -> Formula:
    """Push every filter with only unary literals down to the atoms (the CEL paper App. E, step (2)). Valuation-level.

    Take ``σ FILTER P(A)``. A position is in μ(A) exactly when an atom occurrence matched it, and that atom is
    named A or lies under an ``IN A`` inside σ. Such an atom R becomes ``R FILTER R[P]``. The
    "for all" reading of P (the CEL paper §4) then checks the same tuples. A disjunctive condition splits into OR
    branches (the CEL paper §4, "Notational conventions"). A filter with an n-ary literal stays where it is.
    Supports ``CEL* ∪ {:, ⊕, STRICT}``:
    STRICT commutes with filters because it selects single valuations.
    """
    return _push_filters(phi, ())


def _push_filters(phi: Formula, pending: tuple[tuple[str | None, Predicate], ...]) -> Formula:
    # pending: (variable, unary predicate on slot None); variable None = applies to every atom below.
    if isinstance(phi, Atom):
        preds = [p for v, p in pending if v is None or v == phi.name]
        return Filter(phi, conj(*(On(phi.name, p) for p in preds))) if preds else phi
    if isinstance(phi, In):
        # below IN A, every atom binds A, so filters on A reach all of them
        inner = tuple((None if v == phi.var else v, p) for v, p in pending)
        return In(_push_filters(phi.body, inner), phi.var)
    if isinstance(phi, Filter):
        clauses = filter_literals(phi.condition)
        if any(len(literal_variables(lit)) > 1 for clause in clauses for lit in clause):
            return Filter(_push_filters(phi.body, pending), phi.condition)
        branches = []
        for clause in clauses:
            extra: list[tuple[str | None, Predicate]] = []
            for lit in clause:
                vs = literal_variables(lit)
                if vs:
                    (v,) = vs
                    extra.append((v, unary_body(lit, v)))
                elif isinstance(lit, BoolConst):
                    if not lit.value:  # FALSE: every valuation fails, i.e. every atom fails
                        extra.append((None, lit))
                else:
                    raise UnsupportedError(f"filter literal {lit} reads no CEL variable")
            branches.append(_push_filters(phi.body, pending + tuple(extra)))
        return _or(branches)
    if isinstance(phi, (Seq, Contig, Disj, Plus, CPlus)) or _is_strict_select(phi):
        return _rebuild(phi, lambda c: _push_filters(c, pending))
    raise UnsupportedError(f"cannot push filters through {type(phi).__name__} (outside CEL* ∪ {{:, ⊕, STRICT}})")


def push_in(phi: Formula) -> Formula:
    """Push every ``IN`` down to the atomic level (the CEL paper App. B). Valuation-level.

    ``(ρ1 OP ρ2) IN A ≡ (ρ1 IN A) OP (ρ2 IN A)`` for ``OP ∈ {;, :, OR}``. ``(ρ OP) IN A ≡ (ρ IN A) OP`` for
    ``OP ∈ {+, ⊕}``. ``STRICT(ρ) IN A ≡ STRICT(ρ IN A)``. ``(ρ FILTER P) IN A ≡ (ρ IN A) FILTER P`` when P does
    not read A.

    App. B renames A to a fresh variable when P reads A. That changes the valuations, so it is not done here:
    it raises :class:`UnsupportedError`. Run :func:`push_filters` first, and unary filters never hit this case.
    """
    return _push_in(phi, ())


def _push_in(phi: Formula, pending: tuple[str, ...]) -> Formula:
    if isinstance(phi, In) and not _is_leaf(phi):
        return _push_in(phi.body, pending + (phi.var,))
    if _is_leaf(phi):
        for var in reversed(pending):  # the innermost IN is applied first
            phi = In(phi, var)
        return phi
    if isinstance(phi, Filter):
        clash = _filter_reads(phi.condition) & set(pending)
        if clash:
            raise UnsupportedError(
                f"cannot push IN {', '.join(sorted(clash))} below the filter of {phi}: the filter reads it "
                f"(App. B renames it to a fresh variable, which changes valuations)")
        return Filter(_push_in(phi.body, pending), phi.condition)
    if isinstance(phi, (Seq, Contig, Disj, Plus, CPlus)) or _is_strict_select(phi):
        return _rebuild(phi, lambda c: _push_in(c, pending))
    raise UnsupportedError(f"cannot push IN through {type(phi).__name__} (outside CEL* ∪ {{:, ⊕, STRICT}})")


def drop_in(phi: Formula) -> Formula:
    """Remove every ``IN``. This preserves complex events but not valuations (the CEL paper App. E, "no labels").

    It is sound only once no filter reads an IN variable, e.g. after :func:`push_filters` on a unary formula.
    """
    if isinstance(phi, In):
        return drop_in(phi.body)
    return _rebuild(phi, drop_in)


# ---------------------------------------------------------------------------------------------- Prop 8.12, 8.15


class _Rewriter:
    """Eliminates ``:`` (App. B) and ``⊕`` (App. E) bottom-up. Memoised per operand pair and size-bounded."""

    def __init__(self, construction: str, budget: int | None) -> None:
        self.construction, self.budget = construction, budget
        self._contig: dict[tuple[int, int], Formula] = {}
        self._cplus: dict[int, Formula] = {}
        self._sizes: dict[int, int] = {}
        self._keep: list[Formula] = []  # keeps memo keys (object ids) alive

    def size(self, phi: Formula) -> int:
        """Tree size, computed once per shared node."""
        hit = self._sizes.get(id(phi))
        if hit is None:
            self._keep.append(phi)
            hit = self._sizes[id(phi)] = 1 + sum(self.size(c) for c in phi.children())
        return hit

    def checked(self, phi: Formula) -> Formula:
        if self.budget is not None and (n := self.size(phi)) > self.budget:
            raise SizeBudgetExceeded(f"{self.construction} (formula nodes, not states)", self.budget, n)
        return phi

    def eliminate(self, phi: Formula) -> Formula:
        if _is_leaf(phi):
            return phi
        if isinstance(phi, Contig):
            return self.contig(self.eliminate(phi.left), self.eliminate(phi.right))
        if isinstance(phi, CPlus):
            return self.cplus(self.eliminate(phi.body))
        return self.checked(_rebuild(phi, self.eliminate))

    # -- ψ1 : ψ2 with ψ1, ψ2 in CEL* ∪ {STRICT}, IN at the atomic level (App. B)

    def contig(self, a: Formula, b: Formula) -> Formula:
        key = (id(a), id(b))
        hit = self._contig.get(key)
        if hit is None:
            self._keep += [a, b]
            hit = self._contig[key] = self.checked(self._contig_case(a, b))
        return hit

    def _contig_case(self, a: Formula, b: Formula) -> Formula:
        # Induction on the left operand (App. B).
        if isinstance(a, Seq):  # (ρ1;ρ2):φ2 ≡ ρ1;(ρ2:φ2)
            return Seq(a.left, self.contig(a.right, b))
        if isinstance(a, Disj):  # (ρ1 OR ρ2):φ2 ≡ (ρ1:φ2) OR (ρ2:φ2)
            return Disj(self.contig(a.left, b), self.contig(a.right, b))
        if isinstance(a, Plus):  # ρ+:φ2 ≡ (ρ:φ2) OR (ρ+;(ρ:φ2))
            s = self.contig(a.body, b)
            return Disj(s, Seq(a, s))
        if not _strict_atomic(a):
            return self._lift(a, b, left=True)
        # Then on the right operand ("analogous" in App. B; [ours]: φ1:(ρ1;ρ2) ≡ (φ1:ρ1);ρ2, φ1:ρ+ ≡ (φ1:ρ) OR
        # ((φ1:ρ);ρ+)).
        if isinstance(b, Seq):
            return Seq(self.contig(a, b.left), b.right)
        if isinstance(b, Disj):
            return Disj(self.contig(a, b.left), self.contig(a, b.right))
        if isinstance(b, Plus):
            s = self.contig(a, b.body)
            return Disj(s, Seq(s, b))
        if not _strict_atomic(b):
            return self._lift(b, a, left=False)
        # Base case (R IN Ā):(T IN B̄) ≡ STRICT((R IN Ā);(T IN B̄)). Generalised [ours] with
        # STRICT(ρ1):STRICT(ρ2) ≡ STRICT(ρ1;ρ2), the corrected App. C law read backwards.
        return _strict(Seq(_unstrict(a), _unstrict(b)))

    def _lift(self, f: Formula, other: Formula, *, left: bool) -> Formula:
        """A non-atomic FILTER operand of ``:``: ``(ρ FILTER P):φ2 ≡ (ρ:φ2) FILTER P`` if φ2 binds no variable
        that P reads (and symmetrically). Valuation-level. App. B renames the variables instead, which only
        preserves complex events, so that case raises."""
        if isinstance(f, In):
            return self.contig(push_in(f), other) if left else self.contig(other, push_in(f))
        if not isinstance(f, Filter):
            raise UnsupportedError(f"{type(f).__name__} as an operand of ':' is outside CEL* ∪ {{:, STRICT}}: {f}")
        clash = _filter_reads(f.condition) & variables(other)
        if clash:
            raise UnsupportedError(
                f"cannot remove ':' next to {f}: its filter reads {', '.join(sorted(clash))}, which the other "
                f"operand {other} also binds (App. B renames them to fresh variables, which changes valuations)")
        inner = self.contig(f.body, other) if left else self.contig(other, f.body)
        return Filter(inner, f.condition)

    # -- ψ⊕ with ψ in CEL* ∪ {STRICT}, filters at the atomic level (App. E)

    def cplus(self, phi: Formula) -> Formula:
        hit = self._cplus.get(id(phi))
        if hit is None:
            self._keep.append(phi)
            hit = self._cplus[id(phi)] = self.checked(self._cplus_case(phi))
        return hit

    def _cplus_case(self, phi: Formula) -> Formula:
        if _strict_atomic(phi):  # R⊕ ≡ STRICT(R+) and STRICT(φ1)⊕ ≡ STRICT(φ1+)
            return _strict(Plus(_unstrict(phi)))
        if isinstance(phi, Plus):  # (φ1+)⊕ ≡ φ1+
            return phi
        if isinstance(phi, Seq):  # (φ1;φ2)⊕ ≡ φ1;(φ2 OR ((φ2:φ1)+;φ2))
            return self.seq_cplus(phi.left, phi.right)
        if isinstance(phi, Disj):
            return self._disj_cplus(_disjuncts(phi))
        raise UnsupportedError(
            f"cannot remove ⊕ over {phi}: App. E needs filters at the atomic level (unary predicates); with a "
            f"binary predicate there may be no CEL* ∪ {{STRICT}} equivalent (the CEL paper Theorem 8.14)")

    def seq_cplus(self, a: Formula, b: Formula) -> Formula:
        """``(a;b)⊕ ≡ a ; (b OR ((b:a)+ ; b))`` (App. E)."""
        return Seq(a, Disj(b, Seq(Plus(self.contig(b, a)), b)))

    def _disj_cplus(self, parts: list[Formula]) -> Formula:
        if all(_strict_atomic(p) for p in parts):  # (φ1 OR φ2)⊕ ≡ STRICT((φ1 OR φ2)+) for atoms/STRICT
            return _strict(Plus(_or([_unstrict(p) for p in parts])))
        # Pick Y = ρ1;ρ2 among the disjuncts. Otherwise pick ρ+ and split it as ρ OR (ρ;ρ+) (App. E). The rest,
        # X, is strictly smaller, so the recursion on X⊕ terminates. Every other ⊕ below is a ⊕ over a ';'.
        idx = next((k for k, p in enumerate(parts) if isinstance(p, Seq)), None)
        if idx is not None:
            y, rest = parts[idx], parts[:idx] + parts[idx + 1:]
        else:
            idx = next(k for k, p in enumerate(parts) if isinstance(p, Plus))
            rho = parts[idx].body  # type: ignore[attr-defined]
            y, rest = Seq(rho, parts[idx]), parts[:idx] + parts[idx + 1:] + [rho]
        return self._six_terms(_or(rest), y)  # type: ignore[arg-type]

    def _six_terms(self, x: Formula, y: Seq) -> Formula:
        """``(X OR Y)⊕ ≡ X⊕ OR Y⊕ OR (X⊕:Y⊕)⊕ OR X⊕:(Y⊕:X⊕)⊕ OR (Y⊕:X⊕)⊕ OR Y⊕:(X⊕:Y⊕)⊕`` (App. E). The sixth
        term is corrected; the OCR's ``Y⊕:(X⊕:Y)⊕`` is wrong (docs/errata.md; docs/decisions.md D16).

        With ``Y = ρ1;ρ2`` we have ``Y⊕ ≡ ρ1;W`` where ``W = ρ2 OR ((ρ2:ρ1)+;ρ2)``. So ``X⊕:Y⊕ ≡ (X⊕:ρ1);W`` and
        ``Y⊕:X⊕ ≡ ρ1;(W:X⊕)`` are sequences, and their ⊕ follows the ';' law (the trick of App. E)."""
        xp = self.cplus(x)
        r1, r2 = y.left, y.right
        w = Disj(r2, Seq(Plus(self.contig(r2, r1)), r2))
        yp = Seq(r1, w)
        xy = self.seq_cplus(self.contig(xp, r1), w)  # (X⊕:Y⊕)⊕
        yx = self.seq_cplus(r1, self.contig(w, xp))  # (Y⊕:X⊕)⊕
        return _or([xp, yp, xy, self.contig(xp, yx), yx, self.contig(yp, xy)])


def contig_to_strict(phi: Formula, *, budget: int | None = DEFAULT_BUDGET) -> Formula:
    """The CEL paper Prop. 8.12, the inclusion (App. B): ``CEL* ∪ {:}`` → ``CEL* ∪ {STRICT}``, valuation-equivalent.

    Steps: unary filters go down to the atoms (:func:`push_filters`) and IN goes down to the atomic level
    (:func:`push_in`). Then each ``ψ1:ψ2`` is rewritten by induction, first on ψ1 and then on ψ2, with the
    App. B equivalences and the base case ``(R IN Ā):(T IN B̄) ≡ STRICT((R IN Ā);(T IN B̄))``. STRICT may
    already occur in φ.

    Scope: every unary formula. n-ary filters work only when the other operand of ``:`` binds none of their
    variables, and when no IN above them targets one. App. B's fresh renaming would be needed otherwise; it
    changes valuations, so those cases raise :class:`UnsupportedError`. Raises
    :class:`SizeBudgetExceeded` when the result exceeds ``budget`` nodes.
    """
    _require(phi, frozenset({CONTIG, STRICT}), "contig_to_strict")
    return _Rewriter("contig_to_strict", budget).eliminate(push_in(push_filters(phi)))


def cplus_to_strict(phi: Formula, *, keep_in: bool = False, budget: int | None = DEFAULT_BUDGET) -> Formula:
    """The CEL paper Prop. 8.15 (App. E): unary ``CEL* ∪ {:, ⊕}`` → ``CEL* ∪ {STRICT}``, complex-event-equivalent.

    Normalise first: filters go down to the atoms (:func:`push_filters`) and IN is dropped (:func:`drop_in`),
    which is valid at the CE level for unary predicates. Then ``:`` and ``⊕`` are removed bottom-up: ``:`` as in
    :func:`contig_to_strict`, and ``⊕`` with App. E's laws, ``R⊕ ≡ STRICT(R+)``,
    ``STRICT(φ1)⊕ ≡ STRICT(φ1+)``, ``(φ1;φ2)⊕ ≡ φ1;(φ2 OR ((φ2:φ1)+;φ2))`` and ``(φ1+)⊕ ≡ φ1+``. An OR is
    handled by ``STRICT((φ1 OR φ2)+)`` when both sides are atoms or STRICT, and otherwise by the six-term law
    with the corrected sixth term of docs/errata.md (:meth:`_Rewriter._six_terms`).

    ``keep_in=True`` [ours] pushes IN down to the atoms instead of dropping it. All laws hold at the
    valuation level, so the result is then valuation-equivalent. STRICT may already occur in φ. Raises
    :class:`NotUnaryError` for an n-ary filter (Theorem 8.14: no equivalent need exist) and
    :class:`SizeBudgetExceeded` when the result exceeds ``budget`` nodes.
    """
    _require(phi, frozenset({CONTIG, CPLUS, STRICT}), "cplus_to_strict")
    if not is_unary(phi):
        raise NotUnaryError(f"cplus_to_strict needs unary filters (the CEL paper Prop. 8.15, 𝒰): {phi}")
    psi = push_filters(phi)
    psi = push_in(psi) if keep_in else drop_in(psi)
    return _Rewriter("cplus_to_strict", budget).eliminate(psi)


# ---------------------------------------------------------------------------------------------- witnesses


def insert_event(stream: Sequence[Event], mu: Valuation, i: int, g: Event) -> tuple[Stream, Valuation]:
    """The insertion of tuple g at position i inside (S, μ) (the CEL paper App. B): ``S' = t0…t_{i-1} g t_i …`` and
    ``μ'(A) = {k ∈ μ(A) : k < i} ∪ {k+1 : k ∈ μ(A), k ≥ i}``.

    App. B requires ``min sup μ ≤ i < max sup μ``. That range is off by one (an erratum): at ``i = min sup μ``,
    g lands before the whole match, and then even ``STRICT(R+)`` survives. A junk tuple that lands strictly
    inside the match needs ``min sup μ < i ≤ max sup μ``; see :func:`inner_positions`. This function accepts
    any ``0 ≤ i ≤ |S|``.
    """
    if not 0 <= i <= len(stream):
        raise UnsupportedError(f"insertion position {i} outside 0..{len(stream)}")
    events = list(stream)
    moved = Valuation({v: [k if k < i else k + 1 for k in ps] for v, ps in mu.items()})
    return Stream(events[:i] + [g] + events[i:]), moved


def inner_positions(mu: Valuation) -> range:
    """Insertion positions that put the new tuple strictly inside ``sup μ``: ``min sup μ < i ≤ max sup μ``."""
    sup = mu.support()
    return range(min(sup) + 1, max(sup) + 1) if sup else range(0)


def pump(stream: Sequence[Event], mu: Valuation, i: int, j: int, k: int,
         paddings: Sequence[Sequence[Event]] = ()) -> tuple[Stream, Valuation]:
    """Pump the fragment [i, j] of (S, μ) k times (the CEL paper App. D).

    ``S = S1·S2·S3`` splits at i and j, so that S2 = S[i..j]. Then ``S' = S1·P0·S2·P1·S2·…·S2·Pk·S3``, with k
    copies of S2 and the ``k+1`` padding streams ``paddings = [P0, …, Pk]``. The paddings are ignored (``S' =
    S1·S2^k·S3``) when ``sup μ`` covers all of i..j. ``μ' = μ1 ∪ μ2¹ ∪ … ∪ μ2ᵏ ∪ μ3'``, each part shifted to its
    copy. A position ``p ≥ i`` of S that is not in [i, j] moves by ``|S'| − |S|``. For ``p2 = max sup μ`` the
    new end is ``max sup μ'``.
    """
    sup = mu.support()
    if not (i < j and i in sup and j in sup):
        raise UnsupportedError(f"pumping needs positions i < j in sup μ = {sup!r}; got i={i}, j={j}")
    if k < 1:
        raise UnsupportedError(f"pumping needs k ≥ 1, got {k}")
    contiguous = all(p in sup for p in range(i, j + 1))
    if contiguous:
        pads: list[list[Event]] = [[] for _ in range(k + 1)]
    elif len(paddings) != k + 1:
        raise UnsupportedError(f"sup μ is not contiguous on [{i},{j}]: pumping {k} times needs {k + 1} padding "
                               f"streams P0..P{k}, got {len(paddings)}")
    else:
        pads = [list(p) for p in paddings]
    events = list(stream)
    out = events[:i]
    offsets = []
    for m in range(k):
        out += pads[m]
        offsets.append(len(out))
        out += events[i:j + 1]
    out += pads[k]
    tail = len(out)
    out += events[j + 1:]

    def moved(p: int) -> list[int]:
        if p < i:
            return [p]
        if p <= j:
            return [o + p - i for o in offsets]
        return [tail + p - j - 1]

    return Stream(out), Valuation({v: [q for p in ps for q in moved(p)] for v, ps in mu.items()})


__all__ = ["CONTIG", "CPLUS", "STRICT", "DEFAULT_BUDGET", "fragment_of", "is_cel_star", "in_fragment",
           "contiguize", "strict_to_contiguous", "push_filters", "push_in", "drop_in", "contig_to_strict",
           "cplus_to_strict", "insert_event", "inner_positions", "pump"]
