"""The frames of a run, for each model of the toolkit, read off the model's own run semantics.

* a CEA or a UCEA (the CEL paper Def. 5.2; the SO-CEL paper §4, the same runs): the configurations ``(q, μ)`` after each
  event, from :meth:`CEA.moves` — the very steps :meth:`CEA.configurations` takes;
* an ACEA (the ACEL paper §6): the configurations ``(q, ν, μ)`` of the runs started at every position so far, from
  :meth:`ACEA.moves`;
* an SRT (the SRT paper §4.3, Alg. 1): the run pool ``(q, registers, marked positions)`` of its
  :class:`~cer_theory.formalisms.sremo.srt.Recognizer` after each ``feed``;
* the CCES of the CEL paper Algorithm 2 (:class:`~cer_theory.engines.cces.evaluator.CcesEvaluator`) and the tECS of
  the CORE paper Algorithm 1 (:class:`~cer_theory.engines.core.evaluator.Evaluator`): the structure after each event,
  its table T, the nodes the event created and the enumeration of this position's outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from cer_theory.automata.cea import CEA
from cer_theory.core.drawing import render_svg, shown, state_ids
from cer_theory.core.events import Event, Valuation
from cer_theory.core.wording import plural
from cer_theory.engines.cces.evaluator import CcesEvaluator
from cer_theory.engines.core.evaluator import Evaluator
from cer_theory.formalisms.acel.acea import ACEA, json_register
from cer_theory.formalisms.acel.events import ComplexEvent as AcelComplexEvent
from cer_theory.formalisms.acel.events import timed_stream
from cer_theory.formalisms.sremo.srt import SRT, Recognizer
from cer_theory.stepper.frames import MAX_POSITIONS, MAX_ROWS, Frame, Row, Run, check_budget, check_rows


def event_text(e: Event) -> str:
    """An event on the ribbon: its type and attributes, ``R(id=1)``."""
    attrs = {k: v for k, v in e.to_dict().items() if k != "type"}
    return e.type + ("(" + ", ".join(f"{k}={v}" for k, v in attrs.items()) + ")" if attrs else "")


def valuation_text(mu: Iterable[tuple[str, int]]) -> str:
    """A partial valuation given as (variable, position) pairs, written ``{A↦{0,2}}`` (``∅`` if empty)."""
    grouped: dict[str, set[int]] = {}
    for var, pos in mu:
        grouped.setdefault(var, set()).add(pos)
    return str(Valuation(grouped)) if grouped else "∅"


def _start(rows: Sequence[Row], active: Iterable[str], max_rows: int) -> Frame:
    check_rows(len(rows), None, max_rows)
    return Frame(None, frozenset(active), frozenset(), tuple(rows), ())


# ---------------------------------------------------------------------------------------------- CEA, UCEA


def cea_run(cea: CEA, stream: Sequence[Event], *, title: str | None = None, max_positions: int = MAX_POSITIONS,
            max_rows: int = MAX_ROWS) -> Run:
    """The run of a CEA (or a UCEA) over ``stream``: every state is drawn (as ``draw`` draws it), so every active
    state can be shaded; a row per configuration ``(q, μ)``; outputs are ``⟦A⟧ᵛ_n(S)``."""
    check_budget(len(stream), max_positions)
    ids = state_ids(cea.bfs_order())  # the ids of CEA.diagram, which draws every state in this order
    svg = render_svg(cea.to_dot(title=title))  # the picture draw shows (D384)

    def rows(config: set) -> tuple[Row, ...]:
        return tuple(sorted(Row(shown(q), valuation_text(mu)) for q, mu in config))

    config: set = {(q, frozenset()) for q in cea.initial}
    frames = [_start(rows(config), (ids[q] for q, _ in config), max_rows)]
    for n, event in enumerate(stream):
        moves = list(cea.moves(config, n, event))
        config = {c for _, c in moves}
        check_rows(len(config), n, max_rows)
        outputs = sorted({valuation_text(mu) for q, mu in config if q in cea.final})
        frames.append(Frame(n, frozenset(ids[q] for q, _ in config),
                            frozenset((ids[t.source], ids[t.target]) for t, _ in moves), rows(config),
                            tuple(outputs), work=f"{plural(len(moves), 'transition')} taken, "
                                                 f"{plural(len(config), 'configuration')}"))
    model = type(cea).__name__ if type(cea).__name__ in ("CEA", "UCEA") else "CEA"
    return Run(model, title or cea.name or model, tuple(map(event_text, stream)), tuple(frames), svg)


# ---------------------------------------------------------------------------------------------- ACEA


def bags_text(mu: Iterable[tuple[str, object]]) -> str:
    """The bags emitted so far: ``X: {{price=101}}; Y: …``."""
    grouped: dict[str, list[str]] = {}
    for x, e in mu:
        attrs = dict(e.items)  # type: ignore[attr-defined]
        grouped.setdefault(x, []).append("(" + ", ".join(f"{k}={shown(json_register(v))}"
                                                       for k, v in attrs.items()) + ")")
    return "; ".join(f"{x}: {{{{{', '.join(sorted(es))}}}}}" for x, es in sorted(grouped.items())) or "∅"


def acea_output_text(c: AcelComplexEvent) -> str:
    """A complex event of ACEL: its interval and its bags."""
    return f"[{c.start}, {c.end}] " + bags_text((x, e) for x, b in c.bags for e in b)


def acea_run(acea: ACEA, stream: Sequence[Event], *, title: str | None = None,
             max_positions: int = MAX_POSITIONS, max_rows: int = MAX_ROWS) -> Run:
    """The run of an ACEA: after position k, the configurations of the runs started at each ``i ≤ k``
    (the ACEL paper §6 runs the automaton from every start); outputs are the complex events ending at k."""
    check_budget(len(stream), max_positions)
    ids = state_ids(acea.bfs_order())
    svg = render_svg(acea.to_dot(title=title))
    events = timed_stream(stream)

    def row(i: int, config: tuple) -> Row:
        q, nu, mu = config
        registers = ", ".join(f"{r}={shown(json_register(v))}" for r, v in nu) or "∅"
        return Row(f"q{q} (from {i})", f"ν: {registers} | μ: {bags_text(mu)}")

    started: dict[int, set] = {}
    frames = [_start([Row(f"q{acea.initial}", "ν: ∅ | μ: ∅")], [ids[acea.initial]], max_rows)]
    for k, event in enumerate(events):
        started[k] = {(acea.initial, (), ())}
        taken: set[tuple[str, str]] = set()
        for i in list(started):
            moves = list(acea.moves(started[i], event))
            taken |= {(ids[t.source], ids[t.target]) for t, _ in moves}
            started[i] = {c for _, c in moves}
            if not started[i]:
                del started[i]
        rows = sorted((row(i, c) for i, cs in started.items() for c in cs), key=lambda r: (r.where, r.carries))
        check_rows(len(rows), k, max_rows)
        outputs = sorted(acea_output_text(AcelComplexEvent.make(i, k, _bags(mu)))
                         for i, cs in started.items() for q, _nu, mu in cs if q in acea.final)
        frames.append(Frame(k, frozenset(ids[q] for cs in started.values() for q, _, _ in cs), frozenset(taken),
                            tuple(rows), tuple(outputs), work=f"{plural(len(rows), 'configuration')}"))
    return Run("ACEA", title or acea.name or "ACEA", tuple(map(event_text, stream)), tuple(frames), svg)


def _bags(mu: Iterable[tuple[str, object]]) -> dict[str, list]:
    bags: dict[str, list] = {}
    for x, e in mu:
        bags.setdefault(x, []).append(e)
    return bags


# ---------------------------------------------------------------------------------------------- SRT


def srt_run(srt: SRT, stream: Sequence[Event], *, title: str | None = None, max_positions: int = MAX_POSITIONS,
            max_rows: int = MAX_ROWS) -> Run:
    """The run pool of Alg. 1 (the SRT paper §4.3) over ``stream``: after each event, the runs ``(q, registers,
    marked positions)`` that go on, the transitions the runs took to read it (Def. 23: the ε-transitions from the
    run's state to the source of the consuming transition, then that transition; :attr:`Recognizer.steps`), and
    the matches reported at this position."""
    check_budget(len(stream), max_positions)
    ids = state_ids(range(srt.states))
    svg = render_svg(srt.to_dot(title=title))  # every state (useless ones grey), as draw shows it (D384)
    recognizer = Recognizer(srt)

    def rows() -> tuple[Row, ...]:
        return tuple(sorted(Row(srt.state_label(q).replace("\n", " "),
                                f"registers: {_registers(v)} | marked: {shown(frozenset(m))}")
                            for q, v, m in recognizer.runs))

    frames = [_start([Row(srt.state_label(srt.start).replace("\n", " "), "a run starts at every position")],
                     [ids[srt.start]], max_rows)]
    for k, event in enumerate(stream):
        matches = recognizer.feed(event)
        check_rows(len(recognizer.runs), k, max_rows)
        taken = {(ids[d.source], ids[d.target])
                 for q, t in recognizer.steps for d in (*srt.epsilon_path(q, t.source), t)}
        frames.append(Frame(k, frozenset(ids[q] for q, _, _ in recognizer.runs), frozenset(taken), rows(),
                            tuple(sorted(shown(m) for m in matches)),
                            work=f"{len({t for _, t in recognizer.steps})} transitions read the event, "
                                 f"{len(recognizer.runs)} runs go on"))
    return Run("SRT", title or "SRT", tuple(map(event_text, stream)), tuple(frames), svg)


def _registers(v: object) -> str:
    items = dict(v.items()) if hasattr(v, "items") else {}  # type: ignore[attr-defined]
    return ", ".join(f"{r}={event_text(e) if isinstance(e, Event) else shown(e)}"
                     for r, e in sorted(items.items())) or "∅"


# ---------------------------------------------------------------------------------------------- CCES, tECS


def cces_run(cea: CEA, stream: Sequence[Event], *, title: str | None = None,
             max_positions: int = MAX_POSITIONS, max_rows: int = MAX_ROWS) -> Run:
    """Algorithm 2 of the CEL paper over ``stream``: the CCES after each event with the table T pointing into it,
    the nodes this event created, and the enumeration of ``⟦A⟧_n(S)``; the nodes T points at are shaded."""
    check_budget(len(stream), max_positions)
    ev = CcesEvaluator(cea)
    frames = []
    for n, event in enumerate(stream):
        before = set(ev.cces.nodes())
        stats = ev.update(event)
        outputs = sorted(map(str, ev.enumerate_current()))
        table = ev.describe_table()
        check_rows(len(table), n, max_rows)
        rows = tuple(Row(f"T[{shown(q)}]", f"({first}, {last})") for q, (first, last) in table.items())
        new = frozenset(f"n{m}" for m in set(ev.cces.nodes()) - before)
        in_table = frozenset(f"n{m}" for pair in ev.table.values() for m in pair)
        frames.append(Frame(n, in_table, frozenset(), rows, tuple(outputs),
                            new, render_svg(ev.to_dot(title=f"CCES after position {n}")),
                            work=f"{plural(stats.nodes_created, 'node')} created, {plural(stats.table_ops, 'table operation')}, "
                                 f"{stats.predicate_evals} predicate evaluations"))
    start = Frame(None, frozenset(), frozenset(), (), (), svg=render_svg(CcesEvaluator(cea).to_dot(title="CCES")))
    return Run("CCES", title or cea.name or "CCES", tuple(map(event_text, stream)), (start, *frames))


def tecs_run(cea: CEA, stream: Sequence[Event], *, title: str | None = None,
             max_positions: int = MAX_POSITIONS, max_rows: int = MAX_ROWS, **evaluator: object) -> Run:
    """Algorithm 1 of the CORE paper (CORE) over ``stream``: the tECS after each event with the table T (each
    det-state's union-list), the nodes this event created, and the enumeration of this position's outputs
    (``evaluator`` options, e.g. ``window``, go to :class:`~cer_theory.engines.core.evaluator.Evaluator`); the
    union-list entries of T are shaded."""
    check_budget(len(stream), max_positions)
    ev = Evaluator(cea, keep_per_event=True, **evaluator)  # type: ignore[arg-type]
    frames = []
    for n, event in enumerate(stream):
        first_new = ev.tecs.next_id
        outputs = [str(c) for c in ev.process(event)]  # in Algorithm 2's order
        entries = {f"T[{shown(states)}]": ul for states, ul in
                   ((ev.det.states_of(p), ul) for p, ul in ev.table.items())}
        check_rows(len(entries), n, max_rows)
        rows = tuple(Row(where, ", ".join(ev.tecs.describe(m) for m in ul)) for where, ul in entries.items())
        created = ev.tecs.next_id - first_new
        in_table = frozenset(f"t{m}" for ul in entries.values() for m in ul)
        frames.append(Frame(n, in_table, frozenset(), rows, tuple(outputs),
                            frozenset(f"t{m}" for m in range(first_new, ev.tecs.next_id)),
                            render_svg(ev.tecs.to_dot(title=f"tECS after position {n}", roots=entries)),
                            work=f"{plural(created, 'node')} created, {plural(len(entries), 'entry', 'entries')} in T, "
                                 f"{plural(len(outputs), 'output')} enumerated"))
    start = Frame(None, frozenset(), frozenset(), (), (), svg=None)
    return Run("tECS", title or cea.name or "tECS", tuple(map(event_text, stream)), (start, *frames))


# ---------------------------------------------------------------------------------------------- dispatch

STEPPERS: dict[str, Callable[..., Run]] = {"CEA": cea_run, "UCEA": cea_run, "ACEA": acea_run, "SRT": srt_run,
                                           "CCES": cces_run, "tECS": tecs_run}
"""The stepper of each model, by the name the page shows (the CCES and the tECS run a CEA)."""


def step(model: object, stream: Sequence[Event], *, structure: str | None = None, **options: object) -> Run:
    """The run of ``model`` over ``stream``: a CEA/UCEA, an ACEA or an SRT by its own semantics; with
    ``structure="CCES"`` or ``"tECS"``, a CEA run by that engine's data structure."""
    if structure is not None:
        if structure not in ("CCES", "tECS") or not isinstance(model, CEA):
            raise ValueError(f"structure is 'CCES' or 'tECS' and needs a CEA, got {structure!r}")
        return STEPPERS[structure](model, stream, **options)
    for kind, fn in ((CEA, cea_run), (ACEA, acea_run), (SRT, srt_run)):
        if isinstance(model, kind):
            return fn(model, stream, **options)
    raise TypeError(f"no stepper for {type(model).__name__}: expected a CEA, UCEA, ACEA or SRT")


__all__ = ["STEPPERS", "acea_run", "cces_run", "cea_run", "event_text", "srt_run", "step", "tecs_run",
           "valuation_text"]


