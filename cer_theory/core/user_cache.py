"""The user's cache folder, and whether a file or folder in it can be trusted to run.

Two things cer_theory keeps there are run, not just read: the compiled Graphviz module (machine code) and the
virtual environment CORE's pycer is run in (Python code). Either may be used only when nobody but the current user
could have written it: a folder another user can write to lets them swap a file in it for their own.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

CACHE_SWITCH = "CER_THEORY_CACHE"
"""The environment variable naming the cache folder (``off`` switches the cache off)."""


def cache_dir() -> Path | None:
    """The folder cer_theory keeps its caches in, or ``None`` when the cache is switched off:
    ``$CER_THEORY_CACHE`` when set, else ``$XDG_CACHE_HOME/cer_theory``, else ``~/.cache/cer_theory``."""
    chosen = os.environ.get(CACHE_SWITCH, "").strip()
    if chosen.lower() == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cer_theory"


def owned_and_private(info: os.stat_result) -> bool:
    """Owned by this user and writable by no one else (POSIX; elsewhere mode bits carry no such meaning)."""
    if not hasattr(os, "getuid"):  # pragma: no cover - Windows: ACLs, not mode bits
        return True
    return info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def safe_to_trust(path: Path) -> bool:
    """Whether ``path`` (a file or folder, not a link) belongs to this user and cannot be written by group or others.

    On systems without POSIX owners (Windows) only the existence is checked: there the user's cache folder is
    private by default."""
    try:
        info = path.lstat()
    except OSError:
        return False
    if stat.S_ISLNK(info.st_mode):
        return False  # a link could point anywhere
    if not hasattr(os, "getuid"):
        return True
    return owned_and_private(info)


def untrusted_in_tree(root: Path) -> Path | None:
    """The first entry under ``root`` (``root`` and its parent folder included) that someone other than this user
    could have written, or ``None`` when the whole tree is the user's own.

    A virtual environment holds links (``bin/python`` to the interpreter it was made from, ``lib64`` to ``lib``):
    a link is accepted when this user owns it (its own mode bits mean nothing; replacing it needs write access to
    its folder, which is checked) and is not followed."""
    if not safe_to_trust(root.parent):
        return root.parent
    if not safe_to_trust(root):
        return root
    if not hasattr(os, "getuid"):
        return None
    for folder, dirs, files in os.walk(root, onerror=_raise):
        for name in dirs + files:
            entry = Path(folder) / name
            try:
                info = entry.lstat()
            except OSError:
                return entry
            if stat.S_ISLNK(info.st_mode):
                if info.st_uid != os.getuid():
                    return entry
            elif not owned_and_private(info):
                return entry
    return None


def _raise(error: OSError) -> None:
    raise error
