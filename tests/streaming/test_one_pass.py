"""An all-nominal file counted from the codes of the scan (no counting pass): the model of
``fit`` on the whole file, count for count, whatever the chunking, the order in which values
first appear, nulls, weights, and whether the codes are kept or dropped."""

import numpy as np
import pandas as pd
import pytest

import seminaive.streaming._codes as codes_module
from seminaive import A2DE, AODE, NaiveBayes
from seminaive.streaming import fit_stream
from seminaive.streaming._readers import _ArrowCsvReader


def _late_values_frame(n=120, seed=0):
    """String columns whose values appear late: ``a0`` gains a value in the last row only,
    ``a1`` starts with its largest value and holds nulls, ``a2`` is null in its first rows,
    ``a3`` holds one value until the second half; the class ``c2`` is in the last row only."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "a0": rng.choice(["q", "b", "m"], n).astype(object),
        "a1": rng.choice(["z", "y", "a"], n).astype(object),
        "a2": rng.choice(["k", "e"], n).astype(object),
        "a3": np.where(np.arange(n) < n // 2, "same", rng.choice(["u", "same", "d"], n)),
    })
    frame.loc[n - 1, "a0"] = "aa"  # sorts first, seen last
    frame.loc[0, "a1"] = "zz"
    frame.loc[rng.choice(n, 10, replace=False), "a1"] = None
    frame.loc[:4, "a2"] = None
    label = np.where((frame["a0"] == "q") | (rng.random(n) < 0.3), "c1", "c0").astype(object)
    label[n - 1] = "c2"
    frame["label"] = label
    return frame


def _write(frame, path):
    if str(path).endswith(".csv"):
        frame.to_csv(path, index=False)  # a None is written as an empty field: a null
    else:
        frame.to_parquet(path, index=False)


def _assert_same_model(model, ref, X):
    assert model.classes_.tolist() == ref.classes_.tolist()
    assert model.encoder_.categories_ == ref.encoder_.categories_
    np.testing.assert_array_equal(model.table_.sizes, ref.table_.sizes)
    np.testing.assert_array_equal(model.table_.counts, ref.table_.counts)
    np.testing.assert_array_equal(model.predict_proba(X), ref.predict_proba(X))


@pytest.fixture
def spy(monkeypatch):
    """How many times the kept codes were counted (the counting pass skipped): those of
    the scan, or those of a plain CSV file coded as its lines are split."""
    calls = []
    for kind in (codes_module.KeptCodes, codes_module.PlainCodes):
        def counting(self, *args, remapped=kind.remapped):
            calls.append(self.n_chunks)
            return remapped(self, *args)

        monkeypatch.setattr(kind, "remapped", counting)
    return calls


@pytest.mark.parametrize("cls", [NaiveBayes, AODE, A2DE])
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("chunk_rows", [1, 7, None])
@pytest.mark.parametrize("missing", ["ignore", "value"])
@pytest.mark.parametrize("plain", [True, False])
def test_one_pass_equals_fit(tmp_path, monkeypatch, spy, cls, suffix, chunk_rows, missing,
                             plain):
    """(``plain``: a CSV file's fields coded as its lines are split, or parsed by pyarrow
    and coded by the scan.)"""
    if suffix == ".parquet" and not plain:
        pytest.skip("the same route as with plain")
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", plain)
    frame = _late_values_frame()
    path = tmp_path / f"d{suffix}"
    _write(frame, path)
    X, y = frame.drop(columns="label"), frame["label"].to_numpy()
    ref = cls(missing=missing).fit(X, y)
    model = cls(missing=missing).fit_stream(path, "label", chunk_rows=chunk_rows,
                                            progress=False)
    _assert_same_model(model, ref, X)
    assert len(spy) == 1  # counted from the scan's codes
    if chunk_rows is not None:
        assert spy[0] == -(-frame.shape[0] // chunk_rows)


@pytest.mark.parametrize("cls", [NaiveBayes, AODE])
def test_codes_dropped_past_the_budget_give_the_same_model(tmp_path, spy, monkeypatch, cls):
    """With no memory for the codes (keep_bytes=0) the counting pass reads the file again:
    the same model.  (The pyarrow route: a plain file is coded block by block, see
    test_plain_csv.py.)"""
    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)
    frame = _late_values_frame(300, seed=3)
    path = tmp_path / "d.csv"
    _write(frame, path)
    X, y = frame.drop(columns="label"), frame["label"].to_numpy()
    model = fit_stream(cls(), path, "label", chunk_rows=50, keep_bytes=0, progress=False)
    assert spy == []
    _assert_same_model(model, cls().fit(X, y), X)


def test_a_numeric_column_keeps_the_counting_pass(tmp_path, spy):
    frame = _late_values_frame(200, seed=4)
    frame["x"] = np.random.default_rng(4).normal(size=frame.shape[0])
    path = tmp_path / "d.csv"
    _write(frame, path)
    model = NaiveBayes().fit_stream(path, "label", chunk_rows=30, progress=False)
    assert spy == []
    assert model.table_.n_rows == frame.shape[0]


def test_many_values_wide_codes_and_weights(tmp_path, spy):
    """A column that passes 254 values in a later chunk (its codes then take four bytes), a
    column with more values per chunk than a dictionary is made for (read as plain strings:
    the counting pass reads the file), and a weight column: the model of fit."""
    rng = np.random.default_rng(5)
    n = 2000
    many = np.array([f"w{i:04d}" for i in rng.permutation(400)])
    frame = pd.DataFrame({
        "few": rng.choice(["a", "b"], n).astype(object),
        "many": np.concatenate([rng.choice(many[:100], n // 2), rng.choice(many, n // 2)]),
        "weight": rng.random(n),
        "label": rng.choice(["p", "n"], n).astype(object),
    })
    path = tmp_path / "d.parquet"
    _write(frame, path)
    X, y = frame[["few", "many"]], frame["label"].to_numpy()
    for cls in (NaiveBayes, AODE):
        spy.clear()
        ref = cls().fit(X, y, sample_weight=frame["weight"].to_numpy())
        model = cls().fit_stream(path, "label", sample_weight="weight", chunk_rows=300,
                                 progress=False)
        assert len(spy) == 1
        # weights are summed chunk by chunk: fit's sums within rounding, and the sums of
        # the counting pass (the codes dropped) bit for bit
        assert model.encoder_.categories_ == ref.encoder_.categories_
        np.testing.assert_allclose(model.table_.counts, ref.table_.counts, rtol=1e-12)
        np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), rtol=1e-9)
        two_pass = fit_stream(cls(), path, "label", sample_weight="weight", chunk_rows=300,
                              keep_bytes=0, progress=False)
        assert len(spy) == 1
        _assert_same_model(model, two_pass, X)

    wide = pd.DataFrame({"id": [f"r{i}" for i in range(6000)],
                         "label": rng.choice(["p", "n"], 6000).astype(object)})
    path = tmp_path / "wide.csv"
    _write(wide, path)
    spy.clear()
    model = NaiveBayes().fit_stream(path, "label", progress=False)
    assert spy == []  # more than 4096 values in a chunk: plain strings, counting pass
    _assert_same_model(model, NaiveBayes().fit(wide[["id"]], wide["label"].to_numpy()),
                       wide[["id"]])


def test_a_file_beyond_the_budget_of_kept_chunks_is_parsed_once(tmp_path, spy, monkeypatch):
    """Parsed chunks too large for the budget but codes within it (a byte per cell): one
    parse, where the counting pass parsed the file again; the model of fit.  (The pyarrow
    route: a plain file over half the budget is coded block by block, see
    test_plain_csv.py.)"""
    import pyarrow.csv as pa_csv

    monkeypatch.setattr(_ArrowCsvReader, "plain_fits", False)

    frame = _late_values_frame(4000, seed=6)
    path = tmp_path / "d.csv"
    _write(frame, path)
    opened = []
    open_csv, read_csv = pa_csv.open_csv, pa_csv.read_csv
    monkeypatch.setattr(pa_csv, "open_csv", lambda *a, **k: opened.append(a[0]) or open_csv(
        *a, **k))
    monkeypatch.setattr(pa_csv, "read_csv", lambda *a, **k: opened.append(a[0]) or read_csv(
        *a, **k))
    X, y = frame.drop(columns="label"), frame["label"].to_numpy()
    n, a = X.shape
    budget = 2 * n * (a + 1)  # the codes (a bytes a row, and the labels) fit, not the chunks
    model = fit_stream(NaiveBayes(), path, "label", chunk_rows=500, keep_bytes=budget,
                       progress=False)
    assert len(spy) == 1
    assert len([p for p in opened if str(p) == str(path)]) == 1
    _assert_same_model(model, NaiveBayes().fit(X, y), X)


@pytest.mark.parametrize("missing", ["ignore", "value"])
def test_storage_tables_are_the_codes_of_encoding_the_frame(missing):
    """The storage tables taken from the encoder's dictionary_codes are those of encoding
    a frame of Arrow dictionaries that holds every value once and a null (the route taken
    for an encoder without it): values the fit saw and did not see, a column of more than
    1,024 values (looked up by the index, not the dict), a column with a missing value."""
    import pyarrow as pa

    from seminaive import AttributeEncoder
    from seminaive.preprocessing.encoder import _arrow_frame
    from seminaive.tables._layout import storage_codes

    rng = np.random.default_rng(7)
    fit_values = [[f"v{i}" for i in range(5)], [f"w{i}" for i in range(1500)],
                  ["x0", "x1"]]
    n = 3000
    frame = pd.DataFrame({
        "a": rng.choice(fit_values[0], n), "b": rng.choice(fit_values[1], n),
        "c": np.where(rng.random(n) < 0.1, None, rng.choice(fit_values[2], n))})
    encoder = AttributeEncoder(missing=missing, categorical_features="all").fit(frame)
    sizes = encoder.n_values_ + 1
    # the values met (in another order), with some the fit did not see
    values = [["v3", "v9", "v0", "v1", "v4", "v2"], fit_values[1][::-1] + ["w-new"],
              ["x1", "zz", "x0"]]
    names = list(frame.columns)
    types = [pa.string()] * 3
    fast = codes_module.storage_tables(encoder, values, types, names, sizes, "test")
    # the route by a frame of every value once and a null
    rows = 1 + max(len(v) for v in values)
    columns = []
    for column in values:
        indices = np.zeros(rows, dtype=np.int32)
        indices[1:len(column) + 1] = np.arange(len(column))
        mask = np.zeros(rows, dtype=bool)
        mask[0] = True
        columns.append(pa.DictionaryArray.from_arrays(pa.array(indices, mask=mask),
                                                      pa.array(column, type=pa.string())))
    keys = [str(c) for c in range(3)]
    coded = _arrow_frame(pa.table(columns, names=keys), set(keys))
    coded.columns = names
    reference = storage_codes(encoder.encode(coded, "test"), sizes)
    for col, column in enumerate(values):
        np.testing.assert_array_equal(fast[col], reference[:len(column) + 1, col])
        assert fast[col].dtype == reference.dtype
    if missing == "value":  # a null: the missing code of the column that holds one
        assert fast[2][0] == encoder.missing_code_[2] + 1 and fast[0][0] == 0
    else:
        assert fast[2][0] == 0
    assert fast[0][2] == 0 and fast[1][-1] == 0  # values the fit did not see
