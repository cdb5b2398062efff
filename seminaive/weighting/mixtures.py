"""MAPLMD and MAPLMG: maximum-a-posteriori weights of linear mixtures of n-dependence
estimators (Cerquides & López de Màntaras 2005, §3 and §6).

Both maximise a supervised posterior over the mixture weights a (on the simplex) under the
Dirichlet prior P(a) ~ prod_u a_u (eq 6), with every sub-model's probabilities taken
leave-one-out (eqs 30-32, :mod:`seminaive.weighting.loo`):

* MAPLMD, the linear mixture of the sub-models' posteriors (eq 1):
  log P(a | D) = sum_x w_x log sum_u a_u P_u(x_C | x) + sum_u log a_u + const (eq 8),
  maximised by expectation-maximisation;
* MAPLMG, the linear mixture of their joints (eq 2):
  log P(a | D) = sum_x w_x log [sum_u a_u P_u(x_C, x) / sum_c sum_u a_u P_u(c, x)]
  + sum_u log a_u + const (eq 10), with gradient (eq 13, divided by P(a | D))
  d/da_u = sum_x w_x [P_u(x_C, x) / sum_v a_v P_v(x_C, x) - P_u(x) / sum_v a_v P_v(x)]
  + 1 / a_u,
  maximised on the simplex.  The paper uses an augmented Lagrangian with BFGS; here the
  simplex is parametrised exactly by a = softmax(theta) and the (unconstrained) problem is
  solved by scipy's L-BFGS-B: the same optimum, since the prior keeps it interior (a_u > 0,
  log a_u -> -inf on the boundary).  At the optimum every gradient component equals the
  Lagrange multiplier, which is sum_u a_u d/da_u = n_par (the number of sub-models).

Sub-models that do not qualify for a row (a parent value missing, or seen fewer than
min_count times without the row) are left out of that row's mixture, which is renormalised
over the qualifying ones, as in prediction.  For the LMG the renormalisation cancels; for the
LMD it is handled in the maximisation step by a tangent minorizer of -log sum_Q a (below), so
each iteration still never decreases the objective, and with every sub-model qualifying it is
the usual EM update a_u = (R_u + 1) / (W + n_par).

One optimiser iteration (function + gradient evaluation, or one EM step) is one pass over the
training source, memory bounded by a chunk (or by ``loo_cache_bytes`` when caching).
"""

import numbers
from typing import Literal

import numpy as np
from scipy.optimize import brentq, minimize
from scipy.special import logsumexp
from sklearn.exceptions import ConvergenceWarning

from .._docs import fill_doc
from .._params import ArrayLike, Choices, Interval, RandomState, Transformer
from ..base import DEFAULT_MAX_TABLE_BYTES, INPUT_PARAMETERS, declare
from ..exceptions import warn_user
from ..parts import GaussianChildren
from ._common import _WeightedAnDE, cell_log_weights, check_saved_weights
from ._kernels import STAT_LMD, STAT_LMG
from .loo import Evaluator, LeaveOneOut

#: default budget of the cached leave-one-out tensor (rows x sub-models x classes x 8 bytes)
DEFAULT_LOO_CACHE_BYTES = 64 * 2**20

def lmd_maximisation(responsibilities, inverse_mass):
    """Maximisation step of MAPLMD: the weights maximising the minorizer

        sum_u (R_u + 1) log a_u - sum_u a_u B_u   subject to sum_u a_u = 1,

    where R_u = sum_x w_x r_xu (expected counts) and B_u = sum_{x: u in Q_x} w_x / S_x(a_old)
    comes from the tangent of -log S_x(a) = -log sum_{u in Q_x} a_u at a_old (convex, so the
    tangent bounds it from below).  Stationarity gives a_u = (R_u + 1) / (lambda + B_u) with
    lambda the root of sum_u a_u = 1 (unique on lambda > -min B).  With every sub-model in
    every Q_x, B_u = W and a_u = (R_u + 1) / (W + n_par) (the EM of Cerquides & López de
    Màntaras 2005 with their eq. 6).
    """
    numer = np.asarray(responsibilities, dtype=np.float64) + 1.0
    mass = np.asarray(inverse_mass, dtype=np.float64)
    lo = -mass.min() + 0.5  # sum numer / (lo + B) >= 1 / 0.5 > 1
    hi = numer.sum() - mass.min() + 1.0  # sum numer / (hi + B) < 1
    lam = brentq(lambda t: np.sum(numer / (t + mass)) - 1.0, lo, hi, xtol=1e-14, rtol=1e-15)
    alpha = numer / (lam + mass)
    return alpha / alpha.sum()


class _Mixture(_WeightedAnDE):
    """Shared fitting of MAPLMD / MAPLMG."""

    _kind = None

    parts = (GaussianChildren(),)

    _parameter_constraints = declare(
        INPUT_PARAMETERS, "numeric", "density",
        n=[Interval(numbers.Integral, 1, None, closed="left")],
        max_iter=[Interval(numbers.Integral, 1, None, closed="left")],
        tol=[Interval(numbers.Real, 0, None, closed="neither")],
        loo_cache_bytes=[Interval(numbers.Real, 0, None, closed="left")])

    def _learn_weights(self, source):
        n_par = self._n_parents()
        # partial_fit (same table) continues from the current weights; fit starts afresh
        start = getattr(self, "weights_", None)
        if getattr(self, "_weights_table", None) is not self.table_ or np.shape(start) != (
                n_par,):
            start = np.full(n_par, 1.0 / n_par)
        else:
            warn_user(f"{type(self).__name__}.partial_fit learns the weights again from "
                          "the leave-one-out estimates of this chunk's rows only (starting "
                          "from the current weights; the counts hold every chunk): fit on all "
                          "the rows gives other weights", UserWarning)
        self._weights_table = self.table_
        self.objective_trace_ = []
        self.n_iter_ = 0
        self.n_passes_ = 0
        if n_par == 1:
            self.weights_ = np.ones(1)
        else:
            loo = LeaveOneOut(self.table_, self._order(), self.smoothing, self.m,
                              self.min_count,
                              self._part(GaussianChildren).loo(self, self._order())
                              if self.needs_values()
                              else None)
            evaluator = Evaluator(loo, source, self._kind, self.loo_cache_bytes)
            self.weights_ = self._optimise(evaluator, np.asarray(start, dtype=np.float64))
            self.n_passes_ = evaluator.n_passes
        return self._cells_from_weights(self.weights_)

    def _set_learned_state(self, arrays):
        unexpected = sorted(set(arrays) - {"weights"})
        if unexpected or "weights" not in arrays:
            raise ValueError(f"expected the learned array 'weights', got {sorted(arrays)}")
        self.weights_ = check_saved_weights(arrays["weights"], self._n_parents(),
                                            f"{type(self).__name__} weights",
                                            strictly_positive=True)
        self._cell_log_weights_ = self._cells_from_weights(self.weights_)
        self._weights_table = self.table_

    def _cells_from_weights(self, weights):
        n = self._effective_order()
        return cell_log_weights(self.table_, n, {n: np.log(weights)})


@fill_doc
class MAPLMD(_Mixture):
    """MAP linear mixture of the sub-models' posteriors (MAPLMD).

    P(y | x) = sum_u a_u P_u(y | x) / sum_u a_u over the qualifying sub-models u, with a the
    maximum-a-posteriori weights under a Dirichlet prior (Cerquides & López de Màntaras
    2005, §3.2 and eq. 6), learnt by expectation-maximisation from leave-one-out posteriors
    (eqs. 30-32).  Every EM iteration is one pass over the training data and never
    decreases the objective; SQUAREM extrapolates from two EM steps (Varadhan & Roland
    2008) and keeps the objective non-decreasing.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {mixture_attributes}
    {fitted_attributes}

    See Also
    --------
    MAPLMG : the mixture of the sub-models' joint distributions.
    BMAAODE : exact Bayesian model averaging of the same sub-models.

    Notes
    -----
    Stops when an iteration raises the log posterior by less than ``tol`` times the total
    row weight, or after ``max_iter`` iterations with a ``ConvergenceWarning``
    (``objective_trace_`` records every accepted iterate).  ``partial_fit`` re-learns the
    weights on the chunk given, starting from the current weights.

    References
    ----------
    {cerquides2005}

    Varadhan, R. & Roland, C. (2008). Simple and globally convergent methods for
    accelerating the convergence of any EM algorithm. *Scandinavian Journal of Statistics*
    35(2), 335-353.

    Examples
    --------
    >>> from seminaive import MAPLMD
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = MAPLMD(max_iter=20).fit(X.iloc[::4], y.iloc[::4])
    >>> model.weights_.shape
    (36,)
    >>> bool(abs(model.weights_.sum() - 1) < 1e-9)
    True
    """

    aggregate = "posterior"
    _kind = STAT_LMD
    _parameter_constraints = {**_Mixture._parameter_constraints,
                              "acceleration": [Choices("squarem"), None]}
    _parameter_docs = {
        "n": "mixture_n",
    }

    def __init__(
        self,
        n: int = 1,
        *,
        max_iter: int = 100,
        tol: float = 1e-7,
        loo_cache_bytes: float = DEFAULT_LOO_CACHE_BYTES,
        smoothing: Literal["m_estimate", "laplace"] = "m_estimate",
        m: float = 1.0,
        min_count: float = 1,
        discretizer: Literal["mdl", "equal_frequency"] | Transformer = "mdl",
        n_bins: int = 3,
        missing: Literal["ignore", "value"] = "ignore",
        categorical_features: Literal["auto", "all", "none"] | ArrayLike = "auto",
        max_table_bytes: float | None = DEFAULT_MAX_TABLE_BYTES,
        random_state: RandomState = None,
        numeric: Literal["discretize", "gaussian"] = "discretize",
        density: Literal["plugin", "student"] = "student",
        acceleration: Literal["squarem"] | None = "squarem",
    ) -> None:
        self.n = n
        self.max_iter = max_iter
        self.tol = tol
        self.loo_cache_bytes = loo_cache_bytes
        self.smoothing = smoothing
        self.m = m
        self.min_count = min_count
        self.discretizer = discretizer
        self.n_bins = n_bins
        self.missing = missing
        self.categorical_features = categorical_features
        self.max_table_bytes = max_table_bytes
        self.random_state = random_state
        self.numeric = numeric
        self.density = density
        self.acceleration = acceleration

    def _optimise(self, evaluate, alpha):
        if self.acceleration == "squarem":
            return self._squarem(evaluate, alpha)
        n_par = alpha.size
        previous = -np.inf
        for iteration in range(self.max_iter):
            stats = evaluate(np.log(alpha))
            objective = stats[0] + np.sum(np.log(alpha))  # eq 8 with the prior of eq 6
            self.objective_trace_.append(float(objective))
            self.n_iter_ = iteration + 1
            if objective - previous <= self.tol * max(stats[-1], 1.0):
                return alpha
            previous = objective
            alpha = lmd_maximisation(stats[1:1 + n_par], stats[1 + n_par:-1])
        _warn_not_converged(self)
        return alpha

    def _squarem(self, evaluate, alpha):
        """SQUAREM (Varadhan & Roland 2008, SqS3) on the EM map, with the objective kept
        non-decreasing by backtracking the step length towards -1 (the EM step F(F(a)))."""
        n_par = alpha.size

        def em(a):
            """Objective at ``a`` and the EM update F(a); one pass."""
            stats = evaluate(np.log(a))
            objective = stats[0] + np.sum(np.log(a))  # eq 8 with the prior of eq 6
            return objective, lmd_maximisation(stats[1:1 + n_par], stats[1 + n_par:-1]), \
                max(stats[-1], 1.0)

        objective, step1, total = em(alpha)
        self.objective_trace_.append(float(objective))
        for iteration in range(self.max_iter):
            self.n_iter_ = iteration + 1
            objective1, step2, _ = em(step1)
            r = step1 - alpha
            v = step2 - step1 - r
            norm_v = np.linalg.norm(v)
            s = -np.linalg.norm(r) / norm_v if norm_v > 0 else -1.0
            s = min(s, -1.0)
            while True:
                candidate = alpha - 2.0 * s * r + s * s * v
                if np.all(candidate > 0):
                    candidate = candidate / candidate.sum()
                    new_objective, new_step, _ = em(candidate)
                    if new_objective >= objective or s == -1.0:
                        break
                elif s == -1.0:  # cannot happen: s = -1 gives the EM iterate F(F(a))
                    candidate = step2
                    new_objective, new_step, _ = em(candidate)
                    break
                s = -1.0 if s > -1.5 else (s - 1.0) / 2.0
            gain = new_objective - objective
            alpha, objective, step1 = candidate, new_objective, new_step
            self.objective_trace_.append(float(objective))
            if gain <= self.tol * total:
                return alpha
        _warn_not_converged(self)
        return alpha


@fill_doc
class MAPLMG(_Mixture):
    """MAP linear mixture of the sub-models' joint distributions (MAPLMG).

    P(y, x) ~ sum_u a_u P_u(y, x) / sum_u a_u over the qualifying sub-models u, with a the
    maximum-a-posteriori weights of the supervised posterior of Cerquides & López de
    Màntaras (2005, eq. 10) under the Dirichlet prior of their eq. 6, computed from leave-one-out
    joints (eqs. 30-32) with the gradient of eq. 13, on the simplex (softmax
    parametrisation, L-BFGS-B).  Webb et al. (2012, Tables 6-7) compare A2DE against it.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {mixture_attributes}
    {fitted_attributes}

    See Also
    --------
    MAPLMD : the mixture of the sub-models' posteriors, learnt by EM.

    Notes
    -----
    The objective is divided by the total row weight for the optimiser, which stops when
    the relative decrease of that objective falls below ``tol`` or its projected gradient
    below ``tol`` (L-BFGS-B ``ftol`` / ``gtol``), or after ``max_iter`` iterations; each
    function-and-gradient evaluation is one pass over the data.  ``partial_fit`` re-learns
    the weights on the chunk given, starting from the current weights.

    References
    ----------
    {cerquides2005}

    {webb2012}

    Examples
    --------
    >>> from seminaive import MAPLMG
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = MAPLMG(max_iter=30).fit(X.iloc[::4], y.iloc[::4])
    >>> model.parent_combinations_.shape
    (36, 1)
    >>> bool((model.weights_ > 0).all())
    True
    """

    _parameter_docs = {
        "n": "mixture_n",
    }

    aggregate = "joint"
    _kind = STAT_LMG

    def __init__(
        self,
        n: int = 1,
        *,
        max_iter: int = 100,
        tol: float = 1e-7,
        loo_cache_bytes: float = DEFAULT_LOO_CACHE_BYTES,
        smoothing: Literal["m_estimate", "laplace"] = "m_estimate",
        m: float = 1.0,
        min_count: float = 1,
        discretizer: Literal["mdl", "equal_frequency"] | Transformer = "mdl",
        n_bins: int = 3,
        missing: Literal["ignore", "value"] = "ignore",
        categorical_features: Literal["auto", "all", "none"] | ArrayLike = "auto",
        max_table_bytes: float | None = DEFAULT_MAX_TABLE_BYTES,
        random_state: RandomState = None,
        numeric: Literal["discretize", "gaussian"] = "discretize",
        density: Literal["plugin", "student"] = "student",
    ) -> None:
        self.n = n
        self.max_iter = max_iter
        self.tol = tol
        self.loo_cache_bytes = loo_cache_bytes
        self.smoothing = smoothing
        self.m = m
        self.min_count = min_count
        self.discretizer = discretizer
        self.n_bins = n_bins
        self.missing = missing
        self.categorical_features = categorical_features
        self.max_table_bytes = max_table_bytes
        self.random_state = random_state
        self.numeric = numeric
        self.density = density

    def _optimise(self, evaluate, alpha):
        scale = []  # total row weight, from the first pass: objective per unit of weight

        def negative_log_posterior(theta):
            log_alpha = theta - logsumexp(theta)
            stats = evaluate(log_alpha)
            if not scale:
                scale.append(max(stats[-1], 1.0))
            objective = stats[0] + np.sum(log_alpha)  # eq 10 with the prior of eq 6
            self.objective_trace_.append(float(objective))
            # a_u * d/da_u of the log posterior (eq 13 / P(a | D), prior term a_u / a_u = 1)
            scaled_gradient = stats[1:-1] + 1.0
            alpha_now = np.exp(log_alpha)
            grad_theta = scaled_gradient - alpha_now * scaled_gradient.sum()
            return -objective / scale[0], -grad_theta / scale[0]

        result = minimize(negative_log_posterior, np.log(alpha), jac=True, method="L-BFGS-B",
                          options={"maxiter": self.max_iter, "ftol": self.tol,
                                   "gtol": self.tol})
        self.n_iter_ = int(result.nit)
        if not result.success:
            warn_user(f"{type(self).__name__}: L-BFGS-B stopped without converging "
                          f"after {self.n_iter_} iterations ({result.message}); raise "
                          "max_iter or tol", ConvergenceWarning)
        theta = result.x
        return np.exp(theta - logsumexp(theta))


def _warn_not_converged(model):
    warn_user(f"{type(model).__name__}: EM stopped at max_iter={model.max_iter} without "
                  f"converging (the last iteration raised the log posterior by more than "
                  f"tol={model.tol} per row); raise max_iter or tol", ConvergenceWarning)


def lmg_log_posterior(evaluate, alpha):
    """log supervised posterior of the LMG (eq 10 with eq 6, up to a constant) and its
    gradient in a (eq 13 / P(a | D)) at weights ``alpha``; ``evaluate`` as in
    :class:`seminaive.weighting.loo.Evaluator` with kind STAT_LMG."""
    alpha = np.asarray(alpha, dtype=np.float64)
    stats = evaluate(np.log(alpha))
    return stats[0] + np.sum(np.log(alpha)), (stats[1:-1] + 1.0) / alpha


def lmd_log_posterior(evaluate, alpha):
    """log supervised posterior of the LMD (eq 8 with eq 6, up to a constant) at ``alpha``;
    ``evaluate`` with kind STAT_LMD."""
    alpha = np.asarray(alpha, dtype=np.float64)
    return evaluate(np.log(alpha))[0] + np.sum(np.log(alpha))
