"""ESKDB (Zhang, Petitjean & Buntine 2020): members, orders, averaging, persistence."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import softmax

import seminaive
from seminaive import ESKDB, SKDB, FrequencyTable
from seminaive.datasets import load_kr_vs_kp
from seminaive.parts import HierarchicalEstimates
from seminaive.preprocessing import MDLDiscretizer
from seminaive.structure.eskdb import remap_codes, sample_orders


@pytest.fixture(scope="module")
def chess():
    X, y = load_kr_vs_kp()
    rows = np.arange(0, len(X), 5)[:600]  # both classes (the file is sorted by class)
    return X.iloc[rows, :16].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)


def test_sample_orders():
    mi = np.array([0.5, 0.0, 0.2, 0.9, 0.1])
    orders = sample_orders(mi, 6, np.random.RandomState(0))
    np.testing.assert_array_equal(orders[0], [3, 0, 2, 4, 1])
    assert len({tuple(o) for o in orders}) == 6
    for o in orders:
        assert sorted(o.tolist()) == list(range(5))
        assert o[-1] == 1  # zero mutual information: never drawn, appended last
    # drawn with probability proportional to I(X_i; Y) (eight attributes: redrawing an order
    # equal to the first is rare enough not to bias the first pick)
    mi = np.array([0.3, 0.1, 0.25, 0.05, 0.2, 0.15, 0.12, 0.08])
    firsts = [sample_orders(mi, 2, np.random.RandomState(s))[1][0] for s in range(400)]
    share = np.bincount(firsts, minlength=mi.size) / 400
    np.testing.assert_allclose(share, mi / mi.sum(), atol=0.06)


def test_one_member_with_m_estimates_is_skdb(chess):
    X, y = chess
    ens = ESKDB(n_estimators=1, k=3, smoothing="m_estimate", random_state=0).fit(X, y)
    single = SKDB(k=3).fit(X, y)
    np.testing.assert_allclose(ens.predict_proba(X), single.predict_proba(X), atol=1e-12)
    member = ens.estimators_[0]
    assert (member.k_, member.n_selected_features_) == (single.k_, single.n_selected_features_)


def test_members_average_probabilities(chess):
    X, y = chess
    ens = ESKDB(n_estimators=3, k=2, n_iter=60, random_state=1).fit(X, y)
    codes = ens._storage_codes(X)
    members = [softmax(m._scores(X, codes), axis=1) for m in ens.estimators_]
    np.testing.assert_allclose(ens.predict_proba(X), np.mean(members, axis=0), atol=1e-12)
    assert len({tuple(o) for o in ens.orders_}) == 3
    np.testing.assert_array_equal(ens.orders_[0], np.argsort(-ens.mutual_info_, kind="stable"))
    for member, order in zip(ens.estimators_, ens.orders_, strict=True):
        np.testing.assert_array_equal(member.order_, order)
        assert member.encoder_ is ens.encoder_ and member.table_ is ens.table_


def test_same_random_state_same_ensemble(chess, tmp_path):
    X, y = chess
    a = ESKDB(n_estimators=3, k=2, n_iter=60, random_state=5).fit(X, y)
    b = ESKDB(n_estimators=3, k=2, n_iter=60, random_state=5).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    path = tmp_path / "eskdb.snb"
    a.save(path)
    loaded = seminaive.load(path)
    np.testing.assert_array_equal(loaded.predict_proba(X), a.predict_proba(X))
    np.testing.assert_array_equal(loaded.orders_, a.orders_)


def test_partial_fit_warns_on_the_second_chunk(chess):
    X, y = chess
    model = ESKDB(n_estimators=2, k=2, n_iter=30, random_state=0)
    model.partial_fit(X.iloc[:300], y.iloc[:300], classes=np.unique(y))
    orders = model.orders_.copy()
    with pytest.warns(UserWarning, match="ESKDB.partial_fit keeps the members"):
        model.partial_fit(X.iloc[300:], y.iloc[300:])
    np.testing.assert_array_equal(model.orders_, orders)
    assert model.table_.counts[: model.table_.n_classes].sum() == len(y)


def test_bad_parameters(chess):
    X, y = chess
    for bad in (dict(n_estimators=0), dict(k=-1), dict(tying="x"), dict(n_iter=0)):
        with pytest.raises(ValueError):
            ESKDB(**bad).fit(X, y)


# ------------------------------------------------------ per-member randomised discretisation


@pytest.fixture(scope="module")
def mixed():
    """Numeric and nominal columns, two classes."""
    rng = np.random.default_rng(11)
    n = 1200
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "c": pd.Categorical(rng.choice(["u", "v", "w"], size=n)),
                      "d": rng.normal(size=n)})
    logit = 1.5 * X["a"] - X["b"] ** 2 + (X["c"] == "u") + 0.5 * X["d"]
    y = pd.Series(np.where(logit + rng.logistic(size=n) > 0, "pos", "neg"))
    return X, y


def test_members_draw_their_own_cut_points(mixed):
    X, y = mixed
    model = ESKDB(n_estimators=3, k=2, n_iter=40, random_state=0).fit(X, y)
    cuts = model.member_cut_points_
    assert len(cuts) == 3 and all(len(c) == 3 for c in cuts)  # three numeric columns
    assert any(not np.array_equal(cuts[0][0], c[0]) for c in cuts[1:])
    union = model.encoder_.cut_points()
    for member_cuts in cuts:
        for u, c in zip(union, member_cuts, strict=True):
            assert c.size >= 1 and np.isin(c, u).all()
    again = ESKDB(n_estimators=3, k=2, n_iter=40, random_state=0).fit(X, y)
    for p, q in zip(cuts, again.member_cut_points_, strict=True):
        for a, b in zip(p, q, strict=True):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(model.predict_proba(X), again.predict_proba(X))


def test_member_tables_are_counts_on_the_member_bins(mixed):
    X, y = mixed
    model = ESKDB(n_estimators=3, k=2, n_iter=40, random_state=2).fit(X, y)
    numeric = model.encoder_.numeric_columns_
    y_idx = np.searchsorted(model.classes_, y)
    for member, cuts in zip(model.estimators_, model.member_cut_points_, strict=True):
        # the member's own bins, coded directly from the values
        codes = model._storage_codes(X).astype(np.int64)
        for t, col in enumerate(numeric):
            codes[:, col] = np.searchsorted(cuts[t], X.iloc[:, col].to_numpy()) + 1
        direct = FrequencyTable(member.table_.sizes - 1, 2, 2).add(codes, y_idx)
        np.testing.assert_array_equal(member.table_.counts, direct.counts)
        remapped = remap_codes(model._storage_codes(X), model._member_maps[
            model.estimators_.index(member)], member.table_.sizes)
        np.testing.assert_array_equal(remapped, codes)


def test_one_member_is_skdb_on_its_own_cut_points(mixed):
    X, y = mixed
    ens = ESKDB(n_estimators=1, k=2, n_iter=50, random_state=4).fit(X, y)
    member = ens.estimators_[0]
    disc = MDLDiscretizer().fit(X[["a", "b", "d"]], y)  # then given the member's cuts
    disc.cut_points_ = list(ens.member_cut_points_[0])
    disc.n_bins_ = np.array([c.size + 1 for c in disc.cut_points_])
    single = SKDB(k=2, smoothing="hdp", n_iter=50, discretizer=disc,
                  random_state=member.random_state).fit(X, y)
    np.testing.assert_array_equal(single.order_, ens.orders_[0])
    np.testing.assert_allclose(ens.predict_proba(X), single.predict_proba(X), atol=1e-12)


def test_one_member_shared_is_skdb_with_hdp(mixed):
    X, y = mixed
    ens = ESKDB(n_estimators=1, k=2, n_iter=50, random_state=4,
                discretization="shared").fit(X, y)
    assert ens.member_cut_points_ is None
    single = SKDB(k=2, smoothing="hdp", n_iter=50,
                  random_state=ens.estimators_[0].random_state).fit(X, y)
    np.testing.assert_allclose(ens.predict_proba(X), single.predict_proba(X), atol=1e-12)


def test_nominal_only_data_is_unchanged(chess):
    X, y = chess
    default = ESKDB(n_estimators=3, k=2, n_iter=40, random_state=3).fit(X, y)
    shared = ESKDB(n_estimators=3, k=2, n_iter=40, random_state=3,
                   discretization="shared").fit(X, y)
    assert default.member_cut_points_ is None
    np.testing.assert_array_equal(default.predict_proba(X), shared.predict_proba(X))
    np.testing.assert_array_equal(default.orders_, shared.orders_)


def test_per_member_save_load_partial_fit_and_stream(mixed, tmp_path):
    X, y = mixed
    model = ESKDB(n_estimators=3, k=2, n_iter=40, random_state=1).fit(X, y)
    path = tmp_path / "eskdb.snb"
    model.save(path)
    loaded = seminaive.load(path)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    for p, q in zip(loaded.member_cut_points_, model.member_cut_points_, strict=True):
        for a, b in zip(p, q, strict=True):
            np.testing.assert_array_equal(a, b)
    # partial_fit: cut points, orders and members kept after the first chunk
    chunked = ESKDB(n_estimators=3, k=2, n_iter=40, random_state=1)
    chunked.partial_fit(X.iloc[:700], y.iloc[:700], classes=np.unique(y))
    cuts = [[c.copy() for c in m] for m in chunked.member_cut_points_]
    with pytest.warns(UserWarning, match="cut points"):
        chunked.partial_fit(X.iloc[700:], y.iloc[700:])
    for p, q in zip(cuts, chunked.member_cut_points_, strict=True):
        for a, b in zip(p, q, strict=True):
            np.testing.assert_array_equal(a, b)
    for member in chunked.estimators_:
        assert member.table_.counts[:2].sum() == len(y)
    # streaming: the same model as fit when the sample holds every row
    frame = X.assign(label=y)
    streamed = ESKDB(n_estimators=3, k=2, n_iter=40, random_state=1).fit_stream(
        [frame.iloc[:500], frame.iloc[500:]], "label")
    np.testing.assert_allclose(streamed.predict_proba(X), model.predict_proba(X),
                               atol=1e-12)


def test_bad_discretization(mixed):
    X, y = mixed
    with pytest.raises(ValueError, match="discretization"):
        ESKDB(discretization="each").fit(X, y)


def test_per_member_families_share_one_budget(mixed):
    X, y = mixed
    with pytest.raises(seminaive.TableTooLargeError, match="families of the 3 members"):
        ESKDB(n_estimators=3, k=3, n_iter=20, random_state=0,
              max_table_bytes=30_000).fit(X, y)


def test_cut_members_selected_one_at_a_time_share_one_budget(mixed):
    # with candidate_trees="cut" the members' trees over all K candidates, which do not fit
    # 30,000 bytes at once, are selected one at a time: the same model as without a budget;
    # refused when the next member's trees do not fit besides the pair tables and the cut
    # trees of the members before it
    X, y = mixed
    kw = dict(n_estimators=3, k=3, n_iter=20, random_state=0, candidate_trees="cut")
    np.testing.assert_array_equal(
        ESKDB(max_table_bytes=30_000, **kw).fit(X, y).predict_proba(X),
        ESKDB(max_table_bytes=None, **kw).fit(X, y).predict_proba(X))
    with pytest.raises(seminaive.TableTooLargeError, match="over all K=3 candidates"):
        ESKDB(max_table_bytes=25_000, **kw).fit(X, y)


def test_defaults_are_the_papers_settings():
    # Zhang, Petitjean & Buntine (2020), their experiments' run settings: 20 members, K = 5,
    # 1000 Gibbs iterations (burn-in min(1000, iterations / 10) = 100), level tying, RMSE
    model = ESKDB()
    params = model.get_params()
    assert (params["n_estimators"], params["k"], params["n_iter"], params["tying"],
            params["loss"], params["smoothing"], params["discretization"]) == (
        20, 5, 1000, "level", "rmse", "hdp", "per_member")
    assert model._part(HierarchicalEstimates).burn_in(model) == 100


def test_members_sample_together_as_alone(chess):
    """The members' HDP trees are sampled in one forest, each tree with the seed it has when
    its member samples alone: the same estimates; ``n_iter_`` is ``n_iter``."""
    X, y = chess
    ens = ESKDB(n_estimators=3, k=2, n_iter=40, random_state=2).fit(X, y)
    assert ens.n_iter_.tolist() == [40, 40, 40]
    for member in ens.estimators_:
        together = member._trees.estimates.copy()
        alone = member._estimate_trees().estimates
        np.testing.assert_array_equal(together, alone)
    hls = ESKDB(n_estimators=2, k=2, smoothing="hls", random_state=2).fit(X, y)
    assert hls.n_iter_.tolist() == [0, 0]


def test_tol_stops_the_sampler_early(chess):
    """``tol`` > 0: every member's trees stop at a check before ``n_iter``, deterministically,
    close to the fixed run; a tolerance never met warns and runs ``n_iter``."""
    from sklearn.exceptions import ConvergenceWarning

    from seminaive.kernels.hdp import CHECK_EVERY

    X, y = chess
    fixed = ESKDB(n_estimators=2, k=2, n_iter=2000, random_state=3).fit(X, y)
    early = ESKDB(n_estimators=2, k=2, n_iter=2000, tol=0.01, random_state=3).fit(X, y)
    again = ESKDB(n_estimators=2, k=2, n_iter=2000, tol=0.01, random_state=3).fit(X, y)
    assert np.all(early.n_iter_ < 2000)
    assert np.all((early.n_iter_ - 200) % CHECK_EVERY == 0)
    np.testing.assert_array_equal(early.predict_proba(X), again.predict_proba(X))
    np.testing.assert_allclose(early.predict_proba(X), fixed.predict_proba(X), atol=0.05)
    with pytest.warns(ConvergenceWarning, match="raise n_iter or tol") as caught:
        short = ESKDB(n_estimators=2, k=2, n_iter=120, tol=1e-12, random_state=3).fit(X, y)
    assert short.n_iter_.tolist() == [120, 120]
    assert {w.filename for w in caught} == {__file__}  # the user's line
    with pytest.raises(ValueError, match="tol"):
        ESKDB(tol=-1.0).fit(X, y)


def test_leave_one_out_and_scores_do_not_depend_on_the_threads(chess):
    # the members' leave-one-out pass and the estimate trees' scoring hand ranges of rows to
    # Python threads: one thread and two give the same models, and the same losses and
    # probabilities up to the order of the sums (the rows' blocks follow the threads)
    import numba

    X, y = chess
    fits = []
    before = numba.get_num_threads()
    try:
        for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(threads)
            model = ESKDB(n_estimators=3, k=2, smoothing="hls", random_state=0).fit(X, y)
            fits.append(([m.loo_loss_ for m in model.estimators_], model.predict_proba(X),
                         [(m.k_, m.n_selected_features_) for m in model.estimators_]))
    finally:
        numba.set_num_threads(before)
    for one, two in zip(fits[0][0], fits[1][0], strict=True):
        np.testing.assert_allclose(one, two, rtol=1e-12)
    np.testing.assert_allclose(fits[0][1], fits[1][1], rtol=1e-12, atol=1e-15)
    assert fits[0][2] == fits[1][2]
    assert np.isfinite(fits[0][0][0]).any()


@pytest.mark.parametrize("runs", [True, False])
def test_aggregated_table_is_the_count_of_the_mapped_codes(runs):
    # a member's pair table is aggregated from the ensemble's: summed along each axis when
    # every member value is a run of consecutive values (cut points dropped), cell by cell
    # otherwise; both are the table counted directly on the mapped codes
    from seminaive.structure.eskdb import aggregate_table

    rng = np.random.default_rng(4)
    n_values = np.array([5, 3, 6, 2])
    codes = np.stack([rng.integers(0, v + 1, 300) for v in n_values], axis=1)  # 0: missing
    y = rng.integers(0, 3, 300)
    table = FrequencyTable(n_values, 3, 2).add(codes, y)
    lut = np.zeros((4, 7), dtype=np.int64)
    lut[0, :6] = [0, 1, 1, 2, 3, 3] if runs else [0, 2, 1, 1, 3, 2]
    lut[1, :4] = [0, 1, 2, 3]
    lut[2, :7] = [0, 1, 1, 1, 2, 2, 3]
    lut[3, :3] = [0, 1, 1]
    new_values = np.array([3, 3, 3, 1])
    member = aggregate_table(table, lut, new_values)
    mapped = np.stack([lut[c, codes[:, c]] for c in range(4)], axis=1)
    direct = FrequencyTable(new_values, 3, 2).add(mapped, y)
    np.testing.assert_array_equal(member.counts, direct.counts)
    assert member.n_rows == table.n_rows


def test_members_hls_trees_fitted_together_as_alone(mixed):
    """With ``smoothing="hls"`` the members' trees are fitted as one forest: every member's
    estimates are those it fits alone, bit for bit; ``n_iter_`` stays 0."""
    X, y = mixed
    ens = ESKDB(n_estimators=4, k=2, smoothing="hls", random_state=5).fit(X, y)
    assert ens.n_iter_.tolist() == [0, 0, 0, 0]
    for member in ens.estimators_:
        together = member._trees.estimates.copy()
        assert together.size > 0
        alone = member._estimate_trees().estimates  # no batch: the member's own forest
        np.testing.assert_array_equal(together, alone)


def test_families_bytes_bound_and_exact(mixed):
    """The members' count trees are measured exactly only when a bound (every level has at
    most as many nodes as the keys) may not fit: the bound is never below the exact bytes,
    and a room below the bound gives the exact bytes of :func:`_sparse.tree_bytes`."""
    from seminaive.structure import _sparse
    from seminaive.structure.eskdb import _families_bytes

    X, y = mixed
    ens = ESKDB(n_estimators=3, k=2, smoothing="hls", random_state=0).fit(X, y)
    k = ens.table_.n_classes
    families = []
    for member in ens.estimators_:
        sizes = member.table_.sizes
        counts = member._counts
        for i in range(member.table_.n_attributes):
            chain = [int(p) for p in counts.chain[i, :int(counts.depth[i])]]
            codes = remap_codes(ens._storage_codes(X), ens._member_maps[
                ens.estimators_.index(member)], sizes).astype(np.int64)
            key = np.zeros(len(X), dtype=np.int64)  # a family's key: parents' codes, then i's
            for p in chain:
                key = key * int(sizes[p]) + codes[:, p]
            key = key * int(sizes[i]) + codes[:, i]
            families.append(((i, *chain), np.unique(key), sizes))
    exact = sum(_sparse.tree_bytes(t, keys, sizes, k) for t, keys, sizes in families)
    bound = _families_bytes(families, k, room=10**15)
    assert bound >= exact > 0
    assert _families_bytes(families, k, room=bound - 1) == exact
    assert _families_bytes(families, k, room=0) == exact


@pytest.mark.parametrize("weights", [None, "whole", "fractional"])
def test_aggregated_blocks_are_the_count_of_the_mapped_codes(weights):
    # the members' pair tables read off the ensemble's blocks cumulated once: the table
    # counted directly on every member's mapped codes, and the sums along the axes of
    # aggregate_table bit for bit; fractional weights: not whole counts, refused
    from seminaive.structure.eskdb import aggregate_blocks, aggregate_table, whole_counts

    rng = np.random.default_rng(8)
    n_values = np.array([5, 3, 6, 2])
    codes = np.stack([rng.integers(0, v + 1, 400) for v in n_values], axis=1)  # 0: missing
    y = rng.integers(0, 3, 400)
    w = {None: None, "whole": rng.integers(1, 4, 400).astype(float),
         "fractional": rng.random(400)}[weights]
    table = FrequencyTable(n_values, 3, 2).add(codes, y, w)
    assert whole_counts(table) == (weights != "fractional")
    luts, sizes = [], []
    for first, third in [([0, 1, 1, 2, 3, 3], [0, 1, 1, 1, 2, 2, 3]),
                         ([0, 1, 2, 3, 4, 5], [0, 1, 2, 2, 2, 2, 2]),
                         ([0, 1, 1, 1, 1, 1], [0, 1, 2, 3, 4, 5, 6])]:
        lut = np.zeros((4, 7), dtype=np.int64)
        lut[0, :6], lut[2, :7] = first, third
        lut[1, :4] = [0, 1, 2, 3]
        lut[3, :3] = [0, 1, 1]
        luts.append(lut)
        sizes.append(np.array([first[-1], 3, third[-1], 1]))
    members = [FrequencyTable(s, 3, 2) for s in sizes]
    assert aggregate_blocks(table, luts, members)
    for lut, s, member in zip(luts, sizes, members, strict=True):
        mapped = np.stack([lut[c, codes[:, c]] for c in range(4)], axis=1)
        direct = FrequencyTable(s, 3, 2).add(mapped, y, w)
        summed = aggregate_table(table, lut, s)
        if weights != "fractional":
            assert member.counts.tobytes() == summed.counts.tobytes()
            np.testing.assert_array_equal(member.counts, direct.counts)
        else:
            np.testing.assert_allclose(member.counts, direct.counts, rtol=1e-12, atol=1e-12)
        assert member.n_rows == table.n_rows
    shuffled = luts[0].copy()
    shuffled[0, :6] = [0, 2, 1, 1, 3, 2]  # not runs of consecutive values: refused
    assert not aggregate_blocks(table, [shuffled], [FrequencyTable(sizes[0], 3, 2)])


def test_member_tables_from_cumulated_blocks_are_the_summed_tables(mixed):
    # an ensemble fitted with whole weights: every member's pair table (from the cumulated
    # blocks) is aggregate_table's, bit for bit
    from seminaive.structure.eskdb import aggregate_table, whole_counts

    X, y = mixed
    model = ESKDB(n_estimators=3, k=2, smoothing="hls", random_state=1).fit(
        X, y, sample_weight=np.full(len(y), 2.0))
    assert whole_counts(model.table_)
    for lut, member in zip(model._member_maps, model.estimators_, strict=True):
        summed = aggregate_table(model.table_, lut, member.table_.sizes - 1)
        assert member.table_.counts.tobytes() == summed.counts.tobytes()


@pytest.mark.parametrize("data", ["chess", "mixed"])
def test_members_leave_one_out_on_threads_as_one_after_another(data, request, monkeypatch):
    """The members' leave-one-out passes run on two threads (shared discretisation and per
    member): every member's losses and the ensemble's probabilities the same bit for bit
    as member by member on one thread."""
    from seminaive.structure import eskdb

    X, y = request.getfixturevalue(data)
    fitted = []
    for threads in (1, 2):
        monkeypatch.setattr(eskdb, "get_num_threads", lambda threads=threads: threads)
        fitted.append(ESKDB(n_estimators=5, k=2, smoothing="hls", random_state=0).fit(X, y))
    one, two = fitted
    for a, b in zip(one.estimators_, two.estimators_, strict=True):
        np.testing.assert_array_equal(b.loo_loss_, a.loo_loss_)
        assert (b.k_, b.n_selected_features_) == (a.k_, a.n_selected_features_)
    np.testing.assert_array_equal(two.predict_proba(X), one.predict_proba(X))


@pytest.mark.parametrize("data", ["chess", "mixed"])
def test_members_selection_passes_on_threads_refuse_as_one_after_another(data, request,
                                                                          monkeypatch):
    """The members' selection passes (their count trees) run on two threads, and the budget
    is then checked member by member: for budgets from below the pair tables to above the
    whole model, the fit on two threads refuses with the same message as member by member
    on one thread (some of them at a member's count trees, the check made after the
    threads), or gives the same probabilities bit for bit."""
    from seminaive.structure import eskdb

    X, y = request.getfixturevalue(data)
    params = {"n_estimators": 4, "k": 2, "smoothing": "hls", "random_state": 0}
    whole = ESKDB(**params).fit(X, y)
    total = sum(m._held_bytes() for m in whole.estimators_) + sum(
        {id(t): t.nbytes for t in [whole.table_, *(m.table_ for m in whole.estimators_)]}
        .values())
    outcomes = {1: [], 2: []}
    for threads in (1, 2):
        monkeypatch.setattr(eskdb, "get_num_threads", lambda threads=threads: threads)
        for share in np.linspace(0.2, 1.2, 21):
            try:
                fitted = ESKDB(max_table_bytes=int(share * total), **params).fit(X, y)
            except seminaive.TableTooLargeError as error:
                outcomes[threads].append(("refused", str(error)))
            else:
                outcomes[threads].append(("fitted", fitted.predict_proba(X).tobytes()))
    assert outcomes[2] == outcomes[1]
    if data == "chess":  # (mixed: per-member discretisations, whose members are selected
        # one at a time when their trees do not fit together: there the pair tables refuse
        # every budget that the members' trees alone would)
        assert any(kind == "refused" and text.startswith("the family counts")
                   for kind, text in outcomes[1])
    assert any(kind == "fitted" for kind, _ in outcomes[1])


def test_members_on_threads_leave_the_warning_filters_as_they_were(monkeypatch):
    """Two members' calls whose ``catch_warnings`` blocks overlap (member 1 enters after
    member 0 and leaves after it) would leave member 0's filter behind; the filters after
    the members' calls are those before them."""
    import threading
    import warnings

    from seminaive.structure import eskdb

    monkeypatch.setattr(eskdb, "get_num_threads", lambda: 2)
    zero_in, one_in, zero_out = threading.Event(), threading.Event(), threading.Event()

    def call(j):
        if j == 0:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="member 0")
                zero_in.set()
                assert one_in.wait(timeout=10)
            zero_out.set()
        else:
            assert zero_in.wait(timeout=10)
            with warnings.catch_warnings():  # saves the filters with member 0's
                warnings.filterwarnings("ignore", message="member 1")
                one_in.set()
                assert zero_out.wait(timeout=10)
        return j

    before = list(warnings.filters)
    assert eskdb._in_member_order(call, 2) == [0, 1]
    assert warnings.filters == before


def _apart_data(n=20000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _apart_budget(union):
    """A budget under the union route's pair tables (the ensemble's over the union of the
    members' cut points and every member's) but over the members' own, for the cut points
    of the fitted ``union``."""
    from seminaive.tables import estimate_table_bytes
    enc, k = union.encoder_, union.table_.n_classes
    pairs = estimate_table_bytes(enc.n_values_, k, 2)["total"]
    members = sum(estimate_table_bytes(v, k, 2)["total"]
                  for v in union._planned_member_values(enc))
    return pairs + members - 1


@pytest.mark.parametrize("smoothing", ["hdp", "hls"])
def test_members_count_their_own_pair_tables(smoothing):
    """When the union route's pair tables exceed max_table_bytes, every member counts its
    own from its own codes: the same model, bit for bit, as the union route."""
    X, y = _apart_data()
    w = np.random.default_rng(1).integers(0, 3, size=len(y)).astype(float)
    kw = dict(n_estimators=8, k=2, n_iter=30, smoothing=smoothing, random_state=3)
    union = ESKDB(max_table_bytes=None, **kw).fit(X, y, sample_weight=w)
    budget = _apart_budget(union)
    apart = ESKDB(max_table_bytes=budget, **kw).fit(X, y, sample_weight=w)
    assert union.table_.max_order == 2 and apart.table_.max_order == 1
    assert apart.conditional_mutual_info_ is None
    np.testing.assert_array_equal(union.orders_, apart.orders_)
    for a, b in zip(union.estimators_, apart.estimators_, strict=True):
        np.testing.assert_array_equal(a.table_.counts, b.table_.counts)
        np.testing.assert_array_equal(a.table_.sizes, b.table_.sizes)
        np.testing.assert_array_equal(a.candidates_, b.candidates_)
        assert (a.k_, a.n_selected_features_) == (b.k_, b.n_selected_features_)
        np.testing.assert_array_equal(a.loo_loss_, b.loo_loss_)
    np.testing.assert_array_equal(union.predict_proba(X[:500]), apart.predict_proba(X[:500]))
    # the members' own tables alone over the budget: refused before counting, by name
    with pytest.raises(seminaive.TableTooLargeError, match="even when each member"):
        ESKDB(max_table_bytes=4096, **kw).fit(X, y)


def test_members_count_their_own_pair_tables_partial_fit():
    """partial_fit with the members counting their own pair tables adds every chunk to
    them: the same counts and model as the union route."""
    X, y = _apart_data()
    kw = dict(n_estimators=8, k=2, n_iter=30, smoothing="hls", random_state=3)
    budget = _apart_budget(ESKDB(max_table_bytes=None, **kw).fit(X[:12000], y[:12000]))
    models = [ESKDB(max_table_bytes=None, **kw), ESKDB(max_table_bytes=budget, **kw)]
    with pytest.warns(UserWarning):
        for model in models:
            model.partial_fit(X[:12000], y[:12000], classes=[0, 1])
            model.partial_fit(X[12000:], y[12000:])
    union, apart = models
    assert union.table_.max_order == 2 and apart.table_.max_order == 1
    for a, b in zip(union.estimators_, apart.estimators_, strict=True):
        np.testing.assert_array_equal(a.table_.counts, b.table_.counts)
        assert a.table_.n_rows == b.table_.n_rows == len(y)
    np.testing.assert_array_equal(union.predict_proba(X[:500]), apart.predict_proba(X[:500]))


def test_members_count_their_own_pair_tables_fit_stream():
    """fit_stream (chunks of a frame) with the members counting their own pair tables: the
    same counts and model as the union route."""
    X, y = _apart_data(12000)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])]).assign(label=y)
    chunks = [frame.iloc[:5000], frame.iloc[5000:]]
    kw = dict(n_estimators=8, k=2, n_iter=30, smoothing="hls", random_state=3)
    union = ESKDB(max_table_bytes=None, **kw).fit_stream(chunks, target="label",
                                                         progress=False)
    apart = ESKDB(max_table_bytes=_apart_budget(union), **kw).fit_stream(
        chunks, target="label", progress=False)
    assert union.table_.max_order == 2 and apart.table_.max_order == 1
    for a, b in zip(union.estimators_, apart.estimators_, strict=True):
        np.testing.assert_array_equal(a.table_.counts, b.table_.counts)
    np.testing.assert_array_equal(union.predict_proba(frame.iloc[:500, :-1]),
                                  apart.predict_proba(frame.iloc[:500, :-1]))


def test_members_own_pair_tables_save_and_load(tmp_path):
    """A model whose members counted their own pair tables is saved with them: loaded, the
    same tables and probabilities, bit for bit; partial_fit on it goes on as on the model
    itself; damaged pair counts are refused."""
    X, y = _apart_data(12000)
    # (the members' HLS estimates on their cut trees fit besides their own pair tables)
    kw = dict(n_estimators=5, k=2, n_iter=30, smoothing="hls", random_state=3,
              candidate_trees="cut")
    budget = _apart_budget(ESKDB(max_table_bytes=None, **kw).fit(X, y))
    apart = ESKDB(max_table_bytes=budget, **kw).fit(X, y)
    assert apart.table_.max_order == 1
    path = tmp_path / "apart.snb"
    apart.save(path)
    loaded = seminaive.load(path)
    assert loaded.table_.max_order == 1 and loaded.conditional_mutual_info_ is None
    for a, b in zip(apart.estimators_, loaded.estimators_, strict=True):
        np.testing.assert_array_equal(a.table_.counts, b.table_.counts)
        np.testing.assert_array_equal(a.table_.sizes, b.table_.sizes)
    np.testing.assert_array_equal(loaded.predict_proba(X[:2000]), apart.predict_proba(X[:2000]))
    with pytest.warns(UserWarning):
        apart.partial_fit(X[:3000], y[:3000])
        loaded.partial_fit(X[:3000], y[:3000])
    np.testing.assert_array_equal(loaded.predict_proba(X[:2000]), apart.predict_proba(X[:2000]))
    # hostile pair counts: negative, or missing
    from seminaive.persistence import _read_arrays
    header, arrays = _read_arrays(path)
    learned = {k[len("learned_"):]: v for k, v in arrays.items() if k.startswith("learned_")}
    bad = dict(learned, m0_pair_counts=-learned["m0_pair_counts"] - 1)
    with pytest.raises(ValueError, match="pair counts of member 0"):
        ESKDB(max_table_bytes=budget, **kw).fit(X, y)._set_learned_state(bad)
    fresh = ESKDB(max_table_bytes=budget, **kw).fit(X, y)
    gone = {k: v for k, v in learned.items() if k != "m1_pair_counts"}
    with pytest.raises(ValueError, match="pair counts must be in the model file"):
        fresh._set_learned_state(gone)


@pytest.mark.parametrize("smoothing", ["hdp", "hls", "m_estimate"])
@pytest.mark.parametrize("data", ["mixed", "chess"])
def test_cut_trees_same_model(data, smoothing, request, tmp_path):
    """With candidate_trees="cut" every member keeps, after its leave-one-out selection,
    only the count trees of its selected model: the same probabilities, bit for bit
    (fractional weights too, where the smoothing takes them), as with the trees over every
    candidate, fewer bytes; saved and loaded, and after partial_fit, the same again."""
    X, y = request.getfixturevalue(data)
    rng = np.random.default_rng(5)
    w = (rng.integers(0, 3, len(y)).astype(float) if smoothing == "hdp"
         else rng.random(len(y)) * 2)
    kw = dict(n_estimators=4, k=3, n_iter=30, smoothing=smoothing, random_state=0)
    models = {}
    for cut in (False, True):
        models[cut] = ESKDB(candidate_trees="cut" if cut else "keep", **kw).fit(
            X, y, sample_weight=w)
    whole, cut = models[False], models[True]
    assert all(m._cuts_trees for m in cut.estimators_)
    assert not any(m._cuts_trees for m in whole.estimators_)
    np.testing.assert_array_equal(cut.predict_proba(X), whole.predict_proba(X))
    held = [m._held_bytes() for m in cut.estimators_]
    assert all(h <= m._held_bytes() for h, m in zip(held, whole.estimators_, strict=True))
    if any(m.k_ < 3 or m.n_selected_features_ < X.shape[1] for m in cut.estimators_):
        assert sum(held) < sum(m._held_bytes() for m in whole.estimators_)
    for a, b in zip(whole.estimators_, cut.estimators_, strict=True):
        # the cut trees are the first levels of the whole ones: the same nodes and counts
        for i, levels in enumerate(b._counts.levels):
            assert len(levels) == 2 + int(b._counts.depth[i])
            for (c, p, v), (c0, p0, v0) in zip(levels, a._counts.levels[i], strict=False):
                np.testing.assert_array_equal(c, c0)
                np.testing.assert_array_equal(p, p0)
                np.testing.assert_array_equal(v, v0)
    for member in cut.estimators_:  # the trees of the selected model only
        chosen = set(member.selected_features_.tolist())
        depth = member._counts.depth
        for i, chain in enumerate(member._counts.chain):
            n = int((chain >= 0).sum())
            assert n == int(depth[i]) == (min(member.k_, int((member.candidates_[i] >= 0)
                                                              .sum())) if i in chosen else 0)
    path = tmp_path / "cut.snb"
    cut.save(path)
    loaded = seminaive.load(path)
    np.testing.assert_array_equal(loaded.predict_proba(X), cut.predict_proba(X))
    assert [m._held_bytes() for m in loaded.estimators_] == held
    # partial_fit on the cut members counts into their selected models' trees: the same
    # model as the uncut members' (whole counts: the sums are exact in any order)
    half = len(y) // 2
    chunked = {}
    for flag in (False, True):
        model = ESKDB(candidate_trees="cut" if flag else "keep", **kw)
        with pytest.warns(UserWarning):
            model.partial_fit(X.iloc[:half], y.iloc[:half], classes=np.unique(y))
            model.partial_fit(X.iloc[half:], y.iloc[half:])
        chunked[flag] = model
    np.testing.assert_array_equal(chunked[True].predict_proba(X),
                                  chunked[False].predict_proba(X))


def test_uncut_model_files_still_load(mixed, tmp_path):
    """A model file whose members hold their trees over every candidate (the default,
    candidate_trees="keep", and every file written before the option) loads and predicts
    as it was saved, its members uncut."""
    X, y = mixed
    whole = ESKDB(n_estimators=3, k=3, n_iter=30, random_state=2).fit(X, y)
    assert "m0_trees_cut" not in whole.learned_state()
    path = tmp_path / "whole.snb"
    whole.save(path)
    loaded = seminaive.load(path)
    assert not any(m.__dict__.get("_cut_chains") for m in loaded.estimators_)
    np.testing.assert_array_equal(loaded.predict_proba(X), whole.predict_proba(X))


def test_members_selected_one_at_a_time():
    """With candidate_trees="cut", when every member's count trees over all K candidates
    do not fit max_table_bytes at once, the members are selected one at a time (each
    member's trees cut before the next one's are built): the same model, bit for bit;
    refused, naming max_table_bytes, when not even one member's trees fit besides the pair
    tables."""
    from seminaive.structure import eskdb
    X, y = _apart_data(20000)
    X = np.column_stack([X, np.random.default_rng(7).normal(size=(len(y), 4))])
    kw = dict(n_estimators=6, k=5, n_iter=30, smoothing="hls", random_state=3,
              candidate_trees="cut")
    whole = ESKDB(max_table_bytes=None, **kw).fit(X, y)
    groups = []
    real = eskdb.ESKDB._next_group

    def record(self, members, start, needs, *rest):
        stop = real(self, members, start, needs, *rest)
        groups.append((start, stop))
        return stop

    eskdb.ESKDB._next_group = record
    try:
        grouped = ESKDB(max_table_bytes=1_000_000, **kw).fit(X, y)
    finally:
        eskdb.ESKDB._next_group = real
    assert groups == [(j, j + 1) for j in range(6)]
    np.testing.assert_array_equal(grouped.predict_proba(X[:3000]), whole.predict_proba(X[:3000]))
    with pytest.raises(seminaive.TableTooLargeError, match="even one member's at a time"):
        ESKDB(max_table_bytes=400_000, **kw).fit(X, y)
    with pytest.raises(seminaive.TableTooLargeError, match="cut trees of the members before"):
        ESKDB(max_table_bytes=500_000, **kw).fit(X, y)
