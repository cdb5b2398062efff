"""fit_stream / predict_stream (seminaive.streaming): chunked passes over files and iterables
give exactly the counts and predictions of fit on the concatenated data."""

import operator
import weakref

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from seminaive import A2DE, AODE, InputError, NaiveBayes
from seminaive.datasets import RandomBayesianNetwork
from seminaive.streaming import ScanSummary, seed_of

N_ROWS = 3000


class _ClassCountAODE(AODE):
    """AODE with extra passes: class counts and code sums (map_reduce), rows (chunks)."""

    def _learn_from_counts(self, source):
        k = len(self.classes_)

        def per_chunk(codes, y, w):
            return np.concatenate([np.bincount(y, minlength=k).astype(float),
                                   codes.sum(axis=0, dtype=np.float64)])

        self.pass_result_ = source.map_reduce(per_chunk, operator.add)
        self.pass_rows_ = source.n_rows
        self.chunk_rows_ = sum(codes.shape[0] for codes, _, _ in source.chunks())


def make_frame(n=N_ROWS, seed=0):
    """Nominal strings with missing values, a categorical, numbers with NaN, string target."""
    net = RandomBayesianNetwork(n_attributes=6, n_values=3, random_state=seed)
    X, y = net.sample(n, random_state=seed + 1)
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"a{i}": np.array(["lo", "mid", "hi"])[X[:, i]] for i in range(5)})
    frame.loc[rng.random(n) < 0.05, "a1"] = None
    frame["cat"] = pd.Categorical(np.array(["p", "q", "r"])[X[:, 5]],
                                  categories=["r", "q", "p", "never"])
    frame["num"] = rng.normal(size=n) + y
    frame.loc[rng.random(n) < 0.03, "num"] = np.nan
    frame["int"] = X[:, 0] * 10 + rng.integers(0, 3, n)
    frame["cls"] = np.array(["no", "yes"])[y]
    return frame


@pytest.fixture(scope="module")
def frame():
    return make_frame()


@pytest.fixture(scope="module")
def parquet_file(frame, tmp_path_factory):
    path = tmp_path_factory.mktemp("stream") / "train.parquet"
    frame.to_parquet(path, row_group_size=700)
    return path


@pytest.fixture(scope="module")
def csv_file(frame, tmp_path_factory):
    path = tmp_path_factory.mktemp("stream") / "train.csv"
    frame.to_csv(path, index=False)
    return path


def reference(cls, frame, **params):
    return cls(**params).fit(frame.drop(columns="cls"), frame["cls"])


def assert_same_model(model, ref, X):
    assert_array_equal(model.classes_, ref.classes_)
    assert model.encoder_.categories_ == ref.encoder_.categories_
    assert_array_equal(model.table_.sizes, ref.table_.sizes)
    assert_array_equal(model.table_.counts, ref.table_.counts)
    assert model.table_.n_rows == ref.table_.n_rows
    assert_array_equal(model.predict(X), ref.predict(X))
    assert_allclose(model.predict_proba(X), ref.predict_proba(X), rtol=0, atol=0)


# ------------------------------------------------------------------------------------------
# fit_stream == fit on the concatenated data
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [NaiveBayes, AODE, A2DE])
def test_parquet_equals_fit(cls, parquet_file):
    full = pd.read_parquet(parquet_file)
    ref = reference(cls, full)
    model = cls().fit_stream(parquet_file, target="cls", chunk_rows=500)
    assert_same_model(model, ref, full.drop(columns="cls"))
    assert list(model.feature_names_in_) == [c for c in full.columns if c != "cls"]


def test_csv_equals_fit(csv_file):
    full = pd.read_csv(csv_file)
    model = AODE().fit_stream(csv_file, target="cls", chunk_rows=411)
    assert_same_model(model, reference(AODE, full), full.drop(columns="cls"))


def test_missing_as_value(parquet_file):
    full = pd.read_parquet(parquet_file)
    ref = reference(AODE, full, missing="value")
    model = AODE(missing="value").fit_stream(parquet_file, target="cls", chunk_rows=333)
    assert_same_model(model, ref, full.drop(columns="cls"))
    assert model.encoder_.missing_code_[1] >= 0  # a1 has missing values


def test_list_of_files(frame, tmp_path):
    parts = [frame.iloc[:1000], frame.iloc[1000:1900], frame.iloc[1900:]]
    parquet, csv = [], []
    for i, part in enumerate(parts):
        parquet.append(tmp_path / f"p{i}.parquet")
        part.to_parquet(parquet[-1])
        csv.append(tmp_path / f"c{i}.csv")
        part.to_csv(csv[-1], index=False)
    full = pd.concat([pd.read_parquet(p) for p in parquet], ignore_index=True)
    model = A2DE().fit_stream(parquet, target="cls", chunk_rows=256)
    assert_same_model(model, reference(A2DE, full), full.drop(columns="cls"))
    full = pd.concat([pd.read_csv(p) for p in csv], ignore_index=True)
    model = AODE().fit_stream([str(p) for p in csv], target="cls", chunk_rows=600)
    assert_same_model(model, reference(AODE, full), full.drop(columns="cls"))


def test_iterables_of_frames(frame):
    ref = reference(AODE, frame)
    X = frame.drop(columns="cls")
    chunks = [frame.iloc[i: i + 450] for i in range(0, len(frame), 450)]
    assert_same_model(AODE().fit_stream(chunks, target="cls"), ref, X)
    assert_same_model(AODE().fit_stream(lambda: iter(chunks), target="cls"), ref, X)
    assert_same_model(AODE().fit_stream(frame, target="cls", chunk_rows=999), ref, X)


def test_one_shot_iterator_is_partial_fit(frame):
    """Read once: the encoder is fitted on the first chunk, as partial_fit does."""
    chunks = [frame.iloc[i: i + 800] for i in range(0, len(frame), 800)]
    model = AODE().fit_stream((c for c in chunks), target="cls")
    ref = AODE()
    for chunk in chunks:
        ref.partial_fit(chunk.drop(columns="cls"), chunk["cls"], classes=["no", "yes"])
    assert_same_model(model, ref, frame.drop(columns="cls"))


def test_one_shot_iterator_and_extra_pass(frame):
    chunks = [frame.iloc[:1500], frame.iloc[1500:]]
    with pytest.raises(InputError, match="one-shot iterator"):
        _ClassCountAODE().fit_stream(iter(chunks), target="cls")
    # a class missing from the first chunk must be declared
    later = frame.copy()
    later.loc[later.index[-5:], "cls"] = "maybe"
    chunks = [later.iloc[:1500], later.iloc[1500:]]
    with pytest.raises(InputError, match="classes="):
        AODE().fit_stream(iter(chunks), target="cls")
    model = AODE().fit_stream(iter(chunks), target="cls", classes=["maybe", "no", "yes"])
    assert_array_equal(model.classes_, ["maybe", "no", "yes"])


@pytest.mark.parametrize("source_kind", ["parquet", "list"])
def test_extra_pass_through_stream_source(source_kind, frame, parquet_file):
    if source_kind == "parquet":
        source, full = parquet_file, pd.read_parquet(parquet_file)
    else:
        source, full = [frame.iloc[:1234], frame.iloc[1234:]], frame
    model = _ClassCountAODE().fit_stream(source, target="cls", chunk_rows=500)
    ref = _ClassCountAODE().fit(full.drop(columns="cls"), full["cls"])
    assert_array_equal(model.pass_result_, ref.pass_result_)
    assert model.chunk_rows_ == model.pass_rows_ == ref.pass_rows_ == len(full)
    class_counts = ref.table_.block([]).ravel()
    assert_array_equal(model.pass_result_[:2], class_counts)


def test_one_chunk_alive_at_a_time(frame, tmp_path):
    """The next chunk is requested only after every reference to the previous one is gone."""
    templates = [frame.iloc[i: i + 300] for i in range(0, len(frame), 300)]
    state = {"live": 0, "max_live_before_next": 0, "made": 0}

    def died():
        state["live"] -= 1

    def chunks():
        for template in templates:
            state["max_live_before_next"] = max(state["max_live_before_next"], state["live"])
            chunk = template.copy()
            state["live"] += 1
            state["made"] += 1
            weakref.finalize(chunk, died)
            yield chunk
            del chunk

    model = _ClassCountAODE().fit_stream(chunks, target="cls")
    model.predict_stream(chunks, tmp_path / "p.parquet")
    assert state["made"] == 5 * len(templates)  # scan, count, 2 extra passes, prediction
    assert state["max_live_before_next"] == 0


# ------------------------------------------------------------------------------------------
# Sampling for the cut points
# ------------------------------------------------------------------------------------------


def test_sample_is_deterministic_and_merge_order_free(frame):
    X, y = frame.drop(columns="cls"), frame["cls"].to_numpy()
    nominal = np.array([X[c].dtype.kind not in "if" for c in X.columns])
    seed = seed_of(7)
    parts = [ScanSummary.of_chunk(X.iloc[i: i + 500], y[i: i + 500], j, seed, nominal, 400,
                                  False) for j, i in enumerate(range(0, len(X), 500))]
    sequential = parts[0]
    for part in parts[1:]:
        sequential = sequential.merged(part)
    tree = parts[0].merged(parts[1]).merged(parts[2].merged(parts[3])).merged(
        parts[4].merged(parts[5]))
    a, ya, wa = sequential.sample_frame()
    b, yb, wb = tree.sample_frame()
    assert wa is None and wb is None
    assert len(a) == 400 and sequential.n_rows == len(X)
    pd.testing.assert_frame_equal(a, b)
    assert_array_equal(ya, yb)
    # the kept rows are the 400 smallest keys of all rows
    keys = np.concatenate([np.random.default_rng([seed, j]).random(500) for j in range(6)])
    assert np.sort(sequential.sample_keys).tolist() == np.sort(keys)[:400].tolist()


def test_sample_rows_limits_the_cut_point_sample(parquet_file):
    def cuts(**params):
        model = AODE(random_state=3).fit_stream(parquet_file, target="cls", chunk_rows=500,
                                                **params)
        assert model.table_.n_rows == N_ROWS  # every row is counted whatever the sample
        return model.encoder_.discretizer_.cut_points_

    small, again, everything = cuts(sample_rows=200), cuts(sample_rows=200), cuts()
    for a, b in zip(small, again, strict=True):
        assert_array_equal(a, b)  # deterministic for a random_state
    assert any(len(a) != len(c) or not np.allclose(a, c)
               for a, c in zip(small, everything, strict=True))


# ------------------------------------------------------------------------------------------
# predict_stream
# ------------------------------------------------------------------------------------------


def test_predict_stream_equals_predict(parquet_file, csv_file, tmp_path):
    full = pd.read_parquet(parquet_file)
    X = full.drop(columns="cls")
    model = AODE().fit_stream(parquet_file, target="cls")
    out = tmp_path / "pred.parquet"
    n = model.predict_stream(parquet_file, out, chunk_rows=700)  # target column ignored
    assert n == len(full)
    written = pq.read_table(out)
    assert written.column_names == ["prediction", "proba_no", "proba_yes"]
    result = written.to_pandas()
    assert_array_equal(result["prediction"].to_numpy(dtype=object), model.predict(X))
    assert_allclose(result[["proba_no", "proba_yes"]].to_numpy(), model.predict_proba(X),
                    rtol=0, atol=0)
    n = model.predict_stream(csv_file, tmp_path / "p2.parquet", proba=False, chunk_rows=999)
    csv_X = pd.read_csv(csv_file).drop(columns="cls")
    written = pq.read_table(tmp_path / "p2.parquet")
    assert written.column_names == ["prediction"]
    # the CSV reads the categorical column as plain strings: same values, same codes
    assert_array_equal(written.column("prediction").to_numpy(zero_copy_only=False),
                       model.predict(csv_X))


def test_predict_stream_integer_classes_and_arrays(tmp_path):
    net = RandomBayesianNetwork(n_attributes=5, n_values=3, random_state=1)
    X, y = net.sample(2000, random_state=2)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(5)])
    frame["y"] = y
    model = NaiveBayes(categorical_features="all").fit_stream(frame, target="y",
                                                              chunk_rows=300)
    ref = NaiveBayes(categorical_features="all").fit(frame.drop(columns="y"), y)
    assert_array_equal(model.table_.counts, ref.table_.counts)
    model.predict_stream([frame.iloc[:900], frame.iloc[900:]], tmp_path / "p.parquet")
    result = pd.read_parquet(tmp_path / "p.parquet")
    assert list(result.columns) == ["prediction", "proba_0", "proba_1"]
    assert_array_equal(result["prediction"], ref.predict(frame.drop(columns="y")))


# ------------------------------------------------------------------------------------------
# Errors
# ------------------------------------------------------------------------------------------


def test_missing_target_column(parquet_file, csv_file, frame):
    for source in (parquet_file, csv_file, [frame]):
        with pytest.raises(InputError, match="target column 'label' is not among"):
            AODE().fit_stream(source, target="label")
    with pytest.raises(InputError, match="target is required"):
        AODE().fit_stream(parquet_file, target=None)


def test_empty_files(tmp_path, frame):
    empty_csv = tmp_path / "empty.csv"
    empty_csv.write_text("")
    with pytest.raises(InputError, match="is empty"):
        AODE().fit_stream(empty_csv, target="cls")
    header_only = tmp_path / "header.csv"
    frame.iloc[:0].to_csv(header_only, index=False)
    with pytest.raises(InputError, match="holds no rows"):
        AODE().fit_stream(header_only, target="cls")
    no_rows = tmp_path / "none.parquet"
    frame.iloc[:0].to_parquet(no_rows)
    with pytest.raises(InputError, match="holds no rows"):
        AODE().fit_stream(no_rows, target="cls")
    with pytest.raises(InputError, match="no such file"):
        AODE().fit_stream(tmp_path / "absent.parquet", target="cls")
    with pytest.raises(InputError, match="cannot tell the format"):
        AODE().fit_stream(tmp_path / "data.xlsx", target="cls")
    with pytest.raises(InputError, match="empty list"):
        AODE().fit_stream([], target="cls")


def test_wrong_columns(tmp_path, frame):
    first, second = tmp_path / "a.parquet", tmp_path / "b.parquet"
    frame.iloc[:100].to_parquet(first)
    frame.iloc[100:200].drop(columns="num").to_parquet(second)
    with pytest.raises(InputError, match=r"missing \['num'\]"):
        AODE().fit_stream([first, second], target="cls")
    with pytest.raises(InputError, match="chunk 1"):
        AODE().fit_stream([frame.iloc[:100], frame.iloc[100:200].drop(columns="num")],
                          target="cls")
    with pytest.raises(InputError, match="not a DataFrame"):
        AODE().fit_stream([frame.iloc[:100], frame.iloc[100:].to_numpy()], target="cls")
    with pytest.raises(InputError, match=r"features \['nope'\]"):
        AODE().fit_stream(first, target="cls", features=["a0", "nope"])
    model = AODE().fit_stream(first, target="cls")
    with pytest.raises(InputError, match="lacks the column"):
        model.predict_stream(second, tmp_path / "out.parquet")
    bad = frame.iloc[:100].copy()
    bad.loc[bad.index[3], "cls"] = None
    with pytest.raises(InputError, match="missing value"):
        AODE().fit_stream([frame.iloc[:100], bad], target="cls")


def test_features_subset(parquet_file):
    full = pd.read_parquet(parquet_file)
    features = ["a0", "num", "cat"]
    model = AODE().fit_stream(parquet_file, target="cls", features=features, chunk_rows=900)
    ref = AODE().fit(full[features], full["cls"])
    assert_same_model(model, ref, full[features])


def test_parquet_directory_and_table_budget(frame, tmp_path):
    directory = tmp_path / "dataset"
    directory.mkdir()
    table = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table.slice(0, 1500), directory / "part-0.parquet")
    pq.write_table(table.slice(1500), directory / "part-1.parquet")
    model = AODE().fit_stream(directory, target="cls", chunk_rows=1000)
    full = pd.read_parquet(directory)
    assert_same_model(model, reference(AODE, full), full.drop(columns="cls"))
    with pytest.raises(MemoryError):
        A2DE(max_table_bytes=1000).fit_stream(directory, target="cls")


# ------------------------------------------------------------------------------------------
# Row weights from a column
# ------------------------------------------------------------------------------------------


def _weighted(frame):
    """The frame with a weight column (0, 0.5, 1, 2.5: exact in binary, so sums do not
    depend on the chunking)."""
    rng = np.random.default_rng(5)
    return frame.assign(w=rng.choice([0.0, 0.5, 1.0, 2.5], size=len(frame)))


@pytest.mark.parametrize("cls_name", ["AODE", "ASAODE", "KDB"])
def test_weight_column_equals_fit_with_sample_weight(cls_name, frame, tmp_path):
    import seminaive

    data = _weighted(frame)
    path = tmp_path / "weighted.parquet"
    data.to_parquet(path, row_group_size=700)
    cls = getattr(seminaive, cls_name)
    X = data.drop(columns=["cls", "w"])
    ref = cls().fit(X, data["cls"], sample_weight=data["w"])
    for source in (path, [data.iloc[:1111], data.iloc[1111:]]):
        model = cls().fit_stream(source, target="cls", sample_weight="w", chunk_rows=500)
        assert list(model.feature_names_in_) == list(X.columns)  # the weights are no feature
        assert_same_model(model, ref, X)
    unweighted = cls().fit(X, data["cls"])
    assert not np.array_equal(unweighted.table_.counts, ref.table_.counts)


def test_weight_column_one_shot_iterator_is_partial_fit(frame):
    data = _weighted(frame)
    X = data.drop(columns=["cls", "w"])
    ref = NaiveBayes()
    for start in range(0, len(data), 1000):
        part = slice(start, start + 1000)
        ref.partial_fit(X.iloc[part], data["cls"].iloc[part], classes=["no", "yes"],
                        sample_weight=data["w"].iloc[part])
    chunks = iter([data.iloc[i:i + 1000] for i in range(0, len(data), 1000)])
    model = NaiveBayes().fit_stream(chunks, target="cls", sample_weight="w",
                                    classes=["no", "yes"])
    assert_array_equal(model.table_.counts, ref.table_.counts)


def test_weight_column_errors(frame, tmp_path):
    data = _weighted(frame)
    with pytest.raises(InputError, match="sample_weight column 'nope' is not among"):
        AODE().fit_stream(data, target="cls", sample_weight="nope")
    with pytest.raises(InputError, match="same column"):
        AODE().fit_stream(data, target="cls", sample_weight="cls")
    with pytest.raises(InputError, match="also listed in features"):
        AODE().fit_stream(data, target="cls", sample_weight="w", features=["a0", "w"])
    bad = data.assign(w=data["w"].where(data.index != 2100, -1.0))
    with pytest.raises(InputError, match="sample_weight column 'w'.*negative"):
        AODE().fit_stream(bad, target="cls", sample_weight="w", chunk_rows=1000)
