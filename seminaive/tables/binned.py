"""Kernel-smoothed binned densities of numeric children (``density="kde"``).

A numeric child is counted on a fixed fine grid of its values: one bin per distinct
quantile 0, 1/32, ..., 1 of the rows the encoder's cut points are fitted on
(``AttributeEncoder.numeric_grid_``), kept fixed afterwards as cut points are.  The
counts per (parent cell, class, grid bin) add, so tables merge, Dask's fit and model files
are exact and ``partial_fit`` counts every chunk on the first chunk's grid; their memory is
bounded by the grid.

The density of the child at a value in bin b of a cell is

    f(b) = (S(b) + m f0(b)) / (n + m) / width(b),

with S the cell's counts smoothed by a Gaussian kernel over the bin indices (every row's
unit mass spread over the bins, bandwidth ``h`` bins), n the cell's weight and f0 the
estimate of the next coarser conditioning (the class alone: the smoothed counts of all
classes; given parents: the mean of the estimates with one parent fewer), an m-estimate of
the bin probabilities that bounds the class ratio as m-estimates of discrete children do.
One bandwidth per attribute, shared by every class and parent cell (so that a spike of
repeated values gets comparable densities in every class), is set by the attribute's
weight n: 6 bins at 300 rows, at the rate n^(-1/5) of a kernel density's optimal
bandwidth (:func:`bandwidth_for`; the bandwidth of the largest leave-one-out likelihood
of the densities, which an earlier version chose, is too narrow for classification: on the
small numeric sets of ``benchmarks/bench_numeric.py`` it left AODE worse than MDL).  The
6 bins at 300 rows were chosen on those twelve sets; on thirteen numeric sets that played
no part in the choice (``bench_numeric.py --held-out``) the log loss is 0.943 (NB) and
0.941 (AODE) of MDL's, geometric means, no worse on 10 and 9 of the 13.  One
``m`` per attribute and parent order is chosen, order by order, by the leave-one-out
likelihood of the estimates of that order (every row removed from its cell and from every
coarser estimate it is counted in).  In an AODE sub-model, a numeric parent contributes
P(y) f(x_p | y) (its class-level density), so that every sub-model estimates the joint
density on the children's scale.

TAN, KDB and SKDB use the same estimates for the (class, parent values) cells that rows
reach (``seminaive.structure._moments.SparseMoments.kde_estimates``), a cell's coarser
estimate being that of its parent chain one parent shorter (one ``m`` per child and chain
length).  On the twelve sets their log loss is 0.85 (TAN), 0.88 (KDB, k=1 and k=2) and 0.84
(SKDB) of MDL's, on the thirteen held-out sets 0.96, 0.95, 0.91 and 0.85 (geometric
means; Student-t: 1.21 to 1.76 and 1.08 to 1.49).
"""

import numpy as np

#: the smallest and the largest bandwidth, in bins
BANDWIDTHS = (1.0, 8.0)
#: the bandwidth, in bins, at ``ROWS_AT`` rows (:func:`bandwidth_for`)
BANDWIDTH_AT = 6.0
ROWS_AT = 300.0
#: the candidate pseudo-rows of the mixture towards the coarser estimate
MIXTURES = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 10000.0)
#: the smallest bin width, as a fraction of the grid's range divided by its bins
WIDTH_FLOOR = 0.01


def grid_edges(quantiles, center=None):
    """The grid of every numeric attribute from its quantiles (a row per attribute, NaN
    where it has no value; ``AttributeEncoder.numeric_grid_``): ``(edges,
    n_bins)`` with ``edges[j, :n_bins[j] + 1]`` the bin edges of attribute j (minus
    ``center[j]``: the values counted are centred), NaN beyond.  Every distinct quantile is
    the middle of its own bin: the inner edges lie half-way between consecutive distinct
    quantiles and the outer bins are as wide as their neighbouring gap, so that a spike of
    repeated values (or a numeric attribute of a few values) keeps its values apart; a
    column with a single value gets one bin of width 1 around it.

    Examples
    --------
    >>> import numpy as np
    >>> edges, n_bins = grid_edges(np.array([[0.0, 0.0, 0.0, 2.0], [5.0, 5.0, 5.0, 5.0]]))
    >>> n_bins.tolist(), edges[0, :3].tolist(), edges[1, :2].tolist()
    ([2, 1], [-1.0, 1.0, 3.0], [4.5, 5.5])
    """
    quantiles = np.asarray(quantiles, dtype=np.float64)
    n_num = quantiles.shape[0]
    center = np.zeros(n_num) if center is None else np.asarray(center, dtype=np.float64)
    edges = np.full((n_num, max(quantiles.shape[1], 1) + 1), np.nan)
    n_bins = np.ones(n_num, dtype=np.int64)
    for j in range(n_num):
        q = quantiles[j][~np.isnan(quantiles[j])] - center[j]
        unique = np.unique(q)
        if unique.size < 2:
            mid = float(unique[0]) if unique.size else 0.0
            e = np.array([mid - 0.5, mid + 0.5])
        else:
            inner = 0.5 * (unique[1:] + unique[:-1])
            e = np.concatenate([[unique[0] - (inner[0] - unique[0])], inner,
                                [unique[-1] + (unique[-1] - inner[-1])]])
        edges[j, :e.size] = e
        n_bins[j] = e.size - 1
    return edges, n_bins


def checked_grid(edges, n_bins, n_numeric):
    """``(edges, n_bins)`` as float64 and int64 arrays, checked as the grid of
    ``n_numeric`` numeric attributes: ``edges[j, :n_bins[j] + 1]`` finite and increasing
    (:func:`grid_edges`); ValueError otherwise."""
    edges = np.asarray(edges, dtype=np.float64)
    n_bins = np.asarray(n_bins, dtype=np.int64)
    if (edges.ndim != 2 or edges.shape[0] != n_numeric or n_bins.shape != (n_numeric,)
            or np.any(n_bins < 1) or np.any(n_bins + 1 > edges.shape[1])):
        raise ValueError("the grid does not fit the numeric attributes of the moments")
    for j in range(n_bins.size):
        e = edges[j, :n_bins[j] + 1]
        if not np.all(np.isfinite(e)) or np.any(np.diff(e) <= 0):
            raise ValueError("the grid's edges must be finite and increasing")
    return edges, n_bins


def bin_of(values, edges, n_bins):
    """The grid bin of every value (float, NaN where missing), shape of ``values``
    (rows, numeric attributes): the values below the first inner edge are in bin 0, those
    above the last in the last bin (the outer bins extend to infinity).

    Examples
    --------
    >>> import numpy as np
    >>> edges = np.array([[0.0, 1.0, 2.0, 3.0]])
    >>> bin_of(np.array([[-5.0], [0.5], [1.0], [2.5], [9.0], [np.nan]]), edges,
    ...        np.array([3])).ravel().tolist()
    [0.0, 0.0, 1.0, 2.0, 2.0, nan]
    """
    values = np.asarray(values, dtype=np.float64)
    out = np.full(values.shape, np.nan)
    for j in range(values.shape[1]):
        col = values[:, j]
        seen = ~np.isnan(col)
        inner = edges[j, 1:n_bins[j]]
        out[seen, j] = np.searchsorted(inner, col[seen], side="right")
    return out


def log_widths(edges, n_bins):
    """log width of every bin, shape (attributes, max bins) (0 beyond an attribute's bins),
    every width floored at ``WIDTH_FLOOR`` times the grid's range over its bins."""
    out = np.zeros((edges.shape[0], int(n_bins.max(initial=1))))
    for j in range(edges.shape[0]):
        e = edges[j, :n_bins[j] + 1]
        width = np.diff(e)
        floor = WIDTH_FLOOR * (e[-1] - e[0]) / n_bins[j]
        out[j, :n_bins[j]] = np.log(np.maximum(width, max(floor, 1e-300)))
    return out


def kernel_matrix(n_bins, bandwidth):
    """K[b, c]: the share of a row of bin c that the smoother gives bin b (a Gaussian of
    the bin distance with ``bandwidth`` bins, every column summing to 1).

    Examples
    --------
    >>> import numpy as np
    >>> K = kernel_matrix(4, 1.0)
    >>> bool(np.allclose(K.sum(axis=0), 1.0)), bool(K[0, 0] > K[1, 0] > K[2, 0])
    (True, True)
    """
    idx = np.arange(n_bins, dtype=np.float64)
    K = np.exp(-0.5 * ((idx[:, None] - idx[None, :]) / bandwidth) ** 2)
    return K / K.sum(axis=0, keepdims=True)


def loo_log_likelihood(counts, bandwidth, m):
    """Leave-one-out log-likelihood of the class-level estimates of one attribute:
    ``counts`` (k, bins) the weight of the rows of every class in every bin; every row is
    scored by the estimate of its class made without it (its own kernel share removed from
    its class's and from all classes' smoothed counts, and its weight from the totals).
    Widths are left out: they are the same for every bandwidth and ``m``."""
    counts = np.asarray(counts, dtype=np.float64)
    n_bins = counts.shape[1]
    K = kernel_matrix(n_bins, bandwidth)
    own = np.diag(K)
    S = counts @ K.T
    n_y = counts.sum(axis=1, keepdims=True)
    n = counts.sum()
    if n <= 1:
        return 0.0
    f_all = np.maximum(S.sum(axis=0) - own, 0.0) / (n - 1.0)
    p = (np.maximum(S - own, 0.0) + m * f_all) / np.maximum(n_y - 1.0 + m, 1e-300)
    seen = counts > 0
    return float(np.sum(counts[seen] * np.log(np.maximum(p[seen], 1e-300))))


def bandwidth_for(n):
    """The kernel's bandwidth, in bins, for an attribute counted over a weight of ``n``
    rows: ``BANDWIDTH_AT * (n / ROWS_AT) ** -0.2`` (the rate of a kernel density's optimal
    bandwidth), between ``BANDWIDTHS[0]`` and ``BANDWIDTHS[-1]`` bins.

    Examples
    --------
    >>> bandwidth_for(300.0), round(bandwidth_for(9600.0), 3), bandwidth_for(10.0)
    (6.0, 3.0, 8.0)
    """
    if n <= 0:
        return float(BANDWIDTHS[-1])
    h = BANDWIDTH_AT * (float(n) / ROWS_AT) ** -0.2
    return float(min(max(h, BANDWIDTHS[0]), BANDWIDTHS[-1]))


def choose_smoothing(counts):
    """(bandwidth, m) of the class-level estimates of one attribute (``counts`` (k, bins)):
    the bandwidth :func:`bandwidth_for` the attribute's weight, ``m`` of the largest
    :func:`loo_log_likelihood` among ``MIXTURES`` (the first of equal ones:
    deterministic)."""
    h = bandwidth_for(float(np.asarray(counts, dtype=np.float64).sum()))
    best, choice = -np.inf, (h, MIXTURES[0])
    for m in MIXTURES:
        score = loo_log_likelihood(counts, h, m)
        if score > best + 1e-12:
            best, choice = score, (h, m)
    return choice


def mixed_loo(counts, bandwidth, m, f0_loo):
    """The leave-one-out estimates of :func:`mixed`: at every bin b of a cell, the estimate
    made without one row of bin b, (S(b) - K[b, b] + m f0_loo(b)) / (n - 1 + m), where
    ``f0_loo`` is the coarser estimate made without that row (meaningful where the cell
    counts a row in b)."""
    counts = np.asarray(counts, dtype=np.float64)
    own = np.diag(kernel_matrix(counts.shape[-1], bandwidth))
    S = np.maximum(smoothed(counts, bandwidth) - own, 0.0)
    n = counts.sum(axis=-1, keepdims=True)
    # a cell without a row (or with a fractional weight below 1): its coarser estimate
    return (S + m * f0_loo) / np.maximum(n - 1.0 + m, m)


def choose_mixture(cells, bandwidth):
    """The ``m`` among ``MIXTURES`` of the largest leave-one-out likelihood of the cells of
    one parent order (the first of equal ones): ``cells`` a list of (counts, f0_loo), the
    binned counts (..., bins) of an entry's cells and the leave-one-out coarser estimates of
    their rows (:func:`mixed_loo` of the coarser entries); every row is scored by the
    estimate of its cell made without it."""
    prepared = []
    own = None
    for counts, f0_loo in cells:
        counts = np.asarray(counts, dtype=np.float64)
        if own is None:
            own = np.diag(kernel_matrix(counts.shape[-1], bandwidth))
        seen = counts > 0
        if not seen.any():
            continue
        S = np.maximum(smoothed(counts, bandwidth) - own, 0.0)
        n = np.broadcast_to(counts.sum(axis=-1, keepdims=True), counts.shape)
        prepared.append((counts[seen], S[seen], np.broadcast_to(f0_loo, counts.shape)[seen],
                         n[seen] - 1.0))
    best, choice = -np.inf, MIXTURES[0]
    for m in MIXTURES:
        score = 0.0
        for w, S, f0, n1 in prepared:
            p = (S + m * f0) / np.maximum(n1 + m, m)
            score += float(np.sum(w * np.log(np.maximum(p, 1e-300))))
        if score > best + 1e-12:
            best, choice = score, m
    return choice


def smoothed(counts, bandwidth):
    """The counts smoothed over their last axis (bins) by :func:`kernel_matrix`."""
    K = kernel_matrix(counts.shape[-1], bandwidth)
    return np.asarray(counts, dtype=np.float64) @ K.T


def mixed(counts, bandwidth, m, f0):
    """Bin probabilities (S + m f0) / (n + m) of cells' ``counts`` (..., bins) towards
    ``f0`` (broadcast against them); a cell without rows gets ``f0``."""
    S = smoothed(counts, bandwidth)
    n = np.asarray(counts, dtype=np.float64).sum(axis=-1, keepdims=True)
    return (S + m * f0) / (n + m)
