"""Fixtures of the course server's tests: a migrated database (SQLite in a temporary folder, or the PostgreSQL
server named by ``CER_THEORY_TEST_DATABASE``, which CI's server step sets), a started grading pool, and a class
of two teachers and three students in two courses.

Accounts are made through the database with a cheap Argon2 setting, so that the tests spend their time on the
routes; signing in goes through the real form."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from sqlalchemy import text
from starlette.testclient import TestClient

from cer_theory.server import db, migrate
from cer_theory.server.app import create_app
from cer_theory.server.grading import GradingPool

PASSWORD = "a password of the tests"
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def database_url(folder: Path) -> str:
    return os.environ.get("CER_THEORY_TEST_DATABASE") or db.sqlite_url(folder / "course.db")


def fresh(url: str) -> db.Engine:
    """A migrated database with nothing in it (PostgreSQL: every table dropped first)."""
    engine = db.connect(url)
    if not url.startswith("sqlite"):
        with engine.begin() as connection:
            connection.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
    migrate.upgrade(engine)
    return engine


class Client(TestClient):
    """A browser of the tests: remembers the page's CSRF token and sends it with its forms."""

    csrf = ""

    def page(self, url: str, **kwargs) -> object:
        response = self.get(url, **kwargs)
        if (m := CSRF.search(response.text)) is not None:
            self.csrf = m[1]
        return response

    def form(self, url: str, data: dict | None = None, *, csrf: bool = True, **kwargs) -> object:
        fields = dict(data or {})
        if csrf:
            fields["csrf"] = self.csrf
        response = self.post(url, data=fields, **kwargs)
        if (m := CSRF.search(response.text)) is not None:
            self.csrf = m[1]
        return response

    def sign_in(self, username: str, password: str = PASSWORD) -> None:
        self.page("/signin")
        response = self.form("/signin", {"username": username, "password": password})
        assert response.status_code == 200 and str(response.url).endswith("/courses"), response.text[:500]


@dataclass
class Class:
    """Two teachers (``t1`` owns course ``a``, ``t2`` owns ``b``) and three students (``s1``, ``s2`` in ``a``,
    ``s3`` in ``b``); each course has a bundled exercise and a generated one."""

    app: object
    factory: object
    pool: GradingPool
    ids: dict[str, int]

    def client(self, who: str | None = None) -> Client:
        c = Client(self.app)
        if who is not None:
            c.sign_in(who)
        return c


def make_class(factory, pool: GradingPool) -> Class:
    hasher = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    ids: dict[str, int] = {}
    with db.transaction(factory) as s:
        for name, role in (("t1", "teacher"), ("t2", "teacher"), ("s1", "student"), ("s2", "student"),
                           ("s3", "student")):
            user = db.User(username=name, name=name.upper(), role=role, password_hash=hasher.hash(PASSWORD))
            s.add(user)
            s.flush()
            ids[name] = user.id
        for course, teacher, students in (("a", "t1", ("s1", "s2")), ("b", "t2", ("s3",))):
            c = db.Course(teacher_id=ids[teacher], title=f"Course {course.upper()}", join_code=f"code-{course}")
            s.add(c)
            s.flush()
            ids[course] = c.id
            for student in students:
                s.add(db.Enrolment(course_id=c.id, user_id=ids[student]))
            bundled = db.CourseExercise(course_id=c.id, position=0, bundled="fire_01_later")
            generated = db.CourseExercise(course_id=c.id, position=1, kind="formula", difficulty=1, logic="cel")
            s.add_all([bundled, generated])
            s.flush()
            ids[f"{course}.bundled"], ids[f"{course}.generated"] = bundled.id, generated.id
    return Class(None, factory, pool, ids)


@pytest.fixture
def course_class(tmp_path: Path) -> Iterator[Class]:
    engine = fresh(database_url(tmp_path))
    factory = db.sessions(engine)
    pool = GradingPool(factory, workers=1, seconds=60)
    pool.start()
    made = make_class(factory, pool)
    with db.transaction(factory) as s:
        secret = db.secret_key(s)
    made.app = create_app(factory, pool, secret)
    try:
        yield made
    finally:
        pool.stop()
        made.app.state.server.drawer.stop()
        engine.dispose()


def graded(client: Client, url: str, seconds: float = 90) -> object:
    """The submission page once the grader has answered."""
    import time

    deadline = time.monotonic() + seconds
    while True:
        response = client.page(url)
        if "being graded" not in response.text or time.monotonic() > deadline:
            return response
        time.sleep(0.2)
