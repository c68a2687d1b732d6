"""Stream positions for a DataFrame: 0-based, dense, in the stream's order, computed in parallel.

The stream order of a DataFrame is, in this order of preference: the ``order_by`` columns the caller names; for
a DataFrame read straight from files, the order of the files (by path) and of the rows in each file, as
``cer-theory run`` reads them; otherwise the DataFrame's own order (partition by partition, as Spark reports it).
The dense index is computed without collecting the data: ``monotonically_increasing_id`` is increasing in that
order and encodes the Spark partition in its upper bits, so one small aggregate (rows per partition) gives each
partition's offset. Parquet files need no Spark job at all when every row of the files is in the DataFrame:
each row's index within its file is known where it is read, and the files' footers give their row counts
(:func:`metadata_index`, docs/decisions.md D142).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

_ROW_BITS = 33
"""``monotonically_increasing_id`` = partition index << 33 | row index within the partition (Spark's contract)."""

FILE_COLUMNS = ("__file", "__block", "__row_in_file", "__row_index")
"""Where a file-backed DataFrame keeps its file order until positions are assigned (``__row_index``, the row's
index within its file, only for Parquet, whose reader knows it)."""

MAX_FOOTERS = 1_000
"""Above this many files, reading every footer on the driver may cost more than counting the rows in a job."""


def with_file_order(df: DataFrame) -> DataFrame:
    """``df`` with the columns of :data:`FILE_COLUMNS` when it is a plain file scan (``_metadata`` exists),
    else ``df`` unchanged. Must be called on the freshly read DataFrame, before any shuffle."""
    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F

    try:
        metadata = df.select("_metadata").schema["_metadata"].dataType
    except AnalysisException:
        return df
    row_index = ([F.col("_metadata.row_index").alias("__row_index")]
                 if "row_index" in metadata.fieldNames() else [])  # type: ignore[attr-defined]
    return df.select("*", F.col("_metadata.file_path").alias("__file"),
                     F.col("_metadata.file_block_start").alias("__block"),
                     F.monotonically_increasing_id().alias("__row_in_file"), *row_index)


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


def file_index(df: DataFrame, name: str, cached: list | None = None) -> DataFrame:
    """The dense index in file order without moving rows, for a plain file scan (:func:`scanned_relation`; after
    a filter the ids of a split have gaps): the rows of one file split are consecutive ids within its Spark
    partition, so one aggregate per split (first id, row count), sorted by (file, offset) on the
    driver, gives every split's first position. The result is cached (and appended to ``cached``) when
    ``cached`` is given: read again with other split sizes (``spark.sql.files.maxPartitionBytes`` changed
    between two actions), the splits would no longer be those counted."""
    from pyspark.sql import functions as F

    file, block, row = FILE_COLUMNS[:3]
    splits = sorted(df.groupBy(file, block).agg(F.min(row).alias("__first"), F.count("*").alias("n")).collect(),
                    key=lambda r: (r[file], r[block]))
    table, total = [], 0
    for r in splits:
        table.append((r[file], r[block], r["__first"], total))
        total += r["n"]
    offsets = df.sparkSession.createDataFrame(table or [("", 0, 0, 0)],
                                              f"{file} string, {block} long, __first long, __offset long")
    out = (df.join(F.broadcast(offsets), [file, block])
           .withColumn(name, F.col("__offset") + F.col(row) - F.col("__first"))
           .drop("__first", "__offset"))
    if cached is not None:
        out = out.persist()
        cached.append(out)
    return out


def scanned_relation(df: DataFrame) -> object | None:
    """The JVM relation ``df`` reads when it is a plain file scan: only projections over one relation, so every
    row of the files is a row of ``df``, in the files' order; None otherwise (a filter, a join, a union, a
    sample …) or when the plan cannot be read."""
    from py4j.protocol import Py4JError

    try:
        node = df._jdf.queryExecution().analyzed()
        while node.nodeName() == "Project" and node.children().size() == 1:
            node = node.children().apply(0)
        if node.nodeName() != "LogicalRelation" or node.children().size() != 0:
            return None
        return node.relation()
    except (Py4JError, AttributeError):  # another Spark's plan classes
        return None


def parquet_row_counts(df: DataFrame) -> dict[str, int] | None:
    """The rows of each file of ``df`` by the path Spark's ``_metadata.file_path`` gives it, read from the
    Parquet footers through Spark's own file system and Parquet reader; None unless ``df`` is a plain
    Parquet scan (only projections over one Parquet relation, so every row of every file is a row of ``df``)
    of at most :data:`MAX_FOOTERS` files, or when a footer cannot be read (the counting job then decides)."""
    from py4j.protocol import Py4JError

    relation = scanned_relation(df)
    if relation is None:
        return None
    try:
        if (relation.getClass().getSimpleName() != "HadoopFsRelation"  # type: ignore[attr-defined]
                or relation.fileFormat().toString() != "Parquet"):
            return None
        files = list(relation.location().inputFiles())  # type: ignore[attr-defined]
        if len(files) > MAX_FOOTERS:
            return None
        jvm = df.sparkSession._jvm  # type: ignore[attr-defined]
        conf = df.sparkSession._jsc.hadoopConfiguration()  # type: ignore[attr-defined]
        counts: dict[str, int] = {}
        for uri in files:
            path = jvm.org.apache.hadoop.fs.Path(uri)
            source = jvm.org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(path, conf)
            reader = jvm.org.apache.parquet.hadoop.ParquetFileReader.open(source)
            try:
                counts[path.toString()] = int(reader.getRecordCount())
            finally:
                reader.close()
        return counts
    except (Py4JError, AttributeError):  # another Spark's plan classes, an unreadable footer: count instead
        return None


def metadata_index(df: DataFrame, name: str) -> DataFrame | None:
    """The dense index in file order without a Spark job: a row's position is the rows of the files before
    its own (by path, as :func:`file_index` orders them) plus its index within its file (Parquet's
    ``_metadata.row_index``); None when :func:`parquet_row_counts` cannot vouch that ``df`` holds every row of
    its files. Nothing needs caching: however the files are split when read again, a row keeps its index."""
    from pyspark.sql import functions as F

    if "__row_index" not in df.columns:
        return None
    counts = parquet_row_counts(df)
    if counts is None:
        return None
    offsets, total = [], 0
    for path in sorted(counts):
        offsets.append((path, total))
        total += counts[path]
    if len(offsets) <= 1:
        return df.withColumn(name, F.col("__row_index"))
    table = F.create_map(*[F.lit(v) for pair in offsets for v in pair])
    return df.withColumn(name, F.element_at(table, F.col(FILE_COLUMNS[0])) + F.col("__row_index"))


def stream_positions(df: DataFrame, order_by: Sequence[str] | None = None, name: str = "position",
                     cached: list | None = None) -> DataFrame:
    """``df`` with its stream positions in column ``name`` (see the module docstring for the order)."""
    if order_by:
        out = dense_index(df, list(order_by), name, cached)
    elif set(FILE_COLUMNS[:3]) <= set(df.columns):
        # file_index needs every row of each split (ids consecutive within it); after a filter, sort by file order
        out = metadata_index(df, name) or (file_index(df, name, cached) if scanned_relation(df) is not None
                                           else dense_index(df, list(FILE_COLUMNS[:3]), name, cached))
    else:
        out = dense_index(df, None, name, cached)
    return out.drop(*[c for c in FILE_COLUMNS if c in out.columns])
