"""Execute every notebook top to bottom and store its outputs in place (``make notebooks``).

The documentation site shows the notebooks' stored outputs (``docs/conf.py``: ``nb_execution_mode = "off"``), so
they are stored from one fresh run of each notebook, with drawings made as on a machine without Graphviz (the
WebAssembly renderer), never edited by hand. ``proofs_tests/cli/test_notebooks.py`` executes them again and checks
that the stored outputs are complete and show no Python repr.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import nbclient
import nbformat

from cer_theory.core.drawing import SWITCH

HERE = Path(__file__).resolve().parent


def execute(path: Path) -> None:
    """Run ``path`` in a fresh kernel (working folder: a temporary one) and write it back with its outputs."""
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as work:
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": work}}).execute()
    aside = path.with_name(f".{path.name}.tmp")
    nbformat.write(nb, aside)
    os.replace(aside, path)  # (atomic: an interrupted run leaves the notebook as it was)


def main(names: list[str]) -> None:
    os.environ[SWITCH] = "wasm"  # the kernel inherits it
    paths = [HERE / n for n in names] if names else sorted(HERE.glob("*.ipynb"))
    for path in paths:
        print(f"executing {path.name}", flush=True)
        execute(path)


if __name__ == "__main__":
    main(sys.argv[1:])
