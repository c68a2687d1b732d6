"""The SO-CEL paper's constructions on the command line: the *-property of an SO-CEL formula's UCEA or of a hand-written
automaton (``star-property --logic socel`` / ``--automaton``, dispatched here from :mod:`cer_theory.cli.cel`), and
``to-socel``, a UCEA file back to SO-CEL (Thm 6.2, or §6.3's core SO-CEL with ``--core``)."""

from __future__ import annotations

import argparse

from cer_theory.core.errors import UnsupportedError

from cer_theory.cli.common import read_text_argument, show_automaton
from cer_theory.cli.options import whole_number


def load_ucea(path: str):
    """The automaton of a JSON file (``formalisms/socel/automaton_json``), as a UCEA: a CEA file is read as the
    UCEA with the same states and transitions (the SO-CEL paper §4: a UCEA is a CEA whose predicates are unary)."""
    from cer_theory.formalisms.socel.automaton_json import load_automaton
    from cer_theory.formalisms.socel.ucea import UCEA

    a = load_automaton(path)
    return a if isinstance(a, UCEA) else UCEA.of(a)


def star_property(args: argparse.Namespace) -> int:
    """``star-property --logic socel FORMULA`` or ``--automaton A.json``: the §5.3 decision on the formula's UCEA
    (Prop 5.2) or on the file's automaton, with the shortest counterexample when the property fails."""
    from cer_theory.formalisms.socel.star_property import has_star_property

    if args.automaton is not None:
        if args.formula is not None:
            raise UnsupportedError("give either a formula or --automaton FILE, not both")
        if args.logic not in ("cel", "socel"):
            raise UnsupportedError(f"--automaton reads a UCEA or CEA file; --logic {args.logic} does not apply")
        ucea, title = load_ucea(args.automaton), args.automaton
    else:
        from cer_theory.formalisms.socel.compile import compile_automaton
        from cer_theory.formalisms.socel.parser import parse
        from cer_theory.formalisms.socel.printer import format

        if args.logic != "socel":
            raise UnsupportedError(f"star-property decides CEL (the default) and SO-CEL (--logic socel) formulas "
                                   f"and automaton files (--automaton); not --logic {args.logic}")
        if args.formula is None:
            raise UnsupportedError("a formula is needed (or --automaton FILE)")
        phi = parse(read_text_argument(args.formula))
        ucea, title = compile_automaton(phi), format(phi)
    answer = has_star_property(ucea, budget=args.budget)
    print(f"{title}\n{answer}")
    if not answer.holds:
        print(f"  stream: {answer.stream!r}")
    if args.dot:
        show_automaton(ucea, args, f"UCEA of {title}")
    return 0


def cmd_to_socel(args: argparse.Namespace) -> int:
    """A UCEA file back to SO-CEL: Thm 6.2 (SO-CEL+, equal outputs at every n) or, with ``--core``, §6.3's core
    SO-CEL formula of ``⟦A⟧*``, refused when the automaton lacks the *-property (it would define another
    function)."""
    from cer_theory.formalisms.cel.to_cel import default_relations
    from cer_theory.formalisms.socel.printer import format
    from cer_theory.formalisms.socel.star_property import has_star_property
    from cer_theory.formalisms.socel.to_socel import ucea_to_core_socel, ucea_to_socel_plus

    ucea = load_ucea(args.automaton)
    relations = [r for r in args.relations.split(",") if r] if args.relations is not None else default_relations(ucea)
    if not relations:
        raise UnsupportedError("--relations: give at least one relation name (R,T,…)")
    if args.core:
        answer = has_star_property(ucea, budget=args.budget)
        if not answer.holds:
            raise UnsupportedError(f"{args.automaton}: --core needs the *-property (the SO-CEL paper Thm 5.3), and the "
                                   f"automaton {answer}; drop --core for Thm 6.2's SO-CEL+ formula")
        phi, which = ucea_to_core_socel(ucea, relations), "§6.3 / Thm 5.3: core SO-CEL"
    else:
        phi, which = ucea_to_socel_plus(ucea, relations), "Thm 6.2: SO-CEL+"
    print(f"# {which}, UCEA with {len(ucea.states)} states, over relations {','.join(relations)}")
    print(format(phi))
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
    t.add_argument("--budget", type=whole_number(minimum=1), default=100_000,
                   help="budget of the *-property check (--core), a whole number ≥ 1")
    t.set_defaults(func=cmd_to_socel)


__all__ = ["register", "star_property", "cmd_to_socel", "load_ucea"]
