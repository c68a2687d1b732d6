"""The one way the toolkit writes a file: aside, then renamed into place (docs/robustness.md, "The layer").

Every output — a drawing, a step page, an exercise sheet, grades, a conformance report, a run's complex events —
is written to a temporary file in the target's own folder (``.NAME.<random>.partial``) and renamed over the target
only once complete, so a reader finds the old file or the new complete one, never a part (docs/decisions.md
D161). A failure on the way (a full disk, a file-size limit, a signal turned into an exception by
:mod:`cer_theory.core.signals`) removes the temporary file and leaves the old one as it was. The new file gets the
mode the user's umask gives an ordinary new file (``0o666 & ~umask``; folders ``0o777 & ~umask``), not
``mkstemp``'s private 0600. A target that exists and is not a regular file (``/dev/null``, a FIFO) is written in
place: there is nothing to rename, and it must never be replaced.

The API (standard library only: the command line loads it before anything heavy):

* :func:`write_output` ``(path, data)`` — a whole output, text or bytes.
* :func:`open_output` ``(path, binary=False)`` — a ``with`` block holding a file object on the temporary file;
  renamed into place when the block ends normally, removed when it raises.
* :class:`Aside` — the temporary file itself, for a writer that opens it by name (Parquet) or keeps it open
  across calls (a run's output): :meth:`Aside.open`, :meth:`Aside.commit`, :meth:`Aside.discard`;
  :class:`Aside` with ``folder=True`` for a folder output (Spark's part files).
* ``private=True`` on each of them — the toolkit's own file (a cache, a scratch file of a subprocess): mode
  0600 and not an output of the command, so not subject to :func:`declared_outputs`.
* :func:`declared_outputs` — set by the command line around a command (``cli/layer.py``): inside it, writing an
  output anywhere but the places the command declared raises :class:`UndeclaredOutput` (a bug of the command,
  found by the first test that runs it).
* :func:`create_private` — an empty file only its owner may read, made when none exists (for a database a
  library then fills in place).
* :func:`quiet_standard_output` — standard output pointed at the null device (a closed pipe).
* :func:`discard_all` — remove every temporary file not yet committed or discarded (the command line's last
  step when a signal stops it, in case a second signal cut a clean-up short).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import IO, Any

from cer_theory.core.errors import CerError
from cer_theory.core.signals import signals_held

WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})
"""The errors of a write that ran out of room: a full disk, a file-size limit (``ulimit -f``), a quota."""


class OutputError(CerError):
    """An output could not be written (a full disk, a file-size limit, no permission): the old file is left as it
    was. One line naming the file."""


class UndeclaredOutput(RuntimeError):
    """A command wrote to a place it did not declare (``cli/layer.py``): a bug, not bad input."""


def umask() -> int:
    """The process's umask (read by setting it: there is no other way; set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode of an ordinary new file: ``0o666 & ~umask``."""
    return 0o666 & ~umask()


def folder_mode() -> int:
    """The mode of an ordinary new folder: ``0o777 & ~umask``."""
    return 0o777 & ~umask()


_LIVE: set[Path] = set()
"""Temporary files and folders not yet committed or discarded."""

_DECLARED: ContextVar[tuple[str, ...] | None] = ContextVar("cer_theory_declared_outputs", default=None)


def _real(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.fspath(path))  # (not abspath first: it would read sub/.. without the link)


@contextmanager
def declared_outputs(places: Iterable[str | os.PathLike[str]]) -> Iterator[None]:
    """For the block, outputs may be written only at ``places`` (files, or folders and what is inside them) and
    inside the temporary folders of :class:`Aside`; anything else raises :class:`UndeclaredOutput`."""
    token = _DECLARED.set(tuple(_real(p) for p in places))
    try:
        yield
    finally:
        _DECLARED.reset(token)


def _check_declared(target: Path) -> None:
    declared = _DECLARED.get()
    if declared is None:
        return
    real = _real(target)
    allowed = declared + tuple(_real(p) for p in _LIVE)
    if not any(real == place or real.startswith(place.rstrip(os.sep) + os.sep) for place in allowed):
        raise UndeclaredOutput(f"the command writes {target}, which it did not declare as an output "
                               f"(cli/layer.py: declare(parser, outputs=...))")


def failed(target: str | os.PathLike[str], exc: OSError) -> OutputError:
    """The one-line error of a write to ``target`` that failed with ``exc``."""
    reason = exc.strerror or str(exc)
    if exc.errno in WRITE_FAILURES:
        reason += " (a full disk or a file-size limit)"
    return OutputError(f"{os.fspath(target)}: cannot write ({reason}); the old file, if any, is left as it was")


class Aside:
    """The temporary file (or, with ``folder``, folder) beside ``target`` that becomes it: :attr:`path`, made
    when this is built; :meth:`commit` renames it over the target, :meth:`discard` removes it. A file target that
    exists and is not a regular file (a device, a FIFO) has no temporary file: :attr:`path` is the target itself,
    written in place, and commit and discard only close it."""

    def __init__(self, target: str | os.PathLike[str], *, folder: bool = False, private: bool = False) -> None:
        self.target = Path(target)
        if not private:
            _check_declared(self.target)
        self.private, self.folder = private, folder
        self._file: IO[Any] | None = None
        self.path: Path | None = None  # (set before anything can fail: discard() reads it)
        self.in_place = not folder and _special(self.target)
        if self.in_place:
            self.path = self.target
            return
        if not folder and self.target.is_dir():
            raise OutputError(f"{self.target}: a folder, not a file; give a file name")
        where = {"prefix": f".{self.target.name}.", "suffix": ".partial", "dir": str(self.target.parent)}
        try:
            # (made and registered with the stopping signals held: a Ctrl-C between the two would leave a
            # temporary file that no discard knows of)
            with signals_held():
                if folder:
                    self.path = Path(tempfile.mkdtemp(**where))
                else:
                    fd, name = tempfile.mkstemp(**where)
                    self.path = Path(name)
                    os.close(fd)
                _LIVE.add(self.path)
            os.chmod(self.path, (0o700 if private else folder_mode()) if folder else
                     (0o600 if private else file_mode()))
        except OSError as exc:
            self.discard()
            raise failed(self.target, exc) from None
        except BaseException:  # (a signal held while it was made, delivered now: nothing is left behind)
            self.discard()
            raise

    def open(self, *, binary: bool = False) -> IO[Any]:
        """A file object writing the temporary file (text: UTF-8, newlines as given); closed by commit/discard."""
        assert self.path is not None and not self.folder, "a file not yet committed or discarded"
        mode = "wb" if binary else "w"
        self._file = open(self.path, mode) if binary else open(self.path, mode, encoding="utf-8", newline="")
        return self._file

    def commit(self, *, replace: bool = True) -> None:
        """The output complete: its file closed and renamed over the target, with the stopping signals held so
        that it happens or not. A folder replaces an existing target only with ``replace`` (else
        :class:`OutputError`, the temporary folder removed): the old one is first renamed aside (onto an empty
        folder made for it: renaming a folder over an empty one is atomic) and removed once the new one is in
        place. A full disk found at the close is an :class:`OutputError`, the temporary file removed."""
        assert self.path is not None, "committed or discarded already"
        try:
            if self._file is not None:
                self._file.close()
                self._file = None
            if not self.in_place:
                with signals_held():
                    old = self._swap_out(replace) if self.folder else None
                    try:
                        os.replace(self.path, self.target)
                    except OSError:
                        if old is not None:  # (put the old one back: nothing lost)
                            os.replace(old.path, self.target)  # type: ignore[arg-type]
                        raise
                    _LIVE.discard(self.path)
                    if old is not None:
                        old.discard()
        except OSError as exc:
            self.discard()
            raise failed(self.target, exc) from None
        self.path = None

    def _swap_out(self, replace: bool) -> Aside | None:
        """An existing target folder moved aside (None: there is none)."""
        if not (self.target.exists() or self.target.is_symlink()):
            return None
        if not replace:
            self.discard()
            raise OutputError(f"{self.target} exists: pass --overwrite to replace it")
        old = Aside(self.target, folder=True, private=True)
        os.replace(self.target, old.path)  # type: ignore[arg-type]
        return old

    def discard(self) -> None:
        """Give up: the temporary file or folder removed, the target left as it was (idempotent)."""
        file, self._file = self._file, None
        if file is not None:
            try:
                file.close()
            except OSError:  # (a full disk: the file goes anyway)
                pass
        path, self.path = self.path, None
        if path is None or self.in_place:
            return
        if self.folder:
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        _LIVE.discard(path)


def _special(target: Path) -> bool:
    """Whether ``target`` exists and is neither a regular file nor a folder (a device, a FIFO, a socket)."""
    try:
        mode = target.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


@contextmanager
def open_output(path: str | os.PathLike[str], *, binary: bool = False, private: bool = False) -> Iterator[IO[Any]]:
    """A file object for the output ``path``, written aside: renamed into place when the block ends normally,
    removed (the old file kept) when it raises. A write that fails for want of room is an :class:`OutputError`
    naming ``path``."""
    aside = Aside(path, private=private)
    try:
        yield aside.open(binary=binary)
    except OSError as exc:
        aside.discard()
        if exc.errno in WRITE_FAILURES:
            raise failed(path, exc) from None
        raise
    except BaseException:
        aside.discard()
        raise
    aside.commit()


def write_output(path: str | os.PathLike[str], data: str | bytes, *, private: bool = False) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to the output ``path``, aside then renamed into place."""
    with open_output(path, binary=not isinstance(data, str), private=private) as f:
        f.write(data)


def quiet_standard_output() -> None:
    """Point standard output at the null device, so that the interpreter's last flush into a closed pipe (the
    reader went away: ``cer-theory … | head``) says nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - no real stdout (embedded use)
        pass


def create_private(path: str | os.PathLike[str]) -> bool:
    """An empty file at ``path`` readable and writable by its owner only, made when none exists (``O_EXCL``: an
    existing file is never truncated nor given another mode); whether it was made. For a file another library
    then fills in place (a SQLite database holding secrets), where a temporary file renamed into place would
    not serve."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False
    return True


def discard_all() -> None:
    """Remove every temporary file and folder not yet committed or discarded."""
    for path in list(_LIVE):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        _LIVE.discard(path)


__all__ = ["Aside", "OutputError", "UndeclaredOutput", "WRITE_FAILURES", "create_private", "declared_outputs",
           "discard_all", "failed", "file_mode", "folder_mode", "open_output", "quiet_standard_output", "umask",
           "write_output"]
