"""Watch a run: every model of the toolkit stepped position by position, in Python, in Jupyter and as one
self-contained HTML page.

* :mod:`~cer_theory.stepper.frames` — :class:`Frame` (one position) and :class:`Run` (all of them);
* :mod:`~cer_theory.stepper.models` — the frames of a CEA, UCEA, ACEA and SRT run, and of the CCES and tECS
  engines, read off each model's own run semantics; :func:`step` picks the right one;
* :mod:`~cer_theory.stepper.page` — the HTML page (inline SVG, keyboard navigation, no network).
"""

from cer_theory.stepper.frames import MAX_POSITIONS, MAX_ROWS, Frame, Row, Run
from cer_theory.stepper.models import (STEPPERS, acea_run, cces_run, cea_run, event_text, srt_run, step, tecs_run,
                                       valuation_text)

__all__ = ["MAX_POSITIONS", "MAX_ROWS", "STEPPERS", "Frame", "Row", "Run", "acea_run", "cces_run", "cea_run",
           "event_text", "srt_run", "step", "tecs_run", "valuation_text"]
