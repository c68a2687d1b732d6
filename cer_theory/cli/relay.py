"""Standard error of the processes a command starts (Spark's JVM), passed through the command until it stops.

A command that is interrupted or terminated ends with one line saying so (``cer-theory spark: interrupted``).
Spark's JVM writes to the same standard error and outlives the Python process by a second or more: cancelled
tasks, executors refusing work and shutdown hooks print their logs and stack traces *after* that line, whatever
log level was asked for while the job was being cancelled (the request itself travels over a connection the signal
may just have cut). So the JVM is started with its standard error on a pipe that a thread of this process copies
to the real one, and the command mutes the copy before it says why it stops: nothing the JVM prints afterwards
reaches the terminal (docs/decisions.md D310).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

CHUNK = 1 << 16


class StderrRelay:
    """Copies what the children started under :meth:`children` write to standard error, until :meth:`mute`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # (held while a chunk is written: once mute() returns, nothing more is)
        self._muted = False

    @contextmanager
    def children(self) -> Iterator[None]:
        """Processes started inside inherit a pipe as their standard error (file descriptor 2 is swapped for the
        pipe meanwhile, and this process's own writes there are copied too). Without a usable descriptor 2 (an
        embedded interpreter) nothing changes."""
        try:
            sys.stderr.flush()
            real = os.dup(2)
            read, write = os.pipe()  # (not inheritable: the children get only the descriptor 2 set below)
        except (OSError, ValueError):
            yield
            return
        saved = os.dup(2)
        os.dup2(write, 2)
        os.close(write)
        threading.Thread(target=self._copy, args=(read, real), name="stderr-relay", daemon=True).start()
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)

    def mute(self) -> None:
        """Copy nothing more; what the children write from now on is read and dropped (never left to fill the
        pipe, which would block them)."""
        with self._lock:
            self._muted = True

    def _copy(self, read: int, real: int) -> None:
        try:
            while chunk := os.read(read, CHUNK):
                with self._lock:
                    if not self._muted:
                        _write_all(real, chunk)
        except OSError:  # (the real standard error is gone: nothing to copy to)
            pass
        finally:
            os.close(read)
            os.close(real)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


__all__ = ["StderrRelay"]
