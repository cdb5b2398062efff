"""Fit and predict on data larger than memory: files and iterables read chunk by chunk.

AnDE learns from counts that add up, so it learns in passes over chunks of the data; only the
tables and one chunk are in memory at a time, unless the parsed chunks of a file fit in the
memory budget of :func:`keep_bytes` (512 MiB unless the ``keep_bytes`` argument of
:func:`fit_stream` or the environment variable ``SEMINAIVE_KEEP_BYTES`` says otherwise):
they are then kept from the first pass for the others, so that the file is parsed once.
:func:`fit_stream` makes at most two passes (one for an all-nominal file, below):

1. **scan** -- every chunk is read once; the class labels, the value set of every nominal
   column and whether a column has missing values are collected over the *whole* data, and a
   uniform random sample of at most ``sample_rows`` rows is kept (the rows with the smallest
   random keys, deterministic for a ``random_state``), on which the cut points of numeric
   columns are computed: "the cut points are computed on 100,000 examples randomly selected
   from training data or on all training examples if the training data is less than
   100,000" (Chen et al. 2014, §4).  The encoder then knows every value before counting starts, so
   every chunk encodes into the same, fixed table extents;
2. **count** -- every chunk is encoded and added to the tables (``table_.add``).

When every feature of a file is a nominal column read as an Arrow dictionary (the string
columns of CSV and Parquet files), the scan also codes every chunk as it reads it (each
value's index in the order of first appearance, by a lookup of the chunk's dictionary) and
keeps the codes within the memory budget below; once the encoder is fitted, the codes are
mapped to the model's (sorted values, as :meth:`fit` lists them) and counted: no second
pass over the data, the same counts (``seminaive.streaming._codes``).  The row sample of
such a file is its first row (it only gives the encoder the column types).

A learner that needs further passes (structure, weights, leave-one-out selection) receives a
:class:`StreamSource` in ``_learn_from_counts``: its ``map_reduce`` re-reads the data chunk by
chunk, with the interface of :class:`seminaive.sources.ArraySource`.

Sources
-------
* a Parquet file or directory (``*.parquet``, ``*.pq``; scanned with :mod:`pyarrow.dataset`
  row group by row group in batches of ``chunk_rows``, so memory also depends on the row
  group size the file was written with; string columns read as dictionaries), a CSV file
  (``*.csv``, ``*.tsv``, ``*.txt``, optionally compressed; read with pyarrow, string columns
  dictionary-encoded as they are parsed, each column's type decided once for the whole
  file; with ``csv_options``, or zipped, read with ``pandas.read_csv(chunksize=...)``), or a
  list of such paths (:func:`fit_stream` takes a path string with wildcards,
  ``"data/part-*.csv"``, as the files it matches, sorted).  A string column then reaches
  the encoder as Arrow dictionary arrays, coded by a lookup of each chunk's dictionary: no
  Python string is made per row;
* a DataFrame (read in slices of ``chunk_rows``), a list of DataFrames, or a callable that
  returns a fresh iterator of DataFrames at every call: all of these can be read again;
* a one-shot iterator of DataFrames (e.g. a generator).  It can be read only once, so the
  encoder is fitted on the first chunk as :meth:`partial_fit` does (numeric cut points from
  the first chunk, nominal values first seen later appended) and a learner that needs an
  extra pass raises a clear error.

The summaries of the scan (:class:`ScanSummary`) merge in any order, which is how
:mod:`seminaive.dask` reduces them over the partitions of a cluster.
"""

from ._fit import (  # noqa: F401
    StreamSource,
    _describe,
    _describe_reader,
    _fit_one_shot,
    _scan,
    fit_stream,
)
from ._predict import (  # noqa: F401
    model_columns,
    predict_stream,
    prediction_columns,
)
from ._readers import (  # noqa: F401
    COMPRESSION_SUFFIXES,
    CSV_SUFFIXES,
    DEFAULT_CHUNK_CELLS,
    DEFAULT_SAMPLE_ROWS,
    KEEP_BYTES,
    PARQUET_SUFFIXES,
    _check_same_columns,
    _CsvReader,
    _file_format,
    _FrameReader,
    _is_path,
    _missing_file,
    _ParquetReader,
    _progress_bar,
    _select,
    default_chunk_rows,
    keep_bytes,
    open_source,
)
from ._scan import (  # noqa: F401
    ScanSummary,
    _Layout,
    _union_labels,
    _weights_of,
    build_encoder,
    seed_of,
)

__all__ = ["fit_stream", "keep_bytes", "predict_stream"]
