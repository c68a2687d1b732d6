# The C declarations of tecs_compiled.pyx, for evaluator_compiled.pyx (docs/decisions.md D420–D424).
from libc.stdint cimport int64_t


cdef class CTecs:
    cdef int64_t *pos
    cdef int64_t *nxt
    cdef int64_t *rgt
    cdef int64_t *mx
    cdef Py_ssize_t n, cap  # stored nodes and the arrays' capacity
    cdef readonly int64_t base  # id of the node at index 0
    cdef int64_t *stack  # Algorithm 2's stack: (node, path length) pairs
    cdef Py_ssize_t scap
    cdef int64_t *path  # Algorithm 2's current path (positions of output nodes)
    cdef Py_ssize_t pcap

    cdef int _grow(self) except -1
    cdef int _stored(self, int64_t n) except -1
    cdef int _stored_list(self, list ul) except -1
    cdef int64_t _node(self, int64_t position, int64_t nxt, int64_t rgt, int64_t mx) except -2
    cdef int64_t c_new_bottom(self, int64_t i) except -2
    cdef int64_t c_extend(self, int64_t n, int64_t j) except -2
    cdef int64_t c_u(self, int64_t left, int64_t right) except -2
    cdef int64_t c_union(self, int64_t n1, int64_t n2) except -2
    cdef int c_insert(self, list ul, int64_t n) except -1
    cdef int64_t c_merge(self, list ul) except -2
    cdef int _push(self, Py_ssize_t top, int64_t node, int64_t plen) except -1
    cdef int _add(self, Py_ssize_t plen, int64_t position) except -1
    cdef Py_ssize_t c_enumerate_into(self, int64_t n, object end, int64_t tau, list out, Py_ssize_t limit,
                                     object dfs) except -1
    cdef int _store(self, object dfs, Py_ssize_t top, Py_ssize_t length) except -1
