"""Sphinx configuration of the documentation site (``make docs``; decisions D243–D245).

Pages are Markdown (MyST), the API reference comes from the docstrings (autodoc), the command-line reference from
the argparse parser itself (``_ext/cli_reference.py``), and the notebooks are rendered with their stored outputs by
MyST-NB, which needs no pandoc (the test suite executes them).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(ROOT))

project = "cer_theory"
author = "The cer_theory authors"
copyright = "the cer_theory authors, Apache-2.0"
release = version = "0.1.0"

extensions = ["myst_nb", "sphinx.ext.autodoc", "cli_reference", "api_reference"]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "_ext", "**.ipynb_checkpoints"]
root_doc = "index"

myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3
nb_execution_mode = "off"  # the notebooks are executed by the test suite; the site shows their stored outputs
nb_render_markdown_format = "myst"

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": False}

html_theme = "alabaster"
html_static_path = ["_static"]
html_css_files = ["site.css"]
html_title = "cer_theory"
# "page_width" is also the width below which the sidebar moves above the page; the page itself is as wide as the
# window (site.css), so that drawings and notebook outputs fill a projector's width (D396)
html_theme_options = {"description": "The theory of Complex Event Recognition, executable", "fixed_sidebar": True,
                      "page_width": "1240px", "sidebar_width": "240px", "body_max_width": "none"}

# Pages written for the repository link into it (source files, benchmarks): those links are kept as they are.
# Docstrings name classes by their short name (:class:`Formula`), which several formalisms share: Sphinx links
# the nearest one and would warn that others exist (ref.python).
suppress_warnings = ["myst.xref_missing", "ref.python"]

# The notebooks live in notebooks/ at the repository's root, where the test suite executes them; the site renders
# copies (docs/notebooks/ is generated and ignored by git).
_NOTEBOOKS = HERE / "notebooks"
if _NOTEBOOKS.exists():
    shutil.rmtree(_NOTEBOOKS)
_NOTEBOOKS.mkdir()
for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
    shutil.copy(notebook, _NOTEBOOKS / notebook.name)
