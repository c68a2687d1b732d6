"""The course server's web application (Starlette): pages rendered on the server (Jinja2), forms, and the
grading pool behind them.

Every route is declared once in :data:`ROUTES` with the role it needs (``None``: anyone; ``"any"``: signed in;
``"teacher"``, ``"student"``), and every POST is a form checked for the session's CSRF token before its handler
runs: the route table is what the authorization tests iterate over, so a new route is tested by construction.
Objects are looked up through the signed-in account (a teacher's own courses, a student's own enrolments and
submissions), and one that is not theirs is answered 404, as one that does not exist.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from cer_theory.core.errors import CerError
from cer_theory.core.spreadsheet import spreadsheet_cell
from cer_theory.exercises.checker import bundled_names, load_exercise
from cer_theory.exercises.generate import LOGICS
from cer_theory.exercises.model import KINDS
from cer_theory.server import db, security
from cer_theory.server.grading import Drawer, GradingPool
from cer_theory.server.instances import check_generated, spec_of, statement

MAX_ANSWER = 64 * 1024
"""The longest answer accepted (characters): a formula or an automaton of a course exercise is far shorter."""
MAX_FORM = 256 * 1024
"""The largest form body read (bytes), the class list included."""
SIGN_IN_LIMIT = (10, 60.0)
"""Sign-in attempts per minute on one account name."""
ADDRESS_LIMIT = (300, 60.0)
"""Sign-in and registration attempts per minute from one address (a class behind one router shares it)."""
SUBMIT_LIMIT = (30, 60.0)
"""Answers per minute per student."""
MAX_WAITING = 2
"""Answers a student may have waiting for the graders at once: the queue is first come, first served, and one
answer may hold a grader for its whole time cap, so a student's run of hostile answers would hold back everyone
else's feedback (two: an answer to each of two exercises open side by side)."""


@dataclass
class Server:
    """What the handlers share: the database, the grading pool, the templates and the rate limits."""

    factory: sessionmaker[Session]
    pool: GradingPool
    templates: Environment
    sign_in_limit: security.RateLimit = field(default_factory=lambda: security.RateLimit(*SIGN_IN_LIMIT))
    address_limit: security.RateLimit = field(default_factory=lambda: security.RateLimit(*ADDRESS_LIMIT))
    submit_limit: security.RateLimit = field(default_factory=lambda: security.RateLimit(*SUBMIT_LIMIT))
    draw_limit: security.RateLimit = field(default_factory=lambda: security.RateLimit(120, 60.0))
    drawer: Drawer = field(default_factory=Drawer)
    drawing: set[int] = field(default_factory=set)
    """The accounts whose live drawing is being made: one at a time each (the handlers run on one event loop)."""


@dataclass
class Context:
    """One request: the server, the account signed in (or None), the database session and the form (POST)."""

    request: Request
    server: Server
    db: Session
    user: db.User | None
    form: FormData | None = None

    def render(self, template: str, status_code: int = 200, **values: Any) -> HTMLResponse:
        values.update(user=self.user, csrf=security.csrf_token(self.request.session), path=self.request.url.path)
        return HTMLResponse(self.server.templates.get_template(template).render(**values), status_code=status_code)

    def field(self, name: str, default: str = "", limit: int = 1000) -> str:
        assert self.form is not None
        value = self.form.get(name, default)
        if not isinstance(value, str):
            raise HTTPException(400, f"{name}: expected text")
        if len(value) > limit:
            raise HTTPException(413, f"{name}: at most {limit} characters")
        return value


Handler = Callable[[Context], Awaitable[Response]]


@dataclass(frozen=True)
class Page:
    """A route: its path, method, the role it needs and its handler."""

    path: str
    method: str
    role: str | None
    handler: Handler


ROUTES: list[Page] = []


def page(path: str, method: str = "GET", role: str | None = "any") -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        ROUTES.append(Page(path, method, role, handler))
        return handler
    return register


def _endpoint(server: Server, route: Page) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        form = None
        if route.method == "POST":
            request = await _bounded(request)
            form = await request.form(max_files=0, max_fields=200, max_part_size=MAX_FORM)
            if not security.csrf_ok(request.session, form.get("csrf")):
                raise HTTPException(403, "the form has expired or did not come from this site: reload the page")
        with server.factory() as session:
            user = _signed_in(request, session)
            if route.role is not None:
                if user is None:
                    if route.method == "GET":
                        return RedirectResponse("/signin", 303)
                    raise HTTPException(403, "sign in first")
                if route.role != "any" and user.role != route.role:
                    raise HTTPException(403, f"this page is for {route.role}s")
            response = await route.handler(Context(request, server, session, user, form))
            session.commit()
            return response
    return endpoint


async def _bounded(request: Request) -> Request:
    """The request with its body read, refused (413) as soon as it passes :data:`MAX_FORM` bytes: a body sent in
    chunks has no length to check first, and the form parser bounds one field, not the whole form."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            raise HTTPException(413, "the form is too large")
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return await request.receive()  # the client's disconnect, if it comes
        sent = True
        return {"type": "http.request", "body": bytes(body), "more_body": False}

    return Request(request.scope, receive)


def _signed_in(request: Request, session: Session) -> db.User | None:
    user_id = request.session.get("user")
    return session.get(db.User, user_id) if isinstance(user_id, int) else None


def _not_found() -> HTTPException:
    return HTTPException(404, "no such page")


# ---------------------------------------------------------------------------------------------- accounts


@page("/", role=None)
async def home(ctx: Context) -> Response:
    return RedirectResponse("/courses" if ctx.user else "/signin", 303)


@page("/signin", role=None)
async def signin_form(ctx: Context) -> Response:
    return ctx.render("signin.html")


@page("/signin", "POST", role=None)
async def signin(ctx: Context) -> Response:
    username = ctx.field("username", limit=64).strip()
    password = ctx.field("password", limit=security.MAX_PASSWORD)
    address = ctx.request.client.host if ctx.request.client else "?"
    if not (ctx.server.address_limit.allow(address) and ctx.server.sign_in_limit.allow(username)):
        return ctx.render("signin.html", 429, error="Too many attempts: wait a minute and try again.")
    user = ctx.db.scalar(select(db.User).where(db.User.username == username))
    stored = user.password_hash if user is not None else security.DUMMY_HASH
    if not await run_in_threadpool(security.verify_password, stored, password) or user is None:
        return ctx.render("signin.html", 400, error="Wrong name or password.")
    ctx.request.session.clear()  # a new session on sign-in: a token planted before it is worth nothing
    ctx.request.session["user"] = user.id
    return RedirectResponse("/courses", 303)


@page("/signout", "POST")
async def signout(ctx: Context) -> Response:
    ctx.request.session.clear()
    return RedirectResponse("/signin", 303)


@page("/register", role=None)
async def register_form(ctx: Context) -> Response:
    return ctx.render("register.html")


def _new_account(ctx: Context, username: str, name: str, password: str, role: str) -> db.User | str:
    """A new account, or why not (a message for the form)."""
    if not (1 <= len(username) <= 64) or not username.replace("_", "").replace(".", "").replace("-", "").isalnum():
        return "A user name is 1 to 64 letters, digits, '.', '_' or '-'."
    if not security.MIN_PASSWORD <= len(password) <= security.MAX_PASSWORD:
        return f"A password has {security.MIN_PASSWORD} to {security.MAX_PASSWORD} characters."
    if ctx.db.scalar(select(db.User).where(db.User.username == username)) is not None:
        return f"The name {username} is taken."
    user = db.User(username=username, name=name.strip()[:200] or username, role=role,
                   password_hash=security.hash_password(password))
    ctx.db.add(user)
    ctx.db.flush()
    return user


@page("/register", "POST", role=None)
async def register(ctx: Context) -> Response:
    code = ctx.field("code", limit=32).strip()
    address = ctx.request.client.host if ctx.request.client else "?"
    if not ctx.server.address_limit.allow(address):
        return ctx.render("register.html", 429, error="Too many attempts: wait a minute and try again.")
    course = ctx.db.scalar(select(db.Course).where(db.Course.join_code == code)) if code else None
    if course is None:
        return ctx.render("register.html", 400, error="No course has that code: ask your teacher for it.")
    made = await run_in_threadpool(_new_account, ctx, ctx.field("username", limit=64).strip(),
                                   ctx.field("name", limit=200), ctx.field("password", limit=security.MAX_PASSWORD),
                                   "student")
    if isinstance(made, str):
        return ctx.render("register.html", 400, error=made)
    ctx.db.add(db.Enrolment(course_id=course.id, user_id=made.id))
    ctx.request.session.clear()
    ctx.request.session["user"] = made.id
    return RedirectResponse(f"/courses/{course.id}", 303)


# ---------------------------------------------------------------------------------------------- courses


def _course(ctx: Context, course_id: int) -> db.Course:
    """The course, if it is the signed-in teacher's own or the signed-in student's; 404 otherwise."""
    course = ctx.db.get(db.Course, course_id)
    assert ctx.user is not None
    if course is None:
        raise _not_found()
    if ctx.user.role == "teacher" and course.teacher_id == ctx.user.id:
        return course
    if ctx.user.role == "student" and ctx.db.scalar(select(db.Enrolment).where(
            db.Enrolment.course_id == course_id, db.Enrolment.user_id == ctx.user.id)) is not None:
        return course
    raise _not_found()


def _own_course(ctx: Context, course_id: int) -> db.Course:
    course = _course(ctx, course_id)
    if course.teacher_id != getattr(ctx.user, "id", None):
        raise _not_found()
    return course


def _exercise(ctx: Context, course: db.Course, exercise_id: int) -> db.CourseExercise:
    exercise = ctx.db.get(db.CourseExercise, exercise_id)
    if exercise is None or exercise.course_id != course.id:
        raise _not_found()
    return exercise


def _exercises(ctx: Context, course: db.Course) -> list[db.CourseExercise]:
    return list(ctx.db.scalars(select(db.CourseExercise).where(db.CourseExercise.course_id == course.id)
                               .order_by(db.CourseExercise.position, db.CourseExercise.id)))


MAX_ID = 2**31 - 1
"""The largest record id (PostgreSQL's ``integer``): a larger number in a path names nothing."""


def _int(text: str) -> int:
    """The id a path gives, or 404: ASCII digits only (``int`` also reads ``+1``, `` 1`` and other scripts' digits),
    at most :data:`MAX_ID` (the database refuses larger ones with an error, not with nothing)."""
    if not (text.isascii() and text.isdigit() and len(text) <= len(str(MAX_ID))) or not 0 < int(text) <= MAX_ID:
        raise _not_found()
    return int(text)


def _label(exercise: db.CourseExercise) -> str:
    if exercise.bundled:
        return exercise.bundled
    return f"generated {exercise.logic} {exercise.kind}, difficulty {exercise.difficulty}"


@page("/courses")
async def courses(ctx: Context) -> Response:
    assert ctx.user is not None
    if ctx.user.role == "teacher":
        mine = list(ctx.db.scalars(select(db.Course).where(db.Course.teacher_id == ctx.user.id).order_by(db.Course.id)))
    else:
        mine = list(ctx.db.scalars(select(db.Course).join(db.Enrolment, db.Enrolment.course_id == db.Course.id)
                                   .where(db.Enrolment.user_id == ctx.user.id).order_by(db.Course.id)))
    return ctx.render("courses.html", courses=mine, bundled=bundled_names(), logics=LOGICS)


@page("/courses", "POST", role="teacher")
async def create_course(ctx: Context) -> Response:
    assert ctx.user is not None
    title = ctx.field("title", limit=200).strip() or "A course in complex event recognition"
    course = db.Course(teacher_id=ctx.user.id, title=title, join_code=secrets.token_urlsafe(9))
    ctx.db.add(course)
    ctx.db.flush()
    assert ctx.form is not None
    for k, name in enumerate(n for n in ctx.form.getlist("bundled") if isinstance(n, str)):
        if name in bundled_names():
            ctx.db.add(db.CourseExercise(course_id=course.id, position=k, bundled=name))
    return RedirectResponse(f"/courses/{course.id}", 303)


@page("/join", "POST", role="student")
async def join(ctx: Context) -> Response:
    assert ctx.user is not None
    code = ctx.field("code", limit=32).strip()
    course = ctx.db.scalar(select(db.Course).where(db.Course.join_code == code)) if code else None
    if course is None:
        raise HTTPException(400, "No course has that code: ask your teacher for it.")
    if ctx.db.scalar(select(db.Enrolment).where(db.Enrolment.course_id == course.id,
                                                db.Enrolment.user_id == ctx.user.id)) is None:
        ctx.db.add(db.Enrolment(course_id=course.id, user_id=ctx.user.id))
    return RedirectResponse(f"/courses/{course.id}", 303)


def _best_and_last(ctx: Context, exercise_id: int, user_id: int) -> tuple[db.Submission | None, db.Submission | None, int]:
    subs = list(ctx.db.scalars(select(db.Submission).where(db.Submission.exercise_id == exercise_id,
                                                           db.Submission.user_id == user_id)
                               .order_by(db.Submission.attempt)))
    last = subs[-1] if subs else None
    best = next((s for s in subs if s.accepted), last)
    return best, last, len(subs)


@page("/courses/{course}")
async def course_page(ctx: Context) -> Response:
    assert ctx.user is not None
    course = _course(ctx, _int(ctx.request.path_params["course"]))
    exercises = _exercises(ctx, course)
    if ctx.user.role == "teacher":
        students = _students(ctx, course)
        return ctx.render("course_teacher.html", course=course, exercises=exercises, label=_label,
                          students=students, bundled=bundled_names(), logics=LOGICS, kinds=KINDS)
    rows = []
    for e in exercises:
        best, last, attempts = _best_and_last(ctx, e.id, ctx.user.id)
        title = _instance(e, course, ctx.user.id).title
        rows.append((e, title, best, last, attempts))
    return ctx.render("course_student.html", course=course, rows=rows)


def _students(ctx: Context, course: db.Course) -> list[db.User]:
    return list(ctx.db.scalars(select(db.User).join(db.Enrolment, db.Enrolment.user_id == db.User.id)
                               .where(db.Enrolment.course_id == course.id).order_by(db.User.username)))


def _instance(exercise: db.CourseExercise, course: db.Course, user_id: int) -> Any:
    return spec_of(exercise, course.id, user_id).build()


@page("/courses/{course}/exercises", "POST", role="teacher")
async def add_exercise(ctx: Context) -> Response:
    course = _own_course(ctx, _int(ctx.request.path_params["course"]))
    position = len(_exercises(ctx, course))
    name = ctx.field("bundled", limit=100).strip()
    if name:
        if name not in bundled_names():
            raise HTTPException(400, f"no bundled exercise named {name!r}")
        ctx.db.add(db.CourseExercise(course_id=course.id, position=position, bundled=name))
    else:
        kind, logic = ctx.field("kind", limit=32), ctx.field("logic", "cel", limit=32)
        try:
            difficulty = int(ctx.field("difficulty", limit=2))
            check_generated(kind, difficulty, logic)
        except (ValueError, CerError) as e:
            raise HTTPException(400, str(e)) from None
        ctx.db.add(db.CourseExercise(course_id=course.id, position=position, kind=kind, difficulty=difficulty,
                                     logic=logic))
    return RedirectResponse(f"/courses/{course.id}", 303)


def _utc(moment: dt.datetime) -> dt.datetime:
    """A deadline as the database keeps it, in UTC without an offset: one typed with an offset is converted (the
    offset was dropped, moving the deadline by it), one typed without is UTC already (the form says so)."""
    return moment.astimezone(dt.timezone.utc).replace(tzinfo=None) if moment.tzinfo is not None else moment


@page("/courses/{course}/exercises/{exercise}/settings", "POST", role="teacher")
async def exercise_settings(ctx: Context) -> Response:
    course = _own_course(ctx, _int(ctx.request.path_params["course"]))
    exercise = _exercise(ctx, course, _int(ctx.request.path_params["exercise"]))
    deadline, attempts = ctx.field("deadline", limit=32).strip(), ctx.field("max_attempts", limit=6).strip()
    try:
        exercise.deadline = _utc(dt.datetime.fromisoformat(deadline)) if deadline else None
        exercise.max_attempts = int(attempts) if attempts else None
    except ValueError:
        raise HTTPException(400, "a deadline is a date and time (2026-12-01T18:00), attempts a whole number") from None
    if exercise.max_attempts is not None and exercise.max_attempts < 1:
        raise HTTPException(400, "at least one attempt")
    exercise.solutions_published = ctx.field("solutions", limit=8) == "on"
    return RedirectResponse(f"/courses/{course.id}", 303)


@page("/courses/{course}/invite", "POST", role="teacher")
async def invite(ctx: Context) -> Response:
    """Accounts from a CSV (``username,name,password`` per line): new ones are made, and every one is enrolled."""
    course = _own_course(ctx, _int(ctx.request.path_params["course"]))
    text = ctx.field("accounts", limit=MAX_FORM)
    problems, added = [], 0
    for k, row in enumerate(csv.reader(io.StringIO(text)), 1):
        if not row or row == ["username", "name", "password"]:
            continue
        if len(row) != 3:
            problems.append(f"line {k}: expected username,name,password")
            continue
        username, name, password = (c.strip() for c in row)
        user = ctx.db.scalar(select(db.User).where(db.User.username == username))
        if user is None:
            made = await run_in_threadpool(_new_account, ctx, username, name, password, "student")
            if isinstance(made, str):
                problems.append(f"line {k}: {made}")
                continue
            user = made
        elif user.role != "student":
            problems.append(f"line {k}: {username} is not a student account")
            continue
        if ctx.db.scalar(select(db.Enrolment).where(db.Enrolment.course_id == course.id,
                                                    db.Enrolment.user_id == user.id)) is None:
            ctx.db.add(db.Enrolment(course_id=course.id, user_id=user.id))
            added += 1
    ctx.db.flush()
    return ctx.render("invited.html", course=course, added=added, problems=problems)


# ---------------------------------------------------------------------------------------------- answers


@page("/courses/{course}/exercises/{exercise}")
async def exercise_page(ctx: Context) -> Response:
    assert ctx.user is not None
    course = _course(ctx, _int(ctx.request.path_params["course"]))
    exercise = _exercise(ctx, course, _int(ctx.request.path_params["exercise"]))
    if ctx.user.role == "teacher":
        instance = load_exercise(exercise.bundled) if exercise.bundled else None
        return ctx.render("exercise_teacher.html", course=course, exercise=exercise, label=_label(exercise),
                          instance=instance)
    instance = _instance(exercise, course, ctx.user.id)
    history = list(ctx.db.scalars(select(db.Submission).where(db.Submission.exercise_id == exercise.id,
                                                              db.Submission.user_id == ctx.user.id)
                                  .order_by(db.Submission.attempt.desc())))
    return ctx.render("exercise_student.html", course=course, exercise=exercise,
                      shown=statement(instance, solutions=exercise.solutions_published), history=history,
                      closed=_closed(exercise, len(history)), draw=_drawn(instance))


def _drawn(instance: Any) -> str | None:
    """What the answer field of an exercise draws live: an automaton model, or None (a formula, a prediction)."""
    if instance.kind == "automaton" or (instance.kind == "construction" and instance.construction != "star_property"):
        return "acea" if instance.logic == "acel" else "cea"
    return None


def _closed(exercise: db.CourseExercise, attempts: int) -> str | None:
    """Why no more answers are taken, or None."""
    if exercise.deadline is not None and db.now() > exercise.deadline:
        return f"The deadline ({exercise.deadline:%Y-%m-%d %H:%M} UTC) has passed."
    if exercise.max_attempts is not None and attempts >= exercise.max_attempts:
        return f"You have used all {exercise.max_attempts} attempts."
    return None


@page("/courses/{course}/exercises/{exercise}/submit", "POST", role="student")
async def submit(ctx: Context) -> Response:
    assert ctx.user is not None
    course = _course(ctx, _int(ctx.request.path_params["course"]))
    exercise = _exercise(ctx, course, _int(ctx.request.path_params["exercise"]))
    answer = ctx.field("answer", limit=MAX_ANSWER).strip()
    if not answer:
        raise HTTPException(400, "an empty answer")
    if not ctx.server.submit_limit.allow(f"user:{ctx.user.id}"):
        raise HTTPException(429, "Too many answers in a minute: wait a little and submit again.")
    attempts = ctx.db.scalar(select(func.count()).select_from(db.Submission).where(
        db.Submission.exercise_id == exercise.id, db.Submission.user_id == ctx.user.id)) or 0
    if (why := _closed(exercise, attempts)) is not None:
        raise HTTPException(403, why)
    waiting = ctx.db.scalar(select(func.count()).select_from(db.Submission).where(
        db.Submission.user_id == ctx.user.id, db.Submission.status.in_(("pending", "grading")))) or 0
    if waiting >= MAX_WAITING:
        raise HTTPException(429, "Your previous answers are still being graded: wait for their feedback, then "
                                 "submit again.")
    submission = db.Submission(exercise_id=exercise.id, user_id=ctx.user.id, attempt=attempts + 1, answer=answer,
                               status="pending")
    ctx.db.add(submission)
    try:
        ctx.db.commit()  # written before it is graded: a restart grades it, never loses it
    except IntegrityError:  # the same attempt number submitted twice at once: the other one counts
        ctx.db.rollback()
        raise HTTPException(409, "Another answer of yours was being submitted: reload the page.") from None
    ctx.server.pool.submit(submission.id)
    return RedirectResponse(f"/submissions/{submission.id}", 303)


def _submission(ctx: Context, submission_id: int) -> tuple[db.Submission, db.CourseExercise, db.Course]:
    """The submission, if it is the signed-in student's own or in the signed-in teacher's course; 404 otherwise."""
    assert ctx.user is not None
    submission = ctx.db.get(db.Submission, submission_id)
    if submission is None:
        raise _not_found()
    exercise = ctx.db.get(db.CourseExercise, submission.exercise_id)
    course = ctx.db.get(db.Course, exercise.course_id) if exercise is not None else None
    if exercise is None or course is None:
        raise _not_found()
    if ctx.user.role == "student" and submission.user_id == ctx.user.id:
        return submission, exercise, course
    if ctx.user.role == "teacher" and course.teacher_id == ctx.user.id:
        return submission, exercise, course
    raise _not_found()


@page("/submissions/{submission}")
async def submission_page(ctx: Context) -> Response:
    submission, exercise, course = _submission(ctx, _int(ctx.request.path_params["submission"]))
    feedback = json.loads(submission.feedback) if submission.feedback else None
    student = ctx.db.get(db.User, submission.user_id)
    instance = _instance(exercise, course, submission.user_id)
    reference = instance.reference_text if getattr(ctx.user, "role", None) == "teacher" else None
    return ctx.render("submission.html", submission=submission, exercise=exercise, course=course,
                      feedback=feedback, student=student, label=_label(exercise), title=instance.title,
                      reference=reference)


@page("/submissions/{submission}/stepper")
async def stepper(ctx: Context) -> Response:
    """The stepped run, a page of its own shown in a sandboxed frame: its script runs with no access to the
    server's pages or cookies."""
    submission, _, _ = _submission(ctx, _int(ctx.request.path_params["submission"]))
    if not submission.stepper:
        raise _not_found()
    return HTMLResponse(submission.stepper, headers={"Content-Security-Policy": "sandbox allow-scripts"})


@page("/draw", "POST")
async def draw(ctx: Context) -> Response:
    """The live drawing of an automaton answer (JSON: ``svg`` or ``error``), laid out in a child process."""
    assert ctx.user is not None
    if ctx.user.id in ctx.server.drawing:
        return JSONResponse({"error": "your previous drawing is still being made"}, status_code=429)
    if not ctx.server.draw_limit.allow(str(ctx.user.id)):
        return JSONResponse({"error": "too many drawings in a minute"}, status_code=429)
    kind = "acea" if ctx.field("kind", limit=8) == "acea" else "cea"
    answer = ctx.field("answer", limit=MAX_ANSWER)
    ctx.server.drawing.add(ctx.user.id)
    try:
        return JSONResponse(await run_in_threadpool(ctx.server.drawer.draw, answer, kind))
    finally:
        ctx.server.drawing.discard(ctx.user.id)


@page("/static/answer.js", role=None)
async def answer_script(ctx: Context) -> Response:
    script = (resources.files("cer_theory.server") / "static" / "answer.js").read_text(encoding="utf-8")
    return Response(script, media_type="text/javascript; charset=utf-8",
                    headers={"Cache-Control": "public, max-age=3600"})


# ---------------------------------------------------------------------------------------------- gradebook


def _gradebook(ctx: Context, course: db.Course) -> tuple[list[db.CourseExercise], list[tuple[db.User, list[tuple]]]]:
    exercises, rows = _exercises(ctx, course), []
    for student in _students(ctx, course):
        rows.append((student, [_best_and_last(ctx, e.id, student.id) for e in exercises]))
    return exercises, rows


@page("/courses/{course}/gradebook", role="teacher")
async def gradebook(ctx: Context) -> Response:
    course = _own_course(ctx, _int(ctx.request.path_params["course"]))
    exercises, rows = _gradebook(ctx, course)
    return ctx.render("gradebook.html", course=course, exercises=exercises, rows=rows, label=_label)


@page("/courses/{course}/gradebook.csv", role="teacher")
async def gradebook_csv(ctx: Context) -> Response:
    course = _own_course(ctx, _int(ctx.request.path_params["course"]))
    exercises, rows = _gradebook(ctx, course)
    out = io.StringIO()
    writer = csv.writer(out)  # lines end in CRLF (RFC 4180), as core.spreadsheet's files do (docs/decisions.md D342)
    header = ["student", "name"]
    for e in exercises:
        header += [f"{_label(e)}: best", f"{_label(e)}: last", f"{_label(e)}: attempts"]
    writer.writerow([spreadsheet_cell(h) for h in header])
    for student, cells in rows:
        line = [student.username, student.name]
        for best, last, attempts in cells:
            line += [best.verdict or best.status if best else "", last.verdict or last.status if last else "",
                     str(attempts)]
        writer.writerow([spreadsheet_cell(c) for c in line])
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="gradebook-{course.id}.csv"'})


# ---------------------------------------------------------------------------------------------- the application


async def _error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    server: Server = request.app.state.server
    text = server.templates.get_template("error.html").render(status=exc.status_code, detail=exc.detail, user=None,
                                                              csrf="", path=request.url.path)
    return HTMLResponse(text, status_code=exc.status_code)


CSP = ("default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self'; img-src 'self' data:; "
       "frame-ancestors 'self'; "
       "form-action 'self'; base-uri 'none'")
"""The pages' Content-Security-Policy: no inline script and nothing from elsewhere (the stepper, which has its own
inline script, is served with ``sandbox allow-scripts`` instead)."""


class _Headers:
    """Security headers on every response (ASGI middleware)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def sending(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = dict((k.lower(), v) for k, v in message.get("headers", []))
                extra = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"),
                         (b"x-frame-options", b"SAMEORIGIN")]
                if b"content-security-policy" not in headers:
                    extra.append((b"content-security-policy", CSP.encode()))
                message["headers"] = [*message.get("headers", []), *(h for h in extra if h[0] not in headers)]
            await send(message)

        await self.app(scope, receive, sending if scope["type"] == "http" else send)


def templates() -> Environment:
    folder = resources.files("cer_theory.server") / "templates"
    return Environment(loader=FileSystemLoader(str(folder)), autoescape=select_autoescape(default=True),
                       trim_blocks=True, lstrip_blocks=True)


def create_app(factory: sessionmaker[Session], pool: GradingPool, secret: str, *, secure_cookies: bool = False
               ) -> Starlette:
    """The application over a migrated database (``factory``) and a started grading pool."""
    server = Server(factory, pool, templates())
    app = Starlette(routes=[Route(r.path, _endpoint(server, r), methods=[r.method]) for r in ROUTES],
                    middleware=[Middleware(SessionMiddleware, secret_key=secret, session_cookie="cer_session",
                                           same_site="lax", https_only=secure_cookies, max_age=14 * 24 * 3600)],
                    exception_handlers={HTTPException: _error})
    app.add_middleware(_Headers)
    app.state.server = server
    return app


__all__ = ["MAX_ANSWER", "MAX_WAITING", "ROUTES", "Page", "Server", "create_app", "templates"]
