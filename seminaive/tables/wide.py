"""Parent-major AnDE scoring for wide data: one contiguous region per parent cell.

The combination-major log tables of :mod:`.smoothing` hold one block per child combination
h of order n + 1, so one row reads one scattered cache line per (parent combination, child)
pair: with A2DE on 50 attributes that is tens of thousands of cache lines spread over
hundreds of megabytes.  Webb et al. (2012, §4.5) concluded that A2DE would not be feasible
for classifying many high-dimensional objects for this reason.

The parent-major layout rearranges the same numbers: for every parent combination s of order
n and every cell x_s, one contiguous region

    [ log P(y, x_s) for every class | log P(x_i = v | y, x_s) for every attribute i, value
      v (storage code, 0 = missing) and class y ]

with 0.0 where i is a member of s and where v is the missing code, so that scoring a row
needs no branch.  A block of thousands of rows is scored against one parent combination at
a time (its regions, a few hundred kilobytes, stay in cache while every row of the block
reads them) and the sub-model scores are combined online per row: a running maximum and
scaled sum per class for the log-sum-exp, a running weight total for weighted sub-models and
vote counts, so no (parents x rows) accumulator is needed.

In float64 a sub-model's score adds exactly the same numbers in exactly the same order as
:func:`.scoring._predict_scores` (the log joint, then the children in increasing attribute
index; adding 0.0 changes nothing), so only the combination over sub-models differs, by
rounding.  Rows in which no parent combination qualifies cascade to order n - 1 with the
code of :mod:`.scoring`.
"""

import math
from typing import NamedTuple

import numpy as np

from ..kernels._jit import get_num_threads, njit, prange
from ..kernels._threads import NO_PARFORS, parallel_calls, parts
from ..kernels.smoothing import pseudo_counts
from .scoring import (
    AGGREGATE_POSTERIOR,
    AGGREGATE_VOTE,
    ScoringTables,
    cascade_row,
    vote_winner,
)

#: rows scored together against one parent combination (its regions stay in cache)
WIDE_BLOCK_ROWS = 16_384


class ScoringModel(NamedTuple):
    """An AnDE model as the kernels of this module read it (read only), bundled.

    Attributes
    ----------
    n : int
        The order of the parent combinations of the sub-models.
    max_order : int
        The highest order of the table.
    combos : ndarray of int64
        The members of every combination, padded with -1.
    offsets : ndarray of int64
        Start of every combination's log joints in ``lj`` (and, weighted, of its cells'
        log weights in ``lw``, times k).
    sizes : ndarray of int64
        The extent of every attribute.
    k : int
        Number of classes.
    order_first : ndarray of int64
        The first combination of every order.
    lj, lc, lc_offsets : ndarray
        The log joints, the log conditionals and the starts of their blocks.
    sub_index : ndarray of int64
        ``sub_index[g, p]``: combination g without its member p.
    aggregate : int
        How the sub-models are combined (``AGGREGATE_*`` of :mod:`.scoring`).
    weighted : bool
        Whether the sub-models are weighted by ``lw``.
    lw : ndarray of float64
        Log weight of every parent cell (read only when ``weighted``).
    """

    n: int
    max_order: int
    combos: np.ndarray
    offsets: np.ndarray
    sizes: np.ndarray
    k: int
    order_first: np.ndarray
    lj: np.ndarray
    lc: np.ndarray
    lc_offsets: np.ndarray
    sub_index: np.ndarray
    aggregate: int
    weighted: bool
    lw: np.ndarray


class ParentMajorIndex(NamedTuple):
    """Where the regions of the parent-major layout are (read only), bundled.

    Attributes
    ----------
    parents : ndarray of int64
        Global index of the j-th parent combination of the layout.
    offsets : ndarray of int64
        Start of the j-th parent combination's regions.
    att_off : ndarray of int64
        Start of attribute i within a region, after the k log joints.
    region : int
        Entries of one region.
    ridx, cell_first : ndarray of int64
        A compact selective table (:func:`build_compact_regions`): the region of parent
        cell ``cell`` of the j-th parent combination is ``ridx[cell_first[j] + cell]``
        (-1: it does not qualify); empty otherwise (``offsets[j] // region + cell``).
    """

    parents: np.ndarray
    offsets: np.ndarray
    att_off: np.ndarray
    region: int
    ridx: np.ndarray
    cell_first: np.ndarray


class CompactLayout(NamedTuple):
    """The compact counts of a selective table's parent cells (read only), bundled for
    :func:`build_compact_regions`.

    Attributes
    ----------
    p_globals : ndarray of int64
        Global index of the j-th parent combination.
    p_combos : ndarray of int64
        Its members.
    cell_first : ndarray of int64
        Start of its parent cells in ``slot_of``.
    slot_of : ndarray of int64
        The slot of every parent cell (-1: no counts stored).
    sizes : ndarray of int64
        The extent of every attribute.
    k : int
        Number of classes.
    counts : ndarray of float64
        The counts of every slot, ``count_region`` entries each.
    att_off : ndarray of int64
        Start of attribute i within a slot's counts.
    count_region : int
        Counts per slot.
    n_slots : int
        Number of slots.
    """

    p_globals: np.ndarray
    p_combos: np.ndarray
    cell_first: np.ndarray
    slot_of: np.ndarray
    sizes: np.ndarray
    k: int
    counts: np.ndarray
    att_off: np.ndarray
    count_region: int
    n_slots: int


def parent_major_shape(n, max_order, offsets, sizes, k, order_first, sub_index):
    """The parent combinations of the layout and its size, without allocating it.

    Returns ``(parents, region, n_entries)``: the global indices of the parent combinations
    of order n that are present (every one, unless a child combination's ``sub_index`` entry
    is -1 so that some parent is never referred to), the length of one cell's region
    (k + k * sum(sizes)) and the total number of entries.
    """
    p_first, p_last = int(order_first[n]), int(order_first[n + 1])
    present = np.ones(p_last - p_first, dtype=bool)
    d = n + 1
    if n > 0 and d <= max_order:
        subs = sub_index[int(order_first[d]):int(order_first[d + 1]), :d]
        subs = subs[subs >= 0]
        present[:] = False
        present[subs - p_first] = True
    parents = np.arange(p_first, p_last, dtype=np.int64)[present]
    region = int(k + k * int(np.sum(sizes)))
    cells = (offsets[parents + 1] - offsets[parents]) // k
    return parents, region, int(cells.sum()) * region


def build_parent_major(model, offsets, index, parent_pos, out):
    """Fill ``out`` (zeros on entry, float64 or float32) with the parent-major layout of the
    :class:`ScoringModel` ``model`` at the places of the :class:`ParentMajorIndex` ``index``.

    ``parent_pos`` is the position of a parent combination in ``index.parents`` by
    ``g - order_first[n]`` (-1: absent), ``offsets`` the blocks of the counts (the cells of
    every combination; ``model.offsets`` are those of the log joints, the same except for a
    selective table).

    The parent combinations, then the child combinations, are split evenly over the
    threads (``parallel_calls``).
    """
    n, max_order, order_first = model.n, model.max_order, model.order_first
    work = out.size
    parallel_calls(_pm_joints, [(model, offsets, index, lo, hi, out)
                                for lo, hi in parts(index.parents.size, work)])
    d = n + 1
    if d > max_order:
        return
    h0, h1 = int(order_first[d]), int(order_first[d + 1])
    parallel_calls(_pm_children, [(model, offsets, index, parent_pos, h0 + lo, h0 + hi, out)
                                  for lo, hi in parts(h1 - h0, work)])


@njit(cache=True, nogil=True)
def _pm_joints(model, offsets, index, j0, j1, out):
    """The log joints of the regions of the parent combinations ``j0 .. j1 - 1`` of
    :func:`build_parent_major`."""
    k, lj, lj_offsets = model.k, model.lj, model.offsets
    parents, pm_offsets, region = index.parents, index.offsets, index.region
    for j in range(j0, j1):
        g = parents[j]
        n_cells = (offsets[g + 1] - offsets[g]) // k
        for c in range(n_cells):
            for yy in range(k):
                out[pm_offsets[j] + c * region + yy] = lj[lj_offsets[g] + c * k + yy]


@njit(cache=True, nogil=True)
def _pm_children(model, offsets, index, parent_pos, h0, h1, out):
    """The log conditionals of the child combinations ``h0 .. h1 - 1`` (order n + 1) in
    the regions of :func:`build_parent_major`."""
    n, combos, sizes, k, order_first = model.n, model.combos, model.sizes, model.k, \
        model.order_first
    lc, lc_offsets, sub_index = model.lc, model.lc_offsets, model.sub_index
    pm_offsets, att_off, region = index.offsets, index.att_off, index.region
    d = n + 1
    p_first = order_first[n]
    for h in range(h0, h1):
        n_cells = (offsets[h + 1] - offsets[h]) // k
        for p in range(d):
            g = sub_index[h, p]
            if g < 0:
                continue
            j = parent_pos[g - p_first]
            if j < 0:
                continue
            child = combos[h, p]
            for cell in range(n_cells):
                # digits of the cell (last member fastest): the child's value and the
                # parent cell (the other members, in order)
                rest = cell
                value = 0
                parent_cell = 0
                scale = 1
                for t in range(d - 1, -1, -1):
                    s_att = sizes[combos[h, t]]
                    digit = rest % s_att
                    rest //= s_att
                    if t == p:
                        value = digit
                    else:
                        parent_cell += digit * scale
                        scale *= s_att
                dst = pm_offsets[j] + parent_cell * region + k + att_off[child] + value * k
                src = lc_offsets[h] + (cell * d + p) * k
                for yy in range(k):
                    out[dst + yy] = lc[src + yy]


@njit(cache=True, inline="always")
def _add_term(mx, sm, r, yy, v):
    """Online log-sum-exp: add exp(v) to the running (max mx, scaled sum sm) of row r."""
    if v > mx[r, yy]:
        sm[r, yy] = sm[r, yy] * math.exp(mx[r, yy] - v) + 1.0
        mx[r, yy] = v
    elif v > -np.inf:
        sm[r, yy] += math.exp(v - mx[r, yy])


@njit(cache=True, inline="always")
def _update_row(r, acc, q, lwv, k, aggregate, weighted, mx, sm, mw, sw, used):
    """Combine sub-model scores ``acc[q, :]`` (log weight ``lwv``) into row r's running
    state: ``used``, then vote weights or the per-class log-sum-exp, and the weight total."""
    used[r] += 1
    if aggregate == AGGREGATE_VOTE:
        win = vote_winner(acc, q, k)
        if not weighted:
            sm[r, win] += 1.0
            return
        if lwv > mw[r]:
            scale = math.exp(mw[r] - lwv)
            sw[r] = sw[r] * scale + 1.0
            for yy in range(k):
                sm[r, yy] *= scale
            sm[r, win] += 1.0
            mw[r] = lwv
        else:
            e = math.exp(lwv - mw[r])
            sw[r] += e
            sm[r, win] += e
        return
    if aggregate == AGGREGATE_POSTERIOR:
        top = acc[q, 0]
        for yy in range(1, k):
            top = max(top, acc[q, yy])
        tot = 0.0
        for yy in range(k):
            tot += math.exp(acc[q, yy] - top)
        norm = top + math.log(tot)
        for yy in range(k):
            acc[q, yy] -= norm
    if weighted:
        if lwv > mw[r]:
            sw[r] = sw[r] * math.exp(mw[r] - lwv) + 1.0
            mw[r] = lwv
        else:
            sw[r] += math.exp(lwv - mw[r])
        for yy in range(k):
            _add_term(mx, sm, r, yy, acc[q, yy] + lwv)
    else:
        for yy in range(k):
            _add_term(mx, sm, r, yy, acc[q, yy])


@njit(cache=True, inline="always")
def _parent_cell(X, row, g, n, combos, sizes):
    cell = 0
    for t in range(n):
        att = combos[g, t]
        cell = cell * sizes[att] + X[row, att]
    return cell


@njit(cache=True, inline="always")
def _qualifies(pm, base, weighted, lw, w_first, cell):
    """Log weight of the sub-model of a row (0.0 unweighted), NaN if it is not used."""
    if math.isnan(pm[base]):
        return np.nan
    if weighted:
        lwv = lw[w_first + cell]
        return np.nan if lwv == -np.inf else lwv
    return 0.0


#: rows whose sub-model sums run interleaved (independent addition chains)
_GROUP = 4


def wide_block_rows(n_rows, threads):
    """Rows per block: at most :data:`WIDE_BLOCK_ROWS`, and as many blocks for every
    thread."""
    n_blocks = -(-n_rows // WIDE_BLOCK_ROWS)
    n_blocks = min(max(n_rows // _GROUP, 1), -(-n_blocks // threads) * threads)
    return max(-(-n_rows // n_blocks), 1)


_NO_INDEX = np.zeros(0, dtype=np.int64)


def predict_scores_wide(X, model, index, pm, out, pending=None):
    """Per-class AnDE scores of the :class:`ScoringModel` ``model`` from the parent-major
    layout ``pm`` at the places of the :class:`ParentMajorIndex` ``index``; see
    :func:`_predict_scores_wide` (rows in blocks of :func:`wide_block_rows`).

    ``index.ridx`` and ``index.cell_first`` not empty (a compact selective table,
    :func:`build_compact_regions`): the region of parent cell ``cell`` of the j-th parent
    combination is ``ridx[cell_first[j] + cell]`` (-1: it does not qualify) rather than
    ``offsets[j] // region + cell``.  ``pending`` (bool, one per row): rows in which no
    sub-model is used are marked there and left to the caller instead of cascading.

    The rows that cascade are scored afterwards by :func:`_cascade_rows`, a kernel of its
    own that is compiled only when some row needs it."""
    n_rows = X.shape[0]
    block = wide_block_rows(n_rows, get_num_threads())
    mark = np.zeros(n_rows, dtype=np.bool_) if pending is None else pending
    n_blocks = -(-n_rows // block)
    parallel_calls(_predict_scores_wide, [(X, model, index, pm, mark, block, lo, hi, out)
                                          for lo, hi in parts(n_blocks)])
    if pending is not None:
        return
    rows = np.flatnonzero(mark)
    if rows.size:
        _cascade_rows(X, rows, model, out)


def parent_major_index(parents, offsets, att_off, region, ridx=None, cell_first=None):
    """A :class:`ParentMajorIndex` with the kernels' types (``ridx`` and ``cell_first``
    empty unless given)."""
    if ridx is None:
        ridx, cell_first = _NO_INDEX, _NO_INDEX
    return ParentMajorIndex(parents, offsets, att_off, int(region), ridx, cell_first)


def scoring_model(n, max_order, combos, offsets, sizes, k, order_first, lj, lc, lc_offsets,
                  sub_index, *, aggregate=0, weighted=False, lw=None):
    """A :class:`ScoringModel` with the kernels' types (one compiled signature)."""
    return ScoringModel(int(n), int(max_order), combos, offsets, sizes, int(k), order_first,
                        lj, lc, lc_offsets, sub_index, int(aggregate), bool(weighted),
                        _NO_WEIGHTS if lw is None else lw)


_NO_WEIGHTS = np.zeros(1)


@njit(parallel=True, cache=True)
def _cascade_rows(X, rows, model, out):
    """:func:`.scoring.cascade_row` for the ``rows`` of ``X`` in which no parent
    combination of order n is used."""
    n, max_order, combos, offsets, sizes, k, order_first, lj, lc, lc_offsets, sub_index, \
        aggregate, weighted, lw = model
    a = X.shape[1]
    widest = 0
    for level in range(n + 1):
        widest = max(widest, order_first[level + 1] - order_first[level])
    tables = ScoringTables(combos, offsets, sizes, k, order_first, max_order, lj, lc,
                           lc_offsets, sub_index)
    for q in prange(rows.size):
        r = rows[q]
        x = np.empty(a, dtype=np.int64)
        for i in range(a):
            x[i] = X[r, i]
        row_terms = np.empty((widest, k))
        row_w = np.empty(widest if weighted else 0)
        cascade_row(x, n, tables, aggregate, weighted, lw, row_terms, row_w, out[r])


@njit(cache=True, nogil=True, parallel=NO_PARFORS)
def _predict_scores_wide(X, model, index, pm, pending, block, b0, b1, out):
    """Per-class AnDE scores of the :class:`ScoringModel` ``model`` from the parent-major
    layout ``pm`` at the places of the :class:`ParentMajorIndex` ``index`` (see the module
    docstring); the same results as :func:`.scoring._predict_scores` with the same
    arguments.

    Per row, over the qualifying parent combinations s (and, ``weighted``, those whose cell
    log weight ``lw[offsets[s] // k + cell]`` is not -inf):

    JOINT:      out = log( sum_s w_s P_s(y, x) / W )
    POSTERIOR:  out = log( sum_s w_s P_s(y | x) / W )
    VOTE:       out = log( weight of the sub-models whose argmax is y / W )

    with w_s = 1 unweighted (W = number used).  Rows where none is used are marked in
    ``pending`` (their ``out`` is left unset).  Rows are scored in blocks of ``block`` rows,
    the blocks ``b0 .. b1 - 1`` in this call (the threads of
    ``parallel_calls`` take disjoint ranges of blocks; compiled with
    :data:`._threads.NO_PARFORS`), and within a block in groups of four rows: with two classes, the
    four rows are summed together (eight independent addition chains, each in the order of
    the combination-major kernel).  Every helper appears once in the loop body: each is
    inlined, so that the body compiles once per helper, not once per row of a group.
    """
    n, _, combos, offsets, sizes, k, _, _, _, _, _, aggregate, weighted, lw = model
    parents, pm_offsets, att_off, region, ridx, cell_first = index
    n_rows, a = X.shape
    n_par = parents.size
    compact = ridx.size > 0
    for b in range(b0, b1):
        r0 = b * block
        m = min(n_rows, r0 + block) - r0
        mx = np.full((m, k), -np.inf)  # running max (vote: unused)
        sm = np.zeros((m, k))  # scaled sums (vote: scaled vote weights)
        mw = np.full(m, -np.inf)  # running max of the log weights
        sw = np.zeros(m)  # scaled weight total
        used = np.zeros(m, dtype=np.int64)
        acc = np.empty((_GROUP, k))
        bases = np.empty(_GROUP, dtype=np.int64)
        lws = np.empty(_GROUP)
        for j in range(n_par):
            g = parents[j]
            base_j = pm_offsets[j]
            w_first = offsets[g] // k
            for r in range(0, m, _GROUP):
                size = min(_GROUP, m - r)
                n_used = 0
                for q in range(size):
                    cell = _parent_cell(X, r0 + r + q, g, n, combos, sizes)
                    if compact:
                        reg = ridx[cell_first[j] + cell]
                        bases[q] = max(reg, 0) * region  # region 0: read, unused
                        lws[q] = np.nan if reg < 0 else 0.0
                    else:
                        bases[q] = base_j + cell * region
                        lws[q] = _qualifies(pm, bases[q], weighted, lw, w_first, cell)
                    if not math.isnan(lws[q]):
                        n_used += 1
                if n_used == 0:
                    continue
                ra = r0 + r
                if k == 2 and size == _GROUP:
                    b0, b1, b2, b3 = bases[0], bases[1], bases[2], bases[3]
                    a00, a01 = np.float64(pm[b0]), np.float64(pm[b0 + 1])
                    a10, a11 = np.float64(pm[b1]), np.float64(pm[b1 + 1])
                    a20, a21 = np.float64(pm[b2]), np.float64(pm[b2 + 1])
                    a30, a31 = np.float64(pm[b3]), np.float64(pm[b3 + 1])
                    b0 += 2
                    b1 += 2
                    b2 += 2
                    b3 += 2
                    for i in range(a):
                        off = att_off[i]
                        i0 = b0 + off + X[ra, i] * 2
                        i1 = b1 + off + X[ra + 1, i] * 2
                        i2 = b2 + off + X[ra + 2, i] * 2
                        i3 = b3 + off + X[ra + 3, i] * 2
                        a00 += pm[np.uint64(i0)]
                        a01 += pm[np.uint64(i0 + 1)]
                        a10 += pm[np.uint64(i1)]
                        a11 += pm[np.uint64(i1 + 1)]
                        a20 += pm[np.uint64(i2)]
                        a21 += pm[np.uint64(i2 + 1)]
                        a30 += pm[np.uint64(i3)]
                        a31 += pm[np.uint64(i3 + 1)]
                    acc[0, 0], acc[0, 1] = a00, a01
                    acc[1, 0], acc[1, 1] = a10, a11
                    acc[2, 0], acc[2, 1] = a20, a21
                    acc[3, 0], acc[3, 1] = a30, a31
                else:
                    for q in range(size):
                        if math.isnan(lws[q]):
                            continue
                        base = bases[q]
                        for yy in range(k):
                            acc[q, yy] = pm[base + yy]
                        child = base + k
                        for i in range(a):
                            at = child + att_off[i] + X[ra + q, i] * k
                            for yy in range(k):
                                acc[q, yy] += pm[np.uint64(at + yy)]
                for q in range(size):
                    if not math.isnan(lws[q]):
                        _update_row(r + q, acc, q, lws[q], k, aggregate, weighted, mx, sm,
                                    mw, sw, used)
        for r in range(m):
            o = out[r0 + r]
            if used[r] == 0:
                pending[r0 + r] = True
                continue
            if aggregate == AGGREGATE_VOTE:
                total = sw[r] if weighted else float(used[r])
                for yy in range(k):
                    o[yy] = math.log(sm[r, yy] / total) if sm[r, yy] > 0 else -np.inf
                continue
            log_total = mw[r] + math.log(sw[r]) if weighted else math.log(used[r])
            for yy in range(k):
                if mx[r, yy] == -np.inf:
                    o[yy] = -np.inf
                else:
                    o[yy] = mx[r, yy] + math.log(sm[r, yy]) - log_total


@njit(parallel=True, cache=True)
def build_compact_regions(compact, lj, lj_offsets, m, laplace, ridx, out):
    """The parent-major regions of a compact selective table (``FrequencyTable(...,
    occupied=...)``) from its compact counts (a :class:`CompactLayout`) and its log joints
    ``lj`` (at ``lj_offsets``), and ``ridx``, the region of every parent cell.

    Region ``slot`` holds the log joints of the slot's parent cell and the log conditionals
    of every attribute value and class computed from the slot's counts (the region layout of
    :func:`build_parent_major`; 0.0 for the parents and the missing code); region
    ``n_slots + j`` those of a cell of parent combination j with no counts at all (every
    such cell has the same estimates).  ``ridx[cell_first[j] + cell]`` is -1 where the cell
    does not qualify (its log joint is NaN), else the slot's region, or ``n_slots + j`` for a
    qualifying cell that holds no rows (only with ``min_count`` 0).  The conditionals are
    those of :func:`.smoothing.log_conditional_tables`, the same sums in the same order.
    """
    p_globals, p_combos, cell_first, slot_of, sizes, k, counts, att_off, count_region, \
        n_slots = compact
    a = sizes.size
    n = p_combos.shape[1]
    region = k + count_region
    zeros = np.zeros(count_region)
    for j in prange(p_globals.size):
        g = p_globals[j]
        n_cells = cell_first[j + 1] - cell_first[j]
        member = np.zeros(a, dtype=np.bool_)
        for t in range(n):
            member[p_combos[j, t]] = True
        zero_done = False
        for cell in range(n_cells):
            q = cell_first[j] + cell
            slot = slot_of[q]
            qualifies = not math.isnan(lj[lj_offsets[g] + cell * k])
            if slot < 0:
                if not qualifies:
                    ridx[q] = -1
                    continue
                ridx[q] = n_slots + j
                if zero_done:
                    continue
                zero_done = True
                r = n_slots + j
                src = zeros
                cb = 0
            else:
                ridx[q] = slot if qualifies else -1
                r = slot
                src = counts
                cb = slot * count_region
            base = r * region
            for yy in range(k):
                out[base + yy] = lj[lj_offsets[g] + cell * k + yy]
            for i in range(a):
                s_i = sizes[i]
                at = base + k + att_off[i]
                if member[i]:
                    for e in range(s_i * k):
                        out[at + e] = 0.0
                    continue
                n_values = max(s_i - 1, 1)
                prior, pseudo_total = pseudo_counts(n_values, m, laplace)
                ca = cb + att_off[i]
                for yy in range(k):
                    den = 0.0
                    for v in range(1, s_i):
                        den += src[ca + v * k + yy]
                    den -= 0.0
                    log_den = math.log(den + pseudo_total)
                    out[at + yy] = 0.0
                    for v in range(1, s_i):
                        count = src[ca + v * k + yy] - 0.0
                        if count + prior > 0.0:
                            out[at + v * k + yy] = math.log(count + prior) - log_den
                        else:
                            out[at + v * k + yy] = np.nan
