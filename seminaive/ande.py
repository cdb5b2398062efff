"""AnDE estimators: NaiveBayes (A0DE), AODE (A1DE), A2DE, A3DE and AnDE(n) for any n.

Webb, Boughton, Zheng, Ting & Salem (2012), "Learning by extrapolation from marginal to
full-multivariate probability distributions: decreasingly naive Bayesian classification",
Machine Learning 86 (seed 000), eq. (11): for every class,

    P(y, x) ~ mean over qualifying parent sets s of size n of
              P(y, x_s) * prod_{i not in s, x_i observed} P(x_i | y, x_s)

cascading to A(n-1)DE for a row in which no parent set qualifies.  All the counting and
arithmetic is done by :class:`seminaive.tables.FrequencyTable`; this module only handles the
scikit-learn API around it.
"""

import numbers
import warnings

import numpy as np
import pandas as pd
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from . import persistence
from .exceptions import InputError, ModelFileError
from .preprocessing.encoder import AttributeEncoder, as_frame, check_sample_weight
from .sources import ArraySource
from .tables import FrequencyTable

DEFAULT_MAX_TABLE_BYTES = 4 * 2**30


def _check_target(y, n_rows, owner="This estimator"):
    """1-D discrete target without missing values and with as many entries as X has rows."""
    if y is None:
        raise InputError(f"{owner} requires y to be passed, but the target y is None: pass "
                         "the class labels, fit(X, y)")
    if hasattr(y, "toarray") or hasattr(y, "tocsr"):
        raise InputError("y is a sparse matrix: pass the class labels as a 1-D array")
    if isinstance(y, (pd.DataFrame,)):
        if y.shape[1] != 1:
            raise InputError(f"y must be one column, got a DataFrame of shape {y.shape}: "
                             "multi-output classification is not supported")
        y = y.iloc[:, 0]
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected. Please "
                      "change the shape of y to (n_samples, ), for example using ravel().",
                      DataConversionWarning, stacklevel=3)
        arr = arr.ravel()
    if arr.ndim != 1:
        raise InputError(f"y should be a 1d array, got an array of shape {arr.shape} instead: "
                         "pass one class label per row (multi-output classification is not "
                         "supported)")
    if arr.shape[0] != n_rows:
        raise InputError(f"X has {n_rows} rows but y has {arr.shape[0]} entries "
                         "(inconsistent numbers of samples)")
    missing = pd.isna(pd.Series(arr, dtype=object if arr.dtype.kind == "O" else None))
    if missing.any():
        rows = np.flatnonzero(missing.to_numpy())[:5].tolist()
        raise InputError(f"y contains {int(missing.sum())} missing value(s) (NaN/None), "
                         f"e.g. at rows {rows}: drop those rows or give them a class; a "
                         "missing class cannot be learnt from")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise InputError("y contains infinity: class labels must be finite")
    if arr.dtype.kind == "c":
        raise InputError("y contains complex numbers: class labels must be discrete values")
    try:
        kind = type_of_target(arr, input_name="y")
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


_check_weights = check_sample_weight


def storage_codes(codes, sizes):
    """Encoder codes (-1 = missing) to table storage codes (0 = missing), compact dtype."""
    dtype = np.uint8 if sizes.max() <= 255 else np.int32
    out = np.empty(codes.shape, dtype=dtype, order="F")
    np.add(codes, 1, out=out, casting="unsafe")
    return out


#: every public estimator class built on :class:`_BaseAnDE`, by name (filled as the classes
#: are defined; used by :mod:`seminaive.persistence` to load a model file)
ESTIMATORS = {}


class _BaseAnDE(ClassifierMixin, BaseEstimator):
    """Shared implementation of every learner on the frequency-table engine.

    Input handling (encoder, classes, feature names), counting (fit / partial_fit),
    prediction, persistence and scikit-learn tags live here.  A learner customises it through
    a few hooks:

    * :meth:`_order` -- the parent order n (AnDE) and :meth:`_table_order` -- the highest
      order of attribute combinations counted (default ``n + 1``);
    * :meth:`_learn_from_counts` -- called after the counting pass with a *source* that
      replays the training data chunk by chunk, for learners that derive a structure or
      weights (TAN, KDB, selection, weighting); the default does nothing;
    * :meth:`_scores` -- per-class log scores of rows (default: AnDE over the tables);
    * :meth:`_learned_state` / :meth:`_set_learned_state` -- arrays learnt beyond the counts,
      stored in model files.

    Subclasses with their own parameters write an explicit ``__init__`` (scikit-learn needs
    the signature) and assign every argument, e.g. with :func:`_assign_params`.
    """

    _aggregates = ("joint", "posterior", "vote")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.__name__.startswith("_"):
            ESTIMATORS[cls.__name__] = cls

    def _order(self):
        raise NotImplementedError

    def _table_order(self):
        """Highest order of attribute combinations the table counts (n + 1 for AnDE)."""
        return self._order() + 1

    def _learn_from_counts(self, source):
        """Derive anything beyond the counts once ``self.table_`` holds the training data.

        ``source`` (:class:`seminaive.sources.ArraySource` or a streamed / distributed
        equivalent) replays the training rows as (storage codes, class indices, weights)
        chunks: ``source.map_reduce(fn, combine)`` applies ``fn`` to every chunk and
        combines the results, so a learner that needs extra passes (leave-one-out scores,
        optimiser iterations) runs unchanged on arrays, files and clusters.  After
        :meth:`partial_fit` the source holds only the chunk just added.
        """

    def _learned_state(self):
        """Arrays learnt beyond the counts (name -> ndarray), written to model files."""
        return {}

    def _set_learned_state(self, arrays):
        """Restore :meth:`_learned_state` from a model file; validate before trusting it
        (raise ValueError when the arrays do not fit the tables)."""
        if arrays:
            raise ValueError(f"unexpected learned arrays {sorted(arrays)}")

    # ------------------------------------------------------------------------- validation
    def _check_params(self):
        n = self._order()
        if not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"n must be a non-negative integer, got {n!r}")
        if self.smoothing not in ("m_estimate", "laplace"):
            raise ValueError(f"smoothing={self.smoothing!r}: use 'm_estimate' or 'laplace'")
        if self.smoothing == "m_estimate" and not (np.isscalar(self.m) and self.m > 0):
            raise ValueError(f"m must be a positive number, got {self.m!r}")
        if self.aggregate not in self._aggregates:
            raise ValueError(f"aggregate={self.aggregate!r}: use one of {self._aggregates}")
        if not (np.isscalar(self.min_count) and self.min_count >= 0):
            raise ValueError(f"min_count must be >= 0, got {self.min_count!r}")
        if self.missing not in ("ignore", "value"):
            raise ValueError(f"missing={self.missing!r}: use 'ignore' or 'value'")
        if isinstance(self.discretizer, str):
            if self.discretizer not in ("mdl", "equal_frequency"):
                raise ValueError(f"discretizer={self.discretizer!r}: use 'mdl', "
                                 "'equal_frequency' or a scikit-learn transformer")
        elif not (hasattr(self.discretizer, "fit") and hasattr(self.discretizer, "transform")):
            raise ValueError("discretizer must be 'mdl', 'equal_frequency' or an object with "
                             "fit and transform (e.g. KBinsDiscretizer(encode='ordinal'))")
        if self.max_table_bytes is not None and not (
                isinstance(self.max_table_bytes, numbers.Real)
                and not isinstance(self.max_table_bytes, bool) and self.max_table_bytes > 0):
            raise ValueError(f"max_table_bytes must be a positive number or None, got "
                             f"{self.max_table_bytes!r}")

    def _make_encoder(self):
        return AttributeEncoder(discretizer=self.discretizer, n_bins=self.n_bins,
                                missing=self.missing,
                                categorical_features=self.categorical_features,
                                random_state=self.random_state)

    def _encode_target(self, y):
        try:
            idx = np.searchsorted(self.classes_, y)
            idx = np.clip(idx, 0, len(self.classes_) - 1)
            bad = np.asarray(self.classes_[idx] != y, dtype=bool)
        except TypeError:  # labels not comparable with classes_ (str vs int)
            idx = np.zeros(len(y), dtype=np.int64)
            bad = np.ones(len(y), dtype=bool)
        if bad.shape != (len(y),):
            bad = np.ones(len(y), dtype=bool)
        if np.any(bad):
            unknown = pd.unique(np.asarray(y)[bad])[:5].tolist()
            raise InputError(f"y contains classes {unknown} that are not in classes_="
                             f"{self.classes_.tolist()[:20]}; declare every class in the "
                             "first partial_fit call (classes=...)")
        return idx.astype(np.int64)

    def _new_table(self, n_values=None):
        if n_values is None:
            n_values = self.encoder_.n_values_
        return FrequencyTable(n_values, len(self.classes_), self._table_order(),
                              self.max_table_bytes)

    # ---------------------------------------------------------------------------- fitting
    def fit(self, X, y, sample_weight=None):
        """Count the training data into the frequency tables (one pass).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Nominal and numeric columns; NaN / None are missing values.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights (a weight of 2 counts a row twice, a weight of 0 leaves the
            row out).  With integer weights the cut points of numeric columns are those of
            the data with rows repeated; with other weights they are computed on the rows
            of positive weight, unweighted.
        """
        self._check_params()
        frame = as_frame(X)
        y = _check_target(y, frame.shape[0], type(self).__name__)
        w = _check_weights(sample_weight, frame.shape[0])
        for attr in ("classes_", "encoder_", "table_", "n_features_in_", "feature_names_in_"):
            self.__dict__.pop(attr, None)
        self.classes_ = np.unique(y)
        self.encoder_ = self._make_encoder().fit(frame, y, sample_weight=w)
        self._sync_feature_attrs()
        self.table_ = self._new_table()
        codes = storage_codes(self.encoder_.transform(frame), self.table_.sizes)
        y_idx = self._encode_target(y)
        self.table_.add(codes, y_idx, w)
        self._learn_from_counts(ArraySource(codes, y_idx, w))
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a chunk of training data to the counts.

        The first call must list every class (``classes``).  Nominal values first seen in a
        later chunk extend the tables (appended after the known values); numeric cut points
        are fixed by the first chunk.  The counts are those of one :meth:`fit` on all the
        chunks whenever both see the same value lists in the same order (e.g. columns given
        as pandas Categoricals, or all values present in the first chunk) and the same cut
        points (no numeric columns, or cut points that the first chunk already determines).
        """
        frame = as_frame(X)
        y = _check_target(y, frame.shape[0], type(self).__name__)
        w = _check_weights(sample_weight, frame.shape[0])
        first = not hasattr(self, "table_")
        if first:
            self._check_params()
            if classes is None:
                raise InputError("classes must be passed on the first call to partial_fit: "
                                 "list all classes that will ever appear, e.g. "
                                 "partial_fit(X, y, classes=np.unique(y_all))")
            classes = np.unique(np.asarray(classes))
            if classes.size == 0:
                raise InputError("classes is empty: list all classes that will ever appear")
            for attr in ("classes_", "encoder_", "n_features_in_", "feature_names_in_"):
                self.__dict__.pop(attr, None)
            self.classes_ = classes
            encoder = self._make_encoder()
        else:
            encoder = self.encoder_
            if classes is not None and not np.array_equal(np.unique(classes), self.classes_):
                raise InputError(f"classes={np.unique(classes).tolist()} is not the same as on "
                                 f"the first call to partial_fit: {self.classes_.tolist()}")
        y_idx = self._encode_target(y)
        owner = type(self).__name__
        saved = None if first else encoder._snapshot()
        try:
            # the encoder, the codes and the table's extents change together or not at all:
            # codes beyond the table's extents must never reach the counting kernels
            encoder._partial_fit(frame, y, w, owner)
            with warnings.catch_warnings():
                # already warned about by _partial_fit
                warnings.filterwarnings("ignore", message="X (does not have valid|has) feature")
                codes = encoder._encode(frame, owner)
            if first:
                table = self._new_table(encoder.n_values_)
            else:
                self.table_.grow(encoder.n_values_)
        except BaseException:
            if saved is not None:
                encoder._restore(saved)
            raise
        if first:
            self.encoder_ = encoder
            self._sync_feature_attrs()
            self.table_ = table
        codes = storage_codes(codes, self.table_.sizes)
        self.table_.add(codes, y_idx, w)
        self._learn_from_counts(ArraySource(codes, y_idx, w))
        return self

    def fit_stream(self, source, target, *, features=None, sample_weight=None,
                   chunk_rows=None, sample_rows=100_000, classes=None, csv_options=None,
                   progress=None):
        """Fit on data read chunk by chunk, larger than memory (two passes).

        Pass 1 reads every chunk and keeps the class labels, the values of every nominal
        column and a random sample of ``sample_rows`` rows for the cut points of numeric
        columns (seed 002); pass 2 counts every chunk into the tables.  Memory: the tables,
        one chunk and the sample.  Learners with extra passes re-read the source through a
        :class:`seminaive.streaming.StreamSource`.  See :mod:`seminaive.streaming`.

        Parameters
        ----------
        source : path, list of paths, DataFrame, list of DataFrames, callable or iterator
            Parquet file or directory (``*.parquet``), CSV file (``*.csv``), a list of such
            files, DataFrames, a callable returning a fresh iterator of DataFrames, or a
            one-shot iterator of DataFrames (read once: encoder fitted on the first chunk as
            in :meth:`partial_fit`; a learner needing an extra pass raises an error).
        target : str
            Column holding the class labels.
        features : list of str, optional
            Feature columns (default: every column but the target and the weights).
        sample_weight : str, optional
            Column holding non-negative row weights: the counts are those of
            ``fit(X, y, sample_weight=w)`` (the cut points are fitted with the sampled rows'
            weights).
        chunk_rows : int, optional
            Rows per chunk (default: about 8 million values per chunk).
        sample_rows : int or None, default=100_000
            Rows sampled for the cut points (None: all rows, kept in memory).  With at least
            as many rows as the data the cut points, and so the counts, are those of
            :meth:`fit` on all the rows.
        classes : array-like, optional
            Every class, for a one-shot iterator whose first chunk may lack some.
        csv_options : dict, optional
            Keyword arguments of ``pandas.read_csv`` (e.g. ``{"sep": ";", "dtype": ...}``).
        progress : bool, optional
            Show progress bars (default: when stderr is a terminal).

        Returns
        -------
        self
        """
        from .streaming import fit_stream

        return fit_stream(self, source, target, features=features,
                          sample_weight=sample_weight, chunk_rows=chunk_rows,
                          sample_rows=sample_rows, classes=classes, csv_options=csv_options,
                          progress=progress)

    def predict_stream(self, source, out, *, proba=True, chunk_rows=None, csv_options=None,
                       progress=None):
        """Predict data read chunk by chunk and write the results to a Parquet file.

        Parameters
        ----------
        source : path, list of paths, DataFrame, list of DataFrames, callable or iterator
            As in :meth:`fit_stream`; the model's feature columns are read (extra columns,
            e.g. the target, are ignored when the model was fitted with column names).
        out : str or path
            Parquet file written with columns ``prediction`` and, with ``proba``,
            ``proba_<class>`` for every class (equal to :meth:`predict` and
            :meth:`predict_proba`).
        proba : bool, default=True
        chunk_rows, csv_options, progress
            As in :meth:`fit_stream`.

        Returns
        -------
        n_rows : int
            Rows predicted and written.
        """
        from .streaming import predict_stream

        return predict_stream(self, source, out, proba=proba, chunk_rows=chunk_rows,
                              csv_options=csv_options, progress=progress)

    def _sync_feature_attrs(self):
        self.n_features_in_ = self.encoder_.n_features_in_
        if hasattr(self.encoder_, "feature_names_in_"):
            self.feature_names_in_ = self.encoder_.feature_names_in_
        else:
            self.__dict__.pop("feature_names_in_", None)

    # ------------------------------------------------------------------------- prediction
    def _storage_codes(self, X):
        check_is_fitted(self, "table_")
        # column names are checked as scikit-learn does: an array is taken positionally
        # (with a warning if the model was fitted on named columns)
        codes = self.encoder_._encode(X, type(self).__name__)
        return storage_codes(codes, self.table_.sizes)

    def _scores(self, X):
        codes = self._storage_codes(X)
        return self.table_.scores(codes, self._order(), self.smoothing, self.m,
                                  self.min_count, self.aggregate)

    def predict_log_proba(self, X):
        """Log of P(y | x) for every class (log-sum-exp normalised)."""
        scores = self._scores(X)
        with np.errstate(invalid="ignore"):
            return scores - logsumexp(scores, axis=1, keepdims=True)

    def predict_proba(self, X):
        """P(y | x) for every class; rows sum to 1."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The most probable class of each row."""
        scores = self._scores(X)
        return self.classes_[np.argmax(scores, axis=1)]

    def joint_log_likelihood(self, X):
        """Unnormalised per-class log scores (log of the AnDE estimate of P(y, x) with
        ``aggregate="joint"``)."""
        return self._scores(X)

    # ------------------------------------------------------------------------ persistence
    def save(self, path):
        """Write the fitted model to ``path`` (npz + JSON header; loading runs no code)."""
        persistence.save_model(self, path)

    @classmethod
    def load(cls, path):
        """Read a model written by :meth:`save`; refuses corrupt or foreign files."""
        model = persistence.load_model(path)
        if not isinstance(model, cls):
            raise ModelFileError(f"{path} holds a {type(model).__name__}, not a {cls.__name__}")
        return model

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


_COMMON_DOC = """
    smoothing : {"m_estimate", "laplace"}, default="m_estimate"
        m-estimation with a uniform prior (seed 000):
        P(y, x_s) = (N(y, x_s) + m / (k prod|X_s|)) / (N + m) and
        P(x_i | y, x_s) = (N(y, x_s, x_i) + m / |X_i|) / (N(y, x_s) + m);
        or Laplace (seed 003 eqs 15-16, Weka's AODE):
        (N(y, x_s) + 1) / (N + k prod|X_s|) and (N(y, x_s, x_i) + 1) / (N(y, x_s) + |X_i|).
        With missing="ignore" every denominator counts only the rows in which the attributes
        it involves are observed.
    m : float, default=1.0
        The m of m-estimation.
    min_count : float, default=1
        A parent combination x_s is used only if its training frequency is >= min_count;
        when none qualifies the row cascades to A(n-1)DE (seed 000 eq 11).
    aggregate : {"joint", "posterior", "vote"}, default="joint"
        Mean of the sub-models' joint estimates (AnDE), of their posteriors (PAnDE), or the
        fraction of sub-models voting for each class (FAnDE, Feating; seed 000 §4.4).
    discretizer : {"mdl", "equal_frequency"} or transformer, default="mdl"
        How numeric columns are discretised (on the training data only).
    n_bins : int, default=3
        Bins for discretizer="equal_frequency".
    missing : {"ignore", "value"}, default="ignore"
        Leave missing values out of counting and classification, or treat them as a value.
    categorical_features : "auto", "all", "none" or list, default="auto"
        Which columns are nominal ("auto": object, string, category and bool dtypes).
    max_table_bytes : int or None, default=4 GiB
        Refuse, before allocating, a model whose tables would need more memory.
    random_state : int, RandomState or None
        Seeds the row sample on which cut points are computed.
"""


class AnDE(_BaseAnDE):
    __doc__ = """Averaged n-Dependence Estimators (seed 000).

    Parameters
    ----------
    n : int or "auto", default=1
        Number of super-parent attributes: 0 is naive Bayes, 1 AODE, 2 A2DE, 3 A3DE.
        "auto" chooses n in {0, 1, 2} together with the parents and children, by
        leave-one-out RMSE over one nested space, n by the one-standard-error rule
        (:mod:`seminaive.selection.auto`; sets ``n_``, ``n_parents_``, ``n_children_``,
        ``parents_``, ``children_``; aggregate="joint", weights=None only).
    """ + _COMMON_DOC + """    weights : None, "mi", "kl" or array-like, default=None
        Weights of the sub-models (:mod:`seminaive.weighting`): None averages them uniformly;
        "mi" weights parent combination s by I(X_s; Y) (WAODE-MI generalised to n); "kl"
        weights parent value x_s by KL(P(Y | x_s) || P(Y)) (WAODE-KL); an array gives one
        non-negative weight per combination of n attributes, in the order of
        ``itertools.combinations(range(n_features_in_), n)``.

    Attributes
    ----------
    classes_ : ndarray
    n_features_in_ : int
    feature_names_in_ : ndarray (DataFrame input with string column names)
    encoder_ : AttributeEncoder
    table_ : FrequencyTable
    weights_ : ndarray (only when ``weights`` is given; see seminaive.weighting)
    """

    def __init__(self, n=1, *, smoothing="m_estimate", m=1.0, min_count=1, aggregate="joint",
                 discretizer="mdl", n_bins=3, missing="ignore", categorical_features="auto",
                 max_table_bytes=DEFAULT_MAX_TABLE_BYTES, random_state=None, weights=None):
        _assign_params(self, locals())

    # weights=...: the weighted path lives in seminaive.weighting (imported lazily: it builds
    # on this module)
    def _check_params(self):
        if (auto := _auto(self)) is not None:
            auto.check_params(self)
        super()._check_params()
        from .weighting.information import check_scheme
        check_scheme(self.weights)

    def _learn_from_counts(self, source):
        super()._learn_from_counts(source)
        if (auto := _auto(self)) is not None:
            auto.learn(self, source)
        if self.weights is not None:
            from .weighting.information import ande_learn_weights
            ande_learn_weights(self)

    def _scores(self, X):
        if (auto := _auto(self)) is not None:
            return auto.scores(self, X)
        if self.weights is None:
            return super()._scores(X)
        codes = self._storage_codes(X)
        return self.table_.scores(codes, self._order(), self.smoothing, self.m,
                                  self.min_count, self.aggregate,
                                  log_weights=self._cell_log_weights_)

    def _learned_state(self):
        if (auto := _auto(self)) is not None:
            return auto.learned_state(self)
        return {} if self.weights is None else {"weights": np.asarray(self.weights_, float)}

    def _set_learned_state(self, arrays):
        if (auto := _auto(self)) is not None:
            return auto.set_learned_state(self, arrays)
        if self.weights is None:
            return super()._set_learned_state(arrays)
        from .weighting.information import ande_set_learned_state
        ande_set_learned_state(self, arrays)

    def _order(self):
        if (auto := _auto(self)) is not None:
            return auto.MAX_N  # tables for parent orders up to 2
        return self.n


def _auto(estimator):
    """The ``n="auto"`` machinery (:mod:`seminaive.selection.auto`, imported lazily: it builds
    on this module) when ``estimator.n == "auto"``, else None."""
    if isinstance(estimator.n, str) and estimator.n == "auto":
        from .selection import auto
        return auto
    return None


def _assign_params(estimator, arguments):
    """Store constructor arguments as attributes (``_assign_params(self, locals())``)."""
    for name, value in arguments.items():
        if name not in ("self", "__class__"):
            setattr(estimator, name, value)


class _FixedOrder(_BaseAnDE):
    _n = None

    def __init__(self, *, smoothing="m_estimate", m=1.0, min_count=1, aggregate="joint",
                 discretizer="mdl", n_bins=3, missing="ignore", categorical_features="auto",
                 max_table_bytes=DEFAULT_MAX_TABLE_BYTES, random_state=None):
        _assign_params(self, locals())

    def _order(self):
        return self._n


class NaiveBayes(_FixedOrder):
    __doc__ = "Naive Bayes, A0DE (seed 000 eq 5).\n\n    Parameters\n    ----------" + \
        _COMMON_DOC
    _n = 0


class AODE(_FixedOrder):
    __doc__ = "Averaged One-Dependence Estimators, A1DE (seed 000 eq 9).\n\n    Parameters\n" \
        "    ----------" + _COMMON_DOC
    _n = 1


class A2DE(_FixedOrder):
    __doc__ = "Averaged 2-Dependence Estimators (seed 000 eq 11, n = 2).\n\n    Parameters\n" \
        "    ----------" + _COMMON_DOC
    _n = 2


class A3DE(_FixedOrder):
    __doc__ = "Averaged 3-Dependence Estimators (seed 000 eq 11, n = 3).\n\n    Parameters\n" \
        "    ----------" + _COMMON_DOC
    _n = 3

