"""The line structure of a block of bytes read from a text stream file: blocks cut at line ends, the line number
of each non-blank line, and the checks that send a block the row way when Arrow and the row readers
(:mod:`cer_theory.streams.rows`) would see its lines differently (docs/decisions.md D87, D150).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from cer_theory.streams.batch import Fallback


def line_index(data: bytes, first_line: int, blank_bytes: bytes,
               cuts: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """The line number of each non-blank line of ``data`` (lines cut at ``\\n``; a line is blank when all its
    bytes are in ``blank_bytes``). Only the lines that are empty or start with such a byte are inspected.
    ``cuts``: ``cut(data)`` when the caller has it already."""
    arr = np.frombuffer(data, dtype=np.uint8)
    starts, ends = cut(data) if cuts is None else cuts
    head = np.zeros(len(starts), dtype=np.int16) - 1  # -1: an empty line
    filled = ends > starts
    head[filled] = arr[starts[filled]]
    blank_byte = np.zeros(257, dtype=bool)
    blank_byte[list(blank_bytes) + [-1]] = True
    blank = np.zeros(len(starts), dtype=bool)
    for i in np.flatnonzero(blank_byte[head]).tolist():
        blank[i] = not data[starts[i]:ends[i]].strip(blank_bytes)
    return first_line + np.flatnonzero(~blank)


JSON_BLANK = b" \t\r\x0b\x0c\x1c\x1d\x1e\x1f\n"
"""Bytes that make a line blank for the JSON Lines row reader (``str.strip``'s ASCII whitespace)."""


def cut(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    arr = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(arr == 10)
    if not len(ends) or ends[-1] != len(arr) - 1:
        ends = np.append(ends, len(arr))
    return np.concatenate(([0], ends[:-1] + 1)), ends


def blocks(path: Path, skip_header: bool, size: int) -> Iterator[tuple[bytes, int, bytes]]:
    """``(block, first line number, header line)`` of about ``size`` bytes, each cut after a newline."""
    with path.open("rb") as f:
        header = f.readline() if skip_header else b""
        line = 2 if skip_header else 1
        carry = b""
        while True:
            chunk = f.read(size)
            if not chunk:
                if carry:
                    yield carry, line, header
                return
            data = carry + chunk
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                carry = data
                continue
            block, carry = data[:cut], data[cut:]
            yield block, line, header
            line += block.count(b"\n")


def most_brackets_on_a_line(data: bytes, ends: np.ndarray) -> int:
    """The most opening brackets (``[`` or ``{``) any one line of ``data`` holds (``ends``: the lines' ends, from
    :func:`cut`): a bound on how deeply the line's JSON can nest, found in one vectorized pass, so that no line
    nested past ``streams.rows.MAX_JSON_DEPTH`` reaches Arrow's reader (docs/robustness.md)."""
    opening = np.flatnonzero((np.frombuffer(data, dtype=np.uint8) | 32) == ord("{"))  # '[' | 32 is '{' too
    return int(np.bincount(np.searchsorted(ends, opening)).max()) if len(opening) else 0


def plain_newlines(block: bytes) -> bool:
    """No carriage return except in ``\\r\\n`` (a lone ``\\r`` ends a line for the row readers, not for Arrow)."""
    return b"\r" not in block or block.count(b"\r") == block.count(b"\r\n")  # (\r is rare: one memchr)


def require_utf8(block: bytes) -> None:
    """Arrow lets bytes that are not UTF-8 through in places; the row readers name the line and column of the
    first bad byte, so such a batch goes their way (one fast pass, skipped for ASCII)."""
    if not block.isascii():
        try:
            block.decode("utf-8")
        except UnicodeDecodeError:
            raise Fallback("not UTF-8") from None


__all__ = ["JSON_BLANK", "blocks", "cut", "line_index", "plain_newlines", "require_utf8"]
