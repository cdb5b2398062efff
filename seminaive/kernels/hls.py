"""Hierarchical linear smoothing of conditional probability tables (Cooper, Webb & Schmidt
2025): the sibling of :mod:`.hdp` that fits a penalised log-linear model in place of the
hierarchical Dirichlet process sampler.

A conditional table P(x | z_1, ..., z_d) is the same tree as the HDP's: the root, then the
nodes of level l for every value of the first l conditioning variables.  Every node j
carries a coefficient vector beta_j (one entry per value of x), and the distribution at a
node is the softmax of the sum of the coefficients on its path from the root,

    eta_j = eta_parent(j) + beta_j,    eta_root = beta_root,    P(x | node j) = softmax(eta_j),

so that a node shares what its ancestors learnt and adds its own correction.  The
coefficients minimise the multinomial log loss of the rows (their counts at the leaves) plus
a ridge penalty,

    sum_leaves sum_x -n_leaf,x log P(x | leaf)  +  lambda / 2  sum_j ||beta_j||^2,

with lambda = ``penalty`` (1 by default: the reference code's ridge, scikit-learn's C = 1).
The penalty shrinks a node with few rows towards its parent, as the HDP's concentration
does, and the root towards the uniform distribution.

The fit is Newton's method with the softmax's Hessian replaced by its diagonal
N p (1 - p) and a halving line search on the objective (so every step decreases it).  With a
diagonal Hessian the Newton system of a tree separates by value, and each value's system is a
Gaussian chain on the tree, solved exactly in one pass up and one pass down (eliminating
every subtree into a quadratic of its parent's path sum).  An iteration therefore costs
O(nodes x values) whatever the depth, and the fit stops when no coefficient moves by more
than ``tol`` (or after ``max_iter`` iterations).  A node without rows has coefficients 0 at
the optimum: its estimate is its nearest occurring ancestor's, as the HDP's is.  No random
numbers are drawn: the estimates are deterministic.

Departures from Cooper, Webb & Schmidt (2025): the root has a (penalised) coefficient
vector of its own, where the public code fits none (every level-1 node is then shrunk to
the uniform distribution instead of to the pooled distribution of x); the counts of a value
no row of a tree has are fitted too (they get a finite, small probability) rather than
set aside; only the ridge variant is implemented (not the Bayesian global-local shrinkage
one); and the optimiser is the tree-structured Newton method above rather than a general
solver.
"""

import math

import numba
import numpy as np
from numba import njit, prange

from ..exceptions import TableTooLargeError
from .hdp import _fill_dense, sparse_from_dense, thread_shares, tree_levels

#: the ridge penalty lambda (the reference code's scikit-learn C = 1)
PENALTY = 1.0
#: the fit stops when no coefficient moves by more than this
TOL = 1e-9
#: Newton iterations at most
MAX_ITER = 200
#: halvings of the step at most in one line search
MAX_HALVINGS = 40


@njit(cache=True)
def _path_sums(parent, beta, eta):
    """eta of every node: its parent's plus its own coefficients (nodes in level order)."""
    n, V = beta.shape
    for v in range(V):
        eta[0, v] = beta[0, v]
    for q in range(1, n):
        p = parent[q]
        for v in range(V):
            eta[q, v] = eta[p, v] + beta[q, v]


@njit(cache=True)
def _objective(leaf_first, leaves, beta, eta, penalty):
    """The penalised log loss at ``beta`` (``eta`` its path sums)."""
    n, V = beta.shape
    total = 0.0
    for q in range(n):
        for v in range(V):
            total += 0.5 * penalty * beta[q, v] * beta[q, v]
    for i in range(leaves.shape[0]):
        q = leaf_first + i
        hi = eta[q, 0]
        for v in range(1, V):
            hi = max(hi, eta[q, v])
        s = 0.0
        n_row = 0.0
        for v in range(V):
            s += math.exp(eta[q, v] - hi)
            n_row += leaves[i, v]
        lse = hi + math.log(s)
        for v in range(V):
            total += leaves[i, v] * (lse - eta[q, v])
    return total


@njit(cache=True)
def fit_tree(parent, level_start, leaves, penalty, tol, max_iter, out):
    """Fit the coefficients of one tree and write every node's distribution to ``out``.

    ``parent``: (n_nodes,) int, the parent of every node (-1 for the root, node 0; nodes in
    level order); ``level_start``: the first node of every level (the last entry n_nodes);
    ``leaves``: float counts (nodes of the deepest level, V); ``out``: (n_nodes, V).
    Returns the number of Newton iterations (``max_iter`` + 1 when it did not converge).
    """
    n, V = out.shape
    depth = level_start.size - 2
    leaf_first = level_start[depth]
    beta = np.zeros((n, V))
    eta = np.zeros((n, V))
    a = np.empty((n, V))
    b = np.empty((n, V))
    z = np.empty((n, V))
    trial = np.empty((n, V))
    _path_sums(parent, beta, eta)
    current = _objective(leaf_first, leaves, beta, eta, penalty)
    iterations = max_iter + 1
    for it in range(max_iter):
        # the gradient and diagonal Hessian of the loss in the leaves' path sums
        for q in range(leaf_first):
            for v in range(V):
                a[q, v] = 0.0
                b[q, v] = 0.0
        for i in range(leaves.shape[0]):
            q = leaf_first + i
            hi = eta[q, 0]
            for v in range(1, V):
                hi = max(hi, eta[q, v])
            s = 0.0
            n_row = 0.0
            for v in range(V):
                s += math.exp(eta[q, v] - hi)
                n_row += leaves[i, v]
            for v in range(V):
                p = math.exp(eta[q, v] - hi) / s
                a[q, v] = 2.0 * n_row * p * (1.0 - p)
                b[q, v] = n_row * p - leaves[i, v]
        # up: eliminate every subtree into a quadratic of its parent's path sum
        for q in range(n - 1, 0, -1):
            p = parent[q]
            for v in range(V):
                den = penalty + a[q, v]
                ap = penalty * a[q, v] / den
                a[p, v] += ap
                b[p, v] += penalty * b[q, v] / den - ap * beta[q, v]
        # down: the path sums' increments z, then the coefficients' steps z - z_parent
        for v in range(V):
            z[0, v] = (-penalty * beta[0, v] - b[0, v]) / (penalty + a[0, v])
        for q in range(1, n):
            p = parent[q]
            for v in range(V):
                z[q, v] = (penalty * (z[p, v] - beta[q, v]) - b[q, v]) / (penalty + a[q, v])
        for q in range(n - 1, 0, -1):
            p = parent[q]
            for v in range(V):
                z[q, v] -= z[p, v]
        # the optimum's coefficients sum to 0 over the values at every node (the loss does not
        # change when a node's coefficients all shift): keep the steps there
        step = 0.0
        for q in range(n):
            mean = 0.0
            for v in range(V):
                mean += z[q, v]
            mean /= V
            for v in range(V):
                z[q, v] -= mean
                step = max(step, abs(z[q, v]))
        # halving line search on the objective
        t = 1.0
        accepted = False
        for _ in range(MAX_HALVINGS):
            for q in range(n):
                for v in range(V):
                    trial[q, v] = beta[q, v] + t * z[q, v]
            _path_sums(parent, trial, eta)
            value = _objective(leaf_first, leaves, trial, eta, penalty)
            if value <= current:
                accepted = True
                break
            t *= 0.5
        if accepted:
            for q in range(n):
                for v in range(V):
                    beta[q, v] = trial[q, v]
            current = value
        _path_sums(parent, beta, eta)
        if not accepted or t * step <= tol:
            iterations = it + 1
            break
    for q in range(n):
        hi = eta[q, 0]
        for v in range(1, V):
            hi = max(hi, eta[q, v])
        s = 0.0
        for v in range(V):
            s += math.exp(eta[q, v] - hi)
        for v in range(V):
            out[q, v] = math.exp(eta[q, v] - hi) / s
    return iterations


@njit(parallel=True, cache=True)
def fit_forest(parents, node_offsets, level_starts, depths, leaves, leaf_offsets, n_values,
               out_offsets, penalty, tol, max_iter, out, iterations, order, share_start):
    """:func:`fit_tree` for every tree (in parallel; the layout of
    :func:`.hdp.sample_forest`).  ``iterations[j]``: tree j's Newton iterations."""
    for w in prange(share_start.size - 1):
        for i in range(share_start[w], share_start[w + 1]):
            j = order[i]
            depth = depths[j]
            V = n_values[j]
            parent = parents[node_offsets[j]:node_offsets[j + 1]]
            ls = level_starts[j, :depth + 2].copy()
            nn = ls[depth + 1]
            n_leaf = nn - ls[depth]
            leaf = leaves[leaf_offsets[j]:leaf_offsets[j] + n_leaf * V].reshape(n_leaf, V)
            est = np.empty((nn, V))
            iterations[j] = fit_tree(parent, ls, leaf, penalty, tol, max_iter, est)
            o = out_offsets[j]
            for q in range(nn):
                for v in range(V):
                    out[o + q * V + v] = est[q, v]


def sparse_hls_bytes(trees):
    """Bytes :func:`sparse_hls_forest` allocates: the estimates, and six arrays of a tree's
    size per thread (the largest trees)."""
    cells = sorted(int(np.size(p)) * int(np.shape(c)[1]) for p, _, c in trees)
    threads = max(1, min(numba.get_num_threads(), len(cells)))
    return 8 * sum(cells) + 48 * sum(cells[-threads:]) if cells else 0


def sparse_hls_forest(trees, *, penalty=PENALTY, tol=TOL, max_iter=MAX_ITER, max_bytes=None,
                      return_iterations=False):
    """Hierarchical linear smoothing estimates of a list of trees holding only their
    occurring nodes (the input and output of :func:`.hdp.sparse_hdp_forest`).

    Parameters
    ----------
    trees : list of (parent, level_start, leaf_counts)
        ``parent``: (n_nodes,) int, the parent of every node (-1 for the root, node 0;
        nodes in level order); ``level_start``: (depth + 2,) int, the first node of every
        level; ``leaf_counts``: non-negative counts (weights need not be whole) of shape
        (nodes of the deepest level, n_values).
    penalty : float, default=1.0
        The ridge penalty lambda of every coefficient.
    tol : float, default=1e-9
        The fit of a tree stops when no coefficient moves by more than this.
    max_iter : int, default=200
        Newton iterations at most per tree.
    max_bytes : int, optional
        Refuse (:class:`~seminaive.exceptions.TableTooLargeError`, before allocating) when
        :func:`sparse_hls_bytes` exceeds it.
    return_iterations : bool, default=False
        Also return every tree's number of Newton iterations (``max_iter`` + 1: not
        converged).

    Returns
    -------
    list of ndarray
        For every tree, the distributions of its nodes, shape (n_nodes, n_values).

    Examples
    --------
    One binary child under a root with two conditioning values: the node with more rows
    keeps closer to its own frequencies.

    >>> import numpy as np
    >>> parent = np.array([-1, 0, 0]); level_start = np.array([0, 1, 3])
    >>> est = sparse_hls_forest([(parent, level_start, np.array([[9.0, 1.0], [1.0, 1.0]]))])[0]
    >>> bool(np.allclose(est.sum(axis=1), 1.0)), bool(0.5 < est[1, 0] < 0.9)
    (True, True)
    """
    if not penalty > 0:
        raise ValueError(f"penalty must be > 0, got {penalty!r}")
    if not trees:
        return ([], np.zeros(0, dtype=np.int64)) if return_iterations else []
    need = sparse_hls_bytes(trees)
    if max_bytes is not None and need > max_bytes:
        n_nodes = sum(int(np.size(p)) for p, _, _ in trees)
        raise TableTooLargeError(
            f"the hierarchical linear smoothing estimates of {len(trees)} tables "
            f"({n_nodes} occurring nodes) would need {need / 2**30:.2f} GiB, more than the "
            f"{max(max_bytes, 0) / 2**30:.2f} GiB left of max_table_bytes: use fewer parents "
            "(a smaller k or n), fewer intervals per numeric attribute, "
            "smoothing='m_estimate', or raise max_table_bytes if the machine has the memory")
    depths = np.array([np.size(ls) - 2 for _, ls, _ in trees], dtype=np.int64)
    level_starts = np.zeros((len(trees), int(depths.max()) + 2), dtype=np.int64)
    n_values = np.empty(len(trees), dtype=np.int64)
    node_offsets = np.zeros(len(trees) + 1, dtype=np.int64)
    leaf_offsets = np.zeros(len(trees) + 1, dtype=np.int64)
    out_offsets = np.zeros(len(trees) + 1, dtype=np.int64)
    flat, parents, costs = [], [], []
    for j, (parent, ls, counts) in enumerate(trees):
        counts = np.asarray(counts, dtype=np.float64)
        parent = np.asarray(parent, dtype=np.int64)
        ls = np.asarray(ls, dtype=np.int64)
        if (counts.ndim != 2 or ls[0] != 0 or ls[-1] != parent.size
                or counts.shape[0] != ls[-1] - ls[-2]):
            raise ValueError(f"tree {j}: the leaf counts and levels do not match its nodes")
        if counts.size and not (np.all(np.isfinite(counts)) and counts.min() >= 0):
            raise ValueError(f"tree {j}: counts must be finite and non-negative")
        level_starts[j, :ls.size] = ls
        n_values[j] = counts.shape[1]
        flat.append(counts.ravel())
        parents.append(parent)
        costs.append(float(parent.size * max(counts.shape[1], 1)))
        node_offsets[j + 1] = node_offsets[j] + parent.size
        leaf_offsets[j + 1] = leaf_offsets[j] + counts.size
        out_offsets[j + 1] = out_offsets[j] + parent.size * counts.shape[1]
    out = np.empty(int(out_offsets[-1]))
    iterations = np.zeros(len(trees), dtype=np.int64)
    order, share_start = thread_shares(costs)
    fit_forest(np.concatenate(parents), node_offsets, level_starts, depths,
               np.concatenate(flat), leaf_offsets, n_values, out_offsets, float(penalty),
               float(tol), int(max_iter), out, iterations, order, share_start)
    estimates = [out[out_offsets[j]:out_offsets[j + 1]].reshape(-1, n_values[j])
                 for j in range(len(trees))]
    return (estimates, iterations) if return_iterations else estimates


def hls_forest(trees, *, penalty=PENALTY, tol=TOL, max_iter=MAX_ITER, max_bytes=None):
    """Hierarchical linear smoothing estimates of a list of trees given densely (the input
    and output of :func:`.hdp.hdp_forest`; the fit works on the occurring nodes only,
    :func:`sparse_hls_forest`).

    Parameters
    ----------
    trees : list of (counts, dims)
        ``counts``: non-negative counts of shape (prod dims, n_values): the rows of the
        data at every combination of the conditioning variables (C order, sizes ``dims``,
        the first conditioning variable slowest).
    penalty, tol, max_iter, max_bytes
        As in :func:`sparse_hls_forest`.

    Returns
    -------
    list of ndarray
        For every tree, the distributions of shape (sum of the levels' rows, n_values): the
        root, then every level's nodes in C order (a node without rows: its nearest
        occurring ancestor's).

    Examples
    --------
    >>> import numpy as np
    >>> est = hls_forest([(np.array([[3.0, 1.0], [0.0, 0.0]]), [2])])[0]
    >>> est.shape, bool(np.allclose(est[2], est[0]))  # node 2 has no rows: the root's
    ((3, 2), True)
    """
    sparse, layout = [], []
    for j, (counts, d) in enumerate(trees):
        counts = np.asarray(counts, dtype=np.float64)
        dims = np.asarray(d, dtype=np.int64).reshape(-1)
        levels = tree_levels(dims)
        if counts.ndim != 2 or counts.shape[0] != levels[-1]:
            raise ValueError(f"tree {j}: {counts.shape[0]} rows, expected {levels[-1]}")
        occupied = (counts > 0).astype(np.int64)
        index, parent, level_start, _ = sparse_from_dense(occupied, dims, dims.size)
        leaf_index = index[-counts.shape[0]:]
        sparse.append((parent, level_start, counts[leaf_index >= 0]))
        layout.append((index, dims, int(levels.sum())))
    estimates = sparse_hls_forest(sparse, penalty=penalty, tol=tol, max_iter=max_iter,
                                  max_bytes=max_bytes)
    out = []
    for est, (index, dims, n_rows) in zip(estimates, layout, strict=True):
        dense = np.empty((n_rows, est.shape[1]))
        _fill_dense(index, dims, dims.size, est, dense)
        out.append(dense)
    return out
