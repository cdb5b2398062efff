"""Hidden naive Bayes (Jiang, Zhang & Cai 2009; Weka's weka.classifiers.bayes.HNB).

Every attribute has a hidden parent that mixes the one-dependence estimates given each other
attribute:

    P(x_i | y, hp_i) = sum_{j != i} W_ij P(x_i | y, x_j),
    W_ij = I(X_i; X_j | Y) / sum_{j' != i} I(X_i; X_j' | Y)

and a row is classified by argmax_y P(y) prod_i P(x_i | y, hp_i).  Everything is read from
the pair tables of the shared frequency table.
"""

import numpy as np

from ..base import DEFAULT_MAX_TABLE_BYTES, assign_params
from . import _kernels as kernels
from ._common import STRUCTURE_COMMON_DOC, PairStatistics, _StructureBase


class HNB(_StructureBase):
    __doc__ = """Hidden naive Bayes (Jiang, Zhang & Cai 2009).

    With the defaults (m-estimate, m = 1) the estimates are Weka 3.6's HNB:
    P(y) = (N(y) + 1/k) / (N + 1) and P(x_i | y, x_j) = (N(y, x_j, x_i) + 1/|X_i|) /
    (N(y, x_j) + 1); the weights are the exact conditional mutual information (Weka's
    leaves out the terms whose probability products fall below 1e-6, which matters only
    for rare values in large data sets).  :meth:`partial_fit` equals :meth:`fit`.

    Parameters
    ----------
    min_count : float, default=1
        A parent value x_j whose training frequency is below min_count leaves the mixture
        (the other weights are renormalised).  Weka has no such threshold: min_count=0
        reproduces Weka for test values never seen in training.""" + \
        STRUCTURE_COMMON_DOC + """
    A missing parent value leaves the mixture as well; with no parent left the child uses
    P(x_i | y) (as Weka does when all the weights are 0).

    Attributes
    ----------
    weights_ : ndarray of shape (n_features_in_, n_features_in_)
        W_ij (rows sum to 1, or are all 0 when attribute i is conditionally independent of
        every other attribute).
    conditional_mutual_info_ : ndarray of shape (n_features_in_, n_features_in_)
        I(X_i; X_j | Y) in nats.
    classes_, n_features_in_, feature_names_in_, encoder_, table_
        As for :class:`~seminaive.AODE`.
    """

    def __init__(self, *, smoothing="m_estimate", m=1.0, min_count=1, discretizer="mdl",
                 n_bins=3, missing="ignore", categorical_features="auto",
                 max_table_bytes=DEFAULT_MAX_TABLE_BYTES, random_state=None):
        assign_params(self, locals())

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
            kernels.hnb_scores(codes, stats.cmi, *stats.kernel_args(), stats.class_counts,
                               float(self.m), self._laplace(), float(self.min_count), out)
        return out
