"""The CORE engine of seed 001: CEQL queries evaluated by the tECS with constant work per event."""

from .engine import Engine, Match, evaluate_query
from .evaluator import Determinizer, Evaluator
from .tecs import Tecs
from .types import CoreComplexEvent, Window

__all__ = ["CoreComplexEvent", "Determinizer", "Engine", "Evaluator", "Match", "Tecs", "Window", "evaluate_query"]
