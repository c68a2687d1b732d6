"""The screenshots of docs/pictures/, at 1920×1080 in headless Chromium: one drawing per automaton model as
``cer-theory draw`` writes it (an SVG that fills the window), the stepper's frames, and notebook 01's "your turn"
check as the documentation site shows it.

    python docs/pictures/screenshots.py [SITE]     # SITE: a built site (make docs), for the notebook's picture

Run from the repository's root with Chromium on PATH; it writes the PNGs beside this file.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import cer_theory as ct
from cer_theory.core.events import Event
from cer_theory.examples.running_example import FORMULAS, fire_stream, formula
from cer_theory.formalisms.cel.compile import compile_automaton
from cer_theory.formalisms.sremo.compile import compile_automaton as compile_srt
from cer_theory.formalisms.sremo.parser import parse as parse_sremo
from cer_theory.stepper import cea_run, srt_run, tecs_run
from cer_theory.testing.browser import Browser, find_chromium

HERE = Path(__file__).resolve().parent
WIDTH, HEIGHT = 1920, 1080
E1 = '<type = "B"> -> r1 . [TRUE]* . <type = "S" AND id = r1.id>'  # the SRT paper's e₁
E1_STREAM = [Event("B", id=1), Event("B", id=2), Event("S", id=1), Event("S", id=2)]

DRAWINGS = {  # picture name → (formalism, formula): one per automaton model
    "drawing_cea": ("cel", FORMULAS["φ3"]),
    "drawing_ucea": ("socel", "(T IN LOW : H:+ IN RISE) FILTER LOW[value < 0]"),
    "drawing_acea": ("acel", "AGG Y[s <- sum(X.price)](SELL AS X ; BUY)"),
    "drawing_srt": ("sremo", E1),
}


def shoot(browser: Browser, page: Path, picture: str, *, keys: tuple[str, ...] = (), scroll: str | None = None) -> None:
    browser.open(page)
    browser.set_viewport(WIDTH, HEIGHT)
    for key in keys:
        browser.press(key)
    if scroll is not None:
        browser.evaluate(f"document.querySelector({scroll!r}).scrollIntoView({{block: 'start'}})")
    time.sleep(0.5)  # the page fits its frames (a ResizeObserver) and lays the drawing out
    browser.screenshot(HERE / f"{picture}.png")
    print(f"wrote docs/pictures/{picture}.png")


def main(site: Path | None) -> None:
    chromium = find_chromium()
    if chromium is None:
        raise SystemExit("no Chromium on PATH (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as tmp, Browser(chromium, width=WIDTH, height=HEIGHT) as browser:
        work = Path(tmp)
        for picture, (logic, text) in DRAWINGS.items():
            phi = ct.parser(logic)(text)
            svg = work / f"{picture}.svg"
            phi.draw(svg, title=str(phi))  # as `cer-theory draw FORMULA -o FILE.svg` writes it
            shoot(browser, svg, picture)
        runs = {"stepper_cea_frame": cea_run(compile_automaton(formula("φ1")), list(fire_stream())),
                "stepper_tecs_frame": tecs_run(compile_automaton(formula("φ1")), list(fire_stream())),
                "stepper_srt_frame": srt_run(compile_srt(parse_sremo(E1)), E1_STREAM)}
        for picture, run in runs.items():
            page = work / f"{picture}.html"
            run.write_html(str(page))
            shoot(browser, page, picture, keys=("End",))
        if site is not None:
            shoot(browser, site / "notebooks" / "01_cel_and_cea.html", "notebook_check_cell",
                  scroll='iframe[title^="your answer"]')


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
