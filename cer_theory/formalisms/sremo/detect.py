"""Detection: *whether* a streaming match (the SRT paper, Alevizos, Artikis, Paliouras, Def. 32) ends at each position,
computed over the groups of :class:`~cer_theory.formalisms.sremo.shared.SharedRecognizer` with one integer per
group instead of its DAG of marked sets (docs/decisions.md D113–D115).

**One number per group** (D113). A group of runs in state ``q`` with registers ``v`` holds a set of marked
position sets. Whether a run of the group reports, now or later, depends on ``q``, ``v``, the events to come
and, through Def. 39's window, only on the *first* mark of its marked set: a mark at ``k`` is allowed iff the
first mark is ≥ ``k − w + 1``, and the later positions of the set are never read again. Among the members of a
group, the one with the latest first mark can take every transition another member can take, so existence is
decided by ``E`` (the group holds the empty marking) and ``L`` (the latest first mark of its non-empty
markings). A transition maps ``(E, L)`` as the DAG of D58 maps its nodes: unmarked, to ``(E, L)``; marked at
``k``, to ``(False, k)`` if ``E``, else to ``(False, L)`` if ``L ≥ k − w + 1``, else to nothing. Merging two
groups with equal ``(q', v')`` takes ``E ∨ E'`` and ``max(L, L')``. A move reports as in
:class:`~.shared.SharedRecognizer`: into a final closure, marked or ``pure``, when some ``L`` arrives or ``E``
arrives without a window.

**Quiet events** (D114). Most events of a skip-till-any pattern enable only the ``⊤*`` self-loops (unconditional,
unmarked, non-writing): seq₃ reads ten stock names and looks at three. The event-only conjunct of every other
transition (:func:`~.shared.move_table`) is checked once per event, through a hash index on one equality
conjunct (``name = "INTC"``) when the conditions have one. If none holds and no occupied state has a
transition without an event-only conjunct, the event is *quiet*: every group in a state with a self-loop is its
own successor, every other group dies, and nothing new is reported except, under the ``pure`` reading, by the
self-loops of final states. We apply exactly that and visit no group. Expiry by the window needs no visit
either: a group whose ``L`` has fallen below ``k − w + 2`` can never mark again, so under the last-• reading it
and its successors never report; the periodic sweep that drops such groups changes the pool, never an output.

**Bulk moves and first reports** (D115). A transition without a register conjunct and without writes moves every
group of its state the same way, so it is one pass over a dict ``v → L`` (seq₃'s RIMM step). A transition into
a final closure that keeps no run only asks whether some group reports; its groups are visited newest first
and the visit stops at the first report. :attr:`Detector.visited` counts the groups visited, for the tests
that assert the complexity by counting.

The readable recognizers (:class:`~.srt.Recognizer`, :class:`~.shared.SharedRecognizer`) are the reference:
property tests check that :meth:`Detector.feed` says ``True`` exactly where they report.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from cer_theory.automata.registers import EMPTY, Valuation
from cer_theory.core.errors import StreamFormatError
from cer_theory.core.events import TYPE_KEY, Event
from cer_theory.core.predicates.ast import And, Attr, Cmp, Const, IsType, Predicate
from cer_theory.formalisms.sremo.shared import MoveTable, move_table
from cer_theory.formalisms.sremo.srt import SRT, with_position

_NONE = -(1 << 62)
_NO_CHECKS: tuple[int, ...] = ()


def equality_key(p: Predicate) -> tuple[str, object] | None:
    """An ``(attribute, constant)`` such that ``p`` implies ``head.attribute = constant``, read off a conjunct
    (``name = "INTC"``, ``type = "B"``), or None. Def. 13's ``=`` holds only between values of one kind that are
    equal in Python, so equal values hash alike and a dict lookup of the event's value finds every candidate."""
    for part in (p.args if isinstance(p, And) else (p,)):
        if isinstance(part, IsType) and part.slot is None:
            return TYPE_KEY, part.name
        if isinstance(part, Cmp) and part.op == "=":
            for a, c in ((part.left, part.right), (part.right, part.left)):
                if isinstance(a, Attr) and a.slot is None and isinstance(c, Const):
                    return a.name, c.value
    return None


class Detector:
    """Detection of the streaming matches of Def. 32 (module docstring): :meth:`feed` consumes ``t_k`` and says
    whether a match ends at ``k``; :meth:`run` yields those ``k``. Same readings as
    :class:`~.shared.SharedRecognizer` (last-• by default, ``pure``), same window (Def. 39).

    Counters: :attr:`visited` (groups visited), :attr:`quiet` (events that visited nothing), :attr:`groups`
    and :attr:`peak_groups` (live groups ``(q, v)`` with their ``E`` and ``L`` parts counted apart).
    """

    def __init__(self, srt: SRT, *, pure: bool = False) -> None:
        self.srt = srt
        self.pure = pure
        self.window = srt.window
        self.k = 0
        self.visited = 0
        self.quiet = 0
        self.peak_groups = 0
        table = move_table(srt)
        n = srt.states
        final, stays = table.final, table.stays
        self._stays = [stays[q] for q in range(n)]
        # Per state: the latest first mark of each valuation's non-empty markings, and the valuations holding
        # the empty marking (docstring: (E, L)); and the log of the valuations whose L rose (incremental moves).
        self.marks: list[dict[Valuation, int]] = [{} for _ in range(n)]
        self.empties: list[set[Valuation]] = [set() for _ in range(n)]
        self._log: list[list[Valuation]] = [[] for _ in range(n)]
        self._epoch = [0] * n
        self._held: set[int] = set()  # states without a self-loop that may hold groups (they die at the next event)
        self._final_stays = tuple(q for q in range(n) if stays[q] and final[q])
        into = redirections(table)
        self._start = into.get(srt.start, srt.start)
        # A move: (number, source, register check, target, writes, marked, reports, keeps, incremental). A move
        # that neither reports nor leads to a state with moves or a self-loop changes nothing and is dropped.
        by_check: list[list[tuple]] = [[] for _ in table.free]
        always: list[tuple] = []
        reached, todo = {self._start}, [self._start]
        while todo:
            q = todo.pop()
            for fi, regs, target, writes, marked in table.moves[q]:
                target = into.get(target, target)
                reports = final[target] and (marked or pure)
                keeps = bool(table.moves[target]) or stays[target]
                if not (reports or keeps):
                    continue
                incremental = (regs is None and not writes and keeps and not reports and stays[q]
                               and stays[target])
                number = sum(map(len, by_check)) + len(always)
                move = (number, q, regs, target, writes, marked, reports, keeps, incremental)
                (always if fi < 0 else by_check[fi]).append(move)
                if target not in reached:
                    reached.add(target)
                    todo.append(target)
        self._cursor: dict[int, tuple[int, int]] = {}  # incremental move -> (epoch, log position) of its source
        self._checks = table.free
        self._by_check = tuple(tuple(ms) for ms in by_check)
        self._always = tuple(always)
        self._always_states = tuple(sorted({m[1] for m in always}))
        # The hash index of the event-only conditions on one attribute (the one most of them test with "=").
        keys = [equality_key(p) for p in table.free_predicates]
        counts: dict[str, int] = {}
        for fi, key in enumerate(keys):
            if key is not None and by_check[fi]:
                counts[key[0]] = counts.get(key[0], 0) + 1
        self._attr = max(counts, key=lambda a: counts[a]) if counts else None
        index: dict[object, list[int]] = {}
        unindexed: list[int] = []
        for fi, key in enumerate(keys):
            if not by_check[fi]:
                continue  # no reachable move reads it
            if key is not None and key[0] == self._attr:
                index.setdefault(key[1], []).append(fi)
            else:
                unindexed.append(fi)
        self._index = {value: tuple(fis) for value, fis in index.items()}
        self._unindexed = tuple(unindexed)
        self._sweep_every = max(1, (self.window or 0) // 4)

    @property
    def groups(self) -> int:
        return sum(map(len, self.marks)) + sum(map(len, self.empties))

    def run(self, stream: Iterable[Event]) -> Iterator[int]:
        """The positions ``k`` at which a streaming match ends, increasing."""
        feed = self.feed
        for event in stream:
            k = self.k
            if feed(event):
                yield k

    def feed(self, event: Event) -> bool:
        """Consume ``t_k``: does a streaming match (Def. 32) end at ``k``?"""
        k = self.k
        if type(event) is not Event and not isinstance(event, Event):
            raise StreamFormatError(f"position {k}: expected an Event, got {type(event).__name__}")
        self.k = k + 1
        if self.srt.positions:
            event = with_position(event, k)
        marks, empties = self.marks, self.empties
        empties[self._start].add(EMPTY)  # e_s = ⊤*·e: a run may start at every position
        checks = self._checks
        if self._attr is not None:
            candidates = self._index.get(event.get(self._attr), _NO_CHECKS)
            enabled = [fi for fi in candidates if checks[fi](event, EMPTY)] if candidates else []
            if self._unindexed:
                enabled += [fi for fi in self._unindexed if checks[fi](event, EMPTY)]
        else:
            enabled = [fi for fi in self._unindexed if checks[fi](event, EMPTY)]
        w, pure = self.window, self.pure
        found = pure and self._stay_reports()
        if not enabled:
            for q in self._always_states:
                if marks[q] or empties[q]:
                    break
            else:
                self.quiet += 1  # D114: groups in self-loop states stay, the others die, no other report
                if self._held:
                    self._clear_held()
                if w is not None and not k % self._sweep_every:
                    self._sweep(k)
                return found
        lo = k - w + 1 if w is not None else _NONE  # Def. 39: a mark at k needs a first mark ≥ lo
        dead = k - w + 2 if (w is not None and not pure) else _NONE  # last-•: below this, no more marks
        in_marks: dict[int, dict[Valuation, int]] = {}
        in_empties: dict[int, set[Valuation]] = {}
        visited = 0
        moves = [m for fi in enabled for m in self._by_check[fi]]
        if self._always:
            moves += self._always
        for number, q, regs, target, writes, marked, reports, keeps, incremental in moves:
            src, src_e = marks[q], empties[q]
            if not src and not src_e:
                continue
            if not keeps:  # it only reports: is there one group that does? (newest first, stop at the first)
                if found:
                    continue
                if src_e and (marked or w is None):
                    for v in src_e:
                        visited += 1
                        if regs is None or regs(event, v):
                            found = True
                            break
                if not found:
                    for v in reversed(src):
                        visited += 1
                        if (not marked or src[v] >= lo) and (regs is None or regs(event, v)):
                            found = True
                            break
                continue
            bound = lo if marked else _NONE
            keep_from = max(bound, dead)
            out = in_marks.get(target)
            if regs is None and not writes:  # D115: every group moves the same way
                if reports and not found:
                    found = bool(src_e and (marked or w is None)) or any(x >= bound for x in src.values())
                changed = self._changed(number, q) if incremental else None
                if changed is None:
                    visited += len(src) + len(src_e)
                    moved = {v: x for v, x in src.items() if x >= keep_from}
                else:  # only the groups whose L rose since this move last ran (D115)
                    visited += len(changed) + len(src_e)
                    moved = {}
                    for v in changed:
                        x = src.get(v, _NONE)
                        if x >= keep_from:
                            moved[v] = x
                if marked and k >= keep_from:
                    for v in src_e:
                        moved[v] = k
                elif not marked and src_e:
                    in_empties.setdefault(target, set()).update(src_e)
                if out is None:
                    in_marks[target] = moved
                else:
                    _merge(out, moved, None)
                continue
            if out is None:
                out = in_marks[target] = {}
            for v in src_e:
                visited += 1
                if regs is not None and not regs(event, v):
                    continue
                v2 = v.write(writes, event) if writes else v
                if marked:
                    if k >= keep_from:
                        out[v2] = k  # the latest first mark there can be
                    found = found or reports
                else:
                    in_empties.setdefault(target, set()).add(v2)
                    found = found or (reports and w is None)
            for v, x in src.items():
                visited += 1
                if x < bound or (regs is not None and not regs(event, v)):
                    continue
                found = found or reports
                if x >= keep_from:
                    v2 = v.write(writes, event) if writes else v
                    if out.get(v2, _NONE) < x:
                        out[v2] = x
        self.visited += visited
        if self._held:
            self._clear_held()
        stays, held, logs = self._stays, self._held, self._log
        for target, arrived in in_marks.items():
            if not arrived:
                continue
            if not stays[target]:
                held.add(target)
                marks[target] = arrived  # cleared above
                continue
            log = logs[target]
            if marks[target]:
                _merge(marks[target], arrived, log)
            else:
                marks[target] = arrived
                log.extend(arrived)
            if len(log) > 2 * len(marks[target]) + 64:  # compact: the incremental moves start over
                logs[target] = []
                self._epoch[target] += 1
        for target, arrived_e in in_empties.items():
            if not stays[target]:
                held.add(target)
            empties[target] |= arrived_e
        if w is not None and not k % self._sweep_every:
            self._sweep(k)
        live = self.groups
        if live > self.peak_groups:
            self.peak_groups = live
        return found

    def _changed(self, number: int, q: int) -> list[Valuation] | None:
        """The valuations of state ``q`` whose ``L`` rose since the incremental move ``number`` last ran, or
        None when it must move every group (first run, or the log was compacted since)."""
        epoch, log = self._epoch[q], self._log[q]
        last = self._cursor.get(number)
        self._cursor[number] = (epoch, len(log))
        if last is None or last[0] != epoch:
            return None
        return log[last[1]:]

    def _stay_reports(self) -> bool:
        """Under the pure reading, a group in a final state with a self-loop reports at every event (its
        non-empty markings; the empty one only without a window)."""
        w = self.window
        return any(self.marks[q] or (self.empties[q] and w is None) for q in self._final_stays)

    def _clear_held(self) -> None:
        for q in self._held:
            self.marks[q] = {}
            self.empties[q] = set()
        self._held = set()

    def _sweep(self, k: int) -> None:
        """Drop the groups that can no longer mark (last-• reading with a window; D114: outputs unchanged)."""
        if self.pure:
            return
        dead = k - self.window + 2  # type: ignore[operator]
        for q, src in enumerate(self.marks):
            if src and any(x < dead for x in src.values()):
                self.marks[q] = {v: x for v, x in src.items() if x >= dead}


def _merge(into: dict[Valuation, int], more: dict[Valuation, int], log: list[Valuation] | None) -> None:
    """Merge groups of one state: the latest first mark of each valuation (D113); ``log`` records the
    valuations whose mark rose."""
    get = into.get
    for v, x in more.items():
        if get(v, _NONE) < x:
            into[v] = x
            if log is not None:
                log.append(v)


def redirections(table: MoveTable) -> dict[int, int]:
    """States to merge into another before running (D115): ``q ↦ t`` when ``q`` has no self-loop, ``t`` has
    one, both are final or neither, and ``q``'s moves are ``t``'s plus an unconditional, unmarked, non-writing
    move to ``t``. A group in ``q`` then does at every event what the same group in ``t`` does (the move to
    ``t`` is ``t``'s self-loop, the other moves are the same, and so are the reports into and out of ``q``), so
    arrivals at ``q`` may go to ``t`` instead. Skip-till-any's ``⊤*`` gaps compile to such pairs (the state
    after a marked event and the state of the gap after it)."""
    out: dict[int, int] = {}
    for q, moves in table.moves.items():
        if table.stays[q]:
            continue
        for m in moves:
            fi, regs, t, writes, marked = m
            if (fi < 0 and regs is None and not writes and not marked and t != q and table.stays[t]
                    and table.final[t] == table.final[q] and set(moves) - {m} == set(table.moves[t])):
                out[q] = t
                break
    return out


def detect(srt: SRT, stream: Iterable[Event], *, pure: bool = False) -> list[int]:
    """The positions at which a streaming match of Def. 32 ends, by :class:`Detector`."""
    return list(Detector(srt, pure=pure).run(stream))


__all__ = ["Detector", "detect", "equality_key"]
