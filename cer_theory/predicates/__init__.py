"""One predicate language for all models: AST, evaluation, Z3 translation, minterms and printing."""

from .ast import (FALSE, TRUE, And, Attr, BoolConst, Cmp, Const, IsType, Not, On, Opaque, Or, Predicate, Slot,
                  attr, cmp, compare, conj, disj, is_type, kind, neg, reslot, unary_body)
from .printing import simplified, to_latex, to_sympy
from .solver import (Minterm, equivalent, implies, is_satisfiable, minterms, naive_minterms, witness,
                     witness_env)

__all__ = [
    "FALSE", "TRUE", "And", "Attr", "BoolConst", "Cmp", "Const", "IsType", "Not", "On", "Opaque", "Or",
    "Predicate", "Slot", "attr", "cmp", "compare", "conj", "disj", "is_type", "kind", "neg", "reslot",
    "unary_body",
    "Minterm", "equivalent", "implies", "is_satisfiable", "minterms", "naive_minterms", "witness", "witness_env",
    "simplified", "to_latex", "to_sympy",
]
