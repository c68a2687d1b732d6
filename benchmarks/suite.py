"""CORE's stock benchmark suite as CEQL text (the CORE paper, §5, App. D and App. G).

* ``Pn`` (n = 3, 6, 9, 12, 24): a sequence of n BUY/SELL events of named stocks (``SELL`` at every third step,
  ``BUY`` otherwise) within ``T = 10000 [stock_time]`` (10 s). With output.
* ``Pn′`` (written ``Pn'`` here): ``Pn`` followed by a ``BUY`` named ``'NotExists'``, which never occurs: no output,
  so it measures the update cost alone.
* ``P3′xm`` (m = 2, 3, 4): the window sweep, ``P3′`` within ``m·T``; ``P3′x1`` is ``P3′``.
* ``Q1``–``Q7``: App. G's queries with other operators (window 30 s): disjunction (Q4–Q6), iteration (Q7),
  ``PARTITION BY [volume]`` with ``CONSUME BY ANY`` (Q3, Q6), extra price filters (Q2, Q5).

Corrections of the printed queries (docs/errata.md): S12′'s ``T3[name = '000']`` is ``'QQQ'``; S24′'s ``:`` is ``;``;
``stock time`` is ``stock_time``; App. G's "O3" is Q3. The generator below (the P_n template of §5)
applies them, and the suite is built from it. Every query is fully parenthesized where precedence could matter
(the CORE paper gives none; docs/decisions.md D25).
"""

from __future__ import annotations

from dataclasses import dataclass

T = 10000
"""The suite's window: 10 s of ``stock_time`` (ms)."""

STOCK_NAMES = ["INTC", "RIMM", "QQQ", "IPIX", "AMAT", "CSCO", "YHOO", "DELL", "ORCL", "MSFT", "INTC", "RIMM"] * 2
"""T1..T24's stock names (the CORE paper App. D)."""


@dataclass(frozen=True)
class BenchQuery:
    """A named suite query: its CEQL text, what it measures, and the group it belongs to."""

    name: str
    text: str
    note: str
    group: str  # "P" (with output), "P'" (no output), "sweep", "Q"
    max_events: int | None = None
    """A cap on the stream length for this query (None: the harness's ``--events``), for queries whose output
    grows so fast that a full-length run would take an hour (see ``_app_g``)."""


def sequence_query(n: int, *, no_output: bool = False, mult: int = 1) -> str:
    """The P_n template of the CORE paper §5 for the stock dataset: ``Pn``, or ``Pn′`` with ``no_output``, within
    ``mult·T``."""
    events = [f"{'SELL' if k % 3 == 0 else 'BUY'} as T{k + 1}" for k in range(n)]
    filters = [f"T{k + 1}[name = '{STOCK_NAMES[k]}']" for k in range(n)]
    if no_output:
        events.append("BUY as NE")
        filters.append("NE[name = 'NotExists']")
    return (f"SELECT * FROM S WHERE ({'; '.join(events)}) FILTER {' AND '.join(filters)} "
            f"WITHIN {T * mult} [stock_time]")


_Q1_PATTERN = "(SELL as msft; BUY as oracle; BUY as csco; SELL as amat)"
_Q4_PATTERN = "(SELL as msft; (BUY OR SELL) as oracle; (BUY OR SELL) as csco; SELL as amat)"
_Q1_FILTER = "msft[name = 'MSFT'] AND oracle[name = 'ORCL'] AND csco[name = 'CSCO'] AND amat[name = 'AMAT']"
_Q2_FILTER = ("msft[name = 'MSFT'] AND msft[price > 26.0] AND oracle[name = 'ORCL'] AND oracle[price > 11.14] "
              "AND csco[name = 'CSCO'] AND amat[name = 'AMAT'] AND amat[price >= 18.92]")
_W30 = "WITHIN 30000 [stock_time]"
_PARTITION = "PARTITION BY [volume]"


def _app_g() -> list[BenchQuery]:
    # Caps: without consumption these queries report every combination in a 30 s window (≈300 events), e.g.
    # ≈30 CEs per event for Q1 and ≈130 for Q4 on this stream; pycer also keeps every CE as text in memory
    # (≈25 KB per event on Q1, ≈90 KB on Q4). The caps keep each run near a minute and under 2 GiB.
    q = [
        ("Q1", f"SELECT * FROM S WHERE {_Q1_PATTERN} FILTER {_Q1_FILTER} {_W30}",
         "sequence of four named trades, 30 s window", 50_000),
        ("Q2", f"SELECT * FROM S WHERE {_Q1_PATTERN} FILTER {_Q2_FILTER} {_W30}",
         "Q1 with price filters (filters should not slow CORE down, the CORE paper §5, Fig. 9)", 1_000_000),
        ("Q3", f"SELECT * FROM S WHERE {_Q1_PATTERN} FILTER {_Q1_FILTER} {_PARTITION} {_W30} CONSUME BY ANY",
         "Q1 partitioned by volume, consuming (partition-by costs a little, the CORE paper §5, Fig. 9)", None),
        ("Q4", f"SELECT * FROM S WHERE {_Q4_PATTERN} FILTER {_Q1_FILTER} {_W30}",
         "disjunction: the middle trades may be BUY or SELL", 20_000),
        ("Q5", f"SELECT * FROM S WHERE {_Q4_PATTERN} FILTER {_Q2_FILTER} {_W30}",
         "Q4 with Q2's price filters", 200_000),
        ("Q6", f"SELECT * FROM S WHERE {_Q4_PATTERN} FILTER {_Q1_FILTER} {_PARTITION} {_W30} CONSUME BY ANY",
         "Q4 partitioned by volume, consuming", None),
        ("Q7", "SELECT * FROM S WHERE (SELL as msft; (BUY OR SELL)+ as qqq; SELL as amat) "
               "FILTER msft[name = 'MSFT'] AND qqq[name = 'QQQ'] AND qqq[volume = 4000] AND amat[name = 'AMAT'] "
               f"{_W30}",
         "iteration: one or more QQQ trades of volume 4000 between MSFT and AMAT", None),
    ]
    return [BenchQuery(name, text, note, "Q", cap) for name, text, note, cap in q]


def build_suite() -> dict[str, BenchQuery]:
    """Every suite query by name, in the order the harness runs them."""
    suite: list[BenchQuery] = []
    for n in (3, 6, 9, 12, 24):
        suite.append(BenchQuery(f"P{n}", sequence_query(n),
                                f"sequence of {n} named trades within T, with output", "P"))
    for n in (3, 6, 9, 12, 24):
        suite.append(BenchQuery(f"P{n}'", sequence_query(n, no_output=True),
                                f"P{n} followed by a never-occurring event: update cost only", "P'"))
    for m in (2, 3, 4):
        suite.append(BenchQuery(f"P3'x{m}", sequence_query(3, no_output=True, mult=m),
                                f"window sweep: P3' within {m}T", "sweep"))
    suite.extend(_app_g())
    return {q.name: q for q in suite}


SUITE: dict[str, BenchQuery] = build_suite()

DEFAULT_QUERIES: tuple[str, ...] = (
    "P3", "P6", "P9", "P12", "P3'", "P6'", "P9'", "P12'", "P3'x2", "P3'x3", "P3'x4",
    "Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7",
)
"""The issue's selection (P24 and P24′ are in SUITE but not run by default)."""

WINDOW_SWEEP: tuple[str, ...] = ("P3'", "P3'x2", "P3'x3", "P3'x4")
"""P3′ at T, 2T, 3T, 4T."""
