"""The seam between formalisms and their users: one :class:`Formalism` record per language, one registry.

Every formalism of the papers has a denotational semantics (brute force, the reference), one or more
evaluators that must agree with it (the compiled automaton, an engine) and the paper's constructions
(equivalence, determinization, the *-property, the way back from automata to formulas, …). A formalism says so
once, in its own ``formalism.py``, and declares the record as a packaging entry point of the group
``cer_theory.formalisms`` (``pyproject.toml``). Every command of the command line (``cer-theory eval --logic NAME
--via …``, ``equiv``, ``determinize``, …), the differential harness (:mod:`cer_theory.testing.harness`) and the
registry tests read the records through :func:`get` and :func:`names` and never list formalisms by hand; the
kernel holds no list of them either (docs/decisions.md, D180).

The record lives in ``core`` and imports no formalism. Parts of a record that live in a *higher* layer (an engine
evaluator, hypothesis strategies in ``cer_theory.testing``) or that are costly to import (a construction) are
named by a ``"module:attribute"`` reference and imported on first use, as entry points are: the formalism names
its engine without importing it, so dependencies still point one way and looking up a record stays cheap
(docs/decisions.md, D53).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from cer_theory.core.contract import Observed, OutputSet, envelope
from cer_theory.core.errors import RegistryError, UnsupportedError
from cer_theory.core.events import Event, Stream
from cer_theory.core.lazy import Ref, resolve

Outputs = Sequence[frozenset[Any]]
"""Per-position outputs ``[out_0, out_1, …]``: ``out_n`` is the set of outputs at position n (valuations,
complex events, interval complex events, … as the formalism defines them)."""

ENTRY_POINTS = "cer_theory.formalisms"
"""The entry-point group under which a distribution declares its formalism records (``name = "module:RECORD"``)."""


SHORT_NAMES: Mapping[str, str] = MappingProxyType({"000": "CEL", "001": "CORE", "002": "SRT", "003": "ACEL",
                                                  "004": "SO-CEL"})
"""The papers' short names (docs/papers.md), by the number a record's :class:`Paper` keeps for ordering."""


@runtime_checkable
class Automaton(Protocol):
    """What every automaton model offers its users: runs over a stream, per-position outputs, a drawing."""

    def run(self, stream: Sequence[Event]) -> Outputs: ...

    def to_dot(self, **options: Any) -> str: ...


@dataclass(frozen=True)
class Paper:
    """The paper a formalism comes from (``seed`` is its number in ``docs/``, e.g. ``"000"``)."""

    seed: str
    title: str

    def __str__(self) -> str:
        short = SHORT_NAMES.get(self.seed)
        return f"the {short} paper, {self.title}" if short else self.title


@dataclass(frozen=True)
class Level:
    """One level at which a formalism's outputs are observed and compared, e.g. the CEL paper's valuations and, one
    level coarser, their complex events (``sup``).

    ``project`` maps an output of this level or any finer one to this level (the identity on its own outputs);
    ``sort_key`` (the level's canonical order, numeric, never the order of JSON text) and ``to_json`` fix how a
    position's outputs are printed, so every evaluator prints the same JSON line for the same set of outputs;
    ``from_json`` reads one back (an external engine's output). ``key`` is the ``kind`` of the output contract's
    lines (:mod:`cer_theory.core.contract`) and ``schema`` the package file whose ``$defs[key]`` is the JSON Schema
    of one output (e.g. ``"formalisms/cel/output.schema.json"``).
    """

    name: str
    key: str
    project: Callable[[Any], Hashable]
    sort_key: Callable[[Any], Any]
    to_json: Callable[[Any], Any]
    from_json: Callable[[Any], Hashable] | None = None
    schema: str | None = None

    def outputs(self, outputs: Outputs) -> Observed:
        """Every position's outputs seen at this level (sets whose ``repr`` is sorted)."""
        return Observed(self, (OutputSet((self.project(x) for x in out), self.sort_key) for out in outputs))

    def json_line(self, n: int, out: frozenset[Any]) -> dict[str, Any]:
        """The line of position n in the output contract: ``{"position": n, "kind": key, "outputs": [...]}``."""
        return envelope(self, n, out)

    def json_lines(self, outputs: Outputs) -> list[dict[str, Any]]:
        """The JSON objects ``eval`` prints: :meth:`json_line` per position with outputs."""
        return self.outputs(outputs).json_lines()


@dataclass(frozen=True)
class Evaluator:
    """One way of computing a formalism's outputs at every position of a stream.

    Either ``run(ast, stream)`` gives the outputs directly, or ``compile(ast)`` builds an :class:`Automaton`
    whose ``run(stream)`` gives them. ``level`` names the finest :class:`Level` it produces (an engine that
    builds complex events only cannot print valuations). ``accepts``, when given, says which ASTs it handles
    (a fragment); the harness compares it with the semantics only on those.
    """

    name: str
    description: str
    level: str
    run: Ref | Callable[[Any, Stream], Outputs] | None = None
    compile: Ref | Callable[[Any], Automaton] | None = None
    accepts: Ref | Callable[[Any], bool] | None = None
    options: tuple[str, ...] = ()
    """Keyword options ``run`` accepts besides (ast, stream), e.g. ACEL's ``bind`` (``eval --bind``)."""
    iterate: Ref | Callable[[Any, Iterable[Event]], Iterator[tuple[int, frozenset[Any]]]] | None = None
    """The same outputs read as a stream, when the evaluator is a streaming one: ``iterate(ast, events)`` takes the
    events one at a time and yields ``(n, out_n)`` for each position n with outputs as soon as they are known, so
    ``eval`` prints in memory bounded by the evaluator's state rather than by the stream (D183)."""

    def __post_init__(self) -> None:
        if (self.run is None) == (self.compile is None):
            raise RegistryError(f"evaluator {self.name!r}: give exactly one of run= and compile=")

    def __call__(self, ast: Any, stream: Stream, **options: Any) -> Outputs:
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise RegistryError(f"evaluator {self.name!r} takes no option {', '.join(unknown)}")
        # resolve() gives Any (a reference is a string until now): the typed locals say what the record promises.
        if self.compile is not None:
            automaton: Automaton = resolve(self.compile)(ast)
            return automaton.run(stream)
        assert self.run is not None  # (__post_init__: exactly one of run= and compile=)
        run: Callable[..., Outputs] = resolve(self.run)
        return run(ast, stream, **options)

    def stream(self, ast: Any, events: Iterable[Event], **options: Any) -> Iterator[tuple[int, frozenset[Any]]]:
        """``(n, out_n)`` for each position with outputs, in order: by ``iterate`` as the events arrive, else from
        the whole stream at once."""
        if self.iterate is not None and not options:
            iterate: Callable[[Any, Iterable[Event]], Iterator[tuple[int, frozenset[Any]]]] = resolve(self.iterate)
            return iterate(ast, events)
        outputs = self(ast, Stream(events), **options)
        return ((n, out) for n, out in enumerate(outputs) if out)

    def handles(self, ast: Any) -> bool:
        """Whether ``ast`` is in the fragment this evaluator handles."""
        return self.accepts is None or bool(resolve(self.accepts)(ast))


@dataclass(frozen=True)
class Strategies:
    """Hypothesis strategies (as references: ``cer_theory.testing`` is a higher layer): ``formulas`` and
    ``streams`` are zero-argument callables whose strategies give (formula, stream) pairs worth evaluating;
    ``printable`` gives ASTs for the print/parse round trip (defaults to ``formulas``)."""

    formulas: Ref | Callable[[], Any]
    streams: Ref | Callable[[], Any]
    printable: Ref | Callable[[], Any] | None = None


@dataclass(frozen=True)
class Unsupported:
    """A construction a formalism does not have, with the reason a user is given (why the paper's model has no
    such procedure, or which fragment lacks it)."""

    reason: str


CONSTRUCTIONS: Mapping[str, str] = MappingProxyType({
    "equivalent": "(text1, text2, *, level, budget[, schema]) → a verdict: ⟦φ1⟧ = ⟦φ2⟧, else a shortest "
                  "distinguishing stream",
    "contained": "(text1, text2, *, level, budget[, schema]) → a verdict: ⟦φ1⟧ ⊆ ⟦φ2⟧",
    "determinize": "(ast, *, budget, …) → Built: the automaton and its deterministic equivalent",
    "complement": "(ast, *, budget, …) → Built: a deterministic automaton and its complement",
    "normal-form": "(ast, *, budget) → Built: the automaton the streaming algorithm runs",
    "star-property": "(ast, *, budget) → Built: whether outputs equal outputs under the *-semantics",
    "to-formula": "(automaton, relations, *, budget, …) → an AST: an automaton of the model back to a formula",
    "rewrite": "(kind, ast) → (title, ast): the paper's formula rewrites; REWRITES names the kinds",
    "cces": "(automaton) → an evaluator with process(event), stats and to_dot(): Algorithm 2 over the CCES",
    "step": "(ast, stream, *, structure, …) → the run of the formula's automaton position by position (a stepper "
            "Run: frames of active states, partial outputs and outputs)",
})
"""The constructions a record declares, each as a callable (or reference) or :class:`Unsupported` with the reason;
the value says the shape of the call. A command reads the construction of ``--logic``'s record, so a refusal
names that formalism and its reason (docs/decisions.md, D181)."""


@dataclass(frozen=True)
class Stage:
    """One automaton a construction built: ``title`` and a one-line ``summary`` (sizes, determinism) for a reader;
    ``summary`` is a function, as a check such as Def. 5.4's I/O-determinism may cost solver calls."""

    title: str
    automaton: Any
    summary: Callable[[], str]
    caption: str | None = None
    """The drawing's caption (default: ``title``)."""


@dataclass(frozen=True)
class Built:
    """What a construction returns for a reader: an optional ``heading``, then its ``stages`` in order; the last
    stage is the result (the one a command draws and describes)."""

    stages: tuple[Stage, ...]
    heading: str | None = None

    @property
    def result(self) -> Stage:
        return self.stages[-1]


@dataclass(frozen=True)
class Formalism:
    """Everything a user of a formalism needs, with the paper it comes from.

    ``parse`` turns text into an AST (raising :class:`~cer_theory.core.errors.SyntaxErrorCER`), ``format`` an AST
    back into text that parses to the same AST; ``semantics`` is the reference denotational semantics and
    ``compile`` the paper's translation of an AST into its automaton model (when it has one). The
    ``evaluators`` always include ``"semantics"``; ``default`` is the one ``cer-theory eval`` uses when no
    ``--via`` is given. ``levels`` are the output levels, finest first; the last one (complex events) is printed
    unless a finer one is asked for.

    ``constructions`` maps every name of :data:`CONSTRUCTIONS` to its callable (or reference) or to
    :class:`Unsupported` with the reason (``step``, the run position by position, among them).
    """

    name: str
    paper: Paper
    summary: str
    parse: Callable[[str], Any]
    format: Callable[[Any], str]
    semantics: Callable[[Any, Stream], Outputs]
    compile: Ref | Callable[[Any], Automaton] | None
    evaluators: Mapping[str, Evaluator]
    default: str
    levels: tuple[Level, ...]
    strategies: Strategies
    constructions: Mapping[str, Ref | Callable[..., Any] | Unsupported] = field(default_factory=dict)
    automaton_files: Mapping[str, Ref] = field(default_factory=dict)
    compile_for_stream: Ref | Callable[[Any, Stream], Automaton] | None = None
    """When the automaton depends on the stream (ACEL's ACEA is built for the stream's schema, the ACEL paper Thm
    6.2): ``(ast, stream) → automaton``; ``draw --stream`` uses it. None: ``compile`` serves every stream."""
    """The automaton models this formalism reads from a file (docs/automaton-files.md), by the file's ``kind``:
    ``reader(data, *, source)`` builds the automaton from the JSON object (``cer_theory.automata.files``)."""

    def __post_init__(self) -> None:
        missing = sorted(set(CONSTRUCTIONS) - set(self.constructions))
        unknown = sorted(set(self.constructions) - set(CONSTRUCTIONS))
        if missing or unknown:
            raise RegistryError(f"formalism {self.name!r}: declare every construction, or Unsupported with the "
                                f"reason (missing: {', '.join(missing) or 'none'}; unknown: "
                                f"{', '.join(unknown) or 'none'})")
        object.__setattr__(self, "constructions", MappingProxyType(dict(self.constructions)))
        if "semantics" not in self.evaluators:
            raise RegistryError(f"formalism {self.name!r}: its evaluators must include 'semantics'")
        if self.default not in self.evaluators:
            raise RegistryError(f"formalism {self.name!r}: default evaluator {self.default!r} is not one of "
                                f"{', '.join(self.evaluators)}")
        level_names = [lv.name for lv in self.levels]
        for ev in self.evaluators.values():
            if ev.level not in level_names:
                raise RegistryError(f"formalism {self.name!r}: evaluator {ev.name!r} outputs {ev.level!r}, not one "
                                    f"of the levels {', '.join(level_names)}")
        object.__setattr__(self, "evaluators", MappingProxyType(dict(self.evaluators)))

    def evaluator(self, name: str) -> Evaluator:
        """The evaluator called ``name``; :class:`RegistryError` listing the choices otherwise."""
        try:
            return self.evaluators[name]
        except KeyError:
            raise RegistryError(f"{self.name} has no evaluator {name!r}; choose one of "
                                f"{', '.join(self.evaluators)}") from None

    def level(self, name: str) -> Level:
        for lv in self.levels:
            if lv.name == name:
                return lv
        raise RegistryError(f"{self.name} has no output level {name!r}; its levels are "
                            f"{', '.join(lv.name for lv in self.levels)}")

    def coarser(self, a: str, b: str) -> Level:
        """The coarser of two levels: the one at which outputs of both can be compared."""
        order = [lv.name for lv in self.levels]
        return self.levels[max(order.index(a), order.index(b))]

    def supports(self, construction: str) -> bool:
        """Whether the record declares ``construction`` (a name of :data:`CONSTRUCTIONS`) as available."""
        return not isinstance(self.constructions[construction], Unsupported)

    def construction(self, name: str) -> Callable[..., Any]:
        """The callable of construction ``name``; :class:`UnsupportedError` with the record's reason otherwise."""
        if name not in CONSTRUCTIONS:
            raise RegistryError(f"no construction {name!r}; the constructions are {', '.join(CONSTRUCTIONS)}")
        target = self.constructions[name]
        if isinstance(target, Unsupported):
            others = [r.name for r in records() if r.supports(name)]
            raise UnsupportedError(f"--logic {self.name}: {name} is not available for this formalism: "
                                   f"{target.reason} (available for: {', '.join(others) or 'none'})")
        construct: Callable[..., Any] = resolve(target)
        return construct

    def automaton(self, ast: Any) -> Automaton:
        """The automaton of ``ast`` by the paper's compilation."""
        if self.compile is None:
            raise RegistryError(f"{self.name} has no automaton model")
        automaton: Automaton = resolve(self.compile)(ast)
        return automaton

    def automaton_for(self, ast: Any, stream: Stream) -> Automaton:
        """The automaton of ``ast`` for ``stream``: :attr:`compile_for_stream` when the model depends on the
        stream, else :meth:`automaton`."""
        if self.compile_for_stream is None:
            return self.automaton(ast)
        automaton: Automaton = resolve(self.compile_for_stream)(ast, stream)
        return automaton

    def formulas(self) -> Any:
        return resolve(self.strategies.formulas)()

    def streams(self) -> Any:
        return resolve(self.strategies.streams)()

    def printable(self) -> Any:
        return resolve(self.strategies.printable or self.strategies.formulas)()

    def __repr__(self) -> str:
        return f"Formalism({self.name!r}, {self.paper}, evaluators={list(self.evaluators)})"


# ---------------------------------------------------------------------------------------------- the registry

_REGISTRY: dict[str, Formalism] = {}


@cache
def _declared() -> Mapping[str, Any]:
    """The entry points of :data:`ENTRY_POINTS` of every installed distribution, by name (read once)."""
    from importlib.metadata import entry_points  # (here: its import costs start-up time of commands without it)

    return MappingProxyType({ep.name: ep for ep in entry_points(group=ENTRY_POINTS)})


def declared_names() -> tuple[str, ...]:
    """The names of the formalisms declared as entry points, without loading their records."""
    return tuple(_declared())


def register(formalism: Formalism) -> Formalism:
    """Add ``formalism`` to the registry at run time (a notebook's experiment; re-registering a name replaces
    it). Distributions declare theirs as entry points instead, found without being listed."""
    _REGISTRY[formalism.name] = formalism
    return formalism


def _load(name: str) -> None:
    """Load the record entry point ``name`` declares; a module that fails to import is an error, never a
    formalism silently missing."""
    record = _declared()[name].load()
    if not isinstance(record, Formalism) or record.name != name:
        raise RegistryError(f"entry point {name!r} of {ENTRY_POINTS} names {record!r}, not the Formalism record "
                            f"called {name!r}")
    _REGISTRY.setdefault(name, record)


def names() -> list[str]:
    """The names of every available formalism (loading their records), by paper and then as declared."""
    order = {name: k for k, name in enumerate(_declared())}
    for name in order:
        if name not in _REGISTRY:
            _load(name)
    return sorted(_REGISTRY, key=lambda n: (_REGISTRY[n].paper.seed, order.get(n, len(order)), n))


def get(name: str) -> Formalism:
    """The record of formalism ``name``; :class:`RegistryError` listing the available ones otherwise."""
    if name not in _REGISTRY and name in _declared():
        _load(name)
    if name not in _REGISTRY:
        raise RegistryError(f"unknown logic {name!r}; choose one of {', '.join(names())}")
    return _REGISTRY[name]


def records() -> Iterator[Formalism]:
    """Every available record, in the order of :func:`names`."""
    return (get(n) for n in names())


__all__ = ["Automaton", "Built", "CONSTRUCTIONS", "ENTRY_POINTS", "Evaluator", "Formalism", "Level", "Outputs",
           "Paper", "Ref", "RegistryError", "Stage", "Strategies", "Unsupported", "get", "names", "records",
           "register", "resolve"]
