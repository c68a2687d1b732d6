"""Symbolic register transducers: the SRT paper (Alevizos, Artikis, Paliouras, *Complex Event Recognition with
Symbolic Register Transducers*), §4.1–4.3, Defs. 21–26, 32, 36, Alg. 1, Lemma 29.

An SRT is ``T = (Q, q_s, Q_f, R, Δ)`` (Def. 21); a transition ``q, φ↑o↓W → q'`` has a condition ``φ`` (or ε),
write registers ``W`` and an output ``o`` ∈ {•, ⊗}. Positions are 0-based. Two acceptance readings (P1 of
docs/errata.md):

* **last-•** (Def. 24 as written): the last *consuming* transition outputs •;
* **pure**: no condition on the last output; this is the reading under which Thm. 27 holds for every SREMO.

``window`` is our addition (docs/decisions.md): a bound on the span of the marked positions of a run
(Def. 39 applied to the whole automaton), checked whenever a transition marks. ``positions``: the conditions
read the event's position as the attribute ``_pos`` (:data:`POSITION`), which the SRT adds to each event it
reads; windows below the top of an expression compile to such conditions (the SRT paper §5.1: windows can be
encoded with an index attribute and binary conditions).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from cer_theory.automata.files import header
from cer_theory.automata.registers import EMPTY, Valuation
from cer_theory.core.budget import charge
from cer_theory.core.drawing import Diagram, Drawable, state_diagram
from cer_theory.core.errors import AutomatonError, StreamFormatError
from cer_theory.core.events import Event
from cer_theory.core.graphs import reach
from cer_theory.core.predicates.ast import Predicate
from cer_theory.core.predicates.registers import compiled, condition_satisfiable, registers_read, satisfies
from cer_theory.formalisms.sremo.outputs import Match, StreamingRecognizer, StreamOutput, per_position

POSITION = "_pos"
"""The attribute holding an event's (0-based) position, for SRT whose conditions read positions."""


def with_position(event: Event, k: int) -> Event:
    """``event`` with its position ``k`` as the attribute :data:`POSITION` (a reserved name)."""
    return Event(event.type, {**event.attributes, POSITION: k})


@dataclass(frozen=True, slots=True)
class Transition:
    """``source, φ↑o↓W → target`` (Def. 21); ``guard is None`` is an ε-transition (no read, no write, ⊗)."""

    source: int
    guard: Predicate | None
    target: int
    writes: frozenset[str] = frozenset()
    marked: bool = False

    @property
    def is_epsilon(self) -> bool:
        return self.guard is None

    def label(self) -> str:
        """``φ ↑• ↓r1`` as in the paper's figures (⊗ and ↓∅ are drawn too, for clarity)."""
        if self.guard is None:
            return "ε"
        out = f"{self.guard.label()} ↑{'•' if self.marked else '⊗'}"
        return out + (f" ↓{','.join(sorted(self.writes))}" if self.writes else "")


@dataclass(frozen=True, slots=True)
class Configuration:
    """``[j, q, v]`` (Def. 23): ``j`` the next position to read (0-based), ``q`` a state, ``v`` a valuation."""

    j: int
    q: int
    v: Valuation


@dataclass(frozen=True)
class Run:
    """A run (Def. 24): configurations and the transitions between them (ε steps included)."""

    configurations: tuple[Configuration, ...]
    transitions: tuple[Transition, ...]

    @property
    def match(self) -> Match:
        """``Match(ρ) = {i | δᵢ.o = •}`` (Def. 24), with the positions the marking transitions read."""
        return frozenset(c.j for c, t in zip(self.configurations, self.transitions) if t.marked)


@dataclass(frozen=True)
class SRT(Drawable):
    """A symbolic register transducer (Def. 21), validated on construction, immutable, drawable (SVG in Jupyter,
    its :meth:`describe` listing when nothing renders). ``names`` optionally says what each state stands for
    (the subset of a determinized SRA); it is drawn, not compared."""

    states: int
    start: int
    finals: frozenset[int]
    transitions: tuple[Transition, ...]
    registers: frozenset[str] = frozenset()
    window: int | None = None
    positions: bool = False
    names: tuple[str, ...] | None = field(default=None, compare=False)
    _out: dict[int, tuple[Transition, ...]] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "finals", frozenset(self.finals))
        object.__setattr__(self, "transitions", tuple(self.transitions))
        regs = frozenset(self.registers)
        for t in self.transitions:
            regs |= t.writes | (registers_read(t.guard) if t.guard is not None else frozenset())
        object.__setattr__(self, "registers", regs)
        if self.states < 1:
            raise AutomatonError("an SRT has at least one state")
        for q in (self.start, *self.finals):
            if not 0 <= q < self.states:
                raise AutomatonError(f"state {q} is not one of the {self.states} states")
        out: dict[int, list[Transition]] = {q: [] for q in range(self.states)}
        for t in self.transitions:
            if not (0 <= t.source < self.states and 0 <= t.target < self.states):
                raise AutomatonError(f"transition {t.source} -> {t.target} leaves the states 0..{self.states - 1}")
            if t.guard is None and (t.writes or t.marked):
                raise AutomatonError(f"the ε-transition {t.source} -> {t.target} writes or marks (Def. 21)")
            out[t.source].append(t)
        if self.window is not None and (isinstance(self.window, bool) or self.window < 1):
            raise AutomatonError(f"a window is a positive integer, got {self.window!r}")
        if self.names is not None and len(self.names) != self.states:
            raise AutomatonError(f"{len(self.names)} state names for {self.states} states")
        object.__setattr__(self, "_out", {q: tuple(ts) for q, ts in out.items()})

    # ------------------------------------------------------------------------------------------ structure

    def out(self, q: int) -> tuple[Transition, ...]:
        return self._out[q]

    def is_epsilon_free(self) -> bool:
        return all(not t.is_epsilon for t in self.transitions)

    def epsilon_path(self, q: int, p: int) -> frozenset[Transition]:
        """The ε-transitions a run takes on its way from ``q`` to ``p`` without reading (Def. 23's ε-successors):
        those on some ε-walk from ``q`` to ``p``: out of a state of ``q``'s ε-closure, into a state whose ε-closure
        holds ``p`` (empty when ``p`` is not in ``q``'s ε-closure, or is ``q`` on no ε-cycle)."""
        before = self.closure([q])
        return frozenset(t for t in self.transitions
                         if t.is_epsilon and t.source in before and p in self.closure([t.target]))

    def closure(self, states: Iterable[int]) -> frozenset[int]:
        """The ε-closure (Enclose of Alg. 2)."""
        seen = set(states)
        todo = list(seen)
        while todo:
            for t in self._out[todo.pop()]:
                if t.is_epsilon and t.target not in seen:
                    seen.add(t.target)
                    todo.append(t.target)
        return frozenset(seen)

    def __repr__(self) -> str:
        w = (f", window={self.window}" if self.window else "") + (", positions" if self.positions else "")
        return (f"SRT(states={self.states}, transitions={len(self.transitions)}, "
                f"registers={sorted(self.registers)}{w})")

    # ------------------------------------------------------------------------------------------ runs

    def _window_ok(self, m: tuple[int, ...], k: int) -> bool:
        return self.window is None or not m or k - m[0] + 1 <= self.window

    def successors(self, c: Configuration, event: Event | None) -> Iterator[tuple[Transition, Configuration]]:
        """Def. 23: ε-successors ``[j, q', v]`` and, when ``event`` (= t_j) satisfies ``φ``,
        ``[j+1, q', v[W ← t_j]]``."""
        for t in self._out[c.q]:
            if t.guard is None:
                yield t, Configuration(c.j, t.target, c.v)
            elif event is not None and satisfies(t.guard, event, c.v):
                yield t, Configuration(c.j + 1, t.target, c.v.write(sorted(t.writes), event))

    def match(self, stream: Sequence[Event], *, pure: bool = True, offset: int = 0) -> frozenset[Match]:
        """``Match(T, S)`` (Def. 26), a set; positions start at ``offset``. ``pure=False`` applies Def. 24's
        last-• rule (the last consuming transition outputs •)."""
        # A state of the simulation: (q, v, M as a sorted tuple, did the last consuming transition mark).
        State = tuple[int, Valuation, tuple[int, ...], bool]
        current: set[State] = self._eps_close({(self.start, EMPTY, (), False)})
        for j, event in enumerate(stream):
            k = j + offset
            if not isinstance(event, Event):
                raise StreamFormatError(f"position {k}: expected an Event, got {type(event).__name__}")
            if self.positions:
                event = with_position(event, k)
            nxt: set[State] = set()
            for q, v, m, _ in current:
                for t in self._out[q]:
                    if t.guard is None or not compiled(t.guard)(event, v):
                        continue
                    if t.marked and not self._window_ok(m, k):
                        continue
                    nxt.add((t.target, v.write(sorted(t.writes), event), m + (k,) if t.marked else m, t.marked))
            current = self._eps_close(nxt)
        return frozenset(frozenset(m) for q, _, m, last in current
                         if q in self.finals and (pure or last) and (self.window is None or m))

    def _eps_close(self, states: set) -> set:
        todo = list(states)
        seen = set(states)
        while todo:
            q, v, m, last = todo.pop()
            for t in self._out[q]:
                if t.guard is None:
                    s = (t.target, v, m, last)
                    if s not in seen:
                        seen.add(s)
                        todo.append(s)
        return seen

    def accepts(self, stream: Sequence[Event], *, pure: bool = True) -> bool:
        """``S ∈ Lang(T)`` (Def. 26)."""
        return bool(self.match(stream, pure=pure))

    def accepting_runs(self, stream: Sequence[Event], *, pure: bool = True, limit: int = 1000) -> list[Run]:
        """The accepting runs of Def. 24 (at most ``limit``; ε-cycles are not unrolled twice in a row)."""
        out: list[Run] = []
        n = len(stream)
        if self.positions:
            stream = [with_position(e, k) for k, e in enumerate(stream)]

        def extend(cs: list[Configuration], ts: list[Transition], eps_seen: frozenset[int]) -> None:
            if len(out) >= limit:
                return
            c = cs[-1]
            consuming = [t for t in ts if not t.is_epsilon]
            if c.j == n and c.q in self.finals and (pure or (consuming and consuming[-1].marked)):
                run = Run(tuple(cs), tuple(ts))
                if self.window is None or (run.match and max(run.match) - min(run.match) + 1 <= self.window):
                    out.append(run)
            for t, c2 in self.successors(c, stream[c.j] if c.j < n else None):
                if t.is_epsilon and c2.q in eps_seen:
                    continue
                extend(cs + [c2], ts + [t], eps_seen | {c2.q} if t.is_epsilon else frozenset([c2.q]))

        extend([Configuration(0, self.start, EMPTY)], [], frozenset([self.start]))
        return out

    # ------------------------------------------------------------------------------------------ determinism

    def determinism_violations(self, *, strict: bool = True) -> list[tuple[Transition, Transition]]:
        """Pairs of transitions out of one state whose conditions can hold together (Def. 36, via Z3 with the
        ``def`` flags). ``strict=False`` is Def. 36 as written (only pairs with different targets); the default
        also counts same-target pairs, which produce two runs when their ``W`` or ``o`` differ (P9)."""
        bad: list[tuple[Transition, Transition]] = []
        for q in range(self.states):
            ts = self._out[q]
            for a in range(len(ts)):
                for b in range(a + 1, len(ts)):
                    s, t = ts[a], ts[b]
                    if not strict and s.target == t.target:
                        continue
                    if s.guard is None or t.guard is None or condition_satisfiable(s.guard & t.guard):
                        bad.append((s, t))
        return bad

    def is_deterministic(self, *, strict: bool = True) -> bool:
        """Def. 36 (``strict``: the P9 reading); an SRT with ε-transitions is not deterministic."""
        return self.is_epsilon_free() and not self.determinism_violations(strict=strict)

    # ------------------------------------------------------------------------------------------ drawing

    def state_label(self, q: int) -> str:
        """What state ``q`` is drawn as: its number, and its name when it has one (``3`` over ``{1,4}``)."""
        return f"{q}\n{self.names[q]}" if self.names is not None else str(q)

    def reachable(self) -> frozenset[int]:
        """The states some run reaches from ``q_s`` (Def. 24: along any transitions, ε included)."""
        return reach([self.start], ((t.source, t.target) for t in self.transitions))

    def coreachable(self) -> frozenset[int]:
        """The states from which some run reaches a final state (Def. 24)."""
        return reach(self.finals, ((t.target, t.source) for t in self.transitions))

    def useful(self) -> frozenset[int]:
        """The states an accepting run can visit (reachable and co-reachable), and ``q_s`` always: the
        states a drawing shows by default."""
        return self.reachable() & self.coreachable() | {self.start}

    def diagram(self, *, title: str | None = None, trim: bool = True) -> Diagram:
        """The drawing as in the SRT paper's figures: each edge carries ``φ ↑•`` or ``φ ↑⊗`` and ``↓W``; parallel
        transitions share one edge, one line each; finals are double-circled. Every state is drawn with its
        number; ``trim`` (the default) greys the states no accepting run visits (:meth:`useful`: unreachable, or
        unable to reach a final state, such as the pairs of a product whose outputs never agree) and says so in
        the caption (D384); ``trim=False`` draws them like the others."""
        useless = frozenset(range(self.states)) - self.useful() if trim else frozenset()
        lines: dict[tuple[int, int], list[str]] = {}
        for t in self.transitions:
            lines.setdefault((t.source, t.target), []).append(t.label())
        shown = title or (f"window {self.window}" if self.window else None)
        return state_diagram(name=title or "SRT", title=shown,
                             states={q: self.state_label(q) for q in range(self.states)},
                             initial=[self.start], final=self.finals,
                             edges=[(s, d, "\n".join(ls)) for (s, d), ls in lines.items()], useless=useless)

    def to_json(self) -> dict[str, Any]:
        """The transducer as a file's JSON object (docs/automaton-files.md, kind ``srt``): states ``0..states-1``,
        the start, the finals, the registers, the window (or null), whether conditions read positions, and the
        transitions with their condition in SREMO's condition syntax (``null``: ε), ``marked`` (• or ⊗) and the
        registers ``writes`` (Def. 21)."""
        return {**header("srt", ""), "states": self.states, "start": self.start,
                "finals": sorted(self.finals), "registers": sorted(self.registers), "window": self.window,
                "positions": self.positions,
                "transitions": [{"from": t.source, "guard": None if t.guard is None else t.guard.text(),
                                 "marked": t.marked, "writes": sorted(t.writes), "to": t.target}
                                for t in self.transitions]}

    def describe(self) -> str:
        """A readable listing: the repr, start and finals, one transition per line (the text form in Jupyter)."""
        def name(q: int) -> str:
            return self.state_label(q).replace("\n", " ")

        lines = [repr(self), f"  start:  {name(self.start)}", f"  finals: {', '.join(name(q) for q in sorted(self.finals)) or 'none'}"]
        lines += [f"  {name(t.source)} --{t.label()}--> {name(t.target)}" for t in self.transitions]
        return "\n".join(lines)

    def run(self, stream: Sequence[Event], *, pure: bool = False) -> list[frozenset[Match]]:
        """The streaming matches of Def. 32 by Alg. 1 (:class:`Recognizer`), one set per position."""
        return per_position(recognize(self, stream, pure=pure), len(stream))


# ---------------------------------------------------------------------------------------------- Alg. 1

RunState = tuple[int, Valuation, tuple[int, ...]]

RUN = "the run pool of Alg. 1 (the SRT paper §4.3)"
"""What the work budget's messages call the recognizer's work: one unit per run kept and per match reported."""


class Recognizer(StreamingRecognizer):
    """The streaming run-pool recognizer of the SRT paper §4.3, Alg. 1 (Wayeb), for the streaming matches of Def. 32.

    A run is ``(state, registers, marked positions)``. On each event ``t_k`` a fresh run starts in ``q_s`` (the
    ``⊤*`` prefix of the streaming expression ``e_s := ⊤*·e``), and every run moves along every transition out of
    its state's ε-closure whose condition ``(t_k, v) ⊨ φ`` holds, cloning itself when several do. A run whose
    new state's closure meets ``Q_f`` reports its positions if the transition marked (last-• reading, Def. 24),
    or always with ``pure=True``.

    **P7 fix** (docs/errata.md): Alg. 1 kills a run once it reports, which loses matches whenever a final state
    has successors (``a·b⁺`` on ``abbb`` reports only ``{1,2}``). We keep the run when its state has
    successors; ``kill_on_report=True`` reproduces the paper's loop. Runs are a set, so equal runs merge and
    outputs are sets (P11). With a ``window``, a transition may mark only within the marked span (Def. 39).
    """

    def __init__(self, srt: SRT, *, pure: bool = False, kill_on_report: bool = False) -> None:
        self.srt = srt
        self.pure = pure
        self.kill_on_report = kill_on_report
        self.runs: set[RunState] = set()
        # The steps of the last event: (the run's state, the consuming transition it took out of that state's
        # ε-closure), for whoever shows the run (the stepper); the ε-transitions in between are SRT.epsilon_path.
        self.steps: set[tuple[int, Transition]] = set()
        self.k = 0
        closure = {q: srt.closure([q]) for q in range(srt.states)}
        # Per state: the consuming transitions out of its ε-closure, each with its compiled condition and its
        # sorted writes; whether the closure is final.
        self._moves = {q: tuple((t, compiled(t.guard), tuple(sorted(t.writes)))  # type: ignore[arg-type]
                                for p in sorted(closure[q]) for t in srt.out(p) if not t.is_epsilon)
                       for q in range(srt.states)}
        self._final = {q: bool(closure[q] & srt.finals) for q in range(srt.states)}

    def feed(self, event: Event) -> frozenset[Match]:
        """Consume ``t_k``; return the matches reported at ``k`` (a set)."""
        k, w = self.k, self.srt.window
        if not isinstance(event, Event):
            raise StreamFormatError(f"position {k}: expected an Event, got {type(event).__name__}")
        if self.srt.positions:
            event = with_position(event, k)
        self.runs.add((self.srt.start, EMPTY, ()))  # e_s = ⊤*·e: a run may start at every position
        new: set[RunState] = set()
        reported: set[Match] = set()
        steps: set[tuple[int, Transition]] = set()
        finals = self._final
        for q, v, m in self.runs:
            for t, holds, writes in self._moves[q]:
                if not holds(event, v):
                    continue
                if t.marked:
                    if w is not None and m and k - m[0] + 1 > w:
                        continue  # Def. 39: the marked span would exceed the window
                    m2 = m + (k,)
                else:
                    m2 = m
                steps.add((q, t))
                if finals[t.target] and (t.marked or self.pure) and (w is None or m2):
                    reported.add(frozenset(m2))
                    if self.kill_on_report:
                        continue  # Alg. 1 as written (P7)
                if self._moves[t.target] and not self._expired(m2, k):
                    new.add((t.target, v.write(writes, event), m2))
        charge(RUN, len(new) + len(reported))  # core.budget: each run kept and each match, exponentially many
        self.runs = new
        self.steps = steps
        self.k += 1
        return frozenset(reported)

    def _expired(self, m: tuple[int, ...], k: int) -> bool:
        # Under the last-• reading a run reports only when it marks; once its next mark would leave the window
        # (Def. 39), it can never report again.
        w = self.srt.window
        return not self.pure and w is not None and bool(m) and (k + 1) - m[0] + 1 > w


def recognize(srt: SRT, stream: Iterable[Event], *, pure: bool = False,
              kill_on_report: bool = False) -> list[StreamOutput]:
    """The streaming matches of Def. 32 computed by Alg. 1 (with the P7 fix unless ``kill_on_report``)."""
    return list(Recognizer(srt, pure=pure, kill_on_report=kill_on_report).run(stream))
