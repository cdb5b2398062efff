"""Counting kernels: one pass over the data into the count blocks; table maintenance."""

import contextlib
import itertools
from typing import NamedTuple

import numpy as np

from ..kernels._fortran import padded_fortran
from ..kernels._jit import get_num_threads, njit, prange
from ..kernels._threads import parallel_calls

# --------------------------------------------------------------------------------------------
# Counting (one pass over the data; weights may be negative to remove instances)
# --------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def count_order0(y, w, weighted, offset, k, counts):
    """Class counts N(y) (serial: a single tiny block), in 4 interleaved lanes so that rows
    of the same class do not wait on each other's read-modify-write."""
    local = np.zeros(4 * k)
    if weighted:
        for r in range(y.shape[0]):
            local[(r & 3) * k + y[r]] += w[r]
    else:
        for r in range(y.shape[0]):
            local[(r & 3) * k + y[r]] += 1.0
    for c in range(k):
        counts[offset + c] += (local[c] + local[k + c]) + (local[2 * k + c] + local[3 * k + c])


#: work items per thread in :func:`count_combinations` (contiguous runs of combinations)
CHUNKS_PER_THREAD = 4


#: a combination's histogram is split into 4 (or 2) interleaved lanes, row r counting into
#: lane r % lanes, when the lanes hold at most this many float64 counts (48 KiB, about the
#: L1 data cache): rows that hit the same cell one after the other (skewed data) then do
#: not wait on each other's read-modify-write.  Larger blocks are counted in place.
LANE_CELLS = 6144


@njit(cache=True, inline="always")
def _lanes(n_cells):
    if 4 * n_cells <= LANE_CELLS:
        return 4
    if 2 * n_cells <= LANE_CELLS:
        return 2
    return 1


class CountJob(NamedTuple):
    """What :func:`count_combinations` counts, bundled for its kernels (read only; the
    counts they write are passed apart).

    Attributes
    ----------
    X : ndarray of int, shape (n_rows, n_attributes)
        Storage codes.
    y : ndarray of int
        Class codes.
    w : ndarray of float64
        Row weights (read only when ``weighted``).
    weighted : bool
        Whether the rows count ``w`` rather than 1.
    combos, orders, offsets : ndarray of int64
        The combinations counted, their orders and the starts of their blocks.
    sizes : ndarray of int64
        The extent of every attribute.
    k : int
        Number of classes.
    block : int
        Rows counted together.
    """

    X: np.ndarray
    y: np.ndarray
    w: np.ndarray
    weighted: bool
    combos: np.ndarray
    orders: np.ndarray
    offsets: np.ndarray
    sizes: np.ndarray
    k: int
    block: int


@njit(cache=True, nogil=True)
def _count_chunk(job, counts, c0, c1):
    """Count combinations ``c0 .. c1 - 1`` of the :class:`CountJob` ``job`` over all rows,
    block by block.

    For a combination of order d, members ``0 .. d - 2`` are its prefix and member d - 1
    its last.  ``base[r] = (prefix code) * (last extent * k) + y[r] + lane(r)`` folds the
    class (and the lane, see ``LANE_CELLS``) in; the histogram loop then only adds
    ``x_last * k`` and increments a histogram small enough to stay in L1.  ``base`` is
    rebuilt only when the prefix, the order or the last extent changes, so in
    lexicographic order a pair's base serves every triple that extends it.  ``levels[t]``
    (t >= 1) holds the code of the first t + 1 members (the prefix of the prefix), reused
    the same way: a quadruple's base is one pass from its pair's level.
    """
    X, y, w, weighted, combos, orders, offsets, sizes, k, block = job
    n = X.shape[0]
    depth = 2
    for c in range(c0, c1):
        depth = max(depth, orders[c] - 2)
    levels = np.empty((depth, block), dtype=np.int64)
    base = np.empty(block, dtype=np.int64)
    local = np.empty(LANE_CELLS, dtype=np.float64)
    held = np.full(depth, -1, dtype=np.int64)  # members 0..n_held-1 of levels
    base_of = np.full(depth + 2, -1, dtype=np.int64)  # prefix members base was built for
    for start in range(0, n, block):
        stop = min(start + block, n)
        m = stop - start
        yb = y[start:stop]
        wb = w[start:stop] if weighted else w
        n_held = 0
        base_d = -1  # order base was built for; -1: none in this block
        base_stride = -1
        for c in range(c0, c1):
            d = orders[c]
            last = combos[c, d - 1]
            stride = sizes[last] * k
            fresh = base_d == d and base_stride == stride
            t = 0
            while fresh and t < d - 1:
                fresh = base_of[t] == combos[c, t]
                t += 1
            n_cells = stride  # cells of the block, times k
            for t in range(d - 1):
                n_cells *= sizes[combos[c, t]]
            lanes = _lanes(n_cells)
            lane_mask = lanes - 1
            if d >= 2 and not fresh:
                # levels 1..d-3 (code of members 0..t), level 0 being X's column
                need = d - 2
                keep = 0
                while keep < n_held and keep < need and held[keep] == combos[c, keep]:
                    keep += 1
                for t in range(keep, need):
                    held[t] = combos[c, t]
                    if t >= 1:
                        col = X[start:stop, held[t]]
                        s = sizes[held[t]]
                        if t == 1:
                            col0 = X[start:stop, held[0]]
                            for r in range(m):
                                levels[1, r] = col0[r] * s + col[r]
                        else:
                            for r in range(m):
                                levels[t, r] = levels[t - 1, r] * s + col[r]
                if keep < need:
                    n_held = max(need, 0)
                att = combos[c, d - 2]
                col = X[start:stop, att]
                if d == 2:
                    for r in range(m):
                        base[r] = col[r] * stride + yb[r] + (r & lane_mask) * n_cells
                elif d == 3:
                    col0 = X[start:stop, combos[c, 0]]
                    s = sizes[att]
                    for r in range(m):
                        base[r] = ((col0[r] * s + col[r]) * stride + yb[r]
                                   + (r & lane_mask) * n_cells)
                else:
                    s = sizes[att]
                    for r in range(m):
                        base[r] = ((levels[d - 3, r] * s + col[r]) * stride + yb[r]
                                   + (r & lane_mask) * n_cells)
                for t in range(d - 1):
                    base_of[t] = combos[c, t]
                base_d = d
                base_stride = stride
            col = X[start:stop, last]
            off = offsets[c]
            h = counts[off:] if lanes == 1 else local
            if lanes > 1:
                local[:lanes * n_cells] = 0.0
            if d == 1 and lanes == 4:  # no prefix: the class inline, rows dealt to 4 lanes
                h1 = local[n_cells:]
                h2 = local[2 * n_cells:]
                h3 = local[3 * n_cells:]
                m4 = m - (m & 3)
                if weighted:
                    for r in range(0, m4, 4):
                        local[col[r] * k + yb[r]] += wb[r]
                        h1[col[r + 1] * k + yb[r + 1]] += wb[r + 1]
                        h2[col[r + 2] * k + yb[r + 2]] += wb[r + 2]
                        h3[col[r + 3] * k + yb[r + 3]] += wb[r + 3]
                    for r in range(m4, m):
                        local[col[r] * k + yb[r]] += wb[r]
                else:
                    for r in range(0, m4, 4):
                        local[col[r] * k + yb[r]] += 1.0
                        h1[col[r + 1] * k + yb[r + 1]] += 1.0
                        h2[col[r + 2] * k + yb[r + 2]] += 1.0
                        h3[col[r + 3] * k + yb[r + 3]] += 1.0
                    for r in range(m4, m):
                        local[col[r] * k + yb[r]] += 1.0
            elif d == 1:  # no prefix: the class and the lane inline
                if weighted:
                    for r in range(m):
                        h[col[r] * k + yb[r] + (r & lane_mask) * n_cells] += wb[r]
                else:
                    for r in range(m):
                        h[col[r] * k + yb[r] + (r & lane_mask) * n_cells] += 1.0
            elif weighted:
                for r in range(m):
                    h[base[r] + col[r] * k] += wb[r]
            else:
                for r in range(m):
                    h[base[r] + col[r] * k] += 1.0
            if lanes == 4:
                for q in range(n_cells):
                    counts[off + q] += ((local[q] + local[n_cells + q])
                                        + (local[2 * n_cells + q] + local[3 * n_cells + q]))
            elif lanes == 2:
                for q in range(n_cells):
                    counts[off + q] += local[q] + local[n_cells + q]


# --------------------------------------------------------------------------------------------
# Grouped counting: several combinations of a shared prefix in one joint histogram
# --------------------------------------------------------------------------------------------

#: entries (two interleaved lanes of int32 counts) of a group's joint histogram in
#: :func:`_count_groups`: 32 KiB, about the L1 data cache
GROUP_ENTRIES = 8192
#: most combinations of a shared prefix counted by one joint histogram
GROUP_LASTS = 3
#: most members of a combination counted in a group
GROUP_ORDER = 4
#: fewer rows than this are counted combination by combination (:func:`_count_chunk`): the
#: histograms' totals would cost more than they save
GROUP_MIN_ROWS = 2048
#: a plan (:func:`plan_groups`, some 10 microseconds a combination) is made for a call of
#: at least this many rows (counting in groups saves some 0.3 ns a row and combination),
#: and kept for the next calls of the same combinations (a table's chunks), which use it
#: from ``GROUP_MIN_ROWS`` rows.  32,768 rather than 65,536: a CSV file of 200,000 x 50
#: (8 values) in 4 files of 50,000 rows took 0.80x the CPU seconds with AODE, and single
#: fits of 40,000-50,000 rows (20-100 attributes) with a fresh plan no more
GROUP_PLAN_ROWS = 32768
#: more combinations than this are counted one by one (the plan would take seconds)
GROUP_MAX_COMBOS = 50_000
#: histogram entries counted at once (16 MiB of int32): more groups are counted in
#: batches, each over all the rows
GROUP_BATCH_ENTRIES = 1 << 22


class GroupJob(NamedTuple):
    """The groups :func:`_count_groups` counts (see :func:`plan_groups`; read only).

    Attributes
    ----------
    X, y : ndarray
        Storage codes (n_rows, n_attributes) and class codes.
    n_prefix, n_members : ndarray of int64, shape (n_groups,)
        Members of a group's shared prefix, and its members in all (the prefix, then the
        last member of each of its combinations).
    members, mults : ndarray of int64, shape (n_groups, GROUP_ORDER - 1 + GROUP_LASTS)
        Every member's attribute and its stride in the histogram (lane fastest, then the
        class, then the members in turn).
    prefix_id : ndarray of int64
        Groups of the same prefix (consecutive in a run) share its codes.
    h_first : ndarray of int64, shape (n_groups + 1,)
        Where each group's histogram starts in the histograms' array.
    out_first : ndarray of int64, shape (n_groups + 1,)
        The group's outputs: ``out_first[g] .. out_first[g + 1] - 1``.
    out_order, out_pos, out_off : ndarray of int64
        Per output (a combination counted by marginalising its group's histogram): its
        order, the positions of its members among the group's members, and the start of
        its block in the counts.
    sizes : ndarray of int64
        The extent of every attribute.
    k, block : int
        Number of classes; rows counted together.
    """

    X: np.ndarray
    y: np.ndarray
    n_prefix: np.ndarray
    n_members: np.ndarray
    members: np.ndarray
    mults: np.ndarray
    prefix_id: np.ndarray
    h_first: np.ndarray
    out_first: np.ndarray
    out_order: np.ndarray
    out_pos: np.ndarray
    out_off: np.ndarray
    sizes: np.ndarray
    k: int
    block: int


@njit(cache=True, nogil=True)
def _count_groups(job, hs, h_base, counts, g0, g1):
    """Count groups ``g0 .. g1 - 1`` of the :class:`GroupJob` ``job`` (unweighted rows),
    then add their outputs to ``counts``; group g's histogram is
    ``hs[h_first[g] - h_base:h_first[g + 1] - h_base]``, zeros.

    A group is a prefix and up to ``GROUP_LASTS`` last members: one joint histogram of all
    of them and the class (in int32, two interleaved lanes so that consecutive rows that
    hit the same cell do not wait on each other's read-modify-write) counts, in one
    increment a row, every combination of the prefix and one of the last members, which
    are its marginals; so can any combination of the group's members (a pair's single
    members, a triple's pairs).  Row by row block: ``base`` (the lane, the class and the
    prefix's code) is made once per prefix, ``idx`` adds the last members' codes, then the
    increments.  Once every row is counted, each output's block is the sum of the
    histogram's cells over the members it does not hold (:func:`_group_outputs`), added
    to ``counts`` as one integer per cell (the counts the row-by-row increments of
    :func:`_count_chunk` give).
    """
    X, y = job.X, job.y
    members, mults = job.members, job.mults
    n = X.shape[0]
    block = job.block
    base = np.empty(block, dtype=np.int32)
    idx = np.empty(block, dtype=np.int32)
    for start in range(0, n, block):
        stop = min(start + block, n)
        m = stop - start
        yb = y[start:stop]
        held = -1
        for g in range(g0, g1):
            if job.prefix_id[g] != held:
                for r in range(m):
                    base[r] = 2 * yb[r] + (r & 1)
                for p in range(job.n_prefix[g]):
                    col = X[start:stop, members[g, p]]
                    mu = mults[g, p]
                    for r in range(m):
                        base[r] += col[r] * mu
                held = job.prefix_id[g]
            first = job.n_prefix[g]
            col = X[start:stop, members[g, first]]
            mu = mults[g, first]
            for r in range(m):
                idx[r] = base[r] + col[r] * mu
            for p in range(first + 1, job.n_members[g]):
                col = X[start:stop, members[g, p]]
                mu = mults[g, p]
                for r in range(m):
                    idx[r] += col[r] * mu
            h = hs[job.h_first[g] - h_base:job.h_first[g + 1] - h_base]
            for r in range(m):
                h[idx[r]] += 1
    largest = 2
    for g in range(g0, g1):
        largest = max(largest, job.h_first[g + 1] - job.h_first[g])
    cells = np.empty(largest // 2, dtype=np.int64)
    work = np.empty(largest, dtype=np.int64)
    ext = np.ones(GROUP_ORDER, dtype=np.int64)
    step = np.zeros(GROUP_ORDER, dtype=np.int64)
    for g in range(g0, g1):
        h = hs[job.h_first[g] - h_base:job.h_first[g + 1] - h_base]
        _group_outputs(job, g, h, counts, cells, work, ext, step)


@njit(cache=True, nogil=True, inline="always")
def _sum_member(src, inner, extent, outer, dst):
    """``dst[i, j] = sum over x of src[i, x, j]`` for ``src`` of shape (outer, extent,
    inner) and ``dst`` of shape (outer, inner), both flat and C-ordered: a member summed
    out of a histogram (the class and the members before it are ``inner``)."""
    for i in range(outer):
        a = i * extent * inner
        b = i * inner
        for j in range(inner):
            dst[b + j] = src[a + j]
        for _ in range(1, extent):
            a += inner
            for j in range(inner):
                dst[b + j] += src[a + j]


@njit(cache=True, nogil=True)
def _group_outputs(job, g, h, counts, cells, work, ext, step):
    """Add the outputs of group ``g`` (its histogram ``h``, two int32 lanes) to
    ``counts``: the lanes summed into ``cells`` (int64; the class fastest, then the
    members in turn), then per output the members it does not hold summed out one by one
    (the highest first, each pass a contiguous sum of ``work``'s halves, no division), and
    the block left, of the output's members in the group's order, added to the output's
    block in the output's order of members (index = class + k * (last member + size of
    the last * (the one before ...)))."""
    members, sizes, k = job.members, job.sizes, job.k
    n_cells = h.shape[0] // 2
    for q in range(n_cells):
        cells[q] = np.int64(h[2 * q]) + np.int64(h[2 * q + 1])
    n_members = job.n_members[g]
    half = work.shape[0] // 2
    for o in range(job.out_first[g], job.out_first[g + 1]):
        d = job.out_order[o]
        held = 0  # bit p: the output holds the group's member p
        for t in range(d):
            held |= 1 << job.out_pos[o, t]
        src = cells
        size = n_cells
        n_src = 0  # which half of work holds src (cells: none yet)
        for p in range(n_members - 1, -1, -1):
            if held >> p & 1:
                continue
            s = sizes[members[g, p]]
            # every member below p is still in src (the highest are summed out first)
            inner = k
            for t in range(p):
                inner *= sizes[members[g, t]]
            outer = size // (inner * s)
            dst = work[n_src * half:n_src * half + outer * inner]
            _sum_member(src, inner, s, outer, dst)
            src = dst
            size = outer * inner
            n_src = 1 - n_src
        # src: the output's members in the group's order (the lowest fastest); their
        # strides in the output's block
        j = 0
        for p in range(n_members):
            if held >> p & 1:
                stride = k
                for t in range(d - 1, -1, -1):
                    if job.out_pos[o, t] == p:
                        break
                    stride *= sizes[members[g, job.out_pos[o, t]]]
                ext[j] = sizes[members[g, p]]
                step[j] = stride
                j += 1
        for t in range(j, GROUP_ORDER):
            ext[t] = 1
            step[t] = 0
        off = job.out_off[o]
        q = 0
        for x3 in range(ext[3]):
            for x2 in range(ext[2]):
                for x1 in range(ext[1]):
                    for x0 in range(ext[0]):
                        at = off + x0 * step[0] + x1 * step[1] + x2 * step[2] + x3 * step[3]
                        for c in range(k):
                            counts[at + c] += src[q + c]
                        q += k


def plan_groups(combos, orders, offsets, sizes, k):
    """The groups :func:`_count_groups` counts the combinations in, and those it does not.

    Combinations are taken from the highest order down.  A combination whose members are
    all members of a group already made is counted by marginalising that group's histogram
    (an output of the group).  The others are covered greedily: the seed of a group is a
    combination not counted yet of the attribute that is a member of the most of them (of
    the most such members); then up to ``GROUP_LASTS - 1`` more attributes join it, while
    the histogram holds at most ``GROUP_ENTRIES`` entries, each the attribute that
    completes the most combinations not counted yet with the group's members (ties: the
    attribute in the most of them), as greedy covering designs are built (the attributes
    left with the most pairs to cover first).  The 190 pairs and 20 singles of 20
    attributes of 5 values (2 classes) then take 37 groups of mostly four attributes (35
    at least: a covering of the pairs of 20 points by quadruples); seeded in the order of
    the combinations and extended from the seed's prefix only, 46; grouped in the order of
    the combinations alone, 70.  The pairs of ``n`` attributes (every pair of them, left
    to count at order 2) whose groups can only be triples (every triple's histogram fits,
    no quadruple's) are covered by the triples of :func:`pair_covering` instead, where it
    has fewer (:func:`_pair_design`): the 1,225 pairs of 50 attributes of 8 values (3
    classes) in 417 groups, the fewest possible, where the greedy covering made 458.  A
    combination with repeated members, of more than
    ``GROUP_ORDER`` members, or whose own histogram is larger, is left to
    :func:`_count_chunk`.

    Returns
    -------
    (plan, rest)
        ``plan``: the arrays of :class:`GroupJob` from ``n_prefix`` to ``out_off`` (None
        when no group is made); ``rest``: int64 indices of the combinations left over.
    """
    combos = np.asarray(combos)
    orders = np.asarray(orders)
    sizes_l = [int(s) for s in sizes]
    k = int(k)
    width = GROUP_ORDER - 1 + GROUP_LASTS
    groups = []  # [prefix, members, entries, outputs [(combo, members)]]
    holding = {}  # attribute -> groups that hold it
    rest = []
    for d in sorted(set(orders.tolist()), reverse=True):
        todo = {}  # sorted members -> the combinations of them not counted yet
        extend = {}  # sorted prefix -> its extensions by one attribute not counted yet
        for c in np.flatnonzero(orders == d).tolist():
            member = tuple(int(v) for v in combos[c, :d])
            if len(set(member)) != d or d > GROUP_ORDER:
                rest.append(c)
                continue
            whole = _holder(groups, holding, member)
            if whole is not None:
                groups[whole][3].append((c, member))
                continue
            if 2 * k * _product(sizes_l, member) > GROUP_ENTRIES:
                rest.append(c)
                continue
            key = tuple(sorted(member))
            if key not in todo:
                todo[key] = []
                for i in range(d):
                    extend.setdefault(key[:i] + key[i + 1:], {})[key[i]] = None
            todo[key].append((c, member))
        if d == 2:  # every pair of the attributes: triples of a design, if it fits
            for every in _pair_design(todo, sizes_l, k):
                g = len(groups)
                groups.append([(every[0],), every, 2 * k * _product(sizes_l, every), []])
                for a in every:
                    holding.setdefault(a, []).append(g)
                for sub in itertools.combinations(sorted(every), 2):
                    groups[g][3].extend(todo.pop(sub, ()))
        # how many combinations not counted yet each attribute is a member of, and which
        degree, containing = {}, {}
        for key in todo:
            for a in key:
                degree[a] = degree.get(a, 0) + 1
                containing.setdefault(a, set()).add(key)
        while todo:
            # the seed: a combination of the attribute in the most combinations left (ties:
            # the first met), of the most such members (ties: the last in sorted order)
            u = max(degree, key=degree.__getitem__)
            key = min(containing[u], key=lambda t: (-sum(map(degree.__getitem__, t)), t))
            seed = todo[key][0][1]
            every = list(seed)
            entries = 2 * k * _product(sizes_l, seed)
            while len(every) < d - 1 + GROUP_LASTS:
                # each attribute: how many combinations left it completes with members
                gain = {}
                for sub in itertools.combinations(sorted(every), d - 1):
                    for a in extend.get(sub, ()):
                        if a not in every and entries * sizes_l[a] <= GROUP_ENTRIES:
                            gain[a] = gain.get(a, 0) + 1
                if not gain:
                    break
                best = max(gain, key=lambda a: (gain[a], degree.get(a, 0)))
                every.append(best)
                entries *= sizes_l[best]
            g = len(groups)
            groups.append([tuple(seed[:-1]), every, entries, []])
            for a in every:
                holding.setdefault(a, []).append(g)
            for sub in itertools.combinations(sorted(every), d):
                got = todo.pop(sub, None)
                if got is None:
                    continue
                for c, member in got:
                    groups[g][3].append((c, member))
                for i in range(d):
                    extend.get(sub[:i] + sub[i + 1:], {}).pop(sub[i], None)
                for a in sub:
                    degree[a] -= 1
                    containing[a].discard(sub)
                    if degree[a] == 0:
                        del degree[a], containing[a]
    if not groups:
        return None, np.arange(len(orders), dtype=np.int64)
    # groups of the same prefix next to each other (they share its codes in a run)
    order = sorted(range(len(groups)), key=lambda g: (groups[g][0], g))
    groups = [groups[g] for g in order]
    n = len(groups)
    n_prefix = np.array([len(g[0]) for g in groups], dtype=np.int64)
    n_members = np.array([len(g[1]) for g in groups], dtype=np.int64)
    members = np.zeros((n, width), dtype=np.int64)
    mults = np.zeros((n, width), dtype=np.int64)
    prefix_id = np.zeros(n, dtype=np.int64)
    h_first = np.zeros(n + 1, dtype=np.int64)
    out_first = np.zeros(n + 1, dtype=np.int64)
    outs = []
    ids = {}
    for g, (prefix, every, entries, outputs) in enumerate(groups):
        members[g, :len(every)] = every
        stride = 2 * k
        for p, a in enumerate(every):
            mults[g, p] = stride
            stride *= sizes_l[a]
        prefix_id[g] = ids.setdefault(prefix, len(ids))
        h_first[g + 1] = h_first[g] + entries
        for c, member in outputs:
            outs.append((c, [every.index(a) for a in member]))
        out_first[g + 1] = len(outs)
    out_order = np.array([len(pos) for _, pos in outs], dtype=np.int64)
    out_pos = np.full((len(outs), GROUP_ORDER), -1, dtype=np.int64)
    for o, (_, pos) in enumerate(outs):
        out_pos[o, :len(pos)] = pos
    out_off = np.array([int(offsets[c]) for c, _ in outs], dtype=np.int64)
    plan = (n_prefix, n_members, members, mults, prefix_id, h_first, out_first, out_order,
            out_pos, out_off)
    return plan, np.array(sorted(rest), dtype=np.int64)


def _count_runs(job, counts, n_runs):
    """:func:`_count_chunk` of ``n_runs`` contiguous runs of the combinations, on the
    threads (``parallel_calls``; every run counts distinct combinations)."""
    n_combos = job.combos.shape[0]
    parallel_calls(_count_chunk, [
        (job, counts, run * n_combos // n_runs, (run + 1) * n_combos // n_runs)
        for run in range(n_runs)])


def _two_by_two(X, y, w, weighted):
    """``(X, y, w, weighted)`` with at least two rows and two columns in Fortran order, the
    counts unchanged.

    An array with one row or one column is C- and F-contiguous at once, and numba types
    it C: a second specialisation of :func:`_count_chunk` beside the F one every other
    table gets (a one-row update, a one-attribute table, a small warm-up; seconds of
    compilation each).  A zero column (never read: the combinations name the first column
    only) or a second row of weight 0 (which adds 0.0 to the cells of class 0 and code 0)
    keeps it F."""
    n, a = X.shape
    if n >= 2 and a >= 2:
        return X, y, w, weighted
    wide = padded_fortran(X)
    if n >= 2:
        return wide, y, w, weighted
    y2 = np.zeros(2, dtype=y.dtype)
    y2[0] = y[0]
    w2 = np.zeros(2, dtype=np.float64)
    w2[0] = w[0] if weighted else 1.0
    return wide, y2, w2, True


def count_combinations(X, y, w, weighted, combos, orders, offsets, sizes, k, counts, block,
                       grouped=None):
    """N(y, x_s) for every combination s (``combos[c, :orders[c]]``, orders >= 1, in any
    mix) into the block of ``counts`` starting at ``offsets[c]``.

    Unweighted rows (at least ``GROUP_PLAN_ROWS`` of them, or ``GROUP_MIN_ROWS`` once a
    call of as many combinations made the plan, or any number with ``grouped``) are
    counted in groups (:func:`plan_groups`, :func:`_count_groups`): one joint
    histogram of a prefix and up to ``GROUP_LASTS`` last members counts every combination
    of its members in one increment a row (the 190 pairs and 20 singles of 20 attributes
    of 5 values and 2 classes: 37 increments a row instead of 210).  The combinations left
    over, and weighted rows, are counted one by one: contiguous runs of combinations on
    the threads (``CHUNKS_PER_THREAD`` per thread, the same number of increments each);
    within a run, rows in blocks of ``block`` and consecutive combinations sharing a
    prefix share its code (:func:`_count_chunk`), so combinations in lexicographic order
    cost about one pass over the data each.  Both give the same counts: integers, added to
    ``counts`` as one total per cell and call.
    """
    n_combos = combos.shape[0]
    if n_combos == 0 or X.shape[0] == 0:
        return
    X, y, w, weighted = _two_by_two(X, y, w, weighted)
    n = X.shape[0]
    make = True  # a plan made for this call (else only one kept from an earlier call)
    if grouped is None and _grouping_all:
        grouped = n_combos <= GROUP_MAX_COMBOS  # a warm-up (every_call_grouped)
    if grouped is None:
        grouped = GROUP_MIN_ROWS <= n < 1 << 31 and n_combos <= GROUP_MAX_COMBOS
        make = n >= GROUP_PLAN_ROWS
    if grouped and not weighted:
        plan, rest = _plan_of(combos, orders, offsets, sizes, k, make)
        if plan is not None:
            job = GroupJob(X, y, *plan, sizes, int(k), int(block))
            h_first = plan[5]
            batches = _batches(h_first, GROUP_BATCH_ENTRIES)
            hs = np.zeros(max(int(h_first[b1] - h_first[b0]) for b0, b1 in batches), np.int32)
            for b0, b1 in batches:
                base = int(h_first[b0])
                if b0 > 0:
                    hs[:] = 0
                n_runs = max(1, min(CHUNKS_PER_THREAD * get_num_threads(), b1 - b0))
                parallel_calls(_count_groups, [
                    (job, hs, base, counts, b0 + run * (b1 - b0) // n_runs,
                     b0 + (run + 1) * (b1 - b0) // n_runs) for run in range(n_runs)])
            if rest.size == 0:
                return
            combos, orders, offsets = combos[rest], orders[rest], offsets[rest]
            n_combos = rest.size
    n_runs = max(1, min(CHUNKS_PER_THREAD * get_num_threads(), n_combos))
    job = CountJob(X, y, w, bool(weighted), combos, orders, offsets, sizes, int(k), int(block))
    _count_runs(job, counts, n_runs)


#: plans of :func:`plan_groups` of the latest tables counted (a table's chunks share one)
_plans = {}

#: calls of :func:`count_combinations` are counted in groups whatever their rows while
#: :func:`every_call_grouped` is open (a count of the blocks open)
_grouping_all = 0


@contextlib.contextmanager
def every_call_grouped():
    """Count every unweighted call of :func:`count_combinations` in groups (a plan made for
    it) while the block runs, whatever its rows: a warm-up fit of a few rows then compiles
    :func:`_count_groups` (or loads it from the compile cache) with the types of the
    learner's larger fits, which count in groups from ``GROUP_PLAN_ROWS`` rows; without
    it, the first such fit would compile it.  The counts are the same either way.

    Examples
    --------
    >>> import numpy as np
    >>> from seminaive.tables import counting
    >>> with counting.every_call_grouped():
    ...     counting._grouping_all
    1
    """
    global _grouping_all
    _grouping_all += 1
    try:
        yield
    finally:
        _grouping_all -= 1


def _bose_triples(n):
    """The Steiner triple system of ``6n + 3`` points (Bose 1939): the points ``(x, i)``,
    ``x`` of the idempotent commutative quasigroup ``x o y = (n + 1)(x + y) mod 2n + 1``
    and ``i`` of Z_3, numbered ``x + (2n + 1) i``; the triples ``{(x, 0), (x, 1), (x,
    2)}`` and, for ``x < y``, ``{(x, i), (y, i), (x o y, i + 1)}``."""
    q = 2 * n + 1
    out = [(x, x + q, x + 2 * q) for x in range(q)]
    for x in range(q):
        for y in range(x + 1, q):
            z = (x + y) * (n + 1) % q
            out.extend((x + q * i, y + q * i, z + q * ((i + 1) % 3)) for i in range(3))
    return out


def _skolem_triples(n):
    """The Steiner triple system of ``6n + 1`` points (Skolem 1958): the points ``(x, i)``,
    ``x`` of the half-idempotent commutative quasigroup of order ``2n`` (the addition
    table of Z_2n, its entries ``2j`` renamed ``j`` and ``2j + 1`` renamed ``n + j``) and
    ``i`` of Z_3, numbered ``x + 2n i``, and a point ``6n``; the triples ``{(x, 0), (x,
    1), (x, 2)}`` for ``x < n``, ``{6n, (x + n, i), (x, i + 1)}`` for ``x < n``, and, for
    ``x < y``, ``{(x, i), (y, i), (x o y, i + 1)}``."""
    q = 2 * n
    out = [(x, x + q, x + 2 * q) for x in range(n)]
    out.extend((3 * q, x + n + q * i, x + q * ((i + 1) % 3)) for x in range(n)
               for i in range(3))
    for x in range(q):
        for y in range(x + 1, q):
            s = (x + y) % q
            z = s // 2 if s % 2 == 0 else n + s // 2
            out.extend((x + q * i, y + q * i, z + q * ((i + 1) % 3)) for i in range(3))
    return out


def steiner_triples(v):
    """The triples of a Steiner triple system on ``range(v)`` (``v`` 1 or 3 modulo 6):
    every pair of points in exactly one triple (Bose 1939 for ``v = 6n + 3``, Skolem 1958
    for ``v = 6n + 1``).

    Examples
    --------
    >>> from seminaive.tables.counting import steiner_triples
    >>> sorted(tuple(sorted(t)) for t in steiner_triples(7))
    [(0, 1, 3), (0, 2, 4), (0, 5, 6), (1, 2, 6), (1, 4, 5), (2, 3, 5), (3, 4, 6)]
    """
    if v % 6 == 3:
        return _bose_triples(v // 6)
    if v % 6 == 1:
        return _skolem_triples(v // 6)
    raise ValueError(f"a Steiner triple system has 1 or 3 points modulo 6, not {v}")


def pair_covering(n):
    """Triples of ``range(n)`` (``n >= 3``) that hold every pair of points: the Steiner
    triple system (:func:`steiner_triples`) of the largest ``v <= n`` that has one, and,
    for each other point in turn, triples of it and two points it is not yet in a triple
    with (the last with any point when they are odd in number).  For ``n`` 1, 2, 3 or 4
    modulo 6 (one point at most outside the system) that is Schoenheim's lower bound
    ``ceil(n / 3 ceil((n - 1) / 2))`` triples, the fewest (Fort & Hedlund 1958): 417 for
    50 points; for ``n`` 0 or 5 modulo 6 a few more (399 for 48 points, 384 at least).

    Examples
    --------
    >>> from seminaive.tables.counting import pair_covering
    >>> len(pair_covering(50)), len(pair_covering(52))
    (417, 451)
    """
    v = max(u for u in range(1, n + 1) if u % 6 in (1, 3))
    out = [tuple(sorted(t)) for t in steiner_triples(v)] if v >= 3 else []
    covered = set()
    for e in range(v, n):
        partners = [x for x in range(n) if x != e and (min(x, e), max(x, e)) not in covered]
        for j in range(0, len(partners), 2):
            pair = partners[j:j + 2]
            if len(pair) == 1:
                pair.append(next(x for x in range(n) if x not in (e, pair[0])))
            triple = tuple(sorted((e, *pair)))
            out.append(triple)
            covered.update(itertools.combinations(triple, 2))
    return out


#: attribute counts whose pairs :func:`plan_groups` covers greedily rather than by
#: :func:`pair_covering` (at 8 values and 3 classes, 25 and 57 groups against 27 and 59;
#: from 7 to 60 attributes, the covering made fewer at every other count)
GREEDY_PAIR_COUNTS = (12, 18)


def _pair_design(todo, sizes, k):
    """The groups (lists of three attributes) of :func:`pair_covering` for the pairs
    ``todo`` (sorted pairs of attributes) of :func:`plan_groups`, or none: only when
    ``todo`` holds every pair of its attributes, at least 7 of them (not one of
    ``GREEDY_PAIR_COUNTS``), every triple's histogram fits in ``GROUP_ENTRIES`` and no
    quadruple's does (the greedy covering's groups would be triples too)."""
    attributes = sorted({a for key in todo for a in key})
    n = len(attributes)
    if n < 7 or n in GREEDY_PAIR_COUNTS or len(todo) != n * (n - 1) // 2:
        return []
    by_size = sorted(sizes[a] for a in attributes)
    if 2 * k * by_size[-1] * by_size[-2] * by_size[-3] > GROUP_ENTRIES or (
            2 * k * by_size[0] * by_size[1] * by_size[2] * by_size[3] <= GROUP_ENTRIES):
        return []
    return [[attributes[i] for i in triple] for triple in pair_covering(n)]


def _holder(groups, holding, member):
    """The first group holding every attribute of ``member``, or None."""
    for g in holding.get(member[0], ()):
        if set(groups[g][1]).issuperset(member):
            return g
    return None


def _batches(h_first, entries):
    """Consecutive ranges of groups whose histograms hold at most ``entries`` entries (a
    larger group alone)."""
    out = []
    b0 = 0
    n = h_first.size - 1
    while b0 < n:
        b1 = b0 + 1
        while b1 < n and h_first[b1 + 1] - h_first[b0] <= entries:
            b1 += 1
        out.append((b0, b1))
        b0 = b1
    return out


def _product(sizes, members):
    out = 1
    for a in members:
        out *= sizes[a]
    return out


def _plan_of(combos, orders, offsets, sizes, k, make=True):
    """:func:`plan_groups`, kept for the next call of the same combinations; unless
    ``make``, only a plan kept (else ``(None, None)``)."""
    key = (combos.shape, combos.tobytes(), orders.tobytes(), offsets.tobytes(),
           sizes.tobytes(), int(k))
    got = _plans.get(key)
    if got is None and not make:
        return None, None
    if got is None:
        got = plan_groups(combos, orders, offsets, sizes, k)
        while len(_plans) >= 8:
            _plans.pop(next(iter(_plans)), None)
        _plans[key] = got
    return got


def _count_fixed_order(X, y, w, weighted, combos, offsets, sizes, k, counts, block):
    orders = np.full(combos.shape[0], combos.shape[1], dtype=np.int64)
    count_combinations(X, y, w, weighted, np.ascontiguousarray(combos, dtype=np.int64),
                       orders, np.ascontiguousarray(offsets, dtype=np.int64), sizes, k, counts,
                       block)


def count_order1(X, y, w, weighted, offsets, sizes, k, counts, block):
    """N(y, x_i) for every attribute (:func:`count_combinations` of the singletons)."""
    combos = np.arange(X.shape[1], dtype=np.int64).reshape(-1, 1)
    _count_fixed_order(X, y, w, weighted, combos, offsets, sizes, k, counts, block)


def count_order2(X, y, w, weighted, combos, offsets, sizes, k, counts, block):
    """N(y, x_i, x_j) for every pair (:func:`count_combinations`)."""
    _count_fixed_order(X, y, w, weighted, combos, offsets, sizes, k, counts, block)


def count_order3(X, y, w, weighted, combos, offsets, sizes, k, counts, block):
    """N(y, x_i, x_j, x_l) for every triple (:func:`count_combinations`)."""
    _count_fixed_order(X, y, w, weighted, combos, offsets, sizes, k, counts, block)


def count_order_any(X, y, w, weighted, combos, offsets, sizes, k, counts, block):
    """Joint counts for combinations of one order, ``combos.shape[1]``
    (:func:`count_combinations`)."""
    _count_fixed_order(X, y, w, weighted, combos, offsets, sizes, k, counts, block)


# --------------------------------------------------------------------------------------------
# Table maintenance
# --------------------------------------------------------------------------------------------


@njit(parallel=True, cache=True)
def float32_copy(counts, out, n_parts):
    """``out[:] = counts`` in float32 (in ``n_parts`` parts in parallel); whether every
    count is exactly a float32 (integer counts below 2 ** 24 are), so that a kernel reading
    ``out`` reads the same values in half the bytes."""
    n = counts.shape[0]
    n_parts = max(1, min(n_parts, (n + 65535) // 65536))
    inexact = np.zeros(n_parts, dtype=np.int64)
    for b in prange(n_parts):
        lo = b * n // n_parts
        hi = (b + 1) * n // n_parts
        bad = 0
        for t in range(lo, hi):
            v = np.float32(counts[t])
            out[t] = v
            bad += np.float64(v) != counts[t]
        inexact[b] = bad
    return inexact.sum() == 0


@njit(parallel=True, cache=True)
def regrid(old_counts, old_offsets, old_sizes, new_counts, new_offsets, new_sizes, combos,
           orders, k):
    """Copy every block into a layout with larger attribute extents (new values appended)."""
    for g in prange(combos.shape[0]):
        d = orders[g]
        n_cells = (old_offsets[g + 1] - old_offsets[g]) // k
        for cell in range(n_cells):
            # decode the old cell, re-encode it with the new extents
            rest = cell
            new_cell = 0
            mult = 1
            for t in range(d - 1, -1, -1):
                att = combos[g, t]
                coord = rest % old_sizes[att]
                rest //= old_sizes[att]
                new_cell += coord * mult
                mult *= new_sizes[att]
            for yy in range(k):
                new_counts[new_offsets[g] + new_cell * k + yy] = (
                    old_counts[old_offsets[g] + cell * k + yy])


@njit(cache=True)
def sub_combination_index(combos, orders, ext_first, order_first, max_order, out):
    """``out[g, p]``: global index of combination g without its member p."""
    for g in range(order_first[1], order_first[max_order + 1]):
        d = orders[g]
        for p in range(d):
            h = 0
            prev = -1
            for t in range(d):
                if t == p:
                    continue
                e = combos[g, t]
                h = ext_first[h] + (e - prev - 1)
                prev = e
            out[g, p] = h


# --------------------------------------------------------------------------------------------
# Compact children of the parent cells of a selective table (tables.FrequencyTable, compact)
# --------------------------------------------------------------------------------------------


@njit(parallel=True, cache=True)
def occupied_cells(counts, offsets, combos, n, sizes, k, gs, first, out, totals):
    """``out[first[j] + cell]``: whether cell ``cell`` of the order-``n`` combination
    ``gs[j]`` has every member observed and a non-zero count of some class (a parent cell
    that can qualify with ``min_count > 0``); ``totals[j]``: how many of its cells do."""
    for j in prange(gs.size):
        total = 0
        g = gs[j]
        off = offsets[g]
        n_cells = (offsets[g + 1] - off) // k
        for cell in range(n_cells):
            observed = True
            rest = cell
            for t in range(n - 1, -1, -1):
                s = sizes[combos[g, t]]
                if rest % s == 0:
                    observed = False
                rest //= s
            held = False
            if observed:
                for yy in range(k):
                    if counts[off + cell * k + yy] != 0.0:
                        held = True
            out[first[j] + cell] = held
            total += held
        totals[j] = total


@njit(parallel=True, cache=True)
def mark_parent_cells(X, w, weighted, p_combos, cell_first, sizes, mark):
    """``mark[cell_first[j] + cell] = True`` for the parent cell of every row of non-zero
    weight in which every member of parent combination ``p_combos[j]`` is observed."""
    n_rows = X.shape[0]
    n = p_combos.shape[1]
    for j in prange(p_combos.shape[0]):
        for r in range(n_rows):
            if weighted and w[r] == 0.0:
                continue
            cell = 0
            observed = True
            for t in range(n):
                att = p_combos[j, t]
                v = X[r, att]
                if v == 0:
                    observed = False
                cell = cell * sizes[att] + v
            if observed:
                mark[cell_first[j] + cell] = True


@njit(parallel=True, cache=True)
def count_parent_cells(X, y, w, weighted, p_combos, cell_first, slot_of, sizes, k, att_off,
                       region, counts):
    """Compact counts N(y, x_s, x_i = v) of every parent combination s (``p_combos[j]``):
    the row's parent cell x_s has slot ``slot_of[cell_first[j] + cell]`` (-1: not stored,
    the row is skipped), whose ``region`` counts start at ``slot * region``; attribute i,
    storage code v and class y at ``att_off[i] + v * k + y``.  Parent combinations run in
    parallel (their slots are disjoint), rows in order within each (the sums of a dense
    block counted in place)."""
    n_rows, a = X.shape
    n = p_combos.shape[1]
    for j in prange(p_combos.shape[0]):
        for r in range(n_rows):
            cell = 0
            for t in range(n):
                att = p_combos[j, t]
                cell = cell * sizes[att] + X[r, att]
            slot = slot_of[cell_first[j] + cell]
            if slot < 0:
                continue
            base = slot * region + y[r]
            wt = w[r] if weighted else 1.0
            for i in range(a):
                counts[base + att_off[i] + X[r, i] * k] += wt


# --------------------------------------------------------------------------------------------
# The same compact counts, each set of n + 1 parents counted once
# --------------------------------------------------------------------------------------------


class ParentSetJob(NamedTuple):
    """What :func:`count_parent_sets` counts into a compact selective table's regions,
    bundled for its kernels (read only; the counts they write are passed apart).

    Attributes
    ----------
    X : ndarray of int, shape (n_rows, n_attributes)
        Storage codes (Fortran order: each attribute's column is read row after row).
    y : ndarray of int
        Class codes.
    w : ndarray of float64
        Row weights (read only when ``weighted``).
    weighted : bool
        Whether the rows count ``w`` rather than 1.
    p_combos, cell_first, slot_of, sizes, k, att_off, region
        The compact layout, as for :func:`count_parent_cells`: the parent combinations of
        order n (the combinations of the parents, in lexicographic order), where each one's
        cells start in ``slot_of``, the slot of every cell (-1: not stored), the extent of
        every attribute, the number of classes, where each attribute starts in a region and
        the entries of a region.
    position : ndarray of int64
        Every attribute's position among the sorted parents (-1: not a parent).
    binom : ndarray of int64, shape (n_parents + 1, n + 1)
        ``binom[a, b]`` = C(a, b): the lexicographic rank of a parent combination.
    """

    X: np.ndarray
    y: np.ndarray
    w: np.ndarray
    weighted: bool
    p_combos: np.ndarray
    cell_first: np.ndarray
    slot_of: np.ndarray
    sizes: np.ndarray
    k: int
    att_off: np.ndarray
    region: int
    position: np.ndarray
    binom: np.ndarray


#: rows whose parent cells :func:`count_parent_sets` computes at a time
PARENT_SET_BLOCK = 2048


def parent_positions(parents, n_attributes, n):
    """``(position, binom)`` of :class:`ParentSetJob` for the sorted ``parents`` and the
    parent order ``n``."""
    position = np.full(n_attributes, -1, dtype=np.int64)
    position[np.asarray(parents, dtype=np.int64)] = np.arange(len(parents))
    m = len(parents)
    binom = np.zeros((m + 1, n + 1), dtype=np.int64)
    binom[:, 0] = 1
    for a in range(1, m + 1):
        binom[a, 1:] = binom[a - 1, 1:] + binom[a - 1, :-1]
    return position, binom


@njit(cache=True, nogil=True)
def _combination_rank(q, binom):
    """The lexicographic rank of the sorted positions ``q`` (n of them) among the
    combinations of n of ``binom.shape[0] - 1`` parents: the combinations before it that
    start with a smaller position at some t, sum_t (C(m - q[t-1] - 1, n - t) -
    C(m - q[t], n - t)), with q[-1] = -1 (the hockey-stick identity)."""
    n = q.size
    m = binom.shape[0] - 1
    rank = 0
    prev = -1
    for t in range(n):
        rank += binom[m - prev - 1, n - t] - binom[m - q[t], n - t]
        prev = q[t]
    return rank


@njit(cache=True, nogil=True)
def _root_children(job, j, kids, kid_off):
    """The children whose counts at parent combination ``j`` are counted there: its
    members, the attributes that are not parents and the parents after its last member
    (``kids``, their starts in the scratch histogram ``kid_off``, one block (value, cell,
    class) each); returns their number and the histogram's size."""
    p_combos, cell_first, sizes, k, position = (job.p_combos, job.cell_first, job.sizes,
                                                job.k, job.position)
    n = p_combos.shape[1]
    last = p_combos[j, n - 1]
    stride = (cell_first[j + 1] - cell_first[j]) * k
    n_kids = 0
    total = 0
    for i in range(sizes.size):
        member = False
        for t in range(n):
            if p_combos[j, t] == i:
                member = True
        if member or position[i] < 0 or i > last:
            kids[n_kids] = i
            kid_off[n_kids] = total
            total += sizes[i] * stride
            n_kids += 1
    return n_kids, total


@njit(cache=True, nogil=True)
def _count_root(job, j, buffers, counts):
    """Count the children of :func:`_root_children` at parent combination ``j`` over every
    cell (missing codes included) into ``scratch``, rows in order, then add every total to
    the regions that hold it: child i at ``j``'s stored cell and, for a parent child d after
    the last member, the set of ``j``'s members and d at each of the n other parent
    combinations it holds (``j`` without member t, and d), child ``p_combos[j, t]``."""
    X, y, w, weighted = job.X, job.y, job.w, job.weighted
    p_combos, cell_first, slot_of, sizes, k = (job.p_combos, job.cell_first, job.slot_of,
                                               job.sizes, job.k)
    att_off, region, position, binom = job.att_off, job.region, job.position, job.binom
    n_rows = X.shape[0]
    n = p_combos.shape[1]
    last = p_combos[j, n - 1]
    first = cell_first[j]
    n_cells = cell_first[j + 1] - first
    stride = n_cells * k
    scratch, kids, kid_off, q, digits, drop = buffers
    n_kids, total = _root_children(job, j, kids, kid_off)
    scratch[:total] = 0.0
    block = q.size
    for start in range(0, n_rows, block):
        stop = min(start + block, n_rows)
        for r in range(start, stop):
            cell = 0
            for t in range(n):
                att = p_combos[j, t]
                cell = cell * sizes[att] + X[r, att]
            q[r - start] = cell * k + y[r]
        u = 0
        while u + 4 <= n_kids:  # four children at a time: four independent chains of sums
            c0, c1, c2, c3 = kids[u], kids[u + 1], kids[u + 2], kids[u + 3]
            b0, b1, b2, b3 = kid_off[u], kid_off[u + 1], kid_off[u + 2], kid_off[u + 3]
            for r in range(start, stop):
                qr = q[r - start]
                wt = w[r] if weighted else 1.0
                scratch[b0 + X[r, c0] * stride + qr] += wt
                scratch[b1 + X[r, c1] * stride + qr] += wt
                scratch[b2 + X[r, c2] * stride + qr] += wt
                scratch[b3 + X[r, c3] * stride + qr] += wt
            u += 4
        for v in range(u, n_kids):
            col = kids[v]
            base = kid_off[v]
            for r in range(start, stop):
                scratch[base + X[r, col] * stride + q[r - start]] += w[r] if weighted else 1.0
    # the counts of j's own stored cells
    for u in range(n_kids):
        i = kids[u]
        for cell in range(n_cells):
            slot = slot_of[first + cell]
            if slot < 0:
                continue
            for v in range(sizes[i]):
                src = kid_off[u] + v * stride + cell * k
                dst = slot * region + att_off[i] + v * k
                for yy in range(k):
                    value = scratch[src + yy]
                    if value != 0.0:
                        counts[dst + yy] += value
    # the same sets of n + 1 parents at the other parent combinations that hold them: a
    # cell's digits (member t's code, digits[t, cell]) and its code without member t
    # (drop[t, cell]), computed once for every child
    for cell in range(n_cells):
        rest = cell
        for s in range(n - 1, -1, -1):
            size = sizes[p_combos[j, s]]
            digits[s, cell] = rest % size
            rest //= size
        for t in range(n):
            code = 0
            for s in range(n):
                if s != t:
                    code = code * sizes[p_combos[j, s]] + digits[s, cell]
            drop[t, cell] = code
    other = np.empty(n, dtype=np.int64)
    for u in range(n_kids):
        d = kids[u]
        if position[d] < 0 or d <= last:
            continue
        size_d = sizes[d]
        for t in range(n):
            s2 = 0
            for s in range(n):
                if s != t:
                    other[s2] = position[p_combos[j, s]]
                    s2 += 1
            other[n - 1] = position[d]
            first2 = cell_first[_combination_rank(other, binom)]
            child_off = att_off[p_combos[j, t]]
            for cell in range(n_cells):
                cell2 = first2 + drop[t, cell] * size_d
                dst_v = child_off + digits[t, cell] * k
                for vd in range(size_d):
                    src = kid_off[u] + vd * stride + cell * k
                    held = False
                    for yy in range(k):
                        if scratch[src + yy] != 0.0:
                            held = True
                    if not held:
                        continue
                    slot = slot_of[cell2 + vd]
                    if slot < 0:
                        continue
                    dst = slot * region + dst_v
                    for yy in range(k):
                        value = scratch[src + yy]
                        if value != 0.0:
                            counts[dst + yy] += value


@njit(parallel=True, cache=True)
def count_parent_sets(job, counts, n_workers):
    """The counts of :func:`count_parent_cells` into ``counts`` (zeros, or any counts when
    the rows are unweighted and the counts integers), each set of n + 1 parents counted
    once rather than once at each of its n + 1 parent combinations.

    Parent combination s (n parents) holds, at each stored cell, the counts of every child;
    for a parent child d not in s, N(y, x_s, x_d) are the counts of the set s + {d}, which
    the n other parent combinations of that set hold too.  Each combination counts its
    members, the attributes that are not parents and the parents after its last member
    (:func:`_count_root`), and hands the counts of each set it so counted to the other
    combinations of that set, in which that child comes before their last member: a row
    costs C(m, n + 1) + C(m, n) (a - m + n) increments (m parents of a attributes) instead
    of C(m, n) a.  Every total is added to ``counts`` once, the sum of its rows in order
    from 0.0 as :func:`count_parent_cells` adds them: into zeros, the same numbers bit for
    bit.  The combinations run on ``n_workers`` workers, each taking every
    ``n_workers``-th."""
    p_combos, cell_first, sizes, k = job.p_combos, job.cell_first, job.sizes, job.k
    n_combos = p_combos.shape[0]
    if n_combos == 0 or job.X.shape[0] == 0:
        return
    max_cells = 0
    for j in range(n_combos):
        max_cells = max(max_cells, cell_first[j + 1] - cell_first[j])
    size = max_cells * k * sizes.sum()
    n_att = sizes.size
    n_workers = max(1, min(n_workers, n_combos))
    for worker in prange(n_workers):
        n = p_combos.shape[1]
        buffers = (np.empty(size, dtype=np.float64), np.empty(n_att, dtype=np.int64),
                   np.empty(n_att, dtype=np.int64), np.empty(PARENT_SET_BLOCK, dtype=np.int64),
                   np.empty((n, max_cells), dtype=np.int64),
                   np.empty((n, max_cells), dtype=np.int64))
        for j in range(worker, n_combos, n_workers):
            _count_root(job, j, buffers, counts)


def parent_set_costs(p_combos, cell_first, sizes, k, position):
    """What counting the compact counts costs (increments): ``(per_row_cells,
    per_row_sets, fixed_sets, scratch)``: a row in :func:`count_parent_cells`, a row in
    :func:`count_parent_sets`, the latter's work per call that does not depend on the rows
    (clearing and reading its histograms), and the entries of one worker's histogram."""
    n_combos, n = p_combos.shape
    a = sizes.size
    if n_combos == 0 or n == 0:
        return n_combos * a, n_combos * a, 0, 0
    sizes = np.asarray(sizes, dtype=np.int64)
    is_parent = position >= 0
    parent_sizes = np.where(is_parent, sizes, 0)
    after = np.concatenate([np.cumsum(parent_sizes[::-1])[::-1][1:], [0]])  # parents > i
    n_after = np.concatenate([np.cumsum(is_parent[::-1])[::-1][1:], [0]])
    last = p_combos[:, -1]
    kids = n + int((~is_parent).sum()) + n_after[last]
    kid_sizes = sizes[p_combos].sum(axis=1) + int(sizes[~is_parent].sum()) + after[last]
    cells = np.diff(cell_first)
    fixed = int((cells * k * (2 * kid_sizes + n * after[last])).sum())
    scratch = int(cells.max()) * k * int(sizes.sum())
    return n_combos * a, int(kids.sum()), fixed, scratch


#: :func:`count_compact` counts by sets when a worker's histogram takes at most this many
#: bytes and the estimated increments fall to at most this fraction
PARENT_SET_SCRATCH_BYTES = 1 << 26
PARENT_SET_GAIN = 0.8


def count_compact(job, counts, costs):
    """The compact counts of the rows of ``job`` (a :class:`ParentSetJob`) added to
    ``counts``, which hold zeros: by :func:`count_parent_sets` where it costs less
    (``costs``: :func:`parent_set_costs` of the layout), else by
    :func:`count_parent_cells`; the same numbers either way."""
    per_cells, per_sets, fixed, scratch = costs
    rows = job.X.shape[0]
    if (job.p_combos.shape[1] >= 1 and 8 * scratch <= PARENT_SET_SCRATCH_BYTES
            and per_sets * rows + fixed < PARENT_SET_GAIN * per_cells * rows):
        count_parent_sets(job, counts, get_num_threads())
    else:
        count_parent_cells(job.X, job.y, job.w, job.weighted, job.p_combos, job.cell_first,
                           job.slot_of, job.sizes, job.k, job.att_off, job.region, counts)
