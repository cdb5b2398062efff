"""Outputs that never lose data: on any failure the previous file is untouched and no
partial or temporary file remains (model files, predict_stream, experiment task files,
reports)."""

import os

import numpy as np
import pandas as pd
import pytest

import seminaive
from seminaive import AODE
from seminaive.datasets import load_kr_vs_kp
from seminaive.streaming import predict_stream


@pytest.fixture(scope="module")
def fitted():
    X, y = load_kr_vs_kp()
    return AODE().fit(X, y), X, y


def _listing(directory):
    return sorted(os.listdir(directory))


def test_predict_stream_failing_midway_keeps_the_previous_output(fitted, tmp_path,
                                                                 monkeypatch):
    from seminaive.streaming import _predict as streaming  # where predict_stream looks

    model, X, _ = fitted
    out = tmp_path / "preds.parquet"
    predict_stream(model, X.iloc[:100], out, chunk_rows=50)
    before = pd.read_parquet(out)
    real = streaming.prediction_columns
    calls = []

    def fails_on_the_third_chunk(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("the source failed midway")
        return real(*args, **kwargs)

    monkeypatch.setattr(streaming, "prediction_columns", fails_on_the_third_chunk)
    with pytest.raises(RuntimeError, match="midway"):
        predict_stream(model, X.iloc[:500], out, chunk_rows=100)
    assert len(calls) == 3  # two chunks were written before the failure
    pd.testing.assert_frame_equal(pd.read_parquet(out), before)
    assert _listing(tmp_path) == ["preds.parquet"]


def test_predict_stream_with_no_rows_writes_nothing(fitted, tmp_path):
    model, X, _ = fitted
    out = tmp_path / "preds.parquet"
    with pytest.raises(seminaive.exceptions.InputError, match="no rows"):
        predict_stream(model, X.iloc[:0], out)
    assert _listing(tmp_path) == []


def test_failed_save_keeps_the_previous_model(fitted, tmp_path, monkeypatch):
    model, X, _ = fitted
    path = tmp_path / "model.npz"
    model.save(path)
    expected = seminaive.load(path).predict_proba(X.iloc[:5])

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez_compressed", broken)
    with pytest.raises(OSError, match="disk full"):
        model.save(path)
    monkeypatch.undo()
    np.testing.assert_array_equal(seminaive.load(path).predict_proba(X.iloc[:5]), expected)
    assert _listing(tmp_path) == ["model.npz"]


def test_failed_task_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    from seminaive.evaluation import runner

    def broken(*args, **kwargs):
        raise OSError("disk full")

    path = tmp_path / "raw" / "r000-f00.npz"
    monkeypatch.setattr(np, "savez", broken)
    task = type("T", (), {"test": np.arange(3)})()
    with pytest.raises(OSError):
        runner._write_task(str(path), {"zero_one": 0.5}, task, np.zeros(3), np.zeros(3), True)
    assert _listing(path.parent) == []
