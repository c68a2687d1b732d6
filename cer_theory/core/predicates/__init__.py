"""One predicate language for all models: AST, evaluation, Z3 translation, minterms and printing.

The front door is lazy (:func:`cer_theory.core.lazy.lazy_exports`): the AST is light, but the solver loads Z3 and
the printing sympy, so each is imported only when one of its names is first used.
"""

from cer_theory.core.lazy import lazy_exports

_AST = ("FALSE", "TRUE", "And", "Attr", "BoolConst", "Cmp", "Const", "IsType", "Not", "On", "Opaque", "Or",
        "Predicate", "Slot", "attr", "cmp", "compare", "conj", "disj", "is_type", "kind", "neg", "reslot",
        "unary_body", "ARITH_OPS", "Arith", "Like", "InSet", "InRange", "arith", "like", "in_set", "in_range")
_SOLVER = ("Minterm", "equivalent", "implies", "is_satisfiable", "minterms", "naive_minterms", "witness",
           "witness_env")
_PRINTING = ("simplified", "to_latex", "to_sympy")

_EXPORTS = {**dict.fromkeys(_AST, "ast"), **dict.fromkeys(_SOLVER, "solver"), **dict.fromkeys(_PRINTING, "printing")}
__all__ = [*_AST, *_SOLVER, *_PRINTING]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
