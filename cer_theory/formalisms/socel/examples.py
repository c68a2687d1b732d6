"""The worked examples of the SO-CEL paper (*A Second-Order Approach to Complex Event Recognition*), built in."""

from __future__ import annotations

from importlib import resources

from cer_theory.core.events import Stream
from cer_theory.streams.rows import read_jsonl
from cer_theory.core.predicates.ast import TRUE, IsType
from cer_theory.formalisms.socel.ucea import UCEA, transition

SENSOR_READINGS = (("T", -2), ("H", 30), ("H", 20), ("T", -1), ("H", 27), ("T", 2), ("H", 45), ("H", 50),
                   ("T", -2), ("H", 65))
"""Fig. 1's stream: temperature (T) and humidity (H) readings, attribute ``value``, positions 0..9; bundled as
``cer_theory/examples/data/sensors.jsonl`` (:data:`SENSORS_FILE`), which :func:`sensor_stream` reads."""

SENSORS_FILE = "examples/data/sensors.jsonl"
"""The bundled sensor stream, relative to the ``cer_theory`` package (JSON Lines with ``type`` and ``value``)."""

FREEZING_PATTERN = ("(T ; H+ IN HS ; H IN HH) FILTER T[value < 0] FILTER incr(HS.value) "
                    "FILTER HH[value > 60]")
"""§2's freezing pattern: a sub-zero temperature, then increasing humidity readings HS, then one above 60."""

FREEZING_PATTERN_RENAMED = ("(T ; (H+ IN HS)[H -> HS] ; (H IN HH)[H -> HH]) FILTER T[value < 0] "
                            "FILTER incr(HS.value) FILTER HH[value > 60]")
"""Example 3.2: the same pattern with the label H renamed away, so outputs carry only T, HS and HH."""


def sensor_stream() -> Stream:
    """Fig. 1's sensor stream, read from the bundled file :data:`SENSORS_FILE`."""
    return read_jsonl(resources.files("cer_theory").joinpath(SENSORS_FILE).read_text(encoding="utf-8"))


def fig2_ucea() -> UCEA:
    """Fig. 2: the UCEA that outputs ``{R ↦ {i}}`` at the position of a later T (``TRUE/∅`` loops on q0 and
    q1, ``q0 --type=R/{R}--> q1 --type=T/∅--> q2``, F = {q2}). No SO-CEL formula defines it (Prop 5.2's
    converse fails): it lacks the *-property."""
    return UCEA(("q0", "q1", "q2"),
                [transition("q0", TRUE, (), "q0"), transition("q0", IsType("R"), {"R"}, "q1"),
                 transition("q1", TRUE, (), "q1"), transition("q1", IsType("T"), (), "q2")],
                {"q0"}, {"q2"}, name="Fig. 2")


__all__ = ["SENSOR_READINGS", "SENSORS_FILE", "FREEZING_PATTERN", "FREEZING_PATTERN_RENAMED", "sensor_stream", "fig2_ucea"]
