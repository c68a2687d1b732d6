"""Drawing, for every model of the toolkit: a neutral :class:`Diagram` → Graphviz DOT → SVG, with a text
fallback.

* :mod:`~cer_theory.core.drawing.dot` — :class:`Diagram`, :func:`state_diagram` (automata as in the papers'
  figures), the DOT quoting helpers :func:`quote` and :func:`dot_id`, and how values are written (:func:`shown`,
  :class:`Subset`);
* :mod:`~cer_theory.core.drawing.render` — the renderers (the ``dot`` program, else Graphviz in WebAssembly),
  :func:`render_svg` and :func:`write_drawing`;
* :mod:`~cer_theory.core.drawing.drawable` — the :class:`Drawable` mixin: ``_repr_mimebundle_`` for Jupyter.

Nothing here imports an automaton or a formalism: they describe themselves to it.
"""

from cer_theory.core.drawing.dot import (LABEL_FONT, NODE_FONT, Diagram, Edge, Node, Subset, dot_id, quote, shown,
                                         state_diagram, state_ids)
from cer_theory.core.drawing.drawable import Drawable
from cer_theory.core.drawing.render import (DRAWING_FORMATS, RENDERERS, SWITCH, available_renderers,
                                            drawing_format, graphviz_available, render_svg, write_drawing)

__all__ = ["DRAWING_FORMATS", "LABEL_FONT", "NODE_FONT", "RENDERERS", "SWITCH", "Diagram", "Drawable", "Edge", "Node",
           "Subset", "available_renderers", "dot_id", "drawing_format", "graphviz_available", "quote", "render_svg",
           "shown", "state_diagram", "state_ids", "write_drawing"]
