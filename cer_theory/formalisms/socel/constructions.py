"""SO-CEL's constructions in the shapes the registry gives them (``core.protocols.CONSTRUCTIONS``), so that every
command reads them from the record (the SO-CEL paper, *A Second-Order Approach to Complex Event Recognition*).

A UCEA is a CEA whose predicates are unary (the SO-CEL paper §4), so its stages are summarized as CEL's are. The
constructions themselves live in their own modules: the UCEA of Prop 5.2 (``compile``), the §5.3 *-property
decider (``star_property``), the way back to SO-CEL (Thm 6.2 and §6.3, ``to_socel``) and equivalence
(``equivalence``).
"""

from __future__ import annotations

from collections.abc import Iterable

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.protocols import Built
from cer_theory.core.wording import plural
from cer_theory.formalisms.cel.constructions import stage
from cer_theory.formalisms.socel.ast import Formula
from cer_theory.formalisms.socel.compile import compile_automaton
from cer_theory.formalisms.socel.printer import format
from cer_theory.formalisms.socel.star_property import has_star_property
from cer_theory.formalisms.socel.streaming import io_determinize_ucea
from cer_theory.formalisms.socel.to_socel import ucea_to_core_socel, ucea_to_socel_plus
from cer_theory.formalisms.socel.ucea import UCEA


def star_property_of(ucea: UCEA, title: str, *, budget: int) -> Built:
    """The §5.3 decision on a UCEA (D39), with the shortest counterexample stream when the property fails."""
    answer = has_star_property(ucea, budget=budget)
    heading = f"{title}\n{answer}" + ("" if answer.holds else f"\n  stream: {answer.stream!r}")
    return Built((stage(f"UCEA of {title}", ucea),), heading=heading)


def star_property(phi: Formula, *, budget: int) -> Built:
    """The *-property of φ's UCEA (Prop 5.2), by the SO-CEL paper's decider (§5.3, D39)."""
    return star_property_of(compile_automaton(phi), format(phi), budget=budget)


def determinize(phi: Formula, *, budget: int) -> Built:
    """φ's UCEA (Prop 5.2) and its I/O-determinization (the SO-CEL paper §4: the CEL paper Prop 5.5's subset construction over
    the minterms of the UCEA's predicates), the automaton Prop 5.1's streaming evaluator runs."""
    ucea = compile_automaton(phi)
    det = io_determinize_ucea(ucea, budget=budget)
    title = format(phi)
    return Built((stage(f"UCEA of {title}", ucea),
                  stage(f"IOdet (the SO-CEL paper §4) of {title}", det, by_construction="Prop. 5.5")))


def to_formula(ucea: UCEA, relations: Iterable[str], *, budget: int, core: bool = False) -> tuple[str, Formula]:
    """A UCEA back to SO-CEL: Thm 6.2 (SO-CEL+, equal outputs at every n) or, with ``core``, §6.3's core SO-CEL
    formula of ``⟦A⟧*``, refused when the automaton lacks the *-property (it would define another function)."""
    relations = list(relations)
    if core:
        answer = has_star_property(ucea, budget=budget)
        if not answer.holds:
            raise UnsupportedError(f"--core needs the *-property (the SO-CEL paper Thm 5.3), and the automaton {answer}; "
                                   f"drop --core for Thm 6.2's SO-CEL+ formula")
        phi, which = ucea_to_core_socel(ucea, relations), "§6.3 / Thm 5.3: core SO-CEL"
    else:
        phi, which = ucea_to_socel_plus(ucea, relations), "Thm 6.2: SO-CEL+"
    return f"{which}, UCEA with {plural(len(ucea.states), 'state')}, over relations {','.join(relations)}", phi


__all__ = ["determinize", "star_property", "star_property_of", "to_formula"]
