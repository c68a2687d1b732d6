"""One package per formalism of the papers: ``cel`` (the CEL paper), ``ceql`` (the CORE paper), ``sremo`` (the SRT paper),
``acel`` (the ACEL paper) and ``socel`` (the SO-CEL paper, with FO-CEL). Each builds its registry record in ``formalism.py``,
declared as an entry point of ``cer_theory.formalisms`` (docs/decisions.md D180)."""
