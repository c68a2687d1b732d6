"""The notebooks in notebooks/ are part of the product: each one must execute top to bottom without error, and
show its drawings on any machine: the kernel is forced onto the WebAssembly Graphviz, as without ``dot``."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cer_theory.core.drawing import SWITCH

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
STEPPING = {"01_cel_and_cea.ipynb", "02_constructions.ipynb", "03_second_order.ipynb", "04_aggregation.ipynb",
            "05_registers.ipynb", "08_core_engine.ipynb"}
"""The notebooks that step through a run (the stepper's page, shown as HTML)."""
LEAKS = ("frozenset", "1e999", "\\n")
"""Python reprs and escapes that must never reach a drawing."""


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
    if path.name in STEPPING:
        pages = [o for o in results if o["data"].get("text/html", "").startswith("<iframe srcdoc=")]
        assert pages, f"{path.name} steps through no run"


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "notebooks/ must hold the tutorials"
