"""The signals that stop a command — SIGINT (Ctrl-C), SIGTERM (a kill, a CI timeout), SIGHUP (a closed terminal, a
dropped SSH session) and SIGQUIT (Ctrl-\\) — turned into exceptions, so that every ``with``/``finally`` on the way
out runs (temporary output files removed, earlier outputs left as they were); and held for a short step that must
not stop half-way (a rename of an output into place).

* :func:`stopping_raises` — for a block, each of them raises :class:`Stopped` (SIGINT: Python's own
  :class:`KeyboardInterrupt`, kept so that code that knows Ctrl-C keeps working); :func:`stopping_cause` finds
  one wrapped in another exception, :func:`stopped_by` says which signal an exception stands for,
  :func:`exit_status` the conventional status 128 + its number and :func:`said` the one word the command line
  prints.
* :func:`signals_held` — the four held until the block ends, then delivered.
* :func:`stop_signals` — the general form: each of them handled by a handler made from the one it had.

Python runs signal handlers in the main thread only, and only there may they be changed: elsewhere (an embedded
interpreter, a worker thread) the handlers stay as they are and the block is told so.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, Union

STOPPING: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, name))
"""The catchable signals that stop a command (SIGHUP and SIGQUIT do not exist on Windows)."""

SAID = {"SIGINT": "interrupted", "SIGTERM": "terminated", "SIGHUP": "hung up", "SIGQUIT": "quit"}
"""What the command line says when each stops it."""

Handler = Union[Callable[[int, Union[FrameType, None]], Any], int, signal.Handlers, None]
"""What :func:`signal.getsignal` returns and :func:`signal.signal` takes."""


class Stopped(KeyboardInterrupt):
    """A stopping signal other than Ctrl-C, raised where the program is, as Ctrl-C raises KeyboardInterrupt: the
    same clean-up runs and the exit says which signal it was."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_stopped(signum: int, frame: FrameType | None) -> None:
    raise Stopped(signum)


def stopped_by(exc: KeyboardInterrupt) -> signal.Signals:
    """The signal ``exc`` stands for: a :class:`Stopped`'s own, else SIGINT (Ctrl-C)."""
    return signal.Signals(exc.signum if isinstance(exc, Stopped) else signal.SIGINT)


def stopping_cause(exc: BaseException) -> KeyboardInterrupt | None:
    """The stopping signal's exception behind ``exc``: ``exc`` itself, or one it was raised from or while
    handling, unless that was deliberately suppressed (``raise … from None``); None: no signal stopped it. Python 3.11 hands a Ctrl-C that lands in a descriptor's
    ``__set_name__``, while a class is made (a command's module imported after Ctrl-C is handled: a dataclass),
    on as a ``RuntimeError`` whose cause it is; a library may wrap what its callbacks raise the same way."""
    seen: set[int] = set()
    found: BaseException | None = exc
    while found is not None and id(found) not in seen:
        if isinstance(found, KeyboardInterrupt):
            return found
        seen.add(id(found))
        found = found.__cause__ or (None if found.__suppress_context__ else found.__context__)
    return None


def exit_status(exc: KeyboardInterrupt) -> int:
    """128 + the signal's number, as a shell reports a program the signal killed (130, 143, 129, 131)."""
    return 128 + stopped_by(exc)


def said(exc: KeyboardInterrupt) -> str:
    """The word for the signal: ``interrupted``, ``terminated``, ``hung up``, ``quit``."""
    return SAID[stopped_by(exc).name]


@contextmanager
def stop_signals(handler_for: Callable[[signal.Signals, Handler], Handler]) -> Iterator[bool]:
    """For the block, each signal of :data:`STOPPING` is handled by ``handler_for(signal, the handler until
    now)``; the earlier handlers are back after it, however it ends. Yields whether the handlers were changed
    (False outside the main thread)."""
    try:
        previous = {s: signal.getsignal(s) for s in STOPPING}
        for s in STOPPING:
            signal.signal(s, handler_for(s, previous[s]))
    except ValueError:  # not the main thread
        yield False
        return
    try:
        yield True
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


@contextmanager
def stopping_raises() -> Iterator[bool]:
    """For the block, every stopping signal raises: SIGINT :class:`KeyboardInterrupt` (even when the process
    inherited it ignored, as a background job of a script is started: docs/decisions.md D203), the others
    :class:`Stopped`. Yields whether the handlers were changed (False outside the main thread)."""
    def handler(s: signal.Signals, previous: Handler) -> Handler:
        return signal.default_int_handler if s == signal.SIGINT else _raise_stopped

    with stop_signals(handler) as changed:
        yield changed


@contextmanager
def signals_held() -> Iterator[None]:
    """The stopping signals held until the block ends, then delivered: a short step that must not stop half-way
    (an output's rename into place, a folder's swap) ends first. Outside the main thread nothing is held."""
    received: list[int] = []

    def hold(s: signal.Signals, previous: Handler) -> Handler:
        return lambda signum, frame: received.append(signum)

    try:
        with stop_signals(hold):
            yield
    finally:
        if received:
            signal.raise_signal(received[0])  # (its own handler now: Ctrl-C's KeyboardInterrupt, Stopped …)


__all__ = ["SAID", "STOPPING", "Handler", "Stopped", "exit_status", "said", "signals_held", "stop_signals",
           "stopped_by", "stopping_cause", "stopping_raises"]
