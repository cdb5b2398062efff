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
