"""The course server's records: accounts, courses, the exercises of a course, enrolments and submissions, in
SQLAlchemy over SQLite (the embedded default) or PostgreSQL (a department's server).

A submission is written here, with status ``pending``, before it is graded, and graded at most once: the
grader claims it by moving it from ``pending`` to ``grading`` in one UPDATE (:func:`claim`), so a restart that
finds it ``pending`` or ``grading`` grades it again from the start and nothing is lost or recorded twice
(docs/decisions.md D400).
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import (Boolean, DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint, create_engine,
                        event, select, update)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.pool import NullPool
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from cer_theory.core.outputs import create_private

ROLES = ("teacher", "student")
STATUSES = ("pending", "grading", "graded", "failed")
"""A submission's life: written ``pending``, claimed ``grading``, then ``graded`` (the grader answered) or
``failed`` (the answer ran past its budget or wall-clock cap, or crashed the grader: the student is told so)."""


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    name: Mapped[str] = mapped_column(String(200))
    password_hash: Mapped[str] = mapped_column(String(200))
    role: Mapped[str] = mapped_column(String(16))
    created: Mapped[dt.datetime] = mapped_column(DateTime, default=now)


class Course(Base):
    __tablename__ = "courses"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    teacher_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    title: Mapped[str] = mapped_column(String(200))
    join_code: Mapped[str] = mapped_column(String(32), unique=True, index=True)
    created: Mapped[dt.datetime] = mapped_column(DateTime, default=now)


class CourseExercise(Base):
    """One exercise of a course: a bundled one by name, or a generated one (``kind``, ``difficulty``, ``logic``)
    of which every student gets an instance of their own."""

    __tablename__ = "course_exercises"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id"), index=True)
    position: Mapped[int] = mapped_column(Integer, default=0)
    bundled: Mapped[str | None] = mapped_column(String(100), nullable=True)
    kind: Mapped[str | None] = mapped_column(String(32), nullable=True)
    difficulty: Mapped[int | None] = mapped_column(Integer, nullable=True)
    logic: Mapped[str | None] = mapped_column(String(32), nullable=True)
    deadline: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    max_attempts: Mapped[int | None] = mapped_column(Integer, nullable=True)
    solutions_published: Mapped[bool] = mapped_column(Boolean, default=False)


class Enrolment(Base):
    __tablename__ = "enrolments"
    __table_args__ = (UniqueConstraint("course_id", "user_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)


class Submission(Base):
    __tablename__ = "submissions"
    __table_args__ = (UniqueConstraint("exercise_id", "user_id", "attempt"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    exercise_id: Mapped[int] = mapped_column(ForeignKey("course_exercises.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    attempt: Mapped[int] = mapped_column(Integer)
    answer: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="pending", index=True)
    verdict: Mapped[str | None] = mapped_column(String(64), nullable=True)
    accepted: Mapped[bool] = mapped_column(Boolean, default=False)
    feedback: Mapped[str | None] = mapped_column(Text, nullable=True)
    """The grader's answer as JSON (:mod:`cer_theory.server.grading`): what the student may see, nothing more."""
    stepper: Mapped[str | None] = mapped_column(Text, nullable=True)
    """The stepped run over the separating stream, one self-contained HTML page, or None."""
    created: Mapped[dt.datetime] = mapped_column(DateTime, default=now)
    graded: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    seconds: Mapped[float | None] = mapped_column(Float, nullable=True)


class Setting(Base):
    """Server-wide values kept across restarts: the key that signs session cookies."""

    __tablename__ = "settings"
    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


def sqlite_url(path: str | Path) -> str:
    return f"sqlite:///{Path(path)}"


def connect(url: str) -> Engine:
    """The database at ``url`` (``sqlite:///file`` or ``postgresql://…``), its tables brought up to date by the
    migrations (:mod:`cer_theory.server.migrate`)."""
    if url.startswith("postgresql://"):  # SQLAlchemy's default driver name is psycopg2; the extra ships psycopg 3
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    if url.startswith("sqlite"):
        _owner_only(make_url(url).database)
        # No pool: a request holds its connection while it waits for the thread pool (Argon2, drawings), and a
        # pool of 15 then blocked the event loop itself on the 16th sign-in of a class (every request stalled).
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, poolclass=NullPool)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(connection, record) -> None:  # noqa: ANN001 - SQLAlchemy's event signature
            # WAL: readers do not wait for the grader's writes; the foreign keys SQLite ignores by default
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()
    else:
        engine = create_engine(url, pool_pre_ping=True, pool_size=20, max_overflow=60)  # (a class at once: see above)
    return engine


def _owner_only(path: str | None) -> None:
    """Make a new SQLite file readable and writable by its owner only (SQLite gives its WAL files the same
    permissions): it holds the password hashes and the key that signs session cookies, with which anyone who
    reads it could sign in as any teacher. An existing file keeps the permissions its owner gave it."""
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    create_private(path)


def sessions(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """One unit of work: committed at the end of the block, rolled back on any error."""
    with factory() as session, session.begin():
        yield session


def claim(session: Session, submission_id: int) -> bool:
    """Move a submission from ``pending`` to ``grading``; False when another grader holds it already."""
    result = session.execute(update(Submission).where(Submission.id == submission_id,
                                                      Submission.status == "pending").values(status="grading"))
    return result.rowcount == 1


def unfinished(session: Session) -> list[int]:
    """Submissions a stopped server left ungraded (``pending``, or ``grading`` when it stopped): put back to
    ``pending`` and returned oldest first, to be graded now."""
    session.execute(update(Submission).where(Submission.status == "grading").values(status="pending"))
    return list(session.scalars(select(Submission.id).where(Submission.status == "pending").order_by(Submission.id)))


def secret_key(session: Session) -> str:
    """The key signing session cookies: made once, kept in the database so a restart keeps everyone signed in."""
    row = session.get(Setting, "session_key")
    if row is None:
        row = Setting(name="session_key", value=secrets.token_urlsafe(48))
        session.add(row)
        session.flush()
    return row.value


__all__ = ["Base", "Course", "CourseExercise", "Enrolment", "ROLES", "STATUSES", "Setting", "Submission", "User",
           "claim", "connect", "now", "secret_key", "sessions", "sqlite_url", "transaction", "unfinished"]
