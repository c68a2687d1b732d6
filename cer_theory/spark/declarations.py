"""The declaration Spark checks rows against when the command line gives none: the schema ``cer-theory run``
infers from the same local CSV or JSON Lines input (docs/decisions.md D100), unified so that one column has one
type, as a Spark column must (:func:`cer_theory.streams.schema.one_kind_per_column`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cer_theory.formalisms.ceql.ast import StreamDeclaration
from cer_theory.formalisms.ceql.declarations import declaration_of
from cer_theory.streams.rows import iter_file, stream_format
from cer_theory.streams.schema import Schema, one_kind_per_column

_ROW_FORMATS = {"json": "jsonl", "jsonl": "jsonl", "ndjson": "jsonl", "csv": "csv"}


def local_path(path: str) -> Path | None:
    """A local path (``file://`` stripped), resolved; None for a remote URL (hdfs://, s3a://, …)."""
    if "://" in path and not path.startswith("file://"):
        return None
    return Path(path.removeprefix("file://")).expanduser().resolve()


def run_schema(input_path: str, input_format: str | None, declarations: Sequence, *, on_bad_rows: str = "fail"
               ) -> tuple[list[StreamDeclaration] | None, bool]:
    """For local CSV or JSON Lines input, one pass with ``run``'s reader before Spark starts: the same format
    errors (file and line), and without a ``CREATE STREAM`` the same schema ``run`` infers, so Spark checks every
    row against it whatever kinds it infers itself. Returns the declarations to check against (None: Spark's own
    column types) and whether a CSV cell spans lines. An attribute of different kinds in different event types
    stays unchecked: one Spark column has one type."""
    declared = [d for d in declarations if isinstance(d, StreamDeclaration)] or None
    source = local_path(input_path)
    if source is None:
        return declared, False
    files = sorted(f for f in source.iterdir() if f.is_file() and not f.name.startswith(("_", "."))) \
        if source.is_dir() else [source]
    fmt = _ROW_FORMATS.get(input_format or "", None)
    suffixes = {f.suffix.lower() for f in files}
    if input_format == "parquet" or not files or not suffixes <= {".csv", ".json", ".jsonl", ".ndjson"}:
        return declared, False
    schema, spans_lines = Schema(), False
    conflicts = "first" if on_bad_rows == "report" else "fail"
    for f in files:
        csv_file = stream_format(f, fmt) == "csv"
        for line, event in iter_file(f, fmt):
            if declared is None:
                schema.learn(line, event, source=str(f), conflicts=conflicts)
            if csv_file and not spans_lines:
                spans_lines = any(isinstance(v, str) and "\n" in v for v in event.attributes.values())
    if declared is not None:
        return declared, spans_lines
    columns, _ = one_kind_per_column(schema)
    return [declaration_of(columns)], spans_lines


__all__ = ["local_path", "run_schema"]
