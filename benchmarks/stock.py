"""A deterministic, stock-like stream with the schema of CORE's stock experiments (the CORE paper §5, "Datasets", and App. D).

The paper's stock data (NYSE trades of one day, ≈225k events, ≈10 events/s) cannot be fetched here, so the benchmark
generates a stream with the same schema and the same orders of magnitude (the CORE paper §5, "Datasets"):

* events ``BUY`` and ``SELL`` (50/50) with ``id`` (the position), ``name`` (one of the ten ticker symbols of the
  queries, uniform), ``volume`` (a round lot: 100·k, k uniform in 1..50), ``price`` (a mean-reverting walk around
  the stock's price level, two decimals) and ``stock_time`` (milliseconds, non-decreasing);
* about 10 events per second of ``stock_time``, so a window of ``10000 [stock_time]`` (the suite's T) holds about
  100 events, the real stream's rate ("a few hundred" per window, the CORE paper §5; the window holds 100 events here);
* the price levels put the thresholds of Q2/Q5 (MSFT > 26.0, ORCL > 11.14, AMAT ≥ 18.92) near the median, so those
  filters halve the matching events, as filters on real prices would.

Two choices make peers comparable [ours]:

* ``stock_time`` moves in ticks of 7 ms. No two events are then exactly 10000·m ms apart (m = 1..4; 10000·m is not
  a multiple of 7), so the paper's inclusive window (``end − start ≤ ε``) and CORE's strict one (``< ε``, in its Java
  code) select the same complex events, and the engines' output counts can be compared for equality.
* Only ``random.random()`` is drawn (no ``gauss``, ``choice`` or ``randint``), so the stream is the same bit for bit
  under every CPython version; the pycer peer generates it again under CPython 3.13.

The generator is a plain iterator: constant memory whatever ``n``. This module imports only the standard library
(the pycer driver imports it in an interpreter without ``cer_theory``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

STOCKS: tuple[tuple[str, float], ...] = (
    ("INTC", 30.0), ("RIMM", 25.0), ("QQQ", 40.0), ("IPIX", 3.5), ("AMAT", 18.92),
    ("CSCO", 18.0), ("YHOO", 18.0), ("DELL", 25.0), ("ORCL", 11.14), ("MSFT", 26.0),
)
"""The ten symbols the suite's queries name, each with the price level its random walk reverts to."""

SCHEMA: dict[str, str] = {"id": "int", "name": "string", "volume": "int", "price": "double", "stock_time": "int"}
"""The attributes of BUY and SELL, as in CORE's stock declaration (its
experiments repository, not the paper; the CORE paper App. D describes the data)."""

DECLARATION = (
    "CREATE STREAM S {\n"
    + ",\n".join(f"  EVENT {t} {{ " + ", ".join(f"{a}:{k}" for a, k in SCHEMA.items()) + " }" for t in ("BUY", "SELL"))
    + "\n}"
)
"""The stream declaration in CORE's syntax (used by the pycer peer; ``FROM S`` in every query)."""

TICK_MS = 7
"""``stock_time`` granularity: no difference of two timestamps is a multiple of 10000 ms (see the module note)."""

MEAN_GAP_MS = 100.0
"""Mean gap between consecutive events: ≈10 events per second, ≈100 events in the suite's window T."""


def stock_stream(n: int, seed: int = 0, *, mean_gap_ms: float = MEAN_GAP_MS) -> Iterator[dict]:
    """The first ``n`` events of the stream for ``seed``, as dicts ``{"type": "BUY"|"SELL", "id", "name",
    "volume", "price", "stock_time"}``. Same ``(n, seed)``, same events, under any CPython ≥ 3.8."""
    rng = random.Random(seed)
    draw = rng.random
    levels = [math.log(level) for _, level in STOCKS]
    log_price = list(levels)
    names = [name for name, _ in STOCKS]
    mean_ticks = mean_gap_ms / TICK_MS
    now = 0
    for i in range(n):
        k = int(draw() * len(names))
        event_type = "SELL" if draw() < 0.5 else "BUY"
        # AR(1) walk of the log price: mean-reverting, standard deviation ≈ 5 % of the level.
        log_price[k] = levels[k] + 0.995 * (log_price[k] - levels[k]) + (draw() - 0.5) * 0.017
        volume = 100 * (1 + int(draw() * 50))
        # Exponential gaps, rounded down to whole ticks (ties are allowed: they only merge runs).
        now += TICK_MS * int(-math.log(1.0 - draw()) * mean_ticks)
        yield {
            "type": event_type, "id": i, "name": names[k], "volume": volume,
            "price": round(math.exp(log_price[k]), 2), "stock_time": now,
        }
