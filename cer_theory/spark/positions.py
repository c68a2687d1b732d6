"""Stream positions for a DataFrame: 0-based, dense, in the stream's order, computed in parallel.

The stream order of a DataFrame is, in this order of preference: the ``order_by`` columns the caller names; for
a DataFrame read straight from files, the order of the files (by path) and of the rows in each file, as
``cer-theory run`` reads them; otherwise the DataFrame's own order (partition by partition, as Spark reports it).
The dense index is computed without collecting the data: ``monotonically_increasing_id`` is increasing in that
order and encodes the Spark partition in its upper bits, so one small aggregate (rows per partition) gives each
partition's offset.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

_ROW_BITS = 33
"""``monotonically_increasing_id`` = partition index << 33 | row index within the partition (Spark's contract)."""

FILE_COLUMNS = ("__file", "__block", "__row_in_file")
"""Where a file-backed DataFrame keeps its file order until positions are assigned."""


def with_file_order(df: DataFrame) -> DataFrame:
    """``df`` with the columns of :data:`FILE_COLUMNS` when it is a plain file scan (``_metadata`` exists),
    else ``df`` unchanged. Must be called on the freshly read DataFrame, before any shuffle."""
    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F

    try:
        return df.select("*", F.col("_metadata.file_path").alias("__file"),
                         F.col("_metadata.file_block_start").alias("__block"),
                         F.monotonically_increasing_id().alias("__row_in_file"))
    except AnalysisException:
        return df


def dense_index(df: DataFrame, order: Sequence[str] | None, name: str, cached: list | None = None) -> DataFrame:
    """``df`` with a column ``name``: 0, 1, 2, … in the order of the columns ``order`` (None: ``df``'s own
    order). Ties in ``order`` are broken by the previous order of the rows. The ids are cached (a sort's
    sampled range boundaries could differ if recomputed); the cached frame is appended to ``cached``."""
    from pyspark.sql import functions as F

    if order:
        df = (df.withColumn("__tie", F.monotonically_increasing_id())
              .sort(*order, "__tie").drop("__tie"))
    df = df.withColumn("__mid", F.monotonically_increasing_id()).persist()
    if cached is not None:
        cached.append(df)
    mask = (1 << _ROW_BITS) - 1
    counts = (df.groupBy(F.shiftright("__mid", _ROW_BITS).alias("__part"))
              .agg(F.count("*").alias("n")).collect())
    offsets, total = [], 0
    for row in sorted(counts, key=lambda r: r["__part"]):
        offsets.append((row["__part"], total))
        total += row["n"]
    spark = df.sparkSession
    table = spark.createDataFrame(offsets or [(0, 0)], "__part long, __offset long")
    out = (df.join(F.broadcast(table), F.shiftright(df["__mid"], _ROW_BITS) == table["__part"])
           .withColumn(name, F.col("__offset") + F.col("__mid").bitwiseAND(F.lit(mask)))
           .drop("__mid", "__part", "__offset"))
    return out


def file_index(df: DataFrame, name: str) -> DataFrame:
    """The dense index in file order without moving rows: the rows of one file split are consecutive ids within
    its Spark partition, so one aggregate per split (first id, row count), sorted by (file, offset) on the
    driver, gives every split's first position."""
    from pyspark.sql import functions as F

    file, block, row = FILE_COLUMNS
    splits = sorted(df.groupBy(file, block).agg(F.min(row).alias("__first"), F.count("*").alias("n")).collect(),
                    key=lambda r: (r[file], r[block]))
    table, total = [], 0
    for r in splits:
        table.append((r[file], r[block], r["__first"], total))
        total += r["n"]
    offsets = df.sparkSession.createDataFrame(table or [("", 0, 0, 0)],
                                              f"{file} string, {block} long, __first long, __offset long")
    return (df.join(F.broadcast(offsets), [file, block])
            .withColumn(name, F.col("__offset") + F.col(row) - F.col("__first"))
            .drop("__first", "__offset"))


def stream_positions(df: DataFrame, order_by: Sequence[str] | None = None, name: str = "position",
                     cached: list | None = None) -> DataFrame:
    """``df`` with its stream positions in column ``name`` (see the module docstring for the order)."""
    if order_by:
        out = dense_index(df, list(order_by), name, cached)
    elif set(FILE_COLUMNS) <= set(df.columns):
        out = file_index(df, name)
    else:
        out = dense_index(df, None, name, cached)
    return out.drop(*[c for c in FILE_COLUMNS if c in out.columns])
