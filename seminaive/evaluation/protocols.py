"""Evaluation protocols of the source papers, as lists of train/test tasks.

A protocol turns a data set of ``n`` rows into :class:`Task` objects -- (repeat, fold, train
rows, test rows) -- that every learner shares, so comparisons are paired.  The splits depend
only on the protocol, its parameters, the seed and the data set's name and size, never on the
learner, and are the same in every run.

The protocols:

``cv``
    Stratified k-fold cross-validation (default 10 folds, 1 repeat).
``biasvar``
    Webb et al. 2012, §4: 50 repeats of 2-fold cross-validation; every row is classified
    once per repeat, so each row has 50 predictions from which Kohavi & Wolpert's
    bias and variance of zero-one loss are computed (Webb 2000's repeated
    cross-validation method; folds are plain random halves, not stratified, to
    maximise the variation between training sets as Webb et al. 2012 ask).
``biasvar1000``
    Chen et al. 2014, §4: 1,000 test rows drawn at random once, then 10 training sets of
    1,000 rows drawn from the remaining rows; bias and variance from the 10
    predictions of every test row (data sets with at least 2,000 rows).
``holdout``
    One stratified split, ``test_fraction`` of the rows for testing (repeatable).
``curve``
    Webb et al. 2012, §4.1 learning curves: per repeat, 1,000 random test rows; training
    sets of 23, 46, 92, ... rows (doubling) drawn from the rest, up to the largest
    size the remaining rows allow; 50 repeats.  ``fold`` indexes the size.
"""

import zlib
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split

PROTOCOLS = ("cv", "biasvar", "biasvar1000", "holdout", "curve")

#: default parameters of every protocol (overridable by keyword)
DEFAULTS = {
    "cv": {"folds": 10, "repeats": 1},
    "biasvar": {"folds": 2, "repeats": 50},
    "biasvar1000": {"repeats": 10, "train_size": 1000, "test_size": 1000},
    "holdout": {"repeats": 1, "test_fraction": 1 / 3},
    "curve": {"repeats": 50, "test_size": 1000, "first_size": 23},
}


@dataclass(frozen=True)
class Task:
    """One train/test evaluation of one learner on one data set.

    Parameters
    ----------
    dataset : str
        The data set's name.
    protocol : str
        The protocol that made the task.
    repeat, fold : int
        Repeat and fold numbers, from 0.
    train, test : numpy.ndarray
        Row indices of the training and test sets.
    """

    dataset: str
    protocol: str
    repeat: int
    fold: int
    train: np.ndarray
    test: np.ndarray

    @property
    def key(self):
        """File name of the task in the cache, e.g. ``"r003-f01"``."""
        return f"r{self.repeat:03d}-f{self.fold:02d}"


def protocol_parameters(protocol, **overrides):
    """The protocol's defaults updated with the given non-None overrides.

    Parameters
    ----------
    protocol : str
        One of ``PROTOCOLS``.
    **overrides
        Parameter values; ``None`` keeps the default.

    Returns
    -------
    dict
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; use one of {', '.join(PROTOCOLS)}")
    params = dict(DEFAULTS[protocol])
    for key, value in overrides.items():
        if value is None:
            continue
        if key not in params:
            raise ValueError(f"protocol {protocol!r} has no parameter {key!r}; it takes "
                             f"{sorted(params)}")
        params[key] = value
    return params


def _rng_seed(seed, dataset, protocol, repeat):
    """A 32-bit seed that depends on the run seed, the data set, the protocol and repeat."""
    text = f"{seed}|{dataset}|{protocol}|{repeat}".encode()
    return zlib.crc32(text) & 0x7FFFFFFF


def curve_sizes(n_available, first_size=23):
    """Training sizes of Webb et al.'s (2012) learning curves: 23, 46, 92, ... while <= n_available.

    With the Adult data (48,842 rows, 1,000 held out) this is 23 ... 47,104, as in Webb et
    al. (2012).

    Parameters
    ----------
    n_available : int
        Rows available for training.
    first_size : int, default=23
        The first training size; each next size doubles it.

    Returns
    -------
    list of int

    Examples
    --------
    >>> curve_sizes(500)
    [23, 46, 92, 184, 368]
    """
    sizes = []
    size = int(first_size)
    while size <= n_available:
        sizes.append(size)
        size *= 2
    return sizes


def _stratify_ok(y, n_splits):
    _, counts = np.unique(y, return_counts=True)
    return counts.min() >= n_splits


def make_tasks(protocol, dataset, y, seed=0, **overrides):
    """All tasks of ``protocol`` on a data set with class labels ``y``.

    Parameters
    ----------
    protocol : str
        One of ``seminaive.evaluation.protocols.PROTOCOLS``.
    dataset : str
        The data set's name (part of the split seed).
    y : array-like of shape (n_rows,)
        Class labels of the data set (used to stratify the folds).
    seed : int, default=0
        Base seed of the splits, combined with ``dataset`` and ``protocol``.
    **overrides
        Protocol parameters (see ``seminaive.evaluation.protocols.DEFAULTS``), e.g. ``folds=5``.

    Returns
    -------
    list of Task
        One task (training rows, test rows) per fold, repeat or training size.

    Examples
    --------
    >>> import numpy as np
    >>> tasks = make_tasks("cv", "toy", np.array([0, 1] * 10), folds=5)
    >>> len(tasks), sorted(len(t.test) for t in tasks)
    (5, [4, 4, 4, 4, 4])
    """
    params = protocol_parameters(protocol, **overrides)
    y = np.asarray(y)
    n = y.shape[0]
    rows = np.arange(n)
    tasks = []
    if protocol in ("cv", "biasvar"):
        folds = int(params["folds"])
        if n < folds:
            raise ValueError(f"{dataset}: {n} rows cannot be split into {folds} folds")
        for r in range(int(params["repeats"])):
            rs = _rng_seed(seed, dataset, protocol, r)
            if protocol == "cv" and _stratify_ok(y, folds):
                splitter = StratifiedKFold(folds, shuffle=True, random_state=rs)
            else:
                splitter = KFold(folds, shuffle=True, random_state=rs)
            for f, (train, test) in enumerate(splitter.split(rows, y)):
                tasks.append(Task(dataset, protocol, r, f, train, test))
    elif protocol == "holdout":
        for r in range(int(params["repeats"])):
            rs = _rng_seed(seed, dataset, protocol, r)
            strat = y if _stratify_ok(y, 2) else None
            train, test = train_test_split(rows, test_size=params["test_fraction"],
                                           random_state=rs, stratify=strat)
            tasks.append(Task(dataset, protocol, r, 0, np.sort(train), np.sort(test)))
    elif protocol == "biasvar1000":
        n_train, n_test = int(params["train_size"]), int(params["test_size"])
        if n < n_train + n_test:
            raise ValueError(f"{dataset}: biasvar1000 needs at least {n_train + n_test} rows, "
                             f"the data set has {n}")
        rng = np.random.default_rng(_rng_seed(seed, dataset, protocol, -1))
        perm = rng.permutation(n)
        test, pool = np.sort(perm[:n_test]), perm[n_test:]
        for r in range(int(params["repeats"])):
            rng_r = np.random.default_rng(_rng_seed(seed, dataset, protocol, r))
            train = np.sort(rng_r.choice(pool, size=n_train, replace=False))
            tasks.append(Task(dataset, protocol, r, 0, train, test))
    elif protocol == "curve":
        n_test = int(params["test_size"])
        if n <= n_test + params["first_size"]:
            raise ValueError(f"{dataset}: a learning curve with {n_test} test rows needs more "
                             f"than {n_test + params['first_size']} rows, the data set has {n}")
        sizes = curve_sizes(n - n_test, params["first_size"])
        for r in range(int(params["repeats"])):
            rng = np.random.default_rng(_rng_seed(seed, dataset, protocol, r))
            perm = rng.permutation(n)
            test, rest = np.sort(perm[:n_test]), perm[n_test:]
            for f, size in enumerate(sizes):
                # nested training sets: the first `size` rows of a random order of the rest
                tasks.append(Task(dataset, protocol, r, f, np.sort(rest[:size]), test))
    return tasks
