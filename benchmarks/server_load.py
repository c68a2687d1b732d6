"""A class hammering the course server, on this machine only (loopback): ``python -m benchmarks.server_load``.

``cer-theory serve`` is started on a new SQLite database (or ``--database`` names another, e.g. CI's PostgreSQL);
the teacher invites ``--students`` students (100) to the demo course; each student signs in and, at random times
over ``--minutes`` (5), hands in a wrong answer and then a right one, and one student in ten a hostile answer:
larger than the server takes (refused before it is stored) or past the grading budget (graded as such, the class
going on). Each student waits for the feedback of every answer, and the time from handing it in to the verdict is
recorded. Halfway through, the server is killed (SIGKILL: no chance to tidy up) and started again on the same
database; clients that meet the dead server try again until it is back.

Checked at the end, from the database: every answer a student was told was received is there and graded once
(its verdict is the expected one), no oversized answer was stored, and every past-the-budget answer failed alone.
The report gives the counts and the p50/p95 time to feedback of ordinary answers. Exit status 0 when every check
holds, 1 otherwise. Requests are bounded in count (a few per answer) and time (``--minutes`` plus the wait for the
last verdicts).
"""

from __future__ import annotations

import argparse
import http.client
import http.cookiejar
import json
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select

from cer_theory.server import db

BUDGET = 1000
"""The grading budget of the run: the ordinary answers take at most a few dozen units, HEAVY about 2,700."""
WRONG, RIGHT = "H ; T", "T ; H"
HEAVY = " OR ".join(f"((T ; T ; H) FILTER (T.tmp > {k} AND H.hum < {k}))" for k in range(30))
OVERSIZED = "T ; " * 20_000
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


class Down(Exception):
    """The server did not answer (killed, or starting again)."""


class Browser:
    """One student's (or the teacher's) cookies and CSRF token, over urllib (nothing outside the standard library)."""

    def __init__(self, base: str) -> None:
        self.base, self.csrf = base, ""
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def request(self, path: str, fields: dict[str, str] | None = None) -> tuple[int, str, str]:
        data = None
        if fields is not None:
            data = urllib.parse.urlencode({**fields, "csrf": self.csrf}).encode()
        try:
            with self.opener.open(self.base + path, data=data, timeout=60) as response:
                status, url, text = response.status, response.url, response.read().decode()
        except urllib.error.HTTPError as e:
            status, url, text = e.code, e.url, e.read().decode(errors="replace")
        except (urllib.error.URLError, ConnectionError, TimeoutError, http.client.HTTPException) as e:
            raise Down(str(e)) from None
        if (m := CSRF.search(text)) is not None:
            self.csrf = m[1]
        return status, urllib.parse.urlparse(url).path, text

    def patiently(self, path: str, fields: dict[str, str] | None = None, seconds: float = 90) -> tuple[int, str, str]:
        """``request``, tried again while the server is down (a form is sent again only if it never arrived:
        the caller decides, see :meth:`Student.hand_in`)."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                return self.request(path, fields)
            except Down:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)


@dataclass
class Outcome:
    student: str
    kind: str
    status: int
    submission: int | None = None
    seconds: float | None = None
    verdict: str | None = None
    over_restart: bool = False


@dataclass
class Run:
    base: str
    course: int
    exercise: int
    outcomes: list[Outcome] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    restarts: list[tuple[float, float]] = field(default_factory=list)


def _wait_verdict(browser: Browser, submission: int, seconds: float = 240) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            _, _, text = browser.request(f"/submissions/{submission}")
        except Down:
            time.sleep(0.5)
            continue
        if (m := re.search(r'id="verdict">([^<]+)<', text)) and "being graded" not in m[1]:
            return m[1]
        time.sleep(0.25)
    return "no verdict"


def student(run: Run, name: str, rng: random.Random, start: float, minutes: float) -> None:
    """One student's answers; a student who could not go on (the server unreachable past the patience of
    :meth:`Browser.patiently`) is recorded as such, so that the run fails instead of counting fewer answers."""
    try:
        _student(run, name, rng, start, minutes)
    except Exception as e:  # noqa: BLE001 - recorded as the student's outcome, checked in check()
        with run.lock:
            run.outcomes.append(Outcome(name, "stopped", 0, verdict=f"{type(e).__name__}: {e}"))


def _student(run: Run, name: str, rng: random.Random, start: float, minutes: float) -> None:
    browser = Browser(run.base)
    browser.patiently("/signin")
    browser.patiently("/signin", {"username": name, "password": f"{name}'s password"})
    kinds = [WRONG, RIGHT]
    roll = rng.random()
    if roll < 0.1:
        kinds.insert(1, OVERSIZED)
    elif roll < 0.2:
        kinds.insert(1, HEAVY)
    times = sorted(rng.uniform(0, minutes * 60) for _ in kinds)
    url = f"/courses/{run.course}/exercises/{run.exercise}"
    for answer, at in zip(kinds, times):
        time.sleep(max(0.0, start + at - time.monotonic()))
        kind = {WRONG: "wrong", RIGHT: "right", OVERSIZED: "oversized", HEAVY: "heavy"}[answer]
        browser.patiently(url)
        sent = time.monotonic()
        try:
            status, path, _ = browser.request(url + "/submit", {"answer": answer})
        except Down:  # lost with the server, or never arrived: the student hands it in again
            browser.patiently(url)
            status, path, _ = browser.patiently(url + "/submit", {"answer": answer})
        outcome = Outcome(name, kind, status)
        if status == 200 and path.startswith("/submissions/"):
            outcome.submission = int(path.rsplit("/", 1)[1])
            outcome.verdict = _wait_verdict(browser, outcome.submission)
            outcome.seconds = time.monotonic() - sent
            with run.lock:
                outcome.over_restart = any(a <= sent + outcome.seconds and sent <= b for a, b in run.restarts)
        with run.lock:
            run.outcomes.append(outcome)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(database: str, port: int, workers: int) -> tuple[subprocess.Popen[str], str | None]:
    process = subprocess.Popen([sys.executable, "-m", "cer_theory.cli", "serve", "--port", str(port), "--database",
                                database, "--answer-budget", str(BUDGET), "--workers", str(workers)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    first = process.stdout.readline()
    password = m[1] if (m := re.search(r"the password (\S+) \(shown once\)", first)) else None
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, password
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start: {first}{process.stdout.read()}") from None
            time.sleep(0.1)


def check(run: Run, database: str, students: int) -> dict[str, object]:
    """The report: counts, times, and every check with its result."""
    engine = db.connect(database)
    with db.sessions(engine)() as s:
        stored = {sub.id: sub for sub in s.scalars(select(db.Submission))}
    engine.dispose()
    received = [o for o in run.outcomes if o.submission is not None]
    expected = {"wrong": "wrong", "right": "correct", "heavy": "past the budget"}
    ordinary = sorted(o.seconds for o in received if o.kind in ("wrong", "right") and o.seconds is not None)
    calm = sorted(o.seconds for o in received if o.kind in ("wrong", "right") and not o.over_restart
                  and o.seconds is not None)
    checks = {
        "every received answer is stored": all(o.submission in stored for o in received),
        "every stored answer is graded": all(s.status in ("graded", "failed") for s in stored.values()),
        "every verdict is the expected one": all(stored[o.submission].verdict == expected[o.kind] == o.verdict
                                                 for o in received if o.submission in stored),
        "no oversized answer stored or accepted": all(len(s.answer) < len(OVERSIZED) for s in stored.values())
        and all(o.status == 413 for o in run.outcomes if o.kind == "oversized"),
        "each student's attempts numbered once": len({(s.user_id, s.attempt) for s in stored.values()}) == len(stored),
        "every answer handed in got an answer": all(o.status in (200, 413) for o in run.outcomes),
        "every student handed in every answer": len({o.student for o in run.outcomes}) == students
        and not any(o.kind == "stopped" for o in run.outcomes),
    }

    def pct(values: list[float], q: float) -> float | None:
        return round(statistics.quantiles(values, n=100)[q - 1], 3) if len(values) >= 2 else None

    return {"students": len({o.student for o in run.outcomes}), "answers handed in": len(run.outcomes),
            "received": len(received), "stored": len(stored),
            "stored without the student hearing of it (in flight at the kill)": len(set(stored) - {o.submission for o in received}),
            "by kind": {k: sum(o.kind == k for o in run.outcomes)
                        for k in ("wrong", "right", "heavy", "oversized", "stopped")},
            "students who could not go on": sorted({f"{o.student}: {o.verdict}" for o in run.outcomes
                                                    if o.kind == "stopped"})[:5],
            "server restarts": len(run.restarts),
            "seconds to feedback, ordinary answers": {"p50": pct(ordinary, 50), "p95": pct(ordinary, 95),
                                                      "max": round(ordinary[-1], 3) if ordinary else None},
            "seconds to feedback, ordinary answers away from the restart": {"p50": pct(calm, 50), "p95": pct(calm, 95)},
            "checks": checks, "passed": all(checks.values())}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.server_load", description=__doc__.split("\n\n")[0])
    p.add_argument("--students", type=int, default=100)
    p.add_argument("--minutes", type=float, default=5.0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--database", help="a database URL (default: SQLite in a new temporary folder)")
    p.add_argument("--no-restart", action="store_true", help="do not kill and restart the server halfway")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, help="write the report here as JSON (and print it)")
    args = p.parse_args(argv)
    if not (1 <= args.students <= 1000 and 0 < args.minutes <= 30):
        p.error("--students from 1 to 1000 and --minutes from more than 0 to 30")
    with tempfile.TemporaryDirectory() as folder:
        database = args.database or db.sqlite_url(Path(folder) / "course.db")
        port = _free_port()
        server, password = start(database, port, args.workers)
        try:
            base = f"http://127.0.0.1:{port}"
            teacher = Browser(base)
            teacher.request("/signin")
            teacher.request("/signin", {"username": "teacher", "password": password or ""})
            _, _, page = teacher.request("/courses/1")
            exercise = int(re.search(r'href="/courses/1/exercises/(\d+)">fire_01_later<', page)[1])
            names = [f"student{k:03d}" for k in range(args.students)]
            status, _, text = teacher.request("/courses/1/invite", {"accounts": "\n".join(
                f"{n},Student {n[7:]},{n}'s password" for n in names)})
            assert f'id="added">{args.students} enrolled' in text, text[-500:]
            run = Run(base, 1, exercise)
            rng = random.Random(args.seed)
            start_at = time.monotonic() + 2
            threads = [threading.Thread(target=student, args=(run, n, random.Random(rng.random()), start_at,
                                                             args.minutes), daemon=True) for n in names]
            for t in threads:
                t.start()
            if not args.no_restart:
                time.sleep(max(0.0, start_at + args.minutes * 30 - time.monotonic()))
                down = time.monotonic()
                server.send_signal(signal.SIGKILL)
                server.wait()
                server, _ = start(database, port, args.workers)
                with run.lock:
                    run.restarts.append((down, time.monotonic()))
            for t in threads:
                t.join(args.minutes * 60 + 600)
        finally:
            server.terminate()
            server.wait(30)
        report = check(run, database, args.students)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
