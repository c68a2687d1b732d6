"""Streams in and out: the data side of the kernel, imported by the engines and the applications, importing only
:mod:`cer_theory.core`.

One module per idea (docs/architecture.md): :mod:`~cer_theory.streams.rows` (the row readers and format
detection, the readable reference), :mod:`~cer_theory.streams.batch` (the one batch type, :class:`Rows`),
:mod:`~cer_theory.streams.arrow` (Arrow columns as a batch), :mod:`~cer_theory.streams.lines` and
:mod:`~cer_theory.streams.csv_block` (a block of text as a batch), :mod:`~cer_theory.streams.blocks` (the block
readers of JSON Lines, CSV and Parquet files, with their :class:`ReadLimits`), :mod:`~cer_theory.streams.convert`
(dicts as batches) and :mod:`~cer_theory.streams.frames` (DataFrames and Arrow tables as batches), :mod:`~cer_theory.streams.schema` (learn, check, infer),
:mod:`~cer_theory.streams.reorder` (bounded out-of-order input) and :mod:`~cer_theory.streams.writers` (output
files written aside and renamed into place). Import the defining module: nothing is re-exported here, so that
reading a JSON Lines file never loads Arrow.
"""
