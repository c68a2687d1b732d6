"""Graphviz DOT from a neutral description of a drawing.

A :class:`Diagram` is nodes and edges with Graphviz attributes; it knows nothing about automata. Each model
describes itself as a diagram (an automaton with :func:`state_diagram`), so the kernel draws every model of
the toolkit without importing any of them.

The automaton convention is the one of the papers' figures (the CEL paper, Figs. 4, 5 and 8): a state is a circle,
a final state a double circle, an initial state has an incoming arrow from nowhere, and a transition's label
is written on its edge.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import graphviz

# A DOT ID that needs no quotes (the DOT grammar's alphanumeric and numeral IDs); keywords must be quoted.
_BARE_ID = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)")
_KEYWORDS = frozenset({"node", "edge", "graph", "digraph", "subgraph", "strict"})


def quote(text: str) -> str:
    """``text`` as a double-quoted DOT string: backslashes and quotes escaped, newlines as ``\\n`` (which
    Graphviz draws as centred line breaks)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def dot_id(value: object) -> str:
    """``value`` as a DOT ID: bare when the grammar allows it (``circle``, ``12``, ``0.5``), quoted otherwise."""
    text = str(value)
    if _BARE_ID.fullmatch(text) and text.lower() not in _KEYWORDS:
        return text
    return quote(text)


def _attr_list(label: str | None, attrs: Mapping[str, object]) -> str:
    """``label="…", key=value, …``: labels are always quoted (they are text to draw), other values when needed."""
    items = ([f"label={quote(label)}"] if label is not None else []) + [f"{k}={dot_id(v)}" for k, v in attrs.items()]
    return ", ".join(items)


@dataclass(frozen=True, slots=True)
class Node:
    """A node: its DOT ``id``, the text drawn in it (none: Graphviz draws the id), and further Graphviz
    attributes (``shape``, ``style``…)."""

    id: str
    label: str | None = None
    attrs: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Edge:
    """An edge between two node ids, with an optional label and further Graphviz attributes."""

    source: str
    target: str
    label: str | None = None
    attrs: Mapping[str, object] = field(default_factory=dict)


NODE_FONT: Mapping[str, object] = {"fontname": "Helvetica", "fontsize": 16}
"""The text in states and nodes. Sizes are chosen for a projector (docs/decisions.md D394): a drawing fills the width
it is shown at, and at 16 and 14 points the labels of the papers' automata read at 20–30 px on a 1920 px page."""
LABEL_FONT: Mapping[str, object] = {"fontname": "Helvetica", "fontsize": 14}
"""The labels on edges (transitions)."""
TITLE_FONT: Mapping[str, object] = {"fontname": "Helvetica", "fontsize": 18}
"""The title above a drawing."""


@dataclass(frozen=True, slots=True)
class Diagram:
    """A directed drawing: ``nodes`` and ``edges`` in drawing order, an optional ``title`` above it, the
    default attributes of every node and edge, and attributes of the whole graph (``graph_style``)."""

    name: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    title: str | None = None
    rankdir: str = "LR"
    node_style: Mapping[str, object] = field(default_factory=lambda: {"shape": "circle", **NODE_FONT})
    edge_style: Mapping[str, object] = field(default_factory=lambda: dict(LABEL_FONT))
    graph_style: Mapping[str, object] = field(default_factory=dict)

    def to_dot(self) -> str:
        """The DOT source of the diagram."""
        lines = [f"digraph {quote(self.name)} {{", f"  rankdir={dot_id(self.rankdir)};"]
        lines += [f"  {k}={dot_id(v)};" for k, v in self.graph_style.items()]
        if self.node_style:
            lines.append(f"  node [{_attr_list(None, self.node_style)}];")
        if self.edge_style:
            lines.append(f"  edge [{_attr_list(None, self.edge_style)}];")
        if self.title:
            lines.append(f"  fontname={dot_id(TITLE_FONT['fontname'])}; fontsize={TITLE_FONT['fontsize']};")
            lines.append(f"  labelloc=t; label={quote(self.title)};")
        for n in self.nodes:
            attrs = _attr_list(n.label, n.attrs)
            lines.append(f"  {dot_id(n.id)} [{attrs}];" if attrs else f"  {dot_id(n.id)};")
        for e in self.edges:
            attrs = _attr_list(e.label, e.attrs)
            tail = f" [{attrs}]" if attrs else ""
            lines.append(f"  {dot_id(e.source)} -> {dot_id(e.target)}{tail};")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def to_graphviz(self) -> graphviz.Digraph:
        """The same drawing as a ``graphviz.Digraph`` (the ``graphviz`` package), for users who style it or
        render it with a system Graphviz; its ``.source`` draws what :meth:`to_dot` draws."""
        import graphviz  # the wrapper package: only this method needs it

        g = graphviz.Digraph(self.name)
        g.attr(rankdir=self.rankdir, **{k: str(v) for k, v in self.graph_style.items()})
        if self.title:
            g.attr(labelloc="t", label=self.title, **{k: str(v) for k, v in TITLE_FONT.items()})
        g.attr("node", **{k: str(v) for k, v in self.node_style.items()})
        g.attr("edge", **{k: str(v) for k, v in self.edge_style.items()})
        for n in self.nodes:
            g.node(n.id, n.label, **{k: str(v) for k, v in n.attrs.items()})
        for e in self.edges:
            g.edge(e.source, e.target, e.label, **{k: str(v) for k, v in e.attrs.items()})
        return g


def state_ids(states: Iterable[Hashable]) -> dict[Hashable, str]:
    """The DOT id of each state of :func:`state_diagram`, given in drawing order: ``q0``, ``q1``, …"""
    return {q: f"q{k}" for k, q in enumerate(states)}


USELESS_CAPTION = "grey: states no accepting run visits"
"""The caption line of a drawing with greyed states (D384: every picture of an automaton shows every state, with the
numbers the automaton has, and greys those no accepting run visits, instead of hiding them)."""

_GREY = {"color": "gray60", "fontcolor": "gray50", "style": "dashed"}


def state_diagram(*, name: str, states: Mapping[Hashable, str], initial: Iterable[Hashable],
                  final: Collection[Hashable], edges: Iterable[tuple[Hashable, Hashable, str]],
                  title: str | None = None, rankdir: str = "LR", useless: Collection[Hashable] = ()) -> Diagram:
    """An automaton drawn as in the papers' figures.

    ``states`` maps each state to the text drawn in it, in drawing order (state k gets the DOT id ``qk``);
    ``initial`` states get an arrow from an invisible point, in the order given; ``final`` states a double
    circle; ``edges`` are ``(source, target, label)`` between states. ``useless`` states (no accepting run visits
    them) and the edges touching them are drawn grey and dashed, and the caption says so (:data:`USELESS_CAPTION`).
    """
    ids = state_ids(states)
    grey = frozenset(useless) & frozenset(states)
    nodes = [Node(ids[q], label, {"shape": "doublecircle" if q in final else "circle", **(_GREY if q in grey else {})})
             for q, label in states.items()]
    arrows = []
    for k, q in enumerate(initial):
        nodes.append(Node(f"start{k}", None, {"shape": "point", "style": "invis", "width": 0}))
        arrows.append(Edge(f"start{k}", ids[q]))
    lines = [Edge(ids[src], ids[dst], label, dict(_GREY) if src in grey or dst in grey else {})
             for src, dst, label in edges]
    if grey:
        title = f"{title}\n{USELESS_CAPTION}" if title else USELESS_CAPTION
    # Wider gaps than Graphviz's defaults (0.25 and 0.5 inches): the selection automata of Thm 7.2 carry long
    # labels, which at the defaults overlap each other and the self-loops.
    return Diagram(name, tuple(nodes), tuple(arrows + lines), title=title, rankdir=rankdir,
                   graph_style={"nodesep": 0.6, "ranksep": 0.9})
