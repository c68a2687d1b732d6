"""Where an output may go: never over an input. An output path equal to an input, a symbolic or hard link to one,
or a folder holding one (an output folder is replaced whole) would destroy the input before it is read; every
command checks its outputs against its inputs before it writes anything (docs/decisions.md D160). Standard library
only: the command line runs this check before it loads anything heavy.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from cer_theory.core.errors import CerError

STANDARD_STREAM = "-"
"""The path that means standard input or output: no file."""


def same_or_inside(output: str | os.PathLike, input: str | os.PathLike) -> bool:
    """Whether writing ``output`` could destroy ``input``: the same file (by name, through a symbolic link, or a
    hard link: same device and inode), or a folder holding the input (an output folder is replaced whole), or
    a file inside the input folder."""
    out, into = Path(output), Path(input)
    try:
        if out.exists() and into.exists() and os.path.samefile(out, into):
            return True
    except OSError:
        pass
    a, b = out.expanduser().resolve(), into.expanduser().resolve()
    return a == b or a in b.parents or b in a.parents


def check_outputs(outputs: Iterable[tuple[str, str | None]], inputs: Iterable[tuple[str, str | None]]) -> None:
    """Refuse, before anything is written, an output (``(option, path)``) that is an input (``(option, path)``:
    the stream, the query file, the declarations …) or holds one: one :class:`CerError` naming both
    (docs/decisions.md D160). None and ``-`` (standard input/output) are no file."""
    given = [(option, path) for option, path in inputs if path and path != STANDARD_STREAM]
    for option, path in outputs:
        if not path or path == STANDARD_STREAM:
            continue
        for in_option, in_path in given:
            if same_or_inside(path, in_path):
                raise CerError(f"{option} {path} overlaps the input {in_option} {in_path} (the same file, a link to "
                               f"it or a folder holding it): writing there would destroy it; choose another place")



__all__ = ["STANDARD_STREAM", "check_outputs", "same_or_inside"]
