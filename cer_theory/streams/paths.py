"""Where an output may go: never over an input. An output path equal to an input, a symbolic or hard link to one,
another spelling of it (``sub/..``, a case-insensitive file system's ``Q.CEQL``), a folder holding one (an output
folder is replaced whole) or a file inside an input folder would destroy the input before it is read; the command
line checks every declared output against every declared input before anything is read (``cli/layer.py``,
docs/decisions.md D160). Standard library only: the check runs before anything heavy is loaded.

Two paths are compared by what the file system says they are: the same device and inode (``os.stat``, which
follows links and answers for any spelling the file system accepts), and for folders the device and inode of each
folder on the way up from the other path; a path that does not exist yet by its fully resolved name.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from cer_theory.core.errors import CerError

STANDARD_STREAM = "-"
"""The path that means standard input or output: no file."""

Identity = tuple[int, int]
"""A file's device and inode: the same for every name of it (links, spellings)."""


def _identity(path: str | os.PathLike[str]) -> Identity | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def _ancestors(path: str | os.PathLike[str]) -> list[Identity]:
    """The identities of the folders holding ``path`` (resolved: links and ``..`` as the system reads them), up
    to the root; those that do not exist are left out."""
    resolved = Path(os.path.realpath(os.fspath(path)))
    return [i for parent in resolved.parents if (i := _identity(parent)) is not None]


def late_path(source: str | None, sink: str | os.PathLike[str] | None = None) -> str:
    """Where the late events of a run over ``source`` go: ``sink``, else ``SOURCE.late.jsonl`` (standard input
    and events in memory: ``stdin.late.jsonl``)."""
    if sink is not None:
        return os.fspath(sink)
    return f"{source}.late.jsonl" if source not in (None, STANDARD_STREAM) else "stdin.late.jsonl"


def _special(path: str) -> bool:
    """A device or a FIFO (``/dev/null``, ``/dev/stdout``): written in place, never replaced, so it destroys no
    input (and a terminal is both standard input and output)."""
    try:
        return stat.S_ISCHR((mode := os.stat(path).st_mode)) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode)
    except (OSError, ValueError):
        return False


def same_or_inside(output: str | os.PathLike[str], input: str | os.PathLike[str]) -> bool:
    """Whether writing ``output`` could destroy ``input``: the same file (by any name: a symbolic link, a hard
    link, another spelling), a folder holding the input, or a place inside the input folder."""
    out, into = _identity(output), _identity(input)
    if out is not None and out == into:
        return True
    if out is not None and out in _ancestors(input):
        return True  # the output is a folder holding the input
    if into is not None and into in _ancestors(output):
        return True  # the output is inside the input (a folder)
    a, b = Path(os.path.realpath(os.fspath(output))), Path(os.path.realpath(os.fspath(input)))
    return a == b or a in b.parents or b in a.parents


def check_outputs(outputs: Iterable[tuple[str, str | None]], inputs: Iterable[tuple[str, str | None]]) -> None:
    """Refuse, before anything is written, an output (``(option, path)``) that is an input (``(option, path)``:
    the stream, the query file, the declarations …) or holds one, and two outputs at one place: one
    :class:`CerError` naming both (docs/decisions.md D160). None and ``-`` (standard input/output) are no file."""
    given = [(option, path) for option, path in inputs if path and path != STANDARD_STREAM]
    written: list[tuple[str, str]] = []
    for option, path in outputs:
        if not path or path == STANDARD_STREAM or _special(path):
            continue
        for in_option, in_path in given:
            if same_or_inside(path, in_path):
                raise CerError(f"{option} {path} overlaps the input {in_option} {in_path} (the same file by another "
                               f"name, a folder holding it, or a place inside an input folder): writing there would "
                               f"destroy it; choose another place")
        for other_option, other in written:
            if same_or_inside(path, other) or same_or_inside(other, path):
                raise CerError(f"{option} {path} overlaps the output {other_option} {other}: one would destroy the "
                               f"other; choose another place")
        written.append((option, path))


__all__ = ["STANDARD_STREAM", "check_outputs", "late_path", "same_or_inside"]
