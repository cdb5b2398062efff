"""Evaluation metrics as the source papers use them.

Probability metrics take ``proba`` of shape (n_rows, n_classes) whose columns follow
``classes`` (a model's ``classes_``) and the true labels ``y_true``.

* :func:`rmse` -- the papers' RMSE (Webb et al. 2012, section 4; Chen et al. 2014, section
  3.3): only the probability of the true class counts.
* :func:`rmse_all_classes` -- the Brier-style RMSE over every class (Weka's RMSE).
* :func:`log_loss`, :func:`auc` (Hand & Till 2001 M for more than two classes).
* :func:`kohavi_wolpert` -- Kohavi & Wolpert (1996) bias/variance decomposition of zero-one
  loss, as Webb et al. 2012, section 4 and Chen et al. 2014, section 4.1 use it.
* :func:`timed` / :class:`Timer` -- wall-clock seconds for training and classification time.
"""

import itertools
import time

import numpy as np
from scipy.stats import rankdata

from ._docs import fill_doc

__all__ = [
    "zero_one_loss",
    "rmse",
    "rmse_all_classes",
    "log_loss",
    "auc",
    "kohavi_wolpert",
    "Timer",
    "timed",
    "per_instance",
]


def _class_index(y_true, classes):
    """Column index of every label of ``y_true`` in ``classes`` (any order of classes)."""
    classes = np.asarray(classes)
    y_true = np.asarray(y_true)
    order = np.argsort(classes, kind="stable")
    sorted_classes = classes[order]
    pos = np.clip(np.searchsorted(sorted_classes, y_true), 0, len(classes) - 1)
    if len(classes) == 0 or np.any(sorted_classes[pos] != y_true):
        raise ValueError("y_true contains labels that are not in classes")
    return order[pos]


def _check_proba(y_true, proba, classes):
    proba = np.asarray(proba, dtype=np.float64)
    n = len(np.asarray(y_true))
    if proba.ndim != 2 or proba.shape != (n, len(np.asarray(classes))):
        raise ValueError(f"proba must have shape (n_rows, n_classes) = ({n}, "
                         f"{len(np.asarray(classes))}), got {proba.shape}")
    return proba


def _true_class_proba(y_true, proba, classes):
    proba = _check_proba(y_true, proba, classes)
    index = _class_index(y_true, classes)
    return proba[np.arange(len(index)), index]


def zero_one_loss(y_true, y_pred):
    """Fraction of misclassified rows.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels.
    y_pred : array-like of shape (n,)
        Predicted labels.

    Returns
    -------
    float

    Examples
    --------
    >>> zero_one_loss(["a", "b", "b", "a"], ["a", "b", "a", "a"])
    0.25
    """
    return float(np.mean(np.asarray(y_true) != np.asarray(y_pred)))


@fill_doc
def rmse(y_true, proba, classes):
    """Root mean squared error as Webb et al. 2012 and Chen et al. 2014 use it.

    ``sqrt(mean over test rows of (1 - P(true class | x))^2)``: only the probability given to
    the true class counts (Chen et al. 2014, section 3.3: "the squared error, which is the
    probability of incorrectly classifying the example").  Compare :func:`rmse_all_classes`,
    which also penalises the probability spread over the wrong classes; the two coincide for two
    classes.

    Parameters
    ----------
    {metric_parameters}

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> proba = np.array([[0.9, 0.1], [0.4, 0.6]])
    >>> round(rmse(["a", "a"], proba, ["a", "b"]), 6)  # sqrt((0.1^2 + 0.6^2) / 2)
    0.430116
    """
    p = _true_class_proba(y_true, proba, classes)
    return float(np.sqrt(np.mean((1.0 - p) ** 2)))


@fill_doc
def rmse_all_classes(y_true, proba, classes):
    """Brier-style RMSE over all classes (Weka's "Root mean squared error").

    ``sqrt(mean over test rows and classes of (1[y = c] - P(c | x))^2)``.  This is what
    Weka's ``Evaluation.rootMeanSquaredError`` reports (it divides each row's summed squared
    error by the number of classes) and what scikit-learn's Brier score measures:
    ``rmse_all_classes**2 * n_classes`` is the multiclass Brier score and, for two classes,
    ``rmse_all_classes**2`` equals ``sklearn.metrics.brier_score_loss``.

    The papers' RMSE (:func:`rmse`) uses only the true class; for two classes both are equal.

    Parameters
    ----------
    {metric_parameters}

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> proba = np.array([[0.8, 0.2, 0.0]])
    >>> round(rmse_all_classes(["a"], proba, ["a", "b", "c"]), 6)  # sqrt(0.08 / 3)
    0.163299
    """
    proba = _check_proba(y_true, proba, classes)
    index = _class_index(y_true, classes)
    indicator = np.zeros_like(proba)
    indicator[np.arange(len(index)), index] = 1.0
    return float(np.sqrt(np.mean((indicator - proba) ** 2)))


@fill_doc
def log_loss(y_true, proba, classes, eps=1e-15):
    """Mean of -log P(true class | x), probabilities clipped to [eps, 1].

    Equals ``sklearn.metrics.log_loss(y_true, proba, labels=classes)`` when every row of
    ``proba`` sums to one and no probability is below ``eps``.

    Parameters
    ----------
    {metric_parameters}
    eps : float, default=1e-15
        Lower clip of the probabilities.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> round(log_loss([0, 1], np.array([[0.5, 0.5], [0.2, 0.8]]), [0, 1]), 6)
    0.458145
    """
    p = _true_class_proba(y_true, proba, classes)
    return float(np.mean(-np.log(np.clip(p, eps, 1.0))))


def _binary_auc(positive, scores):
    """ROC AUC (Mann-Whitney U / (n_pos n_neg)); ties count one half (average ranks)."""
    n_pos = int(positive.sum())
    n_neg = len(positive) - n_pos
    ranks = rankdata(scores)
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


@fill_doc
def auc(y_true, proba, classes):
    """Area under the ROC curve.

    Two classes: ROC AUC of the positive class ``classes[1]`` scored by ``proba[:, 1]``.
    More classes: Hand & Till (2001) M, the mean over class pairs {i, j} of
    ``(A(i|j) + A(j|i)) / 2``, where ``A(i|j)`` is the AUC separating class i from class j
    by ``P(i | x)`` on the rows of classes i and j only (Hand & Till 2001, eqs. 3 and 7;
    scikit-learn's ``roc_auc_score(multi_class="ovo", average="macro")``).

    Classes absent from ``y_true`` are skipped: only pairs of classes that both occur in
    ``y_true`` are averaged.  Returns NaN when fewer than two classes occur.

    Parameters
    ----------
    {metric_parameters}

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> proba = np.array([[0.9, 0.1], [0.6, 0.4], [0.3, 0.7], [0.45, 0.55]])
    >>> auc([0, 0, 1, 1], proba, [0, 1])
    1.0
    """
    proba = _check_proba(y_true, proba, classes)
    index = _class_index(y_true, classes)
    present = np.unique(index)
    if len(present) < 2:
        return float("nan")
    if proba.shape[1] == 2:
        return _binary_auc(index == 1, proba[:, 1])
    pair_aucs = []
    for i, j in itertools.combinations(present, 2):
        rows = (index == i) | (index == j)
        a_i_given_j = _binary_auc(index[rows] == i, proba[rows, i])
        a_j_given_i = _binary_auc(index[rows] == j, proba[rows, j])
        pair_aucs.append((a_i_given_j + a_j_given_i) / 2.0)
    return float(np.mean(pair_aucs))


def kohavi_wolpert(y_true, predictions, n_classes):
    """Kohavi & Wolpert (1996) bias/variance decomposition of zero-one loss.

    The true target is taken as deterministic (no noise term), as Weka's ``BVDecompose`` and
    Webb et al. 2012 (section 4, 50 x 2-fold cross-validation) do.  For a test instance x with
    ``P(y | x)`` the fraction of trials predicting class y (Kohavi & Wolpert 1996, eqs. for
    bias^2 and variance with sigma^2 = 0):

    * ``bias^2(x) = 1/2 sum_y (1[y = y_true(x)] - P(y | x))^2``
    * ``variance(x) = 1/2 (1 - sum_y P(y | x)^2)``
    * ``error(x) = 1 - P(y_true(x) | x)``, the mean zero-one loss over the trials,

    so ``bias^2(x) + variance(x) = error(x)`` exactly.  The results are means over instances.

    Parameters
    ----------
    y_true : array-like of int, shape (n,)
        True class index (0 .. n_classes - 1) of each test instance.
    predictions : array-like of int, shape (n, n_trials)
        Predicted class index of each instance in each trial; -1 where the instance was not
        classified in that trial (e.g. it was in the training fold).  Instances never
        classified are skipped.
    n_classes : int
        Number of classes.

    Returns
    -------
    dict
        ``bias`` (mean bias^2), ``variance``, ``error`` and ``n_instances`` (instances used).

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0, 1])
    >>> trials = np.array([[0, 0, 1, 0], [1, 1, 1, 1]])  # row 0 is wrong in 1 of 4 trials
    >>> bv = kohavi_wolpert(y, trials, n_classes=2)
    >>> round(bv["error"], 5), round(bv["bias"], 5), round(bv["variance"], 5)
    (0.125, 0.03125, 0.09375)
    """
    y_true = np.asarray(y_true)
    predictions = np.asarray(predictions)
    if predictions.ndim != 2 or y_true.shape != (predictions.shape[0],):
        raise ValueError(f"predictions must have shape (n, n_trials) with n = len(y_true); "
                         f"got y_true {y_true.shape} and predictions {predictions.shape}")
    if y_true.dtype.kind not in "iu" or (predictions.size and predictions.dtype.kind not in "iu"):
        raise ValueError("y_true and predictions must be integer class indices")
    n_classes = int(n_classes)
    if y_true.size and (y_true.min() < 0 or y_true.max() >= n_classes):
        raise ValueError(f"y_true must hold class indices in 0 .. {n_classes - 1}")
    if predictions.size and (predictions.min() < -1 or predictions.max() >= n_classes):
        raise ValueError(f"predictions must hold class indices in 0 .. {n_classes - 1} "
                         "or -1 for 'not predicted'")
    n = len(y_true)
    counts = np.zeros((n, n_classes), dtype=np.float64)
    rows, trials = np.nonzero(predictions >= 0)
    np.add.at(counts, (rows, predictions[rows, trials]), 1.0)
    n_predicted = counts.sum(axis=1)
    used = n_predicted > 0
    if not used.any():
        raise ValueError("no instance has a prediction: nothing to decompose")
    p = counts[used] / n_predicted[used, None]
    truth = np.zeros_like(p)
    truth[np.arange(len(p)), y_true[used]] = 1.0
    bias = 0.5 * ((truth - p) ** 2).sum(axis=1)
    variance = 0.5 * (1.0 - (p**2).sum(axis=1))
    error = 1.0 - p[np.arange(len(p)), y_true[used]]
    return {"bias": float(bias.mean()), "variance": float(variance.mean()),
            "error": float(error.mean()), "n_instances": int(used.sum())}


class Timer:
    """Context manager measuring wall-clock seconds with ``time.perf_counter``.

    >>> with Timer() as t:
    ...     model.fit(X, y)          # doctest: +SKIP
    >>> t.seconds                    # doctest: +SKIP
    """

    def __init__(self):
        self.seconds = float("nan")

    def __enter__(self):
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self._start
        return False


def timed(fn, *args, **kwargs):
    """Call ``fn(*args, **kwargs)`` and time it with ``time.perf_counter``.

    Parameters
    ----------
    fn : callable
        The function to call.
    *args, **kwargs
        Its arguments.

    Returns
    -------
    result : object
        What ``fn`` returned.
    seconds : float
        Wall-clock time of the call.
    """
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start


def per_instance(seconds, n_rows):
    """Seconds per instance (Webb et al. 2012, section 4: total time divided by the rows).

    Parameters
    ----------
    seconds : float
        Total time.
    n_rows : int
        Rows processed.

    Returns
    -------
    float
        NaN when ``n_rows`` is 0.
    """
    n_rows = int(n_rows)
    return float(seconds) / n_rows if n_rows > 0 else float("nan")
