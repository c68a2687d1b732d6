"""How many Spark tasks a plan gets, and which task each partition key goes to (docs/decisions.md D128).

Spark's ``repartition(n, column)`` puts a row in partition ``pmod(murmur3(column, seed 42), n)``. Hashing 10 keys
onto a few tasks is uneven (7 keys on one task, 3 on the other is as likely as 5/5), and Spark's default of 200
shuffle partitions for 10 keys starts 190 empty tasks. So, when the keys are few enough to count, the driver
assigns each key a task itself — largest keys first, each to the task with the fewest events so far (the LPT
rule) — and routes it there by an integer whose Spark hash lands exactly on that task (:func:`routing_values`).
The placement only balances work: any placement that keeps a key's events in one task gives the same output
(:mod:`cer_theory.spark.plan`).
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Mapping

MAX_COUNTED_KEYS = 10_000
"""Above this many distinct partition keys, the keys are hashed onto the tasks by Spark (many keys even out)."""

HASHED_TASKS_PER_CORE = 2
"""Tasks per core when the keys are hashed: twice the cores, so that one unlucky task does not hold two shares."""

_MASK = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _MASK


def spark_hash_int(value: int, seed: int = 42) -> int:
    """Spark's ``hash()`` of an ``int`` column value (Murmur3 x86 32-bit, ``Murmur3_x86_32.hashInt``), signed."""
    k1 = (value & _MASK) * 0xCC9E2D51 & _MASK
    k1 = _rotl(k1, 15) * 0x1B873593 & _MASK
    h1 = _rotl(seed ^ k1, 13)
    h1 = (h1 * 5 + 0xE6546B64) & _MASK
    h1 ^= 4  # the length in bytes
    h1 ^= h1 >> 16
    h1 = h1 * 0x85EBCA6B & _MASK
    h1 ^= h1 >> 13
    h1 = h1 * 0xC2B2AE35 & _MASK
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 >= 1 << 31 else h1


def routing_values(n: int) -> list[int]:
    """For each task ``t < n``, the smallest non-negative int whose row ``repartition(n, int_column)`` sends to
    partition ``t``."""
    found: dict[int, int] = {}
    value = 0
    while len(found) < n:
        found.setdefault(spark_hash_int(value) % n, value)  # Python's % is Spark's pmod for n > 0
        value += 1
    return [found[t] for t in range(n)]


def task_count(keys: int | None, cores: int) -> int:
    """Tasks for a partitioned plan: one per core, but never more than there are keys (an idle task still
    costs a Python worker); ``keys`` None (too many to count): :data:`HASHED_TASKS_PER_CORE` per core."""
    if keys is None:
        return max(1, HASHED_TASKS_PER_CORE * cores)
    return max(1, min(keys, cores))


def balance(sizes: Mapping[Hashable, int], n: int) -> dict[Hashable, int]:
    """Key → task in ``range(n)``: largest key first, each to the least loaded task (ties: the lower task)."""
    load = [(0, t) for t in range(n)]
    out: dict[Hashable, int] = {}
    for key in sorted(sizes, key=lambda k: (-sizes[k], repr(k))):
        total, t = heapq.heappop(load)
        out[key] = t
        heapq.heappush(load, (total + sizes[key], t))
    return out
