"""One predicate language for all models: AST, evaluation, Z3 translation, minterms and printing."""

from .ast import (FALSE, TRUE, And, Attr, BoolConst, Cmp, Const, IsType, Not, On, Opaque, Or, Predicate, Slot,
                  attr, cmp, compare, conj, disj, is_type, kind, neg, reslot, unary_body)

__all__ = [
    "FALSE", "TRUE", "And", "Attr", "BoolConst", "Cmp", "Const", "IsType", "Not", "On", "Opaque", "Or",
    "Predicate", "Slot", "attr", "cmp", "compare", "conj", "disj", "is_type", "kind", "neg", "reslot",
    "unary_body",
]
