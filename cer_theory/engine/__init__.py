"""The CORE engine of seed 001: CEQL queries evaluated by the tECS with constant work per event."""

from .types import CoreComplexEvent, Window

__all__ = ["CoreComplexEvent", "Window"]
