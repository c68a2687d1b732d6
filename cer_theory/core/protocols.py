"""The seam between formalisms and their users: one :class:`Formalism` record per language, one registry.

Every formalism of the seed papers has a denotational semantics (brute force, the reference) and one or more
evaluators that must agree with it (the compiled automaton, an engine). A formalism says so once, in its own
``formalism.py``, by calling :func:`register`; the CLI (``cer-theory eval --logic NAME --via …``), the
differential harness (:mod:`cer_theory.testing.harness`) and the registry tests read the records through
:func:`get` and :func:`names` and never list formalisms by hand.

The record lives in ``core`` and imports no formalism. Parts of a record that live in a *higher* layer (an engine
evaluator, hypothesis strategies in ``cer_theory.testing``) are named by a ``"module:attribute"`` reference and
imported on first use, as packaging entry points are: the formalism names its engine without importing it, so
dependencies still point one way and looking up a record stays cheap (docs/decisions.md, D53).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from cer_theory.core.errors import RegistryError
from cer_theory.core.events import Event, Stream

Outputs = Sequence[frozenset]
"""Per-position outputs ``[out_0, out_1, …]``: ``out_n`` is the set of outputs at position n (valuations,
complex events, interval complex events, … as the formalism defines them)."""

Ref = str
"""A ``"package.module:attribute"`` reference to a callable, imported on first use."""


def resolve(target: Ref | Callable[..., Any]) -> Callable[..., Any]:
    """The callable ``target`` names (a callable is returned as it is)."""
    if callable(target):
        return target
    module, sep, attribute = target.partition(":")
    if not sep or not module or not attribute:
        raise RegistryError(f"bad reference {target!r}: expected 'package.module:attribute'")
    obj: Any = importlib.import_module(module)
    for part in attribute.split("."):
        obj = getattr(obj, part)
    return obj


@runtime_checkable
class Automaton(Protocol):
    """What every automaton model offers its users: runs over a stream, per-position outputs, a drawing."""

    def run(self, stream: Sequence[Event]) -> Outputs: ...

    def to_dot(self, **options: Any) -> str: ...


@dataclass(frozen=True)
class Paper:
    """The seed paper a formalism comes from (``seed`` is its number in ``docs/``, e.g. ``"000"``)."""

    seed: str
    title: str

    def __str__(self) -> str:
        return f"seed {self.seed}, {self.title}"


@dataclass(frozen=True)
class Level:
    """One level at which a formalism's outputs are observed and compared, e.g. seed 000's valuations and, one
    level coarser, their complex events (``sup``).

    ``project`` maps an output of this level or any finer one to this level (the identity on its own outputs);
    ``sort_key`` and ``to_json`` fix how a position's outputs are printed, so every evaluator prints the same
    JSON line for the same set of outputs; ``from_json`` reads one back (an external engine's output).
    """

    name: str
    key: str
    project: Callable[[Any], Hashable]
    sort_key: Callable[[Any], Any]
    to_json: Callable[[Any], Any]
    from_json: Callable[[Any], Hashable] | None = None
    position: str = "n"
    """The JSON key of the position (seed 002's streaming outputs say ``k``)."""
    flat: bool = False
    """Print one JSON object per output (sorted by ``sort_key`` over the whole stream) instead of one per position:
    outputs that carry their own interval, as ACEL's complex events (seed 003) do."""

    def outputs(self, outputs: Outputs) -> list[frozenset]:
        """Every position's outputs seen at this level."""
        return [frozenset(self.project(x) for x in out) for out in outputs]

    def json_line(self, n: int, out: frozenset) -> dict[str, Any]:
        """The JSON object ``{"n": n, key: [...]}`` of position n (outputs sorted by ``sort_key``)."""
        return {self.position: n, self.key: [self.to_json(x) for x in sorted(out, key=self.sort_key)]}

    def json_lines(self, outputs: Outputs) -> list[dict[str, Any]]:
        """The JSON objects ``eval`` prints: :meth:`json_line` per position with outputs, or, for a ``flat`` level,
        one object per output, all sorted by ``sort_key``."""
        seen = self.outputs(outputs)
        if self.flat:
            return [self.to_json(x) for x in sorted(set().union(*seen), key=self.sort_key)]
        return [self.json_line(n, out) for n, out in enumerate(seen) if out]


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

    def __post_init__(self) -> None:
        if (self.run is None) == (self.compile is None):
            raise RegistryError(f"evaluator {self.name!r}: give exactly one of run= and compile=")

    def __call__(self, ast: Any, stream: Stream, **options: Any) -> Outputs:
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise RegistryError(f"evaluator {self.name!r} takes no option {', '.join(unknown)}")
        if self.compile is not None:
            return resolve(self.compile)(ast).run(stream)
        return resolve(self.run)(ast, stream, **options)  # type: ignore[arg-type]

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
class Formalism:
    """Everything a user of a formalism needs, with the paper it comes from.

    ``parse`` turns text into an AST (raising :class:`~cer_theory.core.errors.SyntaxErrorCER`), ``format`` an AST
    back into text that parses to the same AST; ``semantics`` is the reference denotational semantics and
    ``compile`` the paper's translation of an AST into its automaton model (when it has one). The
    ``evaluators`` always include ``"semantics"``; ``default`` is the one ``cer-theory eval`` uses when no
    ``--via`` is given. ``levels`` are the output levels, finest first; the last one (complex events) is printed
    unless a finer one is asked for.
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

    def __post_init__(self) -> None:
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

    def automaton(self, ast: Any) -> Automaton:
        """The automaton of ``ast`` by the paper's compilation."""
        if self.compile is None:
            raise RegistryError(f"{self.name} has no automaton model")
        return resolve(self.compile)(ast)

    def formulas(self) -> Any:
        return resolve(self.strategies.formulas)()

    def streams(self) -> Any:
        return resolve(self.strategies.streams)()

    def printable(self) -> Any:
        return resolve(self.strategies.printable or self.strategies.formulas)()

    def __repr__(self) -> str:
        return f"Formalism({self.name!r}, {self.paper}, evaluators={list(self.evaluators)})"


# ---------------------------------------------------------------------------------------------- the registry

KNOWN: Mapping[str, str] = MappingProxyType({
    "cel": "cer_theory.formalisms.cel.formalism",
    "ceql": "cer_theory.formalisms.ceql.formalism",
    "socel": "cer_theory.formalisms.socel.formalism",
    "focel": "cer_theory.formalisms.socel.formalism",
    "sremo": "cer_theory.formalisms.sremo.formalism",
    "acel": "cer_theory.formalisms.acel.formalism",
    "rpr": "cer_theory.formalisms.rpr.formalism",
})
"""The one table of formalism modules: each registers its record when imported. A module that does not exist
in this checkout (a formalism still being written) is skipped by :func:`names`."""

_REGISTRY: dict[str, Formalism] = {}


def register(formalism: Formalism) -> Formalism:
    """Add ``formalism`` to the registry (re-registering the same name replaces it: a module reload)."""
    _REGISTRY[formalism.name] = formalism
    return formalism


def _load(name: str) -> bool:
    """Import the module of a known formalism; False when that module is absent from this checkout."""
    module = KNOWN[name]
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        # only the formalism's own module (or its package) missing means "not here"; any other missing
        # import is a real error and propagates
        if exc.name is not None and module.startswith(exc.name):
            return False
        raise
    return True


def names() -> list[str]:
    """The names of every available formalism, in the table's order (loading their modules)."""
    for name in KNOWN:
        if name not in _REGISTRY:
            _load(name)
    return [n for n in KNOWN if n in _REGISTRY] + sorted(n for n in _REGISTRY if n not in KNOWN)


def get(name: str) -> Formalism:
    """The record of formalism ``name``; :class:`RegistryError` listing the available ones otherwise."""
    if name not in _REGISTRY and name in KNOWN:
        _load(name)
    if name not in _REGISTRY:
        raise RegistryError(f"unknown logic {name!r}; choose one of {', '.join(names())}")
    return _REGISTRY[name]


def records() -> Iterator[Formalism]:
    """Every available record, in the order of :func:`names`."""
    return (get(n) for n in names())


__all__ = ["Automaton", "Evaluator", "Formalism", "KNOWN", "Level", "Outputs", "Paper", "Ref", "RegistryError",
           "Strategies", "get", "names", "records", "register", "resolve"]
