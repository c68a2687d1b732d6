"""The bundled sample streams, by name: ``fire`` (Fig. 1 of Grez, Riveros, Ugarte and Vansummeren's *A Formal
Framework for Complex Event Recognition*), ``sensors`` (temperature and humidity readings) and ``stocks`` (10,000
stock trades, the data of the CORE examples)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from cer_theory.core.errors import RegistryError
from cer_theory.core.events import Stream
from cer_theory.streams.rows import load

EXAMPLE_STREAMS: tuple[str, ...] = ("fire", "sensors", "stocks")
"""The names :func:`example_stream` knows."""


def example_path(name: str) -> Path:
    """The file of the bundled stream ``name`` (JSON Lines), inside the installed package."""
    if not isinstance(name, str) or name not in EXAMPLE_STREAMS:
        raise RegistryError(f"no example stream {name!r}; choose one of {', '.join(EXAMPLE_STREAMS)}")
    return Path(str(resources.files("cer_theory").joinpath(f"examples/data/{name}.jsonl")))


def example_stream(name: str) -> Stream:
    """The bundled stream ``name`` (one of :data:`EXAMPLE_STREAMS`), loaded."""
    return load(example_path(name))
