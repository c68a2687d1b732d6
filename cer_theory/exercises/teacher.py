"""For the teacher: problem sheets (Markdown or HTML) and the grading of a whole class's answers into one CSV.

A class's answers are a folder with one sub-folder per student and, in it, one file per exercise named after the
exercise (``fire_01_later.txt``, ``ceql_03_window.json``, ``gen_formula_2_17.txt``…): a bundled name, or the
name of a generated instance, ``gen_<kind>_<difficulty>_<seed>``, which :func:`exercise_named` rebuilds from the
seed. :func:`grade_folder` writes one CSV row per answer file: student, exercise, status, grade (1 when the answer
is accepted), and the feedback the student would see.
"""

from __future__ import annotations

import csv
import html
import io
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path

from cer_theory.automata import files
from cer_theory.core.errors import CerError, ExerciseError
from cer_theory.core.textfiles import read_text_file
from cer_theory.exercises.checker import check, load_exercise
from cer_theory.exercises.generate import LOGICS, generate
from cer_theory.exercises.grading import construction_input
from cer_theory.exercises.model import DIFFICULTIES, Exercise, events_json

FILE_FORMAT = ("an automaton file (JSON, docs/automaton-files.md; start from `cer-theory draw --logic LOGIC FORMULA -o "
               "a.json`)")
"""What an automaton answer is, as the sheet says it: the format's page, and how to start from a compiled automaton."""

GENERATED = re.compile(r"gen_(?:(?P<logic>[a-z]+)_)?(?P<kind>formula|automaton|predict|construction)_"
                       r"(?P<difficulty>[123])_(?P<seed>\d+)")
COLUMNS = ("student", "exercise", "status", "grade", "feedback")
LANGUAGE = {"cel": "CEL", "ceql": "CEQL", "socel": "SO-CEL", "focel": "FO-CEL", "acel": "ACEL", "sremo": "SREMO"}


def exercise_named(name: str) -> Exercise:
    """A bundled exercise, an exercise file, or the generated instance ``gen_[<logic>_]<kind>_<difficulty>_<seed>``
    (CEL when no logic is named)."""
    m = GENERATED.fullmatch(name)
    if m and m["kind"] in LOGICS.get(m["logic"] or "cel", ()):
        return generate(m["kind"], int(m["difficulty"]), int(m["seed"]), m["logic"] or "cel")
    return load_exercise(name)


def seed_sheet(seed: int, logic: str = "cel") -> list[Exercise]:
    """The instances of ``seed`` in ``logic``: one per kind and difficulty."""
    if logic not in LOGICS:
        raise ExerciseError(f"--logic {logic}: instances are generated for {', '.join(LOGICS)}")
    return [generate(kind, d, seed, logic) for kind in LOGICS[logic] for d in DIFFICULTIES]


def _what_to_hand_in(e: Exercise) -> str:
    return {"formula": "a CEQL query" if e.logic == "ceql" else f"a {LANGUAGE[e.logic]} formula", "automaton": FILE_FORMAT,
            "predict": "a JSON list of outputs",
            "construction": "yes or no" if e.construction == "star_property" else FILE_FORMAT}[e.kind]


def sheet_markdown(exercises: Iterable[Exercise], title: str = "Complex event recognition: exercises",
                   solutions: bool = False) -> str:
    """A problem sheet: per exercise its statement, the schema, the stream or automaton it is about, what to hand
    in and the file name to hand it in under; with ``solutions``, the worked solution after each."""
    out = [f"# {title}", ""]
    for k, e in enumerate(exercises, 1):
        out += [f"## {k}. {e.title}", "",
                f"*{e.paper}; {e.kind}; {DIFFICULTIES[e.difficulty]}.* Hand in {_what_to_hand_in(e)} as "
                f"`{e.name}.txt`.", "", e.text.strip(), "",
                "Events: " + ", ".join(f"`{t}({', '.join(a)})`" for t, a in e.schema.items()), ""]
        if e.kind == "predict" and e.stream is not None:
            out += ["Stream:", "", "```"] + [f"{n}: {line}" for n, line in enumerate(events_json(e.stream))]
            out += ["```", ""]
        if e.kind == "construction":
            # one field and one transition per line, the numbers cer-theory draw shows (docs/automaton-files.md)
            automaton = files.dumps(construction_input(e), name=e.reference_text).rstrip("\n")
            out += ["The automaton (its drawing: `cer-theory draw @automaton.json`):", "", "```json", automaton,
                    "```", ""]
        if solutions:
            out += [f"**Solution.** {e.solution.strip()}", "", "```", e.answer, "```", ""]
    return "\n".join(out)


def sheet_html(exercises: Iterable[Exercise], title: str = "Complex event recognition: exercises",
               solutions: bool = False) -> str:
    """The Markdown sheet as a self-contained HTML page (paragraphs, headings and code blocks; no scripts)."""
    body, code = [], False
    for line in sheet_markdown(exercises, title, solutions).split("\n"):
        if line.startswith("```"):
            body.append("</pre>" if code else "<pre>")
            code = not code
        elif code:
            body.append(html.escape(line))
        elif line.startswith("## "):
            body.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("# "):
            body.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line:
            text = re.sub(r"`([^`]*)`", r"<code>\1</code>", html.escape(line))
            body.append("<p>" + re.sub(r"\*\*?([^*]+)\*\*?", r"<em>\1</em>", text) + "</p>")
    style = ("body{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.4}"
             "pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap;word-break:break-all}")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def write_aside(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and rename it into place: a reader never sees half."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def grade_folder(folder: str | Path) -> list[dict[str, str]]:
    """One row per answer file of every student sub-folder, sorted by student and exercise."""
    root = Path(folder)
    if not root.is_dir():
        raise ExerciseError(f"{folder}: not a folder of answers (one sub-folder per student)")
    cache: dict[str, Exercise | CerError] = {}
    rows = []
    for student in sorted(p for p in root.iterdir() if p.is_dir()):
        for answer in sorted(p for p in student.iterdir() if p.is_file() and not p.name.startswith(".")):
            name = answer.stem
            if name not in cache:
                try:
                    cache[name] = exercise_named(name)
                except CerError as e:
                    cache[name] = e
            exercise = cache[name]
            if isinstance(exercise, CerError):
                status, grade, message = "unknown exercise", "0", f"{answer}: {exercise}"
            else:
                try:  # one student's unreadable file (another encoding, empty) is that student's grade, not the end
                    text = read_text_file(answer, "answer files", ExerciseError)
                except CerError as e:
                    status, grade, message = "unreadable", "0", str(e)
                else:
                    feedback = check(exercise, text.strip())
                    status, grade, message = feedback.status, str(int(feedback.accepted)), feedback.message
            rows.append({"student": student.name, "exercise": name, "status": status, "grade": grade,
                         "feedback": message})
    return rows


def grades_csv(rows: Iterable[dict[str, str]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


__all__ = ["COLUMNS", "exercise_named", "grade_folder", "grades_csv", "seed_sheet", "sheet_html",
           "sheet_markdown", "write_aside"]
