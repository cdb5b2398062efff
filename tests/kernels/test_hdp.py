"""Hierarchical Dirichlet process estimates (``smoothing="hdp"``; Petitjean et al. 2018).

The sampler is checked against exact enumeration of the table-count posterior on a small
tree, the log Stirling numbers against exact integers and the float recurrence, and the
learners' estimates against the Dirichlet posterior mean where the tree is deterministic.
"""

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from cold_process import cold_json
from hdp_cases import cases as stored_cases
from hdp_cases import run as run_stored_case
from sparse_cases import check_reference

from seminaive import KDB, SKDB, TAN
from seminaive.datasets import load_kr_vs_kp
from seminaive.kernels import hdp
from seminaive.parts import HierarchicalEstimates


def _stirling_int(n_max):
    """Exact unsigned Stirling numbers of the first kind (Python integers)."""
    table = [[1]]
    for n in range(1, n_max + 1):
        prev = table[-1]
        row = [0] * (n + 1)
        for t in range(1, n + 1):
            row[t] = (n - 1) * (prev[t] if t < n else 0) + prev[t - 1]
        table.append(row)
    return table


def test_log_stirling_exact_table():
    table, n_exact = hdp.stirling_cache(200)
    exact = _stirling_int(120)
    for n in range(0, 121, 7):
        for t in range(0, n + 1):
            got = hdp.log_stirling(n, t, table, n_exact, hdp._ZETA)
            if exact[n][t] == 0:
                assert got == -np.inf
            else:
                want = math.log(exact[n][t])
                assert abs(got - want) <= 1e-12 * max(1.0, abs(want))


def test_log_stirling_beyond_the_table():
    """Closed forms, Newton's identities and the corrected saddle point against the float64
    recurrence for n above the exact table (the table is cut to 64 here)."""
    small = hdp.stirling_table(64)
    prev = np.array([0.0])
    rows = {}
    for n in range(1, 1501):
        a = np.full(n + 1, -np.inf)
        if n > 1:
            a[:n] = prev + math.log(n - 1)
        b = np.full(n + 1, -np.inf)
        b[1:] = prev
        prev = np.logaddexp(a, b)
        if n in (65, 300, 1500):
            rows[n] = prev.copy()
    for n, row in rows.items():
        got = np.array([hdp.log_stirling(n, t, small, 64, hdp._ZETA) for t in range(n + 1)])
        assert got[0] == -np.inf
        err = np.abs(got[1:] - row[1:])
        t = np.arange(1, n + 1)
        closed = (t <= hdp.NEWTON_MAX_T) | (t >= n - 3)
        assert err[closed].max() < 1e-9 * n
        assert err.max() < 3e-4
        assert err[(t > hdp.NEWTON_MAX_T) & (t < n - 12)].max() < 4e-5


def test_polygamma_matches_scipy():
    from scipy.special import polygamma

    for order in range(4):
        for x in (0.003, 0.5, 1.0, 3.3, 9.99, 12.0, 1e5):
            want = float(polygamma(order, x))
            assert abs(hdp._polygamma(order, x) - want) <= 1e-12 * max(1.0, abs(want))


def test_root_only_tree_is_the_m_estimate():
    """A single-level HDP with the concentration fixed: the Dirichlet posterior mean."""
    counts = np.array([[3, 0, 5, 2]])
    for c in (0.5, 1.0, 7.0):
        est = hdp.hdp_forest([(counts, [])], n_iter=20, burn_in=5, seeds=[3],
                             sample_concentration=False, concentration=c)[0]
        np.testing.assert_allclose(est[0], (counts[0] + c / 4) / (counts.sum() + c),
                                   rtol=0, atol=1e-15)


def test_deterministic_two_level_tree_by_hand():
    """Leaves holding at most one row per value have t = n: nothing is random, and every
    estimate is (n + c p_parent) / (N + c) computed by hand."""
    counts = np.array([[1, 0, 1], [0, 1, 0], [0, 0, 0]])
    c = 1.5
    est = hdp.hdp_forest([(counts, [3])], n_iter=30, burn_in=10, seeds=[1],
                         sample_concentration=False, concentration=c)[0]
    n_root = np.array([1, 1, 1])  # the children's tables
    root = (n_root + c / 3) / (3 + c)
    np.testing.assert_allclose(est[0], root, atol=1e-15)
    for j in range(2):
        leaf = (counts[j] + c * root) / (counts[j].sum() + c)
        np.testing.assert_allclose(est[1 + j], leaf, atol=1e-15)
    np.testing.assert_allclose(est[3], root, atol=1e-15)  # no rows: the parent's estimate


def _exact_posterior_mean(counts, c_root, c_leaf):
    """E[p_leaf] and E[p_root] under the table-count posterior, by enumeration
    (concentrations fixed; root tables are 1 per seen value)."""
    n_leaves, V = counts.shape
    choices = [range(1, n + 1) if n >= 2 else [n] for n in counts.ravel()]
    total = 0.0
    leaf_mean = np.zeros((n_leaves, V))
    root_mean = np.zeros(V)
    for state in itertools.product(*choices):
        t = np.array(state).reshape(n_leaves, V)
        n_root = t.sum(axis=0)
        logp = 0.0
        for j in range(n_leaves):
            N = counts[j].sum()
            logp += t[j].sum() * math.log(c_leaf) + math.lgamma(c_leaf) - math.lgamma(
                c_leaf + N)
            for v in range(V):
                logp += math.log(_STIRLING[counts[j, v]][t[j, v]])
        t_root = (n_root > 0).astype(int)
        logp += t_root.sum() * math.log(c_root) + math.lgamma(c_root) - math.lgamma(
            c_root + n_root.sum())
        for v in range(V):
            logp += math.log(_STIRLING[n_root[v]][t_root[v]]) if n_root[v] else 0.0
        w = math.exp(logp)
        root = (n_root + c_root / V) / (n_root.sum() + c_root)
        leaves = (counts + c_leaf * root) / (counts.sum(axis=1, keepdims=True) + c_leaf)
        total += w
        leaf_mean += w * leaves
        root_mean += w * root
    return leaf_mean / total, root_mean / total


_STIRLING = _stirling_int(40)


def test_sampler_matches_the_exact_posterior_mean():
    """Long run of the Gibbs sampler against exact enumeration of the table counts."""
    counts = np.array([[4, 1, 0], [2, 5, 1], [0, 3, 3]])
    c = 1.3  # every concentration fixed at c (the root's too)
    est = np.zeros((4, 3))
    t_out = np.zeros((4, 3), dtype=np.int64)
    table, n_exact = hdp.stirling_cache(64)
    out = np.zeros((4, 3))
    runs = 4
    for seed in range(runs):
        hdp.sample_tree(counts, np.array([3]), 1, 3,
                        hdp.SamplerSettings(60000, 1000, 2, False, c),
                        np.uint64(seed + 11), hdp.StirlingCache(table, n_exact, hdp._ZETA), out,
                        t_out)
        est += out
    est /= runs
    exact_leaf, exact_root = _exact_posterior_mean(counts, c, c)
    np.testing.assert_allclose(est[0], exact_root, atol=2e-3)
    np.testing.assert_allclose(est[1:], exact_leaf, atol=2e-3)
    # and it is not the deterministic answer of a wrong table count (t = n everywhere)
    root_t_n = (counts.sum(axis=0) + c / 3) / (counts.sum() + c)
    assert np.abs(root_t_n - exact_root).max() > 1e-2


def test_sampler_invariants():
    rng = np.random.default_rng(0)
    dims = np.array([2, 3, 4])
    counts = rng.poisson(2.0, size=(24, 5)) * rng.integers(0, 2, size=(24, 1))
    counts[:, 3] = 0
    table, n_exact = hdp.stirling_cache(200)
    rows = hdp.tree_levels(dims)
    starts = np.concatenate([[0], np.cumsum(rows)])
    out = np.zeros((starts[-1], 5))
    t_out = np.zeros((starts[-1], 5), dtype=np.int64)
    hdp.sample_tree(counts, dims, 3, 5, hdp.SamplerSettings(300, 30, 2, True, 2.0), np.uint64(5),
                    hdp.StirlingCache(table, n_exact, hdp._ZETA), out, t_out)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(out > 0)
    n = np.zeros_like(t_out)
    n[starts[3]:] = counts
    for lev in range(3, 0, -1):
        for r in range(rows[lev]):
            n[starts[lev - 1] + r // dims[lev - 1]] += t_out[starts[lev] + r]
    inner = slice(starts[1], starts[-1])
    assert np.all(t_out[inner] <= n[inner])
    assert np.all((t_out[inner] >= 1) == (n[inner] >= 1))
    np.testing.assert_array_equal(t_out[0], (n[0] > 0).astype(int))
    # nodes without rows carry their parent's estimate
    for lev in range(1, 4):
        for r in range(rows[lev]):
            node = starts[lev] + r
            if n[node].sum() == 0:
                parent = starts[lev - 1] + r // dims[lev - 1] if lev > 1 else 0
                np.testing.assert_array_equal(out[node], out[parent])


STORED = np.load(Path(__file__).resolve().parents[1] / "data" / "hdp_reference.npz")


@pytest.mark.reference
@pytest.mark.parametrize("case", stored_cases(), ids=lambda c: c[0])
def test_sampler_equals_the_stored_outputs(case):
    """Equal to the sampler before it was made faster (``tests/hdp_cases.py``): counts
    beyond the exact Stirling table, mostly 0/1-row leaves, every tying, fixed and high
    concentrations.

    The stored arrays were written on another machine.  The sampler's random stream is
    integer arithmetic (the same on every processor), and so are the table counts, which are
    compared exactly; the estimates go through exp, log and lgamma, whose last bit depends
    on the processor, so they are compared within the tolerance of
    :func:`sparse_cases.check_reference`.  A draw compares a uniform number against such a
    probability: a difference of one ulp flips a draw with a probability of about 1e-16 per
    draw, far below the few hundred thousand draws of these cases.
    """
    name, kwargs = case
    check_reference(STORED, name, run_stored_case(**kwargs))


def test_hdp_forest_is_deterministic_per_seed():
    rng = np.random.default_rng(1)
    counts = rng.poisson(3.0, size=(6, 4))
    trees = [(counts, [2, 3])] * 3
    a, b, c = hdp.hdp_forest(trees, n_iter=200, burn_in=20, seeds=[7, 7, 8])
    np.testing.assert_array_equal(a, b)
    assert np.abs(a - c).max() > 1e-6


def test_hdp_needs_whole_counts():
    with pytest.raises(ValueError, match="whole-number"):
        hdp.hdp_forest([(np.array([[0.5, 1.0]]), [])], n_iter=5, burn_in=0, seeds=[0])
    X, y = load_kr_vs_kp()
    w = np.full(len(y), 0.5)
    with pytest.raises(ValueError, match="whole-number"):
        KDB(k=1, smoothing="hdp", n_iter=5).fit(X, y, sample_weight=w)


def test_hdp_parameters_are_checked():
    X, y = load_kr_vs_kp()
    for bad in (dict(n_iter=0), dict(n_iter=10, burn_in=10), dict(tying="tree"),
                dict(n_iter=2.5)):
        with pytest.raises(ValueError):
            KDB(k=1, smoothing="hdp", **bad).fit(X.iloc[:50], y.iloc[:50])
    from seminaive import AODE

    with pytest.raises(ValueError, match="smoothing"):
        AODE(smoothing="hdp", numeric="gaussian").fit(X.iloc[:50], y.iloc[:50])


@pytest.fixture(scope="module")
def chess():
    X, y = load_kr_vs_kp()
    rows = np.arange(0, len(X), 4)  # both classes (the file is sorted by class)
    return X.iloc[rows].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)


def test_kdb_hdp_same_random_state_same_model(chess):
    X, y = chess
    a = KDB(k=2, smoothing="hdp", n_iter=100, random_state=3).fit(X, y)
    b = KDB(k=2, smoothing="hdp", n_iter=100, random_state=3).fit(X, y)
    c = KDB(k=2, smoothing="hdp", n_iter=100, random_state=4).fit(X, y)
    np.testing.assert_array_equal(a._scores(X), b._scores(X))
    assert np.abs(a._scores(X) - c._scores(X)).max() > 1e-6


def test_partial_fit_then_refit_equals_fit(chess):
    """The sampler runs on the merged counts: chunks give the model of one fit."""
    X, y = chess
    for model in (KDB(k=1, smoothing="hdp", n_iter=80, random_state=0),
                  TAN(smoothing="hdp", n_iter=80, random_state=0)):
        full = model.fit(X, y).predict_proba(X)
        model2 = type(model)(**model.get_params())
        for part in np.array_split(np.arange(len(y)), 3):
            model2.partial_fit(X.iloc[part], y.iloc[part], classes=np.unique(y))
        np.testing.assert_allclose(model2.predict_proba(X), full, atol=1e-12)


def test_integer_weights_equal_repeated_rows(chess):
    X, y = chess
    w = np.random.default_rng(0).integers(0, 3, size=len(y))
    rep = np.repeat(np.arange(len(y)), w)
    a = KDB(k=2, smoothing="hdp", n_iter=60, random_state=0).fit(X, y, sample_weight=w)
    b = KDB(k=2, smoothing="hdp", n_iter=60, random_state=0).fit(X.iloc[rep], y.iloc[rep])
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-12)


def test_kdb_hdp_estimates_by_hand(chess):
    """The learner reads the tree the sampler returns: the class-level node's estimate for
    an attribute without parents, and the deepest node for one with parents."""
    X, y = chess
    model = KDB(k=2, smoothing="hdp", n_iter=40, random_state=0).fit(X, y)
    trees, chain, chain_len = model._hdp_tree_counts()
    part = HierarchicalEstimates()
    est = hdp.hdp_forest(trees, n_iter=40, burn_in=part.burn_in(model), tying="level",
                         seeds=part.seeds(model, len(trees)))
    codes = model._storage_codes(X.iloc[:5])
    k = model.table_.n_classes
    sizes = model.table_.sizes
    prior = model._log_prior()
    want = np.tile(prior, (5, 1))
    for i in range(X.shape[1]):
        for r in range(5):
            for yy in range(k):
                row, start, level_rows = yy, 1, k
                for p in chain[i, :chain_len[i]]:
                    start += level_rows
                    level_rows *= sizes[p]
                    row = row * sizes[p] + codes[r, p]
                want[r, yy] += math.log(est[i][start + row, codes[r, i] - 1])
    np.testing.assert_allclose(model._scores(X.iloc[:5]), want, atol=1e-10)


def test_missing_parent_stops_at_the_prefix_node(chess):
    X, y = chess
    model = KDB(k=2, smoothing="hdp", n_iter=40, random_state=0).fit(X, y)
    i = int(np.argmax(model._trees.chain_len))
    first = int(model._trees.chain[i, 0])
    Xm = X.iloc[:3].copy()
    Xm.iloc[:, first] = None
    s_missing = model._scores(Xm)
    assert np.all(np.isfinite(s_missing))


def test_save_load_keeps_the_estimates(tmp_path, chess):
    X, y = chess
    for model in (KDB(k=3, smoothing="hdp", n_iter=50, random_state=0),
                  SKDB(k=2, smoothing="hdp", n_iter=50, random_state=0),
                  TAN(smoothing="hdp", n_iter=50, random_state=0)):
        model.fit(X, y)
        path = tmp_path / f"{type(model).__name__}.snb"
        model.save(path)
        loaded = type(model).load(path)
        np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("make", [
    lambda: KDB(k=2, smoothing="hdp", n_iter=40, random_state=0),
    lambda: SKDB(k=2, smoothing="hdp", n_iter=40, random_state=0),
])
def test_fit_stream_and_dask_equal_fit(make, chess, tmp_path):
    """Streaming and Dask count as usual and run the sampler once on the merged counts."""
    dd = pytest.importorskip("dask.dataframe")
    import dask

    import seminaive.dask

    X, y = chess
    expected = make().fit(X, y)._scores(X)
    path = tmp_path / "train.parquet"
    X.assign(target=y).to_parquet(path, row_group_size=170)
    streamed = make().fit_stream(path, target="target", chunk_rows=100)
    np.testing.assert_allclose(streamed._scores(X), expected, atol=1e-12)
    ddf = dd.from_pandas(X.assign(target=y), npartitions=3)
    with dask.config.set(scheduler="synchronous"):
        model = seminaive.dask.fit(make(), ddf, target="target")
    np.testing.assert_allclose(model._scores(X), expected, atol=1e-12)


# ------------------------------------------------------------------ the AnDE family
def test_hdp_tables_layout_by_hand():
    """Every (combination, child) entry of the HDP log-conditional array is the log of the
    leaf estimate of its own tree, read at (class, other members' values, child value)."""
    from seminaive.tables import FrequencyTable

    rng = np.random.default_rng(0)
    X = rng.integers(1, 4, size=(300, 3))
    X[rng.random(X.shape) < 0.1] = 0  # missing values: slot 0
    y = rng.integers(0, 2, size=300)
    table = FrequencyTable([3, 3, 3], 2, 3)
    table.add(X, y)
    n_trees = int(sum(table.orders[table.order_first[1]:]))
    seeds = np.arange(1, n_trees + 1, dtype=np.uint64)
    lc = table.hdp_tables(50, 5, "level", seeds)
    block = np.diff(table.offsets) * table.orders
    lc_off = np.concatenate([[0], np.cumsum(block)])
    g = table.combination_index((0, 1, 2))
    tree_number = int(sum(table.orders[table.order_first[1]:g]))
    counts = table.block_at(g)
    for p in range(3):
        rest = [t for t in range(3) if t != p]
        arranged = np.transpose(counts, [3] + rest + [p])[..., 1:].reshape(-1, 3)
        est = hdp.hdp_forest([(arranged, [2, 4, 4])], n_iter=50, burn_in=5,
                             seeds=[seeds[tree_number + p]])[0]
        leaf = est[-32:].reshape(2, 4, 4, 3)
        view = lc[lc_off[g]:lc_off[g + 1]].reshape(4, 4, 4, 3, 2)
        for cell in itertools.product(range(4), repeat=3):
            for yy in range(2):
                got = view[cell + (p, yy)]
                if cell[p] == 0:
                    assert got == 0.0
                else:
                    want = np.log(leaf[(yy,) + tuple(cell[t] for t in rest) + (cell[p] - 1,)])
                    assert got == pytest.approx(want, abs=1e-14)


def test_ande_hdp_partial_fit_stream_and_persistence(chess, tmp_path):
    from seminaive import AnDE

    X, y = chess
    X = X.iloc[:, :12]

    def make():
        return AnDE(n=1, smoothing="hdp", n_iter=40, random_state=0)

    full = make().fit(X, y)
    expected = full._scores(X)
    chunked = make()
    for part in np.array_split(np.arange(len(y)), 3):
        chunked.partial_fit(X.iloc[part], y.iloc[part], classes=np.unique(y))
    np.testing.assert_allclose(chunked._scores(X), expected, atol=1e-12)
    path = tmp_path / "train.parquet"
    X.assign(target=y).to_parquet(path, row_group_size=170)
    streamed = make().fit_stream(path, target="target", chunk_rows=100)
    np.testing.assert_allclose(streamed._scores(X), expected, atol=1e-12)
    full.save(tmp_path / "ande.snb")
    loaded = AnDE.load(tmp_path / "ande.snb")
    np.testing.assert_array_equal(loaded._scores(X), expected)
    # differs from the m-estimates, and weights combine with it
    assert np.abs(AnDE(n=1).fit(X, y)._scores(X) - expected).max() > 1e-3
    weighted = AnDE(n=1, smoothing="hdp", n_iter=40, random_state=0, weights="mi").fit(X, y)
    assert np.all(np.isfinite(weighted._scores(X)))


def test_ande_hdp_refuses_what_it_does_not_support(chess):
    from seminaive import AnDE

    X, y = chess
    for model in (AnDE(n="auto", smoothing="hdp"),
                  AnDE(n=1, smoothing="hdp", numeric="gaussian")):
        with pytest.raises(ValueError, match="smoothing"):
            model.fit(X.iloc[:50], y.iloc[:50])


def test_hdp_memory_is_estimated_and_refused_before_allocating(chess):
    """The sampler's trees are estimated (hdp_bytes dense, sparse_hdp_bytes for the
    learners' trees of occurring nodes) and refused with the budget's error before any
    allocation, as the count tables are."""
    from seminaive.exceptions import TableTooLargeError

    X, y = chess
    model = KDB(k=5, smoothing="hdp", n_iter=5).fit(X, y)
    trees, _, _ = model._hdp_tree_counts()
    need = hdp.hdp_bytes(trees)
    assert need >= 24 * sum(int(hdp.tree_levels(d).sum()) * c.shape[1] for c, d in trees)
    with pytest.raises(TableTooLargeError, match="hierarchical Dirichlet process"):
        hdp.hdp_forest(trees, n_iter=2, burn_in=0, seeds=np.arange(len(trees)),
                       max_bytes=need - 1)
    hdp.hdp_forest(trees, n_iter=2, burn_in=0, seeds=np.arange(len(trees)), max_bytes=need)
    # the learner's trees hold only the occurring nodes: their bytes decide
    used = model.table_.counts.nbytes + model._counts.arrays.nbytes
    sparse_need = hdp.sparse_hdp_bytes(model._hdp_sampler_trees()[1])
    assert sparse_need < need
    budget = used + sparse_need - 1
    KDB(k=5, max_table_bytes=budget).fit(X, y)  # the counts fit the budget, the trees do not
    with pytest.raises(TableTooLargeError, match="hierarchical Dirichlet process"):
        KDB(k=5, smoothing="hdp", n_iter=5, max_table_bytes=budget).fit(X, y)
    KDB(k=5, smoothing="hdp", n_iter=5, max_table_bytes=budget + 1).fit(X, y)


def test_thread_shares_balance_and_keep_the_estimates():
    """Graham's rule puts the largest trees on different threads; every tree is sampled
    once, and the estimates do not depend on the shares (one random stream per tree)."""
    order, start = hdp.thread_shares([5.0, 1.0, 4.0, 1.0, 1.0], n_threads=2)
    shares = [sorted(order[start[w]:start[w + 1]].tolist()) for w in range(2)]
    assert sorted(order.tolist()) == [0, 1, 2, 3, 4]
    assert shares == [[0, 3], [1, 2, 4]]  # loads 6 and 6
    order1, start1 = hdp.thread_shares([3.0, 2.0], n_threads=8)
    assert start1.tolist() == [0, 1, 2] and order1.tolist() == [0, 1]
    rng = np.random.default_rng(3)
    trees = [(rng.poisson(lam, size=(6, 3)), [2, 3]) for lam in (0.5, 9.0, 2.0)]
    sparse = [hdp.sparse_from_dense(c, np.array(d), 2)[1:] for c, d in trees]
    kwargs = dict(n_iter=30, burn_in=3, tying="level", seeds=[4, 5, 6])
    together = hdp.sparse_hdp_forest(sparse, **kwargs)
    for j, tree in enumerate(sparse):
        alone = hdp.sparse_hdp_forest([tree], **dict(kwargs, seeds=[4 + j]))[0]
        np.testing.assert_array_equal(together[j], alone)


def test_no_kernel_takes_more_than_twelve_positional_parameters():
    # long argument lists are bundled in named tuples (SamplerSettings, StirlingCache,
    # SparseTree, FarMemo, ForestLayout)
    import inspect

    for name, fn in vars(hdp).items():
        fn = getattr(fn, "py_func", fn)
        if inspect.isfunction(fn) and fn.__module__ == hdp.__name__:
            params = inspect.signature(fn).parameters.values()
            positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                          p.POSITIONAL_OR_KEYWORD)]
            assert len(positional) <= 12, (name, len(positional))


def test_early_stop_is_the_fixed_run_cut_short():
    """With ``tol`` a tree stops at a check (burn-in + a multiple of ``CHECK_EVERY``
    kept iterations) and its estimates are exactly those of the fixed-count run of that
    many iterations; without ``tol`` the iterations are ``n_iter``; a tree that reaches
    ``n_iter`` unconverged is reported negative."""
    rng = np.random.default_rng(7)
    trees = [(rng.poisson(lam, size=(6, 3)), [2, 3]) for lam in (0.5, 9.0, 2.0)]
    sparse = [hdp.sparse_from_dense(c, np.array(d), 2)[1:] for c, d in trees]
    kwargs = dict(n_iter=3000, burn_in=20, tying="level", seeds=[4, 5, 6])
    ran = np.zeros(3, dtype=np.int64)
    fixed = hdp.sparse_hdp_forest(sparse, **kwargs, iterations=ran)
    assert ran.tolist() == [3000] * 3
    stopped = hdp.sparse_hdp_forest(sparse, **kwargs, tol=0.01, iterations=ran)
    assert np.all(ran > 0) and np.all(ran < 3000)
    assert np.all((ran - 20) % hdp.CHECK_EVERY == 0) and np.all(ran - 20 >= 2 * hdp.CHECK_EVERY)
    for j, tree in enumerate(sparse):
        short = hdp.sparse_hdp_forest([tree], **dict(kwargs, n_iter=int(ran[j]),
                                                      seeds=[4 + j]))[0]
        np.testing.assert_array_equal(stopped[j], short)
        np.testing.assert_allclose(stopped[j], fixed[j], atol=0.05)
    hdp.sparse_hdp_forest(sparse, **dict(kwargs, n_iter=150), tol=1e-12, iterations=ran)
    assert ran.tolist() == [-150] * 3


def test_a_small_forest_is_one_share_and_the_threads_give_its_estimates(monkeypatch):
    """A forest whose work (cost x iterations) is at most ``SERIAL_WORK`` gets one share
    (sampled in the calling thread), a larger one a share per thread; the estimates and
    iterations are bit-identical either way and whatever the number of threads."""
    import numba

    rng = np.random.default_rng(11)
    trees = [(rng.poisson(lam, size=(6, 3)), [2, 3]) for lam in (0.5, 9.0, 2.0, 4.0, 1.0)]
    sparse = [hdp.sparse_from_dense(c, np.array(d), 2)[1:] for c, d in trees]
    cost = sum(hdp.sampler_cost(np.size(p), c) for p, _, c in sparse)
    _, _, start = hdp.forest_layout(sparse, what="x", need=0, serial=cost)
    assert start.tolist() == [0, 5]
    _, _, start = hdp.forest_layout(sparse, what="x", need=0, serial=cost - 1)
    assert start.size - 1 == min(numba.get_num_threads(), 5)
    kwargs = dict(n_iter=40, burn_in=5, tying="level", seeds=[3, 1, 4, 1, 5])
    results = []
    for serial_work, threads in ((10**9, numba.get_num_threads()), (0, numba.get_num_threads()),
                                 (0, 1)):
        monkeypatch.setattr(hdp, "SERIAL_WORK", serial_work)
        ran = np.zeros(5, dtype=np.int64)
        before = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            results.append((hdp.sparse_hdp_forest(sparse, **kwargs, iterations=ran), ran))
        finally:
            numba.set_num_threads(before)
    for est, ran in results[1:]:
        np.testing.assert_array_equal(ran, results[0][1])
        for a, b in zip(est, results[0][0], strict=True):
            np.testing.assert_array_equal(a, b)


def _far_forest():
    """A forest whose leaves fit an exact table of n <= 16 while the sums of some inner
    nodes do not (those trees need the far path), with the table and its bound."""
    rng = np.random.default_rng(5)
    trees = [(rng.poisson(lam, size=(6, 3)), [2, 3]) for lam in (0.3, 6.0, 1.0, 5.0)]
    trees = [(np.minimum(c, 16), d) for c, d in trees]
    sparse = [hdp.sparse_from_dense(c, np.array(d), 2)[1:] for c, d in trees]
    forest, order, share_start = hdp.forest_layout(sparse, what="x", need=0)
    return forest, order, share_start, hdp.stirling_table(16), 16


def test_the_far_path_compiles_only_when_a_tree_needs_it_and_changes_nothing():
    """Without the far path (:func:`beyond_function` ``(False)``) a tree that needs a log
    Stirling number beyond the exact table stops and is marked ``NEEDS_FAR``, a tree that
    does not runs as with it; :func:`sample_forest` samples the marked trees again with the
    far path: estimates and iterations bit-identical to the far path from the start."""
    forest, order, share_start, table, n_exact = _far_forest()
    stirling = hdp.StirlingCache(table, n_exact, hdp._ZETA)
    settings = hdp.SamplerSettings(60, 5, 2, True, 2.0)
    seeds = np.arange(1, 5, dtype=np.uint64)
    size = int(forest.out_offsets[-1])
    runs = {}
    for far in (True, False):
        out, ran = np.zeros(size), np.zeros(4, dtype=np.int64)
        hdp.sample_trees(forest, settings, seeds, stirling, out, order, 0, 4, ran, None,
                         hdp.beyond_function(far), None)
        runs[far] = (out, ran)
    stopped = runs[False][1] == hdp.NEEDS_FAR
    assert 0 < stopped.sum() < 4  # some trees need the far path, some do not
    assert np.all(runs[True][1] == 60)
    oo = forest.out_offsets
    for j in np.flatnonzero(~stopped):
        np.testing.assert_array_equal(runs[False][0][oo[j]:oo[j + 1]],
                                      runs[True][0][oo[j]:oo[j + 1]])
    for far in (True, False):
        out, ran = np.zeros(size), np.zeros(4, dtype=np.int64)
        hdp.sample_forest(forest, settings, seeds, stirling, out, order, share_start, ran,
                          far=far)
        np.testing.assert_array_equal(out, runs[True][0])
        np.testing.assert_array_equal(ran, runs[True][1])


def test_the_far_function_is_the_far_path():
    """:func:`beyond_function` ``(True)`` computes :func:`_log_stirling_far` bit for bit
    beyond the table (closed forms, Newton's identities, the saddle point); the stand-in
    gives NaN."""
    far, none = hdp.beyond_function(True).ctypes, hdp.beyond_function(False).ctypes
    table = hdp.stirling_table(16)
    for n in (17, 40, 3000):
        for t in (0, 1, 2, 5, 12, 13, n // 2, n - 4, n - 3, n - 2, n - 1, n, n + 1):
            want = hdp._log_stirling_far(n, t, table, 16, hdp._ZETA)
            assert far(n, t) == want, (n, t)  # -inf == -inf where S(n, t) = 0
            assert math.isnan(none(n, t))


def test_polygamma_compiles_one_specialisation(tmp_path):
    """The sampler's special functions pass the order of :func:`_polygamma` as an int64,
    not a literal (one specialisation, not one per order).  Counted in a fresh process
    with an empty compile cache: a kernel read from the cache does not load the kernels it
    calls, so in a process whose callers came from the cache ``_polygamma`` shows no
    signature at all."""
    script = (
        "import json\n"
        "from numba.core import types\n"
        "from seminaive.kernels import hdp\n"
        "hdp._log_stirling_saddle(3000, 100)\n"
        "hdp.digamma(2.5)\n"
        "sigs = hdp._polygamma.signatures\n"
        "print(json.dumps([len(sigs), any(isinstance(sig[0], types.Literal) "
        "for sig in sigs)]))\n")
    n_signatures, literal = cold_json(script, tmp_path, timeout=900)
    assert n_signatures
    assert not literal
