"""One package per formalism of the seed papers: ``cel`` (seed 000), ``ceql`` (seed 001), ``sremo`` (seed 002),
``acel`` (seed 003) and ``socel`` (seed 004, with FO-CEL). Each builds its registry record in ``formalism.py``,
declared as an entry point of ``cer_theory.formalisms`` (docs/decisions.md D180)."""
