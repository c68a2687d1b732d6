# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The per-event path of CORE's Algorithm 1 compiled (the CORE paper §4.3 and §4.4; docs/decisions.md D420–D424).

:class:`EvaluatorKernel` mirrors, method by method, :meth:`Evaluator.advance` (quiet events),
:meth:`Evaluator._advance` (one event: window, update, compaction, output), :meth:`Evaluator._flush`,
:meth:`Evaluator._advance_window`, :meth:`Evaluator._update` (the update phase of §4.3, with the pruning of
expired states, D26) and the list path of :meth:`Evaluator._output` (OUTPUT(j, ε) by Algorithm 2), over a :class:`~cer_theory.engines.core.tecs_compiled.CTecs`
whose operations it calls as C functions. The state these methods touch lives in C fields; the class is the
first base of ``CompiledEvaluator(EvaluatorKernel, Evaluator)`` (:mod:`cer_theory.engines.core.compiled`), so
Evaluator's ``__init__`` and every other method (inspection, reset, the chunked output, inert events) run
unchanged on the same fields. The readable methods are the reference: ``proofs_tests/engines/
test_engine_compiled.py`` runs both on generated queries and streams.
"""

from cpython.list cimport PyList_GET_SIZE, PyList_GET_ITEM
from cpython.pyport cimport PY_SSIZE_T_MAX
from libc.stdint cimport int64_t

from cer_theory.automata.determinize.bitmask import NO_MOVE
from cer_theory.engines.core.evaluator import Evaluator, last_admitted
from cer_theory.engines.core.tecs_compiled cimport CTecs

cdef object _NO_MOVE = NO_MOVE
cdef int64_t _NOTHING = 1 << 62  # evaluator._NOTHING: τ of a window that admits nothing
cdef double _INF = float("inf")
cdef object _last_admitted = last_admitted
cdef object _readable_output = Evaluator._output


cdef inline int64_t _id(object n) except? -2:
    return <int64_t>n


cdef class EvaluatorKernel:
    """The per-event path of :class:`~cer_theory.engines.core.evaluator.Evaluator` compiled:
    :meth:`advance` (quiet events), :meth:`_advance` (Algorithm 1's step with window and compaction),
    :meth:`_advance_window`, :meth:`_update` (the update phase, §4.3) and :meth:`_output` (OUTPUT(j, ε) by
    Algorithm 2), each mirroring the readable method of the same name line by line over a :class:`CTecs`.
    Used as the first base of ``CompiledEvaluator(EvaluatorKernel, Evaluator)``: Evaluator's ``__init__`` and
    every other method run unchanged on the C fields below."""

    cdef public object det, table, initial, window, limit, chunk, position, last_key
    cdef public CTecs tecs
    cdef public int64_t tau
    cdef public Py_ssize_t compact_min, _idle
    cdef public bint debug, instrument, _positional, _settled
    cdef public object _bottoms, _stats, _quiet, _safe_key, _safe_bottom

    def advance(self, j, mask, key):
        """:meth:`Evaluator.advance`: a quiet event (no run starts, T stays put, nothing final, no bottom node
        leaves the window) answered from the per-(T, bit vector) cache."""
        quiet = self._quiet
        if quiet is not None and key <= self._safe_key:
            q = (<dict>quiet).get(mask)
            if q is None:
                q = (<object>self)._learn_quiet(quiet, mask)
            if q:
                self._idle += 1
                self.position = j
                if self.window is not None:
                    self.last_key = key
                return []
        return self.c_advance(j, mask, key)

    def _advance(self, j, mask, key):
        return self.c_advance(j, mask, key)

    def keeps_after_inert(self, key, spent):
        """:meth:`Evaluator.keeps_after_inert`: whether T would still hold a det-state after inert events up to
        window key ``key`` (asked at every gap of skipped rows on the columnar path, D120, D451)."""
        cdef CTecs tecs = self.tecs
        cdef int64_t tau, b = tecs.base
        window = self.window
        if window is None:
            for p in <dict>self.table:
                if not spent[p]:
                    return True
            return False
        size, strict = window.size, window.strict
        tau = tecs.base + tecs.n  # tecs.next_id
        for start, bottom in self._bottoms:
            if (key - start < size) if strict else (key - start <= size):
                tau = bottom
                break
        for p, ul in (<dict>self.table).items():
            if not spent[p] and tecs.mx[_id((<list>ul)[0]) - b] >= tau:
                return True
        return False

    cdef c_advance(self, j, mask, key):
        """:meth:`Evaluator._advance`: one event through Algorithm 1 (update, then output), with the window and
        compaction around it (no debug mode: the compiled evaluator is made without it)."""
        cdef int64_t tau, dead
        cdef bint updated = False
        if self._idle:
            self.c_flush()
        window = self.window
        if window is None:
            tau = 0
            key = 0
        else:
            self.last_key = key
            tau = self.c_advance_window(key)
        self.position = j
        if tau == _NOTHING:
            self.table = {}
            self._stats.events += 1
        elif self.table or self.det.successors(self.initial, mask) is not _NO_MOVE:
            self.c_update(j, mask, tau, key)
            updated = True
        else:
            self._stats.events += 1
        if window is not None:
            dead = tau - self.tecs.base
            if dead >= self.compact_min and dead >= self.tecs.n - dead:
                self.tecs.compact(tau)
        out = self.c_output(j, tau) if updated and self.table else []
        self._quiet = (self.det.quiet_table(tuple(self.table))
                       if (<object>self).quiet_events and self._stats.per_event is None else None)
        dq = self._bottoms
        if not dq:
            self._safe_key = _INF
        elif dq[0][1] != self._safe_bottom:
            self._safe_bottom = dq[0][1]
            self._safe_key = _last_admitted(window, dq[0][0])
        self._settled = True
        return out

    cdef int c_flush(self) except -1:
        """:meth:`Evaluator._flush`: the quiet events since the last update added to the counts."""
        cdef Py_ssize_t idle = self._idle
        self._idle = 0
        st = self._stats
        st.events += idle
        if self.table:
            st.lookups += idle * (len(self.table) + 1)
            st.misses = self.det.misses
        return 0

    def _advance_window(self, key):
        return self.c_advance_window(key)

    cdef int64_t c_advance_window(self, key) except? -2:
        """:meth:`Evaluator._advance_window`: τ, the id of the oldest bottom node whose key is admitted."""
        cdef int64_t tau
        cdef bint empty
        size = self.window.size
        dq = self._bottoms
        if self.window.strict:
            while dq and not key - dq[0][0] < size:
                dq.popleft()
            empty = not size > 0
        else:
            while dq and not key - dq[0][0] <= size:
                dq.popleft()
            empty = size < 0
        if empty:
            tau = _NOTHING
        else:
            tau = dq[0][1] if dq else self.tecs.base + self.tecs.n
        self.tau = tau
        return tau

    def _update(self, j, mask, int64_t tau, key):
        self.c_update(j, mask, tau, key)

    cdef int c_update(self, j, mask, int64_t tau, key) except -1:
        """:meth:`Evaluator._update`: the update phase of Algorithm 1 for t_j (the CORE paper §4.3), with
        expired-state pruning (D26): the initial det-state first with a fresh bottom node, then every state of T
        in first-insertion order; •-successors get ``extend(merge(ul), j)``, ∘-successors the list or
        ``merge(ul)`` inserted."""
        cdef CTecs tecs = self.tecs
        cdef int64_t jj = j, bot, n, o, qm, qs
        cdef Py_ssize_t created0 = tecs.n, visited
        cdef int64_t *mx = tecs.mx
        cdef int64_t b = tecs.base
        cdef list ul, ul2
        cdef dict new = {}, table = self.table
        det = self.det
        row = (<dict>det.rows).get(mask)
        if row is None:
            row = det.row(mask)
        step = det.step
        init = self.initial
        pair = (<dict>row).get(init)
        if pair is None:
            pair = step(row, mask, init)
        qm, qs = pair
        if pair is not _NO_MOVE:
            bot = tecs.c_new_bottom(jj)
            if self.window is not None and tau <= bot:
                self._bottoms.append((key, bot))
            if qm >= 0:
                new[qm] = [tecs.c_extend(bot, jj)]
            if qs >= 0:
                ul2 = new.get(qs)
                if ul2 is None:
                    new[qs] = [bot]
                else:
                    tecs.c_insert(ul2, bot)
        for p, ul_ in table.items():
            ul = <list>ul_
            if tau:
                mx = tecs.mx
                if mx[_id(ul[0]) - b] < tau:
                    continue
                while mx[_id(ul[PyList_GET_SIZE(ul) - 1]) - b] < tau:
                    ul.pop()
            pair = (<dict>row).get(p)
            if pair is None:
                pair = step(row, mask, p)
            qm, qs = pair
            if qm >= 0:
                n = _id(ul[0]) if PyList_GET_SIZE(ul) == 1 else tecs.c_merge(ul)
                o = tecs.c_extend(n, jj)
                ul2 = new.get(qm)
                if ul2 is None:
                    new[qm] = [o]
                else:
                    tecs.c_insert(ul2, o)
                if qs >= 0:
                    ul2 = new.get(qs)
                    if ul2 is None:
                        new[qs] = ul
                    else:
                        tecs.c_insert(ul2, n)
            elif qs >= 0:
                ul2 = new.get(qs)
                if ul2 is None:
                    new[qs] = ul
                else:
                    tecs.c_insert(ul2, _id(ul[0]) if PyList_GET_SIZE(ul) == 1 else tecs.c_merge(ul))
        self.table = new
        # Evaluator._count_update, without the instrumented counts (the compiled evaluator has none)
        st = self._stats
        created = tecs.n - created0
        st.events += 1
        st.nodes_created += created
        if created > st.max_nodes_per_event:
            st.max_nodes_per_event = created
        st.lookups += len(table) + 1
        st.misses = det.misses
        if tecs.n > st.max_live_nodes:
            st.max_live_nodes = tecs.n
        return 0

    def _output(self, j, int64_t tau):
        return self.c_output(j, tau)

    cdef c_output(self, j, int64_t tau):
        """:meth:`Evaluator._output`'s list path: Algorithm 2 on every final state's union-list entries in order;
        with :attr:`chunk` set, the readable method (it returns :class:`Outputs` read in pieces) when there is
        something to enumerate."""
        cdef CTecs tecs = self.tecs
        cdef int64_t b = tecs.base, n
        cdef Py_ssize_t left, got, k
        cdef list out, ul
        final = self.det.final
        if self.chunk is not None:
            # The readable method (its Outputs read in pieces) only where some final state's first entry is alive:
            # at most positions none is, and its answer is then the empty list, as here (`cer-theory run` reads in
            # chunks: on P3' over 1M stock events, 149k calls of the readable method took 0.2 s for nothing).
            for p, ul_ in (<dict>self.table).items():
                if final[p]:
                    ul = <list>ul_
                    if PyList_GET_SIZE(ul) and tecs.mx[_id(<object>PyList_GET_ITEM(ul, 0)) - b] >= tau:
                        return _readable_output(self, j, tau)
            return []
        out = []
        # (a LIMIT beyond a Py_ssize_t caps nothing a position can enumerate: CEQL's LIMIT is any natural number)
        left = -1 if self.limit is None else min(self.limit, PY_SSIZE_T_MAX)
        for p, ul_ in (<dict>self.table).items():
            if final[p]:
                ul = <list>ul_
                for k in range(PyList_GET_SIZE(ul)):
                    n = _id(<object>PyList_GET_ITEM(ul, k))
                    if tecs.mx[n - b] < tau or left == 0:
                        break
                    got = tecs.c_enumerate_into(n, j, tau, out, left, None)
                    if left > 0:
                        left -= got
        self._stats.outputs += len(out)
        return out
