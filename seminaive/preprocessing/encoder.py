"""From user data (DataFrame or array, nominal and numeric columns) to attribute codes.

:class:`AttributeEncoder` is a scikit-learn transformer.  Its output is an ``int32`` array of
codes ``0 .. n_values_[i] - 1`` with ``-1`` for a value that is missing, or that was never
seen in training (which is treated as missing, as the issue tracker and Weka do).
"""

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from ..exceptions import InputError
from .discretize import EqualFrequencyDiscretizer, MDLDiscretizer

MISSING_LABEL = "<missing>"


def _is_nominal_dtype(dtype):
    return (isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_object_dtype(dtype)
            or pd.api.types.is_string_dtype(dtype) or pd.api.types.is_bool_dtype(dtype))


def as_frame(X, feature_names=None):
    """Wrap ``X`` as a DataFrame without copying numeric arrays; reject empty or 1-D input."""
    if isinstance(X, pd.DataFrame):
        frame = X
    else:
        if hasattr(X, "toarray") or hasattr(X, "tocsr"):
            raise TypeError(
                "Sparse input is not supported: AnDE counts attribute-value combinations, "
                "so pass a dense array or a DataFrame (call X.toarray() first).")
        arr = np.asarray(X)
        if arr.ndim == 0:
            raise InputError("Expected 2D array, got scalar array instead: reshape your data.")
        if arr.ndim == 1:
            raise InputError(
                "Expected 2D array, got 1D array instead. Reshape your data either using "
                "array.reshape(-1, 1) if it has a single feature or array.reshape(1, -1) if it "
                "contains a single sample.")
        if arr.ndim > 2:
            raise InputError(f"Found array with dim {arr.ndim}. Expected <= 2.")
        if np.iscomplexobj(arr):
            raise InputError("Complex data not supported.")
        columns = feature_names if feature_names is not None else range(arr.shape[1])
        frame = pd.DataFrame(arr, columns=list(columns), copy=False)
    if frame.shape[0] == 0:
        raise InputError(
            f"Found array with 0 sample(s) (shape={frame.shape}) while a minimum of 1 is "
            "required: the data is empty.")
    if frame.shape[1] == 0:
        raise InputError(
            f"Found array with 0 feature(s) (shape={frame.shape}) while a minimum of 1 is "
            "required.")
    return frame


def _sorted_values(values):
    """Sorted unique non-missing values (in order of appearance if not sortable)."""
    uniques = pd.unique(pd.Series(values, dtype=object).dropna())
    try:
        return sorted(uniques.tolist())
    except TypeError:
        return uniques.tolist()


class AttributeEncoder(TransformerMixin, BaseEstimator):
    """Encode nominal columns and discretise numeric columns into attribute codes.

    Parameters
    ----------
    discretizer : {"mdl", "equal_frequency"} or scikit-learn transformer, default="mdl"
        How numeric columns become nominal: Fayyad & Irani's supervised MDL method, equal
        frequency bins (``n_bins``), or any transformer whose ``transform`` returns ordinal bin
        codes (e.g. ``KBinsDiscretizer(encode="ordinal")``).  Fitted on training data only.
    n_bins : int, default=3
        Bins for ``"equal_frequency"`` (seed 000 uses 3, seed 003 uses 5).
    missing : {"ignore", "value"}, default="ignore"
        ``"ignore"``: missing values get code -1 and are left out of counting and of
        classification.  ``"value"``: a missing value is a value of its own (added to an
        attribute's values when it first appears in training data).
    categorical_features : "auto", "all", or list of column names / indices / boolean mask
        Which columns are nominal.  ``"auto"``: object, string, category and bool columns.
    max_sample_rows : int, default=100_000
        Cut points are computed on at most this many sampled rows (seed 002).
    random_state : int, RandomState instance or None
        Seeds that sampling.

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
    """

    def __init__(self, discretizer="mdl", n_bins=3, missing="ignore",
                 categorical_features="auto", max_sample_rows=100_000, random_state=None):
        self.discretizer = discretizer
        self.n_bins = n_bins
        self.missing = missing
        self.categorical_features = categorical_features
        self.max_sample_rows = max_sample_rows
        self.random_state = random_state

    # ------------------------------------------------------------------------------ fitting
    def _nominal_mask(self, frame):
        spec = self.categorical_features
        a = frame.shape[1]
        if isinstance(spec, str):
            if spec == "auto":
                return np.array([_is_nominal_dtype(frame.dtypes.iloc[i]) for i in range(a)])
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
            if not mask[i] and _is_nominal_dtype(frame.dtypes.iloc[i]) and not \
                    pd.api.types.is_bool_dtype(frame.dtypes.iloc[i]):
                raise InputError(f"column {frame.columns[i]!r} is non-numeric "
                                 f"({frame.dtypes.iloc[i]}) but not listed as categorical")
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
        return clone(self.discretizer)

    def fit(self, X, y=None):
        """Learn value sets of nominal columns and cut points of numeric columns."""
        self._fit(as_frame(X), y)
        return self

    def _fit(self, frame, y):
        if self.missing not in ("ignore", "value"):
            raise ValueError(f"missing={self.missing!r}: use 'ignore' or 'value'")
        self.n_features_in_ = frame.shape[1]
        names = list(frame.columns)
        if all(isinstance(c, str) for c in names) and isinstance(frame, pd.DataFrame):
            self.feature_names_in_ = np.asarray(names, dtype=object)
        self.column_names_ = names
        self.nominal_ = self._nominal_mask(frame)
        self.categories_ = [None] * frame.shape[1]
        self.missing_code_ = np.full(frame.shape[1], -1, dtype=np.int64)
        numeric = np.flatnonzero(~self.nominal_)
        self.numeric_columns_ = numeric
        if numeric.size:
            values = self._numeric_matrix(frame, numeric)
            self.discretizer_ = self._make_discretizer()
            if y is None and self.discretizer == "mdl":
                raise InputError("MDL discretisation is supervised: pass y")
            self.discretizer_.fit(values, y)
            n_bins = self._bins_of(values)
            for j, col in enumerate(numeric):
                self.categories_[col] = self._bin_labels(j, n_bins[j])
        for col in np.flatnonzero(self.nominal_):
            series = frame.iloc[:, col]
            if isinstance(series.dtype, pd.CategoricalDtype):
                self.categories_[col] = list(series.cat.categories)
            else:
                self.categories_[col] = _sorted_values(series.to_numpy())
        self._lookup_ = {}
        if self.missing == "value":
            self._add_missing_codes(frame)
        return self

    def _numeric_matrix(self, frame, numeric):
        try:
            return frame.iloc[:, numeric].to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError) as err:
            raise InputError(f"numeric columns could not be read as numbers: {err}") from err

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
            filled = np.where(nan, np.nanmedian(np.where(nan, np.nan, values), axis=0)
                              if values.size else 0.0, values)
            filled = np.where(np.isnan(filled), 0.0, filled)
            codes = np.asarray(self.discretizer_.transform(filled)).astype(np.int64)
            if codes.shape != values.shape:
                raise ValueError("the discretizer must return one ordinal code per value "
                                 "(e.g. KBinsDiscretizer(encode='ordinal'))")
        codes[nan] = -1
        return codes

    def _add_missing_codes(self, frame):
        """With missing="value", give a missing value a code of its own where it occurs."""
        for col in range(frame.shape[1]):
            if self.missing_code_[col] < 0 and frame.iloc[:, col].isna().any():
                self.categories_[col] = [*self.categories_[col], MISSING_LABEL]
                self.missing_code_[col] = len(self.categories_[col]) - 1

    def partial_fit(self, X, y=None):
        """First call fits; later calls append nominal values not seen before.

        Numeric cut points stay those of the first call (or of a user-fitted discretiser).
        Returns the list of columns whose value set grew.
        """
        frame = as_frame(X)
        if not hasattr(self, "n_features_in_"):
            self._fit(frame, y)
            return self
        self._check_columns(frame)
        for col in np.flatnonzero(self.nominal_):
            series = frame.iloc[:, col]
            known = self._category_index(col)
            new = [v for v in _sorted_values(series.to_numpy()) if v not in known]
            if new:
                cats = self.categories_[col]
                if self.missing_code_[col] >= 0:
                    # keep the missing value's code: append new values after it
                    cats = [*cats, *new]
                else:
                    cats = [*cats, *new]
                self.categories_[col] = cats
                self._lookup_.pop(col, None)
        if self.missing == "value":
            self._add_missing_codes(frame)
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

    def _check_columns(self, frame):
        if frame.shape[1] != self.n_features_in_:
            raise InputError(
                f"X has {frame.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input.")
        if hasattr(self, "feature_names_in_") and isinstance(frame, pd.DataFrame):
            if list(frame.columns) != list(self.feature_names_in_):
                fitted, given = set(self.feature_names_in_), set(frame.columns)
                raise InputError(
                    "The feature names should match those that were passed during fit. "
                    f"Missing: {sorted(map(str, fitted - given))[:10]}, unexpected: "
                    f"{sorted(map(str, given - fitted))[:10]}; if the sets are equal, the "
                    "columns are in another order: select them as X[model.feature_names_in_]")

    def transform(self, X):
        """Codes of shape (n_rows, n_attributes), int32; -1 marks missing / unseen."""
        check_is_fitted(self, "categories_")
        frame = as_frame(X)
        self._check_columns(frame)
        codes = np.empty(frame.shape, dtype=np.int32)
        numeric = self.numeric_columns_
        if numeric.size:
            codes[:, numeric] = self._discretize(self._numeric_matrix(frame, numeric))
        for col in np.flatnonzero(self.nominal_):
            series = frame.iloc[:, col]
            lookup = self._category_index(col)
            if isinstance(series.dtype, pd.CategoricalDtype) and \
                    series.cat.categories.equals(lookup):
                codes[:, col] = series.cat.codes.to_numpy()
            else:
                codes[:, col] = lookup.get_indexer(series.to_numpy(dtype=object))
        if self.missing == "value":
            for col in np.flatnonzero(self.missing_code_ >= 0):
                series = frame.iloc[:, col]
                codes[series.isna().to_numpy(), col] = self.missing_code_[col]
        # a value seen in training that the lookup calls unseen is impossible; a value never
        # seen is -1 (missing)
        return codes

    def get_feature_names_out(self, input_features=None):
        check_is_fitted(self, "categories_")
        return np.asarray([str(c) for c in self.column_names_], dtype=object)

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
            "params": {k: v for k, v in self.get_params().items() if k != "discretizer"}
            | {"discretizer": self.discretizer if isinstance(self.discretizer, str) else None},
            "n_features_in": int(self.n_features_in_),
            "column_names": [_json_value(c) for c in self.column_names_],
            "has_feature_names": hasattr(self, "feature_names_in_"),
            "nominal": self.nominal_.tolist(),
            "categories": [[_json_value(v) for v in cats] for cats in self.categories_],
            "missing_code": self.missing_code_.tolist(),
            "cut_points": ([np.asarray(c, dtype=float).tolist()
                            for c in self.discretizer_.cut_points_] if numeric_disc else None),
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
        return enc


def _json_value(v):
    """A category value as a JSON scalar; refuse what JSON cannot carry faithfully."""
    if isinstance(v, (np.generic,)):
        v = v.item()
    if v is None or isinstance(v, (str, bool, int, float)):
        return v
    raise TypeError(f"category value {v!r} of type {type(v).__name__} cannot be stored in the "
                    "model file: convert the column to strings or numbers, or use pickle")
