"""A run shown position by position: the model-independent :class:`Frame` and :class:`Run`.

A frame is what a reader sees after the automaton (or the engine) has read the event at ``position`` (``None``:
before the first event): the drawing's nodes to shade (the active states, or the structure's live nodes), the
edges just taken, one row per active run (its state and its partial valuation, registers or bags), the outputs
at this position, and, for structures that grow (the tECS, the CCES), the nodes created by this event and a
drawing of its own. :mod:`cer_theory.stepper.page` turns a run into one self-contained HTML page.
"""

from __future__ import annotations

from dataclasses import dataclass

from cer_theory.core.errors import CerError
from cer_theory.core.wording import plural
from cer_theory.stepper.page import embedded, page, write_page

MAX_POSITIONS = 400
"""How many positions a stepper shows at most by default (each is a frame of the page)."""

MAX_ROWS = 2000
"""How many active runs one frame lists at most by default."""


@dataclass(frozen=True, slots=True, order=True)
class Row:
    """One active run: where it is (a state, a table entry) and what it carries so far."""

    where: str
    carries: str


@dataclass(frozen=True, slots=True)
class Frame:
    """The view after reading position ``position`` (``None``: the start, nothing read yet).

    ``active`` are DOT node ids of the drawing to shade, ``taken`` the edges ``(source id, target id)`` to
    emphasise, ``new`` the node ids created at this position (growing structures), ``svg`` the frame's own
    drawing (else the run's), ``work`` a line counting what this event cost."""

    position: int | None
    active: frozenset[str]
    taken: frozenset[tuple[str, str]]
    rows: tuple[Row, ...]
    outputs: tuple[str, ...]
    new: frozenset[str] = frozenset()
    svg: str | None = None
    work: str = ""


@dataclass(frozen=True, slots=True)
class Run:
    """A run of ``model`` (``CEA``, ``UCEA``, ``ACEA``, ``SRT``, ``CCES`` or ``tECS``) over ``events`` (their
    texts), one frame per position plus the start, and the drawing every frame shades (``svg``; growing
    structures carry one per frame). Shown in Jupyter as the interactive page (:meth:`_repr_html_`)."""

    model: str
    title: str
    events: tuple[str, ...]
    frames: tuple[Frame, ...]
    svg: str | None = None

    def __repr__(self) -> str:
        return f"Run({self.model}: {self.title}, {plural(len(self.frames) - 1, 'position')})"

    def to_html(self) -> str:
        """One self-contained HTML page (no network), stepped with the arrow keys."""
        return page(self)

    def write_html(self, path: str) -> None:
        """Write :meth:`to_html` to ``path`` (written aside, then renamed into place)."""
        write_page(self, path)

    def _repr_html_(self) -> str:
        return embedded(self)


def check_budget(positions: int, max_positions: int) -> None:
    """A clear refusal past the position budget: a page of thousands of frames helps nobody."""
    if positions > max_positions:
        raise CerError(f"the stepper shows at most {plural(max_positions, 'position')} and the stream has {positions}: "
                       f"step through a prefix (cer-theory step --positions N) or raise the budget")


def check_rows(count: int, position: int | None, max_rows: int) -> None:
    """A clear refusal when one frame would list more active runs than the budget."""
    if count > max_rows:
        where = "the start" if position is None else f"position {position}"
        raise CerError(f"at {where} there are {count} active runs, more than the stepper's budget of {max_rows} "
                       f"(--max-runs); step through a shorter stream or a smaller automaton")
