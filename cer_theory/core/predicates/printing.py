"""Predicates as sympy Boolean expressions: simplification and LaTeX.

The Boolean skeleton of a predicate treats each atom (comparison, type test, opaque test, ``var[...]``) as an
independent proposition. Any simplification of the skeleton is therefore *sound* (equivalent on every event),
though it may miss simplifications that need the atoms' meaning (``x < 1 ∧ x > 2``); that is Z3's job
(:mod:`cer_theory.core.predicates.solver`).
"""

from __future__ import annotations

import sympy
from sympy.logic.boolalg import BooleanFalse, BooleanTrue, simplify_logic
from sympy.printing.latex import LatexPrinter

from cer_theory.core.errors import PredicateError
from cer_theory.core.events import TYPE_KEY
from cer_theory.core.predicates.ast import (FALSE, TRUE, And, Arith, Attr, BoolConst, Cmp, Const, InRange, InSet, IsType, Like, Not, On,
                  Opaque, Or, Predicate, Term, conj, disj, neg)
from cer_theory.core.predicates.solver import implies, is_satisfiable

_LATEX_OPS = {"=": "=", "!=": r"\neq", "<": "<", "<=": r"\leq", ">": ">", ">=": r"\geq"}


def _skeleton(p: Predicate) -> tuple[sympy.Basic, dict[sympy.Symbol, Predicate]]:
    """The sympy expression of ``p`` and the table symbol → atom (symbols are named by the atoms' labels)."""
    table: dict[sympy.Symbol, Predicate] = {}
    by_atom: dict[Predicate, sympy.Symbol] = {}

    def symbol(atom: Predicate) -> sympy.Symbol:
        if atom not in by_atom:
            name, n = atom.label(), 1
            while sympy.Symbol(name) in table:  # two distinct atoms with one label: keep them apart
                n += 1
                name = f"{atom.label()}#{n}"
            sym = sympy.Symbol(name)
            by_atom[atom], table[sym] = sym, atom
        return by_atom[atom]

    def go(q: Predicate) -> sympy.Basic:
        if isinstance(q, BoolConst):
            return sympy.true if q.value else sympy.false
        if isinstance(q, Not):
            return sympy.Not(go(q.arg))
        if isinstance(q, And):
            return sympy.And(*(go(a) for a in q.args))
        if isinstance(q, Or):
            return sympy.Or(*(go(a) for a in q.args))
        return symbol(q)

    return go(p), table


def to_sympy(p: Predicate) -> sympy.Basic:
    """``p`` as a sympy Boolean: atoms become Symbols named by their label (``tmp>40``, ``H``)."""
    return _skeleton(p)[0]


def from_sympy(expr: sympy.Basic, table: dict[sympy.Symbol, Predicate]) -> Predicate:
    """Map a sympy Boolean over the symbols of ``table`` back to a predicate."""
    if isinstance(expr, BooleanTrue):
        return TRUE
    if isinstance(expr, BooleanFalse):
        return FALSE
    if isinstance(expr, sympy.Symbol):
        if expr not in table:
            raise PredicateError(f"unknown atom symbol {expr}")
        return table[expr]
    if isinstance(expr, sympy.Not):
        return neg(from_sympy(expr.args[0], table))
    if isinstance(expr, sympy.And):
        return conj(*(from_sympy(a, table) for a in _sorted_args(expr)))
    if isinstance(expr, sympy.Or):
        return disj(*(from_sympy(a, table) for a in _sorted_args(expr)))
    raise PredicateError(f"cannot map sympy expression {expr} back to a predicate")


def _sorted_args(expr: sympy.Basic) -> list[sympy.Basic]:
    return sorted(expr.args, key=sympy.default_sort_key)  # deterministic output order


def simplified(p: Predicate) -> Predicate:
    """An equivalent predicate with a simpler Boolean skeleton (sympy ``simplify_logic``, atoms independent).

    sympy only minimizes skeletons of at most 8 atoms; larger ones come back essentially unchanged.
    """
    expr, table = _skeleton(p)
    return from_sympy(simplify_logic(expr), table)


def readable(p: Predicate) -> Predicate:
    """An equivalent predicate as short as the atoms' *meaning* allows, for a drawing's label.

    :func:`simplified` treats atoms as independent; here Z3 (:mod:`cer_theory.core.predicates.solver`) also
    knows that an event has exactly one type (the CEL paper §5: a tuple belongs to one relation), so ``¬R ∨ ¬T``
    becomes ``⊤`` and ``¬R ∧ T`` becomes ``T``. Steps: a valid or unsatisfiable predicate is ``⊤``/``⊥``; then
    the skeleton is simplified, and a conjunct implied by the other conjuncts (a disjunct implying the other
    disjuncts) is dropped, one at a time, each step checked by Z3. The result is equivalent to ``p`` on every
    event (a test checks it by Z3)."""
    if not is_satisfiable(p):
        return FALSE
    if not is_satisfiable(neg(p)):
        return TRUE
    q = simplified(p)
    if isinstance(q, (And, Or)):
        parts = list(q.args)
        k = 0
        while k < len(parts) and len(parts) > 1:
            rest = parts[:k] + parts[k + 1:]
            redundant = (implies(conj(*rest), parts[k]) if isinstance(q, And)
                         else implies(parts[k], disj(*rest)))
            if redundant:
                parts = rest
            else:
                k += 1
        q = conj(*parts) if isinstance(q, And) else disj(*parts)
    return q


# ---------------------------------------------------------------------------------------------- LaTeX


def _ident(name: str, font: str) -> str:
    """A single letter stays in math italic; longer names go in ``\\mathit``/``\\mathrm`` (upright words)."""
    if len(name) == 1 and name.isalpha():
        return name
    escaped = name.replace("_", r"\_")
    return rf"\{font}{{{escaped}}}"


_LATEX_ARITH = {"+": "+", "-": "-", "*": r"\cdot", "/": "/"}
_ARITH_LEVEL = {"+": 1, "-": 1, "*": 2, "/": 2}


def _latex_term(t: Term | Arith) -> str:
    if isinstance(t, Arith):  # the parenthesization of ast.format_term
        level = _ARITH_LEVEL[t.op]

        def side(s: Term | Arith, minimum: int) -> str:
            tex = _latex_term(s)
            return f"({tex})" if isinstance(s, Arith) and _ARITH_LEVEL[s.op] < minimum else tex

        return f"{side(t.left, level)} {_LATEX_ARITH[t.op]} {side(t.right, level + 1)}"
    if isinstance(t, Const):
        v = t.value
        if isinstance(v, bool):
            return r"\mathrm{true}" if v else r"\mathrm{false}"
        if isinstance(v, str):
            return r"\text{``" + _latex_text(v) + "''}"
        return repr(v)
    name = r"\mathrm{type}" if t.name == TYPE_KEY else _ident(t.name, "mathit")
    return name if t.slot is None else f"{_ident(t.slot, 'mathit')}.{name}"


def _latex_text(text: str) -> str:
    for ch, rep in (("\\", r"\textbackslash{}"), ("{", r"\{"), ("}", r"\}"), ("_", r"\_"), ("$", r"\$"),
                    ("&", r"\&"), ("#", r"\#"), ("%", r"\%"), ("^", r"\^{}"), ("~", r"\~{}")):
        text = text.replace(ch, rep)
    return text


def latex_atom(atom: Predicate) -> str:
    """The LaTeX of one atom: ``\\mathit{tmp} > 40``, ``\\mathrm{type} = H``, ``\\mathsf{hot}``, ``A[\\ldots]``."""
    if isinstance(atom, Cmp):
        return f"{_latex_term(atom.left)} {_LATEX_OPS[atom.op]} {_latex_term(atom.right)}"
    if isinstance(atom, IsType):
        typ = _latex_term(Attr(TYPE_KEY, atom.slot))
        return f"{typ} = {_ident(atom.name, 'mathrm')}"
    if isinstance(atom, Opaque):
        body = _ident(atom.name, "mathsf") if len(atom.name) > 1 else rf"\mathsf{{{atom.name}}}"
        return body if atom.slot is None else f"{_ident(atom.slot, 'mathit')}[{body}]"
    if isinstance(atom, On):
        return f"{_ident(atom.var, 'mathit')}[{to_latex(atom.body)}]"
    if isinstance(atom, Like):
        return rf"{_latex_term(atom.term)} \mathrel{{\mathrm{{LIKE}}}} \texttt{{{_latex_text(atom.pattern)}}}"
    if isinstance(atom, (InSet, InRange)):
        rel = r"\notin" if atom.negated else r"\in"
        if isinstance(atom, InSet):
            body = r"\{" + ", ".join(_latex_term(c) for c in atom.sorted_values()) + r"\}"
        else:
            lo = r"(-\infty" if atom.low is None else f"[{atom.low!r}"
            hi = r"\infty)" if atom.high is None else f"{atom.high!r}]"
            body = f"{lo}, {hi}"
        return f"{_latex_term(atom.term)} {rel} {body}"
    raise PredicateError(f"not an atom: {atom.text()}")


class _Printer(LatexPrinter):
    """sympy's LaTeX printer, parenthesizing a negated relation: ``\\neg (x > 1)``, not ``\\neg x > 1``."""

    def _print_Not(self, e: sympy.Not) -> str:
        arg = e.args[0]
        if isinstance(arg, sympy.Symbol):
            tex = self._print(arg)
            return rf"\neg ({tex})" if " " in tex else rf"\neg {tex}"
        return super()._print_Not(e)


def to_latex(p: Predicate) -> str:
    """LaTeX for ``p`` through sympy's LaTeX printer (∧ ∨ ¬ with sympy's argument order and parentheses)."""
    expr, table = _skeleton(p)
    return _Printer({"symbol_names": {sym: latex_atom(atom) for sym, atom in table.items()}}).doprint(expr)
