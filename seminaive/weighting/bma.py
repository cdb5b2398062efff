"""Exact Bayesian model averaging over one-dependence estimators: BMAAODE (Cerquides & López
de Màntaras 2005, §5, eqs. 18-29).

Prior (a *decomposable distribution over ODEs*, definition 1, eqs 18-21): the root is drawn
from a multinomial with hyperparameters alpha_u (eq 18; 1 each here, a uniform prior over
roots); given root u the parameter tables are independent Dirichlets: one over the (x_u, c)
cells with hyperparameters N'_u,C(i, c) (eq 20) and, for every child v and every (x_u = i,
c), one over x_v with hyperparameters N'_v,u,C(j, i, c) (eq 21).

Posterior (theorem 1, eqs 22-27): the same family with N'* = N' + counts (eqs 23-24) and root
weights alpha*_u = alpha_u W_u (eq 22), where W_u is the marginal likelihood of the data
under root u, a product of Dirichlet-multinomial normalisers (eq 25):

    W_u = Gamma(N'_u) / Gamma(N'*_u)  prod_{c, i} [ Gamma(N'*_u,C(i, c)) / Gamma(N'_u,C(i, c))
          prod_{v != u} ( Gamma(N'^{s(v)}_u,C(i, c)) / Gamma(N'*^{s(v)}_u,C(i, c))
                          prod_j Gamma(N'*_v,u,C(j, i, c)) / Gamma(N'_v,u,C(j, i, c)) ) ]

with N'_u = sum_{c, i} N'_u,C(i, c) (eq 26) and N'^{s(v)}_u,C(i, c) = sum_j N'_v,u,C(j, i, c)
(eq 27); computed in log space with ``scipy.special.gammaln``.

Prediction (theorem 2, eqs 28-29): P(x) = sum_u alpha*_u P(x | root u) / sum_u alpha*_u, where
P(x | root u) = N'*_u,C(x_u, x_C) / N'*_u  prod_v N'*_v,u,C(x_v, x_u, x_C) /
N'*^{s(v)}_u,C(x_u, x_C) is the ODE with posterior-mean parameters.  With every
hyperparameter 1 (the paper's choice, ``smoothing="laplace"``) these are the Laplace estimates
of eqs 15-16; ``smoothing="m_estimate"`` uses N'_u,C = m / (k |X_u|) and N'_v,u,C = m / |X_v|,
whose posterior means are the m-estimates.  BMAAODE is therefore AODE with the posterior root
probabilities as weights (scored by the weighted kernel path).

Gaussian children (``numeric="gaussian"``, beyond the paper): a numeric child v of root u is
given, in every cell (x_u, c), a normal-inverse-gamma prior centred on the estimator's
class-level estimate (mu0, var0) of v (an empirical-Bayes prior, as the estimates' shrinkage
target is),

    mu | sigma^2 ~ N(mu0, sigma^2 / kappa),   sigma^2 ~ Inv-Gamma(kappa / 2, kappa var0 / 2),

with kappa = m pseudo-rows (1 with Laplace smoothing).  Its posterior has mean
(S1 + kappa mu0) / (N + kappa) and 1 / E[1 / sigma^2] = (SS + kappa var0 + N kappa /
(N + kappa) (xbar - mu0)^2) / (N + kappa): exactly the estimates the model predicts with
(:meth:`seminaive.tables.MomentTable.estimates`).  The cell's factor of W_u is the conjugate
marginal likelihood (e.g. Murphy 2007)

    Gamma(a_N) / Gamma(a_0) * b_0^a_0 / b_N^a_N * (kappa / (kappa + N))^(1/2) * (2 pi)^(-N/2)

with a_0 = kappa / 2, b_0 = kappa var0 / 2, a_N = a_0 + N / 2 and b_N = b_0 + SS / 2 +
kappa N (xbar - mu0)^2 / (2 (kappa + N)), replacing the child's Dirichlet; with a value for
missing (``missing="value"``) the Dirichlet over (missing, observed) with hyperparameters
(m / |X_v|, m (|X_v| - 1) / |X_v|), whose posterior means are the model's P(missing) and
1 - P(missing), is kept besides.  A numeric root's values are densities too: every row's
factor N'*_u,C(x_u, c) / N'*_u is divided by the width of its bin, so log W_u loses
sum_bins N(bin) log width(bin) (the widths of :meth:`seminaive.tables.MomentTable.
bin_log_widths`), and every W_u is a density of the same data.  Not exact: the variance
floor of the estimates ((0.01 sd)^2) is not part of the prior, and the class-level
estimates it is centred on are taken from all the data (empirical Bayes).  With missing
values W_u covers the rows in which root u is observed (as for the nominal children), so
the roots' evidences cover different rows and, unlike every other part of the model, their
weights then depend on the units of a numeric column.

Missing values: the paper assumes complete data.  With missing="ignore" each Dirichlet sees
the rows in which its variables are observed (the model's own estimates); W_u is then the
likelihood of the observed entries, which is exact for complete data only.
"""

from typing import Literal

import numpy as np
from scipy.special import gammaln, logsumexp

from .._docs import fill_doc
from .._params import ArrayLike, RandomState, Transformer
from ..base import DEFAULT_MAX_TABLE_BYTES, INPUT_PARAMETERS, declare
from ..kernels.smoothing import Smoothing, pseudo_counts
from ..parts import GaussianChildren
from ._common import _WeightedAnDE, cell_log_weights, effective_order, log_sum_text

#: the kernels' pseudo-counts (:func:`~seminaive.kernels.smoothing.pseudo_counts`) computed
#: in Python, as the same floating-point operations: numba would compile the kernel once
#: for an integer and once for a float number of cells, for a few scalars
_pseudo_counts = pseudo_counts.py_func


def _dirichlet_log_evidence(counts, prior, axis):
    """sum over the Dirichlets along ``axis`` of log Gamma(A) - log Gamma(A + N) + sum_j
    [log Gamma(a_j + N_j) - log Gamma(a_j)], with a_j = prior, A = prior * size(axis)."""
    total_prior = prior * counts.shape[axis]
    total = counts.sum(axis=axis)
    return (np.sum(gammaln(total_prior) - gammaln(total_prior + total))
            + np.sum(gammaln(prior + counts) - gammaln(prior)))


def log_marginal_likelihoods(table, n=1, smoothing="m_estimate", m=1.0):
    """log W_s (Cerquides & López de Màntaras 2005, eq. 25) of every sub-model with parents s of
    order n.

    Root table: one Dirichlet over the (x_s, c) cells (observed parent values); child v: one
    Dirichlet over x_v for every (x_s, c).  Hyperparameters: 1 (Laplace) or m / (k prod|X_s|)
    and m / |X_v| (m-estimate).
    """
    n = effective_order(table, n)
    k = table.n_classes
    laplace = Smoothing.from_params(smoothing, m).laplace
    out = np.zeros(table.n_combinations(n))
    a = table.n_attributes
    for j, g in enumerate(table.combination_range(n)):
        members = list(table.members(g))
        n_vals = [int(table.sizes[i]) - 1 for i in members]
        root = table.block(members)[(slice(1, None),) * n].reshape(-1)
        prod_values = float(np.prod(np.maximum(n_vals, 1)))
        root_prior = _pseudo_counts(k * prod_values, m, laplace)[0]
        # the (x_s, c) cells form one Dirichlet (eq 20): evidence along a flattened axis
        log_w = _dirichlet_log_evidence(root[None, :], root_prior, axis=1)
        for v in range(a):
            if v in members:
                continue
            block = table.block(sorted(members + [v]))
            axis = sorted(members + [v]).index(v)
            block = np.moveaxis(block, axis, -2)  # (..parents.., x_v, c)
            child = block[(slice(1, None),) * n + (slice(1, None),)]
            n_child = max(int(table.sizes[v]) - 1, 1)
            child_prior = _pseudo_counts(n_child, m, laplace)[0]
            log_w += _dirichlet_log_evidence(child, child_prior, axis=-2)  # eq 21
        out[j] = log_w
    return out


def gaussian_log_evidence(sums, mu0, var0, kappa):
    """Summed log marginal likelihood of the values of cells under the normal-inverse-gamma
    prior of the module docstring (cells without rows contribute 0).

    Parameters
    ----------
    sums : array-like of shape (..., 3)
        Weight N, sum S1 and sum of squares S2 of the values of each cell.
    mu0, var0 : float or array-like
        Prior centre and scale of each cell (broadcast against ``sums[..., 0]``).
    kappa : float
        Pseudo-rows of the prior (m; 1 with Laplace smoothing).

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> one = gaussian_log_evidence(np.array([1.0, 2.0, 4.0]), 0.0, 1.0, 1e9)
    >>> bool(np.isclose(one, norm.logpdf(2.0)))  # kappa -> inf: the prior's Gaussian
    True
    """
    sums = np.asarray(sums, dtype=np.float64)
    n, s1, s2 = sums[..., 0], sums[..., 1], sums[..., 2]
    n_pos = np.where(n > 0, n, 1.0)
    xbar = np.where(n > 0, s1 / n_pos, 0.0)
    ss = np.maximum(s2 - n * xbar * xbar, 0.0)
    a0 = kappa / 2.0
    b0 = kappa * np.asarray(var0, dtype=np.float64) / 2.0
    a_n = a0 + n / 2.0
    b_n = b0 + ss / 2.0 + kappa * n * (xbar - mu0) ** 2 / (2.0 * (kappa + n))
    out = (gammaln(a_n) - gammaln(a0) + a0 * np.log(b0) - a_n * np.log(b_n)
           + 0.5 * (np.log(kappa) - np.log(kappa + n)) - 0.5 * n * np.log(2.0 * np.pi))
    return float(np.sum(np.where(n > 0, out, 0.0)))


def gaussian_log_marginal_likelihoods(table, kappa, log_width, missing_code,
                                      smoothing="m_estimate", m=1.0):
    """log W_u of every root u (order 1) with the numeric attributes of the table's moments
    as Gaussian children (see the module docstring).

    The nominal children's and the root's Dirichlets as :func:`log_marginal_likelihoods`,
    the numeric children's normal-inverse-gamma evidence (:func:`gaussian_log_evidence`;
    and, with a value for missing, the Dirichlet over missing / observed), and a numeric
    root's bin widths.

    Parameters
    ----------
    table : FrequencyTable
        Counts of order 2 with moments (:meth:`~seminaive.tables.FrequencyTable.
        attach_moments`, parents of order <= 1).
    kappa : float
        Pseudo-rows of the Gaussian prior (m; 1 with Laplace smoothing).
    log_width : ndarray of shape (n_attributes, max code + 1)
        log widths of the bins (:meth:`~seminaive.tables.MomentTable.bin_log_widths`).
    missing_code : ndarray of int
        Storage code of every attribute's value for missing (0: none).
    smoothing : {"m_estimate", "laplace"}, default="m_estimate"
    m : float, default=1.0

    Returns
    -------
    ndarray of shape (n_attributes,)

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from seminaive import BMAAODE
    >>> X, y = load_iris(return_X_y=True)
    >>> model = BMAAODE(numeric="gaussian").fit(X, y)
    >>> model.log_marginal_likelihoods_.shape
    (4,)
    """
    moments = table.moments
    numeric = {int(c) for c in moments.numeric}
    k = table.n_classes
    laplace = Smoothing.from_params(smoothing, m).laplace
    mean, var = moments.estimates(kappa)
    a = table.n_attributes
    out = np.zeros(a)
    for u in range(a):
        n_vals = max(int(table.sizes[u]) - 1, 1)
        root = table.block([u])[1:]
        root_prior = _pseudo_counts(k * n_vals, m, laplace)[0]
        log_w = _dirichlet_log_evidence(root.reshape(1, -1), root_prior, axis=1)
        log_w -= float(np.sum(root.sum(axis=1) * log_width[u, 1:int(table.sizes[u])]))
        for v in range(a):
            if v == u:
                continue
            members = sorted((u, v))
            block = np.moveaxis(table.block(members), members.index(v), -2)  # (x_u, x_v, c)
            child = block[1:, 1:]
            n_child = max(int(table.sizes[v]) - 1, 1)
            if v not in numeric:
                child_prior = _pseudo_counts(n_child, m, laplace)[0]
                log_w += _dirichlet_log_evidence(child, child_prior, axis=-2)
                continue
            mc = int(missing_code[v])
            if mc > 0:  # P(missing) and 1 - P(missing): a two-category Dirichlet
                two = np.stack([child[:, mc - 1], child.sum(axis=1) - child[:, mc - 1]],
                               axis=1)
                unit = _pseudo_counts(n_child, m, laplace)[0]
                log_w += _two_category_evidence(two, unit, unit * (n_child - 1))
            e0 = moments.estimate_start((), v)
            e1 = moments.index[((u,), v)]
            log_w += gaussian_log_evidence(moments.block(e1)[1:], mean[e0:e0 + k],
                                           var[e0:e0 + k], kappa)
        out[u] = log_w
    return out


def _two_category_evidence(counts, prior_first, prior_second):
    """Dirichlet-multinomial log evidence of (first, second) counts along axis 1 with
    unequal hyperparameters."""
    total_prior = prior_first + prior_second
    total = counts.sum(axis=1)
    return float(np.sum(gammaln(total_prior) - gammaln(total_prior + total)
                        + gammaln(prior_first + counts[:, 0]) - gammaln(prior_first)
                        + gammaln(prior_second + counts[:, 1]) - gammaln(prior_second)))


@fill_doc
class BMAAODE(_WeightedAnDE):
    """Exact Bayesian model averaging over the one-dependence estimators of AODE.

    The posterior probability of each root (super-parent) u is proportional to its marginal
    likelihood W_u under the decomposable conjugate prior of Cerquides & López de Màntaras
    (2005, eqs. 22, 25); the prediction averages the ODEs with posterior-mean parameters with these
    weights (eqs. 28-29).  ``smoothing="laplace"`` is the paper's prior (every
    hyperparameter 1); the default m-estimate is the prior of equivalent sample size m.
    ``min_count=0`` is eq. 28 exactly (every ODE takes part); with ``min_count >= 1`` an ODE
    whose parent value was never seen is left out and the others renormalised, as in AODE.
    With ``numeric="gaussian"`` the marginal likelihood of a Gaussian child is the
    normal-inverse-gamma evidence of the prior whose posterior gives the model's estimates,
    and a numeric root's bins count as densities (see the module ``seminaive.weighting.bma``).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    log_weights_ : ndarray of shape (n_features,)
        Log posterior probability of each root (normalised; log-sum-exp 0).
    weights_ : ndarray of shape (n_features,)
        ``exp(log_weights_)`` (may underflow to 0: the posterior concentrates quickly).
    log_marginal_likelihoods_ : ndarray of shape (n_features,)
        log W_u (eq. 25).
    {fitted_attributes}

    See Also
    --------
    MAPLMG, MAPLMD : maximum-a-posteriori mixture weights instead of model averaging.

    References
    ----------
    {cerquides2005}

    Examples
    --------
    >>> import numpy as np
    >>> from seminaive import BMAAODE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = BMAAODE().fit(X, y)
    >>> bool(np.isclose(np.exp(model.log_weights_).sum(), 1.0))
    True
    """

    n = 1
    aggregate = "joint"
    _parameter_constraints = declare(INPUT_PARAMETERS, "numeric", "density")

    def __init__(
        self,
        *,
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

    parts = (GaussianChildren(),)

    def _learn_weights(self, source):
        if self.needs_values():
            gaussian = self._part(GaussianChildren)
            self.log_marginal_likelihoods_ = gaussian_log_marginal_likelihoods(
                self.table_, gaussian.kappa(self), gaussian.bin_log_widths(self),
                gaussian.missing_codes(self), self.smoothing, self.m)
        else:
            self.log_marginal_likelihoods_ = log_marginal_likelihoods(
                self.table_, 1, self.smoothing, self.m)
        # alpha*_u = alpha_u W_u with alpha_u = 1 (eq 22), normalised in log space
        self.log_weights_ = self.log_marginal_likelihoods_ - logsumexp(
            self.log_marginal_likelihoods_)
        self.weights_ = np.exp(self.log_weights_)
        return self._cells_from_log_weights(self.log_weights_)

    def _cells_from_log_weights(self, log_weights):
        return cell_log_weights(self.table_, self._effective_order(),
                                {self._effective_order(): log_weights})

    def _learned_state(self):
        return {"log_weights": self.log_weights_,
                "log_marginal_likelihoods": self.log_marginal_likelihoods_}

    def _set_learned_state(self, arrays):
        if set(arrays) != {"log_weights", "log_marginal_likelihoods"}:
            raise ValueError("expected the learned arrays 'log_weights' and "
                             f"'log_marginal_likelihoods', got {sorted(arrays)}")
        n_par = self._n_parents()
        log_w = np.asarray(arrays["log_weights"], dtype=np.float64)
        log_ml = np.asarray(arrays["log_marginal_likelihoods"], dtype=np.float64)
        if log_w.shape != (n_par,) or log_ml.shape != (n_par,):
            raise ValueError(f"BMAAODE weights must have shape ({n_par},), got {log_w.shape} "
                             f"and {log_ml.shape}")
        if np.any(np.isnan(log_w)):
            raise ValueError("BMAAODE log weights contain NaN")
        if np.any(log_w == np.inf):
            raise ValueError("BMAAODE log weights contain +inf (an infinite weight)")
        if not np.all(np.isfinite(log_ml)):
            raise ValueError("BMAAODE log marginal likelihoods contain NaN or infinite values")
        if abs(logsumexp(log_w)) > 1e-9:
            raise ValueError(f"BMAAODE weights sum to {log_sum_text(log_w)}, not 1")
        self.log_weights_, self.log_marginal_likelihoods_ = log_w, log_ml
        self.weights_ = np.exp(log_w)
        self._cell_log_weights_ = self._cells_from_log_weights(log_w)
