"""Leave-one-out sub-model joints over a data source (Cerquides & López de Màntaras 2005,
§6, eqs 30-32).

:class:`LeaveOneOut` holds what the kernels of :mod:`seminaive.weighting._kernels` need from a
fitted :class:`~seminaive.tables.FrequencyTable` and evaluates, over a source
(:mod:`seminaive.sources`) in one ``map_reduce`` pass, the statistics of the MAPLMG objective
and gradient or of MAPLMD's expectation step.  The leave-one-out joints are recomputed in
every pass (memory bounded by one chunk), or, when rows x parents x classes x 8 bytes fit
``cache_bytes``, computed once and kept.

Gaussian children (``numeric="gaussian"``): a sub-model's leave-one-out joint takes its
numeric children's log densities at the estimates of the moments with the row removed
(along the whole shrinkage chain) and divides by its numeric parents' bin widths computed
without the row, as refitting without the row gives.
"""

import functools
import operator

import numpy as np

from ..kernels._fortran import padded_fortran, typed_fortran
from ..kernels.smoothing import Smoothing
from ..tables import gaussian as gaussian_kernels
from . import _kernels as loo_kernels
from ._common import effective_order


class LeaveOneOut:
    """Leave-one-out log joints of the sub-models of order n of a fitted table.

    Parameters
    ----------
    table : FrequencyTable
        Counts of the training data (every row later evaluated must be in them).
    n : int
        Parent order (clamped to the attributes).
    smoothing, m, min_count
        The model's estimates and parent threshold.
    gaussian : GaussianLoo, optional
        The Gaussian children (:class:`seminaive.tables.gaussian.GaussianLoo`): their
        leave-one-out log densities join the sub-models' joints, whose numeric parents' bin
        widths are taken without the row too; the source then replays the numeric values.
    """

    def __init__(self, table, n, smoothing="m_estimate", m=1.0, min_count=1, gaussian=None):
        self.gaussian = (gaussian_kernels.no_gaussian_loo(table.n_attributes)
                         if gaussian is None else gaussian)
        self.needs_values = self.gaussian.moment_start.shape[1] > 0
        self.n = effective_order(table, n)
        self.laplace = Smoothing.from_params(smoothing, m).laplace
        self.m = float(m)
        self.min_count = float(min_count)
        tables = table.log_tables(self.n, smoothing, m, min_count)
        self.table = table.layout()
        self.k = table.n_classes
        self.max_order = table.max_order
        self.lc, self.lc_offsets = tables.log_conditional, tables.lc_offsets
        # log P_loo(x_c | y, x_s) of the held-out row's own class (eq. 32), orders n + 1 only
        self.lc1 = np.zeros(self.lc.shape[0])
        if self.n + 1 <= self.max_order:
            children = table.combination_range(self.n + 1)
            loo_kernels.loo_conditional_tables(self.table, children.start, children.stop,
                                               self.lc_offsets, self.m, self.laplace,
                                               self.lc1)
        # per parent combination: rows with every parent observed, and prod |X_s| (eq. 31)
        parents = table.combination_range(self.n)
        self.n_par = len(parents)
        self.n_obs = np.empty(self.n_par)
        self.prod_values = np.empty(self.n_par)
        for j, g in enumerate(parents):
            self.n_obs[j] = table.observed_block_at(g).sum()
            self.prod_values[j] = float(np.prod(np.maximum(
                table.n_values[list(table.members(g))], 1)))
        # log P_loo(y, x_s) of rows removed with weight 1 (eq. 31), looked up by the kernels
        size = (table.cell_start(self.n + 1) - table.cell_start(self.n)) * self.k
        self.lj_other, self.lj_own = np.empty(size), np.empty(size)
        loo_kernels.loo_joint_tables(self.table, self.n_obs, self.prod_values, parents.start,
                                     parents.stop, self.m, self.laplace, self.lj_other,
                                     self.lj_own)

    def _model(self):
        """The typed bundle the kernels read (:class:`~seminaive.weighting._kernels.LooModel`)."""
        return loo_kernels.loo_model(
            self.table, self.n, self.max_order, n_obs=self.n_obs, prod_values=self.prod_values,
            lj_other=self.lj_other, lj_own=self.lj_own, lc=self.lc, lc_offsets=self.lc_offsets,
            lc1=self.lc1, m=self.m, laplace=self.laplace, min_count=self.min_count)

    @staticmethod
    def _codes(codes):
        """``codes`` as the kernels take them: in an array numba types as the fit's chunks
        (Fortran-ordered, writable), so that the leave-one-out kernels compile once.  A
        chunk of one row (C- and F-contiguous: numba types it C), of rows sliced out of a
        larger matrix (strided) or read-only is copied into one, of at least two rows (the
        kernels take the number of rows from ``y``); one of a single attribute is
        contiguous both ways, as every chunk of the fit, and kept."""
        if codes.ndim != 2 or codes.shape[1] < 2 or (
                typed_fortran(codes) and codes.flags.writeable):
            return codes
        return padded_fortran(codes)

    @staticmethod
    def _weights(w, n_rows):
        if w is None:
            return False, np.zeros(1)
        return True, np.ascontiguousarray(w, dtype=np.float64)

    def _values(self, values, n_rows):
        if not self.needs_values:
            return np.zeros((n_rows, 0))
        if values is None:
            raise ValueError("the Gaussian children need the rows' numeric values")
        return np.ascontiguousarray(values, dtype=np.float64)

    def log_joint(self, codes, y, w=None, values=None):
        """LOO log P_s(y, x_r) of every row, parent combination and class, shape
        (rows, n_par, k); NaN where s does not qualify without the row.  ``values``: the
        rows' centred numeric values (Gaussian children)."""
        y = np.ascontiguousarray(y, dtype=np.int64)
        weighted, w = self._weights(w, len(y))
        out = np.empty((len(y), self.n_par, self.k))
        if len(y):
            loo_kernels.loo_log_joint(self._codes(codes), y, w, weighted, self._model(), out,
                                      self._values(values, len(y)), self.gaussian)
        return out

    def statistics(self, kind, codes, y, w, log_alpha, values=None):
        """Sum over the rows of the LMG (kind = STAT_LMG) or LMD statistics at weights
        exp(log_alpha), see :func:`seminaive.weighting._kernels.mixture_statistics`."""
        y = np.ascontiguousarray(y, dtype=np.int64)
        weighted, w = self._weights(w, len(y))
        out = np.zeros(loo_kernels.statistics_size(kind, self.n_par))
        if len(y):
            loo_kernels.mixture_statistics(kind, self._codes(codes), y, w, weighted,
                                           self._model(),
                                           np.ascontiguousarray(log_alpha, dtype=np.float64),
                                           out, self._values(values, len(y)), self.gaussian)
        return out


def _chunk_statistics(loo, kind, log_alpha, codes, y, w, values=None):
    return loo.statistics(kind, codes, y, w, log_alpha, values)


def _chunk_loo(loo, codes, y, w, values=None):
    y = np.asarray(y, dtype=np.int64)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
    return [(loo.log_joint(codes, y, w, values), y, w)]


class Evaluator:
    """One pass of the optimiser over a source: ``evaluator(log_alpha)`` returns the summed
    statistics of ``kind`` (see :class:`LeaveOneOut`), counting passes.

    The leave-one-out tensor is cached when rows x n_par x k x 8 <= ``cache_bytes`` (one
    extra pass to build it); otherwise every call streams the source through the kernel.
    """

    def __init__(self, loo, source, kind, cache_bytes=0):
        self.loo, self.source, self.kind = loo, source, kind
        self.n_passes = 0
        self._cache = None
        size = float(source.n_rows) * loo.n_par * loo.k * 8
        if source.n_rows and cache_bytes and size <= cache_bytes:
            parts = source.map_reduce(functools.partial(_chunk_loo, loo), operator.add,
                                      values=loo.needs_values)
            self.n_passes += 1
            self._cache = (np.concatenate([p[0] for p in parts]),
                           np.concatenate([p[1] for p in parts]),
                           np.concatenate([p[2] for p in parts]))

    @property
    def cached(self):
        return self._cache is not None

    def __call__(self, log_alpha):
        log_alpha = np.ascontiguousarray(log_alpha, dtype=np.float64)
        self.n_passes += 1
        if self._cache is not None:
            loo, y, w = self._cache
            out = np.zeros(loo_kernels.statistics_size(self.kind, self.loo.n_par))
            loo_kernels.mixture_statistics_cached(self.kind, loo, y, w, True, log_alpha, out)
            return out
        result = self.source.map_reduce(
            functools.partial(_chunk_statistics, self.loo, self.kind, log_alpha), operator.add,
            values=self.loo.needs_values)
        if result is None:
            return np.zeros(loo_kernels.statistics_size(self.kind, self.loo.n_par))
        return result
