"""Plots write non-empty PNG files; the critical-difference groups are right."""

import numpy as np
import pandas as pd
import pytest

from seminaive.evaluation.plots import (
    cd_groups,
    plot_bias_variance,
    plot_cd_diagram,
    plot_learning_curves,
    plot_times,
)
from seminaive.exceptions import InputError

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _is_png(path):
    data = path.read_bytes()
    return data[:8] == PNG_MAGIC and len(data) > 1000


def _curves(datasets=("adult",)):
    rng = np.random.default_rng(0)
    rows = []
    for dataset in datasets:
        for learner, base in (("NB", 0.2), ("AODE", 0.15), ("A2DE", 0.12)):
            for size in (16, 64, 256, 1024):
                for repeat in range(3):
                    rows.append({"dataset": dataset, "learner": learner, "train_size": size,
                                 "repeat": repeat,
                                 "zero_one": base + 1 / size + 0.01 * rng.random(),
                                 "rmse": 0.3 + 0.01 * rng.random()})
    return pd.DataFrame(rows)


def test_learning_curves_png(tmp_path):
    out = plot_learning_curves(_curves(), tmp_path / "lc.png")
    assert _is_png(out)
    multi = _curves(("a", "b", "c", "d"))
    assert _is_png(plot_learning_curves(multi, tmp_path / "lc4.png", metric="rmse"))
    assert _is_png(plot_learning_curves(multi, tmp_path / "lcb.png", dataset="b"))
    with pytest.raises(InputError, match="no rows for dataset"):
        plot_learning_curves(multi, tmp_path / "x.png", dataset="zzz")
    with pytest.raises(InputError, match="lacks columns"):
        plot_learning_curves(multi, tmp_path / "x.png", metric="auc")


def _bias_variance():
    rows = []
    for d, dataset in enumerate(["d1", "d2", "d3"]):
        for learner, bias, variance in (("NB", 0.15, 0.02), ("AODE", 0.12, 0.03),
                                        ("A2DE", 0.10, 0.04)):
            rows.append({"dataset": dataset, "learner": learner, "bias": bias + 0.01 * d,
                         "variance": variance})
    return pd.DataFrame(rows)


def test_bias_variance_png(tmp_path):
    summary = _bias_variance()
    assert _is_png(plot_bias_variance(summary, tmp_path / "bv.png"))
    assert _is_png(plot_bias_variance(summary, tmp_path / "bv1.png", dataset="d2"))


def test_times_png(tmp_path):
    rows = [{"dataset": f"d{i}", "learner": name, "train_time": t * (i + 1),
             "test_time": t * 3 * (i + 1)}
            for i in range(4) for name, t in (("NB", 1e-6), ("AODE", 1e-5), ("A2DE", 1e-4))]
    assert _is_png(plot_times(pd.DataFrame(rows), tmp_path / "t.png"))


def test_cd_groups_hand_computed():
    ranks = pd.Series({"C": 2.9, "A": 1.0, "D": 3.6, "B": 1.5})
    assert cd_groups(ranks, 1.0) == [["A", "B"], ["C", "D"]]
    # overlapping groups: A-B and B-C, but not A-C (1.5 >= CD)
    assert cd_groups({"A": 1.0, "B": 1.8, "C": 2.5}, 1.0) == [["A", "B"], ["B", "C"]]
    # a group contained in another is left out
    assert cd_groups({"A": 1.0, "B": 1.2, "C": 1.4}, 1.0) == [["A", "B", "C"]]
    # a difference equal to the CD is significant
    assert cd_groups({"A": 1.0, "B": 2.0}, 1.0) == []
    # everything within the CD: one group
    assert cd_groups({"A": 1.0, "B": 2.0, "C": 3.0, "D": 4.0}, 5.0) == [["A", "B", "C", "D"]]


def test_cd_diagram_png(tmp_path):
    ranks = pd.Series({"NB": 3.4, "AODE": 2.3, "A2DE": 1.6, "TAN": 2.7})
    out = plot_cd_diagram(ranks, 0.9, tmp_path / "cd.png", title="zero-one loss")
    assert _is_png(out)
    five = pd.Series({"a": 1.2, "b": 2.0, "c": 3.1, "d": 3.9, "e": 4.8})
    assert _is_png(plot_cd_diagram(five, 1.5, tmp_path / "cd5.png"))
    with pytest.raises(InputError):
        plot_cd_diagram(pd.Series({"a": np.nan}), 1.0, tmp_path / "x.png")
