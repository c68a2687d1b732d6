"""The ``cer-theory`` command line.

``eval``          evaluate a formula (CEL, or ``--logic ceql``, …) on a stream file, one JSON object per output
                  position, by the evaluator ``--via`` names (the formalism registry lists them);
``draw``          draw a formula's automaton (CEL's CEA by Theorems 6.2 and 7.2; ``--logic`` for the others);
``determinize``   its I/O-deterministic CEA (Prop. 5.5), or a windowed SREMO expression's dSRA (seed 002 Thm. 41);
``normal-form``   single-variable + I/O-det (§9.2);
``complement``    the complement of a windowed SREMO expression's dSRA (seed 002 Cor. 43);
``star-property`` decide the *-property (Def. 8.4; seed 004 §5.3 with ``--logic socel`` or ``--automaton``), with a
                  counterexample stream when it fails;
``to-socel``      a UCEA file back to SO-CEL (seed 004 Thm 6.2);
``to-cel``        back to CEL (Theorem 6.3, or Theorem 8.9 with ``--star``);
``rewrite``       the §8 formula rewrites (Props. 8.12, 8.13, 8.15);
``cces``          evaluate by the §9 algorithm and draw the final CCES;
``run``           evaluate a CEQL query with the tECS engine of seed 001 (CORE);
``spark``         evaluate a CEQL query on Spark (batch or streaming), written as JSON Lines or Parquet part files;
``demo``          the running example of seed 000: φ1–φ4 on S_fire, semantics and automaton side by side;
``equiv``         decide equivalence or containment of two formulas, with a shortest distinguishing stream;
``check-exercise`` check an answer to an exercise (``exercises`` lists the bundled ones);
``conformance``   test an engine (ours, Spark, CORE's pycer, any program) against the CEQL reference semantics;
``figures``       regenerate every drawing in ``figures/``.

Exit status: 0 on success, 2 on bad input (a formula that does not parse, a malformed stream, a formula
the requested evaluator cannot handle), with a message on stderr naming where the problem is.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cer_theory.core.errors import CerError

from cer_theory.cli import cel, ceql, conformance, equivalence, figures, formulas, socel, sremo

# Each module adds its commands to the parser; the order is the order of ``--help``.
COMMAND_MODULES = (formulas, cel, socel, sremo, ceql, conformance, equivalence, figures)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cer-theory", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    for module in COMMAND_MODULES:
        module.register(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except CerError as exc:
        print(f"cer-theory {args.command}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"cer-theory {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
