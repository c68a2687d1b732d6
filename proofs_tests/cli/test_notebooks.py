"""The notebooks in notebooks/ are part of the product: each one must execute top to bottom without error, and
show its drawings on any machine: the kernel is forced onto the WebAssembly Graphviz, as without ``dot``."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cer_theory.core.drawing import SWITCH

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
STEPPERS = ("cer_theory.stepper", "cer_theory.exercises.notebook")
"""Where a notebook's stepper comes from: the stepper itself, or the graded check of an exercise, which steps the
student's run over the distinguishing stream."""
LEAKS = ("frozenset", "1e999", "\\n")
"""Python reprs and escapes that must never reach a drawing, nor the text form of a model."""


@pytest.mark.notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import nbclient
    import nbformat
    monkeypatch.setenv(SWITCH, "wasm")  # the kernel inherits it: drawings as on a machine without Graphviz
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    errors = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors, errors
    results = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])
               if o.get("output_type") in ("execute_result", "display_data")]
    drawables = [o for o in results if o["data"].get("text/plain", "").startswith(("CEA(", "UCEA(", "ACEA(", "Cces"))]
    assert drawables, f"{path.name} shows no automaton or CCES"
    for o in drawables:
        svg = o["data"].get("image/svg+xml")
        assert svg, f"{path.name}: {o['data']['text/plain'].splitlines()[0]} is shown without its drawing"
        assert ET.fromstring(svg.encode("utf-8")).tag == "{http://www.w3.org/2000/svg}svg"
    for o in results:
        for leak in LEAKS:
            assert leak not in o["data"].get("image/svg+xml", ""), f"{path.name}: a drawing shows {leak}"
    for o in drawables:
        for leak in LEAKS:
            assert leak not in o["data"]["text/plain"], f"{path.name}: a model's text form shows {leak}"
    pages = [o for o in results if "<iframe srcdoc=" in o["data"].get("text/html", "")]
    assert pages, f"{path.name} steps through no run"


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "notebooks/ must hold the tutorials"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_every_notebook_steps_through_a_run(path: Path) -> None:
    """Without running it: some code cell imports a stepper (test_notebook_executes checks that its page shows)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    assert any(f"from {module}" in source for source in code for module in STEPPERS), \
        f"{path.name} steps through no run (no cell imports from {' or '.join(STEPPERS)})"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_stored_outputs_are_one_complete_run(path: Path) -> None:
    """The documentation site shows the stored outputs (docs/conf.py), so they must come from one run of the
    whole notebook (``make notebooks``): every code cell executed, in order, without error, and no Python repr in
    what is shown."""
    cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    counts = [c.get("execution_count") for c in cells]
    assert counts == list(range(1, len(cells) + 1)), \
        f"{path.name}: stored outputs are not one top-to-bottom run (execution counts {counts}); run `make notebooks`"
    outputs = [o for c in cells for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"], f"{path.name}: a stored output is an error"
    for o in outputs:
        data = o.get("data", {})
        text = "".join(data.get("text/plain", "")) + "".join(o.get("text", ""))
        svg = "".join(data.get("image/svg+xml", ""))
        for leak in ("frozenset", "1e999"):
            assert leak not in text, f"{path.name}: a stored output shows {leak}: run `make notebooks`"
        for leak in LEAKS:
            assert leak not in svg, f"{path.name}: a stored drawing shows {leak}: run `make notebooks`"
