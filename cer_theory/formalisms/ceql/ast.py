"""The abstract syntax of CEQL, the query language of CORE (the CORE paper, *CORE: a Complex Event Recognition
Engine*, §2 and Fig. 1), and its lexical constants.

A :class:`Query` is ``SELECT [strategy] vars|*|NONE [FROM streams] WHERE pattern [PARTITION BY …] [WITHIN …]
[CONSUME BY …] [LIMIT n]``; its WHERE pattern is a CEL formula (:mod:`cer_theory.formalisms.cel.ast`), as the CORE paper
§2 builds CEQL's patterns from CEL's operators. A :class:`StreamDeclaration` is CORE's ``CREATE STREAM``.
``str(q)`` is the canonical CEQL text of :mod:`cer_theory.formalisms.ceql.printer`. The lexical constants are
defined in :mod:`cer_theory.formalisms.ceql.lexicon` and re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cer_theory.core.aggregates import Aggregator, aggregator
from cer_theory.core.errors import UnsupportedError
from cer_theory.core.predicates.ast import Predicate
from cer_theory.core.strategies import CEQL_STRATEGIES, CONSUME_POLICIES, ceql_strategy
from cer_theory.core.windows import Window
from cer_theory.formalisms.cel.ast import Formula, Proj, Select, variables
from cer_theory.formalisms.ceql.lexicon import DATATYPE_KINDS, DEFAULT_TIME_ATTRIBUTE, KEYWORDS, STREAM_ATTRIBUTE
from cer_theory.formalisms.ceql.printer import format

STRATEGIES: tuple[str, ...] = tuple(CEQL_STRATEGIES)
"""The ``SELECT`` strategy keywords CORE's grammar accepts (:data:`cer_theory.core.strategies.CEQL_STRATEGIES`
in order); ALL (no strategy) is the default."""


@dataclass(frozen=True)
class AggregateItem:
    """``FUNCTION(var.attribute) AS alias`` in SELECT: the aggregate ``function`` (a name known to
    :func:`cer_theory.core.aggregates.aggregator`, built-in or registered) folded over the ``attribute`` values of
    the events the match binds to ``var`` — the ACEL paper's ``Agg`` operator (aggregation paper, §4–5) applied to one
    variable of the match. ``attribute`` is None only for ``COUNT(var)``, which counts events."""

    function: str
    variable: str
    attribute: str | None
    alias: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "function", self.function.upper())
        if self.attribute is None and self.function != "COUNT":
            raise ValueError(f"{self.function}({self.variable}) needs an attribute: "
                             f"{self.function}({self.variable}.attribute)")

    @property
    def aggregator(self) -> Aggregator:
        """The monoid of :mod:`cer_theory.core.aggregates` (an :class:`AggregateError` if unknown)."""
        return aggregator(self.function)


@dataclass(frozen=True)
class Query:
    """A CEQL query (the CORE paper §2, Fig. 1).

    * ``strategy``: ``"ALL"`` (default: no strategy), ``"ANY"``, ``"NEXT"``, ``"LAST"``, ``"MAX"``, ``"STRICT"``;
    * ``select``: the projected variables, ``None`` for ``*`` (no projection), ``()`` for ``SELECT NONE``;
    * ``streams``: the FROM streams (``()`` when FROM is omitted: the single input stream);
    * ``pattern``: the WHERE pattern as a CEL formula (Atom, In for AS, Filter, Seq, Contig, Disj, Plus, CPlus);
    * ``partition_by``: the PARTITION BY groups, e.g. ``(("name",), ("volume",))`` for ``[name], [volume]``;
    * ``within``: the window or None; ``consume``: ``"ANY"``, ``"PARTITION"``, ``"NONE"`` or None;
      ``limit``: LIMIT n or None;
    * ``aggregates``: the ``FUNCTION(var.attr) AS alias`` items of SELECT (:class:`AggregateItem`), in order;
    * ``having``: the HAVING condition over the aliases (a predicate on the event whose attributes are the
      aggregate values) or None.
    """

    pattern: Formula
    strategy: str = "ALL"
    select: tuple[str, ...] | None = None
    streams: tuple[str, ...] = ()
    partition_by: tuple[tuple[str, ...], ...] = ()
    within: Window | None = None
    consume: str | None = None
    limit: int | None = None
    aggregates: tuple[AggregateItem, ...] = ()
    having: Predicate | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.pattern, Formula):
            raise TypeError(f"the pattern is a CEL formula, got {self.pattern!r}")
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown selection strategy {self.strategy!r}; expected one of {STRATEGIES}")
        if self.consume is not None and self.consume not in CONSUME_POLICIES:
            raise ValueError(f"unknown CONSUME BY policy {self.consume!r}; expected one of {CONSUME_POLICIES}")
        if self.limit is not None and (isinstance(self.limit, bool) or not isinstance(self.limit, int)
                                       or self.limit < 0):
            raise ValueError(f"LIMIT is a non-negative integer, got {self.limit!r}")
        if self.within is not None and not isinstance(self.within, Window):
            raise TypeError(f"within is a Window, got {self.within!r}")
        object.__setattr__(self, "select", None if self.select is None else tuple(self.select))
        object.__setattr__(self, "streams", tuple(self.streams))
        object.__setattr__(self, "partition_by", tuple(tuple(g) for g in self.partition_by))
        if any(not g for g in self.partition_by):
            raise ValueError("a PARTITION BY group needs at least one attribute")
        object.__setattr__(self, "aggregates", tuple(self.aggregates))
        aliases = [a.alias for a in self.aggregates]
        if len(set(aliases)) != len(aliases):
            raise ValueError(f"aggregate aliases must differ, got {aliases}")
        if self.having is not None and not isinstance(self.having, Predicate):
            raise TypeError(f"having is a predicate, got {self.having!r}")

    @property
    def aggregated(self) -> bool:
        """Whether the query has aggregates or a HAVING clause (its outputs then carry aggregate values)."""
        return bool(self.aggregates) or self.having is not None

    def variables(self) -> frozenset[str]:
        """The variables the pattern can bind (event types and AS names)."""
        return variables(self.pattern)

    def to_cel(self, *, strategy: bool = False) -> Formula:
        """The CEL formula of the WHERE pattern with SELECT's projection: ``PI[vars](pattern)`` (``SELECT *``
        gives the pattern itself).

        With ``strategy=True`` a selection strategy is applied *after* the projection (the CORE paper §2 defers the
        strategies to the CEL paper §7.1) with the CEL paper's operator of the same name (NEXT is the CEL paper's NXT); ANY
        has no the CEL paper counterpart and raises :class:`UnsupportedError`. Windows, PARTITION BY, CONSUME BY
        and LIMIT are not CEL.
        """
        phi = self.pattern if self.select is None else Proj(self.pattern, self.select)
        if not strategy:
            return phi
        if self.strategy == "ANY":
            raise UnsupportedError("the ANY selection strategy has no the CEL paper (CEL) counterpart")
        meaning = ceql_strategy(self.strategy)
        return phi if meaning is None else Select(meaning, phi)

    def __str__(self) -> str:
        return format(self)


@dataclass(frozen=True)
class StreamDeclaration:
    """``CREATE STREAM name { EVENT T { attr:datatype, … }, … }``: the event types of a stream and their
    attributes with the *declared* datatypes, lower-cased (``"int"``, ``"double"``, ``"string"``, …; see
    :data:`DATATYPE_KINDS` and :meth:`kinds`)."""

    name: str
    events: dict[str, dict[str, str]] = field(default_factory=dict)

    def kinds(self) -> dict[str, dict[str, str | None]]:
        """The predicate kinds (``num``, ``str``, ``bool``) of the attributes; None for an unknown datatype."""
        return {t: {a: DATATYPE_KINDS.get(d) for a, d in attrs.items()} for t, attrs in self.events.items()}


@dataclass(frozen=True)
class QuarantinePolicy:
    """CORE's ``CREATE QUARANTINE { FIXED_TIME 2 seconds {S}, BOUNDED_TIME … {T}, DIRECT {U} }``: how long the
    events of the named streams may arrive late (``lateness`` in seconds; 0 for DIRECT: in order). See
    :mod:`cer_theory.formalisms.ceql.declarations` for how the engine honours it."""

    policy: str
    lateness: float
    streams: tuple[str, ...]


__all__ = ["AggregateItem", "Query", "StreamDeclaration", "QuarantinePolicy", "KEYWORDS", "STRATEGIES", "CONSUME_POLICIES", "STREAM_ATTRIBUTE",
           "DEFAULT_TIME_ATTRIBUTE", "DATATYPE_KINDS"]
