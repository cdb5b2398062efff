"""seminaive.dask on a LocalCluster with two worker processes: the counts are exactly those
of a single-machine fit, predictions equal, extra passes run through DaskSource."""

import operator
import sys

import cloudpickle
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

pytest.importorskip("distributed")
import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import seminaive.dask as sdask  # noqa: E402
from seminaive import A2DE, AODE, InputError, NaiveBayes  # noqa: E402
from seminaive.datasets import RandomBayesianNetwork  # noqa: E402

# functions defined here run on the workers, which cannot import this test module
cloudpickle.register_pickle_by_value(sys.modules[__name__])


class _PartitionPassAODE(AODE):
    """AODE with extra passes: class counts and code sums (map_reduce), rows (chunks)."""

    def _learn_from_counts(self, source):
        k = len(self.classes_)

        def per_chunk(codes, y, w):
            return np.concatenate([np.bincount(y, minlength=k).astype(float),
                                   codes.sum(axis=0, dtype=np.float64)])

        self.pass_result_ = source.map_reduce(per_chunk, operator.add)
        self.pass_rows_ = source.n_rows
        self.chunk_rows_ = sum(codes.shape[0] for codes, _, _ in source.chunks())


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                           dashboard_address=":0")
    with Client(cluster) as c:
        yield c
    cluster.close()


def make_frame(n=4000, seed=0):
    net = RandomBayesianNetwork(n_attributes=6, n_values=3, random_state=seed)
    X, y = net.sample(n, random_state=seed + 1)
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"a{i}": np.array(["lo", "mid", "hi"])[X[:, i]] for i in range(6)})
    frame.loc[rng.random(n) < 0.05, "a2"] = None
    frame["num"] = rng.normal(size=n) + y
    frame.loc[rng.random(n) < 0.03, "num"] = np.nan
    frame["cls"] = np.array(["no", "yes"])[y]
    return frame


@pytest.fixture(scope="module")
def frame():
    return make_frame()


def test_cluster_has_two_worker_processes(client):
    workers = client.scheduler_info()["workers"]
    assert len(workers) == 2
    assert len(set(client.run(lambda: __import__("os").getpid()).values())) == 2


@pytest.mark.parametrize("cls", [NaiveBayes, AODE, A2DE])
def test_dataframe_fit_equals_fit(client, frame, cls):
    ddf = dd.from_pandas(frame, npartitions=7)
    model = sdask.fit(cls(), ddf, target="cls", split_every=3)
    X = frame.drop(columns="cls")
    ref = cls().fit(X, frame["cls"])
    assert_array_equal(model.classes_, ref.classes_)
    assert model.encoder_.categories_ == ref.encoder_.categories_
    assert_array_equal(model.table_.counts, ref.table_.counts)
    assert model.table_.n_rows == ref.table_.n_rows
    predicted = sdask.predict(model, ddf).compute()
    assert_array_equal(predicted.to_numpy(dtype=object), ref.predict(X))
    proba = sdask.predict_proba(model, ddf).compute()
    assert list(proba.columns) == ["proba_no", "proba_yes"]
    assert_allclose(proba.to_numpy(), ref.predict_proba(X), rtol=0, atol=0)


def test_missing_as_value_and_separate_y(client, frame):
    X = frame.drop(columns="cls")
    ddf = dd.from_pandas(frame, npartitions=5)
    model = sdask.fit(AODE(missing="value"), ddf[list(X.columns)], ddf["cls"])
    ref = AODE(missing="value").fit(X, frame["cls"])
    assert model.encoder_.categories_ == ref.encoder_.categories_
    assert_array_equal(model.table_.counts, ref.table_.counts)


def test_dask_array(client):
    net = RandomBayesianNetwork(n_attributes=8, n_values=4, random_state=3)
    X, y = net.sample(5000, random_state=4)
    Xd = da.from_array(X, chunks=(900, 3))
    model = sdask.fit(A2DE(categorical_features="all"), Xd, da.from_array(y, chunks=1300))
    ref = A2DE(categorical_features="all").fit(X, y)
    assert_array_equal(model.table_.counts, ref.table_.counts)
    assert_array_equal(sdask.predict(model, Xd).compute(), ref.predict(X))
    assert_allclose(sdask.predict_proba(model, Xd).compute(), ref.predict_proba(X), rtol=0,
                    atol=0)
    numpy_y = sdask.fit(A2DE(categorical_features="all"), Xd, y)
    assert_array_equal(numpy_y.table_.counts, ref.table_.counts)


def test_extra_pass_through_dask_source(client, frame):
    ddf = dd.from_pandas(frame, npartitions=6)
    model = sdask.fit(_PartitionPassAODE(), ddf, target="cls")
    ref = _PartitionPassAODE().fit(frame.drop(columns="cls"), frame["cls"])
    assert_array_equal(model.pass_result_, ref.pass_result_)
    assert model.chunk_rows_ == model.pass_rows_ == ref.pass_rows_ == len(frame)


def test_sampled_cut_points_are_deterministic(client, frame):
    ddf = dd.from_pandas(frame, npartitions=4)
    cuts = [sdask.fit(AODE(random_state=5), ddf, target="cls", sample_rows=300)
            .encoder_.discretizer_.cut_points_ for _ in range(2)]
    for a, b in zip(*cuts, strict=True):
        assert_array_equal(a, b)


def test_errors(client, frame):
    ddf = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(InputError, match="target column 'label'"):
        sdask.fit(AODE(), ddf, target="label")
    with pytest.raises(InputError, match="requires y"):
        sdask.fit(AODE(), ddf)
    with pytest.raises(InputError, match="Dask DataFrame or Dask Array"):
        sdask.fit(AODE(), frame, target="cls")
    bad = frame.copy()
    bad.loc[bad.index[-1], "cls"] = None
    with pytest.raises(InputError, match="missing value"):
        sdask.fit(AODE(), dd.from_pandas(bad, npartitions=3), target="cls")
    model = sdask.fit(AODE(), ddf, target="cls")
    with pytest.raises(InputError, match="lacks the column"):
        sdask.predict(model, ddf.drop(columns="num"))


def test_weight_column_equals_fit_with_sample_weight(client, frame):
    from seminaive import ASAODE

    rng = np.random.default_rng(7)
    data = frame.assign(w=rng.choice([0.0, 0.5, 1.0, 2.5], size=len(frame)))
    X = data.drop(columns=["cls", "w"])
    ddf = dd.from_pandas(data, npartitions=5)
    for cls in (AODE, ASAODE):
        model = sdask.fit(cls(), ddf, target="cls", sample_weight="w", split_every=2)
        ref = cls().fit(X, data["cls"], sample_weight=data["w"])
        assert model.encoder_.categories_ == ref.encoder_.categories_
        assert_array_equal(model.table_.counts, ref.table_.counts)
        assert model.table_.n_rows == ref.table_.n_rows
        assert_allclose(sdask.predict_proba(model, ddf[list(X.columns)]).compute().to_numpy(),
                        ref.predict_proba(X), rtol=0, atol=0)
    with pytest.raises(InputError, match="sample_weight names a column"):
        sdask.fit(AODE(), ddf[list(X.columns)], ddf["cls"], sample_weight="w")


def test_eskdb_per_member_discretisation_equals_fit(client, frame):
    from seminaive import ESKDB

    ddf = dd.from_pandas(frame, npartitions=5)
    params = dict(n_estimators=2, k=2, n_iter=30, random_state=0)
    model = sdask.fit(ESKDB(**params), ddf, target="cls")
    X = frame.drop(columns="cls")
    ref = ESKDB(**params).fit(X, frame["cls"])
    assert model.member_cut_points_ is not None
    for p, q in zip(model.member_cut_points_, ref.member_cut_points_, strict=True):
        for a, b in zip(p, q, strict=True):
            assert_array_equal(a, b)
    assert_allclose(sdask.predict_proba(model, ddf).compute().to_numpy(),
                    ref.predict_proba(X), rtol=0, atol=1e-12)


@pytest.mark.parametrize("params", [{"cls": "KDB", "k": 4},
                                    {"cls": "KDB", "k": 3, "smoothing": "hdp", "n_iter": 30,
                                     "random_state": 0},
                                    {"cls": "SKDB", "k": 4},
                                    {"cls": "ESKDB", "n_estimators": 2, "k": 4, "n_iter": 30,
                                     "random_state": 0, "discretization": "shared"}],
                         ids=["kdb4", "kdb3-hdp", "skdb4", "eskdb-shared"])
def test_count_trees_through_dask_equal_fit(client, frame, params):
    """The count trees of occurring prefixes, counted per partition and merged by the union
    of their keys, give the model fit gives (nominal attributes: the same codes)."""
    import seminaive

    params = dict(params)
    cls = getattr(seminaive, params.pop("cls"))
    nominal = frame.drop(columns="num")
    ddf = dd.from_pandas(nominal, npartitions=5)
    model = sdask.fit(cls(**params), ddf, target="cls")
    X = nominal.drop(columns="cls")
    ref = cls(**params).fit(X, nominal["cls"])
    assert_array_equal(model.predict_proba(X), ref.predict_proba(X))
