"""Kernels of Gaussian children (``numeric="gaussian"``): moment counting and AnDE scores.

Moments (:class:`seminaive.tables.MomentTable`): for every entry (parent attributes, numeric
child), a block of shape (cells of the parents, k, 3) holds the weight, sum and sum of
squares of the (centred) values of the child in the rows of each parent cell and class.
Cells count missing parent values in slot 0, as the count blocks do.

Scores: every sub-model of AnDE (Webb et al. 2012, eq. 11) with its numeric children's
log P(x_c | y, x_s) replaced by the Gaussian log density at the estimated mean and variance,
and its parent term P(y, x_s) divided by the widths of its numeric parents' bins (a density,
so that every sub-model estimates the same joint density; see :mod:`seminaive.tables`).
"""

import math
from typing import NamedTuple

import numpy as np
from scipy.special import gammaln

from ..kernels._jit import njit, prange
from .scoring import (
    _aggregate_row,
    _aggregate_row_weighted,
    qualifying_parents,
    row_cell,
    widest_order,
)

_LOG_2PI = math.log(2.0 * math.pi)


def gaussian_terms(mean, var):
    """(mean, log(2 pi var) / 2, 1 / (2 var)): the log density of v is
    -(norm + (v - mean)^2 * precision)."""
    return mean, 0.5 * (_LOG_2PI + np.log(var)), 0.5 / var


def student_terms(mean, scale2, nu):
    """The terms of Student's t density with ``nu`` degrees of freedom, location ``mean``
    and squared scale ``scale2``: (mean, norm, precision, shape) with
    norm = log Gamma(nu / 2) - log Gamma((nu + 1) / 2) + log(nu pi scale2) / 2,
    precision = 1 / (nu scale2) and shape = (nu + 1) / 2, so that the log density of v is
    -(norm + shape * log(1 + (v - mean)^2 * precision)).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import t
    >>> mean, norm, precision, shape = student_terms(np.array([1.0]), np.array([4.0]),
    ...                                              np.array([3.0]))
    >>> got = -(norm + shape * np.log1p((2.5 - mean) ** 2 * precision))
    >>> bool(np.allclose(got, t.logpdf(2.5, df=3.0, loc=1.0, scale=2.0)))
    True
    """
    nu = np.asarray(nu, dtype=np.float64)
    norm = gammaln(nu / 2.0) - gammaln((nu + 1.0) / 2.0) + 0.5 * np.log(nu * np.pi * scale2)
    return mean, norm, 1.0 / (nu * scale2), (nu + 1.0) / 2.0


def normal_inverse_gamma_predictive(mean, var, n, kappa):
    """The posterior predictive of a normal-inverse-gamma prior, as Student's t
    ``(location, squared scale, degrees of freedom)``.

    ``mean`` and ``var`` are the posterior estimates of :meth:`MomentTable.estimates`
    (``var`` = b_N / a_N), ``n`` the weight of the cell's rows and ``kappa`` the prior's
    pseudo-rows: with a_N = (kappa + n) / 2 and kappa_N = kappa + n the predictive is
    t(2 a_N) with location ``mean`` and squared scale b_N (kappa_N + 1) / (a_N kappa_N)
    (Murphy 2007, eq. 100; Gelman et al. 2013, §3.6), that is ``var`` (kappa + n + 1) /
    (kappa + n), with kappa + n degrees of freedom.

    Examples
    --------
    >>> import numpy as np
    >>> loc, scale2, nu = normal_inverse_gamma_predictive(np.array([0.5]), np.array([2.0]),
    ...                                                   np.array([3.0]), 1.0)
    >>> float(scale2[0]), float(nu[0])
    (2.5, 4.0)
    """
    nu = np.asarray(n, dtype=np.float64) + float(kappa)
    return mean, var * (nu + 1.0) / nu, nu


class MomentEntries(NamedTuple):
    """The entries of a :class:`seminaive.tables.MomentTable` that :func:`count_moments`
    adds rows to: entry e is the child column ``column[e]`` of the numeric values given the
    parents ``parents[e, :orders[e]]``, its block at ``offsets[e]`` in the sums, of shape
    (cells, k, 3); entries ``group_starts[q]`` to ``group_starts[q + 1] - 1`` share their
    parents; ``sizes`` are the attributes' storage sizes and ``k`` the classes."""

    parents: np.ndarray
    orders: np.ndarray
    column: np.ndarray
    offsets: np.ndarray
    group_starts: np.ndarray
    sizes: np.ndarray
    k: int


@njit(parallel=True, cache=True)
def count_moments(X, y, w, weighted, V, entries, sums):
    """Add the moments of the rows (storage codes ``X``, classes ``y``, numeric values
    ``V`` of shape (n, number of numeric attributes), NaN = missing) to the sums of every
    entry of ``entries`` (a :class:`MomentEntries`): the weight, sum and sum of squares of
    the child's observed values in the row's (parent cell, class).  The entries of one
    group share their parents: a row's cell is computed once for them."""
    parents, orders, column, offsets = (entries.parents, entries.orders, entries.column,
                                        entries.offsets)
    group_starts, sizes, k = entries.group_starts, entries.sizes, entries.k
    n_rows = X.shape[0]
    for q in prange(group_starts.size - 1):
        first = group_starts[q]
        last = group_starts[q + 1]
        d = orders[first]
        for r in range(n_rows):
            cell = 0
            for t in range(d):
                att = parents[first, t]
                cell = cell * sizes[att] + X[r, att]
            wr = w[r] if weighted else 1.0
            rest = (cell * k + y[r]) * 3
            for e in range(first, last):
                v = V[r, column[e]]
                if math.isnan(v):
                    continue
                base = offsets[e] + rest
                sums[base] += wr
                sums[base + 1] += wr * v
                sums[base + 2] += wr * v * v


class GaussianGrid(NamedTuple):
    """The Gaussian children of a table's scores (:func:`gaussian_scores`).

    ``gaussian[i]``: the index of attribute i among the numeric attributes (-1: nominal);
    ``missing_code[i]``: the storage code of a Gaussian attribute's value for missing
    (``missing="value"``; 0: none); ``log_width[i, code]`` the log width of a value of a
    numeric parent (0 otherwise); ``mean``, ``norm`` = log(2 pi var) / 2 and ``precision``
    = 1 / (2 var) of the estimates (:func:`gaussian_terms`; with ``student``, Student's t
    densities of :func:`student_terms` whose ``shape`` is laid out alike), laid out by
    :meth:`seminaive.tables.MomentTable.grid_terms` (block of parent combination g at
    ``grid_offsets[g]``, shape (cells, numeric attributes, k)).
    """

    gaussian: np.ndarray
    missing_code: np.ndarray
    log_width: np.ndarray
    grid_offsets: np.ndarray
    mean: np.ndarray
    norm: np.ndarray
    precision: np.ndarray
    shape: np.ndarray
    student: bool
    #: with ``n_bins`` > 0 (``density="kde"``), the children are binned densities: the
    #: values are the rows' grid bins and ``norm`` holds the log densities, ``n_bins`` per
    #: (cell, numeric attribute, class), ``grid_offsets`` in those units
    #: (:meth:`seminaive.tables.FrequencyTable.kde_grid`)
    n_bins: int = 0


class ScoreTables(NamedTuple):
    """The smoothed log tables rows are scored from: parent order ``n`` (rows cascade to
    lower orders), the table's highest order ``max_order``, the log joints ``log_joint`` and
    the log conditionals ``log_conditional`` at ``lc_offsets``
    (:meth:`seminaive.tables.FrequencyTable.log_tables`)."""

    n: int
    max_order: int
    log_joint: np.ndarray
    log_conditional: np.ndarray
    lc_offsets: np.ndarray


class Combination(NamedTuple):
    """How sub-models are combined: ``aggregate`` (a code of
    :mod:`seminaive.tables.scoring`) and, with ``weighted``, the per-cell log weights
    ``log_weights``."""

    aggregate: int
    weighted: bool
    log_weights: np.ndarray


@njit(cache=True)
def _level_terms(x, Vr, level, layout, tables, children, qual, cells, terms):
    """Sub-model scores of one row at one parent order (NaN rows: not qualifying)."""
    offsets, combos, sizes, k = layout.offsets, layout.combos, layout.sizes, layout.n_classes
    order_first, sub_index = layout.order_first, layout.sub_index
    max_order, lj, lc, lc_offsets = (tables.max_order, tables.log_joint, tables.log_conditional,
                                     tables.lc_offsets)
    gaussian, missing_code, log_width = (children.gaussian, children.missing_code,
                                         children.log_width)
    grid_offsets, mean, norm, precision = (children.grid_offsets, children.mean, children.norm,
                                           children.precision)
    shape, student, n_bins = children.shape, children.student, children.n_bins
    n_num = Vr.size
    p_first = order_first[level]
    n_par = order_first[level + 1] - p_first
    for s in range(n_par):
        g = p_first + s
        if not qual[s]:
            for yy in range(k):
                terms[s, yy] = np.nan
            continue
        base = offsets[g] + cells[s] * k
        correction = 0.0
        for t in range(level):
            att = combos[g, t]
            correction += log_width[att, x[att]]
        for yy in range(k):
            terms[s, yy] = lj[base + yy] - correction
        if n_bins > 0 and level == 1:
            # a binned numeric parent: P(y) f(x_p | y), its density on the children's scale
            jp = gaussian[combos[g, 0]]
            if jp >= 0 and not math.isnan(Vr[jp]):
                first = grid_offsets[0] + jp * k * n_bins + int(Vr[jp])
                for yy in range(k):
                    terms[s, yy] = lj[offsets[0] + yy] + norm[first + yy * n_bins]
        # Gaussian children (slots of members of g hold zeros: no term)
        if n_bins > 0:
            first = grid_offsets[g] + cells[s] * n_num * k * n_bins
            for j in range(n_num):
                v = Vr[j]
                if math.isnan(v):
                    continue
                cell = first + j * k * n_bins + int(v)
                for yy in range(k):
                    terms[s, yy] += norm[cell + yy * n_bins]
            continue
        first = grid_offsets[g] + cells[s] * n_num * k
        for j in range(n_num):
            v = Vr[j]
            if math.isnan(v):
                continue
            cell = first + j * k
            if student:
                for yy in range(k):
                    dv = v - mean[cell + yy]
                    terms[s, yy] -= norm[cell + yy] + shape[cell + yy] * math.log1p(
                        dv * dv * precision[cell + yy])
                continue
            for yy in range(k):
                dv = v - mean[cell + yy]
                terms[s, yy] -= norm[cell + yy] + dv * dv * precision[cell + yy]
    # nominal children from the log-conditional tables
    d = level + 1
    if d > max_order:
        return n_par
    for h in range(order_first[d], order_first[d + 1]):
        cell_h = row_cell(x, h, d, combos, sizes)
        for p in range(d):
            c = combos[h, p]
            xc = x[c]
            if xc == 0 or (gaussian[c] >= 0 and missing_code[c] == 0):
                continue
            s = sub_index[h, p] - p_first
            if not qual[s]:
                continue
            base = lc_offsets[h] + (cell_h * d + p) * k
            if gaussian[c] < 0 or xc == missing_code[c]:
                for yy in range(k):
                    terms[s, yy] += lc[base + yy]
                continue
            # an observed Gaussian child under missing="value": P(observed)
            stride = 1
            for t in range(p + 1, d):
                stride *= sizes[combos[h, t]]
            base = lc_offsets[h] + ((cell_h + (missing_code[c] - xc) * stride) * d + p) * k
            for yy in range(k):
                terms[s, yy] += math.log1p(-math.exp(lc[base + yy]))
    return n_par


@njit(parallel=True, cache=True)
def gaussian_scores(X, V, layout, tables, children, combination, out):
    """Per-class AnDE scores with Gaussian numeric children (see the module docstring).

    ``layout`` is the table's :class:`~seminaive.tables.TableLayout`, ``tables`` its
    :class:`ScoreTables`, ``children`` the :class:`GaussianGrid` of its moments and
    ``combination`` the :class:`Combination` of the sub-models; ``V`` the centred numeric
    values of the rows.  A Gaussian attribute with a value for missing has the child term
    log P(missing | y, x_s) or, for an observed value, log (1 - P(missing | y, x_s)) plus
    the log density.  Rows cascade to lower orders as in
    :func:`seminaive.tables.scoring.predict_scores`; with ``combination.weighted``, the
    sub-models are combined with the per-cell log weights as there
    (:func:`seminaive.tables.scoring.predict_scores_weighted`).
    """
    offsets, combos, sizes, k = layout.offsets, layout.combos, layout.sizes, layout.n_classes
    order_first = layout.order_first
    n, lj = tables.n, tables.log_joint
    aggregate, weighted, lw = combination.aggregate, combination.weighted, combination.log_weights
    n_rows, a = X.shape
    widest = widest_order(order_first, n)
    for r in prange(n_rows):
        x = X[r]
        qual = np.empty(widest, dtype=np.bool_)
        cells = np.empty(widest, dtype=np.int64)
        terms = np.empty((widest, k))
        row_w = np.empty(widest)
        level = n
        while True:
            used = qualifying_parents(x, level, combos, offsets, sizes, k, order_first, lj,
                                      qual, cells)
            if used == 0 and level > 0:
                level -= 1
                continue
            n_par = _level_terms(x, V[r], level, layout, tables, children, qual, cells, terms)
            if not weighted:
                _aggregate_row(terms, n_par, k, aggregate, out[r])
                break
            p_first = order_first[level]
            for s in range(n_par):
                row_w[s] = lw[offsets[p_first + s] // k + cells[s]]
            if _aggregate_row_weighted(terms, row_w, n_par, k, aggregate, out[r]) > 0:
                break
            if level == 0:  # naive Bayes, the single sub-model of order 0
                _aggregate_row(terms, n_par, k, aggregate, out[r])
                break
            level -= 1


# --------------------------------------------------------------------------------------------
# Leave-one-out: the estimates and bin widths of a table with the held-out row removed
# --------------------------------------------------------------------------------------------


class GaussianLoo(NamedTuple):
    """What the leave-one-out kernels read of the Gaussian children of a fitted table with
    moments (built by ``_BaseAnDE._gaussian_loo``; :func:`no_gaussian_loo` when there are
    none).

    ``gaussian[i]``: the column of attribute i among the numeric values (-1: nominal);
    ``missing_code[i]``: the storage code of its value for missing (``missing="value"``;
    0: none); ``moment_start[g, j]``: the first (cell, class) index (``offsets // 3``) of the
    moments of numeric attribute j given the parent combination g of the table (-1 when j is
    a member of g); ``sums`` the moments; ``cuts[j, :n_cuts[j]]`` the centred cut points of
    numeric attribute j (``n_cuts[j]`` < 0: no cut points, every bin of width 1);
    ``student``: the children are Student's t posterior predictives (``density="student"``,
    see :func:`loo_estimates`) rather than plug-in Gaussians.
    """

    gaussian: np.ndarray
    missing_code: np.ndarray
    moment_start: np.ndarray
    sums: np.ndarray
    kappa: float
    floor_ratio: float
    cuts: np.ndarray
    n_cuts: np.ndarray
    n_levels: int  # parent orders 0 .. n_levels - 1 have moments
    student: bool = False


def no_gaussian_loo(n_attributes):
    """An empty :class:`GaussianLoo` (no Gaussian child) for ``n_attributes`` attributes."""
    return GaussianLoo(np.full(n_attributes, -1, dtype=np.int64),
                       np.zeros(n_attributes, dtype=np.int64), np.zeros((1, 0), dtype=np.int64),
                       np.zeros(0), 1.0, 0.01, np.zeros((0, 1)), np.zeros(0, dtype=np.int64), 0,
                       False)


@njit(cache=True, inline="always")
def log_density(v, mean, var):
    """log N(v; mean, var)."""
    dv = v - mean
    return -0.5 * (_LOG_2PI + math.log(var) + dv * dv / var)


@njit(cache=True)
def loo_log_widths(xr, Vr, h, gaussian, n_cuts, cuts, moment_start, sums, k, out):
    """``out[i]`` = log width of the row's bin of every attribute i (0 for nominal ones, a
    missing value or a value beyond the bins) as
    :meth:`seminaive.tables.MomentTable.bin_log_widths` computes it from the moments with the
    held-out row (amount ``h``, numeric values ``Vr``) removed: the outer bins end 3 standard
    deviations from the overall mean, every width floored at 0.1 standard deviation.
    The arrays are the fields of a :class:`GaussianLoo` (parallel kernels pass no tuples
    into their loops)."""
    for i in range(xr.shape[0]):
        out[i] = 0.0
        j = gaussian[i]
        if j < 0 or n_cuts[j] < 0:
            continue
        bins = n_cuts[j] + 1
        x = xr[i]
        if x < 1 or x > bins:
            continue
        v = Vr[j]
        rm = 0.0 if math.isnan(v) else h
        start = moment_start[0, j]
        n = -rm
        s1 = -rm * v if rm > 0 else 0.0
        s2 = -rm * v * v if rm > 0 else 0.0
        for yy in range(k):
            base = (start + yy) * 3
            n += sums[base]
            s1 += sums[base + 1]
            s2 += sums[base + 2]
        if n <= 0:
            continue
        mean = s1 / n
        sd = math.sqrt(max(s2 / n - mean * mean, 0.0))
        if sd <= 0:
            continue  # width 1
        lo = mean - 3.0 * sd if x == 1 else cuts[j, x - 2]
        hi = mean + 3.0 * sd if x == bins else cuts[j, x - 1]
        out[i] = math.log(max(hi - lo, 0.1 * sd))


@njit(cache=True, inline="always")
def pooled_without_row(sums, start, k, h, v, floor_ratio):
    """The class-pooled moments of a numeric child (class-level block from cell ``start``)
    with amount ``h`` of a row of value ``v`` removed: (weight, sum, sum of squares, mean,
    variance floor, pooled variance), as :meth:`seminaive.tables.MomentTable.estimates`
    computes the pooled fallback and the floor (0.01 sd)^2 from them."""
    n_all = -h
    s1_all = -h * v
    s2_all = -h * v * v
    for yy in range(k):
        base = (start + yy) * 3
        n_all += sums[base]
        s1_all += sums[base + 1]
        s2_all += sums[base + 2]
    mu_all = s1_all / n_all if n_all > 0 else 0.0
    var_all = max(s2_all / n_all - mu_all * mu_all, 0.0) if n_all > 0 else 0.0
    floor = floor_ratio * floor_ratio * var_all if var_all > 0 else 1.0
    return n_all, s1_all, s2_all, mu_all, floor, max(var_all, floor)


@njit(cache=True, inline="always")
def class_level_without_row(sums, start, yy, rm, v, mu_all, pooled_var, floor):
    """Class-level (mean, floored variance) of class ``yy`` with amount ``rm`` of a row of
    value ``v`` removed; a class left with at most one row takes the pooled moments, as
    :meth:`seminaive.tables.MomentTable.estimates` does."""
    base = (start + yy) * 3
    n0 = sums[base] - rm
    if n0 > 1:
        m0 = (sums[base + 1] - rm * v) / n0
        v0 = max((sums[base + 2] - rm * v * v) / n0 - m0 * m0, 0.0)
    else:
        m0 = mu_all
        v0 = pooled_var
    return m0, max(v0, floor)


@njit(cache=True, inline="always")
def _row_cell(xr, g, d, combos, sizes):
    """The cell of combination g (order ``d``) at the row's codes ``xr``; -1 when a member
    is missing (code 0)."""
    cell = 0
    for t in range(d):
        att = combos[g, t]
        if xr[att] == 0:
            return -1
        cell = cell * sizes[att] + xr[att]
    return cell


@njit(cache=True, inline="always")
def student_log_pdf(v, mean, var, nu):
    """log of the posterior predictive of a normal-inverse-gamma posterior with mean
    ``mean``, variance estimate ``var`` and ``nu`` = kappa + N: Student's t with ``nu``
    degrees of freedom and squared scale ``var (nu + 1) / nu``, as
    :func:`normal_inverse_gamma_predictive` and :func:`student_terms` give it."""
    scale2 = var * (nu + 1.0) / nu
    dv = v - mean
    return (math.lgamma(0.5 * (nu + 1.0)) - math.lgamma(0.5 * nu)
            - 0.5 * math.log(nu * math.pi * scale2)
            - 0.5 * (nu + 1.0) * math.log1p(dv * dv / (nu * scale2)))


@njit(cache=True, inline="always")
def _as_gaussian(v, log_pdf):
    """(mean, variance) of the Gaussian centred on ``v`` whose log density at ``v`` is
    ``log_pdf`` (the exponent clipped at 700, a density below e^-350)."""
    return v, math.exp(min(-2.0 * log_pdf - _LOG_2PI, 700.0))


@njit(cache=True)
def loo_estimates(xr, Vr, yt, h, lattice, gl, floor, est_mean, est_var):
    """Leave-one-out Gaussian estimates of every numeric child given every parent
    combination g of order < ``n_levels`` at the row's own parent values:
    ``est_mean[g, j, y]``, ``est_var[g, j, y]``, as
    :meth:`seminaive.tables.MomentTable.estimates` computes them from the moments with the
    held-out row (class ``yt``, amount ``h``, numeric values ``Vr``) removed, along the whole
    shrinkage chain (the coarser estimate of g: the mean of those of g minus one member).
    The class-level estimates, the pooled fallback of a class with at most one row and the
    variance floor (from the overall variance) all lose the row.  Entries of a child whose
    value the row lacks, and of combinations with an unobserved member, are not written.

    With ``gl.student`` (``density="student"``) the class level shrinks towards the pooled
    moments too (``class_prior=True``), and once the chain is done every entry is replaced
    by the Gaussian centred on the row's own value whose log density there is that of the
    posterior predictive Student's t (:func:`student_log_pdf`, kappa + N degrees of freedom,
    N the weight of the cell's rows without the row): the kernels read only
    ``log_density(Vr[j], est_mean, est_var)``, which then is the Student-t's.

    ``lattice`` is the tuple ``(combos, orders, order_first, sub_index, sizes, k)`` of the
    table's combinations and ``gl`` a :class:`GaussianLoo`; the written arrays ``floor``,
    ``est_mean`` and ``est_var`` are passed on their own."""
    combos, orders, order_first, sub_index, sizes, k = lattice
    moment_start, sums, kappa, floor_ratio = gl.moment_start, gl.sums, gl.kappa, gl.floor_ratio
    n_levels, student = gl.n_levels, gl.student
    n_num = Vr.size
    for j in range(n_num):
        v = Vr[j]
        if math.isnan(v):
            continue
        start = moment_start[0, j]
        n_all, s1_all, s2_all, mu_all, fl, pooled_var = pooled_without_row(
            sums, start, k, h, v, floor_ratio)
        floor[j] = fl
        if student:
            for yy in range(k):
                rm = h if yy == yt else 0.0
                base = (start + yy) * 3
                est_mean[0, j, yy], est_var[0, j, yy] = _shrunk(
                    sums[base] - rm, sums[base + 1] - rm * v, sums[base + 2] - rm * v * v,
                    mu_all, pooled_var, kappa, fl)
            continue
        for yy in range(k):
            est_mean[0, j, yy], est_var[0, j, yy] = class_level_without_row(
                sums, start, yy, h if yy == yt else 0.0, v, mu_all, pooled_var, fl)
    # the cell of every combination at the row's codes (-1: a member is missing), found
    # once for the chain and the Student-t pass below
    cells = np.empty(order_first[n_levels], dtype=np.int64)
    cells[:order_first[1]] = 0
    for g in range(order_first[1], order_first[n_levels]):
        d = orders[g]
        cell = _row_cell(xr, g, d, combos, sizes)
        cells[g] = cell
        if cell < 0:
            continue
        for j in range(n_num):
            v = Vr[j]
            start = moment_start[g, j]
            if start < 0 or math.isnan(v):
                continue
            for yy in range(k):
                mu0 = 0.0
                var0 = 0.0
                for p in range(d):
                    sub = sub_index[g, p]
                    mu0 += est_mean[sub, j, yy]
                    var0 += est_var[sub, j, yy]
                mu0 /= d
                var0 /= d
                rm = h if yy == yt else 0.0
                base = (start + cell * k + yy) * 3
                n = sums[base] - rm
                s1 = sums[base + 1] - rm * v
                s2 = sums[base + 2] - rm * v * v
                xbar = s1 / n if n > 0 else mu0
                ss = max(s2 - n * xbar * xbar, 0.0)
                denom = n + kappa
                est_mean[g, j, yy] = (s1 + kappa * mu0) / denom
                est_var[g, j, yy] = max(
                    (ss + kappa * var0 + n * kappa / denom * (xbar - mu0) ** 2) / denom,
                    floor[j])
    if not student:
        return
    # the chain reads the posterior estimates of the coarser combinations: replace them
    # only once every entry is final
    for g in range(order_first[n_levels]):
        cell = cells[g]
        if cell < 0:
            continue
        for j in range(n_num):
            v = Vr[j]
            start = moment_start[g, j]
            if start < 0 or math.isnan(v):
                continue
            for yy in range(k):
                n = sums[(start + cell * k + yy) * 3] - (h if yy == yt else 0.0)
                est_mean[g, j, yy], est_var[g, j, yy] = _as_gaussian(
                    v, student_log_pdf(v, est_mean[g, j, yy], est_var[g, j, yy],
                                       max(n, 0.0) + kappa))


@njit(cache=True, inline="always")
def _shrunk(n, s1, s2, mu0, var0, kappa, floor):
    """(mean, floored variance) of a cell's moments (weight ``n``, sum ``s1``, sum of
    squares ``s2``) shrunk towards (``mu0``, ``var0``) with ``kappa`` pseudo-rows, as
    :meth:`seminaive.tables.MomentTable.estimates`."""
    xbar = s1 / n if n > 0 else mu0
    ss = max(s2 - n * xbar * xbar, 0.0)
    denom = n + kappa
    return ((s1 + kappa * mu0) / denom,
            max((ss + kappa * var0 + n * kappa / denom * (xbar - mu0) ** 2) / denom, floor))
