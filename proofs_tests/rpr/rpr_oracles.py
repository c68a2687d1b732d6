"""Worked examples of Flink's documentation (*Table API & SQL — Queries — Pattern Recognition*), restated as
(query, rows, expected output rows). Times are seconds after the first row of each example's table; the expected
rows are the documentation's result tables (partition key and measures), read off as numbers."""

from __future__ import annotations

from cer_theory.core.events import Event


def ticker(prices: list[int], *, step: int = 1, symbol: str = "XYZ") -> list[Event]:
    """One ticker's rows: ``price`` and ``rowtime`` (0, step, 2·step, … seconds); ``id`` is the row number."""
    return [Event("ticker", symbol=symbol, price=p, rowtime=i * step, id=i + 1) for i, p in enumerate(prices)]


ACME = [12, 17, 19, 21, 25, 18, 15, 14, 24, 25, 19]

FALLING_PERIOD = ("""MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES START_ROW.rowtime AS start_tstamp, LAST(PRICE_DOWN.rowtime) AS bottom_tstamp,
           LAST(PRICE_UP.rowtime) AS end_tstamp
  ONE ROW PER MATCH AFTER MATCH SKIP TO LAST PRICE_UP
  PATTERN (START_ROW PRICE_DOWN+ PRICE_UP)
  DEFINE PRICE_DOWN AS (LAST(PRICE_DOWN.price, 1) IS NULL AND PRICE_DOWN.price < START_ROW.price)
                        OR PRICE_DOWN.price < LAST(PRICE_DOWN.price, 1),
         PRICE_UP AS PRICE_UP.price > LAST(PRICE_DOWN.price, 1))""",
                  ticker(ACME, symbol="ACME"), [{"start_tstamp": 4, "bottom_tstamp": 7, "end_tstamp": 8}])
"""The introduction's example: one period of falling prices, from 10:00:04 to 10:00:07, up again at 10:00:08."""

OUTPUT_MODE = ("""MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES FIRST(A.price) AS startPrice, LAST(A.price) AS topPrice, B.price AS lastPrice
  ONE ROW PER MATCH
  PATTERN (A+ B)
  DEFINE A AS LAST(A.price, 1) IS NULL OR A.price > LAST(A.price, 1), B AS B.price < LAST(A.price))""",
               ticker([10, 12, 13, 11]), [{"startPrice": 10, "topPrice": 13, "lastPrice": 11}])
"""*Output Mode*: a rising run and the row that ends it."""

GREEDY = ("""MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES C.price AS lastPrice
  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B{star} C)
  DEFINE A AS A.price > 10, B AS B.price < 15, C AS C.price > 12)""", ticker([10, 11, 12, 13, 14, 16]))
"""*Greedy & Reluctant Quantifiers*: ``B*`` gives one match (last price 16), ``B*?`` two (13, then 16)."""

SKIP_PRICES = [7, 9, 10, 5, 10, 7, 14]
SKIP = ("""MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES SUM(A.price) AS sumPrice, FIRST(rowtime) AS startTime, LAST(rowtime) AS endTime
  ONE ROW PER MATCH AFTER MATCH SKIP {skip}
  PATTERN (A+ C)
  DEFINE A AS SUM(A.price) < 30)""", ticker(SKIP_PRICES))
"""*After Match Strategy*: one query, four skip modes; rows at 10:00:01 … 10:00:07 are times 0 … 6 here."""

SKIP_RESULTS = {
    "PAST LAST ROW": [(26, 0, 3), (17, 4, 6)],
    # The documentation lists the first five rows only. The standard also finds a match at the row after the fifth
    # match's first: 7 as A (SUM(A.price) = 7 < 30) and 14 as C. docs/rpr.md, "the documentation's missing row".
    "TO NEXT ROW": [(26, 0, 3), (24, 1, 4), (25, 2, 5), (22, 3, 6), (17, 4, 6), (7, 5, 6)],
}
"""The documentation's result tables per skip mode (sum, first time, last time)."""

SKIP_TO_LAST_A = [(26, 0, 3), (25, 2, 5), (17, 4, 6)]
"""``SKIP TO LAST A`` in the documentation: three rows. The standard finds them, then resumes at the third
match's last A (7 at time 5), matches 7 as A and 14 as C, and must resume at that match's last A: its own first
row, an exception (TR 19075-5 §4.13). docs/rpr.md, "the documentation's missing row"."""

DROP_PRICES = [20, 17, 18, 11, 14, 9, 15, 14, 24, 1, 19]
DROP = ("""MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES C.rowtime AS dropTime, A.price - C.price AS dropDiff
  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B* C) WITHIN INTERVAL '1' HOUR
  DEFINE B AS B.price > A.price - 10, C AS C.price < A.price - 10)""", ticker(DROP_PRICES, step=1200))
"""*Time constraint*: one drop of more than 10 within an hour, from 15 (12:00) to 1 (13:00), exactly an hour
apart (the match is kept: a match is dropped only when *longer* than the interval)."""

V_SHAPE_PRICES = [12, 17, 19, 21, 25, 12, 15, 20, 24, 25, 19, 15, 25, 25, 14, 12, 14, 24, 23, 22]
V_SHAPE = ("""MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES STRT.rowtime AS start_tstamp, LAST(DOWN.rowtime) AS bottom_tstamp, LAST(UP.rowtime) AS end_tstamp
  ONE ROW PER MATCH AFTER MATCH SKIP TO LAST UP
  PATTERN (STRT DOWN+ UP+)
  DEFINE DOWN AS DOWN.price < PREV(DOWN.price), UP AS UP.price > PREV(UP.price))""",
           ticker(V_SHAPE_PRICES, symbol="ACME"),
           [{"start_tstamp": 4, "bottom_tstamp": 5, "end_tstamp": 9},
            {"start_tstamp": 9, "bottom_tstamp": 11, "end_tstamp": 12},
            {"start_tstamp": 13, "bottom_tstamp": 15, "end_tstamp": 17}])
"""The V shape, the standard's running example of a row pattern (a start row, falling prices, rising prices;
TR 19075-5 writes it ``A B+ C+``), with the rows and the result table of Oracle Database's *Data Warehousing
Guide*, "SQL for Pattern Matching", Example 20-1 (an implementation of the standard's feature R010): ACME's prices
on 1–20 April, one row per day (day d is time d − 1 here); matches 5–10, 10–13 and 14–18 April, bottoms on the
6th, 12th and 16th. ``SKIP TO LAST UP`` lets the second match start on the first one's last row."""
