"""Drawing, for every model of the toolkit: a neutral :class:`Diagram` → Graphviz DOT → SVG, with a text
fallback.

* :mod:`~cer_theory.core.drawing.dot` — :class:`Diagram`, :func:`state_diagram` (automata as in the papers'
  figures), the DOT quoting helpers :func:`quote` and :func:`dot_id`;
* :mod:`~cer_theory.core.drawing.values` — how values are written (:func:`shown`, :class:`Subset`);
* :mod:`~cer_theory.core.drawing.render` — the renderers (the ``dot`` program, else Graphviz in WebAssembly),
  :func:`render_svg` and :func:`write_drawing`;
* :mod:`~cer_theory.core.drawing.drawable` — the :class:`Drawable` mixin: ``_repr_mimebundle_`` for Jupyter.

Nothing here imports an automaton or a formalism: they describe themselves to it.
"""

from typing import TYPE_CHECKING

from cer_theory.core.drawing.drawable import Drawable
from cer_theory.core.drawing.values import Subset, shown
from cer_theory.core.lazy import lazy_exports

if TYPE_CHECKING:  # what type checkers see; at run time the DOT writer and the renderers load on first access
    from cer_theory.core.drawing.dot import (LABEL_FONT, NODE_FONT, Diagram, Edge, Node, dot_id, quote, state_diagram,
                                             state_ids)
    from cer_theory.core.drawing.render import (DRAWING_FORMATS, RENDERERS, SWITCH, available_renderers,
                                                drawing_format, graphviz_available, render_svg, write_drawing)

# The DOT writer and the renderers (subprocess, the WebAssembly cache, the output layer) load on first use: every
# automaton and the engine's tECS are Drawable, and a run that never draws should not pay for them at start-up
# (D460). What an automaton needs when it is built (Subset, shown) and the mixin itself are eager.
_EXPORTS = {**dict.fromkeys(("LABEL_FONT", "NODE_FONT", "Diagram", "Edge", "Node", "dot_id", "quote", "state_diagram",
                             "state_ids"), "dot"),
            **dict.fromkeys(("DRAWING_FORMATS", "RENDERERS", "SWITCH", "available_renderers", "drawing_format",
                             "graphviz_available", "render_svg", "write_drawing"), "render")}
__getattr__, _lazy_names = lazy_exports(__name__, _EXPORTS)


def __dir__() -> list[str]:
    """The eager names and the lazy ones (``dir()``, a shell's completion)."""
    return sorted({*globals(), *_lazy_names()})


__all__ = ["DRAWING_FORMATS", "LABEL_FONT", "NODE_FONT", "RENDERERS", "SWITCH", "Diagram", "Drawable", "Edge", "Node",
           "Subset", "available_renderers", "dot_id", "drawing_format", "graphviz_available", "quote", "render_svg",
           "shown", "state_diagram", "state_ids", "write_drawing"]
