# cython: language_level=3, boundscheck=False, wraparound=False
"""The JSON Lines of ``cer-theory run``'s complex events compiled (docs/decisions.md D455).

:func:`jsonl_lines` is :func:`cer_theory.engines.core.output.jsonl_lines` — one line per complex event ``([i, j],
D)`` of the CORE paper (§2.2): ``start``, ``end``, ``positions`` and, unless ``positions_only``, ``events`` — with
the same bytes, written into one string sized beforehand: the numbers in decimal by C, each event's JSON text
(ASCII, as ``json.dumps`` writes it) copied. For a piece that is not ASCII it returns None, and the caller uses the
readable function.
The readable function is the reference: ``proofs_tests/engines/test_output_lines.py`` compares the two on generated
complex events.
"""

from libc.string cimport memcpy
from cpython.dict cimport PyDict_GetItem
from cpython.object cimport PyObject

cdef extern from "Python.h":
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    void *PyUnicode_DATA(object text)
    Py_ssize_t PyUnicode_GET_LENGTH(object text)
    bint PyUnicode_IS_ASCII(object text)
    long long PyLong_AsLongLong(object number) except? -1


cdef Py_ssize_t _digits(long long v) noexcept:
    """Characters of ``str(v)`` (the magnitude unsigned, as :func:`_number` writes it: ``-v`` overflows for the
    least long long)."""
    cdef Py_ssize_t n = 1
    cdef unsigned long long u
    if v < 0:
        n += 1
        u = <unsigned long long>(-(v + 1)) + 1
    else:
        u = <unsigned long long>v
    while u >= 10:
        u //= 10
        n += 1
    return n


cdef bint _number_size(object v, Py_ssize_t *size) except -1:
    """Add the characters of ``str(v)`` to ``size``; False when ``v`` is no plain int a long long holds (a bool, a
    subclass, a huge number: the readable function writes those)."""
    if type(v) is not int:
        return False
    try:
        size[0] += _digits(PyLong_AsLongLong(v))
    except OverflowError:
        return False
    return True


cdef char *_number(char *out, long long v) noexcept:
    """Write ``str(v)`` at ``out``; return the end."""
    cdef char buffer[24]
    cdef int k = 0
    cdef unsigned long long u
    if v < 0:
        out[0] = b'-'
        out += 1
        u = <unsigned long long>(-(v + 1)) + 1
    else:
        u = <unsigned long long>v
    while True:
        buffer[k] = <char>(48 + u % 10)
        k += 1
        u //= 10
        if u == 0:
            break
    while k:
        k -= 1
        out[0] = buffer[k]
        out += 1
    return out


cdef inline char *_copy(char *out, object text) noexcept:
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text)
    memcpy(out, PyUnicode_DATA(text), n)
    return out + n


cdef inline char *_literal(char *out, const char *text, Py_ssize_t n) noexcept:
    memcpy(out, text, n)
    return out + n


def jsonl_lines(list ces not None, object texts, object text, str tail not None, bint positions_only):
    """The lines of ``ces`` (objects with ``start``, ``end``, ``positions``) joined into one string: each
    position's event text is ``texts[p]`` when there, else ``text(p)`` (which makes and keeps it); ``tail``
    closes each line (``}\\n``, or the partition's member and ``}\\n``). None when a text or the tail is not
    ASCII, or a number or the positions are not what the engine makes (plain ints a long long holds, a tuple):
    the readable function writes those."""
    if not isinstance(texts, dict):
        raise TypeError("texts: a dict")
    if not PyUnicode_IS_ASCII(tail):
        return None
    cdef list numbers = []  # per CE: start, end, then its positions (as C integers, below)
    cdef list pieces = []  # the events' texts, in order
    cdef object c, p, t
    cdef tuple ps
    cdef Py_ssize_t i, n, size = 0, count = len(ces)
    cdef Py_ssize_t tail_size = PyUnicode_GET_LENGTH(tail)
    cdef PyObject *found
    cdef long long v
    for c in ces:  # the size, and the texts looked up once
        p = c.positions
        if type(p) is not tuple:
            return None
        ps = p
        n = len(ps)
        numbers.append(c.start)
        numbers.append(c.end)
        numbers.append(ps)
        size += 10 + 9 + 16 + 1 + tail_size + (2 * (n - 1) if n else 0)  # '{"start": ', ', "end": ', ...
        if not (_number_size(c.start, &size) and _number_size(c.end, &size)):
            return None
        for i in range(n):
            if not _number_size(ps[i], &size):
                return None
        if not positions_only:
            size += 13 + 1 + (2 * (n - 1) if n else 0)  # '], "events": [' less the ']' counted, and ']'
            for i in range(n):
                p = ps[i]
                found = PyDict_GetItem(texts, p)
                t = text(p) if found is NULL else <object>found
                if not isinstance(t, str) or not PyUnicode_IS_ASCII(t):
                    return None
                pieces.append(t)
                size += PyUnicode_GET_LENGTH(t)
    out = PyUnicode_New(size, 127)
    cdef char *start = <char *>PyUnicode_DATA(out)
    cdef char *w = start
    cdef Py_ssize_t k, j = 0
    for k in range(count):
        w = _literal(w, b'{"start": ', 10)
        w = _number(w, PyLong_AsLongLong(numbers[3 * k]))
        w = _literal(w, b', "end": ', 9)
        w = _number(w, PyLong_AsLongLong(numbers[3 * k + 1]))
        w = _literal(w, b', "positions": [', 16)
        ps = <tuple>numbers[3 * k + 2]
        n = len(ps)
        for i in range(n):
            if i:
                w = _literal(w, b', ', 2)
            w = _number(w, PyLong_AsLongLong(ps[i]))
        if positions_only:
            w = _literal(w, b']', 1)
        else:
            w = _literal(w, b'], "events": [', 14)
            for i in range(n):
                if i:
                    w = _literal(w, b', ', 2)
                w = _copy(w, pieces[j])
                j += 1
            w = _literal(w, b']', 1)
        w = _copy(w, tail)
    if w - start != size:
        raise AssertionError(f"jsonl_lines: wrote {w - start} characters of {size}")
    return out
