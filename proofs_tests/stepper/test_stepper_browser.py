"""The HTML stepper in a real browser: headless Chromium loads the page, the test presses keys as a person
would, and reads the frame shown (position, shaded nodes, emphasised edges, rows, outputs) from the page.

Chromium is installed by ``.ci/run`` in CI, where a missing browser fails the test; elsewhere it is skipped
when no Chromium is on PATH."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import require

from cer_theory.core.events import Event
from cer_theory.examples.running_example import fire_stream, formula
from cer_theory.formalisms.cel.compile import compile_automaton
from cer_theory.formalisms.cel.parser import parse as parse_cel
from cer_theory.formalisms.sremo.compile import compile_automaton as compile_srt
from cer_theory.formalisms.sremo.parser import parse as parse_sremo
from cer_theory.stepper import Run, cea_run, srt_run, tecs_run
from cer_theory.testing.browser import Browser, find_chromium

SHOWN = """(() => ({
  frame: Number(document.body.dataset.frame),
  position: document.getElementById('position').textContent,
  active: [...document.querySelectorAll('#drawing g.node[data-active="1"] > title')].map(t => t.textContent).sort(),
  isNew: [...document.querySelectorAll('#drawing g.node[data-new="1"] > title')].map(t => t.textContent).sort(),
  taken: [...document.querySelectorAll('#drawing g.edge[data-taken="1"] > title')].map(t => t.textContent).sort(),
  rows: [...document.querySelectorAll('#rows tr')].map(tr => [...tr.cells].map(c => c.textContent)),
  outputs: [...document.querySelectorAll('#outputs tr')].map(tr => tr.cells[0].textContent),
  current: [...document.querySelectorAll('#ribbon span.current')].map(s => s.textContent),
}))()"""


@pytest.fixture(scope="module")
def browser():
    chromium = find_chromium()
    require(chromium is not None, "Chromium (apt-get install chromium)")
    with Browser(chromium) as b:
        yield b


def _check(shown: dict, run: Run, k: int) -> None:
    frame = run.frames[k]
    assert shown["frame"] == k
    if frame.position is None:
        assert shown["position"].startswith("start") and shown["current"] == []
    else:
        assert shown["position"].startswith(f"position {frame.position} ")
        assert shown["current"] == [f"{frame.position}: {run.events[frame.position]}"]
    assert shown["active"] == sorted(frame.active)
    assert shown["isNew"] == sorted(frame.new)
    assert shown["taken"] == sorted(f"{a}->{b}" for a, b in frame.taken)
    assert shown["rows"] == ([[r.where, r.carries] for r in frame.rows] or [["no active run"]])
    assert shown["outputs"] == (list(frame.outputs) or ["none"])


def test_the_keyboard_steps_through_a_cea_run(browser: Browser, tmp_path: Path) -> None:
    run = cea_run(compile_automaton(formula("φ1")), list(fire_stream()))
    page = tmp_path / "run.html"
    run.write_html(str(page))
    browser.open(page)
    _check(browser.evaluate(SHOWN), run, 0)
    for k in range(1, len(run.frames)):
        browser.press("ArrowRight")
        _check(browser.evaluate(SHOWN), run, k)
    browser.press("ArrowRight")  # past the end: stays on the last frame
    _check(browser.evaluate(SHOWN), run, len(run.frames) - 1)
    assert run.frames[-1].outputs, "the fire stream's last event completes φ1"
    browser.press("Home")
    _check(browser.evaluate(SHOWN), run, 0)
    browser.press("End")
    browser.press("ArrowLeft")
    _check(browser.evaluate(SHOWN), run, len(run.frames) - 2)


def test_the_tecs_grows_in_the_browser(browser: Browser, tmp_path: Path) -> None:
    run = tecs_run(compile_automaton(formula("φ1")), list(fire_stream()))
    page = tmp_path / "tecs.html"
    run.write_html(str(page))
    browser.open(page)
    for k in range(1, len(run.frames)):
        browser.press("ArrowRight")
        shown = browser.evaluate(SHOWN)
        _check(shown, run, k)
    assert any(f.new for f in run.frames)


def test_the_srt_run_emphasises_the_transitions_taken(browser: Browser, tmp_path: Path) -> None:
    """The edges the page emphasises are the frame's ``taken`` (the SRT paper's e₁; its runs are checked against
    Def. 23 in proofs_tests/sremo/test_sremo_stepper.py)."""
    srt = compile_srt(parse_sremo('<type = "B"> -> r1 . [TRUE]* . <type = "S" AND id = r1.id>'))
    run = srt_run(srt, [Event("B", id=1), Event("B", id=2), Event("S", id=1), Event("S", id=2)])
    page = tmp_path / "srt.html"
    run.write_html(str(page))
    browser.open(page)
    for k in range(1, len(run.frames)):
        browser.press("ArrowRight")
        _check(browser.evaluate(SHOWN), run, k)
    assert all(frame.taken for frame in run.frames[1:])


FIT = """(() => {
  const frame = document.querySelector('iframe');
  const inner = frame.contentDocument, body = inner.body, view = inner.defaultView;
  const content = body.getBoundingClientRect().bottom + view.scrollY + parseFloat(view.getComputedStyle(body).marginBottom);
  return {frame: frame.clientHeight, content: Math.ceil(content), overflow: inner.documentElement.scrollHeight - frame.clientHeight,
          tables: Math.ceil(inner.getElementById('outputs').getBoundingClientRect().bottom + view.scrollY),
          frames: Number(body.dataset.frame)};
})()"""


def _fitted(browser: Browser) -> dict:
    """The frame's and its content's heights once the page has fitted the frame (it does so asynchronously)."""
    for _ in range(40):
        shown = browser.evaluate(FIT)
        if shown["overflow"] <= 0 and shown["frame"] <= shown["content"] + 4:
            return shown
        time.sleep(0.05)
    return shown


def test_the_notebook_stepper_frame_fits_its_content(browser: Browser, tmp_path: Path) -> None:
    """Notebook 01's "your turn" check shows the run of a wrong answer in an iframe: at every step the frame is as
    tall as the page inside it, so the tables that explain the answer are in view and nothing scrolls inside it
    (a fixed height left them below the fold)."""
    from cer_theory.exercises.notebook import check

    graded = check("fire_03_hot", "T FILTER T.tmp >= 40")  # the notebook's first try, a wrong answer
    assert graded.run is not None
    cell = tmp_path / "cell.html"
    cell.write_text(f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body style='width: 1100px'>"
                    f"{graded._repr_html_()}</body></html>", encoding="utf-8")
    browser.open(cell)
    for k in range(len(graded.run.frames)):
        if k:
            browser.evaluate("document.querySelector('iframe').contentDocument.getElementById('next').click()")
        shown = _fitted(browser)
        assert shown["frames"] == k
        assert shown["overflow"] <= 0, shown  # no content below the frame's bottom
        assert shown["tables"] <= shown["frame"], shown
        assert shown["frame"] <= shown["content"] + 4, shown  # and no empty band below it


MARKUP = ["<!--<script>", "</script>", "a & b \u2028 c", "</title><b>"]


@pytest.mark.parametrize("model", ["SRT", "CEA"])
def test_a_page_whose_events_hold_markup_steps(browser: Browser, tmp_path: Path, model: str) -> None:
    """Event values holding ``<!--<script>`` and ``</script>``, shown on the ribbon and, for the SRT, in the
    registers of every frame's rows (after the drawing's own comments in the embedded data): escaped as ``<\\/``
    only, they put the tokenizer in the script data double-escaped state, the page's script was swallowed into the
    data and nothing stepped. Now the page loads without a script error and every frame shows as given."""
    if model == "SRT":
        srt = compile_srt(parse_sremo('<type = "B"> -> r1 . [TRUE]* . <type = "S" AND id = r1.id>'))
        events = [Event("B", id=MARKUP[0]), Event("B", id=MARKUP[1]), Event("S", id=MARKUP[0]),
                  Event("S", id=MARKUP[2]), Event("S", id=MARKUP[3])]
        run = srt_run(srt, events)
        assert any("<!--<script>" in r.carries for f in run.frames for r in f.rows)
    else:
        text = 'T FILTER T.x = "<!--<script>" OR T'
        run = cea_run(compile_automaton(parse_cel(text)), [Event("T", x=v) for v in MARKUP], title=text)
    page = tmp_path / "markup.html"
    run.write_html(str(page))
    browser.open(page)
    assert browser.errors() == []
    assert browser.evaluate("document.querySelectorAll('script').length") == 2, "no script swallowed another"
    _check(browser.evaluate(SHOWN), run, 0)
    for k in range(1, len(run.frames)):
        browser.press("ArrowRight")
        _check(browser.evaluate(SHOWN), run, k)
    assert browser.errors() == []
