"""The layout of the training data (features, target, weights) and pass 1 of
:func:`seminaive.streaming.fit_stream`: the scan summary, mergeable in any order so that
:mod:`seminaive.dask` can tree-reduce it over partitions."""


import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..exceptions import InputError
from ..preprocessing.encoder import _is_arrow_dictionary, _nominal_values, _sorted_values
from ..preprocessing.validation import check_sample_weight, check_target, distinct_labels
from ._readers import (
    _select,
)

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
            y = check_target(_target_values(frame.iloc[:, n_features]), frame.shape[0], owner)
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


def _dictionary_values(series):
    """The values of the dictionaries of an Arrow dictionary column (nulls left out)."""
    arr = series.array.__arrow_array__()
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    values = {}
    for chunk in chunks:
        values.update(dict.fromkeys(chunk.dictionary.to_pylist()))
    values.pop(None, None)
    return list(values)


def _target_values(series):
    """The class labels of a chunk: an Arrow string or dictionary column as a Categorical on
    its dictionary (its labels are then checked, listed and coded on the dictionary's few
    values, never converted row by row), any other column as a NumPy array."""
    dtype = series.dtype
    arrow = _is_arrow_dictionary(dtype) or (isinstance(dtype, pd.ArrowDtype) and (
        pa.types.is_string(dtype.pyarrow_dtype) or pa.types.is_large_string(
            dtype.pyarrow_dtype)))
    if not arrow:
        return series.to_numpy()
    arr = series.array.__arrow_array__()
    if not pa.types.is_dictionary(arr.type):
        arr = pc.dictionary_encode(arr)
    arr = arr.unify_dictionaries().combine_chunks() if isinstance(
        arr, pa.ChunkedArray) else arr
    dictionary = arr.dictionary
    if dictionary.null_count or len(pc.unique(dictionary)) != len(dictionary):
        return series.to_numpy()
    indices = arr.indices.fill_null(-1) if arr.indices.null_count else arr.indices
    return pd.Categorical.from_codes(
        indices.to_numpy(zero_copy_only=False).astype(np.int64, copy=False),
        categories=pd.Index(dictionary.to_pylist(), dtype=object), validate=False)


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
                 threshold=np.inf, sample_weight=None, dictionaries_used=False):
        """Summary of one chunk (``X`` a DataFrame of features, ``y`` validated labels,
        ``sample_weight`` validated row weights or None).

        Rows whose random key is not below ``threshold`` (the largest key a summary already
        full keeps) are not copied into the sample.  With ``dictionaries_used`` (a file
        reader's chunks), every value of an Arrow dictionary column's dictionary occurs in
        the source: its values are taken from the dictionaries, the rows are not read.
        """
        summary = cls(nominal, sample_rows, track_missing)
        n = X.shape[0]
        summary.n_rows = n
        summary.labels = distinct_labels(y)
        for col in np.flatnonzero(summary.nominal):
            series = X.iloc[:, col]
            if isinstance(series.dtype, pd.CategoricalDtype):
                values = list(series.cat.categories)
            elif dictionaries_used and _is_arrow_dictionary(series.dtype):
                summary.categorical[col] = False
                values = _dictionary_values(series)
            else:
                summary.categorical[col] = False
                values = _nominal_values(series, None)
            summary.values[col] = dict.fromkeys(values)
        if track_missing:
            summary.has_missing = X.isna().to_numpy().any(axis=0)
        capacity = summary._sample_capacity
        if capacity == 1:
            # all columns nominal: the sampled row only gives the encoder the column types
            # (whichever row it is, the encoder fitted from the scan is the same), so the
            # first row of the first chunk, without a random key for every row
            keys = np.full(min(n, 1), float(chunk_index))
        else:
            keys = np.random.default_rng([seed, int(chunk_index)]).random(n)
        rows = np.flatnonzero(keys < threshold)
        if capacity is not None and rows.size > capacity:
            rows = rows[np.argpartition(keys[rows], capacity - 1)[:capacity]]
            rows.sort()
        summary.sample = _renumbered(X.iloc[rows])
        summary.sample_y = np.asarray(y[rows])
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
            frame = _renumbered(frame.iloc[keep])
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
        return _renumbered(self.sample.iloc[order]), self.sample_y[order], w


def _renumbered(frame):
    """``frame`` (a new frame, taken by ``iloc``) with the index 0 .. n - 1: set in place,
    where ``reset_index`` copies every column again (for Arrow-backed columns, buffers of
    the whole chunk: 14% of a string CSV's ``fit_stream``)."""
    frame.index = pd.RangeIndex(frame.shape[0])
    return frame


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
