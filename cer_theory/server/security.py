"""Who may do what: passwords hashed with Argon2, a CSRF token per session checked on every form that changes
state, and rate limits on signing in and submitting.

Sessions are Starlette's signed cookies (itsdangerous): the cookie holds the account's id and the session's CSRF
token, signed with a key kept in the database, so it cannot be forged or altered by its holder.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import deque

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_HASHER = PasswordHasher()

MIN_PASSWORD = 8
MAX_PASSWORD = 200


def hash_password(password: str) -> str:
    return _HASHER.hash(password)


def verify_password(stored: str, password: str) -> bool:
    try:
        return _HASHER.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


DUMMY_HASH = hash_password("not a password of anyone")
"""Verified against when the account does not exist, so that a wrong name costs the same time as a wrong password."""


def csrf_token(session: dict) -> str:
    """The session's CSRF token, made on first use."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = session["csrf"] = secrets.token_urlsafe(32)
    return token


def csrf_ok(session: dict, given: object) -> bool:
    token = session.get("csrf")
    return isinstance(token, str) and isinstance(given, str) and hmac.compare_digest(token, given)


class RateLimit:
    """At most ``count`` events per ``seconds`` for each key (an address, an account), in this process."""

    def __init__(self, count: int, seconds: float) -> None:
        self.count, self.seconds = count, seconds
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        with self._lock:
            events = self._events.setdefault(key, deque())
            while events and events[0] <= now - self.seconds:
                events.popleft()
            if len(events) >= self.count:
                return False
            events.append(now)
            if len(self._events) > 100_000:  # bounded memory whatever the traffic: forget idle keys
                for k in [k for k, v in self._events.items() if not v]:
                    del self._events[k]
            return True


__all__ = ["DUMMY_HASH", "MAX_PASSWORD", "MIN_PASSWORD", "RateLimit", "csrf_ok", "csrf_token", "hash_password",
           "verify_password"]
