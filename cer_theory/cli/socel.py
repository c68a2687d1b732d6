"""The SO-CEL paper's automaton files on the command line: the *-property of a hand-written automaton (``star-property
--automaton``, dispatched here from :mod:`cer_theory.cli.cel`), and ``to-socel``, a UCEA file back to SO-CEL (Thm
6.2, or §6.3's core SO-CEL with ``--core``), by the constructions of SO-CEL's registry record."""

from __future__ import annotations

import argparse

from cer_theory.core.budget import work_budget
from cer_theory.core.errors import UnsupportedError
from cer_theory.core.protocols import get

from cer_theory.cli.common import construct, show
from cer_theory.cli.layer import declare, file

LOGIC = "socel"
"""The formalism whose automata the files hold: UCEA (the SO-CEL paper §4), of which a CEA file is one."""


def load_ucea(path: str):
    """The automaton of a JSON file (``formalisms/socel/automaton_json``), as a UCEA: a CEA file is read as the
    UCEA with the same states and transitions (the SO-CEL paper §4: a UCEA is a CEA whose predicates are unary)."""
    from cer_theory.formalisms.socel.automaton_json import load_automaton
    from cer_theory.formalisms.socel.ucea import UCEA

    a = load_automaton(path)
    return a if isinstance(a, UCEA) else UCEA.of(a)


def star_property_of_file(args: argparse.Namespace) -> int:
    """``star-property --automaton A.json``: the §5.3 decision on the file's automaton (D60), with the shortest
    counterexample when the property fails."""
    from cer_theory.formalisms.socel.constructions import star_property_of

    if args.formula is not None:
        raise UnsupportedError("give either a formula or --automaton FILE, not both")
    get(LOGIC).construction("star-property")  # the record says whether SO-CEL decides it
    with work_budget(args.budget):
        show(star_property_of(load_ucea(args.automaton), args.automaton, budget=args.budget), args, stages=False)
    return 0


def cmd_to_socel(args: argparse.Namespace) -> int:
    """A UCEA file back to SO-CEL by the record's ``to-formula``: Thm 6.2 (SO-CEL+) or, with ``--core``, §6.3's
    core SO-CEL formula, refused when the automaton lacks the *-property."""
    from cer_theory.formalisms.cel.to_cel import default_relations

    logic = get(LOGIC)
    ucea = load_ucea(args.automaton)
    relations = [r for r in args.relations.split(",") if r] if args.relations is not None else default_relations(ucea)
    if not relations:
        raise UnsupportedError("--relations: give at least one relation name (R,T,…)")
    which, phi = construct(logic, "to-formula", ucea, relations, budget=args.budget, core=args.core)
    print(f"# {which}")
    print(logic.format(phi))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    t = sub.add_parser("to-socel", help="translate a UCEA file (JSON) back to SO-CEL (the SO-CEL paper Thm 6.2)",
                       description="Read a UCEA or CEA in the JSON automaton format and print an equivalent "
                                   "SO-CEL+ formula (Thm 6.2), or a core SO-CEL formula (--core, §6.3) when the "
                                   "automaton has the *-property. Exit 2 on a malformed file.")
    t.add_argument("automaton", help="automaton file (JSON: kind, states, initial, final, transitions)")
    t.add_argument("--relations", help="comma-separated relation names of the schema (default: the types the "
                                       "guards mention, plus a fresh one for all others)")
    t.add_argument("--core", action="store_true", help="core SO-CEL (needs the *-property; refused otherwise)")
    declare(t, inputs=[file("automaton")], budget=True)
    t.set_defaults(func=cmd_to_socel)


__all__ = ["register", "star_property_of_file", "cmd_to_socel", "load_ucea"]
