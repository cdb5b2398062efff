"""Prediction chunk by chunk: :func:`predict_stream` and the prediction columns shared with
:mod:`seminaive.dask`."""

import os

import numpy as np
import pandas as pd
from scipy.special import logsumexp
from sklearn.utils.validation import check_is_fitted

from .._atomic import atomic_path
from ..exceptions import InputError
from ..preprocessing.encoder import as_frame
from ._fit import (
    _describe,
)
from ._readers import (
    DICTIONARY,
    _progress_bar,
    _select,
    default_chunk_rows,
    expand_patterns,
    open_source,
)

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


def _model_types(estimator, columns):
    """The pyarrow type each column the model reads is parsed with from a CSV file (the
    types the model was fitted on: a value of another type is refused, naming its line), or
    None for a model without column names."""
    import pyarrow as pa

    if columns is None:
        return None
    encoder = estimator.encoder_
    types = {}
    for col, name in enumerate(columns):
        values = [v for i, v in enumerate(encoder.categories_[col])
                  if i != encoder.missing_code_[col]]
        if not encoder.nominal_[col]:
            types[name] = pa.float64()
        elif values and all(isinstance(v, str) for v in values):
            types[name] = DICTIONARY
        elif values and all(isinstance(v, (bool, np.bool_)) for v in values):
            types[name] = pa.bool_()
        elif values and all(isinstance(v, (int, np.integer)) and not isinstance(
                v, (bool, np.bool_)) for v in values):
            types[name] = pa.int64()
        elif values and all(isinstance(v, (int, float, np.number)) for v in values):
            types[name] = pa.float64()
    return types


#: extensions of the files :func:`predict_stream` writes: CSV, then Parquet
CSV_OUTPUTS = (".csv",)
PARQUET_OUTPUTS = (".parquet", ".pq")


def _output_is_csv(out):
    """Whether ``out`` names a CSV file (else a Parquet one); any other extension is an
    InputError naming the accepted ones."""
    try:
        suffix = os.path.splitext(os.fspath(out))[1].lower()
    except TypeError as err:
        raise InputError(f"out must be a path, got a {type(out).__name__}") from err
    if suffix in CSV_OUTPUTS:
        return True
    if suffix in PARQUET_OUTPUTS:
        return False
    raise InputError(f"cannot tell the format to write from the name {os.fspath(out)!r}: "
                     f"end it in {' or '.join(CSV_OUTPUTS + PARQUET_OUTPUTS)} (CSV or Parquet)")


def predict_stream(estimator, source, out, *, proba=True, chunk_rows=None, csv_options=None,
                   progress=None):
    """Write predictions of ``source`` to the Parquet or CSV file ``out``, chunk by chunk
    (the engine of ``estimator.predict_stream``).

    Parameters
    ----------
    estimator : fitted seminaive learner
        The model.
    source : path, list of paths, DataFrame, list of DataFrames, callable or iterator
        As in :func:`fit_stream` (a path string with wildcards is the files it matches,
        sorted); the model's feature columns are read.
    out : str or path
        File written with columns ``prediction`` and ``proba_<class>``, in the format its
        name ends with: CSV (``.csv``) or Parquet (``.parquet``, ``.pq``); any other name
        is refused.  It is written beside ``out`` and renamed into place when complete, so
        a failure leaves a previous ``out`` untouched and no partial file.
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
        raise InputError("out is required: the path of the CSV or Parquet file to write")
    as_csv = _output_is_csv(out)
    columns = model_columns(estimator)
    source = expand_patterns(source)  # "data/part-*.csv": the files, sorted
    reader = open_source(source, csv_options, column_types=_model_types(estimator, columns))
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
    # written beside ``out`` and renamed into place at the end: a source that fails midway
    # leaves any previous ``out`` untouched and no partial file
    with atomic_path(out, inputs=source if isinstance(source, (list, tuple)) else [source]) \
            as tmp:
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
