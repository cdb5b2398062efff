"""CSV files read with pandas (``csv_options`` or a ``.zip`` file): column types decided once
for the whole source, as on the Arrow route; predictions written in the format their name
says."""

import zipfile

import numpy as np
import pandas as pd
import pytest

from seminaive import AODE, NaiveBayes
from seminaive.exceptions import InputError
from seminaive.streaming import predict_stream


def _codes_frame(letters_first, n=30_000):
    """Column ``code``: letters in the first (or last) five rows, zero-padded digits
    elsewhere, so that a chunk of digits alone reads as integers."""
    rng = np.random.default_rng(1)
    codes = rng.choice(["01", "02", "03"], n).astype(object)
    codes[slice(0, 5) if letters_first else slice(n - 5, n)] = "A3"
    other = rng.choice(["x", "y"], n)
    label = np.where((codes == "01") | (other == "x"), "yes", "no")
    return pd.DataFrame({"code": codes, "other": other, "label": label})


def _write(frame, path, zipped):
    if not zipped:
        frame.to_csv(path, index=False)
        return path
    zipped_path = path.with_suffix(".csv.zip")
    with zipfile.ZipFile(zipped_path, "w") as archive:
        archive.writestr("data.csv", frame.to_csv(index=False))
    return zipped_path


@pytest.mark.parametrize("letters_first", [True, False])
@pytest.mark.parametrize("zipped", [False, True])
def test_pandas_route_decides_types_once(tmp_path, letters_first, zipped):
    path = _write(_codes_frame(letters_first), tmp_path / "codes.csv", zipped)
    frame = pd.read_csv(path, dtype={"code": str})
    X, y = frame.drop(columns="label"), frame["label"]
    ref = AODE().fit(X, y)
    assert ref.encoder_.categories_[0] == ["01", "02", "03", "A3"]
    options = None if zipped else {"sep": ","}  # csv_options or the zip: read by pandas
    for chunk_rows in (1000, 100_000):
        model = AODE().fit_stream(path, "label", chunk_rows=chunk_rows, csv_options=options)
        assert model.encoder_.categories_ == ref.encoder_.categories_
        np.testing.assert_array_equal(model.predict_proba(X), ref.predict_proba(X))


def test_pandas_route_integers_then_floats(tmp_path):
    rng = np.random.default_rng(2)
    n = 6_000
    values = rng.integers(0, 50, n).astype(object)
    values[-1] = "17.5"
    path = tmp_path / "numbers.csv"
    pd.DataFrame({"v": values, "label": rng.choice(["a", "b"], n)}).to_csv(path, index=False)
    frame = pd.read_csv(path)
    ref = NaiveBayes().fit(frame[["v"]], frame["label"])
    model = NaiveBayes().fit_stream(path, "label", chunk_rows=500, sample_rows=None,
                                    csv_options={"sep": ","})
    assert model.encoder_.cut_points()[0].tolist() == ref.encoder_.cut_points()[0].tolist()


def test_pandas_route_keeps_declared_dtypes(tmp_path):
    path = _write(_codes_frame(False, n=3000), tmp_path / "codes.csv", False)
    model = NaiveBayes().fit_stream(path, "label", chunk_rows=500,
                                    csv_options={"dtype": {"code": str}})
    assert model.encoder_.categories_[0] == ["01", "02", "03", "A3"]


def test_predict_stream_with_csv_options_reads_the_strings_learnt(tmp_path):
    frame = _codes_frame(True, n=3000)
    path = _write(frame, tmp_path / "codes.csv", False)
    model = AODE().fit_stream(path, "label", csv_options={"sep": ","})
    digits = frame.drop(columns="label").iloc[100:]
    test = tmp_path / "digits.csv"
    digits.to_csv(test, index=False)
    out = tmp_path / "out.csv"
    predict_stream(model, test, out, chunk_rows=700, csv_options={"sep": ","})
    got = pd.read_csv(out)
    np.testing.assert_allclose(got[["proba_no", "proba_yes"]].to_numpy(),
                               model.predict_proba(digits), rtol=1e-12)


@pytest.mark.parametrize("name, reader", [("p.csv", pd.read_csv), ("p.CSV", pd.read_csv),
                                          ("p.parquet", pd.read_parquet),
                                          ("p.pq", pd.read_parquet)])
def test_predict_stream_writes_the_format_of_the_name(tmp_path, name, reader):
    frame = _codes_frame(True, n=500)
    X, y = frame.drop(columns="label"), frame["label"]
    model = NaiveBayes().fit(X, y)
    assert predict_stream(model, X, tmp_path / name) == 500
    got = reader(tmp_path / name)
    assert got["prediction"].tolist() == model.predict(X).tolist()


@pytest.mark.parametrize("name", ["p.txt", "p.json", "p", "p.csv.gz", "p.feather"])
def test_predict_stream_refuses_other_names(tmp_path, name):
    frame = _codes_frame(True, n=200)
    model = NaiveBayes().fit(frame.drop(columns="label"), frame["label"])
    with pytest.raises(InputError, match=r"\.csv or \.parquet or \.pq"):
        predict_stream(model, frame.drop(columns="label"), tmp_path / name)
    assert list(tmp_path.iterdir()) == []
