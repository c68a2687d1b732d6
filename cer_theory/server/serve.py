"""Starting the course server: the database migrated, a demo course on a new database, the grading pool started,
and the application served by uvicorn until it is stopped (Ctrl-C, SIGTERM), then the graders stopped.

A new database gets one teacher account, ``teacher``, with a password made for it and printed once to the
terminal of whoever started the server, and a demo course of bundled and generated exercises whose join code is
printed with it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import uvicorn
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from cer_theory.core.budget import DEFAULT_WORK
from cer_theory.exercises.checker import bundled_names
from cer_theory.server import db, migrate, security
from cer_theory.server.app import create_app
from cer_theory.server.grading import GradingPool

DEMO_BUNDLED = ("fire_01_later", "fire_03_hot", "cel_11_automaton_seq", "cel_12_predict_seq", "ceql_01_later",
                "sremo_05_register")
DEMO_GENERATED = (("formula", 1, "cel"), ("predict", 2, "cel"), ("automaton", 2, "cel"))


@dataclass(frozen=True)
class Demo:
    """What a new database was given: the teacher's password and the demo course's join code."""

    password: str
    join_code: str


def demo(factory: sessionmaker[Session]) -> Demo | None:
    """On a database with no accounts: a teacher account and a demo course; None when it has accounts."""
    with db.transaction(factory) as session:
        if session.scalar(select(func.count()).select_from(db.User)):
            return None
        password = secrets.token_urlsafe(12)
        teacher = db.User(username="teacher", name="Demo teacher", role="teacher",
                          password_hash=security.hash_password(password))
        session.add(teacher)
        session.flush()
        course = db.Course(teacher_id=teacher.id, title="Complex event recognition (demo)",
                           join_code=secrets.token_urlsafe(9))
        session.add(course)
        session.flush()
        available = set(bundled_names())
        position = 0
        for name in DEMO_BUNDLED:
            if name in available:
                session.add(db.CourseExercise(course_id=course.id, position=position, bundled=name))
                position += 1
        for kind, difficulty, logic in DEMO_GENERATED:
            session.add(db.CourseExercise(course_id=course.id, position=position, kind=kind, difficulty=difficulty,
                                          logic=logic))
            position += 1
        return Demo(password, course.join_code)


def serve(*, host: str, port: int, database: str, workers: int = 2, budget: int = DEFAULT_WORK,
          seconds: float = 30.0) -> None:
    """Serve until stopped."""
    engine = db.connect(database)
    migrate.upgrade(engine)
    factory = db.sessions(engine)
    made = demo(factory)
    with db.transaction(factory) as session:
        secret = db.secret_key(session)
    if made is not None:
        print(f"A new course database: sign in as 'teacher' with the password {made.password} (shown once); "
              f"students join the demo course with the code {made.join_code}.", flush=True)
    pool = GradingPool(factory, workers=workers, budget=budget, seconds=seconds)
    pool.start()
    app = create_app(factory, pool, secret, secure_cookies=host not in ("127.0.0.1", "localhost", "::1"))
    print(f"Serving the course at http://{'[' + host + ']' if ':' in host else host}:{port}/ (Ctrl-C stops it)",
          flush=True)
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
    finally:
        pool.stop()
        app.state.server.drawer.stop()
        engine.dispose()


__all__ = ["DEMO_BUNDLED", "DEMO_GENERATED", "Demo", "demo", "serve"]
