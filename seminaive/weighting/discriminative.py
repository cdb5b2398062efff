"""Discriminatively learned weights on generative log-probabilities: WANBIA-C and ALR.

Both first count (one pass, as every learner), then learn weights w on the smoothed
log-probabilities of the generative model by minimising the L2-regularised conditional log
loss with L-BFGS (scipy's L-BFGS-B, no bounds):

    L(w) = sum_r u_r (-log P_w(y_r | x_r)) + (l2 / 2) sum_j (w_j - 1)^2,

with u_r the row weights and P_w(y | x) proportional to exp(score_w(y, x)), a score linear in
the weights (:mod:`._discriminative_kernels`).  L is convex; at w = 1 the model is the
generative one (naive Bayes for WANBIA-C; AnJE, the geometric mean of AnDE's sub-models,
for ALR).  Objective and gradient are one pass over the training source
(``source.map_reduce``), memory bounded by a chunk, on arrays, files and Dask alike.
"""

import numbers
import operator
from typing import Literal

import numpy as np
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning

from .._docs import fill_doc
from .._params import ArrayLike, Choices, Interval, RandomState, Transformer
from ..base import (
    DEFAULT_MAX_TABLE_BYTES,
    INPUT_PARAMETERS,
    _BaseAnDE,
    declare,
)
from ..exceptions import warn_user
from ..kernels._jit import get_num_threads
from . import _discriminative_kernels as dk

#: default budget of the rows' weighted terms kept between optimiser iterations
DEFAULT_CACHE_BYTES = 256 * 2**20

#: the declarations of the optimiser's parameters (WANBIAC and ALR)
_OPTIMISER = dict(l2=[Interval(numbers.Real, 0, None, closed="left")],
                  max_iter=[Interval(numbers.Integral, 0, None, closed="left")],
                  tol=[Interval(numbers.Real, 0, None, closed="neither")],
                  non_negative=["boolean"],
                  cache_bytes=[Interval(numbers.Real, 0, None, closed="left")])


class _Discriminative(_BaseAnDE):
    """Shared fitting of the discriminatively weighted models (see the module docstring)."""

    aggregate = "joint"  # not a parameter: the score is the weighted geometric mean
    _granularities = ()


    def partial_fit(self, X, y, classes=None, sample_weight=None):
        if hasattr(self, "coef_"):
            warn_user(f"{type(self).__name__}.partial_fit re-learns the weights from this "
                          "chunk only (the counts hold every chunk): the model differs from "
                          "fit on all the rows", UserWarning)
        return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    partial_fit.__doc__ = _BaseAnDE.partial_fit.__doc__

    # ----------------------------------------------------------------- the weight layout
    def _layout(self):
        """Everything the kernels read, and the weight vector's length."""
        table = self.table_
        n = min(self._order(), table.max_order)
        tables = table.log_tables(n, self.smoothing, self.m, self.min_count)
        _, offsets, combos, _, sizes, k, of, _, sub_index = table.layout()
        n_joint = table.count_start(tables.n + 1)
        mode = dk.WEIGHT_MODES[self.weights]
        size = dk.n_weights(mode, table.combination_start(tables.n + 1), n_joint,
                            int(tables.lc_offsets[-1]), table.n_attributes, k)
        args = dk.WeightedModel(tables.n, table.max_order, combos, offsets, sizes, k, of,
                                sub_index, tables.log_joint, tables.log_conditional,
                                tables.lc_offsets, mode, n_joint)
        parts = dk.max_parts(of, tables.n, table.n_attributes, mode)
        return args, size, parts

    def _build_cache(self, source):
        """The rows' weighted terms kept in memory (one pass) when they fit ``cache_bytes``
        (then iterations read them instead of the data); None otherwise."""
        args, size, parts = self._layout()
        k = self.table_.n_classes
        n_rows = getattr(source, "n_rows", None)
        if n_rows is None or n_rows * parts * k * 16 > self.cache_bytes:
            return None

        def chunk(codes, y, w):
            n = codes.shape[0]
            idx = np.empty((n, parts, k), dtype=np.int64)
            val = np.empty((n, parts, k))
            count = np.empty(n, dtype=np.int64)
            if n:
                dk.build_parts(np.ascontiguousarray(codes), args, idx, val, count)
            return [(idx, val, count, np.asarray(y, dtype=np.int64),
                     None if w is None else np.asarray(w, dtype=np.float64))]

        return source.map_reduce(chunk, operator.add) or []

    def _loss_and_gradient(self, source, theta, cache=None):
        """(sum of row-weighted log losses, gradient, total row weight): one pass over
        ``source``, or over the kept terms ``cache``."""
        args, size, parts = self._layout()
        if cache is not None:
            loss, grad, total = 0.0, np.zeros(size), 0.0
            for idx, val, count, y, w in cache:
                blocks = max(1, min(len(y), get_num_threads()))
                part_loss = np.zeros(blocks)
                part_grad = np.zeros((blocks, size))
                dk.cached_loss_and_gradient(idx, val, count, y,
                                            w if w is not None else np.zeros(1),
                                            w is not None, theta, blocks, part_loss,
                                            part_grad)
                loss += part_loss.sum()
                grad += part_grad.sum(axis=0)
                total += float(len(y) if w is None else np.sum(w))
            return loss, grad, total

        def chunk(codes, y, w):
            blocks = max(1, min(codes.shape[0], get_num_threads()))
            loss = np.zeros(blocks)
            grad = np.zeros((blocks, size))
            weighted = w is not None
            if codes.shape[0]:
                dk.loss_and_gradient(
                    np.ascontiguousarray(codes), np.ascontiguousarray(y, dtype=np.int64),
                    np.ascontiguousarray(w, dtype=np.float64) if weighted else np.zeros(1),
                    weighted, args, theta, parts, blocks, loss, grad)
            total = float(codes.shape[0] if w is None else np.sum(w))
            return np.concatenate([[loss.sum(), total], grad.sum(axis=0)])

        out = source.map_reduce(chunk)
        if out is None:
            return 0.0, np.zeros(size), 0.0
        return float(out[0]), out[2:], float(out[1])

    def _learn_from_counts(self, source):
        _, size, _ = self._layout()
        start = getattr(self, "coef_", None)
        if start is None or np.shape(start) != (size,):
            start = np.ones(size)
        self.n_passes_ = 0
        l2 = float(self.l2)
        scale = [1.0]
        cache = self._build_cache(source) if self.max_iter > 0 else None
        if cache is not None:
            self.n_passes_ += 1

        def objective(theta):
            loss, grad, total = self._loss_and_gradient(source, theta, cache)
            if cache is None:
                self.n_passes_ += 1
            scale[0] = max(total, 1e-300)
            diff = theta - 1.0
            value = (loss + 0.5 * l2 * diff @ diff) / scale[0]
            return value, (grad + l2 * diff) / scale[0]

        if self.max_iter == 0:
            self.coef_ = np.asarray(start, dtype=np.float64).copy()
            self.n_iter_ = 0
            self.objective_ = float(objective(self.coef_)[0])
            return
        start = np.asarray(start, dtype=np.float64)
        bounds = None
        if self.non_negative:
            bounds = [(0.0, None)] * start.size
            start = np.maximum(start, 0.0)
        result = minimize(objective, start, jac=True, method="L-BFGS-B", bounds=bounds,
                          options={"maxiter": int(self.max_iter), "gtol": float(self.tol),
                                   "ftol": float(self.tol) * 1e-3})
        self.coef_ = result.x
        self.n_iter_ = int(result.nit)
        self.objective_ = float(result.fun)
        if result.status != 0:
            warn_user(f"{type(self).__name__}: L-BFGS stopped without converging after "
                          f"{self.n_iter_} iterations ({result.message}); raise max_iter or "
                          f"tol, or scale l2", ConvergenceWarning)

    def _scores(self, X):
        codes = np.ascontiguousarray(self._storage_codes(X))
        args, size, parts = self._layout()
        out = np.empty((codes.shape[0], self.table_.n_classes), dtype=np.float64)
        if codes.shape[0]:
            dk.weighted_scores(codes, args, self.coef_, parts, out)
        return out

    def _learned_state(self):
        return {"coef": np.asarray(self.coef_, dtype=np.float64),
                "fit_info": np.array([self.n_iter_, self.objective_], dtype=np.float64)}

    def _set_learned_state(self, arrays):
        if set(arrays) != {"coef", "fit_info"}:
            raise ValueError(f"expected the learned arrays 'coef' and 'fit_info', got "
                             f"{sorted(arrays)}")
        _, size, _ = self._layout()
        coef, info = np.asarray(arrays["coef"]), np.asarray(arrays["fit_info"])
        if coef.shape != (size,) or coef.dtype != np.float64 or not np.all(np.isfinite(coef)):
            raise ValueError(f"coef must hold {size} finite float64 weights")
        if info.shape != (2,):
            raise ValueError("bad fit_info")
        self.coef_ = coef
        self.n_iter_ = int(info[0])
        self.objective_ = float(info[1])


@fill_doc
class WANBIAC(_Discriminative):
    """Naive Bayes with discriminatively learnt weights (WANBIA-C).

    P(y | x) is proportional to exp(w_y log P(y) + sum_i w_{i, x_i, y} log P(x_i | y)), the
    probabilities estimated from the counts as by :class:`~seminaive.NaiveBayes` and the
    weights learnt by minimising the L2-regularised conditional log loss with L-BFGS:

    * ``weights="attribute"``: one weight per attribute, w_{i, x_i, y} = w_i, the prior
      unweighted (Zaidi, Cerquides, Carman & Webb 2013, WANBIA-C);
    * ``weights="parameter"``: one weight per probability, for P(y) and every P(x_i | y)
      (the WANBIA-C form of Zaidi et al. 2017 for naive Bayes, equivalent to logistic
      regression on the attribute values, preconditioned by the generative estimates).

    With every weight 1 the model is naive Bayes.  Each L-BFGS function evaluation is one
    pass over the training data.  Departures from the papers: the penalty pulls the weights
    towards 1 (the generative model) rather than 0, and the weights are unbounded unless
    ``non_negative``.

    :meth:`partial_fit` adds the chunk to the counts and re-learns the weights from the chunk
    only (starting from the current weights), so after more than one chunk it differs from
    :meth:`fit` on all of them; it warns when that happens.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {discriminative_attributes}
    {fitted_attributes}

    See Also
    --------
    ALR : the same for the sub-models of AODE, A2DE, ...
    seminaive.NaiveBayes : the generative model (every weight 1).

    References
    ----------
    {zaidi2013}

    {zaidi2017}

    Examples
    --------
    >>> from seminaive import WANBIAC
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = WANBIAC().fit(X, y)
    >>> model.coef_.shape  # one weight per attribute
    (36,)
    >>> bool(model.score(X, y) > 0.9)
    True
    """

    _granularities = ("attribute", "parameter")
    _parameter_constraints = declare(INPUT_PARAMETERS, weights=[Choices(*_granularities)],
                                     **_OPTIMISER)
    _parameter_docs = {
        "weights": """
        weights : {"attribute", "parameter"}, default="attribute"
            Weight granularity (above).
        """,
        "max_iter": "max_iter_lbfgs",
        "tol": "tol_lbfgs",
    }

    def __init__(
        self,
        weights: Literal["attribute", "parameter"] = "attribute",
        *,
        l2: float = 1.0,
        max_iter: int = 200,
        tol: float = 1e-6,
        non_negative: bool = False,
        cache_bytes: float = DEFAULT_CACHE_BYTES,
        smoothing: Literal["m_estimate", "laplace"] = "m_estimate",
        m: float = 1.0,
        min_count: float = 1,
        discretizer: Literal["mdl", "equal_frequency"] | Transformer = "mdl",
        n_bins: int = 3,
        missing: Literal["ignore", "value"] = "ignore",
        categorical_features: Literal["auto", "all", "none"] | ArrayLike = "auto",
        max_table_bytes: float | None = DEFAULT_MAX_TABLE_BYTES,
        random_state: RandomState = None,
    ) -> None:
        self.weights = weights
        self.l2 = l2
        self.max_iter = max_iter
        self.tol = tol
        self.non_negative = non_negative
        self.cache_bytes = cache_bytes
        self.smoothing = smoothing
        self.m = m
        self.min_count = min_count
        self.discretizer = discretizer
        self.n_bins = n_bins
        self.missing = missing
        self.categorical_features = categorical_features
        self.max_table_bytes = max_table_bytes
        self.random_state = random_state

    def _order(self):
        return 0


@fill_doc
class ALR(_Discriminative):
    """Discriminatively weighted AnJE: AODE's, A2DE's... sub-models with learnt weights (ALR).

    The score of class y is the weighted mean of the qualifying sub-models' log joints,
    (1 / S) sum_s w_s log [P(y, x_s) prod_i P(x_i | y, x_s)] over the S qualifying
    sub-models (the geometric mean of AnDE's sub-models, AnJE, when every weight is 1; rows
    with no qualifying parent cascade to order n - 1 as in AnDE), with the weights learnt by
    minimising the L2-regularised
    conditional log loss with L-BFGS.  Being linear in the weights, the objective is convex;
    this is the weighted AnJE of Zaidi et al. (2016, 2017), at the granularities of
    scikit-bayes's ``ALR``:

    * ``"model"``: one weight per sub-model;
    * ``"parent_value"``: one per sub-model and parent values x_s;
    * ``"class"``: one per sub-model and class;
    * ``"parent_value_class"``: one per sub-model, parent values and class;
    * ``"attribute"``: the parent joint unweighted, one weight per child attribute;
    * ``"parameter"``: one per probability read (the "extended" WANBIA-C parametrisation).

    Each L-BFGS function evaluation is one pass over the training data (or the rows' terms
    are kept in memory, ``cache_bytes``).  The penalty pulls the weights towards 1 (the
    generative model); they are unbounded unless ``non_negative`` (scikit-bayes's ``ALR``
    bounds them below by 0).  :meth:`partial_fit`
    re-learns the weights from the chunk only (starting from the current weights) and warns
    that the result differs from :meth:`fit` on all the chunks.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {discriminative_attributes}
    {fitted_attributes}

    See Also
    --------
    WANBIAC : the same for naive Bayes, with attribute weights.
    seminaive.AnDE : the generative model averaging the sub-models' joints.

    References
    ----------
    {zaidi2016}

    {zaidi2017}

    {webb2012}

    Examples
    --------
    >>> from seminaive import ALR
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = ALR(n=1, weights="class").fit(X, y)
    >>> model.coef_.shape  # (1 + 36 parent combinations of orders 0 and 1) x 2 classes
    (74,)
    >>> bool(model.score(X, y) > 0.9)
    True
    """

    _granularities = ("model", "parent_value", "class", "parent_value_class", "attribute",
                      "parameter")
    _parameter_constraints = declare(INPUT_PARAMETERS,
                                     n=[Interval(numbers.Integral, 0, None, closed="left")],
                                     weights=[Choices(*_granularities)], **_OPTIMISER)
    _parameter_docs = {
        "n": """
        n : int, default=1
            Parent order of the sub-models (0: one naive Bayes model, 1: AODE's, 2: A2DE's).
        """,
        "weights": """
        weights : {"model", "parent_value", "class", "parent_value_class", "attribute", \
"parameter"}, default="model"
            Weight granularity (above).
        """,
        "max_iter": "max_iter_lbfgs",
        "tol": "tol_lbfgs",
    }

    def __init__(
        self,
        n: int = 1,
        weights: Literal["model", "parent_value", "class", "parent_value_class", "attribute",
                         "parameter"] = "model",
        *,
        l2: float = 1.0,
        max_iter: int = 200,
        tol: float = 1e-6,
        non_negative: bool = False,
        cache_bytes: float = DEFAULT_CACHE_BYTES,
        smoothing: Literal["m_estimate", "laplace"] = "m_estimate",
        m: float = 1.0,
        min_count: float = 1,
        discretizer: Literal["mdl", "equal_frequency"] | Transformer = "mdl",
        n_bins: int = 3,
        missing: Literal["ignore", "value"] = "ignore",
        categorical_features: Literal["auto", "all", "none"] | ArrayLike = "auto",
        max_table_bytes: float | None = DEFAULT_MAX_TABLE_BYTES,
        random_state: RandomState = None,
    ) -> None:
        self.n = n
        self.weights = weights
        self.l2 = l2
        self.max_iter = max_iter
        self.tol = tol
        self.non_negative = non_negative
        self.cache_bytes = cache_bytes
        self.smoothing = smoothing
        self.m = m
        self.min_count = min_count
        self.discretizer = discretizer
        self.n_bins = n_bins
        self.missing = missing
        self.categorical_features = categorical_features
        self.max_table_bytes = max_table_bytes
        self.random_state = random_state

    def _order(self):
        return self.n

