"""Fit and predict on data larger than memory: files and iterables read chunk by chunk.

AnDE learns from counts that add up, so it learns in passes over chunks of the data; only the
tables and one chunk are in memory at a time.  :func:`fit_stream` makes two passes:

1. **scan** -- every chunk is read once; the class labels, the value set of every nominal
   column and whether a column has missing values are collected over the *whole* data, and a
   uniform random sample of at most ``sample_rows`` rows is kept (the rows with the smallest
   random keys, deterministic for a ``random_state``), on which the cut points of numeric
   columns are computed: "the cut points are computed on 100,000 examples randomly selected
   from training data or on all training examples if the training data is less than
   100,000" (Chen et al. 2014, §4).  The encoder then knows every value before counting starts, so
   every chunk encodes into the same, fixed table extents;
2. **count** -- every chunk is encoded and added to the tables (``table_.add``).

A learner that needs further passes (structure, weights, leave-one-out selection) receives a
:class:`StreamSource` in ``_learn_from_counts``: its ``map_reduce`` re-reads the data chunk by
chunk, with the interface of :class:`seminaive.sources.ArraySource`.

Sources
-------
* a Parquet file or directory (``*.parquet``, ``*.pq``; scanned with :mod:`pyarrow.dataset`
  row group by row group in batches of ``chunk_rows``, so memory also depends on the row
  group size the file was written with), a CSV file (``*.csv``, ``*.tsv``, ``*.txt``, optionally
  compressed; read with ``pandas.read_csv(chunksize=...)``), or a list of such paths;
* a DataFrame (read in slices of ``chunk_rows``), a list of DataFrames, or a callable that
  returns a fresh iterator of DataFrames at every call: all of these can be read again;
* a one-shot iterator of DataFrames (e.g. a generator).  It can be read only once, so the
  encoder is fitted on the first chunk as :meth:`partial_fit` does (numeric cut points from
  the first chunk, nominal values first seen later appended) and a learner that needs an
  extra pass raises a clear error.

The summaries of the scan (:class:`ScanSummary`) merge in any order, which is how
:mod:`seminaive.dask` reduces them over the partitions of a cluster.
"""

import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import logsumexp
from sklearn.utils.validation import check_is_fitted

from ._atomic import atomic_path
from .exceptions import InputError
from .preprocessing.encoder import _arrow_frame, _nominal_values, _sorted_values, as_frame
from .preprocessing.validation import check_sample_weight, check_target
from .sources import ChunkedSource, OneShotSource

__all__ = ["fit_stream", "predict_stream"]

#: rows on which the cut points of numeric columns are computed (Chen et al. 2014, §4)
DEFAULT_SAMPLE_ROWS = 100_000
#: cells (rows x columns) per chunk when ``chunk_rows`` is not given: about 32 MB of codes
DEFAULT_CHUNK_CELLS = 1 << 23

PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
CSV_SUFFIXES = (".csv", ".tsv", ".txt")
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".zip", ".xz", ".zst")


def default_chunk_rows(n_columns):
    """Rows per chunk for a table of ``n_columns`` columns (about 8 million cells)."""
    return int(min(1 << 20, max(1 << 12, DEFAULT_CHUNK_CELLS // max(int(n_columns), 1))))


def _progress_bar(progress, total, desc):
    if progress is None:
        progress = sys.stderr.isatty()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="rows", unit_scale=True, disable=not progress,
                leave=False)


# --------------------------------------------------------------------------------------------
# Readers: a source as a sequence of DataFrame chunks, one materialised at a time
# --------------------------------------------------------------------------------------------


def _file_format(path):
    p = Path(path)
    if p.is_dir():
        return "parquet"
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] in COMPRESSION_SUFFIXES:
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    if last in PARQUET_SUFFIXES:
        return "parquet"
    if last in CSV_SUFFIXES:
        return "csv"
    raise InputError(f"cannot tell the format of {os.fspath(path)!r} from its name: name "
                     f"Parquet files {'/'.join(PARQUET_SUFFIXES)} and CSV files "
                     f"{'/'.join(CSV_SUFFIXES)} (optionally compressed), or pass DataFrames")


def _missing_file(path):
    if not os.path.exists(path):
        raise InputError(f"{os.fspath(path)!r}: no such file or directory")


class _ParquetReader:
    """Parquet files or directories, scanned with :mod:`pyarrow.dataset` in batches."""

    reiterable = True

    def __init__(self, paths):
        import pyarrow as pa
        import pyarrow.dataset as ds

        self.paths = [os.fspath(p) for p in paths]
        self._scan_options = ds.ParquetFragmentScanOptions(pre_buffer=False)
        self._datasets = []
        for path in self.paths:
            _missing_file(path)
            try:
                dataset = ds.dataset(path, format="parquet")
            except (pa.ArrowException, OSError) as err:
                raise InputError(f"{path!r} could not be read as Parquet: {err}") from err
            self._datasets.append(dataset)

    def columns(self):
        first = self._datasets[0].schema.names
        if not first:
            raise InputError(f"{self.paths[0]!r} holds no columns (an empty file or directory)")
        for path, dataset in zip(self.paths[1:], self._datasets[1:], strict=True):
            _check_same_columns(first, dataset.schema.names, path, self.paths[0])
        return list(first)

    def n_rows(self):
        return int(sum(d.count_rows() for d in self._datasets))

    def frames(self, columns, chunk_rows):
        for path, dataset in zip(self.paths, self._datasets, strict=True):
            # row group by row group, without read-ahead: a dataset scan reads row groups
            # ahead of a slower consumer (about 170 MB for 20 x 10^6 rows of 21 columns),
            # this stays at about one row group (under 30 MB)
            for fragment in dataset.get_fragments():
                for row_group in fragment.split_by_row_group():
                    batches = row_group.to_batches(
                        schema=dataset.schema, columns=list(columns),
                        batch_size=int(chunk_rows), batch_readahead=0,
                        fragment_scan_options=self._scan_options)
                    for batch in batches:
                        if batch.num_rows == 0:
                            continue
                        # as to_pandas() types the columns, strings left in Arrow
                        frame = _arrow_frame(batch)
                        del batch
                        yield frame, path
                        del frame


class _CsvReader:
    """CSV files, read with ``pandas.read_csv(chunksize=...)``.

    Types are inferred chunk by chunk; pass ``csv_options={"dtype": {...}}`` to fix them.
    """

    reiterable = True

    def __init__(self, paths, options=None):
        self.paths = [os.fspath(p) for p in paths]
        self.options = dict(options or {})
        for path in self.paths:
            _missing_file(path)

    def _header(self, path):
        try:
            return list(pd.read_csv(path, nrows=0, **self.options).columns)
        except pd.errors.EmptyDataError as err:
            raise InputError(f"{path!r} is empty: no header and no rows") from err

    def columns(self):
        first = self._header(self.paths[0])
        for path in self.paths[1:]:
            _check_same_columns(first, self._header(path), path, self.paths[0])
        return first

    def n_rows(self):
        return None

    def frames(self, columns, chunk_rows):
        columns = list(columns)
        for path in self.paths:
            with pd.read_csv(path, chunksize=int(chunk_rows), usecols=columns,
                             **self.options) as chunks:
                for frame in chunks:
                    if frame.shape[0] == 0:
                        continue
                    frame = frame[columns]
                    yield frame, path
                    del frame


class _FrameReader:
    """DataFrames from a DataFrame (sliced), a list, a factory callable or an iterator."""

    def __init__(self, source):
        self._pending = None
        if isinstance(source, pd.DataFrame):
            self._factory, self.reiterable = None, True
        elif callable(source):
            self._factory, self.reiterable = source, True
        elif iter(source) is source:
            self._factory, self.reiterable = None, False
        else:
            self._factory, self.reiterable = None, True
        self._source = source
        self._used = False

    def columns(self):
        return None  # known from the first chunk

    def n_rows(self):
        if isinstance(self._source, pd.DataFrame):
            return int(self._source.shape[0])
        return None

    def _iterate(self, chunk_rows):
        source = self._source
        if isinstance(source, pd.DataFrame):
            for start in range(0, source.shape[0], int(chunk_rows)):
                yield source.iloc[start: start + int(chunk_rows)]
            return
        if self._factory is not None:
            source = self._factory()
        elif not self.reiterable:
            if self._used:
                raise InputError("this source is a one-shot iterator and has already been "
                                 "read: pass a list of DataFrames, a callable returning a "
                                 "fresh iterator, or files")
            self._used = True
        yield from source

    def frames(self, columns, chunk_rows):
        index = 0
        for item in self._iterate(chunk_rows):
            where = f"chunk {index}"
            index += 1
            if not isinstance(item, pd.DataFrame):
                raise InputError(f"{where} of the source is a {type(item).__name__}, not a "
                                 "DataFrame: an iterable source must yield DataFrames that "
                                 "hold the features and the target column")
            frame = _select(item, columns, where) if columns is not None else item
            del item
            if frame.shape[0] == 0:
                continue
            yield frame, where
            del frame


def _is_path(obj):
    return isinstance(obj, (str, os.PathLike))


def open_source(source, csv_options=None):
    """A reader over ``source`` (path, list of paths, DataFrame(s), callable or iterator)."""
    if _is_path(source):
        paths = [source]
    elif isinstance(source, (list, tuple)) and source and all(_is_path(p) for p in source):
        paths = list(source)
    elif isinstance(source, (list, tuple)) and any(_is_path(p) for p in source):
        raise InputError("a list source must hold only paths or only DataFrames")
    else:
        if isinstance(source, (list, tuple)) and not source:
            raise InputError("the source is an empty list: there is no data")
        if not (isinstance(source, pd.DataFrame) or callable(source)
                or hasattr(source, "__iter__")):
            raise InputError(f"cannot read data from a {type(source).__name__}: pass a Parquet "
                             "or CSV path, a list of paths, DataFrames, or an iterable of "
                             "DataFrames")
        return _FrameReader(source)
    formats = {_file_format(p) for p in paths}
    if len(formats) > 1:
        raise InputError("a list of files must be all Parquet or all CSV, got both")
    if formats == {"parquet"}:
        if csv_options:
            raise InputError("csv_options are for CSV files; the source is Parquet")
        return _ParquetReader(paths)
    return _CsvReader(paths, csv_options)


def _check_same_columns(expected, got, where, first_where):
    if set(got) == set(expected) and len(got) == len(expected):
        return
    missing = [c for c in expected if c not in got]
    extra = [c for c in got if c not in expected]
    raise InputError(f"{where} does not have the columns of {first_where}: missing "
                     f"{missing[:10]}, unexpected {extra[:10]}; every file / chunk must hold "
                     "the same columns")


def _select(frame, columns, where):
    """``frame[columns]``, or an error naming the missing columns."""
    present = set(frame.columns)
    missing = [c for c in columns if c not in present]
    if missing:
        raise InputError(f"{where} lacks the column(s) {missing[:10]} (it has "
                         f"{list(frame.columns)[:20]}); every chunk must hold the columns "
                         "the model uses")
    if list(frame.columns) == list(columns):
        return frame
    return frame[list(columns)]


# --------------------------------------------------------------------------------------------
# Layout of the training data: features and target
# --------------------------------------------------------------------------------------------


class _Layout:
    """Which columns are features, which the target and which (optionally) the row weights,
    checked against the source."""

    def __init__(self, columns, target, features, where, weight=None):
        columns = list(columns)
        if target is None:
            raise InputError("target is required: name the column that holds the class "
                             "labels, e.g. fit_stream('data.parquet', target='class')")
        if target not in columns:
            raise InputError(f"target column {target!r} is not among the columns of {where}: "
                             f"{columns[:20]}")
        if weight is not None:
            if weight not in columns:
                raise InputError(f"sample_weight column {weight!r} is not among the columns "
                                 f"of {where}: {columns[:20]}")
            if weight == target:
                raise InputError(f"sample_weight and target name the same column {target!r}")
        if features is None:
            features = [c for c in columns if c not in (target, weight)]
        else:
            features = list(features)
            unknown = [c for c in features if c not in columns]
            if unknown:
                raise InputError(f"features {unknown[:10]} are not among the columns of "
                                 f"{where}: {columns[:20]}")
            if target in features:
                raise InputError(f"the target column {target!r} is also listed in features")
            if weight is not None and weight in features:
                raise InputError(f"the sample_weight column {weight!r} is also listed in "
                                 "features")
        if not features:
            raise InputError(f"{where} has no feature column besides the target {target!r}")
        self.target = target
        self.weight = weight
        self.features = features
        self.columns = [*features, target] + ([] if weight is None else [weight])

    def split(self, frame, where, owner, first_row):
        """(features frame, validated class labels, validated weights or None) of a chunk."""
        frame = _select(frame, self.columns, where)
        n_features = len(self.features)
        X = frame.iloc[:, :n_features]
        rows = "" if first_row is None else f" (rows from {first_row})"
        try:
            y = check_target(frame.iloc[:, n_features].to_numpy(), frame.shape[0], owner)
        except InputError as err:
            raise InputError(f"{where}{rows}, target column {self.target!r}: {err}") from err
        w = None
        if self.weight is not None:
            try:
                w = check_sample_weight(frame.iloc[:, n_features + 1].to_numpy(), frame.shape[0])
            except InputError as err:
                raise InputError(f"{where}{rows}, sample_weight column {self.weight!r}: "
                                 f"{err}") from err
        return X, y, w


# --------------------------------------------------------------------------------------------
# Pass 1: the scan summary (mergeable, so that Dask can tree-reduce it)
# --------------------------------------------------------------------------------------------


def seed_of(random_state):
    """An integer seed from ``random_state`` (None: fresh entropy)."""
    if random_state is None:
        return int(np.random.SeedSequence().entropy % (1 << 63))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63 - 1))
    return int(random_state)


class ScanSummary:
    """What the first pass learns from a set of chunks; summaries merge in any order.

    Parameters
    ----------
    nominal : ndarray of bool
        Which feature columns are nominal (fixed before the scan).
    sample_rows : int or None
        Size of the row sample (None: every row).
    track_missing : bool
        Record which columns have missing values (needed with ``missing="value"``).

    Attributes
    ----------
    n_rows : int
    labels : ndarray
        Sorted distinct class labels.
    values : list
        For a nominal column, a dict whose keys are its values in order of first appearance
        (sorted within a chunk); None for numeric columns.
    categorical : ndarray of bool
        Whether a column was a pandas Categorical in every chunk (its declared categories are
        then its values, in declared order, as :meth:`AttributeEncoder.fit` does).
    has_missing : ndarray of bool
    """

    def __init__(self, nominal, sample_rows, track_missing):
        self.nominal = np.asarray(nominal, dtype=bool)
        self.sample_rows = None if sample_rows is None else int(sample_rows)
        self.track_missing = bool(track_missing)
        a = self.nominal.size
        self.n_rows = 0
        self.labels = None
        self.values = [{} if nom else None for nom in self.nominal]
        self.categorical = np.ones(a, dtype=bool)
        self.has_missing = np.zeros(a, dtype=bool)
        self.sample = None  # DataFrame of kept rows
        self.sample_y = None
        self.sample_w = None  # weights of the kept rows (None: unweighted data)
        self.sample_keys = np.empty(0)  # random keys: the smallest are kept
        self.sample_order = np.empty(0, dtype=np.int64)  # chunk index << 32 | row in chunk

    @property
    def _sample_capacity(self):
        if self.nominal.all():
            return 1  # no cut points to compute: one row gives the encoder the column types
        return self.sample_rows

    @classmethod
    def of_chunk(cls, X, y, chunk_index, seed, nominal, sample_rows, track_missing,
                 threshold=np.inf, sample_weight=None):
        """Summary of one chunk (``X`` a DataFrame of features, ``y`` validated labels,
        ``sample_weight`` validated row weights or None).

        Rows whose random key is not below ``threshold`` (the largest key a summary already
        full keeps) are not copied into the sample.
        """
        summary = cls(nominal, sample_rows, track_missing)
        n = X.shape[0]
        summary.n_rows = n
        summary.labels = np.unique(y)
        for col in np.flatnonzero(summary.nominal):
            series = X.iloc[:, col]
            if isinstance(series.dtype, pd.CategoricalDtype):
                values = list(series.cat.categories)
            else:
                summary.categorical[col] = False
                values = _nominal_values(series, None)
            summary.values[col] = dict.fromkeys(values)
        if track_missing:
            summary.has_missing = X.isna().to_numpy().any(axis=0)
        keys = np.random.default_rng([seed, int(chunk_index)]).random(n)
        rows = np.flatnonzero(keys < threshold)
        capacity = summary._sample_capacity
        if capacity is not None and rows.size > capacity:
            rows = rows[np.argpartition(keys[rows], capacity - 1)[:capacity]]
            rows.sort()
        summary.sample = X.iloc[rows].reset_index(drop=True)
        summary.sample_y = np.asarray(y)[rows]
        if sample_weight is not None:
            summary.sample_w = np.asarray(sample_weight, dtype=np.float64)[rows]
        summary.sample_keys = keys[rows]
        summary.sample_order = (np.int64(chunk_index) << 32) | rows.astype(np.int64)
        return summary

    def threshold(self):
        """Keys at or above this value cannot enter a full sample."""
        capacity = self._sample_capacity
        if capacity is None or self.sample_keys.size < capacity:
            return np.inf
        return float(self.sample_keys.max())

    def merged(self, other):
        """A new summary of the chunks of both (neither is modified)."""
        if self.n_rows == 0:
            return other
        if other.n_rows == 0:
            return self
        result = ScanSummary(self.nominal, self.sample_rows, self.track_missing)
        result.n_rows = self.n_rows + other.n_rows
        result.labels = _union_labels(self.labels, other.labels)
        for col in np.flatnonzero(self.nominal):
            values = dict(self.values[col])
            values.update(other.values[col])  # new values after the known ones
            result.values[col] = values
        result.categorical = self.categorical & other.categorical
        result.has_missing = self.has_missing | other.has_missing
        if other.sample.shape[0] == 0:
            frame = self.sample
        elif self.sample.shape[0] == 0:
            frame = other.sample
        else:
            frame = pd.concat([self.sample, other.sample], ignore_index=True)
        y = np.concatenate([self.sample_y, other.sample_y])
        w = None
        if self.sample_w is not None or other.sample_w is not None:
            w = np.concatenate([_weights_of(self), _weights_of(other)])
        keys = np.concatenate([self.sample_keys, other.sample_keys])
        order = np.concatenate([self.sample_order, other.sample_order])
        capacity = self._sample_capacity
        if capacity is not None and keys.size > capacity:
            keep = np.sort(np.argpartition(keys, capacity - 1)[:capacity])
            frame = frame.iloc[keep].reset_index(drop=True)
            y, keys, order = y[keep], keys[keep], order[keep]
            w = None if w is None else w[keep]
        result.sample, result.sample_y, result.sample_w = frame, y, w
        result.sample_keys, result.sample_order = keys, order
        return result

    def classes(self):
        return self.labels

    def categories(self, col):
        """Values of nominal column ``col`` as :meth:`AttributeEncoder.fit` would list them
        for the whole data: sorted (order of appearance if not sortable), or the declared
        categories of a Categorical column."""
        values = list(self.values[col])
        if self.categorical[col] or not values:
            return values
        as_objects = np.empty(len(values), dtype=object)
        as_objects[:] = values
        return _sorted_values(as_objects)

    def sample_frame(self):
        """The sampled rows in data order, their labels and their weights (or None)."""
        order = np.argsort(self.sample_order, kind="stable")
        w = None if self.sample_w is None else self.sample_w[order]
        return self.sample.iloc[order].reset_index(drop=True), self.sample_y[order], w


def _weights_of(summary):
    if summary.sample_w is not None:
        return summary.sample_w
    return np.ones(summary.sample_y.shape[0])


def _union_labels(a, b):
    if a is None:
        return b
    if b is None:
        return a
    try:
        return np.unique(np.concatenate([a, b]))
    except TypeError as err:
        raise InputError(f"the target column mixes label types across chunks ({a.dtype} and "
                         f"{b.dtype}): class labels must be all strings or all numbers") from err


def build_encoder(estimator, summary, sample_rows):
    """The estimator's encoder fitted from a scan: cut points from the sample, value sets and
    missing codes from the whole data (what ``fit`` would produce on all the rows when the
    sample holds every row)."""
    frame, y, w = summary.sample_frame()
    return estimator.make_encoder().fit_scanned(frame, y, w, summary.nominal,
                                                 summary.categories, summary.has_missing,
                                                 sample_rows)


# --------------------------------------------------------------------------------------------
# Sources for the learners' extra passes
# --------------------------------------------------------------------------------------------


class StreamSource(ChunkedSource):
    """Training data re-read from its files or re-iterable chunks, encoded as counted.

    Same interface as :class:`seminaive.sources.ArraySource`: :meth:`chunks` yields
    ``(storage codes, class indices, weights or None)`` and :meth:`map_reduce` combines
    ``fn`` over them.  Every call reads the data again, one chunk at a time.
    """

    def __init__(self, estimator, reader, layout, chunk_rows, n_rows, progress=None):
        self._owner = type(estimator).__name__
        self._encode = estimator.chunk_encoder()
        self._reader = reader
        self._layout = layout
        self.chunk_rows = int(chunk_rows)
        self._n_rows = int(n_rows)
        self.progress = progress
        self.sample_weight = layout.weight  # the weight column's name, or None

    @property
    def n_rows(self):
        return self._n_rows

    def chunks(self, desc="extra pass", values=False):
        """Yield ``(codes, y, weights or None)`` chunk by chunk (with ``values``, the centred
        numeric values as a fourth element)."""
        owner = self._owner
        first_row = 0
        with _progress_bar(self.progress, self._n_rows, desc) as bar:
            for frame, where in self._reader.frames(self._layout.columns, self.chunk_rows):
                X, y, w = self._layout.split(frame, where, owner, first_row)
                del frame
                first_row += X.shape[0]
                coded = self._encode(X, y, values)
                del X, y
                bar.update(coded[0].shape[0])
                yield (*coded[:2], w, *coded[2:])
                del coded, w
        if first_row != self._n_rows:
            raise InputError(f"the source changed between passes: it held {self._n_rows} rows "
                             f"and now {first_row}")


# --------------------------------------------------------------------------------------------
# fit_stream
# --------------------------------------------------------------------------------------------


def fit_stream(estimator, source, target, *, features=None, sample_weight=None,
               chunk_rows=None, sample_rows=DEFAULT_SAMPLE_ROWS, classes=None,
               csv_options=None, progress=None):
    """Fit ``estimator`` on data read chunk by chunk, in two passes (the engine of
    ``estimator.fit_stream``, whose docstring describes every parameter).

    Parameters
    ----------
    estimator : seminaive learner
        Fitted in place.
    source : path, list of paths, DataFrame, list of DataFrames, callable or iterator
        Parquet or CSV files, DataFrames, or an iterable of DataFrames.
    target : str
        Column holding the class labels.
    features : list of str, optional
        Feature columns (default: every column but the target and the weights).
    sample_weight : str, optional
        Column holding non-negative row weights.
    chunk_rows : int, optional
        Rows per chunk.
    sample_rows : int or None, default=100_000
        Rows sampled for the cut points of numeric columns (None: all).
    classes : array-like, optional
        Every class, for a one-shot iterator.
    csv_options : dict, optional
        Keyword arguments of ``pandas.read_csv``.
    progress : bool, optional
        Show progress bars (default: when stderr is a terminal).

    Returns
    -------
    estimator

    Examples
    --------
    >>> import os, tempfile
    >>> from seminaive import AODE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> from seminaive.streaming import fit_stream
    >>> X, y = load_kr_vs_kp()
    >>> path = os.path.join(tempfile.mkdtemp(), "train.parquet")
    >>> X.assign(label=y).to_parquet(path)
    >>> model = fit_stream(AODE(), path, target="label", chunk_rows=1000)
    >>> bool((model.predict_proba(X) == AODE().fit(X, y).predict_proba(X)).all())
    True
    """
    estimator.check_params()
    if sample_rows is not None and (isinstance(sample_rows, bool) or int(sample_rows) < 1):
        raise InputError(f"sample_rows must be a positive int or None, got {sample_rows!r}")
    if chunk_rows is not None and (isinstance(chunk_rows, bool) or int(chunk_rows) < 1):
        raise InputError(f"chunk_rows must be a positive int or None, got {chunk_rows!r}")
    reader = open_source(source, csv_options)
    owner = type(estimator).__name__
    columns = reader.columns()
    layout = None
    if columns is not None:
        layout = _Layout(columns, target, features, _describe(source), sample_weight)
        if chunk_rows is None:
            chunk_rows = default_chunk_rows(len(layout.columns))
    if chunk_rows is None:  # only used to slice a single DataFrame
        chunk_rows = default_chunk_rows(source.shape[1] if isinstance(source, pd.DataFrame)
                                        else 1)
    if not reader.reiterable:
        return _fit_one_shot(estimator, reader, target, features, sample_weight, classes,
                             owner, progress)
    if classes is not None:
        raise InputError("classes is only for one-shot iterators: a source that can be read "
                         "twice gives its classes in the first pass")
    summary = _scan(estimator, reader, layout, target, features, sample_weight, chunk_rows,
                    sample_rows, owner, progress)
    layout = summary.layout
    estimator.begin_fit(summary.classes(), build_encoder(estimator, summary, sample_rows))
    source = StreamSource(estimator, reader, layout, chunk_rows, summary.n_rows, progress)
    for chunk in source.chunks(desc="pass 2/2: counting", values=estimator.needs_values()):
        estimator.count_chunk(*chunk)
        del chunk
    estimator.learn_from(source)
    return estimator


def _describe(source):
    if _is_path(source):
        return repr(os.fspath(source))
    if isinstance(source, (list, tuple)) and source and _is_path(source[0]):
        return repr(os.fspath(source[0]))
    return "the first chunk"


def _scan(estimator, reader, layout, target, features, weight, chunk_rows, sample_rows,
          owner, progress):
    """Pass 1: labels, nominal value sets, missing flags and the row sample of all chunks."""
    seed = seed_of(estimator.random_state)
    track_missing = estimator.missing == "value"
    summary = None
    nominal = None
    first_row = 0
    read_columns = layout.columns if layout is not None else None
    with _progress_bar(progress, reader.n_rows(), "pass 1/2: values and sample") as bar:
        index = -1
        # (no enumerate: it would keep the previous chunk alive while the next is read)
        for frame, where in reader.frames(read_columns, chunk_rows):
            index += 1
            if layout is None:
                layout = _Layout(frame.columns, target, features, where, weight)
                first_columns = list(frame.columns)
            elif read_columns is None:
                _check_same_columns(first_columns, list(frame.columns), where, "chunk 0")
            X, y, w = layout.split(frame, where, owner, first_row)
            del frame
            if nominal is None:
                nominal = estimator.make_encoder().nominal_mask(X)
                summary = ScanSummary(nominal, sample_rows, track_missing)
            part = ScanSummary.of_chunk(X, y, index, seed, nominal, sample_rows, track_missing,
                                        threshold=summary.threshold(), sample_weight=w)
            first_row += X.shape[0]
            bar.update(X.shape[0])
            del X, y, w
            summary = summary.merged(part)
            del part
    if summary is None or summary.n_rows == 0:
        raise InputError(f"the source {_describe_reader(reader)} holds no rows: there is "
                         "nothing to learn from")
    summary.layout = layout
    return summary


def _describe_reader(reader):
    paths = getattr(reader, "paths", None)
    return repr(paths[0]) if paths and len(paths) == 1 else ("(files)" if paths else "")


def _fit_one_shot(estimator, reader, target, features, weight, classes, owner, progress):
    """A one-shot iterator: counted chunk by chunk as :meth:`partial_fit` counts (encoder
    fitted on the first chunk, later nominal values appended, a chunk that fails leaves the
    counts as they were), then one learning step."""
    estimator.reset()
    layout = None
    n_rows = 0
    with _progress_bar(progress, None, "counting (one pass)") as bar:
        for frame, where in reader.frames(None, 0):
            if layout is None:
                layout = _Layout(frame.columns, target, features, where, weight)
                first_columns = list(frame.columns)
            else:
                _check_same_columns(first_columns, list(frame.columns), where, "chunk 0")
            X, y, w = layout.split(frame, where, owner, n_rows)
            del frame
            if n_rows == 0:
                labels = np.unique(y) if classes is None else np.unique(np.asarray(classes))
                if labels.size == 0:
                    raise InputError("classes is empty: list all classes that will ever appear")
            else:
                labels = None
                unknown = np.setdiff1d(np.unique(y), estimator.classes_)
                if unknown.size:
                    raise InputError(
                        f"{where} holds classes {unknown[:5].tolist()} not seen in the first "
                        "chunk of a one-shot iterator: pass classes=[...] (every class) to "
                        "fit_stream, or a source that can be read twice")
            estimator.count_partial(X, y, w, labels)
            n_rows += X.shape[0]
            bar.update(X.shape[0])
            del X, y, w
    if n_rows == 0:
        raise InputError("the iterator yielded no rows: there is nothing to learn from")
    estimator.learn_from(OneShotSource(n_rows))
    return estimator


# --------------------------------------------------------------------------------------------
# Prediction
# --------------------------------------------------------------------------------------------


def prediction_columns(estimator, X, proba=True):
    """``{"prediction": ..., "proba_<class>": ...}`` of the rows of ``X``.

    Computed from the scores once: the predictions equal ``predict(X)`` and the
    probabilities ``predict_proba(X)``.
    """
    scores = estimator.joint_log_likelihood(X)
    columns = {"prediction": estimator.classes_[np.argmax(scores, axis=1)]}
    if proba:
        with np.errstate(invalid="ignore"):
            probs = np.exp(scores - logsumexp(scores, axis=1, keepdims=True))
        for j, label in enumerate(estimator.classes_):
            columns[f"proba_{label}"] = probs[:, j]
    return columns


def model_columns(estimator):
    """The columns a fitted model reads (its feature names), or None if it has none."""
    names = getattr(estimator, "feature_names_in_", None)
    return None if names is None else list(names)


def predict_stream(estimator, source, out, *, proba=True, chunk_rows=None, csv_options=None,
                   progress=None):
    """Write predictions of ``source`` to the Parquet or CSV file ``out``, chunk by chunk
    (the engine of ``estimator.predict_stream``).

    Parameters
    ----------
    estimator : fitted seminaive learner
        The model.
    source : path, list of paths, DataFrame, list of DataFrames, callable or iterator
        As in :func:`fit_stream`; the model's feature columns are read.
    out : str or path
        File written with columns ``prediction`` and ``proba_<class>``: CSV when its name
        ends in ``.csv``, Parquet otherwise; it is
        written beside ``out`` and renamed into place when complete, so a failure leaves a
        previous ``out`` untouched and no partial file.
    proba : bool, default=True
        Also write the class probabilities.
    chunk_rows : int, optional
        Rows per chunk.
    csv_options : dict, optional
        Keyword arguments of ``pandas.read_csv``.
    progress : bool, optional
        Show a progress bar.

    Returns
    -------
    int
        Rows predicted and written.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from seminaive import NaiveBayes
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> from seminaive.streaming import predict_stream
    >>> X, y = load_kr_vs_kp()
    >>> model = NaiveBayes().fit(X, y)
    >>> out = os.path.join(tempfile.mkdtemp(), "predictions.parquet")
    >>> predict_stream(model, X, out, chunk_rows=1000)
    3196
    >>> bool((pd.read_parquet(out)["prediction"] == model.predict(X)).all())
    True
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    check_is_fitted(estimator, "table_")
    if out is None:
        raise InputError("out is required: the path of the Parquet file to write")
    reader = open_source(source, csv_options)
    columns = model_columns(estimator)
    file_columns = reader.columns()
    if file_columns is not None and columns is not None:
        missing = [c for c in columns if c not in file_columns]
        if missing:
            raise InputError(f"{_describe(source)} lacks the column(s) {missing[:10]} the model "
                             f"was fitted on (it has {file_columns[:20]})")
    n_columns = len(columns) if columns is not None else (
        len(file_columns) if file_columns is not None else estimator.n_features_in_)
    if chunk_rows is None:
        chunk_rows = default_chunk_rows(n_columns)
    n_rows = 0
    as_csv = os.fspath(out).lower().endswith(".csv")
    # written beside ``out`` and renamed into place at the end: a source that fails midway
    # leaves any previous ``out`` untouched and no partial file
    with atomic_path(out) as tmp:
        writer = None
        try:
            with _progress_bar(progress, reader.n_rows(), "predicting") as bar:
                for frame, where in reader.frames(columns, chunk_rows):
                    X = frame if columns is None else _select(frame, columns, where)
                    del frame
                    predicted = prediction_columns(estimator, as_frame(X), proba)
                    n_rows += X.shape[0]
                    bar.update(X.shape[0])
                    del X
                    if as_csv:
                        if writer is None:
                            writer = open(tmp, "w", newline="")
                        pd.DataFrame(predicted).to_csv(writer, header=writer.tell() == 0,
                                                       index=False)
                        continue
                    table = pa.table(predicted)
                    if writer is None:
                        writer = pq.ParquetWriter(tmp, table.schema)
                    writer.write_table(table)
                    del table
        finally:
            if writer is not None:
                writer.close()
        if n_rows == 0:
            raise InputError("the source holds no rows: nothing to predict")
    return n_rows
