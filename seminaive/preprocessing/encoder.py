"""From user data (DataFrame or array, nominal and numeric columns) to attribute codes.

:class:`AttributeEncoder` is a scikit-learn transformer.  Its output is an ``int32`` array of
codes ``0 .. n_values_[i] - 1`` with ``-1`` for a value that is missing, or that was never
seen in training (which is treated as missing, as Weka does).
"""

import copy
import numbers
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .. import kernels
from ..exceptions import InputError, InputTypeError, warn_user
from ..kernels.encoding import SMALL_VALUES
from . import _strings
from .discretize import EqualFrequencyDiscretizer, MDLDiscretizer
from .validation import check_sample_weight

#: bins of the grid of binned numeric children (``numeric_grid_``)
GRID_BINS = 32

MISSING_LABEL = "<missing>"


def _is_nominal_dtype(dtype):
    # the Arrow dictionaries of string files first: the cheapest test, and the commonest
    return (_is_arrow_dictionary(dtype) or isinstance(dtype, pd.CategoricalDtype)
            or pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)
            or pd.api.types.is_bool_dtype(dtype))


def _is_arrow_dictionary(dtype):
    """Whether ``dtype`` is an Arrow dictionary type (values not declared categories: the
    dictionary of a chunk is whatever the reader met in it)."""
    return isinstance(dtype, pd.ArrowDtype) and pa.types.is_dictionary(dtype.pyarrow_dtype)


def _holds_numbers(series):
    """An object column whose values are all numbers (missing values aside), as
    ``df.to_numpy()`` makes of a frame that mixes numeric and text columns: read as numeric,
    as the frame's own column would be.  Booleans, text and an all-missing column are not."""
    if series.dtype != object:
        return False
    numbers = ("integer", "floating", "mixed-integer-float")
    # a text column shows it in its first values: only a column that starts with numbers
    # (or missing values) is scanned whole
    if pd.api.types.infer_dtype(series.iloc[:256], skipna=True) not in (*numbers, "empty"):
        return False
    return pd.api.types.infer_dtype(series, skipna=True) in numbers


def _first_text(series):
    """``"; row 7: 'n/a' is not a number"`` for the first value of ``series`` that is not a
    number (empty if there is none)."""
    bad = pd.to_numeric(series, errors="coerce").isna().to_numpy() & series.notna().to_numpy()
    if not bad.any():
        return ""
    row = int(np.flatnonzero(bad)[0])
    return f"; row {series.index[row]!r}: {series.iloc[row]!r} is not a number"


def _is_nominal_column(series):
    return _is_nominal_dtype(series.dtype) and not _holds_numbers(series)


def as_frame(X, feature_names=None):
    """Wrap ``X`` as a DataFrame without copying numeric arrays; reject empty or 1-D input.

    A list (or tuple) of rows is read column by column, as ``pd.DataFrame(X)`` would: a
    column of numbers stays numeric even if another column holds strings (``np.asarray``
    would turn every value into a string).  A pyarrow Table or RecordBatch keeps its
    values where pandas can hold them as they are (:func:`_arrow_frame`).
    """
    if isinstance(X, pd.DataFrame):
        frame = X
    elif isinstance(X, (pa.Table, pa.RecordBatch)):
        frame = _arrow_frame(X)
    else:
        if hasattr(X, "toarray") or hasattr(X, "tocsr") or isinstance(
                getattr(X, "dtype", None), pd.SparseDtype):
            raise InputTypeError(
                "Sparse input is not supported: AnDE counts attribute-value combinations, "
                "so pass a dense array or a DataFrame (call X.toarray() first).")
        if isinstance(X, pd.Series):
            raise InputError(
                "Expected 2D array, got a pandas Series (1D) instead: pass a DataFrame, e.g. "
                "X.to_frame() if it is a single feature.")
        rows = isinstance(X, (list, tuple))
        try:
            arr = np.asarray(X, dtype=object) if rows else np.asarray(X)
        except ValueError as err:  # ragged nested lists
            raise InputError(f"X could not be read as a 2D table: {err}") from err
        if arr.ndim == 0:
            raise InputError("Expected 2D array, got scalar array instead: reshape your data.")
        if arr.ndim == 1:
            raise InputError(
                "Expected 2D array, got 1D array instead. Reshape your data either using "
                "array.reshape(-1, 1) if it has a single feature or array.reshape(1, -1) if it "
                "contains a single sample.")
        if arr.ndim > 2:
            raise InputError(f"Found array with dim {arr.ndim}. Expected <= 2.")
        if np.iscomplexobj(arr) or (arr.dtype == object and arr.size and any(
                isinstance(v, complex) for v in arr.ravel()[:1000])):
            raise InputError("Complex data not supported: pass real numbers or nominal "
                             "values.")
        columns = feature_names if feature_names is not None else range(arr.shape[1])
        frame = pd.DataFrame(arr, columns=list(columns), copy=False)
        if rows:
            frame = frame.infer_objects()
    if frame.shape[0] == 0:
        raise InputError(
            f"Found array with 0 sample(s) (shape={frame.shape}) while a minimum of 1 is "
            "required: the data is empty.")
    if frame.shape[1] == 0:
        raise InputError(
            f"Found array with 0 feature(s) (shape={frame.shape}) while a minimum of 1 is "
            "required.")
    return frame


def _arrow_frame(table, undeclared=()):
    """A pyarrow Table (or RecordBatch) as a DataFrame, without converting the values where
    it can be avoided: string columns stay Arrow arrays (``ArrowDtype``), dictionary columns
    become Categoricals on their indices (declared order of the dictionary), other columns
    are converted by pyarrow as ``table.to_pandas()`` does (numbers without nulls without a
    copy; with nulls, floats with NaN).

    The dictionary columns named in ``undeclared`` (string columns a reader dictionary-encoded
    as it parsed) stay Arrow dictionary arrays: their values are then sorted, as those of a
    string column, and coded by a lookup of each chunk's dictionary."""
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    columns = {}
    for i, col in enumerate(table.columns):
        kind = col.type
        # arrays, not Series: a frame made of Series aligns (reindexes) every one of them
        if pa.types.is_string(kind) or pa.types.is_large_string(kind) or (
                pa.types.is_dictionary(kind) and table.column_names[i] in undeclared):
            columns[i] = pd.arrays.ArrowExtensionArray(col)
        elif pa.types.is_dictionary(kind) and (series := _dictionary_series(col)) is not None:
            columns[i] = series.array
        else:
            columns[i] = col.to_pandas().array
    frame = pd.DataFrame(columns, copy=False)
    frame.columns = list(table.column_names)
    if frame.shape[1] == 0:
        frame = pd.DataFrame(index=range(table.num_rows))
    return frame


def _dictionary_series(col):
    """A dictionary-encoded Arrow column as a Categorical Series whose codes are the
    column's indices (one dictionary for all chunks), or None if its dictionary cannot be
    categories (nulls or repeated values)."""
    col = col.unify_dictionaries()
    if col.num_chunks == 0:
        return None
    dictionary = col.chunk(0).dictionary
    if dictionary.null_count or len(pc.unique(dictionary)) != len(dictionary):
        return None
    indices = pa.chunked_array([c.indices for c in col.chunks], type=col.type.index_type)
    codes = indices.fill_null(-1).to_numpy() if indices.null_count else indices.to_numpy()
    categories = pd.Index(dictionary.to_pandas())
    return pd.Series(pd.Categorical.from_codes(codes, categories=categories,
                                               ordered=col.type.ordered, validate=False),
                     copy=False)


def _feature_names(frame):
    """Column names as sklearn's ``feature_names_in_`` if they are all strings, else None."""
    names = list(frame.columns)
    if names and all(isinstance(c, str) for c in names):
        return np.asarray(names, dtype=object)
    return None


def _name_list(names):
    shown = [f"- {n}" for n in list(names)[:5]]
    if len(names) > 5:
        shown.append("- ...")
    return "".join(f"{line}\n" for line in shown)


def check_feature_names(fitted_names, frame, owner):
    """scikit-learn's feature-name validation (same messages), raising :class:`InputError`.

    ``fitted_names`` is the ``feature_names_in_`` of the fitted model (or None), ``frame`` the
    input as a DataFrame (arrays come with integer column names, i.e. no feature names).
    """
    given = _feature_names(frame)
    if fitted_names is None and given is None:
        return
    if fitted_names is not None and given is None:
        warn_user(f"X does not have valid feature names, but {owner} was fitted with "
                      "feature names", UserWarning)
        return
    if fitted_names is None:
        warn_user(f"X has feature names, but {owner} was fitted without feature names",
                      UserWarning)
        return
    if len(given) == len(fitted_names) and np.all(given == fitted_names):
        return
    message = "The feature names should match those that were passed during fit.\n"
    unexpected = sorted(set(given) - set(fitted_names))
    missing = sorted(set(fitted_names) - set(given))
    if unexpected:
        message += "Feature names unseen at fit time:\n" + _name_list(unexpected)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + _name_list(missing)
    if not missing and not unexpected:
        message += ("Feature names must be in the same order as they were in fit.\n"
                    "Select the columns in the fitted order: X[model.feature_names_in_]")
    else:
        message += ("Pass the columns the model was fitted on (model.feature_names_in_), in "
                    "that order.")
    raise InputError(message)


def _sorted_values(values):
    """Sorted unique non-missing values (in order of appearance if not sortable)."""
    arr = np.asarray(values)
    if arr.dtype.kind in "iu":
        if arr.size and int(arr.max()) - int(arr.min()) < 1 << 20:
            low = int(arr.min())
            present = np.bincount((arr - low).astype(np.int64)) > 0
            return (np.flatnonzero(present) + low).tolist()
        return np.unique(arr).tolist()
    if arr.dtype.kind == "f":
        return np.unique(arr[~np.isnan(arr)]).tolist()
    try:
        if arr.dtype == object:  # missing values left out; no string-dtype inference
            uniques = pd.factorize(arr)[1]
        else:
            uniques = pd.unique(pd.Series(values).dropna())
    except TypeError as err:  # unhashable values (dict, list, ...)
        bad = next((v for v in np.asarray(values, dtype=object).ravel()
                    if not _hashable(v)), None)
        raise InputTypeError(
            f"a nominal column holds a value of type {type(bad).__name__} ({bad!r:.40}), "
            "which cannot be a nominal value: use strings, numbers or booleans") from err
    try:
        return sorted(uniques.tolist())
    except TypeError:
        return list(uniques.tolist())


def _hashable(v):
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _fill_nan(values):
    """NaN replaced by the column median (0 for an all-NaN column)."""
    nan = np.isnan(values)
    if not nan.any():
        return values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
        median = np.nanmedian(values, axis=0)
    median = np.where(np.isnan(median), 0.0, median)
    return np.where(nan, median, values)


#: rows that integer weights may stand for when every row is repeated (a discretiser that
#: takes no weights): 64 Mi row indices, 512 MiB
MAX_REPEATED_ROWS = 1 << 26


def _weighted_rows(w, max_rows, random_state):
    """Row indices that stand for weighted rows when a step cannot take weights.

    Integer weights: every row repeated ``w`` times (a row of weight 0 left out), so that cut
    points and value sets are those of the data with the rows repeated; if that would exceed
    ``max_rows`` rows, the sample the discretiser would draw from the repeated rows (same
    ``random_state``).  Other weights: the rows of positive weight, each once.
    """
    if w is None:
        return None
    if not np.all(w == np.round(w)):
        return np.flatnonzero(w > 0)
    # the number of rows the weights stand for, summed in floats (an int64 sum can wrap)
    total = float(np.sum(w, dtype=np.float64))
    if total > max(MAX_REPEATED_ROWS, 0 if max_rows is None else int(max_rows)):
        if max_rows is None:
            raise InputError(
                f"the integer sample weights stand for {total:.4g} rows, more than the "
                f"{MAX_REPEATED_ROWS:,} that max_sample_rows=None can repeat to fit the "
                "discretiser on every row: set max_sample_rows (e.g. 100_000) to fit it on "
                "a weighted sample, or scale the weights down")
        # too many repetitions to draw from exactly: a weighted sample with replacement
        p = w / w.max()  # (w / w.sum() would be 0 / inf for weights near the float range)
        return check_random_state(random_state).choice(w.size, size=int(max_rows),
                                                       p=p / p.sum())
    reps = w.astype(np.int64)
    total = int(reps.sum())
    if max_rows is not None and total > int(max_rows):
        picks = check_random_state(random_state).choice(total, size=int(max_rows),
                                                        replace=False)
        return np.searchsorted(np.cumsum(reps), picks, side="right")
    return np.repeat(np.arange(reps.size), reps)


def _numeric_codes(values, categories):
    """Codes of numeric values against a list of numeric categories (-1 if absent)."""
    if values.dtype.kind in "iu" and len(categories) and values.size:
        cats_int = np.asarray(categories)
        if cats_int.dtype.kind in "iu":
            low = min(int(values.min()), int(cats_int.min()))
            high = max(int(values.max()), int(cats_int.max()))
            if high - low < 1 << 20:
                table = np.full(high - low + 1, -1, dtype=np.int64)
                table[cats_int.astype(np.int64) - low] = np.arange(len(cats_int))
                return table[values.astype(np.int64) - low]
            if values.dtype.kind == "i" and cats_int.dtype.kind == "i":
                # compared as int64: floats would merge integers beyond 2**53
                values, cats = values.astype(np.int64), cats_int.astype(np.int64)
                order = np.argsort(cats, kind="stable")
                idx = np.minimum(np.searchsorted(cats[order], values), len(cats) - 1)
                return np.where(cats[order][idx] == values, order[idx], -1)
    values = values.astype(np.float64)
    cats = np.asarray(categories, dtype=np.float64)
    order = np.argsort(cats, kind="stable")
    sorted_cats = cats[order]
    idx = np.searchsorted(sorted_cats, values)
    idx = np.minimum(idx, max(len(cats) - 1, 0))
    if len(cats) == 0:
        return np.full(len(values), -1, dtype=np.int64)
    found = sorted_cats[idx] == values
    return np.where(found, order[idx], -1)


#: NumPy dtypes the numba coding kernels read directly (any layout)
_KERNEL_DTYPES = frozenset(np.dtype(t) for t in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float32, np.float64))


def _shared_dtype(frame, cols=None):
    """The NumPy dtype all columns ``cols`` (default: every column) share, if the kernels
    read it (integers, float32, float64), else None."""
    dtypes = set(frame.dtypes if cols is None else frame.dtypes.iloc[cols])
    if len(dtypes) != 1:
        return None
    dtype = next(iter(dtypes))
    return dtype if isinstance(dtype, np.dtype) and dtype in _KERNEL_DTYPES else None


def _kernel_matrix(frame, cols):
    """Columns ``cols`` of ``frame`` as one matrix of their own dtype (a view when they are
    all the columns of a frame made from an array), or None when they differ in dtype."""
    if _shared_dtype(frame, cols) is None:
        return None
    if cols.size == frame.shape[1]:
        return frame.to_numpy()
    return frame.iloc[:, cols].to_numpy()


def _arrow_strings(series, combine=True):
    """The values of an Arrow-backed string column as one pyarrow (large) string array (or,
    without ``combine``, as the chunked array it is held in), or None for any other
    column."""
    dtype = series.dtype
    if isinstance(dtype, pd.StringDtype):
        if dtype.storage != "pyarrow":
            return None
    elif not (isinstance(dtype, pd.ArrowDtype) and (
            pa.types.is_string(dtype.pyarrow_dtype)
            or pa.types.is_large_string(dtype.pyarrow_dtype))):
        return None
    arr = series.array.__arrow_array__()
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return None
    if isinstance(arr, pa.ChunkedArray) and combine:
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    return arr


def _index_in_codes(arr, value_set, out):
    """Codes of an Arrow string array (or chunked array) against ``value_set`` (the known
    values in code order, of the array's type) into ``out``: Arrow's hash lookup
    (:func:`pyarrow.compute.index_in`) on the buffers as they are, chunk by chunk, -1 for a
    null or a value not in the set; no Python string is made."""
    start = 0
    for chunk in (arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]):
        index = pc.index_in(chunk, value_set=value_set)
        if index.null_count:
            index = index.fill_null(-1)
        out[start:start + len(index)] = index.to_numpy(zero_copy_only=False)
        start += len(index)


def _nominal_values(series, present):
    """The values of a nominal column in the order :meth:`AttributeEncoder.fit` lists them
    (declared categories of a Categorical, else sorted), on the rows ``present`` (None:
    all)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return list(series.cat.categories)
    if _is_arrow_dictionary(series.dtype):
        found = set()
        arr = series.array.__arrow_array__()
        for chunk in (arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]):
            indices = chunk.indices
            if present is not None:
                n = len(indices)
                indices = indices.filter(pa.array(present[:n]))
                present = present[n:]
            # the values the chunk's rows hold (a dictionary may hold more)
            found.update(chunk.dictionary.take(pc.unique(indices).drop_null()).to_pylist())
        found.discard(None)
        return _sorted_values(np.array(list(found), dtype=object)) if found else []
    arr = _arrow_strings(series, combine=False)
    if arr is not None:
        if present is not None:
            arr = arr.filter(pa.array(present))
        return sorted(pc.unique(arr).drop_null().to_pylist())
    values = series.to_numpy()
    return _sorted_values(values if present is None else values[present])


def _string_values(columns, present, made=None):
    """The sorted values of the Arrow string columns among ``columns`` (column -> Series),
    on the rows ``present`` (None: all): every chunk's distinct values found by one hash
    pass over its buffers, all chunks of all columns on the threads.  Column -> values, for
    the columns so coded (not those with too many distinct values in a chunk).  With
    ``made`` (a list), ``(column, first row, chunk codes, chunk values)`` of every chunk of
    those columns is appended to it."""
    pieces, outs, where = [], [], []
    for col, series in columns.items():
        arr = _arrow_strings(series, combine=False)
        if arr is None:
            continue
        for chunk in _strings.chunks_of(arr):
            pieces.append(chunk)
            outs.append(np.empty(len(chunk), dtype=np.int32))
            where.append(col)
    if not pieces:
        return {}
    values = _strings.hash_chunks(pieces, outs)
    found, start, failed = {}, {}, set()
    for col, out, dictionary in zip(where, outs, values, strict=True):
        first = start.get(col, 0)
        start[col] = first + out.size
        if dictionary is None:
            failed.add(col)
            continue
        if present is not None:  # the values of the rows of positive weight
            rows = out[present[first:first + out.size] & (out >= 0)]
            dictionary = dictionary.filter(np.bincount(rows, minlength=len(dictionary)) > 0)
        found.setdefault(col, set()).update(dictionary.to_pylist())
    if made is not None:
        start = {}
        for col, out, dictionary in zip(where, outs, values, strict=True):
            first = start.get(col, 0)
            start[col] = first + out.size
            if col not in failed:
                made.append((col, first, out, dictionary))
    return {col: sorted(v) for col, v in found.items() if col not in failed}


def _object_values(columns, present, made=None):
    """The values of the object columns among ``columns`` (column -> Series) as
    :func:`_nominal_values` lists them, on the rows ``present`` (None: all), from one pass
    over each column (:func:`._strings.factorize_objects`, the columns on the threads).
    Column -> values, for the columns so coded (not those whose values cannot be hashed).
    With ``made`` (a list), ``(column, object codes, (objects, uniques))`` of every such
    column is appended to it: its codes, made again from these, are ``pd.factorize``'s."""
    arrays, outs, where = [], [], []
    for col, series in columns.items():
        if series.dtype != object:
            continue
        arrays.append(series.to_numpy())
        outs.append(np.empty(len(series), dtype=np.int32))
        where.append(col)
    if not arrays:
        return {}
    found = {}
    items = _strings.factorize_objects(arrays, outs)
    for col, values, out, item in zip(where, arrays, outs, items, strict=True):
        if item is None:
            continue
        objects, uniques = item
        if present is not None:  # the values of the rows of positive weight
            rows = out[present]
            held = np.bincount(rows[rows >= 0], minlength=len(objects)) > 0
            kept = np.zeros(len(uniques) + 1, dtype=bool)
            kept[objects[held]] = True  # (a missing value's -1 marks the spare last entry)
            uniques = uniques[kept[:-1]]
        try:
            found[col] = sorted(uniques.tolist())
        except TypeError:  # not sortable: in order of first appearance (on those rows)
            found[col] = list(uniques.tolist()) if present is None else _sorted_values(
                values[present])
        if made is not None:
            made.append((col, out, item))
    return found


def _dictionary_chunks(series):
    """``(dictionary, indices)`` of every chunk of an Arrow dictionary column: the chunk's
    dictionary (a pyarrow array) and its indices as an int64 NumPy array, -1 where null."""
    arr = series if isinstance(series, (pa.Array, pa.ChunkedArray)) else \
        series.array.__arrow_array__()
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    for chunk in chunks:
        indices = chunk.indices
        if indices.null_count:
            indices = indices.fill_null(-1)
        yield chunk.dictionary, indices.to_numpy(zero_copy_only=False)


def _dictionary_codes(series, lookup, out, position=None):
    """Codes of an Arrow dictionary column (a Series, or a pyarrow dictionary array) against
    ``lookup`` into ``out``: each chunk's dictionary is looked up once (a few values), then
    its indices are mapped through that small table; no value is converted row by row.
    ``position``: the lookup as a dict of value -> code, when the caller keeps one."""
    start = 0
    for dictionary, indices in _dictionary_chunks(series):
        table = _dictionary_table(dictionary.to_pylist(), lookup, position)
        # indices lie in [-1, len(values)): "wrap" sends -1 (null) to the last entry, and
        # skips the bounds check that makes the default mode twice as slow
        np.take(table, indices, out=out[start:start + indices.size], mode="wrap")
        start += indices.size


def _dictionary_table(values, lookup, position=None):
    """The code of each of a dictionary's ``values`` against ``lookup`` (-1: not in it),
    and -1 last (a null row's index -1 wraps to it); ``position``: the lookup as a dict of
    value -> code, when the caller keeps one."""
    if len(values) <= 1024:  # a few values: looked up in a dict
        if position is None:
            position = {v: i for i, v in enumerate(lookup.tolist())}
        return np.array([*(position.get(v, -1) for v in values), -1], dtype=np.int32)
    return np.append(lookup.get_indexer(pd.Index(values, dtype=object)),
                     -1).astype(np.int32)  # the last entry: null


def _object_codes(values, lookup):
    """``lookup.get_indexer(values)`` for an object array, hashing each distinct value once
    (``pd.factorize``) rather than every value against the lookup."""
    try:
        codes, uniques = pd.factorize(values)
    except TypeError:  # unhashable values: as get_indexer reports them
        return lookup.get_indexer(values)
    known = np.empty(len(uniques) + 1, dtype=np.int32)
    known[:-1] = lookup.get_indexer(uniques)
    known[-1] = -1
    return known[codes]


def _is_fitted(estimator):
    """Whether a discretiser object was fitted by the user beforehand."""
    if isinstance(estimator, str):
        return False
    if hasattr(estimator, "__sklearn_is_fitted__"):
        return bool(estimator.__sklearn_is_fitted__())
    # scikit-learn's rule: a fitted estimator has attributes ending in "_"
    return any(v.endswith("_") and not v.startswith("__") for v in vars(estimator))


class AttributeEncoder(TransformerMixin, BaseEstimator):
    """Encode nominal columns and discretise numeric columns into attribute codes.

    Parameters
    ----------
    discretizer : {"mdl", "equal_frequency"} or scikit-learn transformer, default="mdl"
        How numeric columns become nominal: Fayyad & Irani's supervised MDL method, equal
        frequency bins (``n_bins``), or any transformer whose ``transform`` returns ordinal bin
        codes (e.g. ``KBinsDiscretizer(encode="ordinal")``).  Fitted on training data only.
    n_bins : int, default=3
        Bins for ``"equal_frequency"`` (Webb et al. 2012 use 3, Cerquides & de Màntaras 2005 use 5).
    missing : {"ignore", "value"}, default="ignore"
        ``"ignore"``: missing values get code -1 and are left out of counting and of
        classification.  ``"value"``: a missing value is a value of its own (added to an
        attribute's values when it first appears in training data).
    categorical_features : "auto", "all", or list of column names / indices / boolean mask
        Which columns are nominal.  ``"auto"``: object, string, category and bool columns.
    max_sample_rows : int, default=100_000
        Cut points are computed on at most this many sampled rows (as Chen et al. 2014, §4, do).
    random_state : int, RandomState instance or None
        Seeds that sampling.
    numeric_grid : bool, default=False
        Also keep the quantiles 0, 1/32, ..., 1 of every numeric column on the rows the cut
        points are fitted on (``numeric_grid_``, NaN for a column without values): the grid
        of the binned children of ``density="kde"`` (``seminaive.tables.binned``).

    Attributes
    ----------
    feature_names_in_ : ndarray of str (only for DataFrame input with string column names)
    n_features_in_ : int
    nominal_ : ndarray of bool
        Which columns are nominal (True) or discretised numeric (False).
    categories_ : list
        For nominal columns, the list of values (code = position); for numeric columns, the
        bin labels ``"(lo, hi]"``.  With ``missing="value"`` the missing value appears as
        ``"<missing>"``.
    n_values_ : ndarray of int
        Number of values of each attribute (the ``|X_i|`` of every smoothed estimate).

    See Also
    --------
    seminaive.preprocessing.MDLDiscretizer, seminaive.preprocessing.EqualFrequencyDiscretizer

    References
    ----------
    Fayyad, U. M. & Irani, K. B. (1993). Multi-interval discretization of continuous-valued
    attributes for classification learning. *IJCAI 1993*, 1022-1027.

    Examples
    --------
    >>> import pandas as pd
    >>> from seminaive import AttributeEncoder
    >>> X = pd.DataFrame({"colour": ["red", "blue", "red", None],
    ...                   "size": [1.0, 2.0, 8.0, 9.0]})
    >>> enc = AttributeEncoder(discretizer="equal_frequency", n_bins=2).fit(X)
    >>> enc.categories_[0]
    ['blue', 'red']
    >>> enc.transform(X).tolist()
    [[1, 0], [0, 0], [1, 1], [-1, 1]]
    >>> enc.transform(pd.DataFrame({"colour": ["green"], "size": [3.0]})).tolist()
    [[-1, 0]]
    """

    def __init__(self, discretizer="mdl", n_bins=3, missing="ignore",
                 categorical_features="auto", max_sample_rows=100_000, random_state=None,
                 numeric_grid=False):
        self.discretizer = discretizer
        self.n_bins = n_bins
        self.missing = missing
        self.categorical_features = categorical_features
        self.max_sample_rows = max_sample_rows
        self.random_state = random_state
        self.numeric_grid = numeric_grid

    # ------------------------------------------------------------------------------ fitting
    def nominal_mask(self, frame):
        """Which columns of ``frame`` are nominal under ``categorical_features`` (bool array)."""
        spec = self.categorical_features
        a = frame.shape[1]
        if isinstance(spec, str):
            if spec == "auto":
                # the dtypes, and a column's values only for an object column (which may
                # hold numbers): a Series made for every column was most of the time
                return np.array([_is_nominal_dtype(kind) and not (
                    kind == np.dtype(object) and _holds_numbers(frame.iloc[:, c]))
                    for c, kind in enumerate(frame.dtypes)], dtype=bool)
            if spec == "all":
                return np.ones(a, dtype=bool)
            if spec == "none":
                return np.zeros(a, dtype=bool)
            raise ValueError(f"categorical_features={spec!r}: use 'auto', 'all', 'none' or a "
                             "list of columns")
        spec = list(spec)
        if len(spec) == a and all(isinstance(v, (bool, np.bool_)) for v in spec):
            mask = np.array(spec, dtype=bool)
        else:
            mask = np.zeros(a, dtype=bool)
            columns = list(frame.columns)
            for v in spec:
                if v in columns:
                    mask[columns.index(v)] = True
                elif isinstance(v, numbers.Integral) and 0 <= v < a:
                    mask[int(v)] = True
                else:
                    raise InputError(f"categorical_features names column {v!r}, which is "
                                     f"not among the columns {columns[:20]}")
        # object columns cannot be discretised whatever the user said
        for i in range(a):
            if not mask[i] and _is_nominal_column(frame.iloc[:, i]) and not \
                    pd.api.types.is_bool_dtype(frame.dtypes.iloc[i]):
                raise InputError(f"column {frame.columns[i]!r} is non-numeric "
                                 f"({frame.dtypes.iloc[i]}) but not listed as categorical"
                                 f"{_first_text(frame.iloc[:, i])}: list it in "
                                 "categorical_features, or fix the value")
        return mask

    def _make_discretizer(self):
        if isinstance(self.discretizer, str):
            if self.discretizer == "mdl":
                return MDLDiscretizer(max_sample_rows=self.max_sample_rows,
                                      random_state=self.random_state)
            if self.discretizer == "equal_frequency":
                return EqualFrequencyDiscretizer(n_bins=self.n_bins,
                                                 max_sample_rows=self.max_sample_rows,
                                                 random_state=self.random_state)
            raise ValueError(f"discretizer={self.discretizer!r}: use 'mdl', "
                             "'equal_frequency' or a scikit-learn transformer")
        if not hasattr(self.discretizer, "fit") or not hasattr(self.discretizer, "transform"):
            raise ValueError("discretizer must be 'mdl', 'equal_frequency' or an object with "
                             "fit and transform")
        if _is_fitted(self.discretizer):
            # cut points supplied by the user: used as they are, never refitted
            return copy.deepcopy(self.discretizer)
        return clone(self.discretizer)

    def fit(self, X, y=None, sample_weight=None):
        """Learn value sets of nominal columns and cut points of numeric columns.

        Parameters
        ----------
        X : DataFrame, pyarrow Table or array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), optional
            Class labels; required by ``discretizer="mdl"`` when there are numeric columns.
        sample_weight : array-like of shape (n_samples,), optional
            Rows of weight 0 are left out; with integer weights the cut points are those of
            the data with every row repeated ``weight`` times.  With other weights the cut
            points are computed on the rows of positive weight, unweighted (the
            discretisers do not take weights).
        """
        frame = as_frame(X)
        self._fit(frame, y, check_sample_weight(sample_weight, frame.shape[0]))
        return self

    def fit_encode(self, X, y=None, sample_weight=None):
        """Fit, and return the storage codes of ``X``: those :meth:`transform` gives, + 1
        (0 for a missing value), as the frequency tables store them.

        The codes the fit makes as it finds the values are used, not made again: an
        integer matrix whose columns span at most 64 values each is coded in the pass that
        finds its values, an Arrow string column in the hash pass that finds them, an
        object column in the pass that groups its rows by the object they hold.  Nothing
        is kept between calls.

        Parameters
        ----------
        X : DataFrame, pyarrow Table or array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), optional
            Class labels (as :meth:`fit`).
        sample_weight : array-like of shape (n_samples,), optional
            As :meth:`fit`.

        Returns
        -------
        codes : ndarray of shape (n_samples, n_features), Fortran order
            uint8 when every column has at most 254 values, else int32.

        Examples
        --------
        >>> import pandas as pd
        >>> enc = AttributeEncoder()
        >>> enc.fit_encode(pd.DataFrame({"a": ["x", "y", None, "x"]}))[:, 0].tolist()
        [1, 2, 0, 1]
        """
        frame = as_frame(X)
        made = {}
        self._fit(frame, y, check_sample_weight(sample_weight, frame.shape[0]), made)
        small = made.get("small")
        if small is not None and self.missing_code_.max() < 0:
            return small
        codes = np.empty(frame.shape, dtype=np.int32, order="F")
        done = self._remap_strings(made.get("strings", ()), codes)
        done |= self._remap_objects(made.get("objects", ()), codes)
        self._code_frame(frame, codes, done)
        out = np.empty(codes.shape, dtype=np.uint8 if self.n_values_.max() <= 254
                       else np.int32, order="F")
        np.add(codes, 1, out=out, casting="unsafe")
        return out

    def _remap_strings(self, made, codes):
        """The chunk codes of the fit's hash pass (:func:`_string_values`) as codes of the
        fitted values, written into ``codes``; returns the columns coded."""
        tables, outs, positions = [], [], {}
        for col, first, out, dictionary in made:
            if col not in positions:
                positions[col] = self._positions(col)
            position = positions[col]
            tables.append(np.array([*(position.get(v, -1) for v in dictionary.to_pylist()),
                                    -1], dtype=np.int32))
            target = codes[first:first + out.size, col]
            target[:] = out
            outs.append(target)
        _strings.remap_chunks(outs, tables)
        return set(positions)

    def _remap_objects(self, made, codes):
        """The object codes of the fit's pass over the object columns (:func:`_object_values`)
        as codes of the fitted values, written into ``codes``; returns the columns coded."""
        outs, items, known = [], [], []
        for col, out, item in made:
            target = codes[:, col]
            target[:] = out
            outs.append(target)
            items.append(item)
            known.append(self._category_index(col).get_indexer(item[1]))
        _strings.remap_chunks(outs, _strings.object_tables(items, known))
        return {col for col, _, _ in made}

    def _fit(self, frame, y, sample_weight=None, made=None, find_values=True):
        """Fit on ``frame``; with ``made`` (a dict), the codes the fit makes as it finds the
        values are put there for :meth:`fit_encode`: ``"small"``, the storage codes of an
        integer matrix coded in its one pass; ``"strings"``, the chunk codes of the Arrow
        string columns (:func:`_string_values`); ``"objects"``, the object codes of the
        object columns (:func:`_object_values`).  Unless ``find_values``, the values of the
        nominal columns are not looked for (their ``categories_`` left None, for
        :meth:`fit_scanned`, which sets them from the whole data)."""
        if self.missing not in ("ignore", "value"):
            raise ValueError(f"missing={self.missing!r}: use 'ignore' or 'value'")
        for attr in ("feature_names_in_", "discretizer_"):
            self.__dict__.pop(attr, None)
        if y is not None:
            y = np.asarray(y)
            if y.ndim != 1 or y.shape[0] != frame.shape[0]:
                raise InputError(f"y must be one-dimensional with one entry per row of X "
                                 f"({frame.shape[0]}), got shape {y.shape}")
        rows = _weighted_rows(sample_weight, self.max_sample_rows, self.random_state)
        self.n_features_in_ = frame.shape[1]
        names = _feature_names(frame)
        if names is not None:
            self.feature_names_in_ = names
        self.column_names_ = list(frame.columns)
        self.nominal_ = self.nominal_mask(frame)
        self.categories_ = [None] * frame.shape[1]
        self.missing_code_ = np.full(frame.shape[1], -1, dtype=np.int64)
        numeric = np.flatnonzero(~self.nominal_)
        self.numeric_columns_ = numeric
        if numeric.size:
            values = self._numeric_matrix(frame, numeric)
            self.discretizer_ = self._make_discretizer()
            if y is None and self.discretizer == "mdl":
                raise InputError(
                    f"{type(self).__name__} requires y to be passed, but the target y is "
                    "None: MDL discretisation of the numeric columns is supervised (pass the "
                    "class labels, or use discretizer='equal_frequency')")
            fit_values, fit_y = values, y
            if rows is not None:
                fit_values = values[rows]
                fit_y = None if y is None else y[rows]
            if not isinstance(self.discretizer_, (MDLDiscretizer, EqualFrequencyDiscretizer)):
                # a scikit-learn discretiser may not accept NaN: fit it on column medians
                fit_values = _fill_nan(fit_values)
            self._numeric_summary(fit_values)
            if not _is_fitted(self.discretizer_):
                self.discretizer_.fit(fit_values, fit_y)
            elif getattr(self.discretizer_, "n_features_in_", numeric.size) != numeric.size:
                raise InputError(
                    f"the fitted discretizer expects {self.discretizer_.n_features_in_} numeric "
                    f"columns, the data has {numeric.size}")
            n_bins = self._bins_of(values)
            for j, col in enumerate(numeric):
                self.categories_[col] = self._bin_labels(j, n_bins[j])
        present = None if sample_weight is None else sample_weight > 0
        if find_values and present is None and self.nominal_.all():
            small = self._int_categories(frame)
            if made is not None and small is not None:
                made["small"] = small
        todo = [c for c in np.flatnonzero(self.nominal_) if self.categories_[c] is None]
        if not find_values:
            todo = []
        columns = {c: frame.iloc[:, c] for c in todo}
        strings = _string_values(columns, present,
                                 None if made is None else made.setdefault("strings", []))
        strings.update(_object_values(
            {c: s for c, s in columns.items() if c not in strings}, present,
            None if made is None else made.setdefault("objects", [])))
        for col in todo:
            self.categories_[col] = strings[col] if col in strings else _nominal_values(
                frame.iloc[:, col], present)
        self._lookup_ = {}
        if self.missing == "value":
            self._add_missing_codes(frame, present)
        return self

    def _numeric_summary(self, values):
        """Median (``numeric_center_``) of every numeric column on the rows the cut points
        are fitted on (0 where a column has no value): the values counted as Gaussian
        children are centred on it, which keeps their sums of squares accurate; and, with
        ``numeric_grid``, the quantiles of those rows (``numeric_grid_``), the grid of binned
        children."""
        center = np.zeros(values.shape[1])
        kernels.column_medians(np.asarray(values, dtype=np.float64), center)
        self.numeric_center_ = center
        if not self.numeric_grid:
            self.numeric_grid_ = None
            return
        # quantiles 0, 1/32, ..., 1 of every column: the fixed grid of binned children
        # (density="kde", seminaive.tables.binned), taken like the cut points
        values = np.asarray(values, dtype=np.float64)
        grid = np.full((values.shape[1], GRID_BINS + 1), np.nan)
        for j in range(values.shape[1]):
            col = values[:, j][~np.isnan(values[:, j])]
            if col.size:
                grid[j] = np.quantile(col, np.linspace(0.0, 1.0, GRID_BINS + 1))
        self.numeric_grid_ = grid

    def cut_points(self):
        """Cut points of every numeric column (list of arrays, in the order of
        ``numeric_columns_``), or None when the discretiser does not expose them
        (``cut_points_``, or the inner edges of ``bin_edges_`` as KBinsDiscretizer's)."""
        disc = getattr(self, "discretizer_", None)
        if getattr(disc, "cut_points_", None) is not None:
            return [np.asarray(c, dtype=np.float64) for c in disc.cut_points_]
        if getattr(disc, "bin_edges_", None) is not None:
            return [np.asarray(e, dtype=np.float64)[1:-1] for e in disc.bin_edges_]
        return None

    def numeric_values(self, X, owner):
        """The numeric columns' values minus ``numeric_center_``, float64 of shape
        (n_rows, number of numeric columns); NaN where missing."""
        check_is_fitted(self, "categories_")
        frame = as_frame(X)
        self._check_columns(frame, owner)
        numeric = self.numeric_columns_
        if not numeric.size:
            return np.empty((frame.shape[0], 0))
        return np.ascontiguousarray(self._numeric_matrix(frame, numeric) - self.numeric_center_)

    def _numeric_matrix(self, frame, numeric):
        try:
            values = frame.iloc[:, numeric].to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError) as err:
            raise self._not_a_number(frame, numeric, err) from None
        inf = np.isinf(values)
        if inf.any():
            col = frame.columns[numeric[np.flatnonzero(inf.any(axis=0))[0]]]
            raise InputError(f"Input X contains infinity (column {col!r}, {int(inf.sum())} "
                             "value(s)): replace it by a finite number, or by NaN to make it "
                             "a missing value")
        return values

    def _not_a_number(self, frame, numeric, err):
        """The InputError of a numeric column holding a value that is not a number: the
        column, the row (index label) and the value, with advice that applies now (at fit:
        declare the column nominal; at predict: the model's columns are fixed)."""
        where = ""
        for col in numeric:
            series = frame.iloc[:, col]
            bad = pd.to_numeric(series, errors="coerce").isna().to_numpy() & \
                series.notna().to_numpy()
            if bad.any():
                row = int(np.flatnonzero(bad)[0])
                name = frame.columns[col]
                where = (f"column {name!r}, row {frame.index[row]!r}: {series.iloc[row]!r} is "
                         f"not a number ({int(bad.sum())} such value(s) in the column)")
                break
        where = where or f"numeric columns could not be read as numbers ({err})"
        if getattr(self, "discretizer_", None) is not None:  # fitted: predicting or updating
            return InputError(
                f"{where}. The model was fitted with this column numeric: give a number, or "
                "leave the value empty to make it missing; to treat the column as nominal, "
                "fit the model again with it in categorical_features")
        return InputError(f"{where}: declare the column nominal in categorical_features "
                          "(e.g. categorical_features=[its name]), or fix the value")

    def _bins_of(self, values):
        disc = self.discretizer_
        if hasattr(disc, "n_bins_"):
            return np.asarray(disc.n_bins_, dtype=np.int64).reshape(-1)
        codes = self._discretize(values)
        return np.maximum(codes.max(axis=0) + 1, 1)

    def _bin_labels(self, j, n_bins):
        cuts = getattr(self.discretizer_, "cut_points_", None)
        if cuts is None:
            return [f"bin{b}" for b in range(int(n_bins))]
        edges = [-np.inf, *np.asarray(cuts[j]).tolist(), np.inf]
        return [f"({edges[b]:.6g}, {edges[b + 1]:.6g}]" for b in range(len(edges) - 1)]

    def _discretize(self, values):
        """Bin codes of numeric values; NaN -> -1 whatever the discretiser does with NaN."""
        nan = np.isnan(values)
        if isinstance(self.discretizer_, (MDLDiscretizer, EqualFrequencyDiscretizer)):
            codes = np.asarray(self.discretizer_.transform(values), dtype=np.int64)
        else:
            codes = np.asarray(self.discretizer_.transform(_fill_nan(values))).astype(np.int64)
            if codes.shape != values.shape:
                raise ValueError("the discretizer must return one ordinal code per value "
                                 "(e.g. KBinsDiscretizer(encode='ordinal'))")
        codes[nan] = -1
        return codes

    def _add_missing_codes(self, frame, present=None):
        """With missing="value", give a missing value a code of its own where it occurs
        (in a row of positive weight)."""
        for col in range(frame.shape[1]):
            isna = frame.iloc[:, col].isna().to_numpy()
            if present is not None:
                isna = isna & present
            if self.missing_code_[col] < 0 and isna.any():
                self.categories_[col] = [*self.categories_[col], MISSING_LABEL]
                self.missing_code_[col] = len(self.categories_[col]) - 1

    def partial_fit(self, X, y=None, sample_weight=None):
        """First call fits; later calls append nominal values not seen before.

        Numeric cut points stay those of the first call.  New values of a nominal column are
        appended after the known ones (codes of known values never change), in sorted order,
        or in the declared order of a pandas Categorical column (whose declared categories
        are all added, as in :meth:`fit`).  Returns ``self``.
        """
        return self.update(X, y, sample_weight, type(self).__name__)

    def update(self, X, y, sample_weight, owner):
        """:meth:`partial_fit` with ``owner`` (the estimator's name) in error messages.

        Value sets of every column are computed before any is changed: a failure leaves
        the encoder as it was.
        """
        frame = as_frame(X)
        w = check_sample_weight(sample_weight, frame.shape[0])
        if not hasattr(self, "n_features_in_"):
            self._fit(frame, y, w)
            return self
        self._check_columns(frame, owner)
        present = None if w is None else w > 0
        grown = {}  # computed for every column first: a failure leaves the encoder unchanged
        for col in np.flatnonzero(self.nominal_):
            known = self._category_index(col)
            candidates = _nominal_values(frame.iloc[:, col], present)
            new = [v for v in candidates if v not in known]
            if new:
                # appended after every known value (and after the missing value's code)
                grown[col] = [*self.categories_[col], *new]
        for col, cats in grown.items():
            self.categories_[col] = cats
            self._lookup_.pop(col, None)
            for key in [k for k in self._lookup_ if isinstance(k, tuple) and k[1] == col]:
                self._lookup_.pop(key)  # the column's Arrow value sets
        if self.missing == "value":
            self._add_missing_codes(frame, present)
        return self

    def cut_points_supplied(self):
        """Whether the cut points of the numeric columns were given by the user (a fitted
        discretiser), rather than fitted on the first data the encoder saw."""
        return _is_fitted(self.discretizer)

    def snapshot(self):
        """The value lists, to undo (:meth:`restore`) an update whose chunk could not be
        counted."""
        return [list(c) for c in self.categories_], self.missing_code_.copy()

    def restore(self, snapshot):
        """Return to the value lists of a :meth:`snapshot`."""
        self.categories_ = [list(c) for c in snapshot[0]]
        self.missing_code_ = snapshot[1].copy()
        self._lookup_ = {}

    def fit_scanned(self, sample, y, sample_weight, nominal, categories, has_missing,
                    max_sample_rows):
        """Fit from a scan of data too large to hold: cut points from a row sample, value
        sets from the whole data.

        Parameters
        ----------
        sample : DataFrame
            Sampled rows (all columns) on which the cut points of numeric columns are
            computed (every row of the sample is used).
        y : ndarray
            Class labels of the sampled rows.
        sample_weight : ndarray or None
            Weights of the sampled rows.
        nominal : ndarray of bool
            Which columns the scan treated as nominal; must agree with
            :meth:`nominal_mask` of the sample.
        categories : callable
            ``categories(col)`` gives the values of nominal column ``col`` over the whole
            data, in the order :meth:`fit` would list them.
        has_missing : ndarray of bool
            Which columns have a missing value anywhere in the data (used with
            ``missing="value"``).
        max_sample_rows : int or None
            The size of the scan's sample; becomes this encoder's ``max_sample_rows``.

        Returns
        -------
        self
        """
        missing = self.missing
        self.set_params(max_sample_rows=max_sample_rows, missing="ignore")
        try:
            # the values of the nominal columns are those of the whole data (below)
            self._fit(sample, y, sample_weight, find_values=False)
        finally:
            self.set_params(missing=missing)
        if not np.array_equal(self.nominal_, nominal):
            changed = [sample.columns[c] for c in np.flatnonzero(self.nominal_ != nominal)]
            raise InputError(
                f"columns {changed[:10]} change type between chunks (nominal in some, numeric "
                "in others): declare the nominal columns with categorical_features, or fix "
                "the column types (csv_options={'dtype': ...} for CSV files)")
        self.missing_code_[:] = -1
        for col in range(nominal.size):
            if nominal[col]:
                self.categories_[col] = categories(col)
            if self.missing == "value" and has_missing[col]:
                self.categories_[col] = [*self.categories_[col], MISSING_LABEL]
                self.missing_code_[col] = len(self.categories_[col]) - 1
        self._lookup_ = {}
        return self

    # ------------------------------------------------------------------------------ encoding
    @property
    def n_values_(self):
        check_is_fitted(self, "categories_")
        return np.array([max(len(c), 1) for c in self.categories_], dtype=np.int64)

    def _category_index(self, col):
        lookup = self._lookup_.get(col)
        if lookup is None:
            cats = self.categories_[col]
            if self.missing_code_[col] >= 0:
                cats = [c for i, c in enumerate(cats) if i != self.missing_code_[col]]
            lookup = pd.Index(cats)
            self._lookup_[col] = lookup
        return lookup

    def dictionary_codes(self, col, values):
        """The codes :meth:`encode` gives the rows of nominal column ``col`` held as an Arrow
        dictionary column of ``values`` (none of them null): entry ``k`` the code of
        ``values[k]`` (-1: a value the fit did not see), the last entry that of a null
        (-1, or the missing code under ``missing="value"``), as ``_code_frame`` codes
        such a column (``_dictionary_table``, then the missing code of a null row).

        Parameters
        ----------
        col : int
        values : list
            The dictionary's values.

        Returns
        -------
        ndarray of int32, shape (len(values) + 1,)
        """
        check_is_fitted(self, "categories_")
        table = _dictionary_table(values, self._category_index(col), self._positions(col))
        if self.missing == "value" and self.missing_code_[col] >= 0:
            table[-1] = self.missing_code_[col]
        return table

    def _positions(self, col):
        """The known values of column ``col`` as a dict of value -> code (kept with the
        lookups)."""
        key = ("positions", col)
        if key not in self._lookup_:
            self._lookup_[key] = {v: i for i, v in enumerate(
                self._category_index(col).tolist())}
        return self._lookup_[key]

    def _arrow_values(self, col, arrow_type):
        """The known values of nominal column ``col`` as a pyarrow array of ``arrow_type``
        (a string type) in code order, for :func:`pyarrow.compute.index_in`; None unless
        they are all strings.  Kept with the lookups."""
        key = ("arrow", col, str(arrow_type))
        if key not in self._lookup_:
            known = list(self._category_index(col))
            values = None
            if all(isinstance(v, str) for v in known):
                try:
                    values = pa.array(known, type=arrow_type)
                except (pa.ArrowException, UnicodeEncodeError):  # lone surrogates
                    values = None
            self._lookup_[key] = values
        return self._lookup_[key]

    def _check_columns(self, frame, owner):
        """Column names (scikit-learn's rules and messages), then the number of columns."""
        check_feature_names(getattr(self, "feature_names_in_", None), frame, owner)
        if frame.shape[1] != self.n_features_in_:
            raise InputError(
                f"X has {frame.shape[1]} features, but {owner} is expecting "
                f"{self.n_features_in_} features as input.")

    def _int_categories(self, frame):
        """Sorted values of every column of a frame of integer (or integral float) codes
        sharing one dtype, in one numba pass over the matrix."""
        dtype = _shared_dtype(frame)
        if dtype is None:
            return
        matrix = frame.to_numpy()
        lows = np.empty(matrix.shape[1], dtype=np.int64)
        highs = np.empty(matrix.shape[1], dtype=np.int64)
        if dtype.kind == "f":
            if not kernels.float_column_ranges(matrix, lows, highs):
                return None  # values that are not integers: sorted one column at a time
        elif matrix.shape[0]:
            codes = self._small_int_categories(matrix, lows, highs)
            if codes is not None:
                return codes
        # the spans in unsigned arithmetic (highs - lows wraps for values near the int64
        # limits), summed in floats
        spans = highs.astype(np.uint64) - lows.astype(np.uint64)
        if float(spans.astype(np.float64).sum()) + spans.size > 1 << 26:
            return None
        spans = spans.astype(np.int64) + 1
        starts = np.concatenate([[0], np.cumsum(spans)]).astype(np.int64)
        seen = np.zeros(int(starts[-1]), dtype=np.bool_)
        if dtype.kind == "f":
            kernels.float_column_presence(matrix, lows, starts, seen)
        else:
            kernels.int_column_presence(matrix, lows, starts, seen)
        for j in range(matrix.shape[1]):
            values = np.flatnonzero(seen[starts[j]:starts[j + 1]]) + lows[j]
            self.categories_[j] = (values.astype(np.float64) if dtype.kind == "f"
                                   else values).tolist()
        return None

    def _small_int_categories(self, matrix, lows, highs):
        """The values of every column of an integer matrix, and their storage codes
        (uint8, Fortran order), in the pass that finds them
        (:func:`~seminaive.kernels.int_scan_codes`) when every column spans fewer than 64
        values.  The pass codes the values in a window of 64 around each column's first
        value (``[0, 64)`` when it lies there); a column whose values fall outside its
        window but span fewer than 64 is coded by a second pass from its minimum.  None
        when some column spans more (then ``lows`` and ``highs`` hold every column's
        range)."""
        a = matrix.shape[1]
        masks = np.empty(a, dtype=np.uint64)
        codes = np.empty(matrix.shape, dtype=np.uint8, order="F")
        base = np.zeros(a, dtype=np.int64)
        if matrix.dtype != np.uint64:  # (a uint64 beyond the int64 range would wrap)
            first = matrix[0].astype(np.int64)
            away = ((first < 0) | (first >= SMALL_VALUES)) & (first > np.iinfo(np.int64).min
                                                                 + SMALL_VALUES)
            base[away] = first[away] - SMALL_VALUES // 2
        kernels.int_scan_codes(matrix, base, lows, highs, masks, codes)
        # the spans in unsigned arithmetic: exact for any int64 minimum and maximum
        spans = highs.astype(np.uint64) - lows.astype(np.uint64)
        if matrix.dtype == np.uint64 and (lows.min() < 0 or highs.max() >= SMALL_VALUES):
            return None
        if np.any(spans >= SMALL_VALUES):
            return None
        if np.any((lows < base) | (highs - base >= SMALL_VALUES)):
            base = lows.copy()  # every column spans fewer than 64 values: from its minimum
            kernels.int_scan_codes(matrix, base, lows, highs, masks, codes)
        bits = np.unpackbits(masks.view(np.uint8).reshape(a, 8), axis=1, bitorder="little")
        tables = np.zeros((a, SMALL_VALUES + 1), dtype=np.uint8)
        identity = True
        for j in range(a):
            offsets = np.flatnonzero(bits[j])
            self.categories_[j] = (offsets + base[j]).tolist()
            tables[j, offsets + 1] = np.arange(1, offsets.size + 1)
            identity = identity and offsets.size == offsets[-1] + 1
        if not identity:  # some column's values are not base .. base + k - 1: by position
            kernels.recode_small(codes, tables)
        return codes

    def _int_matrix(self, frame):
        """The data as one matrix when every column is a nominal attribute coded by integral
        numbers (integers, or floats holding integers and NaN) of one dtype, else None."""
        if not self.nominal_.all() or frame.shape[1] == 0:
            return None
        if _shared_dtype(frame) is None:
            return None
        for col in range(frame.shape[1]):
            if self._category_index(col).dtype.kind not in "iuf":
                return None
        return frame.to_numpy()

    def _encode_int_matrix(self, matrix, codes):
        """Code a matrix of integral codes with one lookup table per column (numba, all
        columns).

        The tables span each column's known values only: a value outside that range was
        never seen in training and codes as -1 (missing) in the kernel, as do NaN and a
        float that is not an integer, so the matrix is read once.  False (nothing coded)
        when the known values are not all integers or too spread out for tables."""
        cats = []
        for c in range(matrix.shape[1]):
            known = np.asarray(self._category_index(c))
            if known.dtype.kind == "f":
                if not np.all(np.abs(known) < 2.0 ** 52) or np.any(known != np.floor(known)):
                    return False
            cats.append(known.astype(np.int64))
        lows = np.array([c.min() if c.size else 0 for c in cats], dtype=np.int64)
        highs = np.array([c.max() if c.size else 0 for c in cats], dtype=np.int64)
        spans = highs.astype(np.uint64) - lows.astype(np.uint64)  # (no int64 wrap-around)
        if float(spans.astype(np.float64).sum()) + spans.size > 1 << 26:
            return False  # values too spread out for lookup tables
        spans = spans.astype(np.int64) + 1
        starts = np.concatenate([[0], np.cumsum(spans)]).astype(np.int64)
        lookup = np.full(int(starts[-1]), -1, dtype=np.int32)
        for j, c in enumerate(cats):
            lookup[starts[j] + c - lows[j]] = np.arange(c.size, dtype=np.int32)
        if matrix.dtype.kind == "f":
            kernels.encode_float_columns(matrix, lows, starts, lookup, codes)
        else:
            kernels.encode_int_columns(matrix, lows, starts, lookup, codes)
        return True

    def _bin_numeric(self, frame, numeric, codes):
        """Bin the numeric columns into ``codes`` by the built-in discretisers' cut points,
        all columns in one numba pass over the data in its own dtype (NaN -> -1)."""
        matrix = _kernel_matrix(frame, numeric)
        if matrix is None:
            matrix = self._numeric_matrix(frame, numeric)
        cuts = [np.asarray(c, dtype=np.float64) for c in self.discretizer_.cut_points_]
        if len(cuts) != numeric.size:
            raise InputError(f"the discretizer has cut points for {len(cuts)} numeric "
                             f"columns, the data has {numeric.size}")
        starts = np.zeros(len(cuts) + 1, dtype=np.int64)
        starts[1:] = np.cumsum([c.size for c in cuts])
        flat = np.concatenate(cuts) if cuts else np.zeros(0)
        if kernels.bin_columns(matrix, flat, starts, numeric.astype(np.int64), codes):
            self._numeric_matrix(frame, numeric)  # refuses the infinite values

    def transform(self, X):
        """Codes of shape (n_rows, n_attributes), int32; -1 marks missing / unseen."""
        return self.encode(X, type(self).__name__)

    def encode(self, X, owner):
        """:meth:`transform` with ``owner`` (the estimator's name) in error messages."""
        check_is_fitted(self, "categories_")
        frame = as_frame(X)
        self._check_columns(frame, owner)
        # column-major: every column is written contiguously, and the tables count by column
        codes = np.empty(frame.shape, dtype=np.int32, order="F")
        self._code_frame(frame, codes)
        return codes

    def _code_frame(self, frame, codes, done=()):
        """Code ``frame`` into ``codes`` (int32, -1 missing), but for the nominal columns in
        ``done`` (already coded)."""
        numeric = self.numeric_columns_
        if numeric.size and isinstance(self.discretizer_,
                                       (MDLDiscretizer, EqualFrequencyDiscretizer)):
            self._bin_numeric(frame, numeric, codes)
        elif numeric.size:
            bins = self._discretize(self._numeric_matrix(frame, numeric))
            if not isinstance(self.discretizer_, (MDLDiscretizer, EqualFrequencyDiscretizer)):
                # a custom discretiser's codes index the tables: they must be in range
                n_bins = np.array([len(self.categories_[c]) - (self.missing_code_[c] >= 0)
                                   for c in numeric])
                if np.any(bins < -1) or np.any(bins >= n_bins):
                    raise ValueError(f"the discretizer {type(self.discretizer_).__name__} "
                                     "returned bin codes outside 0 .. n_bins - 1 of its fit")
            codes[:, numeric] = bins
        fast = self._int_matrix(frame) if not done else None
        if fast is not None and not self._encode_int_matrix(fast, codes):
            fast = None
        nominal = np.array([c for c in np.flatnonzero(self.nominal_) if c not in done],
                           dtype=np.int64) if fast is None else ()
        # frame.items() makes the column Series faster than frame.iloc[:, col] one by one
        columns = [s for c, (_, s) in enumerate(frame.items())
                   if self.nominal_[c] and c not in done] if len(nominal) else []
        hashed = self._hash_string_codes(nominal, columns, codes)
        hashed |= self._object_column_codes(nominal, columns, codes, hashed)
        for col, series in zip(nominal, columns, strict=True):
            if col in hashed:
                continue
            lookup = self._category_index(col)
            if isinstance(series.dtype, pd.CategoricalDtype):
                if series.cat.categories.equals(lookup):
                    codes[:, col] = series.cat.codes.to_numpy()
                else:
                    codes[:, col] = lookup.get_indexer(series)
                continue
            if _is_arrow_dictionary(series.dtype):
                _dictionary_codes(series, lookup, codes[:, col], self._positions(col))
                continue
            arr = _arrow_strings(series, combine=False)
            if arr is not None and (value_set := self._arrow_values(col, arr.type)) is not None:
                _index_in_codes(arr, value_set, codes[:, col])
                continue
            if arr is not None:
                # known values that are not all strings: each chunk dictionary-encoded as it
                # is held, then coded by a lookup of each dictionary
                _dictionary_codes(pc.dictionary_encode(arr), lookup, codes[:, col])
                continue
            values = series.to_numpy()
            if values.dtype.kind in "iuf" and lookup.dtype.kind in "iuf":
                codes[:, col] = _numeric_codes(values, lookup)
            elif values.dtype == object:
                codes[:, col] = _object_codes(values, lookup)
            else:
                codes[:, col] = lookup.get_indexer(series)
        if self.missing == "value":
            for col in np.flatnonzero(self.missing_code_ >= 0):
                series = frame.iloc[:, col]
                codes[series.isna().to_numpy(), col] = self.missing_code_[col]
        # a value seen in training that the lookup calls unseen is impossible; a value never
        # seen is -1 (missing)
        return codes

    def _object_column_codes(self, nominal, columns, codes, done):
        """Code the object columns among ``columns`` (nominal columns ``nominal``; those in
        ``done`` already coded) into ``codes``: the rows grouped by the object they hold
        (all columns on the threads), the distinct objects looked up once, then mapped
        through that small table (:func:`._strings.factorize_objects`): the codes of
        :func:`_object_codes`.  Returns the columns coded (not those whose values cannot
        be hashed)."""
        arrays, outs, where = [], [], []
        for col, series in zip(nominal, columns, strict=True):
            if col in done or series.dtype != object:
                continue
            arrays.append(series.to_numpy())
            outs.append(codes[:, col])
            where.append(col)
        if not arrays:
            return set()
        items = _strings.factorize_objects(arrays, outs)
        kept = [(col, out, item) for col, out, item in zip(where, outs, items, strict=True)
                if item is not None]
        known = [self._category_index(col).get_indexer(item[1]) for col, _, item in kept]
        _strings.remap_chunks([out for _, out, _ in kept],
                              _strings.object_tables([item for _, _, item in kept], known))
        return {col for col, _, _ in kept}

    def _hash_string_codes(self, nominal, columns, codes):
        """Code the Arrow string columns among ``columns`` (nominal columns ``nominal``) into
        ``codes``: every chunk's distinct values found by one hash pass over its buffers
        (all chunks of all columns on the threads), looked up once, then the chunk's codes
        mapped through that small table.  Returns the columns coded (a chunk with too many
        distinct values leaves its column to the other routes)."""
        pieces, outs, where = [], [], []
        for col, series in zip(nominal, columns, strict=True):
            arr = _arrow_strings(series, combine=False)
            if arr is None:
                continue
            start = 0
            for chunk in _strings.chunks_of(arr):
                pieces.append(chunk)
                outs.append(codes[start:start + len(chunk), col])
                where.append(col)
                start += len(chunk)
        if not pieces:
            return set()
        values = _strings.hash_chunks(pieces, outs)
        failed = {col for col, v in zip(where, values, strict=True) if v is None}
        tables, kept = [], []
        positions = {}
        for col, out, dictionary in zip(where, outs, values, strict=True):
            if col in failed:
                continue
            if col not in positions:
                positions[col] = self._positions(col)
            position = positions[col]
            tables.append(np.array([*(position.get(v, -1) for v in dictionary.to_pylist()),
                                    -1], dtype=np.int32))
            kept.append(out)
        _strings.remap_chunks(kept, tables)
        return set(where) - failed

    def get_feature_names_out(self, input_features=None):
        """One output column per input column, named as the input (``x0, x1, ...`` for
        input without column names)."""
        check_is_fitted(self, "categories_")
        if input_features is not None:
            input_features = np.asarray(input_features, dtype=object)
            if input_features.shape != (self.n_features_in_,):
                raise InputError(f"input_features should have length equal to number of "
                                 f"features ({self.n_features_in_}), got "
                                 f"{len(input_features)}")
            if hasattr(self, "feature_names_in_") and not np.array_equal(
                    input_features, self.feature_names_in_):
                raise InputError("input_features is not equal to feature_names_in_")
            return input_features
        if hasattr(self, "feature_names_in_"):
            return self.feature_names_in_.copy()
        return np.asarray([f"x{i}" for i in range(self.n_features_in_)], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.transformer_tags.preserves_dtype = []  # output: int32 attribute codes
        tags.target_tags.required = self.discretizer == "mdl"
        return tags

    def state(self):
        """JSON-compatible description of the fitted encoder (for save/load)."""
        check_is_fitted(self, "categories_")
        if numeric_disc := (self.numeric_columns_.size > 0):
            if not isinstance(self.discretizer_, (MDLDiscretizer, EqualFrequencyDiscretizer)):
                raise TypeError(
                    "This model uses a custom scikit-learn discretizer, which cannot be stored "
                    "in the code-free model format: use pickle / joblib for it, or use "
                    "discretizer='mdl' or 'equal_frequency'.")
        return {
            "params": {k: v for k, v in self.get_params(deep=False).items()
                       if k != "discretizer"}
            | {"discretizer": self.discretizer if isinstance(self.discretizer, str) else None},
            "n_features_in": int(self.n_features_in_),
            "column_names": [_json_value(c) for c in self.column_names_],
            "has_feature_names": hasattr(self, "feature_names_in_"),
            "nominal": self.nominal_.tolist(),
            "categories": [[_json_value(v) for v in cats] for cats in self.categories_],
            "missing_code": self.missing_code_.tolist(),
            "cut_points": ([np.asarray(c, dtype=float).tolist()
                            for c in self.discretizer_.cut_points_] if numeric_disc else None),
            "numeric_center": (self.numeric_center_.tolist() if numeric_disc else None),
        }

    @classmethod
    def from_state(cls, state):
        params = dict(state["params"])
        if params.get("discretizer") is None:
            params["discretizer"] = "mdl"
        enc = cls(**params)
        enc.n_features_in_ = int(state["n_features_in"])
        enc.column_names_ = list(state["column_names"])
        if state["has_feature_names"]:
            enc.feature_names_in_ = np.asarray(enc.column_names_, dtype=object)
        enc.nominal_ = np.asarray(state["nominal"], dtype=bool)
        enc.categories_ = [list(c) for c in state["categories"]]
        enc.missing_code_ = np.asarray(state["missing_code"], dtype=np.int64)
        enc.numeric_columns_ = np.flatnonzero(~enc.nominal_)
        enc._lookup_ = {}
        if enc.numeric_columns_.size:
            disc = enc._make_discretizer()
            disc.cut_points_ = [np.asarray(c, dtype=np.float64) for c in state["cut_points"]]
            disc.n_bins_ = np.array([len(c) + 1 for c in disc.cut_points_], dtype=np.int64)
            disc.n_features_in_ = len(disc.cut_points_)
            enc.discretizer_ = disc
            n_num = enc.numeric_columns_.size
            center = state.get("numeric_center") or [0.0] * n_num
            enc.numeric_center_ = np.asarray(center, dtype=np.float64).reshape(n_num)
        return enc


def _json_value(v):
    """A category value as a JSON scalar; refuse what JSON cannot carry faithfully."""
    if isinstance(v, (np.generic,)):
        v = v.item()
    if v is None or isinstance(v, (str, bool, int, float)):
        return v
    raise TypeError(f"category value {v!r} of type {type(v).__name__} cannot be stored in the "
                    "model file: convert the column to strings or numbers, or use pickle")
