"""The randomised MDL splitting of one column (Zhang, Petitjean & Buntine 2020), compiled.

:class:`seminaive.preprocessing.RandomizedMDLDiscretizer` draws every cut of a column in
proportion to its Fayyad & Irani (1993) MDL margin, range after range, draw after draw.
:func:`randomized_mdl_draws` runs that recursion for all the draws of one column in one
call, on the column's cumulated class counts over its sorted distinct values, with the
uniform numbers the discretiser's random stream gives in the same order.  Every margin is
computed with the floating-point operations of the discretiser's numpy expressions in the
same order (:func:`range_margins`), so the cuts are the same bit for bit: the sum over the
classes of a range's candidates adds the classes one after the other, as numpy's sum over
the first axis of a (classes, candidates) array does, except for a single candidate (and
for the class totals of the range), which numpy sums pairwise (:func:`pairwise_sum`).
"""

import numpy as np

from ._jit import njit

#: Weka's ContingencyTables.log2 = Math.log(2)
_LN2 = 0.6931471805599453


@njit(cache=True)
def _block_sum(a, lo, hi):
    """numpy's pairwise summation of at most 128 numbers ``a[lo:hi]``: eight accumulators
    over the blocks of eight, then the rest one by one; plainly below 8 numbers."""
    n = hi - lo
    if n < 8:
        res = 0.0
        for i in range(lo, hi):
            res += a[i]
        return res
    r0 = a[lo]
    r1 = a[lo + 1]
    r2 = a[lo + 2]
    r3 = a[lo + 3]
    r4 = a[lo + 4]
    r5 = a[lo + 5]
    r6 = a[lo + 6]
    r7 = a[lo + 7]
    i = 8
    stop = n - n % 8
    while i < stop:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True)
def pairwise_sum(a, lo, hi):
    """numpy's pairwise summation of ``a[lo:hi]`` (its ``np.add.reduce`` of a contiguous
    float64 vector): above 128 numbers, the sum of the pairwise sums of the first
    ``n // 2`` (rounded down to a multiple of 8) and of the rest; at most 128,
    :func:`_block_sum`.  The halving runs on an explicit stack (numba's cache does not
    keep a recursive kernel safely)."""
    if hi - lo <= 128:
        return _block_sum(a, lo, hi)
    los = np.empty(128, dtype=np.int64)
    his = np.empty(128, dtype=np.int64)
    stage = np.zeros(128, dtype=np.int64)
    sums = np.empty(128)
    top = 0
    n_sums = 0
    los[0] = lo
    his[0] = hi
    while top >= 0:
        l0 = los[top]
        h0 = his[top]
        n = h0 - l0
        if n <= 128:
            sums[n_sums] = _block_sum(a, l0, h0)
            n_sums += 1
            top -= 1
            continue
        half = n // 2
        half -= half % 8
        if stage[top] == 0:  # the first part next
            stage[top] = 1
            top += 1
            los[top], his[top], stage[top] = l0, l0 + half, 0
        elif stage[top] == 1:  # then the rest
            stage[top] = 2
            top += 1
            los[top], his[top], stage[top] = l0 + half, h0, 0
        else:  # both parts summed
            sums[n_sums - 2] = sums[n_sums - 2] + sums[n_sums - 1]
            n_sums -= 1
            top -= 1
    return sums[0]


@njit(cache=True)
def range_margins(cum, cum_rows, a, b, tables, gain, margin):
    """Information gain and MDL margin of every candidate cut of the range ``[a, b)`` of
    distinct values (``b - a >= 2``) into ``gain[:b - a - 1]`` and ``margin[:b - a - 1]``:
    :func:`seminaive.preprocessing.discretize.mdl_margins`, operation for operation.

    ``tables`` is ``(nlogn, log2_minus_1, log2_3k)``: ``n ln n``, ``log2(n - 1)`` (for n
    rows) and ``log2(3**k - 2)`` (for k classes), computed as the discretiser does."""
    nlogn, log2_minus_1, log2_3k = tables
    n_classes = cum.shape[0]
    n = b - a - 1
    n_rows = cum_rows[b] - cum_rows[a]
    terms = np.empty(n_classes)
    k = 0
    for c in range(n_classes):
        p = cum[c, b] - cum[c, a]
        terms[c] = nlogn[p]
        if p > 0:
            k += 1
    scale = n_rows * _LN2
    # np.int64(0): a literal 0 is typed Literal[int](0), another specialisation of the
    # kernels it is passed to than their other calls'
    prior_ent = (nlogn[n_rows] - pairwise_sum(terms, np.int64(0), n_classes)) / scale
    s_left = np.zeros(n)
    s_right = np.zeros(n)
    k_left = np.zeros(n, dtype=np.int64)
    k_right = np.zeros(n, dtype=np.int64)
    if n == 1:  # numpy sums the classes of a single candidate pairwise
        right_terms = np.empty(n_classes)
        for c in range(n_classes):
            left = cum[c, a + 1] - cum[c, a]
            right = cum[c, b] - cum[c, a + 1]
            terms[c] = nlogn[left]
            right_terms[c] = nlogn[right]
            k_left[0] += left > 0
            k_right[0] += right > 0
        s_left[0] = pairwise_sum(terms, np.int64(0), n_classes)
        s_right[0] = pairwise_sum(right_terms, np.int64(0), n_classes)
    else:  # and those of several candidates class after class
        for c in range(n_classes):
            base = cum[c, a]
            total = cum[c, b] - base
            for j in range(n):
                left = cum[c, a + 1 + j] - base
                s_left[j] += nlogn[left]
                s_right[j] += nlogn[total - left]
                k_left[j] += left > 0
                k_right[j] += total - left > 0
    k_prior = k * prior_ent
    bits = log2_minus_1[n_rows]
    for j in range(n):
        n_left = cum_rows[a + 1 + j] - cum_rows[a]
        n_right = n_rows - n_left
        cond_ent = -(s_left[j] - nlogn[n_left] + s_right[j] - nlogn[n_right]) / scale
        g = prior_ent - cond_ent
        ent_left = (nlogn[n_left] - s_left[j]) / (n_left * _LN2)
        ent_right = (nlogn[n_right] - s_right[j]) / (n_right * _LN2)
        delta = log2_3k[k] - (k_prior - k_right[j] * ent_right - k_left[j] * ent_left)
        gain[j] = g
        margin[j] = g - (bits + delta) / n_rows


@njit(cache=True)
def _draw(weights, n, u):
    """:func:`seminaive.preprocessing.discretize.draw_index` of ``weights[:n]``."""
    total = 0.0
    cdf = np.empty(n)
    for j in range(n):
        total += weights[j]
        cdf[j] = total
    return min(np.searchsorted(cdf, u * total, side="right"), n - 1)


@njit(cache=True)
def randomized_mdl_draws(cum, cum_rows, tables, uniforms, n_draws, cuts, draw_ends):
    """The cuts of ``n_draws`` randomised MDL discretisations of one column.

    Each draw splits the column's distinct values recursively, the left side first (the
    discretiser's stack): a range's cut is drawn among its candidates in proportion to
    their positive MDL margins, with the next number of ``uniforms``; a range with none is
    not split, except the whole column, whose one cut is then drawn in proportion to the
    positive information gains (and not split further).

    Parameters
    ----------
    cum : ndarray of shape (n_classes, n_groups + 1), int64
        Cumulated class counts over the sorted distinct values.
    cum_rows : ndarray of shape (n_groups + 1,), int64
        Cumulated row counts.
    tables : tuple
        ``(nlogn, log2_minus_1, log2_3k)`` of :func:`range_margins`.
    uniforms : ndarray of float64
        The uniform numbers, used in order.
    n_draws : int
        Number of draws.
    cuts : ndarray of int64
        Out: the group after which each cut falls, draw after draw (in drawing order).
    draw_ends : ndarray of shape (n_draws,), int64
        Out: the end of every draw's cuts in ``cuts``.

    Returns
    -------
    used : int
        Uniform numbers used; -1 if ``uniforms`` ran out (nothing else is meaningful).
    """
    g = cum_rows.size - 1
    gain = np.empty(max(g - 1, 1))
    margin = np.empty(max(g - 1, 1))
    weights = np.empty(max(g - 1, 1))
    # the whole column's margins are the same in every draw
    top_gain = np.empty(max(g - 1, 1))
    top_margin = np.empty(max(g - 1, 1))
    # typed 0 (see range_margins)
    range_margins(cum, cum_rows, np.int64(0), g, tables, top_gain, top_margin)
    stack_a = np.empty(g + 1, dtype=np.int64)
    stack_b = np.empty(g + 1, dtype=np.int64)
    used = 0
    n_cuts = 0
    for d in range(n_draws):
        stack_a[0] = 0
        stack_b[0] = g
        depth = 1
        while depth > 0:
            depth -= 1
            a = stack_a[depth]
            b = stack_b[depth]
            if b - a < 2:
                continue
            top = a == 0 and b == g  # no range below the whole column is that wide
            n = b - a - 1
            if top:
                gains, margins = top_gain, top_margin
            else:
                range_margins(cum, cum_rows, a, b, tables, gain, margin)
                gains, margins = gain, margin
            positive = False
            for j in range(n):
                w = margins[j] if margins[j] > 0 else 0.0
                weights[j] = w
                if w > 0:
                    positive = True
            further = True
            if not positive:
                if not top:
                    continue
                for j in range(n):
                    w = gains[j] if gains[j] > 0 else 0.0
                    weights[j] = w
                    if w > 0:
                        positive = True
                if not positive:
                    continue
                further = False
            if used == uniforms.size:
                return -1
            t = a + _draw(weights, n, uniforms[used])
            used += 1
            cuts[n_cuts] = t
            n_cuts += 1
            if further:
                stack_a[depth] = t + 1
                stack_b[depth] = b
                stack_a[depth + 1] = a
                stack_b[depth + 1] = t + 1
                depth += 2
        draw_ends[d] = n_cuts
    return used
