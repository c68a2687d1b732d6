"""The running example of the CEL paper (Fig. 1 and §4–§7): the sensor stream S_fire and formulas φ1–φ5.

Temperature events ``T(id, tmp)`` and humidity events ``H(id, hum)``; the paper writes both values as one
column, here they are the attributes ``tmp`` and ``hum`` so that formulas read as in the paper.
"""

from __future__ import annotations

from importlib import resources

from cer_theory.automata.cea import CEA
from cer_theory.core.events import Stream
from cer_theory.streams.rows import read_jsonl
from cer_theory.core.predicates.ast import TRUE, is_type
from cer_theory.formalisms.cel.ast import Formula
from cer_theory.formalisms.cel.parser import parse

FIRE_FILTER = "T.tmp > 40 AND H.hum <= 25 AND T.id = 0 AND H.id = 0"
PHI3_FILTER = "H1.hum < 30 AND H2.hum > 60 AND H.id = 1 AND T.id = 1"

FORMULAS: dict[str, str] = {
    "φ1": f"(T ; H) FILTER ({FIRE_FILTER})",
    "φ1'": f"(T : H) FILTER ({FIRE_FILTER})",
    "φ2": f"((T ; H) OR (H ; T)) FILTER ({FIRE_FILTER})",
    "φ2'": f"(T ALL H) FILTER ({FIRE_FILTER})",
    "φ3": f"(H IN H1 ; T+ ; H IN H2) FILTER ({PHI3_FILTER})",
    "φ3'": f"(H IN H1 ; T:+ ; H IN H2) FILTER ({PHI3_FILTER})",
    "φ4": f"PI[T]((H IN H1 ; T+ ; H IN H2) FILTER ({PHI3_FILTER}))",
    "φ5": "(H IN H1 ; T+ ; H IN H2) FILTER (H1.hum < 30 AND H2.hum > 60 AND H.id = T.id)",
}
"""The CEL paper's formulas as CEL text (φ5 is binary, hence not compilable by Theorem 6.2)."""


def fire_stream() -> Stream:
    """S_fire of the CEL paper, Fig. 1 (9 events, positions 0..8)."""
    return read_jsonl(resources.files("cer_theory").joinpath("examples/data/fire.jsonl").read_text())


def formula(name: str) -> Formula:
    """A named formula of :data:`FORMULAS`, parsed."""
    return parse(FORMULAS[name])


def example_5_3_cea() -> CEA:
    """The CEL paper, Example 5.3 / Fig. 4 (rebuilt from the text): CEs that start and end with an H and have any set
    of T's in between; q1 initial, q3 final."""
    H, T = is_type("H"), is_type("T")
    return CEA(["q1", "q2", "q3"], [
        ("q1", TRUE, (), "q1"), ("q1", H, {"H1"}, "q2"), ("q2", T, {"T"}, "q2"), ("q2", TRUE, (), "q2"),
        ("q2", H, {"H2"}, "q3"),
    ], ["q1"], ["q3"], name="Fig. 4")


def fig8_cea() -> CEA:
    """The CEL paper, Fig. 8 (rebuilt from the text of §9): the normal-form CEA of ``U ; [(V+ ; W) OR W]``, with the single
    variable X for the marking transitions (•)."""
    X = {"X"}
    return CEA(["q1", "q2", "q3"], [
        ("q1", TRUE, (), "q1"), ("q1", is_type("U"), X, "q2"), ("q2", is_type("V"), X, "q2"),
        ("q2", TRUE, (), "q2"), ("q2", is_type("W"), X, "q3"),
    ], ["q1"], ["q3"], name="Fig. 8")
