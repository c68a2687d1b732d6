# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The tECS of CORE compiled: :class:`CTecs` mirrors :class:`cer_theory.engines.core.tecs.Tecs` (the CORE paper
§4.1–4.3 and App. B; docs/decisions.md D420–D424) with C types.

The readable tECS keeps a node in four parallel Python lists; here they are four growable ``int64`` arrays with
the same meaning (node ``n`` at index ``n - base``: ``pos``, ``nxt`` = next/left, ``rgt`` = right, ``mx`` = the
id of the bottom node whose position is max(n)), the same ids, the same O(1) operations of §4.2 (``new_bottom``,
``extend``, ``union`` of Fig. 5 (a)–(d), union-lists' ``insert`` and ``merge`` of Fig. 5e), the same compaction
(§4.4, D26), and Algorithm 2 (:meth:`CTecs.enumerate_into`, Theorem 2) with its stack and path in C arrays,
building the same :class:`~cer_theory.core.events.CoreComplexEvent` objects in the same order. Each C function
names the readable method it mirrors; the readable one is the reference (``proofs_tests/engines/
test_engine_compiled.py`` compares them). From Python a :class:`CTecs` reads as a :class:`Tecs` does
(``tecs.mx[n - tecs.base]``, ``next_id``, ``enumerate_into`` with a resumable ``dfs``, ``compact``,
``describe``), so the readable evaluator's methods run on it unchanged. There is no debug mode: debug and
instrumented evaluators use the readable tECS.
"""

from cpython.list cimport PyList_GET_SIZE, PyList_GET_ITEM
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.long cimport PyLong_FromLongLong
from cpython.pyport cimport PY_SSIZE_T_MAX
from cpython.ref cimport Py_INCREF
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memmove

from cer_theory.core.events import CoreComplexEvent
from cer_theory.engines.core.tecs import TecsError

cdef extern from *:
    """
    /* A CoreComplexEvent as make_ce builds it: the instance allocated by its type (object.__new__ without the
       argument checks) and its three slots set through their member descriptors. */
    static PyObject *cer_alloc(PyObject *type) {
        return ((PyTypeObject *)type)->tp_alloc((PyTypeObject *)type, 0);
    }
    static int cer_descr_set(PyObject *descr, PyObject *obj, PyObject *value) {
        return Py_TYPE(descr)->tp_descr_set(descr, obj, value);
    }
    """
    object cer_alloc(object type)
    int cer_descr_set(object descr, object obj, object value) except -1

cdef object _CE = CoreComplexEvent
cdef object _START = CoreComplexEvent.__dict__["start"]
cdef object _END = CoreComplexEvent.__dict__["end"]
cdef object _POSITIONS = CoreComplexEvent.__dict__["positions"]
cdef int64_t NIL = -1


cdef inline int64_t _id(object n) except? -2:
    return <int64_t>n


cdef int64_t *_resized(int64_t *array, Py_ssize_t size) except NULL:
    """``array`` reallocated to ``size`` items (MemoryError if it cannot be: the old array is then kept)."""
    cdef int64_t *grown = <int64_t *>realloc(array, size * sizeof(int64_t))
    if not grown:
        raise MemoryError()
    return grown


cdef class _Column:
    """One of the tECS's arrays read from Python (``tecs.mx[n - tecs.base]``), as the readable code reads its lists."""

    cdef CTecs tecs
    cdef int which

    def __cinit__(self, CTecs tecs, int which):
        self.tecs, self.which = tecs, which

    def __len__(self):
        return self.tecs.n

    def __getitem__(self, Py_ssize_t i):
        cdef CTecs t = self.tecs
        if i < 0:
            i += t.n
        if not 0 <= i < t.n:
            raise IndexError("tECS index out of range")
        return _read(t, self.which, i)


cdef inline int64_t _read(CTecs t, int which, Py_ssize_t i):
    if which == 0:
        return t.pos[i]
    if which == 1:
        return t.nxt[i]
    if which == 2:
        return t.rgt[i]
    return t.mx[i]


cdef class CTecs:
    """:class:`~cer_theory.engines.core.tecs.Tecs` in four growable ``int64`` arrays (node ``n`` at index
    ``n - base``; the same ids, kinds and max-starts as the readable tECS, §4.1), with its O(1) operations
    (§4.2) as C functions. From Python it reads as the readable one does (``pos``, ``mx``, ``base``,
    ``next_id``, ``enumerate_into``, ``compact``, ``clear``)."""

    def __cinit__(self, *, debug=False):
        if debug:
            raise ValueError("the compiled tECS has no debug mode: use cer_theory.engines.core.tecs.Tecs")
        # small at first: an engine keeps one tECS per active PARTITION BY key, most of them with a few nodes (the
        # arrays double as they fill, amortized O(1) per node)
        self.cap, self.scap, self.pcap = 16, 16, 16
        self.pos = <int64_t *>malloc(self.cap * sizeof(int64_t))
        self.nxt = <int64_t *>malloc(self.cap * sizeof(int64_t))
        self.rgt = <int64_t *>malloc(self.cap * sizeof(int64_t))
        self.mx = <int64_t *>malloc(self.cap * sizeof(int64_t))
        self.stack = <int64_t *>malloc(self.scap * sizeof(int64_t))
        self.path = <int64_t *>malloc(self.pcap * sizeof(int64_t))
        if not (self.pos and self.nxt and self.rgt and self.mx and self.stack and self.path):
            raise MemoryError()
        self.n = 0
        self.base = 0

    def __dealloc__(self):
        free(self.pos); free(self.nxt); free(self.rgt); free(self.mx); free(self.stack); free(self.path)

    # ------------------------------------------------------------------ reading (the readable tECS's names)

    @property
    def debug(self):
        return False

    @property
    def next_id(self):
        return self.base + self.n

    @property
    def pos(self):
        return _Column(self, 0)

    @property
    def nxt(self):
        return _Column(self, 1)

    @property
    def rgt(self):
        return _Column(self, 2)

    @property
    def mx(self):
        return _Column(self, 3)

    def __len__(self):
        return self.n

    def alive(self, int64_t n):
        return self.base <= n < self.base + self.n

    def _index(self, int64_t n):
        if not self.base <= n < self.base + self.n:
            raise TecsError(f"node {n} is not stored (live ids are {self.base}..{self.base + self.n - 1})")
        return n - self.base

    def kind(self, n):
        cdef Py_ssize_t i = self._index(n)
        return "union" if self.rgt[i] >= 0 else "bottom" if self.nxt[i] < 0 else "output"

    def max_start(self, n):
        return self.pos[self.mx[self._index(n)] - self.base]

    def max_id(self, n):
        return self.mx[self._index(n)]

    def position(self, n):
        return self.pos[self._index(n)]

    def next(self, n):
        return self.nxt[self._index(n)]

    left = next

    def right(self, n):
        return self.rgt[self._index(n)]

    def describe(self, n):
        """:meth:`Tecs.describe`: ``B3(3)``, ``O4(1)``, ``U(1)`` (the CORE paper Fig. 6)."""
        kind, ms = self.kind(n), self.max_start(n)
        if kind == "union":
            return f"U({ms})"
        return f"{'B' if kind == 'bottom' else 'O'}{self.position(n)}({ms})"

    # ------------------------------------------------------------------ node operations (O(1), §4.2)

    cdef int _grow(self) except -1:
        """Double the four arrays' capacity (amortized O(1) per node, as a list's append)."""
        cdef Py_ssize_t cap = self.cap * 2
        self.pos = _resized(self.pos, cap)
        self.nxt = _resized(self.nxt, cap)
        self.rgt = _resized(self.rgt, cap)
        self.mx = _resized(self.mx, cap)
        self.cap = cap
        return 0

    cdef int64_t _node(self, int64_t position, int64_t nxt, int64_t rgt, int64_t mx) except -2:
        cdef Py_ssize_t i = self.n
        if i == self.cap:
            self._grow()
        self.pos[i], self.nxt[i], self.rgt[i] = position, nxt, rgt
        self.mx[i] = mx if mx >= 0 else self.base + i
        self.n = i + 1
        return self.base + i

    cdef int64_t c_new_bottom(self, int64_t i) except -2:
        """``new_bottom(i)`` (:meth:`Tecs.new_bottom`)."""
        return self._node(i, NIL, NIL, -1)

    cdef int64_t c_extend(self, int64_t n, int64_t j) except -2:
        """``extend(n, j)`` (:meth:`Tecs.extend`)."""
        return self._node(j, n, NIL, self.mx[n - self.base])

    cdef int64_t c_u(self, int64_t left, int64_t right) except -2:
        """A raw union node U(left, right) (:meth:`Tecs._u`)."""
        return self._node(NIL, left, right, self.mx[left - self.base])

    cdef int64_t c_union(self, int64_t n1, int64_t n2) except -2:
        """``union(n1, n2)``: Fig. 5 (a)–(d) (:meth:`Tecs.union`)."""
        cdef int64_t b = self.base
        cdef int64_t r1 = self.rgt[n1 - b], r2, l1, l2, r
        if r1 < 0:
            return self.c_u(n1, n2)
        r2 = self.rgt[n2 - b]
        if r2 < 0:
            return self.c_u(n2, n1)
        l1, l2 = self.nxt[n1 - b], self.nxt[n2 - b]
        if r1 < b:
            return self.c_u(l1, n2 if r2 >= b else l2)
        if r2 < b:
            return self.c_u(l2, n1)
        r = self.c_u(r1, r2) if self.mx[r1 - b] >= self.mx[r2 - b] else self.c_u(r2, r1)
        return self.c_u(l1, self.c_u(l2, r))

    cdef int c_insert(self, list ul, int64_t n) except -1:
        """``insert(ul, n)`` (:meth:`Tecs.insert`), ``ul`` a list of node ids."""
        cdef int64_t b = self.base
        cdef int64_t m = self.mx[n - b], mk
        cdef Py_ssize_t k, size = PyList_GET_SIZE(ul)
        for k in range(1, size):
            mk = self.mx[_id(<object>PyList_GET_ITEM(ul, k)) - b]
            if mk == m:
                ul[k] = self.c_union(_id(<object>PyList_GET_ITEM(ul, k)), n)
                return 0
            if mk < m:
                ul.insert(k, n)
                return 0
        ul.append(n)
        return 0

    cdef int64_t c_merge(self, list ul) except -2:
        """``merge(ul)``: Fig. 5e (:meth:`Tecs.merge`)."""
        cdef Py_ssize_t k = PyList_GET_SIZE(ul) - 1, i
        cdef int64_t n = _id(<object>PyList_GET_ITEM(ul, k))
        for i in range(k - 1, -1, -1):
            n = self.c_u(_id(<object>PyList_GET_ITEM(ul, i)), n)
        return n

    # From Python the operations check the ids they are given (``_stored``): the C functions read the arrays at
    # ``n - base`` unchecked, and an id never made or dropped by compaction would be read past the arrays' ends
    # (where the readable tECS's lists raise IndexError). The compiled evaluator calls the C functions.

    cdef int _stored(self, int64_t n) except -1:
        if not self.base <= n < self.base + self.n:
            raise TecsError(f"node {n} is not stored (live ids are {self.base}..{self.base + self.n - 1})")
        return 0

    cdef int _stored_list(self, list ul) except -1:
        if not ul:
            raise TecsError("empty union-list")
        for n in ul:
            self._stored(n)
        return 0

    def new_bottom(self, int64_t i):
        return self.c_new_bottom(i)

    def extend(self, int64_t n, int64_t j):
        self._stored(n)
        return self.c_extend(n, j)

    def union(self, int64_t n1, int64_t n2):
        self._stored(n1)
        self._stored(n2)
        return self.c_union(n1, n2)

    @staticmethod
    def new_ulist(n):
        return [n]

    def insert(self, list ul, int64_t n):
        self._stored_list(ul)
        self._stored(n)
        self.c_insert(ul, n)

    def merge(self, list ul):
        self._stored_list(ul)
        return self.c_merge(ul)

    # ------------------------------------------------------------------ Algorithm 2

    cdef int _push(self, Py_ssize_t top, int64_t node, int64_t plen) except -1:
        while top + 2 > self.scap:
            self.stack = _resized(self.stack, 2 * self.scap)
            self.scap *= 2
        self.stack[top], self.stack[top + 1] = node, plen
        return 0

    cdef int _add(self, Py_ssize_t plen, int64_t position) except -1:
        while plen + 1 > self.pcap:
            self.path = _resized(self.path, 2 * self.pcap)
            self.pcap *= 2
        self.path[plen] = position
        return 0

    cdef Py_ssize_t c_enumerate_into(self, int64_t n, object end, int64_t tau, list out, Py_ssize_t limit,
                                     object dfs) except -1:
        """:meth:`Tecs.enumerate_into`: Algorithm 2 appending ⟦n⟧^ε(end) to ``out`` in the same order (a
        left-first DFS whose stack holds a right child only if its max is ≥ τ; the path truncated on backtrack);
        ``dfs`` the readable one's ``(stack, path)`` lists to resume, written back when it stops."""
        cdef int64_t b = self.base, m, r, plen
        cdef Py_ssize_t i, top = 0, length = 0, count = 0, k
        cdef int64_t *pos = self.pos
        cdef int64_t *nxt = self.nxt
        cdef int64_t *rgt = self.rgt
        cdef int64_t *mx = self.mx
        cdef object ce, positions, value
        if mx[n - b] < tau or limit == 0:
            return 0
        if dfs is None:
            self._push(0, n, 0)
            top = 2
        else:
            stack, path = dfs
            for k in range(0, len(stack), 2):
                self._push(top, stack[k], stack[k + 1])
                top += 2
            for k in range(len(path)):
                self._add(length, path[k])
                length += 1
        while top:
            top -= 2
            m, plen = self.stack[top], self.stack[top + 1]
            length = plen
            while True:
                i = m - b
                r = rgt[i]
                if r >= 0:
                    if r >= tau and mx[r - b] >= tau:
                        self._push(top, r, length)
                        top += 2
                    m = nxt[i]
                    continue
                m = nxt[i]
                if m < 0:
                    positions = PyTuple_New(length)
                    for k in range(length):
                        value = PyLong_FromLongLong(self.path[length - 1 - k])
                        Py_INCREF(value)
                        PyTuple_SET_ITEM(positions, k, value)
                    ce = cer_alloc(_CE)
                    cer_descr_set(_START, ce, PyLong_FromLongLong(pos[i]))
                    cer_descr_set(_END, ce, end)
                    cer_descr_set(_POSITIONS, ce, positions)
                    out.append(ce)
                    count += 1
                    if count == limit:
                        if dfs is not None:
                            self._store(dfs, top, length)
                        return count
                    break
                self._add(length, pos[i])
                length += 1
        if dfs is not None:
            self._store(dfs, top, length)
        return count

    cdef int _store(self, object dfs, Py_ssize_t top, Py_ssize_t length) except -1:
        stack, path = dfs
        stack[:] = [self.stack[k] for k in range(top)]
        path[:] = [self.path[k] for k in range(length)]
        return 0

    def enumerate_into(self, int64_t n, end, int64_t tau, list out, limit=-1, dfs=None):
        """:meth:`Tecs.enumerate_into`, compiled (a negative ``limit`` is none, as there; one beyond a Py_ssize_t
        caps nothing). ``n`` and the nodes of a resumed ``dfs`` must be stored, and τ is taken as at least
        ``base``: a node below it was dropped as expired (§4.4), so only right children below τ may dangle."""
        cdef Py_ssize_t k
        self._stored(n)
        if dfs is not None:
            stack = dfs[0]
            for k in range(0, len(stack), 2):
                self._stored(stack[k])
        if tau < self.base:
            tau = self.base
        return self.c_enumerate_into(n, end, tau, out, -1 if limit < 0 else min(limit, PY_SSIZE_T_MAX), dfs)

    def enumerate(self, int64_t n, end, int64_t tau=0):
        """:meth:`Tecs.enumerate`'s CEs, enumerated at once (not lazily: the compiled tECS is read by the tests and
        the readable methods, which consume it whole)."""
        out = []
        self.enumerate_into(n, end, tau, out)
        return iter(out)

    # ------------------------------------------------------------------ memory (§4.4)

    def compact(self, int64_t boundary):
        """:meth:`Tecs.compact`: drop every node with id < ``boundary``."""
        cdef int64_t k = min(boundary, self.base + self.n) - self.base
        if k <= 0:
            return 0
        memmove(self.pos, self.pos + k, (self.n - k) * sizeof(int64_t))
        memmove(self.nxt, self.nxt + k, (self.n - k) * sizeof(int64_t))
        memmove(self.rgt, self.rgt + k, (self.n - k) * sizeof(int64_t))
        memmove(self.mx, self.mx + k, (self.n - k) * sizeof(int64_t))
        self.n -= k
        self.base += k
        return k

    def clear(self):
        self.compact(self.base + self.n)
