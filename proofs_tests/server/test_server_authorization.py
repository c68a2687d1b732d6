"""Every route of the course server, tried by every role on its own and on other people's resources, with and
without the CSRF token: generated from the route table (cer_theory.server.app.ROUTES), so a new route is tested by
construction. A resource that is not the caller's is answered 404, as one that does not exist; a route for another
role 403; a form without the session's token 403 and changes nothing."""

from __future__ import annotations

import json
import re

import pytest
from course_fixtures import Class, course_class  # noqa: F401 - the fixture
from sqlalchemy import func, select

from cer_theory.server import db
from cer_theory.server.app import ROUTES, Page

PARAMS = {"course", "exercise", "submission"}
def _ids(route: Page) -> str:
    return f"{route.method} {route.path}"


FORMS = {"/signin": {"username": "s1", "password": "wrong password"},
         "/register": {"code": "code-a", "username": "newcomer", "password": "long enough password"},
         "/courses": {"title": "Another"}, "/join": {"code": "code-a"},
         "/courses/{course}/exercises": {"bundled": "fire_03_hot"},
         "/courses/{course}/exercises/{exercise}/settings": {"max_attempts": "5"},
         "/courses/{course}/invite": {"accounts": "newstudent,New Student,long enough password"},
         "/courses/{course}/exercises/{exercise}/submit": {"answer": "H ; T"},
         "/draw": {"answer": "{}", "kind": "cea"}}
"""Form fields that make each POST do something when it is allowed."""


def _submissions(made: Class) -> dict[str, int]:
    """One graded submission each of s1 and s2 (course a) and of s3 (course b), with a stepper page."""
    ids = {}
    with db.transaction(made.factory) as s:
        for student, course in (("s1", "a"), ("s2", "a"), ("s3", "b")):
            sub = db.Submission(exercise_id=made.ids[f"{course}.bundled"], user_id=made.ids[student], attempt=1,
                                answer="T ; H", status="graded", verdict="correct", accepted=True,
                                feedback=json.dumps({"verdict": "correct", "accepted": True, "message": "Correct"}),
                                stepper="<!DOCTYPE html><p>run</p>")
            s.add(sub)
            s.flush()
            ids[student] = sub.id
    return ids


def _url(route: Page, course: str, submission: int, made: Class, exercise_course: str | None = None) -> str:
    """The route's path for ``course``, its bundled exercise (that of ``exercise_course`` when given: a mix of
    one's own course and another's exercise) and ``submission``."""
    names = set(re.findall(r"{(\w+)}", route.path))
    assert names <= PARAMS, f"{route.path}: the authorization tests do not know how to fill {names - PARAMS}"
    return route.path.format(course=made.ids[course], exercise=made.ids[f"{exercise_course or course}.bundled"],
                             submission=submission)


def _call(client, route: Page, url: str, *, csrf: bool = True):
    if route.method == "GET":
        return client.page(url, follow_redirects=False)
    client.page("/signin")  # a page of the site, for the session's token
    return client.form(url, FORMS.get(route.path, {}), csrf=csrf, follow_redirects=False)


def test_every_route_declares_a_role_and_every_form_is_listed() -> None:
    for route in ROUTES:
        assert route.role in (None, "any", "teacher", "student"), route
        if route.method == "POST":
            assert route.path in FORMS or route.path == "/signout", f"{route.path}: give it form fields in FORMS"


@pytest.mark.parametrize("route", [r for r in ROUTES if r.role is not None], ids=_ids)
def test_anonymous_visitors_are_sent_to_sign_in(course_class: Class, route: Page) -> None:
    subs = _submissions(course_class)
    response = _call(course_class.client(), route, _url(route, "a", subs["s1"], course_class))
    if route.method == "GET":
        assert response.status_code == 303 and response.headers["location"] == "/signin"
    else:
        assert response.status_code == 403


@pytest.mark.parametrize("route", [r for r in ROUTES if r.role in ("teacher", "student")], ids=_ids)
def test_a_route_of_one_role_is_refused_to_the_other(course_class: Class, route: Page) -> None:
    subs = _submissions(course_class)
    other = "s1" if route.role == "teacher" else "t1"
    response = _call(course_class.client(other), route, _url(route, "a", subs["s1"], course_class))
    assert response.status_code == 403


OWNED = [(route, who) for route in ROUTES if PARAMS & set(re.findall(r"{(\w+)}", route.path))
         for who, role in (("t1", "teacher"), ("s1", "student")) if route.role in ("any", None, role)]
"""Each route on resources, with each role allowed on it."""


@pytest.mark.parametrize(("route", "who"), OWNED, ids=[f"{who}-{_ids(route)}" for route, who in OWNED])
def test_other_peoples_resources_are_not_found(course_class: Class, route: Page, who: str) -> None:
    subs = _submissions(course_class)
    client = course_class.client(who)
    before = _counts(course_class)
    # course b is neither t1's nor s1's; s3's submission is in course b
    assert _call(client, route, _url(route, "b", subs["s3"], course_class)).status_code == 404
    if "{submission}" in route.path and who == "s1":  # a classmate's submission, in s1's own course
        assert _call(client, route, _url(route, "a", subs["s2"], course_class)).status_code == 404
    if "{exercise}" in route.path:  # the caller's own course, with the other course's exercise
        assert _call(client, route, _url(route, "a", subs["s1"], course_class, "b")).status_code == 404
    assert _counts(course_class) == before
    # and the same route on the caller's own resources is answered (the test can fail)
    own = _call(client, route, _url(route, "a", subs["s1"], course_class))
    assert own.status_code in (200, 303), (own.status_code, own.text[:300])


@pytest.mark.parametrize("route", [r for r in ROUTES if r.method == "POST"], ids=_ids)
def test_a_form_without_the_csrf_token_is_refused_and_changes_nothing(course_class: Class, route: Page) -> None:
    subs = _submissions(course_class)
    who = {"teacher": "t1", "student": "s1", "any": "s1", None: None}[route.role]
    client = course_class.client(who)
    before = _counts(course_class)
    url = _url(route, "a", subs["s1"], course_class)
    assert _call(client, route, url, csrf=False).status_code == 403
    client.cookies.clear()  # a forged form: another site's page posts with the victim's cookie but not its token
    assert _call(course_class.client(who), route, url, csrf=False).status_code == 403
    assert _counts(course_class) == before


def _counts(made: Class) -> tuple[int, ...]:
    with db.transaction(made.factory) as s:
        return tuple(s.scalar(select(func.count()).select_from(table)) for table in
                     (db.User, db.Course, db.CourseExercise, db.Enrolment, db.Submission))


def test_signing_out_needs_the_token_too(course_class: Class) -> None:
    client = course_class.client("s1")
    client.page("/courses")
    assert client.form("/signout", csrf=False, follow_redirects=False).status_code == 403
    assert client.page("/courses", follow_redirects=False).status_code == 200
    assert client.form("/signout", follow_redirects=False).status_code == 303
    assert client.page("/courses", follow_redirects=False).status_code == 303


def test_pages_carry_the_security_headers(course_class: Class) -> None:
    subs = _submissions(course_class)
    client = course_class.client("s1")
    page = client.page("/courses")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"
    stepper = client.page(f"/submissions/{subs['s1']}/stepper")
    assert stepper.headers["content-security-policy"] == "sandbox allow-scripts"
    assert "httponly" in client.page("/signin").headers.get("set-cookie", "httponly").lower()


def test_sign_in_is_rate_limited(course_class: Class) -> None:
    client = course_class.client()
    client.page("/signin")
    codes = [client.form("/signin", {"username": "t2", "password": "wrong"}).status_code for _ in range(12)]
    assert codes[:10] == [400] * 10 and codes[10:] == [429, 429]


def test_a_form_sent_without_a_length_is_read_no_further_than_the_limit(course_class: Class) -> None:
    """A body in chunks (no Content-Length) larger than a form may be: refused (413) once the limit is passed,
    without reading the rest into memory (each of its fields is under the parser's own limit on one field)."""
    import anyio

    from cer_theory.server.app import MAX_FORM

    chunk, chunks, read, messages = 1 << 16, 150, 0, []  # 10 MB offered, in fields of 64 KiB

    async def receive() -> dict:
        nonlocal read
        read += 1
        return {"type": "http.request", "body": b"&f=" + b"a" * (chunk - 3), "more_body": read < chunks}

    async def send(message: dict) -> None:
        messages.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": "/signin", "raw_path": b"/signin", "root_path": "", "query_string": b"",
             "headers": [(b"host", b"testserver"), (b"content-type", b"application/x-www-form-urlencoded")],
             "client": ("127.0.0.1", 50000), "server": ("testserver", 80)}
    anyio.run(course_class.app, scope, receive, send)
    assert messages[0]["status"] == 413, (read, messages[1].get("body", b"")[-300:])
    assert read * chunk <= MAX_FORM + chunk


def test_live_drawings_cannot_be_piled_up_by_one_student(course_class: Class, monkeypatch) -> None:
    """A drawing can take the drawer's whole 10 s (a dense automaton within the size limit does): a student's
    second drawing while the first is made is refused (429), and a drawing that finds the drawer busy gives up
    rather than holding one of the server's threads (which signing in needs too) for as long as it waits."""
    import threading
    import time

    from cer_theory.server.grading import Drawer

    drawer: Drawer = course_class.app.state.server.drawer
    entered, release = threading.Event(), threading.Event()

    def slow(text: str, kind: str) -> dict:
        entered.set()
        release.wait(30)
        return {"error": "drawn slowly"}

    monkeypatch.setattr(drawer, "draw", slow)
    first, second = course_class.client("s1"), course_class.client("s1")
    for c in (first, second):
        c.page("/courses")
    answers: list = []
    thread = threading.Thread(target=lambda: answers.append(first.form("/draw", {"answer": "{}", "kind": "cea"})))
    thread.start()
    try:
        assert entered.wait(30)
        assert second.form("/draw", {"answer": "{}", "kind": "cea"}).status_code == 429
        assert course_class.client("s2").page("/courses").status_code == 200
    finally:
        release.set()
        thread.join(30)
    assert answers[0].json() == {"error": "drawn slowly"}
    assert second.form("/draw", {"answer": "{}", "kind": "cea"}).status_code == 200  # and again once it is done
    monkeypatch.undo()

    busy = Drawer(seconds=0.2)
    with busy._lock:  # another student's drawing holds it
        started = time.monotonic()
        assert "busy" in busy.draw("{}", "cea")["error"]
        assert time.monotonic() - started < 2
    busy.stop()


def test_an_automaton_past_the_drawing_limits_is_not_laid_out() -> None:
    import json

    from cer_theory.server.grading import MAX_DRAWN, draw

    def automaton(states: int, per_state: int) -> str:
        moves = [{"from": f"q{i}", "guard": f'type = "T{j}"', "labels": ["T"], "to": f"q{(7 * i + 13 * j) % states}"}
                 for i in range(states) for j in range(per_state)]
        return json.dumps({"kind": "cea", "states": [f"q{i}" for i in range(states)], "initial": ["q0"],
                           "final": ["q1"], "transitions": moves})

    assert "too large" in draw(automaton(MAX_DRAWN + 1, 1), "cea")["error"]
    assert "too large" in draw(automaton(MAX_DRAWN, 4), "cea")["error"]  # 120 dense transitions: seconds of layout
    assert "svg" in draw(automaton(3, 2), "cea")


@pytest.mark.parametrize("number", ["0", "-1", "2147483648", "99999999999999999999999", "1e3", "1" * 5000],
                         ids=lambda n: n if len(n) < 30 else f"{len(n)} digits")
def test_a_number_no_record_can_have_is_not_found(course_class: Class, number: str) -> None:
    """Ids past the database's integer (PostgreSQL's is 32-bit; SQLite's driver overflows past 64) are 404, as
    any id that names nothing, never a server error."""
    client = course_class.client("s1")
    for path in (f"/courses/{number}", f"/submissions/{number}",
                 f"/courses/{course_class.ids['a']}/exercises/{number}"):
        assert client.page(path).status_code == 404, path
