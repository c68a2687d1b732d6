"""A user's typed program: ``mypy --strict`` on it checks that the front door's types reach the user (the
package ships ``py.typed``). Run by test_typing.py, never imported by the tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cer_theory as ct
from cer_theory.formalisms.formula import Drawing, Formula
from cer_theory.core.protocols import Automaton, Formalism

S: ct.Stream = ct.fire_stream()
phi: Formula = ct.cel("(T ; H) FILTER T.tmp > 40")
out: list[frozenset[Any]] = phi.evaluate(S, via="cea")
automaton: Automaton = phi.compile()
drawing: Drawing = phi.draw()
svg: str = drawing.to_svg()
record: Formalism = phi.formalism
query: Formula = ct.ceql("SELECT * WHERE SELL ; BUY WITHIN 3 EVENTS")
stocks: ct.Stream = ct.example_stream("stocks")
path: Path = ct.example_path("stocks")
engine: ct.Engine = ct.Engine("SELECT * WHERE SELL ; BUY WITHIN 3 EVENTS")
others: list[Formula] = [ct.socel("T ; H"), ct.focel("T AS x"), ct.acel("T ; H"), ct.sremo('<type = "T">')]
version: str = ct.__version__
