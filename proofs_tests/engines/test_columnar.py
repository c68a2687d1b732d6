"""The columnar ingestion path (cer_theory/engines/core/run.py and batches.py, docs/decisions.md D87–D89) against the
``Event`` path: on generated CEQL queries (the CORE paper's grammar: strategies, windows on positions and time with
equal keys, PARTITION BY, CONSUME BY) and generated streams with missing attributes, mixed kinds and bad rows,
every input format — JSON Lines, CSV, Parquet files, lists of dicts, DataFrames, Arrow tables — gives exactly the
Event path's matches (events and partitions included), the same error (class and message: source, line, field)
after the same matches, and the same bookkeeping. Batches are made tiny so that bad rows fall deep inside one.
Counting tests check that Events are built only for reported rows."""

from __future__ import annotations

import csv
import io
import json
import math
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cer_theory.core.errors import CerError, StreamFormatError
from cer_theory.core.events import Event
from cer_theory.engines.core import Engine
from cer_theory.engines.core.run import file_events, file_matches
from cer_theory.streams.schema import Schema
from cer_theory.streams.schema_check import SchemaCheck
from cer_theory.engines.core.output import MatchWriter
from cer_theory.testing.batches import process_in_batches, small
from cer_theory.testing.outcomes import outcome, printed
from cer_theory.formalisms.ceql.parser import parse
from cer_theory.core.predicates.masks import compile_mask
from cer_theory.testing.strategies import ceql
from cer_theory.testing.strategies.predicates import extended_events, extended_unary_predicates

BOOKKEEPING = ("position", "unpartitioned", "partitions_created", "partitions_discarded")
BAD = (None, None, None, "kind", "nan", "garbage", "no type", "decreasing", "no time", "nested", "mixed",
       "big int", "blank line", "bad name", "empty type")


@st.composite
def rows(draw: st.DrawFn, max_length: int = 12) -> tuple[list[dict], str | None, int]:
    """Rows of R/T/U with ``x`` ∈ 0..3 (sometimes absent, sometimes a float), ``name`` and ``flag`` now and then,
    a non-decreasing ``time`` with ties; and maybe one bad or unusual row at a drawn position."""
    n = draw(st.integers(0, max_length))
    bad = draw(st.sampled_from(BAD))
    at = draw(st.integers(0, max(n - 1, 0)))
    out, t = [], 0
    for k in range(n):
        t += draw(st.sampled_from([0, 0, 1, 2]))
        row: dict = {"type": draw(st.sampled_from(["R", "T", "U"]))}
        x = draw(st.sampled_from([None, 0, 1, 2, 3, 2.0]))
        if x is not None:
            row["x"] = x
        if draw(st.booleans()):
            row["name"] = draw(st.sampled_from(["a", "b"]))
        if draw(st.integers(0, 4)) == 0:
            row["flag"] = draw(st.booleans())
        row["time"] = t
        if bad == "mixed" and row["type"] == "U":
            row["x"] = "u"  # U.x a string, R.x and T.x numbers: legal, not one Arrow column
        if bad is not None and k == at and bad != "mixed":
            row = {**row, **{"kind": {"x": "s"}, "nan": {"x": math.nan}, "decreasing": {"time": -1},
                             "nested": {"x": [1]}, "big int": {"x": 2 ** 60}, "bad name": {"a-b": 1},
                             "empty type": {"type": ""}}.get(bad, {})}
            if bad == "no type":
                del row["type"]
            if bad == "no time":
                del row["time"]
        out.append(row)
    return out, bad, at




def bookkeeping(engine: Engine) -> dict:
    return {a: getattr(engine, a) for a in BOOKKEEPING}


# ---------------------------------------------------------------------------------------------- files


def write_jsonl(path: Path, data: list[dict], bad: str | None, at: int) -> None:
    lines = [json.dumps(r) for r in data]
    if bad == "garbage" and lines:
        lines[at] = lines[at][:-1]  # an object that does not close
    if bad == "blank line" and lines:
        lines.insert(at, "  ")
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _cell(v: object) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    return json.dumps(v) if isinstance(v, list) else str(v)


def write_csv(path: Path, data: list[dict], bad: str | None, at: int) -> None:
    header = ["type", "x", "name", "flag", "time"] + (["a-b"] if bad == "bad name" else [])
    lines = [",".join(header)] + [",".join(_cell(r.get(h)) for h in header) for r in data]
    if bad == "garbage" and data:
        lines[at + 1] += ",extra"
    if bad == "blank line" and data:
        lines.insert(at + 1, "")
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def arrow_table(data: list[dict]) -> pa.Table:
    """The rows as a Table with every key of every row (``from_pylist`` keeps only the first row's keys)."""
    return pa.Table.from_struct_array(pa.array(data))


def write_parquet(path: Path, data: list[dict]) -> bool:
    try:
        table = arrow_table(data) if data else pa.table({"type": pa.array([], pa.string())})
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return False  # (a column Arrow cannot type: no such Parquet file exists)
    pq.write_table(table, path)
    return True


def assert_file_paths_agree(q, path: Path, fmt: str, schema: Schema | None) -> None:
    """Batches of 3 rows, blocks of about 90 bytes: matches cross batches."""
    reference = Engine(q)
    want = outcome(reference.process(file_events(path, fmt, SchemaCheck(schema, str(path)), 0)))
    engine = Engine(q)
    got = outcome(file_matches(engine, path, fmt, schema, limits=small(3, 90)))
    assert got == want, (fmt, str(q), path.read_bytes()[:2000])
    if want[1] is None:
        assert bookkeeping(engine) == bookkeeping(reference), (fmt, str(q))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ceql.evaluable_queries(), rows(), st.booleans())
def test_columnar_file_path_equals_the_event_path(q, drawn, declared):
    """JSON Lines, CSV and Parquet files through the columns = the row readers with the same declaration checks
    (declared, or inferred in one pass): same matches, same error after the same matches, same counts."""
    data, bad, at = drawn
    schema = None
    if declared:  # the declaration of the clean rows: R, T, U with x a number, name a string, flag, time
        attrs = {"x": "num", "name": "str", "flag": "bool", "time": "num"}
        schema = Schema({t: dict(attrs) for t in ("R", "T", "U")})
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_jsonl(folder / "s.jsonl", data, bad, at)
        assert_file_paths_agree(q, folder / "s.jsonl", "jsonl", schema)
        write_csv(folder / "s.csv", data, bad, at)
        assert_file_paths_agree(q, folder / "s.csv", "csv", schema)
        if write_parquet(folder / "s.parquet", data):
            assert_file_paths_agree(q, folder / "s.parquet", "parquet", schema)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows(), st.sampled_from(["jsonl", "csv", "parquet"]))
def test_reported_events_built_from_columns_print_as_the_row_readers_events(drawn, fmt):
    """The reported rows' Events come from the batch's columns (ColumnEvents), not from their source text: with
    missing attributes, booleans, strings, a column of ints and integral floats (JSON's ``2`` and ``2.0`` in one
    Arrow column of doubles) and attributes of two kinds across types, every reported event prints exactly as the
    row reader's Event of that line does."""
    data, bad, at = drawn
    q = parse("SELECT * FROM S WHERE (R OR T OR U) as a ; (R OR T OR U) as b WITHIN 2 EVENTS")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"s.{fmt}"
        if fmt == "jsonl":
            write_jsonl(path, data, bad, at)
        elif fmt == "csv":
            write_csv(path, data, bad, at)
        elif not write_parquet(path, data):
            return
        want = printed(Engine(q).process(file_events(path, fmt, SchemaCheck(None, str(path)), 0)))
        got = printed(file_matches(Engine(q), path, fmt, None, limits=small(4, 200)))
    assert got == want, (fmt, data)


# ---------------------------------------------------------------------------------------------- in memory


def _events_reference(q, data: list[dict]) -> tuple[Engine, tuple]:
    engine = Engine(q)
    return engine, outcome(engine.process(iter(data)))  # an iterator: the one-by-one Event path


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ceql.evaluable_queries(), rows())
def test_columnar_dicts_tables_and_frames_equal_the_event_path(q, drawn):
    """A list of dicts (batched through Arrow), ``validate=True``, an Arrow table (when Arrow can type the rows;
    compared with the Event path on its own values, as Arrow stores 0 as 0.0 in a column with 2.0) and a
    DataFrame (on clean rows with x everywhere: pandas turns an int column with a gap into floats) give the
    Event path's matches, errors and counts."""
    data, bad, _ = drawn
    reference, want = _events_reference(q, data)
    if True:  # (batches of 3 rows)
        for name, run in [("dicts", lambda e: process_in_batches(e, data, 3)),
                          ("validate", lambda e: process_in_batches(e, data, 3, validate=True))]:
            engine = Engine(q)
            assert outcome(run(engine)) == want, (name, str(q), data)
            assert bookkeeping(engine) == bookkeeping(reference), (name, str(q), data)
        try:
            table = arrow_table(data)
        except (pa.ArrowException, TypeError, ValueError, OverflowError):
            table = None
        if table is not None and bad != "nan":  # (NaN in a Table is an absent value, as in a DataFrame)
            own = [{k: v for k, v in r.items() if v is not None} for r in table.to_pylist()]
            table_reference, want_table = _events_reference(q, own)  # the Table's own values (0 → 0.0 …)
            engine = Engine(q)
            assert outcome(process_in_batches(engine, table, 3)) == want_table, ("Table", str(q), data)
            assert bookkeeping(engine) == bookkeeping(table_reference), ("Table", str(q), data)
        if bad is None and data and all("x" in r and isinstance(r["x"], int) for r in data):
            pd = pytest.importorskip("pandas")
            engine = Engine(q)
            frame = pd.DataFrame(data)
            clean = [{k: v for k, v in r.items()} for r in frame.to_dict("records")]
            clean = [{k: v for k, v in r.items() if not (isinstance(v, float) and v != v)} for r in clean]
            _, want_frame = _events_reference(q, clean)
            assert outcome(process_in_batches(engine, frame, 3)) == want_frame, ("DataFrame", str(q), data)


# ---------------------------------------------------------------------------------------------- counting


@pytest.mark.parametrize("readable", [True, False])
def test_events_are_built_only_for_reported_rows(monkeypatch, tmp_path, readable):
    """On a clean file, the columns carry the whole run: an Event is built once per distinct reported row, from
    the batch's columns (no JSON line parsed again), never for the others (CORE reads only bit vectors and keys,
    the CORE paper §4.4). The readable loop builds them with ``Event.trusted`` (counted); the compiled batch
    matches (D450) build them in C, each once: the matches hold one Event object per reported row."""
    monkeypatch.setenv("CER_THEORY_PURE", "1" if readable else "0")
    rows_ = [{"type": "R" if k % 3 else "T", "x": k % 4, "time": k} for k in range(200)]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows_), encoding="utf-8")
    parsed: list[int] = []
    built: list[Event] = []
    from_dict, trusted = Event.from_dict.__func__, Event.trusted.__func__

    def counting_from_dict(cls, data, **kw):  # type: ignore[no-untyped-def]
        parsed.append(kw.get("line"))
        return from_dict(cls, data, **kw)

    def counting_trusted(cls, type_, attributes, **kw):  # type: ignore[no-untyped-def]
        built.append(event := trusted(cls, type_, attributes, **kw))
        return event

    monkeypatch.setattr(Event, "from_dict", classmethod(counting_from_dict))
    monkeypatch.setattr(Event, "trusted", classmethod(counting_trusted))
    q = parse("SELECT * FROM S WHERE T ; R FILTER R[x = 3] WITHIN 2 EVENTS")
    matches = list(file_matches(Engine(q), path, "jsonl", None, limits=small(16, 400)))
    reported = {p for m in matches for p in m.positions}
    assert matches and not parsed and len({id(e) for m in matches for e in m.events}) == len(reported)
    if readable:  # (compiled, only a row reached through an earlier batch is built by Event.trusted)
        assert len(built) == len(reported)
    assert {p: e for m in matches for p, e in zip(m.positions, m.events)} == {
        p: Event.from_dict(rows_[p]) for p in reported}


def test_a_bad_row_deep_inside_a_batch_is_named_after_the_rows_before_it(tmp_path):
    """The fallback starts at the batch, so the matches before the bad row are reported, and the error names
    the file, the line and the field."""
    rows_ = [{"type": "R", "x": 1, "time": k} for k in range(50)]
    rows_[37]["x"] = "oops"
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows_), encoding="utf-8")
    got, error = outcome(file_matches(Engine("SELECT * FROM S WHERE R"), path, "jsonl", None))
    assert len(got) == 37
    assert error == (StreamFormatError, f"{path}, line 38, field 'x': R.x is a string here but a number at line 1")


# ---------------------------------------------------------------------------------------------- output


def test_jsonl_output_is_json_dumps_of_to_json_byte_for_byte(tmp_path):
    q = parse("SELECT * FROM S WHERE R ; T PARTITION BY [x]")
    data = [{"type": t, "x": x, "name": "é\"q", "v": 1.5} for t, x in zip("RTRTRT", [1, 1, 2.0, 2, 1, 1])]
    matches = list(Engine(q).process(data))
    out = tmp_path / "o.jsonl"
    writer = MatchWriter(str(out), "jsonl")
    for m in matches:
        writer.write(m)
    writer.close()
    assert out.read_text(encoding="utf-8") == "".join(json.dumps(m.to_json()) + "\n" for m in matches)


@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_output_formats_hold_every_match(tmp_path, fmt):
    q = parse("SELECT * FROM S WHERE R ; T")
    data = [{"type": t, "x": k} for k, t in enumerate("RTRT")]
    matches = list(Engine(q).process(data))
    out = tmp_path / f"o.{fmt}"
    for positions_only in (False, True):
        writer = MatchWriter(str(out), fmt, positions_only=positions_only)
        for m in matches:
            writer.write(m)
        writer.close()
        if fmt == "parquet":
            table = pq.read_table(out)
            got = list(zip(table.column("start").to_pylist(), table.column("end").to_pylist(),
                           table.column("positions").to_pylist(), table.column("events").to_pylist()))
        elif fmt == "csv":
            body = list(csv.DictReader(out.open(encoding="utf-8", newline="")))
            got = [(int(r["start"]), int(r["end"]), [int(p) for p in r["positions"].split()], r["events"] or None)
                   for r in body]
        else:
            body = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
            got = [(r["start"], r["end"], r["positions"], json.dumps(r["events"]) if "events" in r else None)
                   for r in body]
        want = [(m.start, m.end, list(m.positions),
                 None if positions_only else json.dumps([e.to_dict() for e in m.events])) for m in matches]
        assert got == want, (fmt, positions_only)


def test_parquet_output_needs_a_file():
    with pytest.raises(CerError, match="needs --output"):
        MatchWriter(io.StringIO(), "parquet")


@settings(max_examples=150, deadline=None)
@given(st.lists(extended_unary_predicates(), min_size=1, max_size=4), st.lists(extended_events(), max_size=6))
def test_the_mask_compiled_for_dicts_equals_the_mask_of_events(preds, events):
    """``compile_mask(…, dicts=True)`` on ``e.to_dict()`` (the columnar path's dict batches) sets bit k iff
    ``preds[k](e)`` — the bit vectors of CORE's §4.4, without building the Event."""
    on_events, on_dicts = compile_mask(preds), compile_mask(preds, dicts=True)
    for e in events:
        want = sum(1 << k for k, p in enumerate(preds) if p(e))
        assert on_dicts(e.to_dict()) == on_events(e) == want, (preds, e)


# ---------------------------------------------------------------------------------------------- duplicate keys


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 120), st.data(), st.sampled_from(["x", "type", "y"]))
def test_a_duplicate_key_is_refused_on_the_row_and_the_columnar_path_alike(n, data, key):
    """A JSON object giving a key twice (``{"type": "A", "x": 1, "x": 2}``) is an error naming the file, the line
    and the key, on the row readers and on the columnar path (Arrow refuses the block; the row readers, taking
    over there, name it), after the matches of the lines before it: never the last value kept silently."""
    at = data.draw(st.integers(0, n - 1))
    lines = [json.dumps({"type": "AB"[k % 2], "x": k % 5, "y": k}) for k in range(n)]
    lines[at] = lines[at][:-1] + f', "{key}": ' + ('"B"' if key == "type" else "7") + "}"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        q = parse("SELECT * FROM S WHERE A ; B WITHIN 3 EVENTS")
        for name, run in [("rows", lambda: Engine(q).process(file_events(path, "jsonl", SchemaCheck(None, str(path)), 0))),
                          ("columns", lambda: file_matches(Engine(q), path, "jsonl", None, limits=small(8, 300))),
                          ("columns, default limits", lambda: file_matches(Engine(q), path, "jsonl", None))]:
            got = []
            with pytest.raises(StreamFormatError) as caught:
                for match in run():
                    got.append(match.complex_event)
            err = caught.value
            assert (err.source, err.line, err.field) == (str(path), at + 1, key), (name, str(err))
            assert f"gives key {key!r} twice" in str(err), (name, str(err))
            assert all(ce.end < at for ce in got), name


_CELL = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.sampled_from(["s", "", "é"]),
                  st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([1e308, -1e308, math.inf, -math.inf]),
                  st.just([1]), st.just({"x": 1}))


_NUMBER = st.one_of(st.integers(-2**70, 2**70), st.booleans(), st.floats(allow_nan=True, allow_infinity=True),
                   st.sampled_from([1e308, -1e308, math.inf, -math.inf, math.nan]))


@st.composite
def _uniform_batches(draw: st.DrawFn) -> list[dict]:
    """Dicts with the same names, a type and numbers: the columns the NaN sum reads."""
    names = draw(st.lists(st.sampled_from(["x", "y", "z"]), unique=True, max_size=3))
    return [{"type": draw(st.sampled_from(["T", "U", ""])), **{n: draw(_NUMBER) for n in names}}
            for _ in range(draw(st.integers(1, 10)))]


@st.composite
def _sparse_batches(draw: st.DrawFn) -> list[dict]:
    """Dicts that each give one attribute of many (sparse events): checked over their values, not per name."""
    return [{"type": draw(st.sampled_from(["T", "U"])), f"a{draw(st.integers(0, 15))}": draw(_CELL)}
            for _ in range(draw(st.integers(1, 10)))]


@settings(max_examples=400, deadline=None)
@given(st.one_of(_uniform_batches(), _sparse_batches(), st.lists(st.dictionaries(st.sampled_from(["type", "type", "x", "y", "bad name", 3]),
                                                              _CELL, max_size=4), min_size=1, max_size=10)))
def test_a_batch_of_dicts_is_read_as_columns_exactly_when_every_dict_is_an_event(batch):
    """The per-batch check of the dicts path (``clean_columns``: per name, C-level passes, a column of numbers summed
    for NaN) accepts a batch exactly when :meth:`Event.from_dict` accepts each of its dicts (NaN among numbers and
    infinities of both signs, given or reached by overflow, included), and its columns are the dicts' values."""
    from cer_theory.streams.batch import DictRows
    from cer_theory.streams.convert import clean_columns

    def accepted(d: dict) -> bool:
        try:
            Event.from_dict(d)
        except CerError:
            return False
        return True

    columns = clean_columns(batch)
    assert (columns is not None) == all(map(accepted, batch)), (batch, columns)
    if columns is not None:
        assert all(column == [d.get(name) for d in batch] for name, column in columns.items()), (batch, columns)
        rows = DictRows(batch, columns)
        for name in {*set().union(*batch), "absent"}:
            assert rows.values(name) == [d.get(name) for d in batch], (batch, name)


def test_a_column_mixing_floats_and_integers_beyond_the_float_range_is_read():
    """An integer too large for a float (Event.from_dict accepts any int) in a column with floats: the NaN check's
    sum would overflow converting it, and the check must then look value by value, not raise — in either order."""
    from cer_theory.streams.convert import clean_columns

    for batch in ([{"type": "T", "x": 1.5}, {"type": "T", "x": 10**400}],
                  [{"type": "T", "x": 10**400}, {"type": "T", "x": -1.5}],
                  [{"type": "T", "x": 10**400}, {"type": "T", "x": math.nan}]):
        columns = clean_columns(batch)
        assert (columns is not None) == (batch[1]["x"] == batch[1]["x"]), batch
    got = Engine("SELECT * FROM S WHERE T").process([{"type": "T", "x": 1.5}, {"type": "T", "x": 10**400}])
    assert [m.complex_event.end for m in got] == [0, 1]


def test_a_sparse_batch_of_dicts_is_checked_in_memory_linear_in_its_values():
    """Dicts that each name their own attribute (sparse events): a column per name and per dict would hold
    rows × names values (8192² for a batch of the default size, half a gigabyte); the check holds a number of
    values proportional to the batch's, and the batch's values by name are still the dicts' own."""
    from cer_theory.streams.batch import DictRows
    from cer_theory.streams.convert import clean_columns

    batch = [{"type": "T", f"a{k}": k} for k in range(512)]
    columns = clean_columns(batch)
    assert columns is not None
    assert sum(map(len, columns.values())) <= 4 * sum(map(len, batch)), len(columns)
    rows = DictRows(batch, columns)
    for name in ("type", "a0", "a511", "absent"):
        assert rows.values(name) == [d.get(name) for d in batch], name



@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_a_kind_change_names_the_line_where_that_type_first_had_the_kind(tmp_path, fmt):
    """The columnar schema check records, per type, the line of the type's first row holding the attribute, as the
    row path does (D456: a column of one kind is read once, not type by type), and the error names it."""
    rows = [("R", 1), ("R", 2), ("T", 3), ("R", 4), ("T", 5), ("R", 6), ("T", "five")]
    path = tmp_path / f"s.{fmt}"
    if fmt == "csv":
        path.write_text("type,x\n" + "".join(f"{t},{x}\n" for t, x in rows), encoding="utf-8")
    else:
        path.write_text("".join(json.dumps({"type": t, "x": x}) + "\n" for t, x in rows), encoding="utf-8")
    q = "SELECT * FROM S WHERE R ; T"
    want = outcome(Engine(q).process(file_events(path, fmt, SchemaCheck(None, str(path)), 0)))
    got = outcome(file_matches(Engine(q), path, fmt, None, limits=small(3, 90)))
    assert got == want
    first_t = 3 if fmt == "jsonl" else 4  # (CSV: the header is line 1)
    assert f"T.x is a string here but a number at line {first_t}" in str(got[1]), got
