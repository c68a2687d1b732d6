"""The module-level pieces a ``Formalism`` record for SO-CEL and FO-CEL needs (the SO-CEL paper), with uniform signatures
``(ast, stream) -> [out_0, out_1, …]`` so that registering them is one record.

SO-CEL evaluators: the reference semantics (Table 1, §2.1), the compiled UCEA (Prop 5.2), the *-semantics of the
loop-free UCEA (Thm 5.3; core SO-CEL only) and Prop 5.1's streaming evaluator over the I/O-determinized UCEA.
Outputs print in the output contract (docs/output-contract.md): ``{"position": 9, "kind": "valuations",
"outputs": [{"HH": [9], "HS": [4, 6, 7], "T": [3]}, …]}`` with labels with ∅ omitted, keys and positions sorted, and
the list sorted by (label, positions) pairs (``{}`` for ``C∅``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cer_theory.core.errors import UnsupportedError
from cer_theory.core.events import Event, Valuation
from cer_theory.formalisms.socel import ast as so
from cer_theory.formalisms.socel.compile import compile_automaton, compile_star_automaton, strict_to_contiguity
from cer_theory.formalisms.socel.streaming import evaluate_streaming, io_determinize_ucea
from cer_theory.formalisms.socel.focel import Bind, FoFilter, FoFormula, FoOr, FoPlus, check_safe, from_socel
from cer_theory.formalisms.socel.focel import run as fo_run
from cer_theory.formalisms.socel.parser import parse
from cer_theory.formalisms.socel.printer import format
from cer_theory.formalisms.socel.semantics import evaluate as so_evaluate

Outputs = list[frozenset]


# ---------------------------------------------------------------------------------------------- SO-CEL


def run_semantics(phi: so.Formula, stream: Sequence[Event]) -> Outputs:
    """The reference semantics ``[⟦φ⟧_0(S), …]``."""
    return so_evaluate(phi, stream)


def compilable(phi: so.Formula) -> bool:
    """Prop 5.2's fragment: unary filters, and no STRICT over π or ALL (Prop 6.4's rewrite refuses those)."""
    try:
        strict_to_contiguity(phi)
    except UnsupportedError:
        return False
    return so.is_unary(phi)


def run_ucea(phi: so.Formula, stream: Sequence[Event]) -> Outputs:
    """``⟦A_φ⟧_n`` of the compiled UCEA (Prop 5.2)."""
    return compile_automaton(phi).run(stream)


def star_compilable(phi: so.Formula) -> bool:
    """Thm 5.3's fragment: core SO-CEL with unary filters."""
    return so.is_core(phi) and so.is_unary(phi)


def run_ucea_star(phi: so.Formula, stream: Sequence[Event]) -> Outputs:
    """``⟦A*_φ⟧*_n`` of the loop-free UCEA under the *-semantics (Thm 5.3)."""
    return compile_star_automaton(phi).star_run(stream)


def run_prop_5_1(phi: so.Formula, stream: Sequence[Event]) -> Outputs:
    """Prop 5.1's streaming evaluator over the I/O-determinized compiled UCEA."""
    return [frozenset(out) for out in evaluate_streaming(io_determinize_ucea(compile_automaton(phi)), stream)]


def valuation_to_json(c: Valuation) -> dict[str, list[int]]:
    """``{"HH": [9], "HS": [4, 6, 7]}``: labels with ∅ omitted, keys and positions sorted; ``{}`` for ``C∅``."""
    return c.to_json()


def valuation_sort_key(c: Valuation) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Outputs are listed by their labels in order, each label's positions compared as numbers."""
    return tuple((label, tuple(positions)) for label, positions in valuation_to_json(c).items())


def valuation_from_json(data: Any) -> Valuation:
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise UnsupportedError(f"a complex event is an object from labels to position lists, got {data!r}")
    return Valuation(data)


# ---------------------------------------------------------------------------------------------- FO-CEL


def parse_fo(text: str) -> FoFormula:
    """FO-CEL text (``R AS x``, FILTER, OR, ``;``, ``+``), checked for safety (decisions D40)."""
    phi = from_socel(parse(text))
    check_safe(phi)
    return phi


def _so_syntax(phi: FoFormula) -> so.Formula:
    if isinstance(phi, Bind):
        return so.In(so.Atom(phi.relation), phi.var)
    if isinstance(phi, FoFilter):
        return so.Filter(_so_syntax(phi.body), phi.predicate)
    if isinstance(phi, FoPlus):
        return so.Plus(_so_syntax(phi.body))
    node = so.Disj if isinstance(phi, FoOr) else so.Seq
    return node(_so_syntax(phi.left), _so_syntax(phi.right))  # type: ignore[attr-defined]


def format_fo(phi: FoFormula) -> str:
    """Text that :func:`parse_fo` reads back (``R AS x`` prints as its alias ``R IN x``)."""
    return format(_so_syntax(phi))


def run_fo(phi: FoFormula, stream: Sequence[Event]) -> Outputs:
    """``[⟦φ⟧_0(S), …]``, matches as sets of positions."""
    return fo_run(phi, stream)


def match_to_json(m: frozenset[int]) -> list[int]:
    return sorted(m)


def match_sort_key(m: frozenset[int]) -> tuple[int, ...]:
    return tuple(sorted(m))


__all__ = ["run_semantics", "compilable", "run_ucea", "star_compilable", "run_ucea_star", "run_prop_5_1",
           "valuation_to_json", "valuation_sort_key", "valuation_from_json", "parse_fo", "format_fo", "run_fo",
           "match_to_json", "match_sort_key"]
