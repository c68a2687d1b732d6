# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The per-row work of the columnar path compiled: a batch's Matches (the CORE paper §2.2: a complex event
``([i, j], D)`` handed back with the events at the positions of D) and the check of a batch of dicts
(docs/decisions.md D450, D452).

:func:`batch_matches` mirrors the batch branch of :meth:`EngineState.matches
<cer_theory.engines.core.state.EngineState.matches>` line by line: for each CE, the events of its positions from the
batch's Events built so far (``Rows._events``, by row), an Event built for each row not yet built — as
:meth:`DictRows.event <cer_theory.streams.batch.DictRows.event>` builds it from a checked dict, or as
:class:`ColumnEvents <cer_theory.streams.batch.ColumnEvents>` builds it from the batch's converted columns, or by
the batch's own ``event`` for any other batch — and the :class:`~cer_theory.engines.core.matches.Match`, its
fields set as :func:`~cer_theory.engines.core.matches.make_match` sets them. :func:`clean_columns` mirrors
:func:`cer_theory.streams.convert.clean_columns`. The readable functions are the reference and the fallback
(``CER_THEORY_PURE=1``); ``proofs_tests/engines/test_engine_compiled.py`` compares them on every input path.
"""

from cpython.list cimport PyList_GET_SIZE, PyList_GET_ITEM
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM, PyTuple_GET_SIZE, PyTuple_GET_ITEM
from cpython.ref cimport Py_INCREF

from cer_theory.core.events import TYPE_KEY, Event
from cer_theory.engines.core.matches import Match
from cer_theory.streams.batch import ColumnEvents, DictRows
from cer_theory.streams.convert import _NAME

cdef extern from *:
    """
    /* An instance allocated by its type (object.__new__ without the argument checks) and a slot set through its
       member descriptor, as make_match and Event.trusted do from Python. */
    static PyObject *cer_rows_alloc(PyObject *type) {
        return ((PyTypeObject *)type)->tp_alloc((PyTypeObject *)type, 0);
    }
    static int cer_rows_descr_set(PyObject *descr, PyObject *obj, PyObject *value) {
        return Py_TYPE(descr)->tp_descr_set(descr, obj, value);
    }
    """
    object cer_rows_alloc(object type)
    int cer_rows_descr_set(object descr, object obj, object value) except -1

cdef object _EVENT = Event
cdef object _TYPE = Event.__dict__["type"]
cdef object _VALUES = Event.__dict__["_values"]
cdef object _MATCH = Match
cdef object _CE = Match.__dict__["complex_event"]
cdef object _EVENTS = Match.__dict__["events"]
cdef object _PARTITION = Match.__dict__["partition"]
cdef str _TYPE_KEY = TYPE_KEY


cdef inline object _event(object type_, dict values):
    """``Event.trusted(type_, values, ordered=True)``."""
    e = cer_rows_alloc(_EVENT)
    cer_rows_descr_set(_TYPE, e, type_)
    cer_rows_descr_set(_VALUES, e, values)
    return e


cdef object _dict_event(dict d):
    """:meth:`DictRows.event`'s Event of a checked dict: its attributes in name order, the type and None values
    left out."""
    cdef list names = sorted(d)
    cdef dict values = {}
    for a in names:
        v = d[a]
        if v is not None and a != _TYPE_KEY:
            values[a] = v
    return _event(d[_TYPE_KEY], values)


cdef object _column_event(object types, list names, list cells, Py_ssize_t k):
    """:meth:`ColumnEvents.__call__`'s Event of row ``k``: its non-null cells, the columns in name order."""
    cdef dict values = {}
    cdef Py_ssize_t i
    for i in range(PyList_GET_SIZE(names)):
        v = (<list>PyList_GET_ITEM(cells, i))[k]
        if v is not None:
            values[<object>PyList_GET_ITEM(names, i)] = v
    return _event(types[k], values)


cdef class _Builder:
    """How the rows of one batch become Events: 2 from its dicts, 1 from its converted columns, 0 by its own
    ``event`` (a batch whose Events are built otherwise, or some of whose rows come from their source)."""

    cdef int how
    cdef object rows, types
    cdef list dicts, names, cells

    def __cinit__(self, rows):
        self.rows = rows
        self.how = 0
        if type(rows) is DictRows:
            self.dicts = rows.dicts
            if len(self.dicts) == len(rows._events):  # (a row's dict is read by its index unchecked)
                self.how = 2
        else:
            make = rows._event
            if type(make) is ColumnEvents:
                columns = make._columns if make._columns is not None else make._converted()
                if make._from_source is None or not any(make._from_source):
                    self.types = make.types
                    self.names = [name for name, _ in columns]
                    # (a row's cell is read unchecked: lists only)
                    self.cells = [cells if type(cells) is list else list(cells) for _, cells in columns]
                    self.how = 1

    cdef object build(self, Py_ssize_t k):
        if self.how == 2:
            return _dict_event(self.dicts[k])
        if self.how == 1:
            return _column_event(self.types, self.names, self.cells, k)
        return self.rows._event(k)


def batch_matches(ces, partition, rows, buffer):
    """:meth:`EngineState.matches` for ``ces`` when the buffer's newest span is the batch ``rows``."""
    cdef list built = rows._events
    cdef Py_ssize_t first = rows.first, n, i, k
    cdef _Builder builder = None
    cdef tuple positions, events
    cdef list out = []
    for c in ces:
        positions = c.positions
        if positions is None:
            raise TypeError("a complex event's positions: a tuple, not None")
        n = PyTuple_GET_SIZE(positions)
        if n == 0 or <object>PyTuple_GET_ITEM(positions, 0) < first:
            events = buffer.events_of(positions)
        else:
            events = PyTuple_New(n)
            for i in range(n):
                k = <Py_ssize_t>(<object>PyTuple_GET_ITEM(positions, i)) - first
                if not 0 <= k < PyList_GET_SIZE(built):  # (positions increase from one in the batch: never)
                    raise IndexError(f"position {k + first} is not in the batch at {first}")
                e = <object>PyList_GET_ITEM(built, k)
                if e is None:
                    if builder is None:
                        builder = _Builder(rows)
                    e = builder.build(k)
                    built[k] = e
                Py_INCREF(e)
                PyTuple_SET_ITEM(events, i, e)
        m = cer_rows_alloc(_MATCH)
        cer_rows_descr_set(_CE, m, c)
        cer_rows_descr_set(_EVENTS, m, events)
        cer_rows_descr_set(_PARTITION, m, partition)
        out.append(m)
    return out


cdef object _IDENTIFIER = _NAME.match


def clean_columns(batch):
    """:func:`cer_theory.streams.convert.clean_columns` in one pass over each dict's items (D452): None unless
    :meth:`Event.from_dict` accepts every dict as it is — plain dicts; identifier names; a non-empty string type
    on every dict; values of the scalar classes only (``int``, ``float``, ``str``, ``bool``, None, exactly); no
    NaN — else the type column alone (:meth:`DictRows.values` gathers any other name from the dicts when asked,
    as for a sparse batch)."""
    cdef list dicts = batch
    cdef dict d, seen = {}
    cdef list types = []
    cdef double x
    if not dicts:
        return None
    for item in dicts:
        if type(item) is not dict:
            return None
    for item in dicts:
        d = <dict>item
        for name, value in d.items():
            if name not in seen:
                if name != _TYPE_KEY and (type(name) is not str or _IDENTIFIER(name) is None):
                    return None
                seen[name] = True
            t = type(value)
            if t is float:
                x = value
                if x != x:
                    return None
            elif not (value is None or t is int or t is str or t is bool):
                return None
        kind = d.get(_TYPE_KEY)
        if type(kind) is not str or not kind:
            return None
        types.append(kind)
    return {_TYPE_KEY: types}
