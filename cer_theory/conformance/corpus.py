"""Corpus mode: queries from files, with generated streams that fit their declarations.

The layout is the one of CORE's experiment queries: a directory holds one CEQL query per file (``*.txt`` or
``*.ceql``, anywhere below it), and the stream declarations (``CREATE STREAM``, in ``*.core`` files) sit beside the
query files or in a directory above them, the nearest one winning. For each query, streams are drawn with a seeded
:class:`random.Random`: every event of a declared type carries every declared attribute, a string mostly one of the
constants the query compares that attribute with, a number one of those constants or a neighbour (±1, ±0.5), so filters hold often; an attribute a
``WITHIN n [attr]`` window reads, and ``time`` under a duration, grow along the stream in steps of 0, n/4, n/2, n and
n + 1, so window edges occur.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from cer_theory.core.errors import CerError
from cer_theory.core.events import Event
from cer_theory.core.predicates.ast import Attr, Cmp, Const, InSet, On, Predicate
from cer_theory.formalisms.cel.ast import Filter
from cer_theory.formalisms.ceql.ast import Query, StreamDeclaration
from cer_theory.formalisms.ceql.lexicon import DEFAULT_TIME_ATTRIBUTE
from cer_theory.formalisms.ceql.parser import parse, parse_declarations
from cer_theory.formalisms.ceql.semantics import evaluate
from cer_theory.conformance.protocol import Case, ConformanceError, read_text

QUERY_SUFFIXES = (".txt", ".ceql")
DECLARATION_SUFFIX = ".core"


@dataclass(frozen=True)
class Skipped:
    """A corpus file that gave no case, and why (our parser rejects it, no declarations were found, …)."""

    path: str
    reason: str


def _constants(p: Predicate, out: dict[str, list]) -> None:
    if isinstance(p, Cmp):
        for a, b in ((p.left, p.right), (p.right, p.left)):
            if isinstance(a, Attr) and isinstance(b, Const):
                out.setdefault(a.name, []).append(b.value)
    elif isinstance(p, InSet):
        out.setdefault(p.term.name, []).extend(c.value for c in p.values)
    for child in (p.body,) if isinstance(p, On) else p.children():
        _constants(child, out)


def query_constants(query: Query) -> dict[str, list]:
    """Attribute name → the constants the query's filters compare it with."""
    out: dict[str, list] = {}
    for phi in query.pattern.walk():
        if isinstance(phi, Filter):
            _constants(phi.condition, out)
    return out


def _pool(kind: str, seen: list) -> list:
    if kind == "string":
        return [v for v in seen if isinstance(v, str)] + ["a", "b"]
    numbers = [v for v in seen if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if kind in ("int", "integer", "long", "primary_time"):
        near = [int(v) + d for v in numbers for d in (-1, 0, 1)]
        return near + [0, 1, 2, 3]
    if kind in ("double", "float"):
        return [round(v + d, 2) for v in numbers for d in (-0.5, 0, 0.5)] + [0.0, 1.5]
    return [True, False]


def corpus_streams(query: Query, declarations: tuple[StreamDeclaration, ...], count: int, *, seed: int,
                   length: tuple[int, int] = (5, 12)) -> list[list[Event]]:
    """``count`` streams fitting ``declarations`` for ``query`` (the module docstring). Streams stay short: the
    reference is brute force, and on a stream of n events of one type a sequence of k variables has C(n, k)
    valuations before its filter, so CORE's long sequences (k up to 25) are checked for false positives only."""
    rng = random.Random(seed)
    types = {t: attrs for d in declarations for t, attrs in d.events.items()}
    constants = query_constants(query)
    clocks: dict[str, float] = {}
    if query.within is not None and query.within.kind != "events":
        clocks[query.within.attribute or DEFAULT_TIME_ATTRIBUTE] = query.within.size
    names = sorted(types)
    streams = []
    for _ in range(count):
        now = {a: 0 for a in clocks}
        events = []
        for _ in range(rng.randint(*length)):
            etype = rng.choice(names)
            values: dict = {}
            for a, kind in types[etype].items():
                if a in now:
                    size = clocks[a]
                    now[a] += rng.choice([0, 0, size / 4, size / 4, size / 2, size, size + 1])
                    values[a] = int(now[a]) if kind.lower() != "double" else float(now[a])
                else:
                    exact = [v for v in constants.get(a, []) if isinstance(v, str)] if kind.lower() == "string" else []
                    # strings: mostly a constant the query names; numbers: one near a constant (either side of
                    # a comparison) or a default
                    values[a] = rng.choice(exact) if exact and rng.random() < 0.6 else \
                        rng.choice(_pool(kind.lower(), constants.get(a, [])))
            if DEFAULT_TIME_ATTRIBUTE in now:  # durations read `time`, in seconds (the protocol)
                values.setdefault(DEFAULT_TIME_ATTRIBUTE, int(now[DEFAULT_TIME_ATTRIBUTE]))
            events.append(Event(etype, values))
        streams.append(events)
    return streams


def _declarations_for(path: Path, root: Path) -> Path | None:
    for folder in [path.parent, *path.parent.parents]:
        found = sorted(folder.glob(f"*{DECLARATION_SUFFIX}"))
        if found:
            return found[0]
        if folder == root:
            return None
    return None


def corpus_cases(root: str | Path, *, per_query: int, seed: int = 0) -> tuple[list[Case], list[Skipped]]:
    """The cases of a corpus directory: ``per_query`` streams per query file, and the files skipped."""
    root = Path(root)
    if not root.is_dir():
        raise ConformanceError(f"--corpus {root}: not a directory")
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in QUERY_SUFFIXES)
    if not files:
        raise ConformanceError(f"--corpus {root}: no query files ({', '.join(QUERY_SUFFIXES)}) below it")
    cases: list[Case] = []
    skipped: list[Skipped] = []
    for k, path in enumerate(files):
        rel = str(path.relative_to(root))
        decl_path = _declarations_for(path, root)
        if decl_path is None:
            skipped.append(Skipped(rel, f"no {DECLARATION_SUFFIX} declarations beside it or above it"))
            continue
        # a file that is not text is bad input (exit 2), not a query our parser rejects (a skip)
        declaration_text, text = read_text(decl_path, "--corpus"), read_text(path, "--corpus").strip()
        try:
            declarations = tuple(parse_declarations(declaration_text))
            query = parse(text)
        except CerError as exc:
            skipped.append(Skipped(rel, f"{type(exc).__name__}: {str(exc).splitlines()[0]}"))
            continue
        streams = corpus_streams(query, declarations, per_query, seed=seed * 100_003 + k)
        try:
            for events in streams:  # the reference must read every stream (e.g. a window's attribute)
                evaluate(query, events)
        except CerError as exc:
            skipped.append(Skipped(rel, f"the reference cannot evaluate it: {str(exc).splitlines()[0]}"))
            continue
        for n, events in enumerate(streams):
            # the engine gets the query as our printer writes it: the dialect readings of the grammar (e.g.
            # core-precedence) are stated on that canonical text, where redundant parentheses are gone
            cases.append(Case(declarations, str(query), tuple(events), f"{rel} case {n}", query))
    return cases, skipped


__all__ = ["Skipped", "corpus_cases", "corpus_streams", "query_constants"]
