"""The course server as a class uses it: accounts, courses, per-student instances, answers graded once each in
worker processes within the budget and a wall-clock cap, nothing lost over a restart, what students may see, the
gradebook and its CSV."""

from __future__ import annotations

import csv
import io
import json
import re
import time

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from course_fixtures import Class, course_class, graded  # noqa: F401 - the fixture
from sqlalchemy import func, select

from cer_theory.exercises.checker import load_exercise
from cer_theory.server import db
from cer_theory.core.spreadsheet import DANGEROUS, from_spreadsheet_cell
from cer_theory.server.app import MAX_ANSWER
from cer_theory.server.grading import GradingPool
from cer_theory.server.instances import secrets_of, spec_of, student_seed


def test_the_migrations_build_exactly_the_models_tables(course_class: Class) -> None:
    engine = course_class.factory.kw["bind"]
    with engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), db.Base.metadata) == []


def _exercise_url(made: Class, course: str, which: str) -> str:
    return f"/courses/{made.ids[course]}/exercises/{made.ids[f'{course}.{which}']}"


def _submit(client, made: Class, which: str, answer: str, course: str = "a") -> str:
    url = _exercise_url(made, course, which)
    client.page(url)
    response = client.form(url + "/submit", {"answer": answer}, follow_redirects=False)
    assert response.status_code == 303, response.text[:400]
    return response.headers["location"]


def test_a_wrong_answer_gets_the_separating_stream_both_outputs_and_the_stepper(course_class: Class) -> None:
    client = course_class.client("s1")
    page = graded(client, _submit(client, course_class, "bundled", "H ; T"))
    assert 'id="verdict">wrong' in page.text
    assert re.search(r'<table id="stream">.*"H".*"T"', page.text, re.S)  # the stream as rows
    assert "your answer" in page.text and "expected" in page.text
    stepper = re.search(r'<iframe[^>]*sandbox="allow-scripts" src="([^"]+)"', page.text)
    assert stepper is not None
    run = client.page(stepper[1])
    assert run.status_code == 200 and "run-data" in run.text
    right = graded(client, _submit(client, course_class, "bundled", "T ; H"))
    assert 'id="verdict">correct' in right.text and "<iframe" not in right.text


def test_each_student_gets_an_instance_of_their_own_rebuilt_from_the_seed(course_class: Class) -> None:
    ids = course_class.ids
    titles = {who: re.search(r"<h1>([^<]+)</h1>", course_class.client(who).page(
        _exercise_url(course_class, "a", "generated")).text)[1] for who in ("s1", "s2")}
    assert titles["s1"] != titles["s2"]
    for who in ("s1", "s2"):
        assert str(student_seed(ids["a"], ids[who], ids["a.generated"])) in titles[who]
    with db.transaction(course_class.factory) as s:
        exercise = s.get(db.CourseExercise, ids["a.generated"])
        assert spec_of(exercise, ids["a"], ids["s1"]).build() == spec_of(exercise, ids["a"], ids["s1"]).build()


def test_no_page_a_student_can_reach_shows_a_reference_a_solution_or_a_mistake(course_class: Class) -> None:
    client = course_class.client("s1")
    _submit(client, course_class, "bundled", "T OR H")  # wrong answers, so that the feedback has all it can show
    _submit(client, course_class, "generated", "T")
    with db.transaction(course_class.factory) as s:
        secrets = [t for e in s.scalars(select(db.CourseExercise))
                   for t in secrets_of(spec_of(e, e.course_id, course_class.ids["s1"]).build())]
    assert len(secrets) >= 4
    seen, todo, pages = set(), ["/courses"], []
    while todo:  # every page reachable from the student's start page, graded submissions included
        url = todo.pop()
        if url in seen or not url.startswith("/") or url.startswith("//"):
            continue
        seen.add(url)
        response = graded(client, url) if url.startswith("/submissions/") else client.page(url)
        pages.append(response.text)
        todo += re.findall(r'(?:href|src)="(/[^"]*)"', response.text)
    assert len(pages) >= 8
    for text in pages:
        for secret in secrets:
            assert secret not in text, f"a student page shows {secret!r}"
    # the teacher's page of the bundled exercise does show its reference: the search above can find one
    teacher = course_class.client("t1").page(_exercise_url(course_class, "a", "bundled")).text
    assert load_exercise("fire_01_later").reference_text in teacher


def test_published_solutions_are_shown(course_class: Class) -> None:
    teacher = course_class.client("t1")
    url = _exercise_url(course_class, "a", "bundled")
    teacher.page(f"/courses/{course_class.ids['a']}")
    teacher.form(url + "/settings", {"solutions": "on"})
    page = course_class.client("s1").page(url).text
    assert load_exercise("fire_01_later").answer in page


def test_deadlines_and_attempt_limits_bind(course_class: Class) -> None:
    teacher, student = course_class.client("t1"), course_class.client("s1")
    url = _exercise_url(course_class, "a", "bundled")
    teacher.page(f"/courses/{course_class.ids['a']}")
    assert teacher.form(url + "/settings", {"max_attempts": "1"}).status_code == 200
    _submit(student, course_class, "bundled", "H ; T")
    student.page(url)
    assert student.form(url + "/submit", {"answer": "T ; H"}).status_code == 403
    assert "used all 1 attempts" in student.page(url).text
    teacher.form(url + "/settings", {"max_attempts": "", "deadline": "2000-01-01T00:00"})
    student.page(url)
    refused = student.form(url + "/submit", {"answer": "T ; H"})
    assert refused.status_code == 403 and "deadline" in refused.text


def test_an_oversized_answer_is_refused_before_it_is_stored(course_class: Class) -> None:
    client = course_class.client("s1")
    url = _exercise_url(course_class, "a", "bundled")
    client.page(url)
    assert client.form(url + "/submit", {"answer": "T ; " * MAX_ANSWER}).status_code == 413
    with db.transaction(course_class.factory) as s:
        assert s.scalar(select(func.count()).select_from(db.Submission)) == 0


def _pending(made: Class, answer: str, status: str = "pending") -> int:
    with db.transaction(made.factory) as s:
        attempt = 1 + (s.scalar(select(func.count()).select_from(db.Submission)) or 0)
        sub = db.Submission(exercise_id=made.ids["a.bundled"], user_id=made.ids["s1"], attempt=attempt,
                            answer=answer, status=status)
        s.add(sub)
        s.flush()
        return sub.id


def _wait(made: Class, ids: list[int], seconds: float = 90) -> list[db.Submission]:
    deadline = time.monotonic() + seconds
    while True:
        with db.transaction(made.factory) as s:
            subs = [s.get(db.Submission, i) for i in ids]
        if all(x.status in ("graded", "failed") for x in subs) or time.monotonic() > deadline:
            return subs
        time.sleep(0.2)


def test_an_answer_past_the_budget_or_the_time_cap_fails_alone(course_class: Class) -> None:
    course_class.pool.stop()
    poor = GradingPool(course_class.factory, workers=1, budget=3)
    slow = GradingPool(course_class.factory, workers=1, seconds=0.05)
    try:
        poor.start()
        [sub] = _wait(course_class, [(poor.submit(i := _pending(course_class, "H ; T")), i)[1]])
        assert (sub.status, sub.verdict) == ("failed", "past the budget")
        assert "units of work" in json.loads(sub.feedback)["message"]
        poor.stop()
        slow.start()
        # an answer whose grading takes about a second (sixty filtered alternatives, each new to Z3), far past 0.05 s
        heavy = " OR ".join(f"((T ; T ; H) FILTER (T.tmp > {k} AND H.hum < {k}))" for k in range(60))
        [sub] = _wait(course_class, [(slow.submit(i := _pending(course_class, heavy)), i)[1]])
        assert (sub.status, sub.verdict) == ("failed", "past the time limit")
    finally:
        slow.stop()
    fine = GradingPool(course_class.factory, workers=1)
    fine.start()
    try:  # the next answer is graded as usual
        [sub] = _wait(course_class, [(fine.submit(i := _pending(course_class, "T ; H")), i)[1]])
        assert (sub.status, sub.verdict) == ("graded", "correct")
    finally:
        fine.stop()


def test_a_restart_grades_what_was_left_and_nothing_twice(course_class: Class) -> None:
    course_class.pool.stop()
    left = [_pending(course_class, "H ; T"), _pending(course_class, "T ; H", status="grading")]
    counted: list[int] = []
    pool = GradingPool(course_class.factory, workers=2, on_graded=counted.append)
    pool.start()  # finds both: the pending one and the one a stopped server was grading
    try:
        for i in left:  # queued again by hand: claimed once, graded once
            pool.submit(i)
        subs = _wait(course_class, left)
        time.sleep(0.5)
    finally:
        pool.stop()
    assert [s.verdict for s in subs] == ["wrong", "correct"]
    assert sorted(counted) == sorted(left)


def test_invited_and_self_registered_students_join_and_names_are_spreadsheet_safe(course_class: Class) -> None:
    teacher = course_class.client("t1")
    course = f"/courses/{course_class.ids['a']}"
    teacher.page(course)
    invited = teacher.form(course + "/invite", {"accounts": 'eve,"=HYPERLINK(""http://x"",""y"")",pass-of-eve\n'
                                                            "bad line\nmo,-2+3,short"})
    assert 'id="added">1 enrolled' in invited.text and "line 2" in invited.text and "line 3" in invited.text
    newcomer = course_class.client()
    newcomer.page("/register")
    joined = newcomer.form("/register", {"code": "code-a", "username": "zed", "name": "@SUM(A1)",
                                         "password": "zed's password"})
    assert str(joined.url).endswith(course)
    quoted = course_class.client()  # a name that is a quote and a formula already: it must stay distinct
    quoted.page("/register")
    quoted.form("/register", {"code": "code-a", "username": "quo", "name": "'=1+1", "password": "quo's password"})
    wrong = course_class.client()
    wrong.page("/register")
    assert wrong.form("/register", {"code": "nope", "username": "x", "password": "long enough"}).status_code == 400
    sheet = teacher.page(course + "/gradebook.csv").text
    rows = list(csv.reader(io.StringIO(sheet)))
    names = {row[0]: row[1] for row in rows[1:]}
    assert names["eve"] == "'=HYPERLINK(\"http://x\",\"y\")" and names["zed"] == "'@SUM(A1)"
    assert all(not cell.startswith(tuple(DANGEROUS)) for row in rows for cell in row)
    # the cells are core.spreadsheet's (one rule for every CSV of the toolkit, docs/decisions.md D342): one-to-one
    assert names["quo"] == "''=1+1" and from_spreadsheet_cell(names["quo"]) == "'=1+1"
    assert sheet.endswith("\r\n") and "\r\n" in sheet[:-2]


def test_the_gradebook_shows_best_and_last_per_student(course_class: Class) -> None:
    client = course_class.client("s1")
    graded(client, _submit(client, course_class, "bundled", "T ; H"))
    graded(client, _submit(client, course_class, "bundled", "H ; T"))
    book = course_class.client("t1").page(f"/courses/{course_class.ids['a']}/gradebook").text
    row = re.search(r"<tr><td>s1<br>.*?</tr>", book, re.S)[0]
    assert "best: <a" in row and ">correct</a>" in row and "last: <a" in row and ">wrong</a>" in row
    assert "2 attempts" in row
    sheet = list(csv.reader(io.StringIO(course_class.client("t1").page(
        f"/courses/{course_class.ids['a']}/gradebook.csv").text)))
    s1 = next(r for r in sheet if r[0] == "s1")
    assert s1[2:5] == ["correct", "wrong", "2"]


def test_the_stepper_of_a_wrong_automaton_runs_that_automaton_not_the_reference(course_class: Class) -> None:
    """An automaton exercise's reference automaton is a right answer: a wrong answer's stepper draws the
    student's own automaton (its transitions, no more), never the expected one, before solutions are published."""
    exercise = load_exercise("cel_11_automaton_seq")
    with db.transaction(course_class.factory) as s:
        row = db.CourseExercise(course_id=course_class.ids["a"], position=2, bundled=exercise.name)
        s.add(row)
        s.flush()
        course_class.ids["a.automaton"] = row.id
    wrong = exercise.mistakes[0]
    client = course_class.client("s1")
    page = graded(client, _submit(client, course_class, "automaton", wrong))
    assert 'id="verdict">wrong' in page.text
    src = re.search(r'<iframe[^>]*sandbox="allow-scripts" src="([^"]+)"', page.text)
    assert src is not None
    run = client.page(src[1]).text
    drawn = json.loads(re.search(r'<script id="run-data" type="application/json">(.*?)</script>', run, re.S)[1]
                       .replace("<\\/", "</"))["svg"]
    assert "your automaton" in drawn and "expected" not in drawn
    moves = re.findall(r"<title>q\d&#45;&gt;q\d</title>", drawn)  # the transitions, not the arrow in
    assert len(moves) == len(json.loads(wrong)["transitions"]) < len(json.loads(exercise.answer)["transitions"])


def test_a_grader_that_meets_a_database_error_goes_on_grading(course_class: Class, monkeypatch) -> None:
    """A database error while one submission is claimed (a dropped connection, a lock held too long) leaves that
    submission for the next start; the grader thread lives on and grades the next answer (with one grader, a
    dead thread would leave every later answer pending until a restart)."""
    from sqlalchemy.exc import OperationalError

    course_class.pool.stop()
    claim, calls = db.claim, []

    def flaky(session, submission_id: int) -> bool:
        calls.append(submission_id)
        if len(calls) == 1:
            raise OperationalError("UPDATE submissions", {}, Exception("the connection was dropped"))
        return claim(session, submission_id)

    monkeypatch.setattr(db, "claim", flaky)
    pool = GradingPool(course_class.factory, workers=1)
    pool.start()
    try:
        first, second = _pending(course_class, "H ; T"), _pending(course_class, "T ; H")
        pool.submit(first)
        pool.submit(second)
        [sub] = _wait(course_class, [second])
    finally:
        pool.stop()
    assert (sub.status, sub.verdict) == ("graded", "correct")
    with db.transaction(course_class.factory) as s:
        assert s.get(db.Submission, first).status == "pending"  # graded when the server next starts


def test_a_deadline_given_with_an_offset_is_kept_in_utc(course_class: Class) -> None:
    """Deadlines are kept in UTC: one typed with an offset (an hour ago, written in UTC+05:00) has passed."""
    import datetime as dt

    teacher, student = course_class.client("t1"), course_class.client("s1")
    url = _exercise_url(course_class, "a", "bundled")
    teacher.page(f"/courses/{course_class.ids['a']}")
    plus5 = dt.timezone(dt.timedelta(hours=5))
    an_hour_ago = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=1)).astimezone(plus5)
    assert teacher.form(url + "/settings", {"deadline": an_hour_ago.isoformat(timespec="minutes")}).status_code == 200
    assert "deadline" in student.page(url).text
    refused = student.form(url + "/submit", {"answer": "T ; H"})
    assert refused.status_code == 403 and "deadline" in refused.text


def test_a_new_sqlite_database_is_readable_by_its_owner_only(tmp_path) -> None:
    """The database holds the key that signs session cookies: another account on the machine that could read it
    could sign in as any teacher. A new SQLite file (and its WAL files) is made readable by its owner only."""
    import os
    import stat

    from cer_theory.server import migrate

    old = os.umask(0o022)
    try:
        engine = db.connect(db.sqlite_url(tmp_path / "course.db"))
        migrate.upgrade(engine)
        with db.transaction(db.sessions(engine)) as s:
            db.secret_key(s)
        made = sorted(tmp_path.glob("course.db*"))
        assert made and all(stat.S_IMODE(p.stat().st_mode) & 0o077 == 0 for p in made), \
            [(p.name, oct(p.stat().st_mode)) for p in made]
        engine.dispose()
    finally:
        os.umask(old)


def test_a_grader_started_again_does_not_spend_the_next_answers_time_on_starting(course_class: Class) -> None:
    """A grading process that died (killed past its time cap or its memory) is replaced; starting the new one
    (imports, the first drawing) takes seconds, which must not count against the next answer's cap, or a low
    ``seconds`` turns one hostile answer into a run of innocent answers failed "past the time limit"."""
    import os
    import signal
    from pathlib import Path

    def children() -> list[int]:
        found = []
        for status in Path("/proc").glob("[0-9]*/status"):
            try:
                text = status.read_text()
                cmdline = (status.parent / "cmdline").read_bytes()
            except OSError:
                continue
            if f"\nPPid:\t{os.getpid()}\n" in text and b"cer_theory.server.grading" in cmdline:
                found.append(int(status.parent.name))
        return found

    course_class.pool.stop()
    course_class.app.state.server.drawer.stop()
    pool = GradingPool(course_class.factory, workers=1, seconds=3)
    pool.start()
    try:
        [sub] = _wait(course_class, [(pool.submit(i := _pending(course_class, "H ; T")), i)[1]])
        assert (sub.status, sub.verdict) == ("graded", "wrong")
        [child] = children()
        os.kill(child, signal.SIGKILL)  # as a grader past its memory dies
        while Path(f"/proc/{child}/status").exists() and "\nState:\tZ" not in Path(f"/proc/{child}/status").read_text():
            time.sleep(0.05)  # dead, so that the pool sees it dead (not one that dies as it is handed the answer)
        [sub] = _wait(course_class, [(pool.submit(i := _pending(course_class, "H ; T")), i)[1]])
        assert (sub.status, sub.verdict) == ("graded", "wrong"), sub.feedback
    finally:
        pool.stop()


def test_markup_in_titles_names_answers_and_messages_is_shown_as_text(course_class: Class) -> None:
    """Whatever people type is data in a page: a course title, a student's name, an answer and a name in an error
    message come back escaped on every page that shows them (Jinja's autoescape, and nothing marked safe)."""
    markup = '<img src=x onerror="alert(1)">'
    teacher = course_class.client("t1")
    teacher.page("/courses")
    made = teacher.form("/courses", {"title": "T" + markup})
    course = str(made.url)[len("http://testserver"):]
    teacher.form(course + "/exercises", {"bundled": "fire_01_later"})
    code = re.search(r'id="join-code">([^<]+)<', teacher.page(course).text)[1]
    student = course_class.client()
    student.page("/register")
    student.form("/register", {"code": code, "username": "mallory", "name": "M" + markup, "password": "a password!"})
    url = re.search(r'href="(/courses/\d+/exercises/\d+)"', student.page(course).text)[1]
    student.page(url)
    submitted = graded(student, str(student.form(url + "/submit", {"answer": "T ; " + markup}).url))
    refused = teacher.form(course + "/exercises", {"bundled": markup})
    assert refused.status_code == 400
    pages = [teacher.page("/courses").text, teacher.page(course).text, teacher.page(course + "/gradebook").text,
             submitted.text, student.page(url).text, student.page(course).text, refused.text,
             teacher.page(str(submitted.url)[len("http://testserver"):]).text]
    for text in pages:
        assert markup not in text and "<img" not in text
    assert sum("&lt;img src=x onerror=" in text for text in pages) >= 6


def test_a_student_cannot_fill_the_graders_queue(course_class: Class) -> None:
    """The queue is first come, first served, and an answer may hold a grader for its whole time cap: a student
    with MAX_WAITING answers not yet graded is asked to wait for their feedback (429) before handing in another,
    so one student's run of hostile answers cannot push the class's answers back by minutes."""
    from cer_theory.server.app import MAX_WAITING

    course_class.pool.stop()  # nothing is graded: every answer handed in waits
    client = course_class.client("s1")
    for k in range(MAX_WAITING):
        _submit(client, course_class, "bundled" if k % 2 == 0 else "generated", f"T ; H ; T{' ; T' * k}")
    url = _exercise_url(course_class, "a", "generated")
    client.page(url)
    refused = client.form(url + "/submit", {"answer": "T ; H"})
    assert refused.status_code == 429 and "feedback" in refused.text
    with db.transaction(course_class.factory) as s:
        assert s.scalar(select(func.count()).select_from(db.Submission)) == MAX_WAITING
    other = course_class.client("s2")  # the limit is the student's own
    _submit(other, course_class, "bundled", "T ; H")
