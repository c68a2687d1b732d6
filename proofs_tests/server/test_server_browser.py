"""The course server in a real browser, as a class uses it: ``cer-theory serve`` started on a new database; the
teacher signs in, makes a course and invites two students; each student signs in, gets an instance of their own of
the generated exercise, hands in a wrong answer, reads the separating stream, steps through the run on it, and hands
in a right one; the teacher's gradebook and its CSV show both. Every page is captured (``CER_THEORY_SCREENSHOTS``
names a folder to keep the captures in; docs/pictures/ holds the committed ones).

Chromium is installed by ``.ci/run`` in CI, where a missing browser fails the test; elsewhere it is skipped."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import require

from cer_theory.exercises.checker import load_exercise
from cer_theory.exercises.generate import generate
from cer_theory.server.instances import student_seed
from cer_theory.testing.browser import Site, find_chromium


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    """``cer-theory serve`` on a new SQLite database: (address, the teacher's password, the demo join code)."""
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-m", "cer_theory.cli", "serve", "--port", str(port), "--database",
                                f"sqlite:///{tmp_path / 'course.db'}", "--workers", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        found = re.search(r"the password (\S+) \(shown once\); students join the demo course with the code (\S+)\.",
                          first)
        assert found, first
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, process.stdout.read()
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}", found[1], found[2]
    finally:
        process.terminate()
        process.wait(30)


def _shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("CER_THEORY_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _sign_in(site: Site, base: str, name: str, password: str) -> None:
    site.goto(f"{base}/signin")
    site.fill("input[name=username]", name)
    site.fill("input[name=password]", password)
    site.click("#signin")
    assert site.evaluate("location.pathname") == "/courses", site.text()


def _sign_out(site: Site) -> None:
    site.click("header form button")


def _graded(site: Site) -> str:
    deadline = time.monotonic() + 120
    while "being graded" in site.text("#verdict"):
        assert time.monotonic() < deadline, "no verdict"
        before = site.evaluate("performance.timeOrigin")
        site._loaded(before, "the page's refresh")
    return site.text("#verdict")


def test_a_class_in_the_browser(served: tuple[str, str, str], tmp_path: Path) -> None:
    chromium = find_chromium()
    require(chromium is not None, "Chromium (apt-get install chromium)")
    base, password, _ = served
    shots = _shots(tmp_path)
    with Site(chromium, width=1920, height=1080, timeout=60) as site:
        # the teacher: a course with a bundled and a generated exercise, two students invited
        _sign_in(site, base, "teacher", password)
        site.fill("input[name=title]", "CER, autumn term")
        site.evaluate("document.querySelector('input[value=fire_01_later]').checked = true")
        site.evaluate("document.querySelector('input[value=cel_11_automaton_seq]').checked = true")
        site.screenshot(shots / "server_teacher_courses.png")
        site.click("#create-course")
        course = site.evaluate("location.pathname")
        site.evaluate("document.querySelector('select[name=bundled]').value = ''")
        site.evaluate("document.querySelector('select[name=kind]').value = 'formula'")
        site.click("#add-exercise")
        site.fill("textarea[name=accounts]", "ann,Ann Lee,ann's password\nbob,Bob Roy,bob's password")
        site.click("#invite")
        assert "2 enrolled" in site.text("#added")
        site.goto(base + course)
        site.screenshot(shots / "server_teacher_course.png")
        course_id = int(course.rsplit("/", 1)[1])
        _sign_out(site)

        titles = {}
        for student in ("ann", "bob"):
            _sign_in(site, base, student, f"{student}'s password")
            site.goto(base + course)
            links = site.evaluate("[...document.querySelectorAll('#problems a')].map(a => [a.textContent, a.href])")
            assert len(links) == 3
            by_title = {title: url for title, url in links}
            bundled_url = by_title[load_exercise("fire_01_later").title]
            automaton_url = by_title[load_exercise("cel_11_automaton_seq").title]
            [(generated_title, generated_url)] = [(t, u) for t, u in links if t.startswith("Formula (easy)")]
            titles[student] = generated_title
            if student == "ann":
                site.screenshot(shots / "server_student_course.png")
            site.goto(generated_url)
            seed = re.search(r"instance (\d+)", generated_title)[1]
            # the instance is the one the seed of (course, student, exercise) gives
            exercise_id = int(generated_url.rsplit("/", 1)[1])
            user_id = {"ann": 2, "bob": 3}[student]
            assert int(seed) == student_seed(course_id, user_id, exercise_id)
            instance = generate("formula", 1, int(seed))
            # a wrong answer to the bundled exercise: the stream, both outputs, the stepper
            site.goto(bundled_url)
            site.fill("#answer", "H ; T")
            site.click("#submit")
            assert _graded(site) == "wrong"
            rows = site.evaluate("[...document.querySelectorAll('#stream tbody tr')].map(r => r.cells[1].textContent)")
            assert [json.loads(r)["type"] for r in rows] == ["H", "T"]
            outputs = site.text("#outputs")
            assert "your answer" in outputs and "expected" in outputs
            if student == "ann":
                site.screenshot(shots / "server_student_feedback.png")
            stepper = site.evaluate("document.querySelector('#stepper').src")
            feedback_url = site.evaluate("location.href")
            site.goto(stepper)
            assert site.text("#position").startswith("start")
            site.press("ArrowRight")
            assert site.text("#position").startswith("position 0")
            site.press("ArrowRight")
            assert site.text("#position").startswith("position 1")
            if student == "ann":
                site.screenshot(shots / "server_student_stepper.png")
            site.goto(feedback_url)
            # then a right one, to the bundled exercise and to their own instance
            site.goto(bundled_url)
            site.fill("#answer", "T ; H")
            site.click("#submit")
            assert _graded(site) == "correct"
            site.goto(generated_url)
            site.fill("#answer", instance.answer)
            site.click("#submit")
            assert _graded(site) == "correct"
            site.goto(generated_url)
            if student == "ann":
                site.screenshot(shots / "server_student_exercise.png")
                # an automaton answer is drawn as it is typed
                site.goto(automaton_url)
                site.fill("#answer", load_exercise("cel_11_automaton_seq").answer)
                site.evaluate("document.getElementById('answer').dispatchEvent(new Event('input'))")
                deadline = time.monotonic() + 60
                while not site.evaluate("!!document.getElementById('drawing-image')"):
                    assert time.monotonic() < deadline, site.text("#drawing")
                    time.sleep(0.2)
                assert site.evaluate("document.getElementById('drawing-image').naturalWidth") > 100
                site.screenshot(shots / "server_student_automaton.png")
                site.fill("#answer", '{"kind": "cea", "states": [}')
                site.evaluate("document.getElementById('answer').dispatchEvent(new Event('input'))")
                while "not JSON" not in site.text("#drawing"):
                    assert time.monotonic() < deadline + 30, site.text("#drawing")
                    time.sleep(0.2)
            _sign_out(site)
        assert titles["ann"] != titles["bob"]

        _sign_in(site, base, "teacher", password)
        site.goto(f"{base}{course}/gradebook")
        book = site.text("#gradebook")
        for student in ("ann", "bob"):
            assert student in book
        assert book.count("best: correct") == 4 and book.count("last: correct") == 4
        site.screenshot(shots / "server_teacher_gradebook.png")
        sheet = site.evaluate(f"fetch('{course}/gradebook.csv').then(r => r.text())")
        rows = {r[0]: r for r in csv.reader(io.StringIO(sheet))}
        assert rows["ann"][5:8] == ["correct", "correct", "2"] and rows["bob"][8:11] == ["correct", "correct", "1"]
