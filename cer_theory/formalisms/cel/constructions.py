"""CEL's constructions in the shapes the registry gives them (``core.protocols.CONSTRUCTIONS``), so that every
command reads them from the record (the CEL paper, *A Formal Framework for Complex Event Recognition*).

Each function here only strings together the paper's constructions, which live in their own modules: the CEA of
Theorems 6.2 and 7.2 (``selection``), its I/O-determinization (Prop. 5.5, ``automata.determinize.eager``), the
§9.2 normal form, the *-property decision (Def. 8.4, ``star_property``), the way back to CEL (Theorems 6.3 and
8.9, ``to_cel``), the §8 rewrites and equivalence (``equivalence``). The results are :class:`Built` values that
a reader is shown: each automaton with a one-line summary.
"""

from __future__ import annotations

from collections.abc import Iterable

from cer_theory.automata.cea import CEA
from cer_theory.automata.determinize.eager import io_determinize
from cer_theory.automata.equivalence import LevelName, Verdict
from cer_theory.core.errors import UnsupportedError
from cer_theory.core.protocols import Built, Stage
from cer_theory.core.wording import plural
from cer_theory.formalisms.cel import equivalence, rewrites
from cer_theory.formalisms.cel.ast import Formula
from cer_theory.formalisms.cel.normal_form import normal_form as _normal_form
from cer_theory.formalisms.cel.selection import compile_with_selection
from cer_theory.formalisms.cel.star_property import has_star_property
from cer_theory.formalisms.cel.to_cel import cea_to_cel, cea_to_cel_star, formula_size

REWRITES = {
    "strict-to-contiguous": ("strict_to_contiguous", "Prop. 8.13: CEL*∪{STRICT} → CEL*∪{:,⊕}"),
    "contiguize": ("contiguize", "Prop. 8.13: STRICT(φ) as φ with every ; → : and + → ⊕"),
    "contig-to-strict": ("contig_to_strict", "Prop. 8.12: CEL*∪{:} → CEL*∪{STRICT}"),
    "cplus-to-strict": ("cplus_to_strict", "Prop. 8.15: unary CEL*∪{:,⊕} → CEL*∪{STRICT} (CE level)"),
}
"""The §8 rewrites by command-line name: (function of ``rewrites``, what it is)."""


def summary(cea: CEA, *, by_construction: str | None = None) -> str:
    """A CEA's sizes and whether it is I/O-deterministic (Def. 5.4). ``by_construction`` names the result that
    makes it so (Prop. 5.5): then Def. 5.4 is not checked again pair by pair (quadratic in the transitions of a
    state, with a solver call each)."""
    if by_construction:
        det = f"I/O-deterministic ({by_construction})"
    else:
        det = "I/O-deterministic" if cea.is_io_deterministic() else "not I/O-deterministic"
    return f"{plural(len(cea.states), 'state')}, {plural(len(cea.transitions), 'transition')}, {det}"


def stage(title: str, cea: CEA, *, by_construction: str | None = None) -> Stage:
    """A CEA (or a UCEA, the SO-CEL paper §4) as a stage of a construction, summarized by :func:`summary`."""
    return Stage(title, cea, lambda: summary(cea, by_construction=by_construction))


def determinize(phi: Formula, *, budget: int, trim: bool = False) -> Built:
    """The CEA of φ (Theorems 6.2 and 7.2) and its I/O-deterministic equivalent (Prop. 5.5) over the reachable
    subsets; ``trim`` drops the dead state and the states no accepting run visits."""
    cea = compile_with_selection(phi, budget=budget)
    det = io_determinize(cea, budget=budget, complete=not trim)
    if trim:
        det = det.restrict((det.reachable() & det.coreachable()) | det.initial)
    return Built((stage(f"CEA of {phi}", cea),
                  stage(f"IOdet (Prop. 5.5) of {phi}", det.relabel_states(), by_construction="Prop. 5.5")))


def normal_form(phi: Formula, *, budget: int) -> Built:
    """The §9.2 normal form of φ's CEA: single-variable, then I/O-deterministic."""
    nf = _normal_form(compile_with_selection(phi, budget=budget), budget=budget)
    return Built((stage(f"normal form (§9.2) of {phi}", nf, by_construction="Prop. 5.5"),))


def star_property(phi: Formula, *, budget: int) -> Built:
    """Whether φ's CEA has the *-property of Def. 8.4 (its outputs equal its outputs under the *-semantics, Prop.
    8.8), with a shortest counterexample when it does not (the answer's text)."""
    cea = compile_with_selection(phi, budget=budget)
    answer = has_star_property(cea, budget=budget)
    return Built((stage(f"CEA of {phi}", cea),), heading=f"{phi}\n{answer}")


def to_formula(cea: CEA, relations: Iterable[str] | None = None, *, budget: int,
               star: bool = False) -> tuple[str, Formula]:
    """A CEA back to CEL: Theorem 6.3 (valuations), or Theorem 8.9 with ``star`` (complex events under the
    *-semantics); ``budget`` also bounds the size of the formula built. Returns (which theorem and sizes, φ)."""
    back = (cea_to_cel_star if star else cea_to_cel)(cea, relations, budget=budget)
    which = "Theorem 8.9 (CE level, *-semantics)" if star else "Theorem 6.3 (valuation level)"
    return f"{which}: CEA with {plural(len(cea.states), 'state')} → formula of size {formula_size(back)}", back


def rewrite(kind: str, phi: Formula) -> tuple[str, Formula]:
    """One of the §8 rewrites by its name in :data:`REWRITES`: (what it is, the rewritten formula)."""
    if kind not in REWRITES:
        raise UnsupportedError(f"no rewrite {kind!r}; CEL's rewrites are "
                               + "; ".join(f"{k} ({title})" for k, (_, title) in REWRITES.items()))
    name, title = REWRITES[kind]
    return title, getattr(rewrites, name)(phi)


def equivalent(phi: Formula | str, psi: Formula | str, *, level: LevelName = "valuations",
               budget: int, schema: str | None = None) -> Verdict:
    """Equivalence (the CEL paper §4) decided on the CEA (D107, D108); ``schema`` as text, e.g. ``"T(id,tmp) H(id)"``."""
    return equivalence.equivalent(phi, psi, level=level, budget=budget,
                                  schema=None if schema is None else equivalence.parse_schema(schema))


def contained(phi: Formula | str, psi: Formula | str, *, level: LevelName = "valuations",
              budget: int, schema: str | None = None) -> Verdict:
    """Containment ⟦φ⟧ ⊆ ⟦ψ⟧, decided as :func:`equivalent`."""
    return equivalence.contained(phi, psi, level=level, budget=budget,
                                 schema=None if schema is None else equivalence.parse_schema(schema))


__all__ = ["REWRITES", "contained", "determinize", "equivalent", "normal_form", "rewrite", "stage",
           "star_property", "summary", "to_formula"]
