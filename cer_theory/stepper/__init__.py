"""Watch a run: every model of the toolkit stepped position by position, in Python, in Jupyter and as one
self-contained HTML page.

* :mod:`~cer_theory.stepper.frames` — :class:`Frame` (one position) and :class:`Run` (all of them);
* :mod:`~cer_theory.stepper.models` — the frames of a CEA, UCEA, ACEA and SRT run, and of the CCES and tECS
  engines, read off each model's own run semantics; :func:`step` picks the right one;
* :mod:`~cer_theory.stepper.page` — the HTML page (inline SVG, keyboard navigation, no network).
"""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {"MAX_POSITIONS": "frames", "MAX_ROWS": "frames", "Frame": "frames", "Row": "frames", "Run": "frames",
            "STEPPERS": "models", "acea_run": "models", "cces_run": "models", "cea_run": "models",
            "event_text": "models", "srt_run": "models", "step": "models", "tecs_run": "models",
            "valuation_text": "models"}
"""The front door is lazy: the frames' limits (read by every command line start-up) do not load the models and
their engines."""

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = sorted(_EXPORTS)
