"""The everyday command line: seminaive fit / predict / inspect on the user's own files."""

import numpy as np
import pandas as pd
import pytest

import seminaive
from seminaive import AODE, KDB
from seminaive.cli import main, make_estimator
from seminaive.datasets import load_kr_vs_kp
from seminaive.exceptions import InputError


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    X, y = load_kr_vs_kp()
    rows = np.arange(0, len(X), 4)
    frame = X.iloc[rows, :12].reset_index(drop=True)
    frame.insert(3, "num", np.linspace(0.0, 1.0, len(frame)) + (y.iloc[rows].to_numpy() == "won"))
    frame["label"] = y.iloc[rows].to_numpy()
    frame.to_csv(root / "train.csv", index=False)
    frame.to_parquet(root / "train.parquet")
    return root, frame


def test_fit_predict_inspect_round_trip(files, capsys):
    root, frame = files
    model_path = root / "kdb.npz"
    assert main(["fit", str(root / "train.csv"), "--target", "label", "--learner", "KDB",
                 "--param", "k=2", "--param", "smoothing=hdp", "--param", "n_iter=50",
                 "--param", "random_state=0", "-o", str(model_path), "--quiet"]) == 0
    model = seminaive.load(model_path)
    assert isinstance(model, KDB) and model.k == 2 and model.smoothing == "hdp"
    expected = KDB(k=2, smoothing="hdp", n_iter=50, random_state=0).fit_stream(
        root / "train.csv", "label")
    X = frame.drop(columns="label")
    np.testing.assert_allclose(model.predict_proba(X), expected.predict_proba(X), atol=1e-12)
    for name in ("preds.csv", "preds.parquet"):
        out = root / name
        assert main(["predict", str(model_path), str(root / "train.parquet"), "-o", str(out),
                     "--quiet"]) == 0
        preds = pd.read_csv(out) if name.endswith(".csv") else pd.read_parquet(out)
        assert list(preds.columns) == ["prediction", "proba_nowin", "proba_won"]
        assert (preds["prediction"].astype(str) == model.predict(X)).all()
        np.testing.assert_allclose(preds[["proba_nowin", "proba_won"]].to_numpy(),
                                   model.predict_proba(X), atol=1e-12)
    capsys.readouterr()
    assert main(["inspect", str(model_path)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("KDB\n") and "Classes (2): nowin, won" in text
    assert "num: numeric, cut points [" in text and "Parents (structure_):" in text
    assert "smoothing='hdp'" in text and "Tables:" in text


def test_fit_with_a_learner_key_and_arff(files, tmp_path, monkeypatch):
    root, frame = files
    arff = tmp_path / "train.arff"
    lines = ["@relation chess"]
    for col in frame.columns:
        if col == "num":
            lines.append("@attribute num numeric")
        else:
            values = ",".join(sorted(frame[col].astype(str).unique()))
            lines.append(f"@attribute {col} {{{values}}}")
    lines.append("@data")
    lines += [",".join(str(v) for v in row) for row in frame.itertuples(index=False)]
    arff.write_text("\n".join(lines) + "\n")
    out = tmp_path / "aode.npz"
    assert main(["fit", str(arff), "--learner", "aode", "-o", str(out), "--quiet"]) == 0
    model = seminaive.load(out)
    X, y = frame.drop(columns="label"), frame["label"]
    np.testing.assert_allclose(model.predict_proba(X), AODE().fit(X, y).predict_proba(X),
                               atol=1e-12)
    # rows to predict from ARFF, their class unknown ("?"), by a relative path
    unknown = arff.read_text().replace(",won\n", ",?\n").replace(",nowin\n", ",?\n")
    (tmp_path / "new.arff").write_text(unknown)
    monkeypatch.chdir(tmp_path)
    assert main(["predict", "aode.npz", "new.arff", "-o", "preds.csv", "--quiet"]) == 0
    preds = pd.read_csv(tmp_path / "preds.csv")
    assert (preds["prediction"] == model.predict(X)).all()


@pytest.mark.parametrize("argv, message", [
    (["fit", "{root}/train.csv", "--target", "nope", "--learner", "aode"], "nope"),
    (["fit", "{root}/train.csv", "--target", "label", "--learner", "zzz"], "unknown learner"),
    (["fit", "{root}/train.csv", "--target", "label", "--learner", "KDB", "--param", "kk=1"],
     "no parameter kk"),
    (["fit", "{root}/train.csv", "--target", "label", "--learner", "rf100"], "scikit-learn"),
    (["fit", "{root}/missing.csv", "--target", "label", "--learner", "aode"], "no such file"),
    (["fit", "{root}/train.csv", "--learner", "aode"], "--target"),
])
def test_fit_errors_exit_2_with_a_message(files, capsys, argv, message):
    root, _ = files
    argv = [a.format(root=root) for a in argv] + ["-o", str(root / "never.npz"), "--quiet"]
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not (root / "never.npz").exists()


def test_predict_and_inspect_errors(files, capsys):
    root, _ = files
    assert main(["inspect", str(root / "train.csv")]) == 2
    assert "not a readable seminaive model file" in capsys.readouterr().err
    assert main(["predict", str(root / "train.csv"), str(root / "train.csv"), "-o",
                 str(root / "p.csv"), "--quiet"]) == 2
    assert not (root / "p.csv").exists()


def test_make_estimator_parses_parameters():
    from seminaive.cli import _parse_params

    assert _parse_params(["k=3", "m=0.5", "burn_in=None", "smoothing=hdp"]) == {
        "k": 3, "m": 0.5, "burn_in": None, "smoothing": "hdp"}
    with pytest.raises(InputError):
        _parse_params(["k"])
    assert make_estimator("kdb5-hdp").smoothing == "hdp"
