"""One formula object for every formalism: the same three verbs, ``evaluate``, ``compile`` and ``draw``.

Each formalism registers a :class:`~cer_theory.core.protocols.Formalism` record (its parser, printer, reference
semantics, automaton compilation and evaluators). :func:`parser` turns a record's name into the everyday front door
``cer_theory.cel("…")``, ``cer_theory.ceql("…")``, … : it parses the text and wraps the AST in a :class:`Formula`
that answers through the record alone, so a formalism added to the registry gets the same front door, with the
same names, for free, and nothing here imports a formalism.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cer_theory.core.contract import Observed
from cer_theory.core.drawing import Diagram, Drawable, write_drawing
from cer_theory.core.drawing.render import check_scale
from cer_theory.core.errors import ArgumentError, FileError, RegistryError, wrong_kind
from cer_theory.core.events import Event, Stream
from cer_theory.core.protocols import Automaton, Formalism, get
from cer_theory.core.textfiles import read_text_file
from cer_theory.streams.rows import load

StreamLike = Stream | Iterable[Event] | Iterable[Mapping[str, object]] | str | Path
"""What :meth:`Formula.evaluate` reads: a :class:`Stream`, Events, dicts with a ``"type"`` key, or the path of a
JSON Lines or CSV file."""


def as_stream(stream: StreamLike) -> Stream:
    """``stream`` as a :class:`Stream`: a path is loaded (:func:`cer_theory.streams.rows.load`), dicts are checked
    one by one."""
    if isinstance(stream, Stream):
        return stream
    if isinstance(stream, (str, Path)):
        return load(stream)
    if isinstance(stream, (bytes, bytearray, Mapping)) or not isinstance(stream, Iterable):
        raise wrong_kind("a stream", "a Stream, events, dicts with a 'type' key or a file's path", stream)
    items = list(stream)
    if all(isinstance(x, Event) for x in items):
        return Stream(items)  # type: ignore[arg-type]
    return Stream.from_dicts(items)  # type: ignore[arg-type]


class Drawing(Drawable):
    """The drawing of a formula's automaton: SVG in Jupyter; ``to_svg()``, ``to_dot()``, ``to_graphviz()`` and
    ``save(path)`` elsewhere. Drawing ``options`` (e.g. ``title``) go to the automaton's own ``diagram``.

    By default the SVG fills the width it is given (a notebook cell, a page on a projector); ``scale=1.5`` fixes
    it at one and a half times its natural size instead (and a PNG at one and a half times the resolution)."""

    __slots__ = ("model", "options", "scale")

    def __init__(self, model: Drawable, *, scale: float | None = None, **options: Any) -> None:
        if not isinstance(model, Drawable):
            raise wrong_kind("Drawing", "a drawable model (an automaton)", model)
        self.model = model
        self.scale = check_scale(scale)
        self.options = options

    def to_svg(self, *, scale: float | None = None) -> str:
        return super().to_svg(scale=self.scale if scale is None else scale)

    def diagram(self, **options: Any) -> Diagram:
        return self.model.diagram(**{**self.options, **options})

    def save(self, path: str | Path) -> Path:
        """Write the drawing; the extension picks the format (``.svg``, ``.dot``; ``.png``/``.pdf`` need ``dot``)."""
        if not isinstance(path, (str, Path)):
            raise wrong_kind("Drawing.save", "a file's path (str or Path)", path)
        try:
            write_drawing(self.to_dot(), path, scale=self.scale)
        except ArgumentError:
            raise
        except OSError as e:  # (a folder, a missing folder, no permission: the package's error, naming the path)
            raise FileError(f"{path}: cannot write ({e.strerror or e})") from None
        return Path(path)

    def describe(self) -> str:
        return self.model.describe()

    def __repr__(self) -> str:
        """Outside Jupyter (a terminal, ``print``): what is drawn, as text, and how to get the picture."""
        title = self.options.get("title")
        head = f"Drawing of {self.model!r}" + (f": {title}" if title else "")
        listing = self.describe().split("\n")
        body = listing[1:] if listing and listing[0] == repr(self.model) else listing
        return "\n".join([head, *body, "  (shown as SVG in Jupyter; .save('a.svg'), .to_svg(), .to_dot())"])


@dataclass(frozen=True)
class Formula:
    """A parsed formula of the formalism ``logic`` (a name of :func:`cer_theory.core.protocols.names`).

    ``str(formula)`` is the formula printed back by the formalism's printer (it parses to the same AST);
    ``formula.ast`` is the formalism's own AST, for the constructions of its package.
    """

    logic: str
    ast: Any

    def __post_init__(self) -> None:
        if not isinstance(self.logic, str):
            raise wrong_kind("Formula", "a formalism's name (a str) as its logic", self.logic)

    @property
    def formalism(self) -> Formalism:
        """The registry record of this formula's formalism."""
        return get(self.logic)

    def evaluate(self, stream: StreamLike, *, via: str = "semantics", level: str | None = None,
                 **options: Any) -> Observed:
        """The outputs at every position of ``stream``: ``result[n]`` is the set of outputs at position n (a
        frozenset printed in the canonical order, ``{{1,8}, {5,8}}``), and ``result.json_lines()`` the same outputs
        as the lines ``cer-theory eval`` prints (the output contract, docs/output-contract.md).

        ``via`` names an evaluator of the formalism (the reference ``"semantics"`` by default; ``"cea"``, the
        engine, … as registered); ``level`` the output level (the coarsest, complex events, by default; e.g.
        ``"valuations"`` for CEL). Every evaluator gives the same outputs at the same level: the test suite
        checks it.
        """
        record = self.formalism
        if not isinstance(via, str) or not (level is None or isinstance(level, str)):
            raise wrong_kind("evaluate", "an evaluator's name as via= and a level's name as level=",
                             via if not isinstance(via, str) else level)
        outputs = record.evaluator(via)(self.ast, as_stream(stream), **options)
        seen = record.levels[-1] if level is None else record.level(level)
        return seen.outputs(outputs)

    def compile(self) -> Automaton:
        """The formalism's automaton for this formula, by the paper's compilation (e.g. CEL → CEA, Theorem 6.2 of
        Grez, Riveros, Ugarte and Vansummeren's *A Formal Framework for Complex Event Recognition*)."""
        return self.formalism.automaton(self.ast)

    def draw(self, path: str | Path | None = None, *, scale: float | None = None, **options: Any) -> Drawing:
        """The drawing of :meth:`compile`'s automaton (shown as SVG in Jupyter); written to ``path`` when given.
        By default the SVG fills the width it is given; ``scale`` fixes it at that many times its natural size.
        ``options`` are the automaton's drawing options (``title``, …)."""
        if path is not None and not isinstance(path, (str, Path)):
            raise wrong_kind("draw", "a file's path (str or Path) or None", path)
        automaton = self.compile()
        if not isinstance(automaton, Drawable):
            raise RegistryError(f"{self.logic}'s automaton {type(automaton).__name__} cannot be drawn")
        drawing = Drawing(automaton, scale=scale, **{"title": str(self), **options})  # titled by the formula, as draw does
        if path is not None:
            drawing.save(path)
        return drawing

    def __str__(self) -> str:
        return self.formalism.format(self.ast)

    def __repr__(self) -> str:
        return f"{self.logic}({str(self)!r})"


def parser(logic: str) -> Callable[[str], Formula]:
    """The front-door parse function of formalism ``logic``: text (or ``@FILE``) → :class:`Formula`.

    The record is looked up on the first call, so creating the function loads nothing. The text is checked before
    it reaches the parser: anything but a str is an :class:`~cer_theory.core.errors.ArgumentError`, an ``@FILE``
    that cannot be read a :class:`~cer_theory.core.errors.FileError` naming it (``core.textfiles``)."""
    if not isinstance(logic, str):
        raise wrong_kind("parser", "a formalism's name (a str)", logic)

    def parse(text: str) -> Formula:
        if not isinstance(text, str):
            raise wrong_kind(f"{logic}()", "a formula's text (a str), or '@FILE' to read it from a file", text)
        if text.startswith("@"):
            text = read_text_file(text[1:], "formula files")
        return Formula(logic, get(logic).parse(text))

    parse.__name__ = parse.__qualname__ = logic
    parse.__doc__ = (f"Parse a formula of the {logic!r} formalism (text, or ``@FILE``) into a :class:`Formula` "
                     f"with ``evaluate``, ``compile`` and ``draw``.")
    return parse


__all__ = ["Drawing", "Formula", "StreamLike", "as_stream", "parser"]
