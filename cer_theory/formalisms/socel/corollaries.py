"""The SO-CEL paper Cor 5.6 made executable: for unary predicates, AND and ALL are not primitive (they are eliminated into
core SO-CEL), while UNLESS is primitive (it breaks the *-property, shown by a replayable witness).

The elimination goes through the automata: compile (Prop 5.2 and the products of Cor 5.6), confirm the
*-property (§5.3's decider), then translate the *-semantics back to core SO-CEL (Thm 5.3 ⇐). By Cor 5.5 the
result defines the same function as the input.
"""

from __future__ import annotations

from collections.abc import Sequence

from cer_theory.core.errors import UnsupportedError
from cer_theory.formalisms.socel.ast import Formula, Unless
from cer_theory.formalisms.socel.ast import relations as relations_of
from cer_theory.formalisms.socel.compile import compile_automaton
from cer_theory.formalisms.socel.star_property import StarPropertyAnswer, has_star_property
from cer_theory.formalisms.socel.to_socel import ucea_to_core_socel


def to_core_socel(phi: Formula, relations: Sequence[str] | None = None) -> Formula:
    """Cor 5.5/5.6: a core SO-CEL formula equivalent to ``phi`` (unary filters; AND and ALL allowed) over streams of
    ``relations`` (default: the relations of ``phi``). Raises :class:`UnsupportedError` with the counterexample
    when the function of ``phi`` lacks the *-property, so that no core SO-CEL formula defines it."""
    rels = tuple(sorted(relations_of(phi))) if relations is None else tuple(relations)
    a = compile_automaton(phi).trim()
    answer = has_star_property(a)
    if not answer.holds:
        raise UnsupportedError(f"no core SO-CEL formula is equivalent (Cor 5.5): {answer}")
    return ucea_to_core_socel(a, rels)


def unless_is_primitive(left: Formula, right: Formula) -> StarPropertyAnswer:
    """Cor 5.6: the *-property counterexample of ``left UNLESS right`` (the SO-CEL paper's witness is ``R UNLESS T``)."""
    return has_star_property(compile_automaton(Unless(left, right)))


__all__ = ["to_core_socel", "unless_is_primitive"]
