"""Hierarchical Dirichlet process estimates of conditional probability tables (Petitjean,
Buntine, Webb & Zaidi 2018), by collapsed Gibbs sampling of the table counts.

A conditional table P(x | z_1, ..., z_d) is a tree: the root is P(x), the nodes of level l
are the distributions P(x | z_1 .. z_l) for every value of the first l conditioning
variables, and each node's distribution is drawn from a Dirichlet process centred on its
parent node's, with a concentration c:

    theta_node ~ DP(c_node, theta_parent),    theta_root ~ DP(c_root, uniform).

The rows are the customers of the leaves.  After integrating out every theta (the Chinese
restaurant franchise), the state is the number of "tables" t_jk <= n_jk of every node j and
value k, where n_jk is the number of rows (leaves) or the sum of the children's tables
(inner nodes), and the joint probability is

    prod_j  c_j^{T_j} Gamma(c_j) / Gamma(c_j + N_j)  prod_k S(n_jk, t_jk)

with S the unsigned Stirling numbers of the first kind, N_j = sum_k n_jk, T_j = sum_k t_jk
(Teh, Jordan, Beal & Blei 2006; Buntine & Hutter 2012; Petitjean et al. 2018, §3).  The
sampler draws every t_jk from its conditional within a window of +-10 around its current
value (deepest nodes first); every ``CONCENTRATION_EVERY`` iterations it draws the
concentrations from their posterior under a Gamma(2, 1) prior with the auxiliary-variable
scheme of Escobar & West (1995) (q_j ~ Beta(c, N_j); c ~ Gamma(2 + sum T_j, 1 - sum log q_j)),
one concentration per group of tied nodes.  The estimate of a node after each iteration
past the burn-in is the posterior mean given the state,

    p_jk = (n_jk + c_j p_parent(j),k) / (N_j + c_j),

and the returned estimates are their average over the kept iterations.  With a tolerance
(``tol`` > 0, not the reference's fixed count) a tree stops once that average moves by less
than ``tol`` between two checks ``CHECK_EVERY`` kept iterations apart: its estimates are
then exactly those of the fixed-count run of as many iterations.  The root keeps the
fixed concentration 2 towards the uniform distribution; its table counts are 1 for every
value it has seen.  The cost depends on the number of nodes, not on the number of rows.

A node with no rows does not exist: the sampler works on the nodes the data reach
(:func:`sparse_hdp_forest`, as Petitjean et al. 2018 build their trees), and a query for an
absent node reads its nearest existing ancestor (:func:`hdp_forest`'s dense tables are
filled so).

Log Stirling numbers: exact (recurrence in float64) for n <= ``STIRLING_EXACT``; beyond, exact
closed forms for t in {1, n-3 .. n}, Newton's identities over the generalised harmonic numbers
for t <= ``NEWTON_MAX_T`` (well conditioned there since H_{n-1} > 8), and elsewhere the saddle
point of the coefficient integral of Gamma(x + n) / Gamma(x + 1) with its first correction
term, whose absolute error in log S is below 3e-4 (at most at t = n - 4; below 4e-5 once
n - t > 12), measured against the recurrence up to n = 5000 (``tests/kernels/test_hdp.py`` checks
it).  The reference implementation's single-precision cache errs by more for n > 2000.

Speed, with the same draws and the same floating-point operations per value (bit-identical
to the plain loops, ``tests/kernels/test_hdp.py`` and
``tests/structure/test_sparse_families.py`` compare with stored outputs): a leaf value with
0 or 1 row never changes its table count, so only the leaves' values with 2 or more rows are
visited; inside the exact table its entries are read without bounds checks; the log Stirling
numbers beyond it, and lgamma and log of the window's cp + N_par + t, are remembered
(direct-mapped memos keyed by their exact arguments); exp(0) and exp(-inf) are not computed;
log c is taken once per concentration draw; and the trees go to the threads largest first
(Graham 1969) by a fitted cost (:func:`thread_shares`, :func:`sampler_cost`), a forest of
little work (``SERIAL_WORK``) to the calling thread alone.  The threads are Python threads
over one GIL-free kernel per share (:func:`sample_trees`, which holds the whole sampler), not
a numba ``prange`` loop: the sampler compiles in about two thirds of the CPU seconds, with the
same estimates (``benchmarks/bench_hdp.py``).  The log Stirling numbers beyond the exact table
are a separate compiled function the sampler calls by address (:func:`beyond_function`),
compiled only in a process whose forest needs one: a forest whose counts fit the table (and
most do: a value's tables, not its rows, make an inner node's count) never compiles the far
path; a tree that turns out to need it is sampled again from its start with it, with the
same draws.  The sampler's small helpers (digamma, the beta and normal variates, the far
window's memo) are inlined into it rather than compiled apart, and a fit without a
tolerance passes None for the convergence checks and the table counts, which the sampler
then compiles without. """

import heapq
import math
import threading
from typing import NamedTuple

import numpy as np
from scipy.special import zeta

from ..exceptions import TableTooLargeError
from . import _jit as numba
from ._jit import njit
from ._threads import parallel_calls

_BEYOND_LOCK = threading.Lock()

#: exact log Stirling numbers up to this n (a triangular float64 table, about 17 MB)
STIRLING_EXACT = 2048
#: beyond STIRLING_EXACT, Newton's identities up to this t
NEWTON_MAX_T = 12
#: the sampler's window around the current table count
WINDOW = 10
#: largest table count the sampler proposes
MAX_T = 10000
#: concentrations are resampled every this many iterations
CONCENTRATION_EVERY = 5
#: initial concentration, the Gamma prior's shape and the root's fixed concentration
CONCENTRATION_START = 2.0
#: concentrations are capped here
CONCENTRATION_MAX = 4000.0
#: with a tolerance, the averaged estimates are compared every this many kept iterations
CHECK_EVERY = 50
#: slots of the sampler's memo of log Stirling numbers beyond the exact table (a power of 2)
FAR_MEMO = 4096
#: :func:`sample_trees`' iterations of a tree that needed the far path without it
NEEDS_FAR = -(2 ** 62)
#: slots of the sampler's memos of lgamma and log in the window (a power of 2)
GAMMA_MEMO = 16384
#: a forest whose work (:func:`sampler_cost` of its trees x iterations) is at most this is
#: sampled in the calling thread: handing it to the threads would cost more than they save
#: (measured on a loaded 2-core machine, same run: one thread 1.3x faster at 1.7e5, the
#: threads 1.75x faster at 5.7e5)
SERIAL_WORK = 262144

TYING = ("none", "parent", "level", "single")

#: zeta(j) for j = 0 .. NEWTON_MAX_T (entries 0 and 1 unused)
class SamplerSettings(NamedTuple):
    """How the Gibbs sampler runs (the same for every tree of a forest)."""

    n_iter: int  # iterations
    burn_in: int  # first iterations not averaged
    tying: int  # index in TYING
    sample_conc: bool  # False keeps every concentration at conc_start
    conc_start: float  # starting concentration (the root's, always)
    tol: float = 0.0  # > 0: stop once the averaged estimates move less (every CHECK_EVERY)


class StirlingCache(NamedTuple):
    """Log Stirling numbers: the exact table (:func:`stirling_table`) up to ``n_exact`` and
    the zeta values of the approximations beyond it (``_ZETA``)."""

    table: np.ndarray
    n_exact: int
    zeta: np.ndarray


class SparseTree(NamedTuple):
    """One tree of occurring nodes, as :func:`sample_sparse_tree` reads it."""

    parent: np.ndarray  # (n_nodes,) parent of every node (-1 for the root, node 0)
    level_start: np.ndarray  # (depth + 2,) first node of every level
    depth: int  # conditioning variables
    leaf_counts: np.ndarray  # integer counts (nodes of level depth, n_values)
    n_values: int


class FarMemo(NamedTuple):
    """Log Stirling numbers beyond the exact table, remembered by (n, t)
    (:func:`_log_stirling_memo`; direct-mapped, ``FAR_MEMO`` slots)."""

    n: np.ndarray
    t: np.ndarray
    value: np.ndarray


class ForestLayout(NamedTuple):
    """The trees of :func:`sample_forest`, concatenated: tree ``j`` has nodes
    ``node_offsets[j]`` .. ``node_offsets[j + 1]`` of ``parents`` (local indices), level
    starts ``level_starts[j, :depths[j] + 2]``, leaf counts at ``leaves[leaf_offsets[j]:]``
    (``n_values[j]`` per leaf) and its estimates at ``out[out_offsets[j]:]`` (``n_values[j]``
    per node)."""

    parents: np.ndarray
    node_offsets: np.ndarray
    level_starts: np.ndarray
    depths: np.ndarray
    leaves: np.ndarray
    leaf_offsets: np.ndarray
    n_values: np.ndarray
    out_offsets: np.ndarray


_ZETA = np.concatenate([[0.0, 0.0], zeta(np.arange(2, NEWTON_MAX_T + 1, dtype=np.float64))])


# --------------------------------------------------------------------------------------------
# Special functions
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def _polygamma(order, x):
    """psi^(order)(x) for order 0..3 and x > 0 (recurrence up to x >= 10, then the
    asymptotic series).

    The kernels pass ``order`` as ``np.int64(k)``, not a literal ``k``: numba would compile
    one specialisation per literal order."""
    acc = 0.0
    while x < 10.0:
        if order == 0:
            acc -= 1.0 / x
        elif order == 1:
            acc += 1.0 / (x * x)
        elif order == 2:
            acc -= 2.0 / (x * x * x)
        else:
            acc += 6.0 / (x * x * x * x)
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    if order == 0:
        return acc + math.log(x) - 0.5 * inv - inv2 * (
            1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240
                                                                     - inv2 / 132))))
    if order == 1:
        return acc + inv + 0.5 * inv2 + inv * inv2 * (
            1.0 / 6 - inv2 * (1.0 / 30 - inv2 * (1.0 / 42 - inv2 * (1.0 / 30 - inv2 * 5.0 / 66))))
    if order == 2:
        return acc - inv2 - inv * inv2 - inv2 * inv2 * (
            0.5 - inv2 * (1.0 / 6 - inv2 * (1.0 / 6 - inv2 * (3.0 / 10 - inv2 * 5.0 / 6))))
    return acc + 2.0 * inv * inv2 + 3.0 * inv2 * inv2 + inv * inv2 * inv2 * (
        2.0 - inv2 * (1.0 - inv2 * (4.0 / 3 - inv2 * (3.0 - inv2 * 10.0))))


@njit(cache=True, inline="always")
def digamma(x):
    """psi(x) for x > 0: :func:`_polygamma` of order 0, its operations in the same order
    (the same values), written apart so that the sampler, which inlines it, does not
    compile :func:`_polygamma`."""
    acc = 0.0
    while x < 10.0:
        acc -= 1.0 / x
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    return acc + math.log(x) - 0.5 * inv - inv2 * (
        1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 / 132))))


@njit(cache=True)
def stirling_table(n_max):
    """log S(n, t) for 0 <= t <= n <= n_max, flat triangular: entry n (n + 1) / 2 + t."""
    out = np.full((n_max + 1) * (n_max + 2) // 2, -np.inf)
    out[0] = 0.0
    for n in range(1, n_max + 1):
        prev = (n - 1) * n // 2
        cur = n * (n + 1) // 2
        log_m = math.log(n - 1) if n > 1 else -np.inf
        for t in range(1, n + 1):
            a = out[prev + t] + log_m if t <= n - 1 else -np.inf
            b = out[prev + t - 1]
            hi = max(a, b)
            if hi == -np.inf:
                out[cur + t] = -np.inf
            else:
                out[cur + t] = hi + math.log(math.exp(a - hi) + math.exp(b - hi))
    return out


@njit(cache=True)
def _hurwitz_tail(j, n):
    """zeta(j, n) = sum_{i >= n} i^-j for j >= 2 and n >= 1000 (Euler-Maclaurin)."""
    x = float(n)
    return (x ** (1 - j) / (j - 1) + 0.5 * x ** (-j) + j * x ** (-j - 1) / 12.0
            - j * (j + 1) * (j + 2) * x ** (-j - 3) / 720.0)


@njit(cache=True)
def _log_stirling_newton(n, t, zeta):
    """log S(n, t) = log (n-1)! + log e_{t-1}(1, 1/2, .., 1/(n-1)) by Newton's identities."""
    r = t - 1
    p = np.empty(r + 1)
    p[1] = digamma(float(n)) + 0.5772156649015329
    for j in range(2, r + 1):
        p[j] = zeta[j] - _hurwitz_tail(j, n)
    e = np.empty(r + 1)
    e[0] = 1.0
    for q in range(1, r + 1):
        acc = 0.0
        sign = 1.0
        for j in range(1, q + 1):
            acc += sign * e[q - j] * p[j]
            sign = -sign
        e[q] = acc / q
    return math.lgamma(n) + math.log(e[r])


@njit(cache=True)
def _log_stirling_saddle(n, t):
    """log S(n, t) by the saddle point of [x^(t-1)] Gamma(x + n) / Gamma(x + 1) with its
    first correction term (2 <= t <= n - 4)."""
    r = float(t - 1)
    lo = -40.0
    hi = math.log(10.0 * n * n)
    u = math.log(r) - math.log(max(math.log(n) - r / n, 1e-3))
    u = min(max(u, lo), hi)
    for _ in range(200):
        x = math.exp(u)
        d1 = _polygamma(np.int64(0), x + n) - _polygamma(np.int64(0), x + 1.0)
        g = x * d1 - r
        if g > 0.0:
            hi = u
        else:
            lo = u
        d2 = _polygamma(np.int64(1), x + n) - _polygamma(np.int64(1), x + 1.0)
        h2 = x * d1 + x * x * d2
        step = g / h2 if h2 > 0.0 else 0.0
        nxt = u - step
        if not (lo < nxt < hi):
            nxt = 0.5 * (lo + hi)
        if abs(nxt - u) < 1e-13:
            u = nxt
            break
        u = nxt
    x = math.exp(u)
    d1 = _polygamma(np.int64(0), x + n) - _polygamma(np.int64(0), x + 1.0)
    d2 = _polygamma(np.int64(1), x + n) - _polygamma(np.int64(1), x + 1.0)
    d3 = _polygamma(np.int64(2), x + n) - _polygamma(np.int64(2), x + 1.0)
    d4 = _polygamma(np.int64(3), x + n) - _polygamma(np.int64(3), x + 1.0)
    h2 = x * d1 + x * x * d2
    h3 = x * d1 + 3.0 * x * x * d2 + x ** 3 * d3
    h4 = x * d1 + 7.0 * x * x * d2 + 6.0 * x ** 3 * d3 + x ** 4 * d4
    f = math.lgamma(x + n) - math.lgamma(x + 1.0) - r * u
    return (f - 0.5 * math.log(2.0 * math.pi * h2)
            + math.log1p(h4 / (8.0 * h2 * h2) - 5.0 * h3 * h3 / (24.0 * h2 ** 3)))


@njit(cache=True, inline="always")
def log_stirling(n, t, table, n_exact, zeta):
    """log S(n, t), unsigned Stirling number of the first kind (-inf where it is 0)."""
    if n <= n_exact and 0 <= t <= n:
        return table[n * (n + 1) // 2 + t]  # 0 <= t <= n: the table holds -inf for S = 0
    return _log_stirling_far(n, t, table, n_exact, zeta)


@njit(cache=True)
def _log_stirling_far(n, t, table, n_exact, zeta):
    """:func:`log_stirling` outside the exact table."""
    if t > n or t < 0 or (t == 0 and n > 0):
        return -np.inf
    if n <= n_exact:
        return table[n * (n + 1) // 2 + t]
    if t == n:
        return 0.0
    if t == 1:
        return math.lgamma(n)
    if t == n - 1:
        return math.log(n * (n - 1.0) / 2.0)
    if t == n - 2:  # C(n, 3) (3n - 1) / 4
        return (math.log(n * (n - 1.0) * (n - 2.0) / 6.0) + math.log(3.0 * n - 1.0)
                - math.log(4.0))
    if t == n - 3:  # C(n, 2) C(n, 4)
        return (math.log(n * (n - 1.0) / 2.0)
                + math.log(n * (n - 1.0) * (n - 2.0) * (n - 3.0) / 24.0))
    if t <= NEWTON_MAX_T:
        return _log_stirling_newton(n, t, zeta)
    return _log_stirling_saddle(n, t)


# --------------------------------------------------------------------------------------------
# Random numbers (one stream per tree, so the result does not depend on the threads)
# --------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _next(state):
    """splitmix64 step: new state and a uniform in (0, 1)."""
    state = (state + np.uint64(0x9E3779B97F4A7C15))
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    u = (float(z >> np.uint64(11)) + 0.5) * (1.0 / 9007199254740992.0)
    return state, u


@njit(cache=True, inline="always")
def _normal(state):
    state, u1 = _next(state)
    state, u2 = _next(state)
    return state, math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


@njit(cache=True)
def _log_gamma_variate(state, shape):
    """log of a Gamma(shape, 1) draw (Marsaglia & Tsang 2000; shape < 1 boosted)."""
    boost = 0.0
    if shape < 1.0:
        state, u = _next(state)
        boost = math.log(u) / shape
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        state, z = _normal(state)
        v = 1.0 + c * z
        if v <= 0.0:
            continue
        v = v * v * v
        state, u = _next(state)
        if math.log(u) < 0.5 * z * z + d - d * v + d * math.log(v):
            return state, math.log(d * v) + boost


@njit(cache=True, inline="always")
def _log_beta_variate(state, a, b):
    """log of a Beta(a, b) draw."""
    state, lx = _log_gamma_variate(state, a)
    state, ly = _log_gamma_variate(state, b)
    hi = max(lx, ly)
    return state, lx - (hi + math.log(math.exp(lx - hi) + math.exp(ly - hi)))


# --------------------------------------------------------------------------------------------
# One tree
# --------------------------------------------------------------------------------------------
#
# A tree holds only the nodes the data reach (Petitjean et al. 2018): nodes are numbered in
# level order (level 0 the root), within a level in increasing code order (the C order of
# the conditioning values), ``parent[node]`` is the index of the node's parent (-1 for the
# root) and ``level_start[lev]`` the first node of level ``lev``.  The sampler skips nodes
# without customers without drawing a random number, so a tree holding every node and one
# holding only the occurring ones give the same draws.


@njit(cache=True, inline="always")
def _log_stirling_memo(n, t, table, n_exact, beyond, memo_n, memo_t, memo_val):
    """:func:`log_stirling`, the values beyond the exact table computed by ``beyond(n, t)``
    (:func:`beyond_function`) and remembered in a direct-mapped memo keyed by (n, t) (the
    same function of (n, t), computed once while it stays).  NaN: ``beyond`` is the
    stand-in that is not compiled with the far path (nothing remembered)."""
    if n <= n_exact and 0 <= t <= n:
        return table[n * (n + 1) // 2 + t]
    if t > n or t < 0 or (t == 0 and n > 0):
        return -np.inf
    slot = (n * 40503 + t) & (memo_n.size - 1)
    if memo_n[slot] == n and memo_t[slot] == t:
        return memo_val[slot]
    value = beyond(n, t)
    if value != value:
        return value
    memo_n[slot] = n
    memo_t[slot] = t
    memo_val[slot] = value
    return value


@njit(cache=True)
def _window_far(n, n_par, t_par, lo, hi, log_c, cp, N_par, window, stirling, memo, beyond):
    """The log conditional of t = lo .. hi of :func:`sample_sparse_tree` in ``window`` and
    its largest value, when some of its Stirling numbers are beyond the exact table
    (``stirling``: a :class:`StirlingCache`; ``memo``: a :class:`FarMemo`, written;
    ``beyond``: :func:`beyond_function`'s).  NaN when ``beyond`` is the stand-in without
    the far path and a value beyond the table is needed."""
    table, n_exact, _ = stirling
    memo_n, memo_t, memo_val = memo
    best = -np.inf
    lg = math.lgamma(cp + N_par + lo)  # log Gamma(cp + N_par + t), by steps
    for t in range(lo, hi + 1):
        if t > lo:
            lg += math.log(cp + N_par + t - 1)
        if n_par + t < t_par:
            lp = -np.inf
        else:
            a = b = 0.0
            for which in range(2):  # S(n, t), then S(n_par + t, t_par): one inlined memo
                value = _log_stirling_memo(n if which == 0 else n_par + t,
                                           t if which == 0 else t_par, table, n_exact, beyond,
                                           memo_n, memo_t, memo_val)
                if which == 0:
                    a = value
                else:
                    b = value
            if a != a or b != b:
                return np.nan
            lp = a + t * log_c + b - lg
        window[t - lo] = lp
        if lp > best:
            best = lp
    return best


# error_model="numpy": no zero-division check (and its exception path) on every division of
# the sampler, none of which can divide by zero; the same values, about a tenth less of its
# compilation (bench_hdp.py, same run)
@njit(cache=True, nogil=True, error_model="numpy")
def sample_trees(forest, settings, seeds, stirling, out_flat, order, first, last, iterations,
                 t_flat, beyond, tol):
    """Run the sampler on the trees ``order[first:last]`` of ``forest`` (a
    :class:`ForestLayout`), in turn (one thread's share of :func:`sample_forest`; releases
    the GIL), and write the averaged estimates of their nodes.

    Tree ``j`` has the random stream ``seeds[j]``; its estimates go to
    ``out_flat[forest.out_offsets[j]:]`` (float64, (n_nodes, n_values) in C order); a node
    without rows (and without rows below it) gets its parent's estimates (the root:
    uniform).  ``t_flat`` (int64, as ``out_flat``, or None) receives the final table counts
    (0 where the node has no rows), for tests.  ``settings``: a :class:`SamplerSettings`;
    ``stirling``: a :class:`StirlingCache`; ``beyond``: the log Stirling numbers beyond the
    exact table (:func:`beyond_function`).  Where ``beyond`` is the stand-in without the far
    path and a tree needs a value beyond the table, the tree stops, writes nothing and gets
    ``iterations[j] = NEEDS_FAR`` (:func:`sample_forest` samples it again from its start
    with the far path).

    ``iterations[j]``: the iterations tree ``j`` ran, negative when it did not converge.
    ``tol``: ``settings.tol`` when it is above 0, else None (``settings.tol`` itself is not
    read).  With a tolerance the averaged estimates are compared every ``CHECK_EVERY``
    kept iterations, and the sampler stops (converged) at the first check, after the
    second, where no estimate moved by ``tol`` or more since the previous check; with None
    it runs ``n_iter`` iterations (converged).

    ``t_flat`` and ``tol`` are None in a fit without a tolerance, and numba then compiles
    the sampler without the code that fills the table counts and checks the convergence
    (their branches are pruned when it types the arguments).

    The leaves' counts never change and a value with n <= 1 rows has t = n tables, so the
    leaves' values with at least 2 rows are listed once and only they are visited.  (The
    whole sampler is this one kernel: a kernel calling it would optimise its code again.)
    """
    parents, node_offsets, level_starts, depths, leaves, leaf_offsets, n_values_of, \
        out_offsets = forest
    n_iter, burn_in, tying, sample_conc, conc_start, _ = settings
    table, n_exact = stirling.table, stirling.n_exact
    for i in range(first, last):
        j = order[i]
        depth = depths[j]
        n_values = n_values_of[j]
        parent = parents[node_offsets[j]:node_offsets[j + 1]]
        level_start = level_starts[j, :depth + 2].copy()
        n_leaf = level_start[depth + 1] - level_start[depth]
        leaf_counts = leaves[leaf_offsets[j]:leaf_offsets[j] + n_leaf * n_values].reshape(
            n_leaf, n_values)
        o = out_offsets[j]
        size = (out_offsets[j + 1] - o) // n_values
        out = out_flat[o:o + size * n_values].reshape(size, n_values)
        if t_flat is not None:
            out_t = t_flat[o:o + size * n_values].reshape(size, n_values)
        seed = seeds[j]
        total = level_start[depth + 1]
        V = n_values
        nk = np.zeros((total, V), dtype=np.int64)
        tk = np.zeros((total, V), dtype=np.int64)
        big_n = np.zeros(total, dtype=np.int64)
        big_t = np.zeros(total, dtype=np.int64)
        exists = np.zeros(total, dtype=np.bool_)
        conc = np.full(total, conc_start)
        leaf0 = level_start[depth]
        n_hot = 0
        for node in range(leaf0, total):
            s = 0
            for v in range(V):
                nk[node, v] = leaf_counts[node - leaf0, v]
                s += leaf_counts[node - leaf0, v]
                n_hot += leaf_counts[node - leaf0, v] >= 2
            big_n[node] = s
            exists[node] = s > 0
        # the leaves' values with n >= 2 (CSR by leaf)
        hot_start = np.zeros(total - leaf0 + 1, dtype=np.int64)
        hot_v = np.empty(n_hot, dtype=np.int64)
        n_hot = 0
        for node in range(leaf0, total):
            for v in range(V):
                if nk[node, v] >= 2:
                    hot_v[n_hot] = v
                    n_hot += 1
            hot_start[node - leaf0 + 1] = n_hot
        # concentration groups: values and members
        n_groups = total if tying <= 1 else depth + 1
        gvalue = np.full(n_groups, conc_start)
        group = np.zeros(total, dtype=np.int64)
        for lev in range(1, depth + 1):
            for node in range(level_start[lev], level_start[lev + 1]):
                if tying == 0:  # none: every node
                    group[node] = node
                elif tying == 1:  # same parent
                    group[node] = parent[node]
                elif tying == 2:  # level
                    group[node] = lev
                else:  # single
                    group[node] = 1
        # initial table counts, bottom-up (Petitjean et al.'s reference initialisation)
        state = np.uint64(seed)
        for lev in range(depth, -1, -1):
            for node in range(level_start[lev], level_start[lev + 1]):
                if lev < depth:
                    s = 0
                    for v in range(V):
                        s += nk[node, v]
                    big_n[node] = s
                    exists[node] = s > 0
                if not exists[node]:
                    continue
                c = conc[node]
                tsum = 0
                for v in range(V):
                    n = nk[node, v]
                    if lev == 0:
                        t = 1 if n > 0 else 0
                    elif n <= 1:
                        t = n
                    else:
                        t = max(1, int(math.floor(c * (digamma(c + n) - digamma(c)))))
                        t = min(t, n, MAX_T)
                    tk[node, v] = t
                    tsum += t
                big_t[node] = tsum
                if lev >= 1:
                    par = parent[node]
                    for v in range(V):
                        nk[par, v] += tk[node, v]
        pk = np.zeros((total, V))
        psum = np.zeros((total, V))
        n_kept = 0
        window = np.empty(2 * WINDOW + 1)
        memo_n = np.full(FAR_MEMO, -1, dtype=np.int64)
        memo_t = np.full(FAR_MEMO, -1, dtype=np.int64)
        memo_val = np.empty(FAR_MEMO)
        far = FarMemo(memo_n, memo_t, memo_val)
        log_conc = np.full(total, math.log(conc_start))  # log conc[node], as conc changes
        # lgamma(x) and log(x) of the window's x = cp + N_par + t, remembered by the exact x
        # (direct-mapped by the integer part N_par + t; NaN: empty)
        lgamma_key = np.full(GAMMA_MEMO, np.nan)
        lgamma_val = np.empty(GAMMA_MEMO)
        log_key = np.full(GAMMA_MEMO, np.nan)
        log_val = np.empty(GAMMA_MEMO)
        root_c = math.exp(math.log(conc_start))
        if tol is not None:
            prev = np.zeros((total, V))
        n_run = n_iter
        converged = tol is None
        needs_far = False
        for it in range(n_iter):
            # table counts, deepest level first
            for lev in range(depth, -1, -1):
                for node in range(level_start[lev], level_start[lev + 1]):
                    if not exists[node]:
                        continue
                    if lev == 0:
                        for v in range(V):
                            t = 1 if nk[node, v] > 0 else 0
                            big_t[node] += t - tk[node, v]
                            tk[node, v] = t
                        continue
                    par = parent[node]
                    log_c = log_conc[node]
                    cp = conc[par]
                    leaf = lev == depth  # a leaf: only its values with n >= 2 (hot_v)
                    h0 = hot_start[node - leaf0] if leaf else 0
                    h1 = hot_start[node - leaf0 + 1] if leaf else V
                    for h in range(h0, h1):
                        v = hot_v[h] if leaf else h
                        n = nk[node, v]
                        old = tk[node, v]
                        if n <= 1:
                            if old != n:  # cannot happen once initialised; kept for safety
                                tk[node, v] = n
                                big_t[node] += n - old
                                nk[par, v] += n - old
                                big_n[par] += n - old
                            continue
                        # the conditional of t: S(n, t) c^t S(n_par + t, t_par) /
                        # Gamma(cp + N_par + t) (the parent's counts without this value's tables)
                        lo = max(1, old - WINDOW)
                        hi = min(old + WINDOW, n, MAX_T)
                        n_par = nk[par, v] - old
                        t_par = tk[par, v]
                        N_par = big_n[par] - old
                        if n <= n_exact and n_par + hi <= n_exact:
                            # inside the exact table (1 <= t <= n, 0 <= t_par <= n_par + t)
                            best = -np.inf
                            row = n * (n + 1) // 2
                            # log Gamma(cp + N_par + t) by steps, its terms through the memos
                            x = cp + N_par + lo
                            slot = (N_par + lo) & (GAMMA_MEMO - 1)
                            if lgamma_key[slot] == x:
                                lg = lgamma_val[slot]
                            else:
                                lg = math.lgamma(x)
                                lgamma_key[slot] = x
                                lgamma_val[slot] = lg
                            for t in range(lo, hi + 1):
                                if t > lo:
                                    x = cp + N_par + t - 1
                                    slot = (N_par + t - 1) & (GAMMA_MEMO - 1)
                                    if log_key[slot] != x:
                                        log_key[slot] = x
                                        log_val[slot] = math.log(x)
                                    lg += log_val[slot]
                                m = n_par + t
                                if m < t_par:
                                    lp = -np.inf
                                else:
                                    lp = (table[row + t] + t * log_c
                                          + table[m * (m + 1) // 2 + t_par] - lg)
                                window[t - lo] = lp
                                if lp > best:
                                    best = lp
                        else:
                            best = _window_far(n, n_par, t_par, lo, hi, log_c, cp, N_par, window,
                                               stirling, far, beyond)
                            if best != best:  # beyond the table, without the far path
                                needs_far = True
                                break
                        if best == -np.inf:
                            continue
                        acc = 0.0
                        for t in range(lo, hi + 1):
                            w = window[t - lo]
                            if w == best:
                                e = 1.0  # exp(+0)
                            elif w == -np.inf:
                                e = 0.0  # exp(-inf)
                            else:
                                e = math.exp(w - best)
                            window[t - lo] = e
                            acc += e
                        state, u = _next(state)
                        u *= acc
                        chosen = hi
                        run = 0.0
                        for t in range(lo, hi + 1):
                            run += window[t - lo]
                            if u <= run:
                                chosen = t
                                break
                        tk[node, v] = chosen
                        big_t[node] += chosen - old
                        nk[par, v] += chosen - old
                        big_n[par] += chosen - old
                    if needs_far:
                        break
                if needs_far:
                    break
            if needs_far:
                break
            # concentrations
            if sample_conc and (it + CONCENTRATION_EVERY // 2) % CONCENTRATION_EVERY == 0:
                rate = np.zeros(n_groups)
                shape = np.zeros(n_groups)
                used = np.zeros(n_groups, dtype=np.bool_)
                for node in range(level_start[1], total):
                    if not exists[node]:
                        continue
                    g = group[node]
                    state, log_q = _log_beta_variate(state, gvalue[g], float(big_n[node]))
                    rate[g] -= max(log_q, -172.69)  # q >= 1e-75, as the reference
                    shape[g] += big_t[node]
                    used[g] = True
                log_g = np.empty(n_groups)
                for g in range(n_groups):
                    if used[g]:
                        state, lg = _log_gamma_variate(state, CONCENTRATION_START + shape[g])
                        gvalue[g] = min(math.exp(lg) / (1.0 + rate[g]), CONCENTRATION_MAX)
                    log_g[g] = math.log(gvalue[g])
                for node in range(level_start[1], total):
                    conc[node] = gvalue[group[node]]
                    log_conc[node] = log_g[group[node]]
            # estimates
            if it >= burn_in:
                n_kept += 1
                for node in range(total):
                    if not exists[node]:
                        continue
                    denom = big_n[node] + (conc[node] if node > 0 else root_c)
                    if node > 0:
                        c = conc[node]
                        par = parent[node]
                        for v in range(V):
                            pk[node, v] = (nk[node, v] + c * pk[par, v]) / denom
                    else:
                        base = 1.0 / V
                        for v in range(V):
                            pk[node, v] = (nk[node, v] + root_c * base) / denom
                    norm = 0.0
                    for v in range(V):
                        norm += pk[node, v]
                    for v in range(V):
                        psum[node, v] += pk[node, v] / norm
                if tol is not None and n_kept % CHECK_EVERY == 0:
                    moved = 0.0
                    for node in range(total):
                        if not exists[node]:
                            continue
                        for v in range(V):
                            e = psum[node, v] / n_kept
                            moved = max(moved, abs(e - prev[node, v]))
                            prev[node, v] = e
                    if n_kept > CHECK_EVERY and moved < tol:
                        n_run = it + 1
                        converged = True
                        break
        if needs_far:
            iterations[j] = NEEDS_FAR
            continue
        # averaged estimates, nodes without rows from their parent
        for node in range(total):
            if t_flat is not None:
                for v in range(V):
                    out_t[node, v] = tk[node, v] if exists[node] else 0
            if exists[node] and n_kept > 0:
                for v in range(V):
                    out[node, v] = psum[node, v] / n_kept
            elif exists[node]:  # no kept iteration: the estimate of the initial state
                c = conc[node] if node > 0 else conc_start
                for v in range(V):
                    base = out[parent[node], v] if node > 0 else 1.0 / V
                    out[node, v] = (nk[node, v] + c * base) / (big_n[node] + c)
            elif node == 0:
                for v in range(V):
                    out[node, v] = 1.0 / V
            else:
                for v in range(V):
                    out[node, v] = out[parent[node], v]
        iterations[j] = n_run if converged else -n_run


def sample_sparse_tree(tree, settings, seed, stirling, out, out_t):
    """Run the sampler (:func:`sample_trees`) on one tree and write the averaged estimates
    of its nodes.

    ``tree``: a :class:`SparseTree` (``parent``: (n_nodes,) parent index of every node, -1
    for the root, node 0; ``level_start``: (depth + 2,) first node of every level;
    ``leaf_counts``: integer counts of shape (nodes of level ``depth``, n_values));
    ``settings``: a :class:`SamplerSettings`; ``seed``: the tree's random stream;
    ``stirling``: a :class:`StirlingCache`.  ``out``: float64 of shape
    (n_nodes, n_values); a node without rows (and without rows below it) gets its parent's
    estimates (the root: uniform).  ``out_t`` (same shape, int64) receives the final table
    counts (0 where the node has no rows), for tests.

    Returns ``(iterations run, converged)`` (see :func:`sample_trees`).  (A Python function
    over :func:`sample_trees` with the far path compiled in: tests call it.)
    """
    parent, level_start, depth, leaf_counts, V = tree
    depth, V = int(depth), int(V)
    n = parent.size
    level_starts = np.zeros((1, depth + 2), dtype=np.int64)
    level_starts[0, :] = level_start[:depth + 2]
    leaves = np.ascontiguousarray(leaf_counts, dtype=np.int64).reshape(-1).copy()
    i64 = np.int64
    forest = ForestLayout(np.ascontiguousarray(parent, dtype=i64), np.array([0, n], dtype=i64),
                          level_starts, np.array([depth], dtype=i64), leaves,
                          np.array([0, leaves.size], dtype=i64), np.array([V], dtype=i64),
                          np.array([0, n * V], dtype=i64))
    flat = np.empty(n * V)
    t_flat = np.empty(n * V, dtype=np.int64)
    ran = np.zeros(1, dtype=np.int64)
    sample_trees(forest, settings, np.array([seed], dtype=np.uint64), stirling, flat,
                 np.zeros(1, dtype=np.int64), 0, 1, ran, t_flat, beyond_function(True),
                 settings.tol if settings.tol > 0.0 else None)
    out[:n] = flat.reshape(n, V)
    out_t[:n] = t_flat.reshape(n, V)
    return abs(int(ran[0])), bool(ran[0] > 0 or (ran[0] == 0 and settings.tol <= 0.0))


@njit(cache=True)
def _dense_layout(dims, depth):
    """Rows of every level (level 0 = root) of the tree holding every node, and their
    starts in the level-stacked arrays."""
    rows = np.ones(depth + 1, dtype=np.int64)
    for lev in range(1, depth + 1):
        rows[lev] = rows[lev - 1] * dims[lev - 1]
    starts = np.zeros(depth + 2, dtype=np.int64)
    for lev in range(depth + 1):
        starts[lev + 1] = starts[lev] + rows[lev]
    return rows, starts


@njit(cache=True)
def sparse_from_dense(leaf_counts, dims, depth):
    """The occurring nodes of a tree given densely: ``leaf_counts`` (prod dims, V) in C order
    over the conditioning variables.  Returns ``(index, parent, level_start, leaves)``:
    ``index[q]`` the sparse node of dense node q (-1: no rows below it; the root is always
    node 0), the sparse tree's parents and level starts, and its leaves' counts."""
    rows, starts = _dense_layout(dims, depth)
    total = starts[depth + 1]
    V = leaf_counts.shape[1]
    has = np.zeros(total, dtype=np.bool_)
    for r in range(rows[depth]):
        for v in range(V):
            if leaf_counts[r, v] > 0:
                has[starts[depth] + r] = True
    for lev in range(depth, 0, -1):
        for r in range(rows[lev]):
            if has[starts[lev] + r]:
                has[starts[lev - 1] + r // dims[lev - 1]] = True
    has[0] = True
    index = np.full(total, -1, dtype=np.int64)
    n = 0
    level_start = np.zeros(depth + 2, dtype=np.int64)
    for lev in range(depth + 1):
        level_start[lev] = n
        for r in range(rows[lev]):
            if has[starts[lev] + r]:
                index[starts[lev] + r] = n
                n += 1
    level_start[depth + 1] = n
    parent = np.full(n, -1, dtype=np.int64)
    for lev in range(1, depth + 1):
        for r in range(rows[lev]):
            q = index[starts[lev] + r]
            if q >= 0:
                parent[q] = index[starts[lev - 1] + r // dims[lev - 1]]
    leaves = np.zeros((n - level_start[depth], V), dtype=np.int64)
    for r in range(rows[depth]):
        q = index[starts[depth] + r]
        if q >= 0:
            for v in range(V):
                leaves[q - level_start[depth], v] = leaf_counts[r, v]
    return index, parent, level_start, leaves


@njit(cache=True)
def _fill_dense(index, dims, depth, sparse, dense):
    """Dense estimates (every node, levels stacked) from the occurring nodes': a node
    without rows takes its parent's."""
    rows, starts = _dense_layout(dims, depth)
    V = sparse.shape[1]
    for lev in range(depth + 1):
        for r in range(rows[lev]):
            q = starts[lev] + r
            s = index[q]
            for v in range(V):
                if s >= 0:
                    dense[q, v] = sparse[s, v]
                else:
                    dense[q, v] = dense[starts[lev - 1] + r // dims[lev - 1], v]


def sample_tree(leaf_counts, dims, depth, n_values, settings, seed, stirling, out, out_t):
    """:func:`sample_sparse_tree` on a tree given densely, results dense (``settings``: a
    :class:`SamplerSettings`; ``stirling``: a :class:`StirlingCache`).

    ``leaf_counts``: integer counts of shape (prod dims, n_values), rows in C order over the
    conditioning variables (sizes ``dims[:depth]``).  ``out``: float64 of shape
    (sum of the levels' rows, n_values), levels stacked from the root; nodes without rows get
    their nearest existing ancestor's estimates.  ``out_t`` (same shape, int64) receives the
    final table counts (0 where the node does not exist), for tests.
    """
    index, parent, level_start, leaves = sparse_from_dense(leaf_counts, dims, depth)
    n = parent.size
    est = np.empty((n, n_values))
    t_sparse = np.empty((n, n_values), dtype=np.int64)
    sample_sparse_tree(SparseTree(parent, level_start, depth, leaves, n_values), settings,
                       seed, stirling, est, t_sparse)
    _fill_dense(index, dims, depth, est, out)
    out_t[:index.size] = np.where((index >= 0)[:, None], t_sparse[np.maximum(index, 0)], 0)


def _log_stirling_beyond(n, t):
    """log S(n, t) for n beyond any exact table (:func:`beyond_function`'s far path)."""
    return _log_stirling_far(n, t, _NO_TABLE, -1, _ZETA)


def _no_far_path(n, t):
    """:func:`beyond_function`'s stand-in without the far path: NaN."""
    return np.nan


_NO_TABLE = np.zeros(1)
#: the compiled functions of :func:`beyond_function`, by ``far``
_BEYOND = {}


def beyond_function(far):
    """The log Stirling numbers beyond the exact table, as :func:`sample_trees` calls them:
    a compiled function ``f(n, t) -> float64`` (int64 arguments) passed to it by address.

    ``far=True``: the far path (:func:`_log_stirling_far`: closed forms, Newton's
    identities, the saddle point).  ``far=False``: a stand-in returning NaN, with which
    :func:`sample_trees` stops a tree that needs the far path.  The two have one type, so
    the sampler compiles once for both, and the far path (about a fifth of the sampler's
    compilation) compiles only in a process that needs it: a forest whose counts all fit
    in the exact table (:func:`stirling_cache`) never does.  Compiled once per process
    (cached on disk as the kernels).

    Parameters
    ----------
    far : bool

    Returns
    -------
    numba CFunc
    """
    far = bool(far)
    with _BEYOND_LOCK:
        if far not in _BEYOND:
            nb = numba.load()
            sig = nb.types.float64(nb.types.int64, nb.types.int64)
            _BEYOND[far] = nb.cfunc(sig, cache=True)(
                _log_stirling_beyond if far else _no_far_path)
    return _BEYOND[far]


def sample_forest(forest, settings, seeds, stirling, out, order, share_start, iterations,
                  far=False):
    """:func:`sample_sparse_tree` for every tree of ``forest`` (a :class:`ForestLayout`), one
    share of the trees per thread (:func:`~seminaive.kernels._threads.parallel_calls` over
    :func:`sample_trees`, which releases the GIL); each tree has its own random stream
    (``seeds[j]``), so the result does not depend on the threads or the order.

    Tree ``j``'s estimates are written at ``out[forest.out_offsets[j]:]`` (``n_values[j]``
    per node).  Thread share ``w`` samples the trees
    ``order[share_start[w]:share_start[w + 1]]`` (:func:`thread_shares`; one share: in this
    thread, no thread started).  ``iterations[j]``: the iterations tree ``j`` ran, negative
    when it reached ``n_iter`` without converging (see :func:`sample_sparse_tree`).

    ``far=False`` runs the sampler without the far path of the log Stirling numbers
    (:func:`beyond_function`) and samples the trees that needed it again, from their start,
    with it (the same draws: every tree has its own stream); ``far=True`` has it from the
    start (where a leaf's count is beyond the exact table, so that it is certain)."""
    tol = settings.tol if settings.tol > 0.0 else None
    no_counts = None
    beyond = beyond_function(far)
    parallel_calls(sample_trees, [
        (forest, settings, seeds, stirling, out, order, share_start[w], share_start[w + 1],
         iterations, no_counts, beyond, tol) for w in range(share_start.size - 1)])
    if far:
        return
    again = order[iterations[order] == NEEDS_FAR]  # largest first, as ``order``
    if again.size:
        shares = [again[w::share_start.size - 1] for w in range(share_start.size - 1)]
        shares = [share for share in shares if share.size]
        starts = np.concatenate([[0], np.cumsum([share.size for share in shares])])
        beyond = beyond_function(True)
        order = np.concatenate(shares).astype(np.int64)
        parallel_calls(sample_trees, [
            (forest, settings, seeds, stirling, out, order, int(starts[w]), int(starts[w + 1]),
             iterations, no_counts, beyond, tol) for w in range(len(shares))])


# --------------------------------------------------------------------------------------------
# Python entry point
# --------------------------------------------------------------------------------------------

_STIRLING = {"n": -1, "table": np.zeros(1)}


def stirling_cache(n_max):
    """The exact log Stirling table up to min(n_max, STIRLING_EXACT) (computed once per
    process and grown when a larger one is needed) and its bound.

    The bound is the one asked for, not the size of the table the process happens to hold:
    beyond it the sampler uses the asymptotic form, so the estimates of a forest depend on
    its own counts only, never on what the process sampled before."""
    n = int(min(max(n_max, 16), STIRLING_EXACT))
    if _STIRLING["n"] < n:
        _STIRLING["table"] = stirling_table(n)
        _STIRLING["n"] = n
    return _STIRLING["table"], n


def tree_levels(dims):
    """Rows of every level of a tree whose conditioning variables have sizes ``dims``."""
    return np.concatenate([[1], np.cumprod(np.asarray(dims, dtype=np.int64))]).astype(np.int64)


def sparse_hdp_bytes(trees, n_threads=None):
    """Bytes the sampler of :func:`sparse_hdp_forest` needs for ``trees`` (list of
    (parent, level_start, leaf_counts)), without allocating: the estimates of every node
    (kept three times: the sampler's output, the learner's copy and its logarithm) and the
    working arrays of the largest trees sampled at the same time (about 48 bytes per node
    and value)."""
    threads = numba.get_num_threads() if n_threads is None else n_threads
    cells = sorted(int(np.size(p)) * int(np.shape(c)[1]) for p, _, c in trees)
    return 24 * sum(cells) + 48 * sum(cells[-threads:]) if cells else 0


def hdp_bytes(trees, n_threads=None):
    """Bytes :func:`hdp_forest` needs for ``trees`` (list of (counts, dims)) when every node
    of every tree exists (the occurring nodes need less; see :func:`sparse_hdp_bytes`)."""
    threads = numba.get_num_threads() if n_threads is None else n_threads
    cells = sorted(int(tree_levels(d).sum()) * int(np.shape(c)[1]) for c, d in trees)
    return 24 * sum(cells) + 48 * sum(cells[-threads:]) if cells else 0


def sampler_cost(n_nodes, leaf_counts):
    """Relative time of :func:`sample_sparse_tree` on a tree of ``n_nodes`` nodes whose
    leaves have the counts ``leaf_counts`` (n_leaves, n_values): a fit of its measured times
    on real trees, per node, per leaf value with 2 or more rows (a table count to draw) and
    per value of an inner node."""
    n_leaves, n_values = np.shape(leaf_counts)
    hot = int(np.count_nonzero(np.asarray(leaf_counts) >= 2))
    return 2.0 * n_nodes + 9.0 * hot + 0.3 * (n_nodes - n_leaves) * n_values


def thread_shares(costs, n_threads=None, serial=0.0):
    """Trees to threads, largest first to the least loaded thread (Graham 1969):
    ``(order, share_start)``, thread ``w`` taking ``order[share_start[w]:share_start[w + 1]]``
    (at most one share per tree).  The one-thread cut of both samplers: a forest whose costs
    sum to at most ``serial`` gets one share (its caller runs it in its own thread, no thread
    started: starting them costs more than they save on a small forest).  The callers'
    cuts, each in its own cost's units, are both about 8 ms of work measured on a loaded
    2-core machine (the HDP's ``SERIAL_WORK``, HLS's ``SERIAL_CELLS``)."""
    if sum(costs) <= serial:
        n_threads = 1
    threads = max(1, min(numba.get_num_threads() if n_threads is None else n_threads,
                         len(costs)))
    if threads == 1:  # one share, in the given order
        return (np.argsort(-np.asarray(costs, dtype=np.float64), kind="stable").astype(np.int64),
                np.array([0, len(costs)], dtype=np.int64))
    cost = np.asarray(costs, dtype=np.float64)
    heap = [(0.0, w) for w in range(threads)]  # (load, thread): the least loaded, lowest first
    shares = [[] for _ in range(threads)]
    for j in np.argsort(-cost, kind="stable").tolist():
        load, w = heapq.heappop(heap)
        shares[w].append(j)
        heapq.heappush(heap, (load + float(cost[j]), w))
    order = np.array([j for share in shares for j in share], dtype=np.int64)
    share_start = np.concatenate([[0], np.cumsum([len(s) for s in shares])]).astype(np.int64)
    return order, share_start


def _whole_counts(counts):
    counts = np.asarray(counts)
    whole = np.rint(counts)
    if counts.size and (np.any(whole != counts) or whole.min() < 0):
        raise ValueError("hierarchical Dirichlet process estimates need whole-number "
                         "counts: use integer sample weights (or none)")
    return whole.astype(np.int64)


def _float_counts(counts):
    counts = np.asarray(counts, dtype=np.float64)
    if counts.size and not (np.all(np.isfinite(counts)) and counts.min() >= 0):
        raise ValueError("hierarchical estimates need finite, non-negative counts")
    return counts


def forest_layout(trees, *, what, need, max_bytes=None, whole=True, cost=sampler_cost,
                  serial=0.0):
    """Check a list of trees of occurring nodes and flatten them into a
    :class:`ForestLayout`, with the trees' shares of the threads (:func:`thread_shares`):
    the set-up :func:`sparse_hdp_forest` and :func:`.hls.sparse_hls_forest` share.

    Parameters
    ----------
    trees : list of (parent, level_start, leaf_counts)
        As in :func:`sparse_hdp_forest` (non-empty).
    what : str
        The estimates, as the refusal names them ("hierarchical Dirichlet process").
    need : int
        The bytes the estimates need (the caller's count, e.g. :func:`sparse_hdp_bytes`).
    max_bytes : int, optional
        Refuse (:class:`~seminaive.exceptions.TableTooLargeError`, before allocating) when
        ``need`` exceeds it.
    whole : bool, default=True
        The counts must be whole numbers (the leaves are then int64; otherwise float64,
        finite and non-negative).
    cost : callable, default=sampler_cost
        ``cost(n_nodes, leaf_counts)``: a tree's relative time, for the thread shares.
    serial : float, default=0.0
        A forest whose trees' costs sum to at most this gets one share (the caller runs it
        in its own thread: starting threads for a small forest costs more than they save).

    Returns
    -------
    (ForestLayout, order, share_start)
    """
    if max_bytes is not None and need > max_bytes:
        n_nodes = sum(int(np.size(p)) for p, _, _ in trees)
        raise TableTooLargeError(
            f"the {what} estimates of {len(trees)} tables "
            f"({n_nodes} occurring nodes) would need {need:,} bytes ({need / 2**30:.2f} GiB), "
            f"more than the {max(max_bytes, 0):,} bytes ({max(max_bytes, 0) / 2**30:.2f} GiB) "
            "left of max_table_bytes: use fewer parents "
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
        counts = _whole_counts(counts) if whole else _float_counts(counts)
        parent = np.asarray(parent, dtype=np.int64)
        ls = np.asarray(ls, dtype=np.int64)
        if (counts.ndim != 2 or ls[0] != 0 or ls[-1] != parent.size
                or counts.shape[0] != ls[-1] - ls[-2]):
            raise ValueError(f"tree {j}: the leaf counts and levels do not match its nodes")
        level_starts[j, :ls.size] = ls
        n_values[j] = counts.shape[1]
        flat.append(counts.ravel())
        parents.append(parent)
        costs.append(cost(parent.size, counts))
        node_offsets[j + 1] = node_offsets[j] + parent.size
        leaf_offsets[j + 1] = leaf_offsets[j] + counts.size
        out_offsets[j + 1] = out_offsets[j] + parent.size * counts.shape[1]
    order, share_start = thread_shares(costs, serial=serial)
    forest = ForestLayout(np.concatenate(parents), node_offsets, level_starts, depths,
                          np.concatenate(flat), leaf_offsets, n_values, out_offsets)
    return forest, order, share_start


def sparse_hdp_forest(trees, *, n_iter, burn_in, tying="level", seeds,
                      sample_concentration=True, concentration=CONCENTRATION_START,
                      max_bytes=None, tol=0.0, iterations=None):
    """HDP estimates of a list of trees holding only their occurring nodes.

    Parameters
    ----------
    trees : list of (parent, level_start, leaf_counts)
        ``parent``: (n_nodes,) int, the parent of every node (-1 for the root, node 0;
        nodes in level order, within a level by increasing code); ``level_start``:
        (depth + 2,) int, the first node of every level; ``leaf_counts``: whole-number
        counts of shape (nodes of the deepest level, n_values).
    n_iter, burn_in, tying, seeds, sample_concentration, concentration
        As in :func:`hdp_forest`.
    max_bytes : int, optional
        Refuse (:class:`~seminaive.exceptions.TableTooLargeError`, before allocating) when
        :func:`sparse_hdp_bytes` exceeds it.
    tol : float, default=0.0
        0: every tree runs ``n_iter`` iterations.  Above 0: a tree stops once its averaged
        estimates (past the burn-in) move by less than ``tol`` between two checks
        ``CHECK_EVERY`` kept iterations apart (at most ``n_iter`` iterations).
    iterations : ndarray of shape (n_trees,), optional
        Filled with the iterations every tree ran (int64), negative for a tree that
        reached ``n_iter`` with ``tol`` > 0 without converging.

    Returns
    -------
    list of ndarray
        For every tree, the estimates of shape (n_nodes, n_values).
    """
    if tying not in TYING:
        raise ValueError(f"tying={tying!r}: use one of {TYING}")
    if not trees:
        return []
    forest, order, share_start = forest_layout(
        trees, what="hierarchical Dirichlet process", need=sparse_hdp_bytes(trees),
        max_bytes=max_bytes, serial=SERIAL_WORK / max(int(n_iter), 1))
    lo, n_values = forest.leaf_offsets, forest.n_values
    n_max = max(int(forest.leaves[lo[j]:lo[j + 1]].sum()) for j in range(len(trees)))
    table, n_exact = stirling_cache(n_max)
    out = np.empty(int(forest.out_offsets[-1]))
    settings = SamplerSettings(int(n_iter), int(burn_in), TYING.index(tying),
                               bool(sample_concentration), float(concentration), float(tol))
    ran = np.zeros(len(trees), dtype=np.int64)
    sample_forest(forest, settings, np.asarray(seeds, dtype=np.uint64),
                  StirlingCache(table, n_exact, _ZETA), out, order, share_start, ran,
                  far=forest.leaves.size > 0 and int(forest.leaves.max()) > n_exact)
    if iterations is not None:
        iterations[:] = ran
    oo = forest.out_offsets
    return [out[oo[j]:oo[j + 1]].reshape(-1, n_values[j]) for j in range(len(trees))]


def hdp_forest(trees, *, n_iter, burn_in, tying="level", seeds, sample_concentration=True,
               concentration=CONCENTRATION_START, max_bytes=None):
    """HDP estimates of a list of trees given densely (every node; the sampler works on
    the occurring nodes only, :func:`sparse_hdp_forest`).

    Parameters
    ----------
    trees : list of (counts, dims)
        ``counts``: whole-number counts of shape (prod dims, n_values): the rows of the
        data at every combination of the conditioning variables (C order, sizes ``dims``, the
        first conditioning variable slowest).
    n_iter, burn_in : int
        Gibbs iterations, and how many of the first are not averaged.
    tying : {"none", "parent", "level", "single"}
        Which nodes share a concentration: none, the children of one node, the nodes of one
        level, all nodes (the root excepted, whose concentration stays ``concentration``).
    seeds : array of uint64, one per tree
    sample_concentration : bool
        False keeps every concentration at ``concentration``.
    max_bytes : int, optional
        Refuse (:class:`~seminaive.exceptions.TableTooLargeError`, before allocating) when
        :func:`hdp_bytes` exceeds it.

    Returns
    -------
    list of ndarray
        For every tree, the estimates of shape (sum of the levels' rows, n_values): the root,
        then every level's nodes in C order (a node without rows: its nearest existing
        ancestor's estimates).
    """
    if tying not in TYING:
        raise ValueError(f"tying={tying!r}: use one of {TYING}")
    if not trees:
        return []
    need = hdp_bytes(trees)
    if max_bytes is not None and need > max_bytes:
        raise TableTooLargeError(
            f"the hierarchical Dirichlet process estimates of {len(trees)} tables would need "
            f"{need / 2**30:.1f} GiB (every node of every tree, dense), more than the "
            f"{max(max_bytes, 0) / 2**30:.1f} GiB left of max_table_bytes: use fewer parents "
            "(a smaller k or n), fewer intervals per numeric attribute, "
            "smoothing='m_estimate', or raise max_table_bytes if the machine has the memory")
    sparse, layout = [], []
    for j, (counts, d) in enumerate(trees):
        whole = _whole_counts(counts)
        dims = np.asarray(d, dtype=np.int64).reshape(-1)
        levels = tree_levels(dims)
        if whole.shape[0] != levels[-1]:
            raise ValueError(f"tree {j}: {whole.shape[0]} rows, expected {levels[-1]}")
        index, parent, level_start, leaves = sparse_from_dense(whole, dims, dims.size)
        sparse.append((parent, level_start, leaves))
        layout.append((index, dims, int(levels.sum())))
    estimates = sparse_hdp_forest(sparse, n_iter=n_iter, burn_in=burn_in, tying=tying,
                                  seeds=seeds, sample_concentration=sample_concentration,
                                  concentration=concentration)
    out = []
    for est, (index, dims, n_rows) in zip(estimates, layout, strict=True):
        dense = np.empty((n_rows, est.shape[1]))
        _fill_dense(index, dims, dims.size, est, dense)
        out.append(dense)
    return out
