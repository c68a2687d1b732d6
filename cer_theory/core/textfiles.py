"""Reading a text file the user named (a formula, a query, declarations, an automaton, an exercise): UTF-8 only,
and every way it can fail is one :class:`~cer_theory.core.errors.CerError` naming the file.

A file in another encoding is refused rather than guessed at: Latin-1 and UTF-8 agree on ASCII, so a guess would
read most files and silently change the rest. The message says what the file looks like (UTF-16 by its byte-order
mark, binary by a NUL byte) and where the first undecodable byte is. A stream file is read by the stream readers,
which report lines and fields; this module is for files read whole.
"""

from __future__ import annotations

import codecs
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cer_theory.core.errors import CerError, FileError
from cer_theory.core.events import MAX_INT_DIGITS

_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"), (codecs.BOM_UTF16_LE, "UTF-16"),
         (codecs.BOM_UTF16_BE, "UTF-16"))
"""Byte-order marks of the encodings a text editor saves in besides UTF-8 (UTF-32 first: its LE mark begins with
UTF-16's)."""


def decode_text(data: bytes, source: str, what: str = "text files", error: type[CerError] = CerError) -> str:
    """``data`` (the contents of ``source``) as text; ``error(f"{source}: …")`` when it is not UTF-8 text. A UTF-8
    byte-order mark is dropped."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            raise error(f"{source}: a {name} file (it starts with a {name} byte-order mark); {what} are read as "
                        f"UTF-8: save it as UTF-8")
    nul = data.find(b"\0")
    if nul >= 0:
        raise error(f"{source}: a binary file, not text (a NUL byte at offset {nul}); {what} are read as UTF-8 text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise error(f"{source}: not UTF-8 text (byte {data[e.start]:#04x} at offset {e.start}, line {line}); "
                    f"{what} are read as UTF-8") from None


MAX_TEXT_FILE_BYTES = 32 * 2**20
"""The largest file :func:`read_text_file` reads (32 MiB): it is read whole, then parsed, so a bigger one (a stream
given as a formula file, ``/dev/zero``) is refused before memory fills."""


def read_text_file(path: str | Path, what: str = "text files", error: type[CerError] = FileError) -> str:
    """The text of the file at ``path``, decoded as by :func:`decode_text`; a file that cannot be read (missing,
    a directory, no permission) is ``error(f"{path}: cannot read (…)")``, and so is an empty one (only blanks):
    every file this module reads must say something, and an empty one is a file saved too early or the wrong
    file, whose syntax error would not name it."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_TEXT_FILE_BYTES + 1)  # (never more: a FIFO or /dev/zero has no size to check first)
    except OSError as e:
        raise error(f"{path}: cannot read ({e.strerror or e})") from None
    if len(data) > MAX_TEXT_FILE_BYTES:
        raise error(f"{path}: more than {MAX_TEXT_FILE_BYTES // 2**20} MiB; {what} are read whole, and one this "
                    f"large is not a formula, query or automaton a person wrote")
    text = decode_text(data, str(path), what, error)
    if not text.strip():
        raise error(f"{path}: the file is empty")
    return text


@dataclass(frozen=True)
class LongNumber:
    """An integer literal of a JSON file with more digits than :func:`loads_json` converts: it stays a value of its
    own, so that the reader's field check names the field it is in (rather than the conversion failing with no
    place at all)."""

    digits: int

    def __repr__(self) -> str:
        return f"a {self.digits}-digit number"


def loads_json(text: str, source: str, error: type[CerError] = CerError, *,
               max_int_digits: int = MAX_INT_DIGITS) -> Any:
    """The JSON value in ``text`` (the contents of ``source``); ``error`` naming line and column when it is not
    JSON, or nests too deeply for the decoder. Integers longer than ``max_int_digits`` digits are
    :class:`LongNumber` (Python's own limit on converting a string to an integer,
    ``core.events.MAX_INT_DIGITS``; formulas read theirs by ``core.parsing.number`` under the same bound)."""

    def parse_int(literal: str) -> int | LongNumber:
        digits = len(literal.lstrip("-"))
        return LongNumber(digits) if digits > max_int_digits else int(literal)

    try:
        return json.loads(text, parse_int=parse_int)
    except json.JSONDecodeError as e:
        raise error(f"{source}: line {e.lineno}, column {e.colno}: not JSON ({e.msg})") from None
    except RecursionError:
        raise error(f"{source}: arrays or objects nested too deeply to read") from None


__all__ = ["LongNumber", "MAX_TEXT_FILE_BYTES", "decode_text", "loads_json", "read_text_file"]
