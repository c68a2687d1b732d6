"""The "your turn" cells of the notebooks: :func:`cer_theory.exercises.notebook.check` shows the grader's feedback
as an HTML table and, for a wrong answer, the stream on which it differs and the run stepped over it; and every
teaching notebook's "your turn" cells, executed with the answer cell as shipped (a wrong first try) and replaced by
the exercise's worked answer, show the rejection with its distinguishing stream, or the acceptance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cer_theory.exercises.checker import load_exercise
from cer_theory.exercises.checker import check as grade
from cer_theory.exercises.notebook import Graded, check

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
WITH_YOUR_TURN = ["01_cel_and_cea", "02_constructions", "03_second_order", "04_aggregation", "05_registers",
                  "07_exercises", "08_core_engine"]


def test_right_answer_is_a_green_table_without_a_run() -> None:
    ex = load_exercise("fire_03_hot")
    g = check("fire_03_hot", ex.answer)
    assert isinstance(g, Graded) and g.accepted and g.run is None
    page = g._repr_html_()
    assert page.startswith("<table") and "correct" in page and "<iframe" not in page


def test_wrong_answer_shows_the_stream_both_outputs_and_the_stepped_run() -> None:
    g = check("fire_08_between", "H ; T ; H")
    fb = grade(load_exercise("fire_08_between"), "H ; T ; H")
    assert not g.accepted and g.feedback.status == fb.status == "wrong"
    rows = dict(g.rows())
    assert rows["verdict"] == "wrong" and rows["position"] == str(fb.position)
    stream = fb.stream
    assert stream is not None and [k for k in rows if k.startswith("event ")] == [f"event {k}" for k in
                                                                                   range(len(stream))]
    assert rows["expected"] == "[0, 1, 2, 3], [0, 1, 3], [0, 2, 3]"  # the worked answer's outputs at n = 3
    assert rows["your answer outputs"] == "[0, 1, 3], [0, 2, 3]"
    assert g.run is not None and len(g.run.frames) == len(stream) + 1  # a frame before the first event
    page = g._repr_html_()
    assert "<iframe srcdoc=" in page and "[0, 1, 2, 3]" in page


def test_html_escapes_the_answer() -> None:
    page = check("sremo_05_register", '<type = "T"> . [TRUE]* . <type = "H">')._repr_html_()
    assert '&lt;type = &quot;T&quot;&gt;' in page and '<type = "T">' not in page.split("<iframe", 1)[0]


def test_a_syntax_error_is_a_table_not_a_traceback() -> None:
    g = check("fire_03_hot", "T FILTER (")
    assert g.feedback.status == "syntax error" and g.run is None and "syntax error" in g._repr_html_()


def _your_turn_cells(answer: str) -> list:
    """The "your turn" cells of every teaching notebook, in one notebook; ``answer`` is ``shipped`` (the answer
    cells as in the notebooks) or ``worked`` (replaced by each exercise's worked answer)."""
    import nbformat
    cells = []
    for name in WITH_YOUR_TURN:
        nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
        mine = [c for c in nb.cells if "your-turn" in c.metadata.get("tags", []) and c.cell_type == "code"]
        assert [c.metadata["tags"][-1] for c in mine] == ["your-turn", "your-turn-answer", "your-turn-check"], name
        for c in mine:
            if answer == "worked" and "your-turn-answer" in c.metadata["tags"]:
                c = nbformat.v4.new_code_cell(
                    f"answer = {load_exercise(c.metadata['your_turn_exercise']).answer!r}", metadata=c.metadata)
            cells.append(c)
    return cells


def _run(cells: list, tmp_path: Path) -> list[dict]:
    """The HTML shown by each check cell, after executing ``cells`` in a fresh kernel."""
    import nbclient
    import nbformat
    nb = nbformat.v4.new_notebook(cells=cells)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    shown = []
    for c in nb.cells:
        assert not [o for o in c.outputs if o.output_type == "error"], c.outputs
        if "your-turn-check" in c.metadata["tags"]:
            (out,) = [o for o in c.outputs if o.output_type == "execute_result"]
            shown.append({"exercise": c.metadata["your_turn_exercise"], "html": out["data"]["text/html"]})
    return shown


VERDICTS = {"shipped": (">wrong</td>",), "worked": (">correct</td>", ">no difference found</td>")}
"""What the check cells must show: the shipped first tries are rejected, the worked answers accepted."""


@pytest.mark.notebooks
@pytest.mark.parametrize("answers", VERDICTS)
def test_your_turn_cells_answered_wrong_and_right(answers: str, tmp_path: Path) -> None:
    shown = _run(_your_turn_cells(answers), tmp_path)
    assert len(shown) == len(WITH_YOUR_TURN)
    for s in shown:
        page = s["html"]
        assert any(v in page for v in VERDICTS[answers]), (s["exercise"], page[:2000])
        if answers == "shipped":  # the rejection with its distinguishing stream and the stepped run over it
            assert ">event 0</th>" in page and "<iframe srcdoc=" in page, s["exercise"]
        else:
            assert ">wrong</td>" not in page and "<iframe" not in page, s["exercise"]


def test_every_your_turn_cell_names_a_bundled_exercise() -> None:
    for name in WITH_YOUR_TURN:
        nb = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))
        names = {c["metadata"]["your_turn_exercise"] for c in nb["cells"] if "your_turn_exercise" in c["metadata"]}
        assert len(names) == 1 and load_exercise(names.pop()), name


def test_a_wrong_register_answer_steps_its_symbolic_register_transducer() -> None:
    answer = '<type = "T"> -> r1 . [TRUE]* . <type = "H" AND id = r1.id AND hum > 50>'
    g = check("sremo_05_register", answer)
    assert g.feedback.status == "wrong" and g.run is not None
    assert g.run.model == "SRT", g.run.model


def test_a_graded_answer_never_shows_the_solution() -> None:
    """A student's notebook prints the graded answer: repr, str and HTML show no reference, mistake or solution;
    a teacher reads them by attribute."""
    from cer_theory.exercises.checker import bundled_exercises
    from cer_theory.exercises.notebook import check as notebook_check

    exercise = next(e for e in bundled_exercises() if e.kind == "formula" and e.mistakes and e.solution.strip())
    secret = [exercise.reference_text, *exercise.mistakes, exercise.solution.strip()]
    for answer in ("T", exercise.mistakes[0]):
        graded = notebook_check(exercise, answer)
        shown = [repr(graded), str(graded), graded._repr_html_(), repr(graded.exercise)]
        for text in shown:
            for s in secret:
                if s != answer:
                    assert s not in text, f"{s!r} shown in {text[:200]!r}"
    assert graded.exercise.reference is exercise.reference and graded.exercise.mistakes == exercise.mistakes
