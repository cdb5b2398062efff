"""Validation of what users pass: class labels, row weights; and the coding of labels.

Every check raises :class:`seminaive.exceptions.InputError` with what was wrong and what to
do.  Estimators, streamed fits and Dask fits all validate through these functions, so a bad
target or weight column gets the same message whichever way the data arrives.
"""


import numpy as np
import pandas as pd
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import type_of_target

from ..exceptions import InputError, warn_user

#: the largest total weight the counts hold exactly.  Counts are float64 cells, each a sum
#: of row weights, and every total (a class count, the table's ``n_rows``) is the sum of the
#: weights of all the rows counted: float64 holds every integer up to ``2**53`` exactly, so
#: integer weights stay exact counts as long as their sum over all rows does not exceed it.
#: The encoder repeats rows of integer weight in int64, which a larger total would wrap.
MAX_TOTAL_WEIGHT = 2.0 ** 53


def check_target(y, n_rows, owner="This estimator"):
    """The class labels as a 1-D array, or an :class:`InputError` saying what is wrong.

    Parameters
    ----------
    y : array-like of shape (n_rows,)
        Class labels: discrete, without missing values.
    n_rows : int
        Rows of X (y must have as many entries).
    owner : str, default="This estimator"
        Named in error messages.

    Returns
    -------
    ndarray of shape (n_rows,)
    """
    if y is None:
        raise InputError(f"{owner} requires y to be passed, but the target y is None: pass "
                         "the class labels, fit(X, y)")
    if isinstance(y, pd.Categorical):
        return _check_categorical_target(y, n_rows)
    if hasattr(y, "toarray") or hasattr(y, "tocsr"):
        raise InputError("y is a sparse matrix: pass the class labels as a 1-D array")
    if isinstance(y, (pd.DataFrame,)):
        if y.shape[1] != 1:
            raise InputError(f"y must be one column, got a DataFrame of shape {y.shape}: "
                             "multi-output classification is not supported")
        y = y.iloc[:, 0]
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        warn_user("A column-vector y was passed when a 1d array was expected. Please "
                      "change the shape of y to (n_samples, ), for example using ravel().",
                      DataConversionWarning)
        arr = arr.ravel()
    if arr.ndim != 1:
        raise InputError(f"y should be a 1d array, got an array of shape {arr.shape} instead: "
                         "pass one class label per row (multi-output classification is not "
                         "supported)")
    if arr.shape[0] != n_rows:
        raise InputError(f"X has {n_rows} rows but y has {arr.shape[0]} entries "
                         "(inconsistent numbers of samples)")
    if arr.dtype.kind == "c":
        raise InputError("y contains complex numbers: class labels must be discrete values")
    # the type of the labels is decided on their distinct values (hashed once), not on every
    # row: sorting a chunk of string labels row by row is what made this check slow
    try:
        distinct = pd.unique(arr) if arr.dtype.kind in "OUSfiub" else arr
    except TypeError:  # unhashable labels: type_of_target reports them below
        distinct = arr
    missing = pd.isna(pd.Series(distinct, dtype=object if distinct.dtype.kind == "O" else None))
    if missing.any():
        _refuse_missing_labels(pd.isna(pd.Series(arr, dtype=object if arr.dtype.kind == "O"
                                                 else None)).to_numpy())
    if arr.dtype.kind == "f" and not np.all(np.isfinite(distinct)):
        raise InputError("y contains infinity: class labels must be finite")
    try:
        kind = type_of_target(distinct, input_name="y")
    except (TypeError, ValueError) as err:
        raise InputError(f"y cannot be used as class labels: {err}; labels must be all "
                         "strings or all numbers") from err
    if kind == "continuous":
        raise InputError(
            "Unknown label type: continuous. y holds non-integer numbers, i.e. a regression "
            "target; a classifier needs discrete classes: bin y or convert its values to "
            "class labels (ints or strings)")
    if kind not in ("binary", "multiclass"):
        raise InputError(f"Unknown label type: {kind}. y must hold one discrete class label "
                         "per row, all strings or all numbers")
    return arr


def _refuse_missing_labels(missing):
    rows = np.flatnonzero(missing)[:5].tolist()
    raise InputError(f"y contains {int(missing.sum())} missing value(s) (NaN/None), "
                     f"e.g. at rows {rows}: drop those rows or give them a class; a "
                     "missing class cannot be learnt from")


def _check_categorical_target(y, n_rows):
    """A Categorical of labels (the route of Arrow dictionary columns): checked on its
    categories that occur, never on the labels row by row; returned as it is."""
    if y.shape[0] != n_rows:
        raise InputError(f"X has {n_rows} rows but y has {y.shape[0]} entries "
                         "(inconsistent numbers of samples)")
    codes = np.asarray(y.codes)
    if codes.size and codes.min() < 0:
        _refuse_missing_labels(codes < 0)
    distinct = distinct_labels(y)
    check_target(distinct, distinct.shape[0])
    return y


def distinct_labels(y):
    """The sorted distinct labels of ``y`` (an array, or a Categorical whose categories that
    occur are its labels).

    Parameters
    ----------
    y : ndarray or pandas.Categorical of shape (n_rows,)
        Validated class labels (:func:`check_target`).

    Returns
    -------
    ndarray

    Examples
    --------
    >>> import pandas as pd
    >>> distinct_labels(pd.Categorical(["b", "a", "b"], categories=["b", "a", "c"])).tolist()
    ['a', 'b']
    """
    if isinstance(y, pd.Categorical):
        codes = np.asarray(y.codes)
        seen = np.bincount(codes[codes >= 0], minlength=len(y.categories)) > 0
        return np.unique(np.asarray(y.categories)[seen])
    y = np.asarray(y)
    if y.dtype == object and y.ndim == 1:  # hashed once, then only the few labels sorted
        try:
            return np.unique(pd.unique(y))
        except TypeError:  # unhashable labels: np.unique says what is wrong
            pass
    return np.unique(y)


def check_sample_weight(sample_weight, n_rows):
    """Weights as a float array of shape (n_rows,), or None; refuse unusable weights.

    Parameters
    ----------
    sample_weight : array-like of shape (n_rows,), scalar or None
        Non-negative row weights, at least one positive, summing to at most
        ``MAX_TOTAL_WEIGHT`` (``2**53``).
    n_rows : int

    Returns
    -------
    ndarray of shape (n_rows,) or None
    """
    if sample_weight is None:
        return None
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InputError(f"sample_weight could not be read as numbers: {err}") from err
    if w.ndim == 0:
        w = np.full(n_rows, float(w))
    if w.shape != (n_rows,):
        raise InputError(f"sample_weight has shape {w.shape}, expected ({n_rows},): one "
                         "weight per row of X")
    if not np.all(np.isfinite(w)):
        raise InputError("sample_weight contains NaN or infinity: give every row a finite "
                         "non-negative weight")
    if np.any(w < 0):
        raise InputError("sample_weight contains negative weights: weights must be >= 0 (use "
                         "model.table_.remove to unlearn rows)")
    if not np.any(w > 0):
        raise InputError("Sample weights must contain at least one non-zero number: every "
                         "row has weight zero, so there is nothing to learn from")
    if w.max() > MAX_TOTAL_WEIGHT:
        raise InputError(
            f"sample_weight contains a weight of {w.max():.3g}, more than 2**53 = "
            f"{MAX_TOTAL_WEIGHT:.4g}, the largest total the float64 counts hold exactly: "
            "scale the weights down (divide them by a common factor) so that their sum over "
            "all the rows stays below 2**53")
    check_weight_total(float(np.sum(w)))
    return w


def check_weight_total(total, counted=0.0):
    """Refuse a total weight the counts cannot hold exactly.

    Counts are float64 sums of row weights; float64 holds every integer up to
    ``MAX_TOTAL_WEIGHT`` (``2**53``, about 9.0e15) exactly, so the weights of all the rows a
    model counts (over every chunk of ``partial_fit`` or a streamed fit) must sum to at
    most that.

    Parameters
    ----------
    total : float
        The total weight of the rows about to be counted.
    counted : float, default=0.0
        The total weight already in the counts.

    Raises
    ------
    InputError
        If ``counted + total`` exceeds ``MAX_TOTAL_WEIGHT``.

    Examples
    --------
    >>> check_weight_total(2.0 ** 52, counted=2.0 ** 52)
    >>> try:
    ...     check_weight_total(2.0 ** 62)
    ... except InputError as err:
    ...     print(str(err)[:36])
    the row weights sum to 4.61e+18, mor
    """
    if not total <= MAX_TOTAL_WEIGHT - counted:  # exact at the limit; refuses NaN
        already = (f" (with the {counted:.3g} already counted)" if counted else "")
        raise InputError(
            f"the row weights sum to {counted + total:.3g}{already}, more than 2**53 = "
            f"{MAX_TOTAL_WEIGHT:.4g}, the largest total the float64 counts hold exactly: "
            "scale the weights down (divide them by a common factor) so that their sum over "
            "all the rows stays below 2**53")




def encode_labels(y, classes):
    """Indices of the labels ``y`` in the sorted array ``classes``.

    Parameters
    ----------
    y : array-like of shape (n_rows,)
        Class labels, each one of ``classes``.
    classes : ndarray of shape (n_classes,)
        Sorted distinct labels (an estimator's ``classes_``).

    Returns
    -------
    ndarray of int64, shape (n_rows,)

    Raises
    ------
    InputError
        If a label is not one of ``classes``.

    Examples
    --------
    >>> import numpy as np
    >>> encode_labels(np.array(["b", "a", "b"]), np.array(["a", "b"]))
    array([1, 0, 1])
    """
    if isinstance(y, pd.Categorical):  # each category that occurs looked up once
        return np.append(_category_indices(y, classes), -1)[np.asarray(y.codes)]
    if isinstance(y, np.ndarray) and y.dtype == object and y.ndim == 1 and y.size > 1024:
        try:  # each distinct label looked up once (comparing objects row by row is slow)
            codes, uniques = pd.factorize(y)
        except TypeError:
            codes = None
        if codes is not None and not (codes < 0).any():
            return encode_labels(np.asarray(uniques, dtype=object), classes)[codes]
    try:
        idx = np.searchsorted(classes, y)
        idx = np.clip(idx, 0, len(classes) - 1)
        bad = np.asarray(classes[idx] != y, dtype=bool)
    except TypeError:  # labels not comparable with classes (str vs int)
        idx = np.zeros(len(y), dtype=np.int64)
        bad = np.ones(len(y), dtype=bool)
    if bad.shape != (len(y),):
        bad = np.ones(len(y), dtype=bool)
    if np.any(bad):
        unknown = pd.unique(np.asarray(y)[bad])[:5].tolist()
        raise InputError(f"y contains classes {unknown} that are not in classes_="
                         f"{classes.tolist()[:20]}; declare every class in the "
                         "first partial_fit call (classes=...)")
    return idx.astype(np.int64)


def _category_indices(y, classes):
    """Indices in ``classes`` of the categories of ``y`` (-1 for a category that does not
    occur in ``y``; one that occurs must be a class)."""
    codes = np.asarray(y.codes)
    seen = np.bincount(codes[codes >= 0], minlength=len(y.categories)) > 0
    lookup = np.full(len(y.categories), -1, dtype=np.int64)
    if seen.any():
        lookup[seen] = encode_labels(np.asarray(y.categories)[seen], classes)
    return lookup
