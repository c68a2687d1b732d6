"""The compiled hot loop against the readable one (docs/decisions.md D420–D424): the typed tECS and evaluator of
``cer_theory/engines/core/{tecs,evaluator}_compiled.pyx`` give the complex events the readable
:class:`~cer_theory.engines.core.tecs.Tecs` and :class:`~cer_theory.engines.core.evaluator.Evaluator` give, in the
same order, with the same tECS (node for node), the same table T and the same counts — on generated CEAs, windows
and streams event by event (compaction at every step, LIMIT, output in chunks), and through the engine on
generated CEQL queries and streams on every input path. Skipped where the compiled modules were not built (no C
compiler or no Cython at install time); in CI, where ``make test`` builds them, their absence fails."""

from __future__ import annotations

import json
import math
import os
import shutil
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import require

from cer_theory.automata.determinize.bitmask import Determinizer
from cer_theory.core.errors import CerError
from cer_theory.core.events import Event
from cer_theory.core.windows import Window
from cer_theory.engines.core import Engine, Evaluator
from cer_theory.engines.core import compiled
from cer_theory.engines.core.matches import Match
from cer_theory.engines.core.tecs import Tecs
from cer_theory.formalisms.ceql.ast import Query
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.streams.batch import DictRows
from cer_theory.streams.convert import clean_columns as readable_clean_columns
from cer_theory.testing.batches import process_in_batches
from cer_theory.testing.outcomes import outcome
from cer_theory.testing.strategies import ceql
from cer_theory.testing.strategies.automata import random_ceas
from proofs_tests.engines.test_columnar import _sparse_batches, _uniform_batches
from proofs_tests.engines.test_engine import BOOKKEEPING, arrow_table, queries, timed_streams


def require_compiled() -> None:
    """The compiled modules, where the install could build them: skipped on a machine without a C compiler (the
    readable loop is then the engine, as promised), required in CI on a machine with one."""
    if not compiled.compiled_available() and not any(shutil.which(c) for c in (os.environ.get("CC", "cc"), "gcc")):
        pytest.skip("no C compiler here: the install cannot build the compiled hot loop (the readable loop runs)")
    require(compiled.compiled_available(), "the compiled hot loop (built by `pip install -e .` where a C compiler is found)")


@contextmanager
def pure(on: bool) -> Iterator[None]:
    """``CER_THEORY_PURE`` set to force the readable loop (``on``) or cleared, restored afterwards."""
    before = os.environ.get(compiled.PURE_VARIABLE)
    os.environ[compiled.PURE_VARIABLE] = "1" if on else "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ[compiled.PURE_VARIABLE]
        else:
            os.environ[compiled.PURE_VARIABLE] = before


def arrays(tecs: object) -> tuple:
    """A tECS node for node: its first id and its four arrays (the compiled one's read through its Python view)."""
    return (tecs.base, tecs.next_id,  # type: ignore[attr-defined]
            *(list(getattr(tecs, name)) for name in ("pos", "nxt", "rgt", "mx")))


def state(ev: Evaluator) -> tuple:
    """What an evaluator holds between events: T, τ, position and key, the tECS, the window's bottom nodes, the
    counts."""
    return (list(ev.table.items()), ev.tau, ev.position, ev.last_key, arrays(ev.tecs), list(ev._bottoms), ev.stats)


# ---------------------------------------------------------------------------------------------- the tECS

OPERATIONS = st.one_of(st.tuples(st.just("bottom")), st.tuples(st.just("extend"), st.integers(0, 99)),
                       st.tuples(st.just("union"), st.integers(0, 99), st.integers(0, 99)),
                       st.tuples(st.just("merge"), st.integers(0, 99), st.integers(1, 3)),
                       st.tuples(st.just("expire"), st.integers(0, 3)))


@settings(max_examples=1000, deadline=None)
@given(st.lists(OPERATIONS, max_size=80), st.integers(-1, 4), st.integers(1, 3))
def test_the_compiled_tecs_is_the_readable_one_node_for_node(ops, limit, step):
    """Random sequences of the CORE paper's tECS operations (§4.2: new_bottom, extend, union of Fig. 5 (a)–(d) on
    safe nodes of equal max, merge of a union-list; §4.4: a window moving τ and compaction below it, so that unions
    meet dropped right children) on the readable tECS, its preconditions checked (debug mode), and on the compiled one: the same nodes
    after every operation, and Algorithm 2 from every live node gives the same CEs in the same order, in full,
    up to a LIMIT, and resumed ``step`` at a time."""
    require_compiled()
    from cer_theory.engines.core.tecs_compiled import CTecs

    readable, fast = Tecs(debug=True), CTecs()
    live: list[int] = []  # safe nodes with max ≥ τ (the same ids in both)
    bottoms: list[int] = []
    tau, position = 0, 0
    for op in ops:
        if op[0] == "bottom" or not live:
            made = {readable.new_bottom(position), fast.new_bottom(position)}
            bottoms.append(min(made))
        elif op[0] == "extend":
            n = live[op[1] % len(live)]
            made = {readable.extend(n, position), fast.extend(n, position)}
        elif op[0] == "union":  # (half the time two union nodes, the cases (c) and (d) of Fig. 5)
            unions = [n for n in live if readable.kind(n) == "union"]
            pool = unions if op[1] % 2 and len(unions) > 1 else live
            n1 = pool[op[1] % len(pool)]
            same = [n for n in pool if n != n1 and readable.max_id(n) == readable.max_id(n1)]
            if not same:
                continue
            n2 = same[op[2] % len(same)]
            made = {readable.union(n1, n2), fast.union(n1, n2)}
        elif op[0] == "merge":  # a union-list: a non-union head, then safe entries of strictly decreasing max
            heads = [n for n in live if readable.kind(n) != "union"]
            if not heads:
                continue
            ul = [heads[op[1] % len(heads)]]
            for n in sorted(live, key=readable.max_id, reverse=True):
                if len(ul) <= op[2] and readable.max_id(n) < readable.max_id(ul[-1]):
                    ul.append(n)
            readable.check_ulist(ul)
            made = {readable.merge(ul), fast.merge(list(ul))}
        else:
            later = [b for b in bottoms if b > tau]
            if not later:
                continue
            tau = later[min(op[1], len(later) - 1)]
            assert fast.compact(tau) == readable.compact(tau)
            live = [n for n in live if n >= readable.base and readable.max_id(n) >= tau]
            assert arrays(fast) == arrays(readable), ops
            continue
        assert len(made) == 1, ops  # the same id
        live.extend(made)
        position += 1
        assert arrays(fast) == arrays(readable), ops
    for n in live:
        want: list = []
        readable.enumerate_into(n, position, tau, want)
        assert list(fast.enumerate(n, position, tau)) == want, (ops, n)
        for t in (readable, fast):
            got: list = []
            t.enumerate_into(n, position, tau, got, limit)
            assert got == (want if limit < 0 else want[:limit]), (ops, n, type(t).__name__)
            resumed: list = []
            dfs: tuple[list[int], list[int]] = ([n, 0], [])
            while dfs[0] and t.enumerate_into(n, position, tau, resumed, step, dfs):
                pass
            assert resumed == want, (ops, n, type(t).__name__)


# ---------------------------------------------------------------------------------------------- the evaluator


def positions_and_keys(stream: list[Event]) -> list[tuple[int, int]]:
    return [(j, e.get("ts")) for j, e in enumerate(stream)]


class Spent:
    """Which det-states are made of sinks, as ``Inertness.spent`` answers (here: those whose id is ``parity`` mod 2,
    or none)."""

    def __init__(self, parity: int | None) -> None:
        self.parity = parity

    def __getitem__(self, p: int) -> bool:
        return self.parity is not None and p % 2 == self.parity


def run(ev: Evaluator, stream: list[Event], det: Determinizer) -> list:
    """Each event read at its position with its bit vector and window key; a position's CEs read in full (an
    :class:`Outputs` chunk by chunk) before the next event, as the engine's sinks read them; then what
    ``keeps_after_inert`` answers for inert events up to a few later keys (D451)."""
    got = []
    for j, e in enumerate(stream):
        timed = ev.window is not None and ev.window.kind == "time"
        out = ev.process(e, j, mask=det.mask(e), key=e.get("ts") if timed else None)
        got.append([list(chunk) for chunk in out.chunks()] if hasattr(out, "chunks") else list(out))
        got.append(state(ev))
        now = e.get("ts") if timed else j
        got.append([ev.keeps_after_inert(now + later, Spent(parity)) for later in (0, 1, 3, 6)
                    for parity in (None, 0, 1)])
    return got


windows = st.one_of(st.none(), st.builds(Window, st.just("events"), st.integers(0, 5), st.none(), st.booleans()),
                    st.builds(Window, st.just("time"), st.integers(0, 5), st.just("ts"), st.booleans()))


@settings(max_examples=300, deadline=None)
@given(random_ceas(max_states=4), timed_streams(max_length=14), windows, st.sampled_from([0, 1, 3, 1024]),
       st.sampled_from([None, None, 1, 2]), st.sampled_from([None, None, 1, 2, 3]))
def test_the_compiled_evaluator_is_the_readable_one_event_by_event(cea, stream, window, compact_min, limit, chunk):
    """Algorithm 1 compiled (update, window, compaction down to every step, so right children dangle) and
    Algorithm 2 compiled (LIMIT, and chunked output resumed where it stopped) against the readable evaluator:
    the same CEs in the same order at every position, and after every event the same T, τ, tECS node for node,
    bottom nodes and counts."""
    require_compiled()
    stream = list(stream)
    det_pure, det_compiled = Determinizer(cea), Determinizer(cea)
    options = {"window": window, "limit": limit, "chunk": chunk, "compact_min": compact_min}
    readable = Evaluator(determinizer=det_pure, **options)
    fast = compiled.CompiledEvaluator(determinizer=det_compiled, **options)  # type: ignore[misc]
    want, got = run(readable, stream, det_pure), run(fast, stream, det_compiled)
    assert got == want, (cea.describe(), window, stream, limit, chunk, compact_min)


# ---------------------------------------------------------------------------------------------- the engine


def sink_in_chunks(engine: Engine) -> list:
    """The CEs each position reports to a sink reading them two at a time (:class:`Outputs`, D282)."""
    seen: list = []

    def sink(ces, partition):  # type: ignore[no-untyped-def]
        chunks = ces.chunks() if hasattr(ces, "chunks") else [ces]
        seen.extend((c, partition) for chunk in chunks for c in chunk)
        return ()

    engine.report_to(sink, chunk=2)
    return seen


PATHS = {
    "process, Events": lambda engine, stream: outcome(engine.process(stream)),
    "process, dicts": lambda engine, stream: outcome(engine.process([e.to_dict() for e in stream])),
    "process_event": lambda engine, stream: outcome(m for e in stream for m in engine.process_event(e)),
}


def chunked(engine: Engine, stream: list[Event]) -> tuple:
    seen = sink_in_chunks(engine)
    return seen, outcome(engine.process(stream))[1]


def engine_state(engine: Engine) -> tuple:
    return ({a: getattr(engine, a) for a in BOOKKEEPING},
            [(key, state(ev)) for key, ev in engine.evaluators()])


def assert_compiled_equals_readable(q: Query, stream: list[Event]) -> None:
    paths = {**PATHS} if q.aggregated else {**PATHS, "a sink in chunks": chunked}
    for name, path in paths.items():
        with pure(True):
            readable = Engine(q)
            want = path(readable, stream)
        with pure(False):
            fast = Engine(q)
            got = path(fast, stream)
        assert got == want, (name, str(q), stream)
        assert engine_state(fast) == engine_state(readable), (name, str(q), stream)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ceql.queries(max_leaves=4), ceql.engine_streams())
def test_the_compiled_engine_is_the_readable_one_on_the_whole_grammar(q, stream):
    """On CORE's whole query grammar (strategies, PARTITION BY, windows, CONSUME BY, LIMIT, aggregates): the
    engine with the compiled loop reports what it reports with ``CER_THEORY_PURE=1``, in the same order, fails
    where it fails, and leaves the same counts and the same evaluators (T, τ, tECS, counts)."""
    require_compiled()
    assert_compiled_equals_readable(q, stream)


@settings(max_examples=150, deadline=None)
@given(queries(), timed_streams(max_length=12))
def test_the_compiled_engine_is_the_readable_one_on_match_dense_queries(q, stream):
    """The same on queries over R/T/U, whose streams have many matches, partitions and consumptions."""
    require_compiled()
    assert_compiled_equals_readable(q, list(stream))


def columnar_paths(stream: list[Event]) -> dict[str, Callable[[Engine], Iterable[Match]]]:
    """The inputs whose matches the batch branch of ``EngineState.matches`` builds (compiled: D450): dicts (their keys
    in reverse order and, every other one, an attribute set to None, both of which the Event leaves out or puts in
    name order), in batches of 3 so that a match also takes events from an earlier batch; an Arrow table in
    batches of 3; the same table as a DataFrame (its gaps NaN)."""
    dicts = [dict(reversed([*e.to_dict().items(), *([("gap", None)] if k % 2 else [])]))
             for k, e in enumerate(stream)]
    paths: dict[str, Callable[[Engine], Iterable[Match]]] = {
        "dicts": lambda engine: engine.process(dicts),
        "dicts in batches of 3": lambda engine: process_in_batches(engine, dicts, 3)}
    table = arrow_table(stream)
    if table is not None:
        paths["Arrow table in batches of 3"] = lambda engine: process_in_batches(engine, table, 3)
        paths["DataFrame"] = lambda engine: engine.process(table.to_pandas())
    return paths


def exactly(matches: Iterable[Match]) -> tuple[list, tuple | None]:
    """Each match with its class, its events (their attributes in order and kinds: ``Event.__eq__``) and its JSON
    text as ``cer-theory run`` writes it, up to the first error (its class and message)."""
    got: list = []
    try:
        for m in matches:
            got.append((type(m), m.complex_event, m.partition, m.events, [type(e) for e in m.events],
                        json.dumps(m.to_json())))
    except CerError as error:
        return got, (type(error), str(error))
    return got, None


EVERY_KIND = (("s", ("é", "x", "", None)), ("f", (1.5, -0.0, 2.0, None, 1e300)), ("b", (True, False, None)),
              ("n", (2**62, -7, None, 0)))
"""Attributes of every kind a cell holds, each column of one kind (so that Arrow takes it), now and then absent."""


def with_every_kind(stream: list[Event]) -> list[Event]:
    """The stream with the attributes of :data:`EVERY_KIND` added, cycling through their values."""
    return [Event(e.type, {**e.attributes, **{name: values[k % len(values)] for name, values in EVERY_KIND
                                              if values[k % len(values)] is not None}})
            for k, e in enumerate(stream)]


@settings(max_examples=200, deadline=None)
@given(queries(), timed_streams(max_length=12))
def test_the_compiled_batch_matches_are_the_readable_ones_on_every_columnar_path(q, stream):
    """``rows_compiled.batch_matches`` builds the Matches the readable batch branch of ``EngineState.matches``
    builds (D450), Event for Event, on dicts, Arrow tables and DataFrames, and leaves the same engine behind; the
    events carry strings (non-ASCII too), floats (-0.0), bools and large ints beside the queries' attributes."""
    require_compiled()
    for name, path in columnar_paths(with_every_kind(list(stream))).items():
        with pure(True):
            assert compiled.batch_matches() is None
            readable = Engine(q)
            want = exactly(path(readable))
        with pure(False):
            assert compiled.batch_matches() is not None
            fast = Engine(q)
            got = exactly(path(fast))
        assert got == want, (name, str(q), list(stream))
        assert engine_state(fast) == engine_state(readable), (name, str(q), list(stream))


class Text(str):
    """A str subclass: not a plain string, which the check sends the row way."""


_GOOD = st.sampled_from([True, 1.5, 2**80, -math.inf, "", "s", None, 7])
_BAD = st.sampled_from([math.nan, Text("s"), [1], {"x": 1}])


@st.composite
def odd_batches(draw: st.DrawFn) -> list:
    """Batches of dicts, most of them events, with now and then an odd name, type or value, or an item that is no
    plain dict."""
    names = st.sampled_from(["x", "y", "_z9", "x", "y", "9z", "bad name", "", 3, Text("x")])
    types = st.sampled_from(["T", "T", "U", "", Text("T"), None, 1])
    batch: list = [{**({} if draw(st.integers(0, 9)) == 0 else {"type": draw(types)}),
                    **draw(st.dictionaries(names, st.one_of(_GOOD, _GOOD, _GOOD, _BAD), max_size=3))}
                   for _ in range(draw(st.integers(0, 8)))]
    if batch and draw(st.booleans()):
        k = draw(st.integers(0, len(batch) - 1))
        batch[k] = draw(st.sampled_from([OrderedDict(batch[k]), tuple(batch[k].items()), None]))
    return batch


@settings(max_examples=600, deadline=None)
@given(st.one_of(odd_batches(), _uniform_batches(), _sparse_batches()))
def test_the_compiled_check_of_a_batch_of_dicts_is_the_readable_one(batch):
    """``rows_compiled.clean_columns`` (D452) accepts exactly the batches ``streams.convert.clean_columns`` accepts,
    and the batch then reads the same values by name (``DictRows.values``), each of the same class."""
    require_compiled()
    with pure(False):
        check = compiled.clean_columns()
    with pure(True):
        assert compiled.clean_columns() is None
    assert check is not None
    want, got = readable_clean_columns(batch), check(batch)
    assert (got is None) == (want is None), (batch, want, got)
    if want is not None:
        names = {n for d in batch for n in d} | {"absent"}
        for name in names:
            read = [(type(v), v) for v in DictRows(batch, got).values(name)]
            assert read == [(type(v), v) for v in DictRows(batch, want).values(name)], (batch, name)


# ---------------------------------------------------------------------------------------------- which loop runs


def test_the_engine_runs_the_compiled_evaluator_unless_told_otherwise():
    """Built, the compiled evaluator runs a plain query's partitions; ``CER_THEORY_PURE=1``, debug mode and
    instrumentation run the readable one (whose checks and counts read Python structures), and so do the
    strategies' and aggregates' evaluators, which have no compiled form."""
    require_compiled()
    stream = [Event("R", x=1), Event("T", x=1)]
    q = "SELECT * FROM S WHERE R ; T"

    def evaluator_types(engine: Engine) -> set[str]:
        list(engine.process(stream))
        return {type(ev).__name__ for _, ev in engine.evaluators()}

    with pure(False):
        assert evaluator_types(Engine(q + " WITHIN 5 EVENTS")) == {"CompiledEvaluator"}
        assert evaluator_types(Engine(q + " WITHIN 5 EVENTS", debug=True)) == {"Evaluator"}
        assert evaluator_types(Engine(q + " WITHIN 5 EVENTS", instrument=True)) == {"Evaluator"}
        assert evaluator_types(Engine("SELECT NEXT * FROM S WHERE R ; T WITHIN 5 EVENTS")) == {"SelectEvaluator"}
    with pure(True):
        assert evaluator_types(Engine(q + " WITHIN 5 EVENTS")) == {"Evaluator"}


def test_the_compiled_parts_refuse_debug_mode():
    """Debug mode checks invariants on the readable structures: the compiled tECS and evaluator refuse it rather
    than run unchecked."""
    require_compiled()
    from cer_theory.engines.core.tecs_compiled import CTecs

    with pytest.raises(ValueError, match="no debug mode"):
        CTecs(debug=True)
    det = Determinizer(Engine("SELECT * FROM S WHERE R ; T").plan.cea)
    with pytest.raises(ValueError, match="no debug mode"):
        compiled.CompiledEvaluator(determinizer=det, debug=True)  # type: ignore[misc]


def test_the_compiled_tecs_reads_as_the_readable_one():
    """The Fig. 5 operations on both tECSs build the same nodes, describe them alike and enumerate the same CEs
    (the readable evaluator's methods, run on the compiled evaluator, read the compiled tECS this way)."""
    require_compiled()
    from cer_theory.engines.core.tecs_compiled import CTecs

    tecs = [Tecs(), CTecs()]
    for t in tecs:
        b0, b1, b2 = t.new_bottom(0), t.new_bottom(1), t.new_bottom(2)
        o1, o2 = t.extend(b1, 3), t.extend(b2, 3)
        ul = t.new_ulist(t.extend(b2, 4))
        t.insert(ul, o1)
        t.insert(ul, t.extend(b1, 5))
        t.insert(ul, t.extend(b0, 5))
        t.insert(ul, o2)
        t.merge(ul)
    readable, fast = tecs
    assert arrays(fast) == arrays(readable)
    assert [fast.describe(n) for n in range(fast.next_id)] == [readable.describe(n) for n in range(readable.next_id)]
    top = readable.next_id - 1
    assert list(fast.enumerate(top, 6)) == list(readable.enumerate(top, 6)) != []
    assert fast.compact(4) == readable.compact(4) == 4 and arrays(fast) == arrays(readable)
    with pytest.raises(IndexError):
        fast.mx[len(fast)]


def test_the_pure_variable_forces_the_readable_loop():
    """``CER_THEORY_PURE`` set to anything but "" or "0" forces the readable loop, built or not."""
    for value, forced in (("1", True), ("yes", True), ("0", False), ("", False)):
        os.environ[compiled.PURE_VARIABLE] = value
        try:
            assert compiled.pure_forced() is forced
            assert (compiled.evaluator_class(False, False) is Evaluator) is (forced or not compiled.compiled_available())
        finally:
            del os.environ[compiled.PURE_VARIABLE]
    assert compiled.evaluator_class(True, False) is Evaluator and compiled.evaluator_class(False, True) is Evaluator


def test_a_limit_beyond_the_machine_word_is_no_limit_on_both_loops():
    """CEQL's ``LIMIT n`` takes any natural number; one beyond a C ``Py_ssize_t`` caps nothing a position can
    enumerate, and the compiled loop reports what the readable one does (not an OverflowError), on the list path and
    when its chunks are read (``enumerate_into`` called from the readable chunked output)."""
    require_compiled()
    from cer_theory.engines.core.tecs_compiled import CTecs

    stream = [Event("R", x=1), Event("T", x=1), Event("T", x=2)]
    for limit in (2**63, 10**20):
        assert_compiled_equals_readable(parse(f"SELECT * FROM S WHERE R ; T LIMIT {limit}"), stream)
    tecs = CTecs()
    top = tecs.extend(tecs.new_bottom(0), 1)
    out: list = []
    assert tecs.enumerate_into(top, 1, 0, out, 10**20) == 1 and len(out) == 1


_MISUSE = """
import sys
from cer_theory.automata.determinize.bitmask import Determinizer
from cer_theory.core.errors import CerError
from cer_theory.core.events import Event
from cer_theory.core.windows import Window
from cer_theory.engines.core import Engine, compiled
from cer_theory.engines.core.tecs import TecsError
from cer_theory.engines.core.tecs_compiled import CTecs

def refused(call):
    try:
        call()
    except (TecsError, IndexError) as error:
        return type(error).__name__
    return "accepted"

t = CTecs()
b = t.new_bottom(0)
t.compact(1)
print(refused(lambda: t.extend(10**9, 0)), refused(lambda: t.extend(b, 1)), refused(lambda: t.union(b, 10**9)),
      refused(lambda: t.merge([])), refused(lambda: t.merge([b])), refused(lambda: t.insert([b], b)),
      refused(lambda: list(t.enumerate(10**9, 1))), refused(lambda: list(t.enumerate(b, 1))),
      refused(lambda: t.enumerate_into(t.new_bottom(1), 1, 0, [], -1, ([b, 0], []))))
det = Determinizer(Engine("SELECT * FROM S WHERE R ; T+").plan.cea)
ev = compiled.CompiledEvaluator(determinizer=det, window=Window("events", 2, None, False), chunk=1, compact_min=0)
late = []
for j in range(40):
    e = Event("R" if j % 3 == 0 else "T", x=1)
    out = ev.process(e, j, mask=det.mask(e))
    if hasattr(out, "chunks"):
        late.append(out)
print(sorted({refused(lambda: list(out)) for out in late[:-1]}))
"""


def test_the_compiled_tecs_refuses_nodes_it_does_not_store_instead_of_reading_past_its_arrays():
    """The compiled tECS's Python methods check the node ids they are given (the readable tECS's lists raise
    IndexError or read a wrong node; C arrays read past their ends, and the process died of a segmentation
    fault): a node never made or dropped by compaction is refused with TecsError — also when a position's
    :class:`Outputs` is read after the next event compacted the tECS, which its contract forbids."""
    require_compiled()
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", _MISUSE], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    assert result.stdout.split("\n")[:2] == [" ".join(["TecsError"] * 9), "['TecsError']"], result.stdout


def test_a_built_module_older_than_its_sources_is_stale(tmp_path):
    """A compiled module older than a ``.pyx``/``.pxd`` beside it runs the code of its older source: stale, so the
    readable loop runs (a tree after ``git pull`` or an edit without ``make``); no source beside it (an installed
    wheel) is never stale."""
    built, source = tmp_path / "m.so", tmp_path / "m.pyx"
    built.write_text("")
    source.write_text("")
    os.utime(built, (1_000_000, 1_000_000))
    os.utime(source, (2_000_000, 2_000_000))
    assert compiled.stale([built], [source])
    os.utime(built, (3_000_000, 3_000_000))
    assert not compiled.stale([built], [source])
    assert not compiled.stale([built], [])


_UNLOADABLE = """
import importlib.abc, importlib.machinery, sys, warnings

class Unloadable(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    # the compiled modules, found but failing as a stale build does when a name it imports was renamed
    def find_spec(self, name, path, target=None):
        if name.startswith("cer_theory.engines.core.") and name.endswith("_compiled"):
            return importlib.machinery.ModuleSpec(name, self, origin=sys.argv[1])
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        raise AttributeError("type object 'Evaluator' has no attribute '_output'")

sys.meta_path.insert(0, Unloadable())
with warnings.catch_warnings(record=True) as said:
    warnings.simplefilter("always")
    from cer_theory.engines.core import Engine, compiled
print(compiled.compiled_available(), [str(w.message) for w in said])
print(sum(1 for _ in Engine("SELECT * FROM S WHERE R ; T").process([{"type": "R"}, {"type": "T"}])))
"""


def test_a_compiled_module_that_does_not_load_leaves_the_readable_engine(tmp_path):
    """A built module that raises while loading (a stale build importing a name of the readable modules since
    renamed, a binary mismatch: not an ImportError) must not take the engine down: the readable loop runs and a
    warning says why."""
    import subprocess
    import sys

    origin = tmp_path / "built.so"
    origin.write_text("")  # (newer than the sources: not stale)
    result = subprocess.run([sys.executable, "-c", _UNLOADABLE, str(origin)], capture_output=True, text=True,
                            timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert result.returncode == 0, result.stderr[-2000:]
    available, matches = result.stdout.splitlines()
    assert available.startswith("False") and "does not load (AttributeError" in available, available
    assert matches == "1"


_PARTITIONS = """
import os
from cer_theory.engines.core import Engine

def resident() -> int:  # kilobytes now (not the peak: the imports' would hide the partitions')
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024

engine = Engine("SELECT * FROM S WHERE R ; T PARTITION BY [id]")
list(engine.process([{"type": "R", "id": -1}]))
before = resident()
list(engine.process({"type": "R", "id": k} for k in range(20000)))
print(engine.partitions, {type(ev).__name__ for _, ev in engine.evaluators()}.pop(), resident() - before)
"""


def test_the_compiled_loop_keeps_many_partitions_in_about_the_readable_loops_memory():
    """An engine keeps one evaluator per active PARTITION BY key, most with a few nodes: the compiled tECS's arrays
    start small and double (they were allocated for 1024 nodes each, and 20,000 pending keys took eight times the
    readable loop's memory, a gigabyte at 50,000)."""
    require_compiled()
    import subprocess
    import sys

    if not os.path.exists("/proc/self/statm"):
        pytest.skip("the resident memory is read from /proc (Linux)")
    grown = {}
    for value in ("1", "0"):
        result = subprocess.run([sys.executable, "-c", _PARTITIONS], capture_output=True, text=True, timeout=300,
                                env={**os.environ, compiled.PURE_VARIABLE: value,
                                     "PYTHONPATH": os.pathsep.join(sys.path)})
        assert result.returncode == 0, result.stderr[-2000:]
        partitions, kind, kilobytes = result.stdout.split()
        assert partitions == "20001", result.stdout
        grown[kind] = int(kilobytes)
    assert set(grown) == {"Evaluator", "CompiledEvaluator"} and grown["Evaluator"] > 10_000, grown  # (it measures)
    assert grown["CompiledEvaluator"] <= 2 * grown["Evaluator"], grown
