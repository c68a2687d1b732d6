"""The CORE engine of the CORE paper: CEQL queries evaluated by the tECS with constant work per event."""

from cer_theory.engines.core.engine import Engine, Match, evaluate_query
from cer_theory.engines.core.evaluator import Determinizer, Evaluator
from cer_theory.engines.core.run import Run, run_stream
from cer_theory.engines.core.tecs import Tecs
from cer_theory.core.events import CoreComplexEvent
from cer_theory.core.windows import Window

__all__ = ["CoreComplexEvent", "Determinizer", "Engine", "Evaluator", "Match", "Run", "Tecs", "Window", "evaluate_query",
           "run_stream"]
