"""Smoothing kernels: counts to smoothed log-probability tables.

Webb et al. (2012, §2) for m-estimation; Cerquides & de Màntaras (2005, eqs. 15-16) for Laplace.

The estimators' parameters are read once into a :class:`Smoothing` (built from a learner's
``smoothing`` and ``m``), and the one formula of the flat estimates is
:func:`pseudo_counts`: every kernel that smooths counts, here and elsewhere, takes its
pseudo-counts from it.
"""

import math
from typing import NamedTuple

import numpy as np

from ._jit import njit
from ._threads import parallel_calls, parts

#: the estimators of ``smoothing``: flat (m-estimate, Laplace) and hierarchical
SMOOTHINGS = ("m_estimate", "laplace", "hdp", "hls")


class Smoothing(NamedTuple):
    """The estimators' parameters, read once from a learner's ``smoothing`` and ``m``.

    Parameters
    ----------
    mode : {"m_estimate", "laplace", "hdp", "hls"}
        The estimator of the conditional tables.  The hierarchical ones ("hdp", "hls")
        m-estimate whatever they do not estimate themselves (the joints of the parents).
    m : float
        The m of the m-estimates.

    Attributes
    ----------
    laplace : bool
        Whether the flat estimates are Laplace's (one pseudo-count per cell).
    kappa : float
        Pseudo-rows of the Gaussian children's shrinkage: ``m``, 1 with Laplace.
    hierarchical : bool
        Whether the conditionals come from a hierarchical estimator (HDP or HLS).

    Examples
    --------
    >>> s = Smoothing.from_params("laplace", 2.0)
    >>> s.laplace, s.kappa, s.hierarchical
    (True, 1.0, False)
    >>> Smoothing.from_params("hls", 2.0).kappa
    2.0
    """

    mode: str
    m: float

    @classmethod
    def from_params(cls, smoothing, m):
        """The :class:`Smoothing` of the parameters ``smoothing`` and ``m`` (a
        :class:`Smoothing` is returned as it is)."""
        if isinstance(smoothing, Smoothing):
            return smoothing
        if smoothing not in SMOOTHINGS:
            raise ValueError(f"smoothing must be one of {SMOOTHINGS}, got {smoothing!r}")
        return cls(str(smoothing), float(m))

    @property
    def laplace(self):
        return self.mode == "laplace"

    @property
    def kappa(self):
        return 1.0 if self.laplace else self.m

    @property
    def hierarchical(self):
        return self.mode in ("hdp", "hls")


@njit(cache=True, inline="always")
def pseudo_counts(n_cells, m, laplace):
    """The pseudo-counts ``(per cell, in total)`` of a flat estimate over ``n_cells`` cells:
    ``(m / n_cells, m)`` for the m-estimate (Webb et al. 2012, §2), ``(1, n_cells)`` for
    Laplace (Cerquides & de Màntaras 2005, eqs. 15-16).  The estimate of a cell is
    ``(count + per_cell) / (total_count + in_total)``: the one formula every smoothing
    kernel uses."""
    if laplace:
        return 1.0, float(n_cells)
    return m / n_cells, float(m)

# --------------------------------------------------------------------------------------------
# Smoothing: counts -> log-probability tables
# --------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def cell_observed(cell, g, d, combos, sizes):
    """True when no attribute of cell ``cell`` of combination ``g`` (order d) is missing."""
    rest = cell
    for t in range(d - 1, -1, -1):
        s = sizes[combos[g, t]]
        if rest % s == 0:
            return False
        rest //= s
    return True


@njit(cache=True, inline="always")
def log_joint_estimate(count, n_observed, k, prod_values, m, laplace):
    """log P(y, x_s) from counts (m-estimate: Webb et al. 2012, §2; Laplace: Cerquides &
    de Màntaras 2005, eq. 15).

    ``count`` = N(y, x_s), ``n_observed`` = rows with every attribute of s observed,
    ``prod_values`` = prod |X_s|.  Shared by the table builder and by kernels that need the
    estimate for adjusted counts (e.g. leave-one-out: counts minus the held-out row).
    """
    prior, total = pseudo_counts(k * prod_values, m, laplace)
    return math.log(count + prior) - math.log(n_observed + total)


@njit(cache=True)
def log_class_priors(class_counts, m, laplace):
    """log P(y) of every class from the class counts, estimated as
    :func:`log_joint_estimate` with no attribute (the counts summed in class order)."""
    k = class_counts.size
    n_total = 0.0
    for yy in range(k):
        n_total += class_counts[yy]
    prior = np.empty(k)
    for yy in range(k):
        prior[yy] = log_joint_estimate(class_counts[yy], n_total, k, 1.0, m, laplace)
    return prior


@njit(cache=True, inline="always")
def log_conditional_estimate(count, parent_count, n_values, m, laplace):
    """log P(x_c | y, x_s) from counts (m-estimate: Webb et al. 2012, §2; Laplace: Cerquides &
    de Màntaras 2005, eq. 16).

    ``count`` = N(y, x_s, x_c), ``parent_count`` = N(y, x_s) over rows with x_c observed,
    ``n_values`` = |X_c|.
    """
    prior, total = pseudo_counts(n_values, m, laplace)
    return math.log(count + prior) - math.log(parent_count + total)


def log_joint_tables(counts, offsets, combos, orders, sizes, k, g_first, g_last, m, laplace,
                     min_count, out):
    """log P(y, x_s) for every parent combination s and cell (Webb et al. 2012, §2;
    Cerquides & de Màntaras 2005, eq. 15).

    m-estimate:  (N(y, x_s) + m / (k * prod|X_s|)) / (N_obs(s) + m)
    Laplace:     (N(y, x_s) + 1) / (N_obs(s) + k * prod|X_s|)

    ``N_obs(s)`` counts the rows in which every attribute of s is observed (Weka's AODE uses
    N - N(x_i missing)).  A cell with a missing parent value, or whose frequency N(x_s) is
    below ``min_count``, is marked NaN: it is not used as a super-parent.

    The combinations ``g_first`` to ``g_last - 1`` are split evenly over the threads
    (:func:`._threads.parallel_calls`).
    """
    work = int(offsets[g_last] - offsets[g_first]) if g_last > g_first else 0
    parallel_calls(_log_joint_part, [
        (counts, offsets, combos, orders, sizes, int(k), g_first + lo, g_first + hi, float(m),
         bool(laplace), float(min_count), out) for lo, hi in parts(g_last - g_first, work)])


@njit(cache=True, nogil=True)
def _log_joint_part(counts, offsets, combos, orders, sizes, k, g_first, g_last, m, laplace,
                    min_count, out):
    """:func:`log_joint_tables` of the combinations ``g_first`` to ``g_last - 1``."""
    for g in range(g_first, g_last):
        d = orders[g]
        off = offsets[g]
        n_cells = (offsets[g + 1] - off) // k
        prod_values = 1.0
        for t in range(d):
            prod_values *= max(sizes[combos[g, t]] - 1, 1)
        n_observed = 0.0
        for cell in range(n_cells):
            observed = cell_observed(cell, g, d, combos, sizes)
            if observed:
                for yy in range(k):
                    n_observed += counts[off + cell * k + yy]
        prior, total = pseudo_counts(k * prod_values, m, laplace)
        log_den = math.log(n_observed + total)
        for cell in range(n_cells):
            observed = cell_observed(cell, g, d, combos, sizes)
            freq = 0.0
            for yy in range(k):
                freq += counts[off + cell * k + yy]
            usable = observed and (d == 0 or freq >= min_count)
            for yy in range(k):
                idx = off + cell * k + yy
                if not usable:
                    out[idx] = np.nan
                else:
                    out[idx] = math.log(counts[idx] + prior) - log_den


def log_conditional_tables(layout, g_first, g_last, lc_offsets, m, laplace, out,
                           held_out=0.0):
    """log P(x_c | y, x_rest) for every combination g_first .. g_last - 1, member c and
    cell (Cerquides & de Màntaras 2005, eq. 16), from the counts of ``layout`` (a
    :class:`seminaive.tables.TableLayout`, taken apart by position).

    m-estimate:  (N(y, x_rest, x_c) + m / |X_c|) / (N(y, x_rest) - N(y, x_rest, x_c missing) + m)
    Laplace:     (N(y, x_rest, x_c) + 1) / (N(y, x_rest) - N(y, x_rest, x_c missing) + |X_c|)

    A missing child value gets log 1 = 0: it is left out of the product.
    Output block layout: (cells, d, k), combination g's from ``lc_offsets[g]``.

    ``held_out`` > 0 gives the estimates with that much weight of one instance of the cell
    removed from its counts (leave-one-out, Cerquides & de Màntaras 2005, eq. 32):
    N(y, x_rest, x_c) - held_out
    over N(y, x_rest)_obs - held_out; cells that cannot hold the instance are NaN.

    The combinations are split evenly over the threads (:func:`._threads.parallel_calls`).
    """
    offsets = layout[1]
    work = int(offsets[g_last] - offsets[g_first]) if g_last > g_first else 0
    parallel_calls(_log_conditional_part, [
        (layout, g_first + lo, g_first + hi, lc_offsets, float(m), bool(laplace), out,
         float(held_out)) for lo, hi in parts(g_last - g_first, work)])


@njit(cache=True, nogil=True)
def _log_conditional_part(layout, g_first, g_last, lc_offsets, m, laplace, out, held_out):
    """:func:`log_conditional_tables` of the combinations ``g_first`` to ``g_last - 1``."""
    counts, offsets, combos, orders, sizes, k, _, _, _ = layout
    for g in range(g_first, g_last):
        d = orders[g]
        off = offsets[g]
        total = offsets[g + 1] - off
        out_off = lc_offsets[g]
        for p in range(d):
            child = combos[g, p]
            s_child = sizes[child]
            n_values = max(s_child - 1, 1)
            cell_stride = 1
            for t in range(p + 1, d):
                cell_stride *= sizes[combos[g, t]]
            stride = cell_stride * k
            n_outer = total // (s_child * stride)
            prior, pseudo_total = pseudo_counts(n_values, m, laplace)
            for hi in range(n_outer):
                for lo in range(stride):
                    base = hi * s_child * stride + lo
                    den = 0.0
                    for v in range(1, s_child):
                        den += counts[off + base + v * stride]
                    den -= held_out
                    log_den = math.log(den + pseudo_total)
                    yy = base % k
                    for v in range(s_child):
                        flat = base + v * stride
                        cell = flat // k
                        target = out_off + (cell * d + p) * k + yy
                        count = counts[off + flat] - held_out
                        if v == 0:
                            out[target] = 0.0
                        elif count + prior > 0.0:
                            out[target] = math.log(count + prior) - log_den
                        else:
                            out[target] = np.nan
