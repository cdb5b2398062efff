"""Hidden naive Bayes (Jiang, Zhang & Cai 2009; Weka's weka.classifiers.bayes.HNB).

Every attribute has a hidden parent that mixes the one-dependence estimates given each other
attribute:

    P(x_i | y, hp_i) = sum_{j != i} W_ij P(x_i | y, x_j),
    W_ij = I(X_i; X_j | Y) / sum_{j' != i} I(X_i; X_j' | Y)

and a row is classified by argmax_y P(y) prod_i P(x_i | y, hp_i).  Everything is read from
the pair tables of the shared frequency table.
"""

from typing import Literal

import numpy as np

from .._docs import fill_doc
from .._params import ArrayLike, RandomState, Transformer
from ..base import DEFAULT_MAX_TABLE_BYTES, INPUT_PARAMETERS, declare
from . import _kernels as kernels
from ._common import PairStatistics, _StructureBase


@fill_doc
class HNB(_StructureBase):
    """Hidden naive Bayes: every attribute has a hidden parent mixing all the others.

    Each attribute X_i has a hidden parent hp_i that mixes the one-dependence estimates
    given every other attribute (Jiang, Zhang & Cai 2009):

        P(x_i | y, hp_i) = sum_{j != i} W_ij P(x_i | y, x_j),
        W_ij = I(X_i; X_j | Y) / sum_{j' != i} I(X_i; X_j' | Y),

    and a row is classified by argmax_y P(y) prod_i P(x_i | y, hp_i).  No structure is
    searched: everything is read from the pair tables.

    With the defaults (m-estimate, m = 1) the estimates are Weka 3.6's HNB:
    P(y) = (N(y) + 1/|Y|) / (N + 1) and P(x_i | y, x_j) = (N(y, x_j, x_i) + 1/|X_i|) /
    (N(y, x_j) + 1); the weights are the exact conditional mutual information (Weka's
    leaves out the terms whose probability products fall below 1e-6, which matters only
    for rare values in large data sets).  :meth:`partial_fit` equals :meth:`fit`.

    A missing parent value leaves the mixture (the other weights are renormalised); with no
    parent left the attribute uses P(x_i | y) (as Weka does when all the weights are 0).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    weights_ : ndarray of shape (n_features, n_features)
        W_ij (rows sum to 1, or are all 0 when attribute i is conditionally independent of
        every other attribute).
    {conditional_mutual_info_}
    {fitted_attributes}

    See Also
    --------
    seminaive.AODE : averages the one-dependence estimates with equal weights instead.
    seminaive.WAODE : weights each one-dependence estimator by an information measure.
    TAN : keeps a single attribute parent per attribute.

    References
    ----------
    {jiang2009}

    {webb2012}

    {cerquides2005}

    Examples
    --------
    >>> from seminaive import HNB
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = HNB().fit(X, y)
    >>> model.weights_.shape
    (36, 36)
    >>> [round(float(w), 6) for w in model.weights_.sum(axis=1)[:3]]
    [1.0, 1.0, 1.0]
    >>> bool(model.score(X, y) > 0.9)
    True
    """

    _parameter_constraints = declare(INPUT_PARAMETERS)
    _parameter_docs = {
        "smoothing": "structure_smoothing",
        "min_count": """
        min_count : float, default=1
            A parent value x_j whose training frequency is below ``min_count`` leaves the
            mixture (the other weights are renormalised).  Weka has no such threshold:
            ``min_count=0`` reproduces Weka for test values never seen in training.
        """,
        "missing": "structure_missing",
    }

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

    def _learn_from_counts(self, source):
        self._stats = PairStatistics(self.table_)
        cmi = self._stats.cmi
        self.conditional_mutual_info_ = cmi
        total = cmi.sum(axis=1, keepdims=True)
        self.weights_ = np.divide(cmi, total, out=np.zeros_like(cmi), where=total > 0)

    def _set_learned_state(self, arrays):
        super()._set_learned_state(arrays)
        self._learn_from_counts(None)

    def _scores(self, X):
        codes = np.ascontiguousarray(self._storage_codes(X))
        stats = self._stats
        out = np.empty((codes.shape[0], stats.n_classes), dtype=np.float64)
        if codes.shape[0]:
            kernels.hnb_scores(codes, stats.cmi, stats.kernel_args(), float(self.m),
                               self._laplace(), float(self.min_count), out)
        return out
