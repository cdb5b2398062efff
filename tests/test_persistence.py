"""Model files: exact round trips, code-free loading, refusal of corrupt or foreign files."""

import json
import os
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.preprocessing import KBinsDiscretizer

import seminaive
from seminaive import A2DE, AODE, AnDE, ModelFileError, NaiveBayes


def _mixed_data(n=240, seed=0, labels="str"):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "colour": rng.choice(["red", "green", "blue"], n).astype(object),
        "grade": pd.Categorical(rng.choice(["lo", "mid", "hi"], n),
                                categories=["lo", "mid", "hi", "top"]),
        "flag": rng.random(n) > 0.4,
        "count": rng.integers(0, 12, n),
        "weight": rng.normal(70, 10, n),
        "height": rng.normal(1.7, 0.1, n),
    })
    X.loc[::7, "colour"] = None
    X.loc[::5, "weight"] = np.nan
    score = (X["weight"].fillna(70) > 72).astype(int) + (X["colour"] == "red") + X["flag"]
    y = np.asarray(score.clip(0, 2))
    if labels == "str":
        y = np.array(["low", "medium", "high"])[y]
    return X, y


@pytest.fixture(scope="module")
def data():
    return _mixed_data()


@pytest.fixture
def saved_aode(tmp_path, data):
    X, y = data
    path = tmp_path / "aode.npz"
    AODE().fit(X, y).save(path)
    return path


@pytest.mark.parametrize("labels", ["str", "int"])
@pytest.mark.parametrize("missing", ["ignore", "value"])
@pytest.mark.parametrize("discretizer", ["mdl", "equal_frequency"])
@pytest.mark.parametrize("cls", [NaiveBayes, AODE, A2DE])
def test_round_trip_is_exact(tmp_path, cls, discretizer, missing, labels):
    X, y = _mixed_data(labels=labels)
    model = cls(discretizer=discretizer, missing=missing, n_bins=4).fit(X, y)
    path = tmp_path / "model.npz"
    model.save(path)
    loaded = seminaive.load(path)
    assert type(loaded) is cls
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.classes_, model.classes_)
    assert loaded.classes_.dtype == model.classes_.dtype
    assert loaded.feature_names_in_.tolist() == model.feature_names_in_.tolist()
    assert loaded.encoder_.categories_ == model.encoder_.categories_
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    X_new = X.iloc[:20].copy()
    X_new.loc[X_new.index[:3], "colour"] = "purple"  # unseen: missing in both
    np.testing.assert_array_equal(loaded.predict_proba(X_new), model.predict_proba(X_new))


def test_round_trip_of_array_input_and_other_options(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 5))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    model = AnDE(n=2, aggregate="posterior", smoothing="laplace",
                 random_state=np.random.RandomState(0)).fit(X, y)
    model.save(tmp_path / "m.npz")
    loaded = AnDE.load(tmp_path / "m.npz")
    assert not hasattr(loaded, "feature_names_in_") and loaded.n_features_in_ == 5
    assert loaded.random_state is None  # a RandomState instance is not stored
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_file_is_plain_npz_and_loading_runs_no_pickle(saved_aode, monkeypatch):
    with np.load(saved_aode, allow_pickle=False) as archive:
        assert "header" in archive.files
        for name in archive.files:
            assert archive[name].dtype != object
        header = json.loads(archive["header"].tobytes())
    assert header["format"] == "seminaive-model" and header["version"] == 1

    def forbidden(*args, **kwargs):
        raise AssertionError("loading a model must not unpickle anything")

    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    real_load = np.load
    calls = []

    def spy(*args, **kwargs):
        calls.append(kwargs.get("allow_pickle"))
        return real_load(*args, **kwargs)

    monkeypatch.setattr(np, "load", spy)
    assert isinstance(seminaive.load(saved_aode), AODE)
    assert calls == [False]


def test_load_through_the_class(saved_aode, data):
    X, _ = data
    model = AODE.load(saved_aode)
    assert isinstance(model, AODE)
    np.testing.assert_array_equal(model.predict_proba(X), seminaive.load(saved_aode)
                                  .predict_proba(X))
    with pytest.raises(ModelFileError,
                       match="holds a model of class AODE, not NaiveBayes: load it with AODE.load"):
        NaiveBayes.load(saved_aode)
    with pytest.raises(ModelFileError):
        A2DE.load(saved_aode)


def test_pickle_round_trip(data):
    X, y = data
    for model in (NaiveBayes().fit(X, y), AODE(missing="value").fit(X, y),
                  AODE(discretizer=KBinsDiscretizer(n_bins=3, encode="ordinal",
                                                    strategy="uniform")).fit(X, y)):
        clone = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(clone.predict_proba(X), model.predict_proba(X))


def test_custom_discretizer_refuses_save(tmp_path, data):
    X, y = data
    model = AODE(discretizer=KBinsDiscretizer(n_bins=3, encode="ordinal",
                                              strategy="quantile")).fit(X, y)
    path = tmp_path / "custom.npz"
    with pytest.raises(TypeError, match="pickle"):
        model.save(path)
    assert not path.exists() and list(tmp_path.iterdir()) == []


def test_unfitted_model_refuses_save(tmp_path):
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        AODE().save(tmp_path / "m.npz")


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        seminaive.load(tmp_path / "nothing.npz")


# ------------------------------------------------------------------- corrupt / foreign files


def _rewrite(src, dst, header_update=None, drop=(), replace=None):
    with np.load(src, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files if k not in drop}
    if header_update is not None:
        header = json.loads(arrays["header"].tobytes())
        header_update(header)
        arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    arrays.update(replace or {})
    np.savez(dst, **arrays)
    return dst


def test_truncated_file(saved_aode, tmp_path):
    raw = saved_aode.read_bytes()
    for keep in (len(raw) // 2, len(raw) - 10, 30):
        bad = tmp_path / f"trunc{keep}.npz"
        bad.write_bytes(raw[:keep])
        with pytest.raises(ModelFileError, match="corrupt|truncated|not a readable"):
            seminaive.load(bad)


def test_flipped_bytes(saved_aode, tmp_path):
    raw = bytearray(saved_aode.read_bytes())
    for frac in (0.3, 0.5, 0.7):
        mid = int(len(raw) * frac)
        flipped = bytearray(raw)
        for i in range(mid, mid + 16):
            flipped[i] ^= 0xFF
        bad = tmp_path / f"flip{frac}.npz"
        bad.write_bytes(bytes(flipped))
        with pytest.raises(ModelFileError):
            seminaive.load(bad)


def test_random_bytes(tmp_path):
    bad = tmp_path / "random.npz"
    bad.write_bytes(np.random.default_rng(0).bytes(4096))
    with pytest.raises(ModelFileError, match="not a readable seminaive model file"):
        seminaive.load(bad)
    text = tmp_path / "model.txt"
    text.write_text("hello\n")
    with pytest.raises(ModelFileError):
        seminaive.load(text)


def test_npz_without_header(tmp_path):
    path = tmp_path / "plain.npz"
    np.savez(path, counts=np.zeros(10))
    with pytest.raises(ModelFileError, match="without a seminaive header"):
        seminaive.load(path)
    npy = tmp_path / "single.npy"
    np.save(npy, np.zeros(3))
    with pytest.raises(ModelFileError, match="single .npy array"):
        seminaive.load(npy)


def test_header_of_another_format(saved_aode, tmp_path):
    bad = _rewrite(saved_aode, tmp_path / "fmt.npz",
                   lambda h: h.update(format="other-model"))
    with pytest.raises(ModelFileError, match="not a seminaive model file.*'other-model'"):
        seminaive.load(bad)
    garbage = _rewrite(saved_aode, tmp_path / "garbage.npz",
                       replace={"header": np.frombuffer(b"{not json", dtype=np.uint8)})
    with pytest.raises(ModelFileError, match="header is corrupt"):
        seminaive.load(garbage)


@pytest.mark.parametrize("version", [2, 0, "1", None])
def test_header_of_another_version(saved_aode, tmp_path, version):
    bad = _rewrite(saved_aode, tmp_path / "ver.npz", lambda h: h.update(version=version))
    with pytest.raises(ModelFileError, match="format version .*reads version 1"):
        seminaive.load(bad)


@pytest.mark.parametrize("damage", [
    lambda h: h.update(estimator="RandomForest"),
    lambda h: h["params"].update(aggregate="max"),
    lambda h: h["params"].update(bogus=1),
    lambda h: h["classes"].update(values=["b", "a", "c"]),
    lambda h: h["classes"].update(values=["high", "low"]),
    lambda h: h["encoder"]["categories"][0].append("extra"),
    lambda h: h["encoder"]["categories"][4].pop(0),
    lambda h: h["encoder"]["cut_points"].pop(),
    lambda h: h["encoder"].update(missing_code=[5, -1, -1, -1, -1, -1]),
    lambda h: h["encoder"].pop("nominal"),
], ids=["estimator", "param-value", "param-name", "classes-order", "classes-count",
        "extra-category", "bin-labels", "cut-points", "missing-code", "no-nominal"])
def test_inconsistent_header_is_refused(saved_aode, tmp_path, damage):
    bad = _rewrite(saved_aode, tmp_path / "bad.npz", damage)
    with pytest.raises(ModelFileError):
        seminaive.load(bad)


def test_inconsistent_tables_are_refused(saved_aode, tmp_path):
    with np.load(saved_aode, allow_pickle=False) as archive:
        counts, sizes = archive["table_counts"], archive["table_sizes"]
    cases = {
        "short": {"table_counts": counts[:-3]},
        "nan": {"table_counts": np.where(np.arange(counts.size) == 5, np.nan, counts)},
        "negative": {"table_counts": counts - 1000.0},
        "sizes": {"table_sizes": sizes + 1},
        "meta": {"table_meta": np.array([7, 2])},
    }
    for name, replace in cases.items():
        bad = _rewrite(saved_aode, tmp_path / f"{name}.npz", replace=replace)
        with pytest.raises(ModelFileError, match="inconsistent"):
            seminaive.load(bad)
    no_counts = _rewrite(saved_aode, tmp_path / "nocounts.npz", drop=("table_counts",))
    with pytest.raises(ModelFileError):
        seminaive.load(no_counts)


def test_save_is_atomic(tmp_path, data, monkeypatch):
    X, y = data
    path = tmp_path / "m.npz"
    AODE().fit(X, y).save(path)
    before = path.read_bytes()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez_compressed", broken)
    with pytest.raises(OSError, match="disk full"):
        NaiveBayes().fit(X, y).save(path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["m.npz"]


def _drop_param(src, dst, name, value=...):
    """A copy of a model file whose header lacks ``name`` (or holds ``value`` for it)."""
    with np.load(src) as stored:
        arrays = dict(stored)
    header = json.loads(arrays["header"].tobytes())
    if value is ...:
        del header["params"][name]
    else:
        header["params"][name] = value
    arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    np.savez_compressed(dst, **arrays)
    return dst


def test_a_file_saved_before_density_existed_loads_with_plugin_children(tmp_path, data):
    """Files of Gaussian children written before ``density`` existed hold plug-in Gaussians:
    they load as ``density="plugin"`` and predict as that model, not as today's default."""
    X, y = data
    plugin = NaiveBayes(numeric="gaussian", density="plugin").fit(X, y)
    plugin.save(tmp_path / "m.npz")
    old = seminaive.load(_drop_param(tmp_path / "m.npz", tmp_path / "old.npz", "density"))
    assert old.density == "plugin"
    np.testing.assert_array_equal(old.predict_proba(X), plugin.predict_proba(X))
    assert NaiveBayes().density != "plugin"  # the rule matters: today's default differs


def test_a_file_that_stored_no_discretizer_loads_with_mdl(tmp_path, data):
    X, y = data
    model = AODE().fit(X, y)
    model.save(tmp_path / "m.npz")
    for value in (..., None):
        old = seminaive.load(_drop_param(tmp_path / "m.npz", tmp_path / "old.npz",
                                         "discretizer", value))
        assert old.discretizer == "mdl"
        np.testing.assert_array_equal(old.predict_proba(X), model.predict_proba(X))
