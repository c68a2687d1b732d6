"""The :class:`Drawable` mixin: how every automaton and data structure shows itself in Jupyter."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cer_theory.core.lazy import resolve

if TYPE_CHECKING:
    import graphviz

    from cer_theory.core.drawing.dot import Diagram

SVG = "image/svg+xml"
TEXT = "text/plain"


class Drawable:
    """Mixin for a class that can describe itself as DOT (:meth:`to_dot`) and as text (:meth:`describe`).

    It gives the class :meth:`to_svg` (which raises a clear error when no renderer exists: the drawing was asked
    for) and ``_repr_mimebundle_`` for Jupyter, which never raises: the SVG drawing when some Graphviz renders
    it, and always the readable text form, which is what is shown when the drawing fails.
    """

    __slots__ = ()

    def diagram(self, **options: Any) -> Diagram:
        """The drawing as a neutral :class:`~cer_theory.core.drawing.dot.Diagram`; every drawable defines it."""
        raise NotImplementedError(f"{type(self).__name__} does not define diagram()")

    def to_dot(self, **options: Any) -> str:
        """The Graphviz DOT source of :meth:`diagram` (same options)."""
        return self.diagram(**options).to_dot()

    def to_graphviz(self, **options: Any) -> graphviz.Digraph:
        """:meth:`diagram` as a ``graphviz.Digraph`` of the ``graphviz`` package, to style or to render with a
        system Graphviz (``.render()``, ``.pipe()``); the toolkit's own drawings need no system program."""
        return self.diagram(**options).to_graphviz()

    def describe(self) -> str:
        """The readable text form; classes with more to say than their ``repr`` override it."""
        return repr(self)

    def to_svg(self, *, scale: float | None = None) -> str:
        """The SVG drawing (see :mod:`cer_theory.core.drawing.render` for the renderers): by default it fills the
        width it is given; ``scale`` fixes it at that many times its natural size instead."""
        # (the renderers load on the first drawing, not with every model class: `cer-theory run` never draws)
        return resolve("cer_theory.core.drawing.render:render_svg")(self.to_dot(), scale=scale)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        bundle = {TEXT: self._safe_text()}
        if (include is None or SVG in include) and not (exclude and SVG in exclude):
            try:
                bundle[SVG] = self.to_svg()
            except Exception:  # a repr never raises: without a drawing the text form stands alone
                pass
        return bundle

    def _safe_text(self) -> str:
        try:
            return self.describe()
        except Exception:
            return object.__repr__(self)
