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

Missing values: the paper assumes complete data.  With missing="ignore" each Dirichlet sees
the rows in which its variables are observed (the model's own estimates); W_u is then the
likelihood of the observed entries, which is exact for complete data only.
"""

import numpy as np
from scipy.special import gammaln, logsumexp

from .._docs import fill_doc
from ..base import DEFAULT_MAX_TABLE_BYTES, assign_params
from ._common import _WeightedAnDE, cell_log_weights, effective_order


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
    laplace = smoothing == "laplace"
    out = np.zeros(table.n_combinations(n))
    a = table.n_attributes
    for j, g in enumerate(table.combination_range(n)):
        members = list(table.members(g))
        n_vals = [int(table.sizes[i]) - 1 for i in members]
        root = table.block(members)[(slice(1, None),) * n].reshape(-1)
        prod_values = float(np.prod(np.maximum(n_vals, 1)))
        root_prior = 1.0 if laplace else m / (k * prod_values)
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
            child_prior = 1.0 if laplace else m / n_child
            log_w += _dirichlet_log_evidence(child, child_prior, axis=-2)  # eq 21
        out[j] = log_w
    return out


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

    Parameters
    ----------
    {input_parameters}

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

    def __init__(self, *, smoothing="m_estimate", m=1.0, min_count=1, discretizer="mdl",
                 n_bins=3, missing="ignore", categorical_features="auto",
                 max_table_bytes=DEFAULT_MAX_TABLE_BYTES, random_state=None):
        assign_params(self, locals())

    def _learn_weights(self, source):
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
        if np.any(np.isnan(log_w)) or np.any(log_w == np.inf) or not np.all(
                np.isfinite(log_ml)):
            raise ValueError("BMAAODE log weights contain NaN or +inf")
        if abs(logsumexp(log_w)) > 1e-9:
            raise ValueError(f"BMAAODE weights sum to {np.exp(logsumexp(log_w))!r}, not 1")
        self.log_weights_, self.log_marginal_likelihoods_ = log_w, log_ml
        self.weights_ = np.exp(log_w)
        self._cell_log_weights_ = self._cells_from_log_weights(log_w)
