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
a ridge penalty of every level l,

    sum_leaves sum_x -n_leaf,x log P(x | leaf)  +  sum_j lambda_level(j) / 2 ||beta_j||^2,

the maximum a posteriori coefficients under independent normal priors of variance
1 / lambda_l.  The penalty shrinks a node with few rows towards its parent, as the HDP's
concentration does, and the root towards the uniform distribution.

The penalties are chosen per level of every tree by the evidence (``penalty=None``, the
default): they maximise the marginal likelihood of the counts under the Laplace
approximation at the fitted coefficients, by the fixed point of MacKay (1992),

    lambda_l  <-  gamma_l / sum_{j in level l} ||beta_j||^2,
    gamma_l = (V - 1) / V  sum_{j in level l} sum_x (1 - lambda_l Var(beta_j,x)),

gamma_l the level's effective number of coefficients (a node's V coefficients sum to 0, so
V - 1 of them are free), alternating with refits of the coefficients from where they are.
The posterior variances come exactly, in one pass up and one down, from the tree-shaped
Gaussian of the approximation (below).  A level whose nodes add nothing to their parents'
gets the largest penalty (``PENALTY_BOUNDS``): its nodes take their parents'
distributions.  The root's penalty stays at 1 (one node: too little to choose a variance
from).  A number for ``penalty`` fixes every level's (the reference code's ridge: 1).
On the benchmark (``benchmarks/bench_hls.py``: 8 sets x KDB(k=3) and AnDE(n=1)) the
per-level penalties with the root's fixed give a log loss no worse than the HDP's in 11 of
16 cases; choosing the root's by the evidence too also 11 (worse than the default on 11),
one penalty shared by every level below the root (the paper's one prior variance, chosen
by the evidence) 8, and the class level's penalty capped at the reference code's 1 (the
evidence gives the class level the largest penalty in many trees) 7: none is kept.

The fit is Newton's method with a halving line search on the objective (so every step
decreases it).  The Newton system is solved by conjugate gradients with the exact Hessian (a
product with it costs one pass down and one up the tree: the leaves' softmax curvature n
(diag(p) - p p^T) on the path sums, summed up to every ancestor, plus the penalties),
preconditioned by the system with the softmax's Hessian replaced by its diagonal, scaled to
its curvature on coefficients that sum to 0 over the values (V / (V - 1) N p (1 - p): exact
for two values, and at the uniform distribution for any number).  That diagonal system
separates by value, and each value's system is a Gaussian chain on the tree, solved exactly in
one pass up and one pass down (eliminating every subtree into a quadratic of its parent's path
sum; the elimination of the curvature is done once per Newton step, the rounds only carry the
right-hand side), so a conjugate-gradient round costs O(nodes x values) whatever the depth.
That is the loose fits' step (below); the Newton fit after the penalties are chosen solves
every leaf's block n (diag(p) - p p^T) + lambda I exactly instead (Sherman-Morrison: a
diagonal plus rank one), and hands its parent the diagonal of what it eliminates
(:func:`_tree_factor_exact`, :func:`_tree_solve_exact`; the same two passes, symmetric
positive definite): on letter's and penbased's ESKDB trees 23% and 45% fewer
conjugate-gradient rounds, the fit's estimates within 1.4e-12 of the diagonal
preconditioner's (the same optimum), the penalties untouched; the whole fit of those trees
0.97x and 0.96x the CPU seconds (the rounds were about 15% of it: the loose fits are most
of the rest).
The rounds stop at a residual of min(0.1, |g|) |g| (g the gradient), which keeps Newton's
convergence quadratic near the optimum, or as soon as it leaves the step within ``EXACT`` x
``tol`` of the exact Newton step's (the Hessian is at least the smallest penalty mu, so a
residual r leaves it within |r|_2 / mu).  The same bound stops the fit when the gradient
puts every coefficient within ``EXACT`` x ``tol`` of the optimum (|g|_2 / mu: the objective
is mu-strongly convex), and the line search takes a step that raises the objective by no
more than its rounding (``NOISE``), which no comparison can tell from a decrease: halving
on it stopped the fit up to 2.5e-9 short of the optimum (housevotes), where it now stops
within 1e-11, with 38% fewer conjugate-gradient rounds and 53% fewer trials of the line
search on letter's ESKDB trees (the whole fit of their 320 trees: 0.84 of the CPU seconds
of cbe3c48; ESKDB's probabilities moved by at most 9e-9).  A conjugate-gradient round fused
into five passes over the nodes (from twelve) took the same time: the rounds are bound by
their arithmetic.  A trial of the line search stops at the first leaf where the objective
so far passes the current one (:func:`_trial_softmax`; the same decisions, bit for bit):
0.98 of the CPU seconds of the fit on those trees.  The fits while the penalties are chosen
(57% of that fit on letter) are left as they are: the chosen penalties follow their path
(they stop within 1% of the evidence's fixed point, wherever that path reaches it), so a
faster path moves them.
While the penalties are still being chosen the fit only needs to be loose, and takes the
preconditioner's step alone (one round, no conjugate gradients).  The fit stops when no
coefficient moves by more than ``tol`` (or after ``max_iter`` iterations in all).  The
leaves' softmax is computed once per step, by the line search at the trial it accepts (one
exponential per value: exp(eta - max) over their sum); the gradient, the curvature, the next
step and the evidence's update read it.  A loose step (:func:`_loose_newton`) factors and
solves the preconditioner in the same pass up, and its other passes over the nodes are fused
into three (the gradient up the tree with the right-hand side and the factor's start; the
elimination; the solve's pass down with the centring, the step's largest move and the line
search's first trial), the accepted trial swapped in rather than copied: the same operations
in the same order as eleven separate passes, so the same numbers bit for bit, in 0.94 of the
CPU seconds of the HLS fit of letter's and penbased's ESKDB forests (one thread, alternated
in one process, load 8-10).
Those exponentials are not the C library's: a trial's leaves go in blocks (32 cells, then
twice the leaves per block up to 1,024 cells), every block's exp(eta - max) in one flat
loop of a polynomial that vectorises (:func:`_exp_nonpositive`: 2**k times a Taylor
polynomial of degree 13, within one unit in the last place of the C library's exp; a call
of the library's per value does not vectorise), then the block's sums, logarithms and
losses: the HLS fit of letter's and penbased's ESKDB forests (320 trees each) in 0.81 and
0.83 of the CPU seconds of d7deb14 (one thread, alternated, best of 3 x 3, load 7-10),
the same Newton iterations on every tree, the estimates within 3.5e-12 (letter) and
4.5e-14 (penbased) relative of d7deb14's.
The logarithms of a block's sums likewise go in one vectorised loop
(:func:`_log_positive`: k log 2 plus the odd series of 2 atanh(f / (2 + f)), within one
unit in the last place of the C library's log, subnormals included); they enter only the
losses the line search compares, not the distributions, and on letter's and penbased's
ESKDB forests every comparison comes out as before: the same iterations and penalties bit
for bit.  The leaves' estimates are the last softmax of the fit (the line search's or the
start's, which holds for the final coefficients) rather than one more exponential per
value: they move by at most 8e-16 relative.  (Summing a leaf's loss in two partial sums
instead of one turned one line search's decision on one of letter's trees and moved its
chosen penalties by up to 5.7e-10: not kept; the evidence's path is that sensitive to the
loss's last bits.)  The HLS fit of those forests took 0.99 and 1.02 of 6e5b9cc's CPU
seconds (one thread, alternated, best of 9 x 3, load 8-10): the logarithms were a few
percent of it, within the noise of that machine.  ESKDB-HLS's probabilities on the test
halves of letter and penbased moved by at most 2.2e-14 relative (no predicted class changed).
The trees of a forest are flattened by the HDP's set-up
(:func:`.hdp.forest_layout`; :func:`hls_forest`'s dense trees by one kernel for the whole
forest, :func:`_dense_forest`, which makes the same occurring nodes, and one more fills every
tree's dense estimates) and fitted in parallel on the HDP sampler's threads
(:func:`~seminaive.kernels._threads.parallel_calls`; each thread takes the next trees,
largest first, about 1 / (2 x threads) of the cells left, when it has fitted its last), or
in the calling thread when the forest is small
(the shared cut of :func:`.hdp.thread_shares`, at ``SERIAL_CELLS``).  A node without rows
has coefficients 0 at the optimum: its estimate is its nearest occurring ancestor's, as the
HDP's is.  No random numbers are drawn: the estimates are deterministic.

Departures from Cooper, Webb & Schmidt (2025): the paper's ridge variant fixes the penalty
(its public code: scikit-learn's C = 1 for every coefficient), and its Bayesian variant
samples one global prior variance (inverse-gamma prior) with the coefficients by
Polya-gamma Gibbs sampling; here one variance per level is chosen by maximising the
(approximate) evidence instead, deterministic and at the cost of a few refits, and the
Laplace approximation uses the diagonal Hessian above by default; the exact softmax one
(``evidence="full"``: V x V blocks per node, O(nodes x values^3) per update) is an option,
not the default: on the benchmark's 16 cases it lowered the log loss in 6 (vowel AnDE(n=1)
1.0225 to 1.0073, segment KDB(k=3) 0.1821 to 0.1791, segment AnDE(n=1) 0.1857 to 0.1833,
vowel KDB(k=3) 1.0360 to 1.0342, tic-tac-toe's two by 1e-4), raised it in 7 (splice
KDB(k=3) 0.1351 to 0.1367, german KDB(k=3) 0.5899 to 0.5922, contraceptive KDB(k=3)
0.9906 to 0.9917, four by 1e-4 or 2e-4) and left 3 unchanged, so that it is no worse than
the HDP's in 12 cases (the default: 11); it does not close the gap to the HDP under
AnDE(n=1) (tic-tac-toe 0.5051, housevotes 0.1889, vowel 1.0073, segment 0.1833 against
the HDP's 0.4854, 0.1711, 0.9641, 0.1771), and its fit took 1.4x to 4x the CPU time
(splice AnDE(n=1) 0.39 to 0.89 s, segment KDB(k=3) 0.046 to 0.148 s), which the
estimates' 20x over the HDP's sampler cannot afford.  Settling the penalties at a looser
``PENALTY_TOL`` (1.05) saved 13% of the fit on segment KDB(k=3) and moved the log losses
both ways by up to 0.005: not kept either.  The root
has a coefficient vector of its own, where the public code fits none (every level-1 node is
then shrunk to the uniform distribution instead of to the pooled distribution of x); the
counts of a value no row of a tree has are fitted too (they get a finite, small probability)
rather than set aside; the global-local shrinkage (horseshoe) priors are not implemented;
and the optimiser is the tree-structured Newton method above rather than a general solver.

References
----------
Cooper, C., Webb, G. I. & Schmidt, D. F. (2025). Efficient parameter estimation for
Bayesian network classifiers using hierarchical linear smoothing. arXiv:2505.23320.

MacKay, D. J. C. (1992). Bayesian interpolation. Neural Computation 4(3), 415-447.
"""

import math
import threading
from collections import namedtuple

import numpy as np

from ..exceptions import TableTooLargeError
from . import _jit as numba
from ._jit import njit
from ._threads import parallel_calls
from .hdp import ForestLayout, forest_layout, thread_shares

#: the ridge penalty: ``None`` chooses one per level of every tree by maximising the
#: evidence (see the module docstring); a number fixes it (the reference code's ridge: 1)
PENALTY = None
#: the Hessian of the Laplace approximation when the penalties are chosen: ``"diagonal"``
#: (the per-value one of the Newton step's preconditioner, O(nodes x values)) or ``"full"``
#: (the exact softmax Hessian, V x V blocks: O(nodes x values^3))
EVIDENCE = "diagonal"
#: the penalty every level starts from when it is chosen (the reference code's ridge)
PENALTY_START = 1.0
#: the chosen penalties are kept within these bounds
PENALTY_BOUNDS = (1e-4, 1e6)
#: the penalties are chosen when no level's changes by more than this factor in an update
PENALTY_TOL = 1.01
#: between updates of the penalties the coefficients are fitted to this tolerance
LOOSE_TOL = 1e-4
#: Newton iterations at most between two updates of the penalties (after the first fit)
UPDATE_ITER = 1
#: a level's penalty still rising above this goes to the largest (its coefficients are
#: already all but 0)
SNAP = 1e4
#: updates of the penalties at most
MAX_UPDATES = 50
#: the fit stops when no coefficient moves by more than this
TOL = 1e-9
#: Newton iterations at most (in all)
MAX_ITER = 500
#: halvings of the step at most in one line search
MAX_HALVINGS = 40
#: conjugate-gradient iterations at most in one Newton step
CG_ITER = 50
#: the Newton fit (after the penalties are chosen) stops when its gradient puts every
#: coefficient within this times ``tol`` of the optimum, and its conjugate gradients stop
#: when their residual puts the step within this times ``tol`` of the exact Newton step's
EXACT = 0.1
#: the line search of the Newton fit takes a step that raises the objective by at most this
#: times its value (its rounding: the comparison cannot tell)
NOISE = 1e-13
#: a forest of at most this many cells (nodes x values, all trees) is fitted in one thread
#: (:func:`.hdp.thread_shares`' cut, shared with the HDP's sampler, whose ``SERIAL_WORK`` is
#: about as many milliseconds of its work): starting the threads costs more than they save
#: (measured on a loaded 2-core machine, same run: one thread faster on 1,548 and 2,788
#: cells, the threads on 9,431 and 10,880)
SERIAL_CELLS = 4096
#: cells (leaves x values) of the first block of the leaves' softmax
#: (:func:`_trial_softmax`): a block's exponentials in one vectorised loop, then its
#: leaves' losses; a rejected trial of the line search stops at the end of a block
EXP_BLOCK = 32
#: every next block has twice the leaves of the one before, up to this many cells
EXP_BLOCK_MAX = 1024
#: working arrays of a tree's size a fit allocates (beside its estimates): the coefficients,
#: their path sums and the Newton step's 11
WORK_ARRAYS = 13

#: the settings of a fit: ``penalty`` (the start when chosen), ``choose`` (choose the
#: penalties per level), ``tol``, ``max_iter``, ``full`` (the evidence with the exact
#: softmax Hessian)
Settings = namedtuple("Settings", "penalty choose tol max_iter full")


@njit(cache=True)
def _node_levels(level_start):
    """The level of every node."""
    level = np.empty(level_start[-1], dtype=np.int64)
    for d in range(level_start.size - 1):
        for q in range(level_start[d], level_start[d + 1]):
            level[q] = d
    return level


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
def _penalty_term(beta, pen, level):
    """The ridge penalty at ``beta``: sum_j lambda_level(j) / 2 ||beta_j||^2."""
    n, V = beta.shape
    total = 0.0
    for q in range(n):
        lam = pen[level[q]]
        for v in range(V):
            total += 0.5 * lam * beta[q, v] * beta[q, v]
    return total


@njit(cache=True, inline="always")
def _exp_row(eta, q, out, i):
    """``out[i, v] = exp(eta[q, v] - hi)``, ``hi`` the row's largest ``eta``: one
    exponential per value of a softmax whose distribution is ``out[i] / s``.  Returns
    ``(hi, s)``."""
    V = eta.shape[1]
    hi = eta[q, 0]
    for v in range(1, V):
        hi = max(hi, eta[q, v])
    s = 0.0
    for v in range(V):
        e = math.exp(eta[q, v] - hi)
        out[i, v] = e
        s += e
    return hi, s


@njit(cache=True)
def _leaf_softmax(leaf_first, leaves, eta, prob, rows):
    """The leaves' softmax, computed once for everything that needs it: writes their
    distributions ``prob`` (softmax of their path sums ``eta``) and rows ``rows``, and
    returns the log loss of their counts (the objective without the penalty): the loop of
    :func:`_trial_softmax` with no limit."""
    return _trial_softmax(leaf_first, leaves, eta, prob, rows, 0.0, math.inf)


@njit(cache=True, error_model="numpy")
def _trial_softmax(leaf_first, leaves, eta, prob, rows, penalty, limit):
    """:func:`_leaf_softmax` for a trial of the line search, which is rejected when
    ``penalty`` + the leaves' log loss exceeds ``limit``: it stops after the block of
    leaves (below) where ``penalty`` + the loss so far does (every leaf's loss is >= 0,
    and a rounded sum of non-negative terms never falls, so the whole loss would too) and
    returns the loss so far; ``prob`` then holds nothing of use (the leaves after that
    block unwritten).  Otherwise the same numbers as :func:`_leaf_softmax`.

    The leaves go in blocks, the first of about :data:`EXP_BLOCK` cells (leaves x values),
    each next one of twice the leaves up to :data:`EXP_BLOCK_MAX` cells: the exponentials
    of a block's every leaf and value, exp(eta - the leaf's largest eta), in one flat
    vectorised loop (:func:`_exp_block`), then every leaf's sum, the block's logarithms of
    those sums in one vectorised loop (:func:`_log_block`), then every leaf's loss and
    distribution in turn."""
    V = eta.shape[1]
    n_leaf = leaves.shape[0]
    flat = prob.reshape(n_leaf * V)
    step = max(1, EXP_BLOCK // max(V, 1))
    # a block's sums then their logarithms (a block has fewer than 2 x EXP_BLOCK_MAX leaves)
    buf = np.empty(4 * EXP_BLOCK_MAX)
    sums = buf[:2 * EXP_BLOCK_MAX]
    logs = buf[2 * EXP_BLOCK_MAX:]
    total = 0.0
    b1 = 0
    while b1 < n_leaf:
        b0 = b1
        b1 = min(n_leaf, b0 + step)
        if step * V < EXP_BLOCK_MAX:
            step *= 2
        for i in range(b0, b1):
            q = leaf_first + i
            hi = eta[q, 0]
            for v in range(1, V):
                hi = max(hi, eta[q, v])
            for v in range(V):
                prob[i, v] = eta[q, v] - hi
            rows[i] = hi  # (the leaf's largest eta until its rows are written below)
        _exp_block(flat[b0 * V:b1 * V])
        m = b1 - b0
        for i in range(b0, b1):
            t = 0.0
            for v in range(V):
                t += prob[i, v]
            sums[i - b0] = t
        _log_block(sums[:m], logs[:m])
        for i in range(b0, b1):
            q = leaf_first + i
            lse = rows[i] + logs[i - b0]
            scale = 1.0 / sums[i - b0]
            n_row = 0.0
            for v in range(V):
                n_row += leaves[i, v]
                total += leaves[i, v] * (lse - eta[q, v])
                prob[i, v] *= scale
            rows[i] = n_row
        if penalty + total > limit:
            return total
    return total


#: exp(x) = 2**k exp(r), k = round(x / log 2), r = x - k log 2 in [-log 2 / 2, log 2 / 2]
#: (log 2 in two parts, the first with trailing zero bits: k times it is exact), exp(r)
#: by its Taylor polynomial of degree 13 (remainder below 5e-18 on that interval)
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_C2, _C3, _C4, _C5, _C6, _C7, _C8, _C9, _C10, _C11, _C12, _C13 = (
    1.0 / math.factorial(j) for j in range(2, 14))


@njit(cache=True, inline="always")
def _exp_nonpositive(x):
    """exp(``x``) for ``x`` <= 0, in operations a loop vectorises (no call, no branch):
    the polynomial of the comment above, scaled by 2**k as two powers of two (each a
    normal number, so that a subnormal result is rounded once, at the last product);
    ``x`` below -746 is taken as -746 (0, as the C library's exp gives it).  Within one
    unit in the last place of the C library's exp (``tests/kernels/test_hls.py``), not
    always the same bits."""
    x = max(x, -746.0)
    k = math.floor(x * _LOG2E + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = _C13
    p = p * r + _C12
    p = p * r + _C11
    p = p * r + _C10
    p = p * r + _C9
    p = p * r + _C8
    p = p * r + _C7
    p = p * r + _C6
    p = p * r + _C5
    p = p * r + _C4
    p = p * r + _C3
    p = p * r + _C2
    p = p * r + 1.0
    p = p * r + 1.0
    ki = np.int64(k)
    k1 = ki >> 1
    k2 = ki - k1
    return (p * np.int64((k1 + 1023) << 52).view(np.float64)
            * np.int64((k2 + 1023) << 52).view(np.float64))


@njit(cache=True, inline="always")
def _exp_block(x):
    """``x`` <- exp(``x``) in place, every entry <= 0 (:func:`_exp_nonpositive`).  (A loop
    over ``range(lo, hi)`` of a larger array instead was not vectorised: its index may be
    negative, which numba's indexing wraps; a slice's ``range(size)`` is.)"""
    for j in range(x.size):
        x[j] = _exp_nonpositive(x[j])


#: log(x) = k log 2 + log(m), m = x / 2**k in [sqrt(1/2), sqrt(2)); log(m) = log(1 + f)
#: = 2 atanh(s), s = f / (2 + f) (|s| < 0.172), by its odd Taylor series to s**23
#: (remainder below 2e-19 relative), written as f - hfsq + s (hfsq + R(s**2)), hfsq = f**2 / 2,
#: so that the large terms are exact and only R's few units are rounded
_LOG_C = tuple(2.0 / (2 * j + 1) for j in range(1, 12))
_TWO52 = 4503599627370496.0
_TINY = 2.2250738585072014e-308


@njit(cache=True, inline="always", error_model="numpy")
def _log_positive(x):
    """log(``x``) for a finite ``x`` > 0 (normal or subnormal), in operations a loop
    vectorises (no call, no branch; compiled without the division's zero check): the
    series of the comment above, a subnormal ``x`` scaled by 2**52 first.  Within one unit
    in the last place of the C library's log (``tests/kernels/test_hls.py``), not always
    the same bits."""
    sub = x < _TINY
    x = x * _TWO52 if sub else x
    bits = np.float64(x).view(np.int64)
    # the biased exponent of x / sqrt(1/2), rounded down (0x3FF0... less sqrt(1/2)'s bits)
    eb = (bits + np.int64(0x00095F619980C433)) >> 52
    m = np.int64(bits - ((eb - 1023) << 52)).view(np.float64)
    # k as a double without an int64 conversion (none vectorises without AVX-512)
    k = ((np.int64(0x4330000000000000 | eb).view(np.float64) - _TWO52)
         - (1023.0 + (52.0 if sub else 0.0)))
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11 = _LOG_C
    r = c11
    r = r * z + c10
    r = r * z + c9
    r = r * z + c8
    r = r * z + c7
    r = r * z + c6
    r = r * z + c5
    r = r * z + c4
    r = r * z + c3
    r = r * z + c2
    r = r * z + c1
    r = r * z
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


@njit(cache=True, inline="always", error_model="numpy")
def _log_block(x, out):
    """``out`` <- log(``x``), every entry finite and > 0 (:func:`_log_positive`), in one
    vectorised loop."""
    for j in range(x.size):
        out[j] = _log_positive(x[j])


@njit(cache=True)
def _curvature(leaf_first, prob, rows, leaves, a, b):
    """The gradient ``b`` and the approximate Hessian ``a`` of the loss in the leaves' path
    sums (0 at the other nodes), from the leaves' distributions ``prob`` and rows ``rows``
    (:func:`_leaf_softmax`): n p - counts and V / (V - 1) n p (1 - p), the Hessian's
    diagonal scaled to its curvature on coefficients that sum to 0 over the values (exact
    for two values, and for any number of values at the uniform distribution)."""
    V = a.shape[1]
    scale = V / (V - 1.0) if V > 1 else 1.0
    for q in range(leaf_first):
        for v in range(V):
            a[q, v] = 0.0
            b[q, v] = 0.0
    for i in range(leaves.shape[0]):
        q = leaf_first + i
        for v in range(V):
            p = prob[i, v]
            a[q, v] = scale * rows[i] * p * (1.0 - p)
            b[q, v] = rows[i] * p - leaves[i, v]


@njit(cache=True)
def _hessian_product(parent, level, leaf_first, prob, rows, pen, s, ps, out):
    """``out`` = H ``s``, H the exact Hessian of the penalised objective in the coefficients:
    the leaves' softmax curvature n (diag(p) - p p^T) on the path sums of ``s`` (``ps``,
    overwritten), summed up to every ancestor, plus every node's penalty times ``s``."""
    n, V = s.shape
    _path_sums(parent, s, ps)
    for q in range(leaf_first):
        for v in range(V):
            out[q, v] = 0.0
    for i in range(prob.shape[0]):
        q = leaf_first + i
        dot = 0.0
        for v in range(V):
            dot += prob[i, v] * ps[q, v]
        for v in range(V):
            out[q, v] = rows[i] * prob[i, v] * (ps[q, v] - dot)
    for q in range(n - 1, 0, -1):
        p = parent[q]
        for v in range(V):
            out[p, v] += out[q, v]
    for q in range(n):
        lam = pen[level[q]]
        for v in range(V):
            out[q, v] += lam * s[q, v]


@njit(cache=True)
def _tree_factor(parent, level, pen, a, inv):
    """The elimination of the preconditioner M (the Hessian with the leaves' curvature
    replaced by its diagonal ``a``, 0 off the leaves), once for all the solves of a Newton
    step (:func:`_tree_solve`): every subtree eliminated into a quadratic of its parent's
    path sum, in one pass up; ``inv`` gets 1 / (lambda + the eliminated curvature) of every
    node and value (``inv`` may be ``a``).  The loose fits' step solves it once per factor
    (:func:`_loose_newton`, the same numbers in one pass up); the Newton fit after the
    penalties are chosen uses :func:`_tree_factor_exact`."""
    n, V = a.shape
    for q in range(n):
        for v in range(V):
            inv[q, v] = a[q, v]
    _eliminate_up(parent, level, pen, inv, n)


@njit(cache=True, inline="always")
def _eliminate_up(parent, level, pen, inv, last):
    """The nodes ``last - 1`` down to 1 eliminated into their parents (``inv`` holds each
    node's curvature plus what its children passed up; it gets 1 / (lambda + that)), then
    the root's 1 / (lambda + its own): the levels above the leaves of :func:`_tree_factor`
    and :func:`_tree_factor_exact`."""
    V = inv.shape[1]
    for q in range(last - 1, 0, -1):
        p = parent[q]
        lam = pen[level[q]]
        for v in range(V):
            w = 1.0 / (lam + inv[q, v])
            inv[p, v] += lam * inv[q, v] * w
            inv[q, v] = w
    if last > 0:
        lam = pen[0]
        for v in range(V):
            inv[0, v] = 1.0 / (lam + inv[0, v])


@njit(cache=True)
def _tree_solve(parent, level, pen, inv, r, wb, s):
    """``s`` = M^-1 ``r`` projected on coefficients that sum to 0 at every node, M the
    preconditioner factored by :func:`_tree_factor` (``inv``): a Gaussian chain per value,
    solved in one pass up (the linear terms of every subtree, eliminated into its parent's)
    and one down (``wb``: work)."""
    n, V = r.shape
    for q in range(n):
        for v in range(V):
            wb[q, v] = r[q, v]
    # the linear term of a path sum: r_q less the children's, plus their eliminated terms
    for q in range(n - 1, 0, -1):
        p = parent[q]
        lam = pen[level[q]]
        for v in range(V):
            wb[p, v] += lam * wb[q, v] * inv[q, v] - r[q, v]
    _tree_down(parent, level, pen, inv, wb, s)


@njit(cache=True)
def _tree_down(parent, level, pen, inv, wb, s):
    """The pass down of :func:`_tree_solve` (``wb``: the eliminated linear terms), and the
    centring of every node's coefficients."""
    n = s.shape[0]
    _down_to(parent, level, pen, inv, wb, s, n)
    _centre(parent, s, n)


@njit(cache=True)
def _down_to(parent, level, pen, inv, wb, s, stop):
    """The pass down over the nodes before ``stop`` (none when it is 0): every node's
    coefficients from its parent's and its eliminated linear terms ``wb``."""
    V = s.shape[1]
    if stop > 0:
        for v in range(V):
            s[0, v] = wb[0, v] * inv[0, v]
    for q in range(1, stop):
        p = parent[q]
        lam = pen[level[q]]
        for v in range(V):
            s[q, v] = (lam * s[p, v] + wb[q, v]) * inv[q, v]


@njit(cache=True)
def _tree_factor_exact(parent, level, pen, prob, rows, inv, u, k):
    """The elimination of the Newton fit's preconditioner M, once for all the solves of a
    Newton step (:func:`_tree_solve_exact`): the exact Hessian, but for the leaves'
    eliminated curvature, which reaches their parents as its diagonal.  A leaf's block
    n (diag(p) - p p^T) + lambda I is inverted exactly by Sherman-Morrison, (diag(d) - n p
    p^T)^-1 = diag(1 / d) + k u u^T with d = n p + lambda, u = p / d and k = n / (lambda
    sum_v u_v) (the denominator 1 - n sum p^2 / d written as lambda sum p / d: no
    cancellation): ``inv`` gets 1 / d, ``u`` gets u and ``k[i]`` k of leaf i; its parent's
    curvature gets the diagonal of its eliminated quadratic, lambda - lambda^2 (1 / d + k
    u^2) (>= 0: the leaf's block is at least lambda I), and above the leaves every value's
    chain is eliminated as :func:`_tree_factor` does it (every node's ``inv``: 1 / (lambda
    + the eliminated curvature)).  Dropping the off-diagonal part of what a leaf leaves its
    parent keeps every pivot positive: M is symmetric positive definite."""
    n, V = inv.shape
    n_leaf = prob.shape[0]
    leaf_first = n - n_leaf
    for q in range(leaf_first):
        for v in range(V):
            inv[q, v] = 0.0
    for i in range(n_leaf - 1, -1, -1):
        q = leaf_first + i
        lam = pen[level[q]]
        nr = rows[i]
        total = 0.0
        for v in range(V):
            w = 1.0 / (nr * prob[i, v] + lam)
            inv[q, v] = w
            x = prob[i, v] * w
            u[q, v] = x
            total += x
        kq = nr / (lam * total)
        k[i] = kq
        if q > 0:
            p = parent[q]
            for v in range(V):
                x = u[q, v]
                inv[p, v] += max(lam * (1.0 - lam * (inv[q, v] + kq * x * x)), 0.0)
    _eliminate_up(parent, level, pen, inv, leaf_first)


@njit(cache=True, inline="always")
def _leaf_apply(inv, u, kq, q, x, out):
    """``out[q]`` = (1 / d + k u u^T) ``x[q]`` (a leaf's inverse block, Sherman-Morrison:
    :func:`_tree_factor_exact`)."""
    V = inv.shape[1]
    # four sums in turn: not one chain of V dependent additions
    d0, d1, d2, d3 = 0.0, 0.0, 0.0, 0.0
    v = 0
    while v + 4 <= V:
        d0 += u[q, v] * x[q, v]
        d1 += u[q, v + 1] * x[q, v + 1]
        d2 += u[q, v + 2] * x[q, v + 2]
        d3 += u[q, v + 3] * x[q, v + 3]
        v += 4
    while v < V:
        d0 += u[q, v] * x[q, v]
        v += 1
    dot = kq * ((d0 + d1) + (d2 + d3))
    for v in range(V):
        out[q, v] = inv[q, v] * x[q, v] + dot * u[q, v]


@njit(cache=True)
def _tree_solve_exact(parent, level, pen, inv, u, k, r, wb, s):
    """``s`` = M^-1 ``r`` projected on coefficients that sum to 0 at every node, M the
    preconditioner factored by :func:`_tree_factor_exact` (``inv``, ``u``, ``k``): the
    linear terms eliminated in one pass up (a leaf's through its exact inverse block) and
    the path sums found in one down (``wb``: work), as :func:`_tree_solve` does."""
    n, V = r.shape
    n_leaf = k.shape[0]
    leaf_first = n - n_leaf
    for q in range(leaf_first):
        for v in range(V):
            wb[q, v] = r[q, v]
    for i in range(n_leaf - 1, -1, -1):
        q = leaf_first + i
        lam = pen[level[q]]
        # the leaf's linear term is its r: M_leaf^-1 r in ``s`` (overwritten on the way down)
        _leaf_apply(inv, u, k[i], q, r, s)
        if q > 0:
            p = parent[q]
            for v in range(V):
                wb[p, v] += lam * s[q, v] - r[q, v]
    for q in range(leaf_first - 1, 0, -1):
        p = parent[q]
        lam = pen[level[q]]
        for v in range(V):
            wb[p, v] += lam * wb[q, v] * inv[q, v] - r[q, v]
    _down_to(parent, level, pen, inv, wb, s, leaf_first)
    # the leaves' path sums, then (their parents' still path sums) their coefficients,
    # centred: :func:`_centre`'s numbers, the leaves in the same pass
    for i in range(n_leaf):
        q = leaf_first + i
        if q > 0:
            p = parent[q]
            lam = pen[level[q]]
            for v in range(V):
                wb[q, v] = lam * s[p, v] + r[q, v]
            _leaf_apply(inv, u, k[i], q, wb, s)
            mean = 0.0
            for v in range(V):
                s[q, v] -= s[p, v]
                mean += s[q, v]
            mean /= V
            for v in range(V):
                s[q, v] -= mean
    _centre(parent, s, leaf_first if leaf_first > 0 else 1)


@njit(cache=True)
def _centre(parent, s, stop):
    """The coefficients from the path sums ``s`` (in place) of the nodes before ``stop``
    (the later ones done already), centred at every node."""
    V = s.shape[1]
    # the coefficients from the path sums (a node's parent is still its path sum when the
    # node is done: nodes in level order, done from the last), centred at every node
    for q in range(stop - 1, -1, -1):
        p = parent[q]
        mean = 0.0
        for v in range(V):
            if q > 0:
                s[q, v] -= s[p, v]
            mean += s[q, v]
        mean /= V
        for v in range(V):
            s[q, v] -= mean


@njit(cache=True)
def _dot(x, y):
    total = 0.0
    for q in range(x.shape[0]):
        for v in range(x.shape[1]):
            total += x[q, v] * y[q, v]
    return total


@njit(cache=True)
def _newton(parent, level, leaves, pen, beta, eta, tol, max_iter, work, rows, cg_iter, state):
    """Minimise the penalised objective in ``beta`` (from its value; ``eta`` kept its path
    sums) by Newton's method: every step solves the exact Newton system by conjugate
    gradients preconditioned with :func:`_tree_solve_exact` (at most ``cg_iter`` rounds),
    then a halving line search on the objective (the loose fits' step:
    :func:`_loose_newton`).  ``state``: [the leaves' log loss at ``beta``, 1 when it, the leaves'
    distributions (``work[10]``) and ``rows`` hold for ``beta``, 2 when besides the
    leaves' rows of :func:`_curvature`'s ``a`` and ``b`` (``work[0]``, ``work[1]``) hold
    for them (after :func:`_evidence_update`, which reads them and leaves them so), else
    0]; they hold on return, so that the next call and :func:`_evidence_update` need no
    softmax of their own; ``state[2:]``: work (the leaves' Sherman-Morrison factors, one a
    leaf).  Returns the number of iterations (``max_iter`` + 1: not converged)."""
    n, V = beta.shape
    n_leaf = leaves.shape[0]
    leaf_first = n - n_leaf
    lk = state[2:]
    a, g, res, pre, d, hd, z, trial, wa, wb, prob = (
        work[0], work[1], work[2], work[3], work[4], work[5], work[6], work[7], work[8],
        work[9], work[10][:n_leaf])
    if state[1] == 0.0:  # (else ``eta`` holds the path sums of ``beta`` already)
        _path_sums(parent, beta, eta)
        state[0] = _leaf_softmax(leaf_first, leaves, eta, prob, rows)
        state[1] = 1.0
    current = _penalty_term(beta, pen, level) + state[0]
    # the Hessian is at least the penalties (the loss's is positive semi-definite): a
    # residual r of the Newton system leaves the step within |r|_2 / min(pen) of the exact
    # one, and a gradient g leaves ``beta`` within |g|_2 / min(pen) of the optimum
    floor = pen[0]
    for lev in range(1, pen.size):
        floor = min(floor, pen[lev])
    floor *= EXACT * tol
    for it in range(max_iter):
        # the gradient, and the diagonal curvature of the preconditioner, from the leaves'
        # distributions at ``beta`` (after an evidence update: its leaves' rows, the same
        # numbers, and 0 at the other nodes as :func:`_curvature` writes them)
        if state[1] == 2.0:
            for q in range(leaf_first):
                for v in range(V):
                    a[q, v] = 0.0
            state[1] = 1.0
        else:
            _curvature(leaf_first, prob, rows, leaves, a, g)
        for q in range(n - 1, 0, -1):
            p = parent[q]
            for v in range(V):
                g[p, v] += g[q, v]
        g_norm = 0.0
        g_square = 0.0
        for q in range(n):
            lam = pen[level[q]]
            for v in range(V):
                g[q, v] += lam * beta[q, v]
                res[q, v] = -g[q, v]
                z[q, v] = 0.0
                g_norm = max(g_norm, abs(g[q, v]))
                g_square += g[q, v] * g[q, v]
        if g_square <= floor * floor:  # within EXACT x tol of the optimum
            return it + 1
        # conjugate gradients on H z = -g, to a residual min(0.1, |g|) of the gradient's
        # or one that leaves the step within EXACT x tol of the exact Newton step's
        forcing = min(0.1, g_norm) * g_norm
        # (``a``, read no more this step, takes the leaves' u)
        _tree_factor_exact(parent, level, pen, prob, rows, wa, a, lk)
        _tree_solve_exact(parent, level, pen, wa, a, lk, res, wb, pre)
        for q in range(n):
            for v in range(V):
                d[q, v] = pre[q, v]
        rz = _dot(res, pre)
        for _ in range(cg_iter):
            if rz <= 0.0:
                break
            _hessian_product(parent, level, leaf_first, prob, rows, pen, d, trial, hd)
            curv = _dot(d, hd)
            if curv <= 0.0:
                break
            alpha = rz / curv
            r_norm = 0.0
            r_square = 0.0
            for q in range(n):
                for v in range(V):
                    z[q, v] += alpha * d[q, v]
                    r = res[q, v] - alpha * hd[q, v]
                    res[q, v] = r
                    r_norm = max(r_norm, abs(r))
                    r_square += r * r
            if r_norm <= forcing or r_square <= floor * floor:
                break
            _tree_solve_exact(parent, level, pen, wa, a, lk, res, wb, pre)
            rz_new = _dot(res, pre)
            ratio = rz_new / rz
            rz = rz_new
            for q in range(n):
                for v in range(V):
                    d[q, v] = pre[q, v] + ratio * d[q, v]
        step = 0.0
        for q in range(n):
            for v in range(V):
                step = max(step, abs(z[q, v]))
        # halving line search on the objective (the leaves' softmax of the accepted trial is
        # kept: the next iteration's)
        t = 1.0
        accepted = False
        value = current
        data = state[0]
        # the objective's rounding: a step of the exact Newton system whose change is below
        # it is taken (the comparison cannot tell; halving on it left the fit ~1e-8 short)
        slack = NOISE * abs(current)
        for _ in range(MAX_HALVINGS):
            penalty = _trial_pass(parent, level, pen, beta, z, t, trial, eta)
            data = _trial_softmax(leaf_first, leaves, eta, prob, rows, penalty,
                                  current + slack)
            value = penalty + data
            if value <= current + slack:
                accepted = True
                break
            t *= 0.5
        if accepted:
            for q in range(n):
                for v in range(V):
                    beta[q, v] = trial[q, v]
            current = value
            state[0] = data
        else:  # back to ``beta``: its path sums and softmax
            _path_sums(parent, beta, eta)
            state[0] = _leaf_softmax(leaf_first, leaves, eta, prob, rows)
        if not accepted or t * step <= tol:
            return it + 1
    return max_iter + 1


@njit(cache=True)
def _loose_newton(parent, level, leaves, pen, beta, eta, tol, max_iter, work, rows, state):
    """The loose fits' Newton method: :func:`_newton`'s contract (the same arguments but
    ``cg_iter``; ``state[2:]`` unused), every step the preconditioner's alone (the
    Hessian with the leaves' curvature replaced by :func:`_curvature`'s diagonal, solved
    as :func:`_tree_factor` then :func:`_tree_solve` solve it; no conjugate gradients),
    then a halving line search on the objective with no slack.

    Its passes over the nodes are fused, the same operations on the same numbers in the
    same order as in separate passes (:func:`_curvature`, the gradient summed up the tree,
    the penalty's added, the factor's and the solve's passes, the centring, the step's
    largest move, the line search's first trial, the copy of the accepted one), so the
    same results bit for bit: one pass up takes the gradient up the tree (a node's is
    complete when its children, later in level order, are done), writing the right-hand
    side -g and the leaves' curvature as the factor's start; one pass up eliminates (the
    factor and the right-hand side together); one pass down finds the step's path sums
    (``work[3]``), its coefficients from them, centred, their largest move, and the
    first trial (t = 1: its coefficients, path sums and penalty); the accepted trial
    becomes the coefficients by a swap of arrays (``beta`` written once on return)."""
    n, V = beta.shape
    n_leaf = leaves.shape[0]
    leaf_first = n - n_leaf
    a, g, res, ps, z, trial, wa, wb, prob = (
        work[0], work[1], work[2], work[3], work[6], work[7], work[8], work[9],
        work[10][:n_leaf])
    scale = V / (V - 1.0) if V > 1 else 1.0
    if state[1] == 0.0:  # (else ``eta`` holds the path sums of ``beta`` already)
        _path_sums(parent, beta, eta)
        state[0] = _leaf_softmax(leaf_first, leaves, eta, prob, rows)
        state[1] = 1.0
    current = _penalty_term(beta, pen, level) + state[0]
    cur = beta  # the coefficients: ``beta`` or, after an odd number of swaps, ``trial``
    swapped = False
    done = max_iter + 1
    for it in range(max_iter):
        # the gradient (the loss's summed up the tree, plus the penalty's), the right-hand
        # side -g (``res`` and the start of ``wb``), the diagonal curvature (the start of
        # ``wa``: the leaves', 0 above): :func:`_curvature`'s numbers, or after an evidence
        # update (state 2) its leaves' ``a`` and ``g`` as it left them
        fresh = state[1] != 2.0
        state[1] = 1.0
        for q in range(leaf_first):
            for v in range(V):
                g[q, v] = 0.0
                wa[q, v] = 0.0
        for i in range(n_leaf - 1, -1, -1):
            q = leaf_first + i
            lam = pen[level[q]]
            p = parent[q]
            for v in range(V):
                if fresh:
                    pv = prob[i, v]
                    wa[q, v] = scale * rows[i] * pv * (1.0 - pv)
                    gq = rows[i] * pv - leaves[i, v]
                else:
                    wa[q, v] = a[q, v]
                    gq = g[q, v]
                if q > 0:
                    g[p, v] += gq
                r = -(gq + lam * cur[q, v])
                res[q, v] = r
                wb[q, v] = r
        for q in range(leaf_first - 1, -1, -1):
            lam = pen[level[q]]
            p = parent[q]
            for v in range(V):
                gq = g[q, v]
                if q > 0:
                    g[p, v] += gq
                r = -(gq + lam * cur[q, v])
                res[q, v] = r
                wb[q, v] = r
        # the preconditioner eliminated up the tree with the right-hand side
        for q in range(n - 1, 0, -1):
            p = parent[q]
            lam = pen[level[q]]
            for v in range(V):
                w = 1.0 / (lam + wa[q, v])
                wa[p, v] += lam * wa[q, v] * w
                wa[q, v] = w
                wb[p, v] += lam * wb[q, v] * w - res[q, v]
        lam = pen[0]
        for v in range(V):
            wa[0, v] = 1.0 / (lam + wa[0, v])
        # down: the step's path sums ``ps``, its coefficients ``z`` (centred:
        # :func:`_tree_down`'s numbers), their largest move, and the first trial (t = 1)
        step = 0.0
        penalty = 0.0
        for q in range(n):
            lam = pen[level[q]]
            p = parent[q]
            mean = 0.0
            if q > 0:
                for v in range(V):
                    x = (lam * ps[p, v] + wb[q, v]) * wa[q, v]
                    ps[q, v] = x
                    x -= ps[p, v]
                    z[q, v] = x
                    mean += x
            else:
                for v in range(V):
                    x = wb[0, v] * wa[0, v]
                    ps[0, v] = x
                    z[0, v] = x
                    mean += x
            mean /= V
            for v in range(V):
                x = z[q, v] - mean
                z[q, v] = x
                step = max(step, abs(x))
                x = cur[q, v] + x
                trial[q, v] = x
                eta[q, v] = eta[p, v] + x if q > 0 else x
                penalty += 0.5 * lam * x * x
        # halving line search on the objective (the leaves' softmax of the accepted trial is
        # kept: the next iteration's)
        t = 1.0
        accepted = False
        value = current
        data = state[0]
        for h in range(MAX_HALVINGS):
            if h > 0:
                penalty = _trial_pass(parent, level, pen, cur, z, t, trial, eta)
            data = _trial_softmax(leaf_first, leaves, eta, prob, rows, penalty, current)
            value = penalty + data
            if value <= current:
                accepted = True
                break
            t *= 0.5
        if accepted:
            cur, trial = trial, cur
            swapped = not swapped
            current = value
            state[0] = data
        else:  # back to the coefficients: their path sums and softmax
            _path_sums(parent, cur, eta)
            state[0] = _leaf_softmax(leaf_first, leaves, eta, prob, rows)
        if not accepted or t * step <= tol:
            done = it + 1
            break
    if swapped:
        for q in range(n):
            for v in range(V):
                beta[q, v] = cur[q, v]
    return done



@njit(cache=True, inline="always")
def _trial_pass(parent, level, pen, beta, z, t, trial, eta):
    """A trial of the line search, ``beta`` + ``t`` ``z``, into ``trial``, its path sums
    into ``eta``, in one pass; returns its penalty."""
    n, V = beta.shape
    penalty = 0.0
    for q in range(n):
        lam = pen[level[q]]
        p = parent[q]
        for v in range(V):
            x = beta[q, v] + t * z[q, v]
            trial[q, v] = x
            eta[q, v] = eta[p, v] + x if q > 0 else x
            penalty += 0.5 * lam * x * x
    return penalty


@njit(cache=True)
def _full_gamma(parent, level, leaves, pen, prob, rows, gamma):
    """Every level's effective number of coefficients (``gamma``, added to) from the Laplace
    approximation with the exact softmax Hessian: the posterior covariance of every node's
    coefficients, by V x V blocks in one pass up (every subtree eliminated into a quadratic
    of its parent's path sum) and one down.  A node's shift of all its coefficients together
    has no curvature but the penalty's: it counts 0, so V - 1 remain free.  ``prob``,
    ``rows``: the leaves' distributions and rows (:func:`_leaf_softmax`)."""
    n = parent.size
    V = prob.shape[1]
    leaf_first = n - leaves.shape[0]
    acc = np.zeros((n, V, V))
    inv = np.empty((n, V, V))
    cov = np.empty((max(leaf_first, 1), V, V))
    eye = np.eye(V)
    for i in range(leaves.shape[0]):
        q = leaf_first + i
        p = prob[i]
        for v in range(V):
            for w in range(V):
                acc[q, v, w] = rows[i] * ((p[v] if v == w else 0.0) - p[v] * p[w])
    for q in range(n - 1, -1, -1):
        lam = pen[level[q]]
        inv[q] = np.linalg.inv(acc[q] + lam * eye)
        if q > 0:
            acc[parent[q]] += lam * eye - lam * lam * inv[q]
    cov[0] = inv[0]
    lam = pen[0]
    for v in range(V):
        gamma[0] += 1.0 - lam * inv[0, v, v]
    for q in range(1, n):
        p = parent[q]
        lam = pen[level[q]]
        c = lam * inv[q]
        rest = eye - c
        # the path sum's covariance (for the children) and the coefficients' (for gamma)
        if q < leaf_first:
            cov[q] = inv[q] + c @ cov[p] @ c.T
        beta_cov = rest @ cov[p] @ rest.T
        for v in range(V):
            gamma[level[q]] += 1.0 - lam * (inv[q, v, v] + beta_cov[v, v])


@njit(cache=True)
def _evidence_update(parent, level, leaves, pen, beta, eta, last, speed, work, rows, full):
    """One update of the penalties of the levels towards the maximum of the evidence (the
    fixed point of MacKay 1992): every level's penalty becomes its coefficients' effective
    number (gamma) over their sum of squares, the posterior variances from the Laplace
    approximation at ``beta`` with the Hessian of :func:`_curvature` (from the leaves'
    distributions ``work[10]`` and rows ``rows`` at ``beta``, as :func:`_newton` leaves
    them).  Updates ``pen`` in place (``last``, ``speed``: every level's last step in log and
    its acceleration, kept between updates) and returns the largest factor by which the
    plain update would have changed a level's penalty.  The leaves' rows of ``a`` and all
    of ``b`` (``work[0]``, ``work[1]``) are left as :func:`_curvature` writes them (the
    sums up the tree write only the other nodes' rows of ``a``): :func:`_newton`'s next
    step reads them instead of computing them again."""
    n, V = beta.shape
    n_levels = pen.size
    leaf_first = n - leaves.shape[0]
    a, b, var = work[0], work[1], work[2]
    prob = work[10][:leaves.shape[0]]
    _curvature(leaf_first, prob, rows, leaves, a, b)
    for q in range(n - 1, 0, -1):
        p = parent[q]
        lam = pen[level[q]]
        for v in range(V):
            a[p, v] += lam * a[q, v] / (lam + a[q, v])
    gamma = np.zeros(n_levels)
    squares = np.zeros(n_levels)
    lam = pen[0]
    for v in range(V):
        var[0, v] = 1.0 / (lam + a[0, v])
        gamma[0] += 1.0 - lam * var[0, v]
        squares[0] += beta[0, v] * beta[0, v]
    # level by level (nodes in level order), the sums in registers
    q = 1
    while q < n:
        d = level[q]
        lam = pen[d]
        g_sum, sq_sum = 0.0, 0.0
        while q < n and level[q] == d:
            p = parent[q]
            for v in range(V):
                den = lam + a[q, v]
                c = lam / den
                var[q, v] = 1.0 / den + c * c * var[p, v]
                g_sum += 1.0 - lam * (1.0 / den + (1.0 - c) * (1.0 - c) * var[p, v])
                sq_sum += beta[q, v] * beta[q, v]
            q += 1
        gamma[d] += g_sum
        squares[d] += sq_sum
    if full:
        gamma[:] = 0.0
        _full_gamma(parent, level, leaves, pen, prob, rows, gamma)
    lo, hi = PENALTY_BOUNDS
    change = 1.0
    for d in range(1, n_levels):  # the root's penalty stays (see the module docstring)
        # a node's coefficients sum to 0: V - 1 of its V are free (the exact Hessian's
        # gamma counts them so already)
        g = gamma[d] if full else gamma[d] * (V - 1) / V
        if squares[d] > 0.0 and g > 0.0:
            new = min(max(g / squares[d], lo), hi)
        else:
            new = hi
        step = math.log(new / pen[d])
        change = max(change, math.exp(abs(step)))
        # a level heading the same way as at the last update goes twice as far (up to 16x):
        # the fixed point is the same, reached in fewer updates
        if step * last[d] > 0.0:
            speed[d] = min(2.0 * speed[d], 16.0)
        else:
            speed[d] = 1.0
        last[d] = step
        pen[d] = min(max(pen[d] * math.exp(speed[d] * step), lo), hi)
        if step > 0.0 and pen[d] >= SNAP:  # its coefficients are ~0 already: to the bound
            pen[d] = hi
    return change


@njit(cache=True)
def fit_tree(parent, level_start, leaves, settings, pen, out):
    """Fit the coefficients of one tree and write every node's distribution to ``out``.

    ``parent``: (n_nodes,) int, the parent of every node (-1 for the root, node 0; nodes in
    level order); ``level_start``: the first node of every level (the last entry n_nodes);
    ``leaves``: float counts (nodes of the deepest level, V); ``settings``: a
    :class:`Settings`; ``pen``: (depth + 1,) the penalty of every level, the start when
    ``settings.choose`` (then overwritten with the chosen ones); ``out``: (n_nodes, V).
    Returns the number of Newton iterations in all (``settings.max_iter`` + 1 when the fit
    did not converge).
    """
    n, V = out.shape
    level = _node_levels(level_start)
    beta = np.zeros((n, V))
    eta = np.zeros((n, V))
    work = np.empty((WORK_ARRAYS - 2, n, V))
    rows = np.empty(n)
    # the leaves' log loss at beta, whether it and their softmax hold, then work of _newton
    state = np.zeros(2 + leaves.shape[0])
    budget = settings.max_iter
    total = 0
    converged = True
    if settings.choose:
        # fit loosely, update the penalties, refit from there: until they settle
        loose = max(settings.tol, LOOSE_TOL)
        last = np.zeros(pen.size)
        speed = np.ones(pen.size)
        for update in range(MAX_UPDATES):
            # the first fit to the loose tolerance, then a few Newton steps between updates
            steps = budget - total if update == 0 else min(UPDATE_ITER, budget - total)
            used = _loose_newton(parent, level, leaves, pen, beta, eta, loose, steps, work,
                                 rows, state)
            total += min(used, steps)
            if total >= budget:
                break
            change = _evidence_update(parent, level, leaves, pen, beta, eta, last, speed,
                                      work, rows, settings.full)
            # (its curvature's leaves' rows and gradient at ``beta``: the next step's)
            state[1] = 2.0
            if change <= PENALTY_TOL:
                break
    if total < budget:
        used = _newton(parent, level, leaves, pen, beta, eta, settings.tol, budget - total, work,
                       rows, CG_ITER, state)
        converged = used <= budget - total
        total += min(used, budget - total)
    else:
        converged = False
    # every node's softmax (one exponential per value) but the leaves', which the last
    # line search (or the start) left in ``work[10]`` for ``beta`` (``state[1]`` >= 1)
    n_leaf = leaves.shape[0]
    stop = n - n_leaf if state[1] >= 1.0 else n
    for q in range(stop):
        s = _exp_row(eta, q, out, q)[1]
        scale = 1.0 / s
        for v in range(V):
            out[q, v] *= scale
    for q in range(stop, n):
        for v in range(V):
            out[q, v] = work[10][q - stop, v]
    return total if converged else settings.max_iter + 1


@njit(cache=True, nogil=True)
def fit_trees(forest, settings, order, first, last, out, iterations, penalties):
    """:func:`fit_tree` for the trees ``order[first:last]`` of a :class:`.hdp.ForestLayout`,
    in turn.  Written: ``out`` (the estimates, flat at ``forest.out_offsets``),
    ``iterations[j]`` (tree j's Newton iterations) and ``penalties[j, :depth + 1]`` (tree
    j's penalty of every level)."""
    for i in range(first, last):
        j = order[i]
        depth = forest.depths[j]
        V = forest.n_values[j]
        parent = forest.parents[forest.node_offsets[j]:forest.node_offsets[j + 1]]
        ls = forest.level_starts[j, :depth + 2].copy()
        nn = ls[depth + 1]
        n_leaf = nn - ls[depth]
        lo = forest.leaf_offsets[j]
        leaf = forest.leaves[lo:lo + n_leaf * V].reshape(n_leaf, V)
        est = np.empty((nn, V))
        pen = np.full(depth + 1, settings.penalty)
        iterations[j] = fit_tree(parent, ls, leaf, settings, pen, est)
        for d in range(depth + 1):
            penalties[j, d] = pen[d]
        o = forest.out_offsets[j]
        for q in range(nn):
            for v in range(V):
                out[o + q * V + v] = est[q, v]


def fit_forest(forest, settings, order, share_start, out, iterations, penalties):
    """:func:`fit_trees` for every tree of ``order``: one share (``share_start``, from
    :func:`.hdp.thread_shares`) in this thread, no thread started; several on as many
    threads (:func:`~seminaive.kernels._threads.parallel_calls`), each taking the next tree,
    largest first, when it finishes one: a tree's time follows its Newton iterations and
    the evidence's updates more than its cells, so that fixed shares of cells left one
    thread waiting for the other (segment's KDB(k=3) trees: 10.2 and 8.6 ms of CPU).  A
    thread takes about 1 / (2 x threads) of the cells left at a time (at least one tree:
    guided scheduling), so that a forest of many small trees costs a few dozen calls (one
    per tree cost 5 microseconds each, a third of kr-vs-kp AnDE(n=1)'s 1,296 tiny trees'
    fit).  Every tree is fitted alone: the same numbers either way."""
    n_shares = share_start.size - 1
    if n_shares <= 1 or order.size <= 1:
        parallel_calls(fit_trees, [(forest, settings, order, 0, int(order.size), out,
                                    iterations, penalties)])
        return
    cells = np.diff(forest.node_offsets) * np.maximum(forest.n_values, 1)
    queue = np.argsort(-cells, kind="stable").astype(np.int64)
    before = np.concatenate([[0], np.cumsum(cells[queue])])  # cells before each in the queue
    if not getattr(fit_trees, "signatures", True):  # compiled (or loaded) here: fits nothing
        fit_trees(forest, settings, queue, 0, 0, out, iterations, penalties)
    lock = threading.Lock()
    taken = [0]

    def take_trees():
        while True:
            with lock:  # the next trees: about 1 / (2 x threads) of the cells left, >= 1 tree
                i = taken[0]
                if i >= queue.size:
                    return
                goal = before[i] + (before[-1] - before[i]) / (2 * n_shares)
                j = min(max(i + 1, int(np.searchsorted(before, goal))), queue.size)
                taken[0] = j
            fit_trees(forest, settings, queue, i, j, out, iterations, penalties)

    parallel_calls(take_trees, [()] * n_shares)


def _fit_layout(forest, order, share_start, settings):
    """Fit every tree of a :class:`.hdp.ForestLayout` (:func:`fit_forest`): the flat
    estimates, every tree's iterations and its penalties (NaN past its depth)."""
    n_trees = forest.depths.size
    out = np.empty(int(forest.out_offsets[-1]))
    iterations = np.zeros(n_trees, dtype=np.int64)
    penalties = np.full((n_trees, int(forest.depths.max()) + 1), np.nan)
    fit_forest(forest, settings, order, share_start, out, iterations, penalties)
    return out, iterations, penalties


@njit(cache=True)
def _dense_forest(counts, count_offsets, dims, depths, n_values):
    """The occurring nodes of every tree of a forest given densely, in one pass (the trees
    :func:`.hdp.sparse_from_dense` makes of each, its leaf counts taken as they are):
    ``counts`` the trees' dense leaf counts, flat (tree ``j``'s (prod dims, V) at
    ``count_offsets[j]``), ``dims`` (n_trees, largest depth) their conditioning sizes.
    Returns a :class:`.hdp.ForestLayout`'s arrays, in its order, then every dense node's
    sparse node (-1: no rows below it) flat and the trees' offsets in it."""
    n_trees = depths.size
    width = dims.shape[1] + 2
    dense_offsets = np.zeros(n_trees + 1, dtype=np.int64)
    leaf_rows = np.empty(n_trees, dtype=np.int64)
    for j in range(n_trees):
        rows, total = 1, 1
        for lev in range(depths[j]):
            rows *= dims[j, lev]
            total += rows
        dense_offsets[j + 1] = dense_offsets[j] + total
        leaf_rows[j] = rows
    index = np.full(dense_offsets[n_trees], -1, dtype=np.int64)
    level_starts = np.zeros((n_trees, width), dtype=np.int64)
    node_offsets = np.zeros(n_trees + 1, dtype=np.int64)
    leaf_offsets = np.zeros(n_trees + 1, dtype=np.int64)
    out_offsets = np.zeros(n_trees + 1, dtype=np.int64)
    # which dense nodes have rows below them, and their sparse numbers
    for j in range(n_trees):
        depth, V = depths[j], n_values[j]
        idx = index[dense_offsets[j]:dense_offsets[j + 1]]
        leaf_start = idx.size - leaf_rows[j]
        c = counts[count_offsets[j]:count_offsets[j + 1]]
        for r in range(leaf_rows[j]):
            for v in range(V):
                if c[r * V + v] > 0:
                    idx[leaf_start + r] = 0
                    break
        # up the levels: a node has rows when a child has (idx 0 marks them for now)
        stop = leaf_start
        rows = leaf_rows[j]
        for lev in range(depth, 0, -1):
            size = dims[j, lev - 1]
            start = stop - rows // size
            for r in range(rows):
                if idx[stop + r] == 0:
                    idx[start + r // size] = 0
            stop, rows = start, rows // size
        idx[0] = 0
        n = 0
        rows, stop = 1, 0
        for lev in range(depth + 1):
            level_starts[j, lev] = n
            for r in range(rows):
                if idx[stop + r] == 0:
                    idx[stop + r] = n
                    n += 1
                else:
                    idx[stop + r] = -1
            stop += rows
            if lev < depth:
                rows *= dims[j, lev]
        level_starts[j, depth + 1] = n
        node_offsets[j + 1] = node_offsets[j] + n
        leaf_offsets[j + 1] = leaf_offsets[j] + (n - level_starts[j, depth]) * V
        out_offsets[j + 1] = out_offsets[j] + n * V
    parents = np.full(node_offsets[n_trees], -1, dtype=np.int64)
    leaves = np.empty(leaf_offsets[n_trees])
    for j in range(n_trees):
        depth, V = depths[j], n_values[j]
        idx = index[dense_offsets[j]:dense_offsets[j + 1]]
        par = parents[node_offsets[j]:node_offsets[j + 1]]
        rows, stop = 1, 0  # the level above's rows and start
        for lev in range(1, depth + 1):
            size = dims[j, lev - 1]
            for r in range(rows * size):
                q = idx[stop + rows + r]
                if q >= 0:
                    par[q] = idx[stop + r // size]
            stop += rows
            rows *= size
        c = counts[count_offsets[j]:count_offsets[j + 1]]
        first = level_starts[j, depth]
        o = leaf_offsets[j]
        for r in range(rows):
            q = idx[stop + r]
            if q >= 0:
                for v in range(V):
                    leaves[o + (q - first) * V + v] = c[r * V + v]
    return (parents, node_offsets, level_starts, depths, leaves, leaf_offsets, n_values,
            out_offsets, index, dense_offsets)


@njit(cache=True)
def _fill_forest(index, dense_offsets, dims, depths, n_values, out, out_offsets, dense):
    """Every tree's dense estimates (flat, tree ``j``'s at ``n_values[j]`` x
    ``dense_offsets[j]``) from its occurring nodes' (``out``): a node without rows takes
    its parent's (:func:`.hdp._fill_dense` for the whole forest)."""
    at = 0
    for j in range(depths.size):
        V = n_values[j]
        idx = index[dense_offsets[j]:dense_offsets[j + 1]]
        o = out_offsets[j]
        rows, stop, above = 1, 0, 0
        for lev in range(depths[j] + 1):
            size = dims[j, lev - 1] if lev > 0 else 1
            for r in range(rows):
                q = stop + r
                s = idx[q]
                for v in range(V):
                    if s >= 0:
                        dense[at + q * V + v] = out[o + s * V + v]
                    else:
                        dense[at + q * V + v] = dense[at + (above + r // size) * V + v]
            above = stop
            stop += rows
            if lev < depths[j]:
                rows *= dims[j, lev]
        at += idx.size * V


def sparse_hls_bytes(trees, n_threads=None, evidence=None):
    """Bytes :func:`sparse_hls_forest` and the learner that keeps its estimates need for
    ``trees`` (list of (parent, level_start, leaf_counts)), without allocating: the
    estimates of every node (kept three times: the fit's output, the learner's copy and its
    logarithm, as :func:`.hdp.sparse_hdp_bytes` counts them) and the working arrays of the
    largest trees fitted at the same time (``WORK_ARRAYS`` of a tree's size each, and three
    times V of them for ``evidence="full"``'s V x V blocks)."""
    threads = numba.get_num_threads() if n_threads is None else n_threads
    full = _check_evidence(EVIDENCE if evidence is None else evidence)
    cells = [int(np.size(p)) * int(np.shape(c)[1]) for p, _, c in trees]
    work = sorted(k * (WORK_ARRAYS + 3 * int(np.shape(c)[1]) * full)
                  for k, (_, _, c) in zip(cells, trees, strict=True))
    threads = max(1, min(threads, len(cells)))
    return 24 * sum(cells) + 8 * sum(work[-threads:]) if cells else 0


def hls_bytes(trees, n_threads=None):
    """Bytes :func:`hls_forest` and the table that keeps its estimates need for ``trees``
    (list of (counts, dims)) when every node of every tree exists (the fit works on the
    occurring nodes, which need less; see :func:`sparse_hls_bytes`), counted as
    :func:`.hdp.hdp_bytes` counts the HDP's."""
    if not trees:
        return 0
    dims, depths = _dims_matrix([d for _, d in trees])
    n_values = np.array([np.shape(c)[1] for c, _ in trees], dtype=np.int64)
    return _dense_bytes(_dense_nodes(dims, depths) * n_values, n_threads)


def _dims_matrix(dim_list):
    """The conditioning sizes of every tree, (n_trees, largest depth) padded with 1, and
    the trees' depths."""
    dim_list = [np.asarray(d, dtype=np.int64).reshape(-1) for d in dim_list]
    depths = np.array([d.size for d in dim_list], dtype=np.int64)
    dims = np.ones((len(dim_list), max(int(depths.max(initial=0)), 1)), dtype=np.int64)
    for j, d in enumerate(dim_list):
        dims[j, :d.size] = d
    return dims, depths


def _dense_nodes(dims, depths):
    """Every dense tree's nodes (the sum of :func:`.hdp.tree_levels`): the root and the rows
    of each of its levels."""
    rows = np.cumprod(dims, axis=1)
    rows[np.arange(dims.shape[1])[None, :] >= depths[:, None]] = 0
    return 1 + rows.sum(axis=1)


def _dense_bytes(cells, n_threads=None):
    """:func:`hls_bytes` from every tree's cells (dense nodes x values)."""
    threads = numba.get_num_threads() if n_threads is None else n_threads
    cells = np.sort(np.asarray(cells, dtype=np.int64))
    threads = max(1, min(threads, cells.size))
    return int(24 * cells.sum() + 8 * WORK_ARRAYS * cells[-threads:].sum()) if cells.size else 0


def _fit_cost(n_nodes, leaf_counts):
    """Relative time of :func:`fit_tree` on a tree (for the threads' shares): its cells."""
    return float(n_nodes * max(np.shape(leaf_counts)[1], 1))


def _check_evidence(evidence):
    if evidence not in ("diagonal", "full"):
        raise ValueError(f"evidence must be 'diagonal' or 'full', got {evidence!r}")
    return evidence == "full"


def _check_penalty(penalty):
    if penalty is None:
        return PENALTY_START, True
    if not (isinstance(penalty, (int, float, np.integer, np.floating))
            and math.isfinite(penalty) and penalty > 0):
        raise ValueError(f"penalty must be None (chosen per level) or a finite number > 0, "
                         f"got {penalty!r}")
    return float(penalty), False


def sparse_hls_forest(trees, *, penalty=PENALTY, tol=TOL, max_iter=MAX_ITER, max_bytes=None,
                      return_iterations=False, return_penalties=False, evidence=None):
    """Hierarchical linear smoothing estimates of a list of trees holding only their
    occurring nodes (the input and output of :func:`.hdp.sparse_hdp_forest`).

    Parameters
    ----------
    trees : list of (parent, level_start, leaf_counts)
        ``parent``: (n_nodes,) int, the parent of every node (-1 for the root, node 0;
        nodes in level order); ``level_start``: (depth + 2,) int, the first node of every
        level; ``leaf_counts``: non-negative counts (weights need not be whole) of shape
        (nodes of the deepest level, n_values).
    penalty : float or None, default=None
        The ridge penalty lambda of every coefficient; None chooses one per level of every
        tree by maximising the evidence (see the module docstring).
    tol : float, default=1e-9
        The fit of a tree stops when no coefficient moves by more than this.
    max_iter : int, default=500
        Newton iterations at most per tree (in all, when the penalties are chosen).
    max_bytes : int, optional
        Refuse (:class:`~seminaive.exceptions.TableTooLargeError`, before allocating) when
        :func:`sparse_hls_bytes` exceeds it.
    return_iterations : bool, default=False
        Also return every tree's number of Newton iterations (``max_iter`` + 1: not
        converged).
    return_penalties : bool, default=False
        Also return every tree's penalty of every level: (n_trees, largest depth + 1),
        a level a tree does not have NaN.
    evidence : {"diagonal", "full"}, optional
        The Hessian of the Laplace approximation of the evidence when the penalties are
        chosen: the diagonal one (fast) or the exact softmax one (V x V blocks per node);
        None: ``EVIDENCE``.

    Returns
    -------
    list of ndarray
        For every tree, the distributions of its nodes, shape (n_nodes, n_values); then the
        iterations and the penalties when asked for.

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
    start, choose = _check_penalty(penalty)
    extra = ([np.zeros(0, dtype=np.int64)] if return_iterations else []) + (
        [np.zeros((0, 1))] if return_penalties else [])
    if not trees:
        return ([], *extra) if extra else []
    forest, order, share_start = forest_layout(
        trees, what="hierarchical linear smoothing",
        need=sparse_hls_bytes(trees, evidence=evidence), max_bytes=max_bytes, whole=False,
        cost=_fit_cost, serial=SERIAL_CELLS)
    full = _check_evidence(EVIDENCE if evidence is None else evidence)
    settings = Settings(start, choose, float(tol), int(max_iter), full)
    out, iterations, penalties = _fit_layout(forest, order, share_start, settings)
    out_offsets, n_values = forest.out_offsets, forest.n_values
    estimates = [out[out_offsets[j]:out_offsets[j + 1]].reshape(-1, n_values[j])
                 for j in range(len(trees))]
    extra = ([iterations] if return_iterations else []) + (
        [penalties] if return_penalties else [])
    return (estimates, *extra) if extra else estimates


def hls_forest(trees, *, penalty=PENALTY, tol=TOL, max_iter=MAX_ITER, max_bytes=None,
               evidence=None):
    """Hierarchical linear smoothing estimates of a list of trees given densely (the input
    and output of :func:`.hdp.hdp_forest`; the fit works on the occurring nodes only,
    :func:`sparse_hls_forest`).

    Parameters
    ----------
    trees : list of (counts, dims)
        ``counts``: non-negative counts of shape (prod dims, n_values): the rows of the
        data at every combination of the conditioning variables (C order, sizes ``dims``,
        the first conditioning variable slowest).
    penalty, tol, max_iter, evidence
        As in :func:`sparse_hls_forest`.
    max_bytes : int, optional
        Refuse (:class:`~seminaive.exceptions.TableTooLargeError`, before allocating) when
        :func:`hls_bytes` exceeds it.

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
    start, choose = _check_penalty(penalty)
    full = _check_evidence(EVIDENCE if evidence is None else evidence)
    if not trees:
        return []
    dims, depths = _dims_matrix([d for _, d in trees])
    n_values = np.array([np.shape(c)[1] for c, _ in trees], dtype=np.int64)
    need = _dense_bytes(_dense_nodes(dims, depths) * n_values)  # :func:`hls_bytes`
    if max_bytes is not None and need > max_bytes:
        raise TableTooLargeError(
            f"the hierarchical linear smoothing estimates of {len(trees)} tables would need "
            f"{need:,} bytes ({need / 2**30:.2f} GiB; every node of every tree, dense), more "
            f"than the {max(max_bytes, 0):,} bytes ({max(max_bytes, 0) / 2**30:.2f} GiB) left "
            "of max_table_bytes: use fewer parents "
            "(a smaller n), smoothing='m_estimate', or raise max_table_bytes if the machine "
            "has the memory")
    # the whole forest in one kernel: its occurring nodes (as :func:`.hdp.sparse_from_dense`
    # makes them for each tree), fitted, then every node dense
    counts = [np.asarray(c, dtype=np.float64) for c, _ in trees]
    leaf_rows = np.prod(dims, axis=1)
    for j, c in enumerate(counts):
        if c.ndim != 2 or c.shape[0] != leaf_rows[j]:
            raise ValueError(f"tree {j}: {c.shape[0] if c.ndim else 0} rows, expected "
                             f"{leaf_rows[j]}")
    flat = np.concatenate([c.ravel() for c in counts])
    if flat.size and not (np.all(np.isfinite(flat)) and flat.min() >= 0):
        raise ValueError("hierarchical estimates need finite, non-negative counts")
    count_offsets = np.concatenate([[0], np.cumsum(leaf_rows * n_values)]).astype(np.int64)
    *arrays, index, dense_offsets = _dense_forest(flat, count_offsets, dims, depths, n_values)
    forest = ForestLayout(*arrays)
    cells = np.diff(forest.node_offsets) * np.maximum(n_values, 1)  # as :func:`_fit_cost`
    order, share_start = thread_shares(cells.astype(np.float64), serial=SERIAL_CELLS)
    out, _, _ = _fit_layout(forest, order, share_start,
                            Settings(start, choose, float(tol), int(max_iter), full))
    dense_cells = np.diff(dense_offsets) * n_values
    dense_at = np.concatenate([[0], np.cumsum(dense_cells)]).astype(np.int64)
    dense = np.empty(int(dense_at[-1]))
    _fill_forest(index, dense_offsets, dims, depths, n_values, out, forest.out_offsets, dense)
    return [dense[dense_at[j]:dense_at[j + 1]].reshape(-1, int(n_values[j]))
            for j in range(len(trees))]
