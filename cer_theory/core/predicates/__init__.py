"""One predicate language for all models: AST, evaluation, Z3 translation, minterms and printing."""

from cer_theory.core.predicates.ast import (ARITH_OPS, FALSE, TRUE, And, Arith, Attr, BoolConst, Cmp, Const, InRange, InSet, IsType, Like, Not,
                  On, Opaque, Or, Predicate, Slot, arith, attr, cmp, compare, conj, disj, in_range, in_set, is_type,
                  kind, like, neg, reslot, unary_body)
from cer_theory.core.predicates.printing import simplified, to_latex, to_sympy
from cer_theory.core.predicates.solver import (Minterm, equivalent, implies, is_satisfiable, minterms, naive_minterms, witness,
                     witness_env)

__all__ = [
    "FALSE", "TRUE", "And", "Attr", "BoolConst", "Cmp", "Const", "IsType", "Not", "On", "Opaque", "Or",
    "Predicate", "Slot", "attr", "cmp", "compare", "conj", "disj", "is_type", "kind", "neg", "reslot",
    "unary_body",
    "ARITH_OPS", "Arith", "Like", "InSet", "InRange", "arith", "like", "in_set", "in_range",
    "Minterm", "equivalent", "implies", "is_satisfiable", "minterms", "naive_minterms", "witness", "witness_env",
    "simplified", "to_latex", "to_sympy",
]
