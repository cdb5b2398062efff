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

The recursion compiles as one kernel: its helpers (:func:`_range_margins`, :func:`_pairwise`,
:func:`_draw`) are inlined, each called from one place, and only :func:`_block_sum` compiles
apart (inlined, it costs the kernel more to compile than on its own), never called with a
constant argument, which numba would compile as a separate literal
specialisation.  :func:`range_margins` and :func:`pairwise_sum` are the helpers with their
own working arrays, for the tests.
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


@njit(cache=True, inline="always")
def _pairwise(a, lo, hi, stack, sums):
    """numpy's pairwise summation of ``a[lo:hi]`` (its ``np.add.reduce`` of a contiguous
    float64 vector): above 128 numbers, the sum of the pairwise sums of the first
    ``n // 2`` (rounded down to a multiple of 8) and of the rest; at most 128,
    :func:`_block_sum`.  The halving runs on an explicit stack (numba's cache does not
    keep a recursive kernel safely): ``stack``, int64 of shape (3, 128), and ``sums``,
    float64 of shape (128,), are its scratch space.  (Inlined into its caller, with one
    call of :func:`_block_sum`, itself inlined: nothing of it compiles apart.)"""
    top = 0
    n_sums = 0
    stack[0, 0] = lo
    stack[1, 0] = hi
    stack[2, 0] = 0
    while top >= 0:
        l0 = stack[0, top]
        h0 = stack[1, top]
        n = h0 - l0
        if n <= 128:
            sums[n_sums] = _block_sum(a, l0, h0)
            n_sums += 1
            top -= 1
            continue
        half = n // 2
        half -= half % 8
        stage = stack[2, top]
        if stage == 0:  # the first part next
            stack[2, top] = 1
            top += 1
            stack[0, top], stack[1, top], stack[2, top] = l0, l0 + half, 0
        elif stage == 1:  # then the rest
            stack[2, top] = 2
            top += 1
            stack[0, top], stack[1, top], stack[2, top] = l0 + half, h0, 0
        else:  # both parts summed
            sums[n_sums - 2] = sums[n_sums - 2] + sums[n_sums - 1]
            n_sums -= 1
            top -= 1
    return sums[0]


@njit(cache=True)
def pairwise_sum(a, lo, hi):
    """numpy's pairwise summation of ``a[lo:hi]`` (:func:`_pairwise` with its own scratch
    space; the kernels inline :func:`_pairwise` instead)."""
    return _pairwise(a, lo, hi, np.empty((3, 128), dtype=np.int64), np.empty(128))


@njit(cache=True, inline="always")
def _margin_work(n_classes, n_groups):
    """The working arrays of :func:`_range_margins` for ranges of up to ``n_groups``
    distinct values: ``(terms, s_left, s_right, k_left, k_right, stack, sums)``, the
    prior's, the left side's and the right side's terms of the classes (3, n_classes), the
    candidates' sums and counts of classes (``n_groups - 1``), and :func:`_pairwise`'s
    scratch space."""
    m = max(n_groups - 1, 1)
    return (np.empty((3, n_classes)), np.empty(m), np.empty(m), np.empty(m, dtype=np.int64),
            np.empty(m, dtype=np.int64), np.empty((3, 128), dtype=np.int64), np.empty(128))


@njit(cache=True, inline="always")
def _range_margins(cum, cum_rows, a, b, tables, gain, margin, work):
    """:func:`range_margins` with the working arrays ``work`` (:func:`_margin_work`, for
    at least ``b - a`` distinct values).  Inlined into its caller: the three class sums of
    a single candidate and the range's class totals go through one inlined
    :func:`_pairwise`."""
    nlogn, log2_minus_1, log2_3k = tables
    terms, s_left, s_right, k_left, k_right, stack, sums = work
    n_classes = cum.shape[0]
    n = b - a - 1
    n_rows = cum_rows[b] - cum_rows[a]
    k = 0
    for c in range(n_classes):
        p = cum[c, b] - cum[c, a]
        terms[0, c] = nlogn[p]
        if p > 0:
            k += 1
    for j in range(n):
        s_left[j] = 0.0
        s_right[j] = 0.0
        k_left[j] = 0
        k_right[j] = 0
    if n == 1:  # numpy sums the classes of a single candidate pairwise
        for c in range(n_classes):
            left = cum[c, a + 1] - cum[c, a]
            right = cum[c, b] - cum[c, a + 1]
            terms[1, c] = nlogn[left]
            terms[2, c] = nlogn[right]
            k_left[0] += left > 0
            k_right[0] += right > 0
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
    prior_sum = 0.0
    for which in range(3 if n == 1 else 1):  # the class totals; a single candidate's sides
        summed = _pairwise(terms[which], 0, n_classes, stack, sums)
        if which == 0:
            prior_sum = summed
        elif which == 1:
            s_left[0] = summed
        else:
            s_right[0] = summed
    scale = n_rows * _LN2
    prior_ent = (nlogn[n_rows] - prior_sum) / scale
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
def range_margins(cum, cum_rows, a, b, tables, gain, margin):
    """Information gain and MDL margin of every candidate cut of the range ``[a, b)`` of
    distinct values (``b - a >= 2``) into ``gain[:b - a - 1]`` and ``margin[:b - a - 1]``:
    :func:`seminaive.preprocessing.discretize.mdl_margins`, operation for operation.

    ``tables`` is ``(nlogn, log2_minus_1, log2_3k)``: ``n ln n``, ``log2(n - 1)`` (for n
    rows) and ``log2(3**k - 2)`` (for k classes), computed as the discretiser does.
    (:func:`_range_margins` with its own working arrays; :func:`randomized_mdl_draws`
    inlines :func:`_range_margins` instead.)"""
    _range_margins(cum, cum_rows, a, b, tables, gain, margin,
                   _margin_work(cum.shape[0], b - a))


@njit(cache=True, inline="always")
def _draw(weights, n, u):
    """:func:`seminaive.preprocessing.discretize.draw_index` of ``weights[:n]`` (the
    weights non-negative: the first index whose cumulated weight exceeds ``u`` times the
    total, as numpy's ``searchsorted(..., side="right")`` of the cumulated weights finds
    it)."""
    total = 0.0
    for j in range(n):
        total += weights[j]
    target = u * total
    run = 0.0
    for j in range(n):
        run += weights[j]
        if run > target:
            return j
    return n - 1


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
    # the whole column's margins are the same in every draw: computed at its first range
    top_gain = np.empty(max(g - 1, 1))
    top_margin = np.empty(max(g - 1, 1))
    top_done = False
    work = _margin_work(cum.shape[0], g)
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
            gains = top_gain if top else gain
            margins = top_margin if top else margin
            if not (top and top_done):  # the one call: the kernel inlines it
                _range_margins(cum, cum_rows, a, b, tables, gains, margins, work)
                top_done = top_done or top
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
