"""SIGINT and SIGTERM — the signals that stop a command — handled another way for the length of a block.

Python runs signal handlers in the main thread only, and only there may they be changed: elsewhere (an embedded
interpreter, a worker thread) the handlers stay as they are and the block is told so.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, Union

STOPPING = (signal.SIGINT, signal.SIGTERM)

Handler = Union[Callable[[int, Union[FrameType, None]], Any], int, signal.Handlers, None]
"""What :func:`signal.getsignal` returns and :func:`signal.signal` takes."""


@contextmanager
def stop_signals(handler_for: Callable[[signal.Signals, Handler], Handler]) -> Iterator[bool]:
    """For the block, each of SIGINT and SIGTERM is handled by ``handler_for(signal, the handler until now)``;
    the earlier handlers are back after it, however it ends. Yields whether the handlers were changed (False
    outside the main thread)."""
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


__all__ = ["STOPPING", "Handler", "stop_signals"]
