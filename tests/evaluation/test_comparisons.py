"""The paper comparison tables and the n="auto" pick table of the report."""

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from seminaive.evaluation import comparisons, runner
from seminaive.evaluation.comparisons import Comparison, comparison_rows, render_comparison


def _summary():
    """Hand-built summary: 5 data sets; A beats B on zero-one loss on 4 of them, draws one."""
    rows = []
    sizes = [100, 500, 3000, 9000, 20000]
    zero_one = {"a": [0.10, 0.20, 0.30, 0.05, 0.40], "b": [0.20, 0.20, 0.40, 0.10, 0.50]}
    auc = {"a": [0.9, 0.8, 0.7, 0.95, 0.6], "b": [0.8, 0.8, 0.6, 0.9, 0.7]}
    for learner in ("a", "b"):
        for i, n in enumerate(sizes):
            rows.append({"settings": "biasvar-x", "protocol": "biasvar", "dataset": f"d{i}",
                         "learner": learner, "n_rows": n, "zero_one": zero_one[learner][i],
                         "auc": auc[learner][i], "bias": np.nan, "variance": np.nan,
                         "train_time": 1e-6 if learner == "a" else 4e-6,
                         "test_time": 2e-6})
    return pd.DataFrame(rows)


def test_wdl_ratio_and_times_match_hand_computation():
    comp = Comparison("t", "A vs B", "test", pairs=(("a", "b"),), metrics=("zero_one", "auc"))
    rows, protocol = comparison_rows(_summary(), comp)
    assert protocol == "biasvar"
    zo = rows[0]["metrics"]["zero_one"]
    assert (zo["win"], zo["draw"], zo["loss"]) == (4, 1, 0)
    assert np.isclose(zo["p"], binomtest(4, 4).pvalue)
    ratios = np.array([0.5, 0.75, 0.5, 0.8])  # the draw (0.2/0.2) counts as ratio 1
    expected = np.exp(np.mean(np.log(np.r_[ratios, 1.0])))
    assert np.isclose(zo["ratio"], expected)
    auc = rows[0]["metrics"]["auc"]  # higher AUC wins
    assert (auc["win"], auc["draw"], auc["loss"]) == (3, 1, 1)
    assert np.allclose(rows[0]["train"], (1e-6, 4e-6))


def test_min_rows_restricts_the_data_sets():
    comp = Comparison("t", "A vs B", "test", pairs=(("a", "b"),), metrics=("zero_one",),
                      min_rows=8000)
    rows, _ = comparison_rows(_summary(), comp)
    assert rows[0]["datasets"] == {"d3", "d4"}
    assert rows[0]["metrics"]["zero_one"]["win"] == 2


def test_missing_learners_are_reported_not_fatal():
    comp = Comparison("t", "A vs Z", "test", pairs=(("a", "b"), ("a", "zzz")))
    text = "\n".join(render_comparison(_summary(), comp))
    assert "4/1/0" in text and "Not in the results yet" in text and "zzz" in text
    comp = Comparison("t", "Y vs Z", "test", pairs=(("yyy", "zzz"),))
    assert "Not run yet" in "\n".join(render_comparison(_summary(), comp))


def test_every_paper_comparison_names_registered_learners():
    from seminaive.evaluation.learners import LEARNERS

    for comp in comparisons.PAPER_COMPARISONS:
        for pair in comp.pairs:
            assert set(pair) <= set(LEARNERS), (comp.key, pair)


def test_auto_n_choice_is_recorded_and_tabulated(tmp_path):
    out = str(tmp_path / "auto")
    config = runner.RunConfig(datasets=["iris"], learners=["ande-auto"], protocol="cv",
                              protocol_params={"folds": 3})
    raw = runner.run(config, out, progress=False)
    assert raw["chosen_n"].isin([0, 1, 2]).all()
    from seminaive.evaluation.report import summarise

    text = comparisons.auto_n_section(raw, summarise(out, raw))
    assert "n = 0" in text and "iris" in text


def test_pair_uses_the_run_where_both_learners_cover_most_data_sets():
    summary = _summary()
    summary["settings"], summary["n_tasks"] = "biasvar-repeats50", 100
    # a second, shorter run where "a" meets a learner "c" missing from the long run
    short = summary.copy()
    short["settings"], short["n_tasks"] = "biasvar-repeats10", 20
    c = short[short["learner"] == "b"].assign(learner="c", zero_one=0.9)
    summary = pd.concat([summary, short, c], ignore_index=True)
    comp = Comparison("t", "", "", pairs=(("a", "b"), ("a", "c")), metrics=("zero_one",))
    rows, _ = comparison_rows(summary, comp)
    assert rows[0]["settings"] == "biasvar-repeats50"
    assert rows[1]["settings"] == "biasvar-repeats10"
    assert rows[1]["metrics"]["zero_one"]["win"] == 5
    assert comparisons.settings_label("biasvar-seed0-equal_frequency3-folds2-repeats10") == \
        "biasvar 10x2"
