"""Kernels of the information-theoretic statistics of count tables (seminaive.statistics)."""

import math

import numpy as np

from ._jit import njit
from ._threads import parallel_calls, parts


def conditional_mutual_information(counts, pair_offsets, sizes, k, out):
    """I(X_i; X_j | Y) (nats) for every pair, maximum likelihood from the rows in which both
    attributes are observed (the missing slot 0 is left out).

    I = sum_{y, x_i, x_j} P(y, x_i, x_j) log[P(y, x_i, x_j) P(y) / (P(y, x_i) P(y, x_j))]
    (Friedman, Geiger & Goldszmidt 1997, the edge weight of TAN).  The attributes i are
    split over the threads (:func:`._threads.parallel_calls`; i writes ``out[i, j]`` and
    ``out[j, i]`` for j > i only)."""
    parallel_calls(_cmi_rows, [(counts, pair_offsets, sizes, k, lo, hi, out)
                               for lo, hi in parts(sizes.size, counts.size)])


@njit(cache=True, nogil=True)
def _cmi_rows(counts, pair_offsets, sizes, k, i0, i1, out):
    """:func:`conditional_mutual_information` of the attributes ``i0 .. i1 - 1``."""
    a = sizes.size
    for i in range(i0, i1):
        out[i, i] = 0.0
        for j in range(i + 1, a):
            off = pair_offsets[i, j]
            if off < 0:
                out[i, j] = 0.0
                out[j, i] = 0.0
                continue
            si = sizes[i]
            sj = sizes[j]
            ny = np.zeros(k)
            nxi = np.zeros((si, k))
            nxj = np.zeros((sj, k))
            total = 0.0
            for xi in range(1, si):
                for xj in range(1, sj):
                    cell = off + (xi * sj + xj) * k
                    for yy in range(k):
                        c = counts[cell + yy]
                        ny[yy] += c
                        nxi[xi, yy] += c
                        nxj[xj, yy] += c
                        total += c
            cmi = 0.0
            if total > 0:
                for xi in range(1, si):
                    for xj in range(1, sj):
                        cell = off + (xi * sj + xj) * k
                        for yy in range(k):
                            c = counts[cell + yy]
                            if c > 0:
                                cmi += c * math.log(c * ny[yy] / (nxi[xi, yy] * nxj[xj, yy]))
                cmi /= total
            cmi = max(cmi, 0.0)
            out[i, j] = cmi
            out[j, i] = cmi
