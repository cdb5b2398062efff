"""Fit and predict on a Dask cluster: counts per partition, merged as a tree.

AnDE's tables add up, so a cluster learns them as a single machine does, with exactly the
same counts:

1. a distributed scan: every partition is summarised (class labels, the value set of every
   nominal column, missing-value flags and a random row sample, as the first pass of
   :func:`seminaive.streaming.fit_stream`) and the summaries are tree-reduced; the encoder is
   fitted from the merged summary (cut points on the sample of at most ``sample_rows`` rows,
   as Chen et al. 2014 do; nominal values from the whole data);
2. every partition is encoded on its worker and counted into a table of its own; the count
   arrays are tree-reduced by addition (``split_every`` at a time) and the sum is the table
   of the estimator on the client;
3. the learner's ``_learn_from_counts`` receives a :class:`DaskSource`, whose ``map_reduce``
   maps a function over the encoded partitions on the workers and tree-reduces the results,
   for learners that need further passes.

Prediction maps the fitted model over the partitions (:func:`predict`,
:func:`predict_proba`).

On a real cluster
-----------------
Connect a client before calling :func:`fit`; Dask then runs every pass on the cluster::

    from dask.distributed import Client
    import dask.dataframe as dd
    import seminaive, seminaive.dask

    client = Client("tcp://scheduler:8786")
    ddf = dd.read_parquet("s3://bucket/training/")     # storage every worker can read
    model = seminaive.dask.fit(seminaive.AODE(), ddf, target="class")
    predictions = seminaive.dask.predict(model, dd.read_parquet("s3://bucket/new/"))
    predictions.to_frame().to_parquet("s3://bucket/predictions/")

The data must be readable from every worker (shared file system, object store), not from
the client's disk.  Memory per worker is about one partition (with its codes) plus the tables
(:func:`seminaive.estimate_table_bytes`) times ``split_every`` during the reduction; the
client holds the tables and the sample.
"""

import functools
import operator

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from ._docs import fill_doc
from .exceptions import InputError
from .preprocessing.encoder import as_frame
from .preprocessing.validation import check_target
from .streaming import (
    DEFAULT_SAMPLE_ROWS,
    ScanSummary,
    _Layout,
    _select,
    build_encoder,
    model_columns,
    prediction_columns,
    seed_of,
)

__all__ = ["fit", "predict", "predict_proba"]

#: partitions (or partial results) combined per task of a tree reduction
DEFAULT_SPLIT_EVERY = 8


def _dask():
    try:
        import dask
        import dask.array as da
        import dask.dataframe as dd
    except ImportError as err:  # pragma: no cover - dask is an optional dependency
        raise ImportError("seminaive.dask needs Dask: pip install 'seminaive[dask]'") from err
    return dask, da, dd


# --------------------------------------------------------------------------------------------
# Partitions as delayed (features frame, labels) pairs
# --------------------------------------------------------------------------------------------


def _split_frame(pdf, layout, index, owner):
    if pdf.shape[0] == 0:
        frame = _select(pdf, layout.columns, f"partition {index}")
        n_features = len(layout.features)
        return frame.iloc[:, :n_features], frame.iloc[:, n_features].to_numpy(), None
    return layout.split(pdf, f"partition {index}", owner, None)


def _pair(X, y, columns, index, owner):
    """Features of one partition with the labels of the matching partition of y."""
    X = as_frame(X) if not isinstance(X, pd.DataFrame) else X
    if columns is not None:
        X = _select(X, columns, f"partition {index}")
    y = np.asarray(y)
    if y.shape[0] != X.shape[0]:
        raise InputError(f"partition {index} of X has {X.shape[0]} rows but the matching "
                         f"partition of y has {y.shape[0]}: X and y must be partitioned "
                         "alike")
    if X.shape[0]:
        y = check_target(y, X.shape[0], owner)
    return X, y, None


class _Partitions:
    """The training data as a list of delayed ``(X frame, y, weights or None)`` triples, one
    per partition."""

    def __init__(self, data, y, target, features, owner, sample_weight=None):
        dask, da, dd = _dask()
        self.owner = owner
        if sample_weight is not None and (y is not None or not isinstance(data, dd.DataFrame)):
            raise InputError("sample_weight names a column of the Dask DataFrame: use it with "
                             "target='column' (the labels and weights as columns of data)")
        if isinstance(data, dd.DataFrame):
            if y is None:
                if target is None:
                    raise InputError(f"{owner} requires y to be passed, but the target y is "
                                     "None: name the label column (target='class') or pass "
                                     "the labels as y")
                layout = _Layout(list(data.columns), target, features, "the Dask DataFrame",
                                 sample_weight)
                data = data[layout.columns]
                self.meta = data._meta[layout.features]
                self.parts = [dask.delayed(_split_frame)(p, layout, i, owner)
                              for i, p in enumerate(data.to_delayed())]
                return
            if target is not None:
                raise InputError("pass either y or target, not both")
            columns = list(data.columns) if features is None else list(features)
            data = data[columns]
            self.meta = data._meta
            self.parts = self._zip(data.to_delayed(), y, data.npartitions, columns, dask, da,
                                   dd)
            return
        if isinstance(data, da.Array):
            if data.ndim != 2:
                raise InputError(f"X must be a 2-D Dask Array, got {data.ndim} dimension(s)")
            if target is not None or features is not None:
                raise InputError("target and features name DataFrame columns: with a Dask "
                                 "Array pass the labels as y")
            data = data.rechunk({1: -1})
            self.meta = pd.DataFrame(np.empty((0, data.shape[1]), dtype=data.dtype))
            blocks = data.to_delayed().ravel().tolist()
            if y is not None and not isinstance(y, (da.Array, dd.Series)):
                y = da.from_array(np.asarray(y), chunks=(data.chunks[0],))
            elif isinstance(y, da.Array):
                y = y.rechunk((data.chunks[0],))
            self.parts = self._zip(blocks, y, len(blocks), None, dask, da, dd)
            return
        raise InputError(f"seminaive.dask.fit takes a Dask DataFrame or Dask Array, got a "
                         f"{type(data).__name__}: use estimator.fit for in-memory data or "
                         "estimator.fit_stream for files")

    def _zip(self, x_parts, y, n_parts, columns, dask, da, dd):
        if y is None:
            raise InputError(f"{self.owner} requires y to be passed, but the target y is None: "
                             "pass the labels as y, or a DataFrame with target='column'")
        if isinstance(y, dd.DataFrame):
            if len(y.columns) != 1:
                raise InputError("y must be one column")
            y = y[y.columns[0]]
        if isinstance(y, dd.Series):
            y_parts = y.to_delayed()
        elif isinstance(y, da.Array):
            if y.ndim != 1:
                raise InputError(f"y should be a 1d array, got {y.ndim} dimensions")
            y_parts = y.to_delayed().ravel().tolist()
        else:
            raise InputError("with a Dask DataFrame X, pass y as a Dask Series partitioned "
                             "like X, or use target='column'")
        if len(y_parts) != n_parts:
            raise InputError(f"X has {n_parts} partitions and y {len(y_parts)}: partition them "
                             "alike (e.g. take both from one DataFrame with target=...)")
        return [dask.delayed(_pair)(xp, yp, columns, i, self.owner)
                for i, (xp, yp) in enumerate(zip(x_parts, y_parts, strict=True))]


# --------------------------------------------------------------------------------------------
# Tree reduction
# --------------------------------------------------------------------------------------------


class _Empty:
    """Result of a partition without rows (left out of a reduction)."""


_EMPTY = _Empty()


def _combine_many(combine, *parts):
    parts = [p for p in parts if not isinstance(p, _Empty)]
    if not parts:
        return _EMPTY
    return functools.reduce(combine, parts)


def tree_reduce(items, combine, split_every=DEFAULT_SPLIT_EVERY):
    """One delayed result: ``combine`` applied over delayed ``items`` as a tree, keeping their
    order (``split_every`` items per task)."""
    dask, _, _ = _dask()
    split_every = max(int(split_every), 2)
    combine = dask.delayed(combine)  # sent to the workers once
    items = list(items)
    if len(items) == 1:
        return dask.delayed(_combine_many)(combine, items[0])
    while len(items) > 1:
        items = [dask.delayed(_combine_many)(combine, *items[i: i + split_every])
                 for i in range(0, len(items), split_every)]
    return items[0]


def _scan_partition(part, index, seed, nominal, sample_rows, track_missing):
    X, y, w = part
    if X.shape[0] == 0:
        return _EMPTY
    return ScanSummary.of_chunk(X, y, index, seed, nominal, sample_rows, track_missing,
                                sample_weight=w)


def _merge_summaries(a, b):
    return a.merged(b)


def _apply(fn, part, encode, values=False):
    X, y, w = part
    if X.shape[0] == 0:
        return _EMPTY
    coded = encode(X, y, values)
    return fn(*coded[:2], w, *coded[2:])


def _count_partition(template, codes, y, w, values=None):
    table = template.copy()
    table.add(codes, y, w, values)
    return table


def _add_tables(a, b):
    return a.copy().merge(b)


class DaskSource:
    """Training data on a cluster, encoded partition by partition on the workers.

    Same interface as :class:`seminaive.sources.ArraySource`: ``map_reduce(fn, combine)``
    applies ``fn(codes, y, w)`` (``w``: the row weights or None) to every non-empty
    partition on its worker and tree-reduces the results with ``combine`` (in partition
    order); ``fn`` and ``combine`` must be picklable (cloudpickle: closures and lambdas are
    fine).  Each call is one pass over the data, computed with the current Dask scheduler
    (the client's cluster if one is connected).
    """

    sample_weight = None

    def __init__(self, partitions, estimator, n_rows, split_every=DEFAULT_SPLIT_EVERY):
        self._partitions = partitions
        self._encode = estimator.chunk_encoder()
        self.split_every = split_every
        self._n_rows = int(n_rows)

    @property
    def n_rows(self):
        return self._n_rows

    def chunks(self, values=False):
        """Yield ``(codes, y, w)`` partition by partition, computed one at a time and
        brought to the client (prefer :meth:`map_reduce`, which runs on the workers); with
        ``values``, the centred numeric values as a fourth element."""
        for part in self._partitions.parts:
            X, y, w = part.compute()
            if X.shape[0] == 0:
                continue
            coded = self._encode(X, y, values)
            del X, y
            yield (*coded[:2], w, *coded[2:])
            del coded

    def map_reduce(self, fn, combine=operator.add, values=False):
        """``combine`` of ``fn(codes, y, w)`` (with ``values``: ``fn(codes, y, w, numeric
        values)``) over the partitions (None without rows)."""
        dask, _, _ = _dask()
        fn = dask.delayed(fn)
        encode = dask.delayed(self._encode)
        results = [dask.delayed(_apply)(fn, part, encode, values)
                   for part in self._partitions.parts]
        result = tree_reduce(results, combine, self.split_every).compute()
        return None if isinstance(result, _Empty) else result


# --------------------------------------------------------------------------------------------
# fit / predict
# --------------------------------------------------------------------------------------------


def fit(estimator, data, y=None, *, target=None, features=None, sample_weight=None,
        sample_rows=DEFAULT_SAMPLE_ROWS, split_every=DEFAULT_SPLIT_EVERY):
    """Fit ``estimator`` on a Dask DataFrame or Dask Array, counting on the cluster.

    The counts are exactly those of ``estimator.fit`` on the whole data whenever the cut
    points are (no numeric column, or ``sample_rows`` >= the number of rows); the learner's
    extra passes run on the workers through a ``DaskSource``.

    Parameters
    ----------
    estimator : seminaive learner
        Fitted in place (every learner built on the frequency-table engine).
    data : dask.dataframe.DataFrame or dask.array.Array
        The features (and the target column, named by ``target``).
    y : dask Series or Dask / NumPy array, optional
        Class labels, partitioned like ``data``, when they are not a column of ``data``.
    target : str, optional
        Column of ``data`` holding the class labels.
    features : list of str, optional
        Feature columns (default: every column but the target and the weights).
    sample_weight : str, optional
        Column of ``data`` holding non-negative row weights (with ``target``): the counts
        are those of ``estimator.fit(X, y, sample_weight=w)``.
    sample_rows : int or None, default=100_000
        Rows sampled (uniformly, over all partitions) for the cut points of numeric columns
        (weighted cut points when ``sample_weight`` is given).
    split_every : int, default=8
        Partial results combined per task of the tree reductions.

    Returns
    -------
    estimator

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import seminaive.dask
    >>> from seminaive import A2DE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> ddf = dd.from_pandas(X.assign(label=y), npartitions=4)
    >>> with dask.config.set(scheduler="threads"):
    ...     model = seminaive.dask.fit(A2DE(), ddf, target="label")
    >>> bool((model.table_.counts == A2DE().fit(X, y).table_.counts).all())
    True
    """
    dask, _, _ = _dask()
    estimator.check_params()
    if sample_rows is not None and (isinstance(sample_rows, bool) or int(sample_rows) < 1):
        raise InputError(f"sample_rows must be a positive int or None, got {sample_rows!r}")
    owner = type(estimator).__name__
    partitions = _Partitions(data, y, target, features, owner, sample_weight)
    nominal = estimator.make_encoder().nominal_mask(partitions.meta)
    seed = seed_of(estimator.random_state)
    track_missing = estimator.missing == "value"
    summaries = [dask.delayed(_scan_partition)(part, i, seed, nominal, sample_rows,
                                               track_missing)
                 for i, part in enumerate(partitions.parts)]
    summary = tree_reduce(summaries, _merge_summaries, split_every).compute()
    if isinstance(summary, _Empty):
        raise InputError("the Dask collection holds no rows: there is nothing to learn from")
    estimator.begin_fit(summary.classes(), build_encoder(estimator, summary, sample_rows))
    source = DaskSource(partitions, estimator, summary.n_rows, split_every)
    empty = estimator.table_.copy()
    estimator.merge_counts(source.map_reduce(functools.partial(_count_partition, empty),
                                              _add_tables, values=estimator.needs_values()))
    estimator.learn_from(source)
    return estimator


def _predict_columns(X, estimator, proba):
    if X.shape[0] == 0:
        columns = {"prediction": estimator.classes_[:0]}
        if proba:
            columns.update({f"proba_{c}": np.empty(0) for c in estimator.classes_})
        return columns
    if not isinstance(X, pd.DataFrame):
        X = as_frame(X)
    return prediction_columns(estimator, X, proba)


def _predict_partition(pdf, estimator):
    pred = _predict_columns(pdf, estimator, proba=False)["prediction"]
    return pd.Series(pred, index=pdf.index, name="prediction")


def _proba_partition(pdf, estimator):
    columns = _predict_columns(pdf, estimator, proba=True)
    del columns["prediction"]
    return pd.DataFrame(columns, index=pdf.index)


def _predict_block(block, estimator):
    return np.asarray(_predict_columns(block, estimator, proba=False)["prediction"])


def _proba_block(block, estimator):
    columns = _predict_columns(block, estimator, proba=True)
    del columns["prediction"]
    return np.column_stack(list(columns.values())) if columns else np.empty((0, 0))


def _model_input(estimator, data):
    check_is_fitted(estimator, "table_")
    dask, da, dd = _dask()
    if isinstance(data, dd.DataFrame):
        columns = model_columns(estimator)
        if columns is not None:
            missing = [c for c in columns if c not in data.columns]
            if missing:
                raise InputError(f"the Dask DataFrame lacks the column(s) {missing[:10]} the "
                                 "model was fitted on")
            data = data[columns]
        return data, dask.delayed(estimator), True
    if isinstance(data, da.Array):
        if data.ndim != 2:
            raise InputError(f"X must be a 2-D Dask Array, got {data.ndim} dimension(s)")
        return data.rechunk({1: -1}), dask.delayed(estimator), False
    raise InputError(f"expected a Dask DataFrame or Dask Array, got {type(data).__name__}")


@fill_doc
def predict(estimator, data):
    """Predicted classes of a Dask DataFrame (a Series ``prediction``) or Array (1-D), lazily
    computed partition by partition (equal to ``estimator.predict``).

    Parameters
    ----------
    {dask_predict_parameters}

    Returns
    -------
    dask.dataframe.Series or dask.array.Array

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import seminaive.dask
    >>> from seminaive import NaiveBayes
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = NaiveBayes().fit(X, y)
    >>> lazy = seminaive.dask.predict(model, dd.from_pandas(X, npartitions=4))
    >>> bool((lazy.compute().to_numpy() == model.predict(X)).all())
    True
    """
    data, model, is_frame = _model_input(estimator, data)
    classes = estimator.classes_
    if is_frame:
        meta = pd.Series(classes[:0], name="prediction")
        return data.map_partitions(_predict_partition, model, meta=meta)
    return data.map_blocks(_predict_block, model, drop_axis=1, dtype=classes.dtype,
                           meta=classes[:0])


@fill_doc
def predict_proba(estimator, data):
    """P(y | x) of a Dask DataFrame (columns ``proba_<class>``) or Array (n, k), lazily
    computed partition by partition (equal to ``estimator.predict_proba``).

    Parameters
    ----------
    {dask_predict_parameters}

    Returns
    -------
    dask.dataframe.DataFrame or dask.array.Array

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import seminaive.dask
    >>> from seminaive import AODE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = AODE().fit(X, y)
    >>> proba = seminaive.dask.predict_proba(model, dd.from_pandas(X, npartitions=4))
    >>> list(proba.columns)
    ['proba_nowin', 'proba_won']
    """
    data, model, is_frame = _model_input(estimator, data)
    k = len(estimator.classes_)
    if is_frame:
        meta = pd.DataFrame({f"proba_{c}": np.empty(0) for c in estimator.classes_})
        return data.map_partitions(_proba_partition, model, meta=meta)
    return data.map_blocks(_proba_block, model, chunks=(data.chunks[0], (k,)),
                           dtype=np.float64, meta=np.empty((0, 0)))
