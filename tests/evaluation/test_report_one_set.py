"""Reports on a single data set: what one set can and cannot show, the pairs that ran named
as such, and the discretiser actually used."""

import numpy as np
import pandas as pd

from seminaive.evaluation import comparisons, findings

SETTINGS = "cv-seed0-equal_frequency3-folds3-repeats1"


def _summary(datasets=("iris",), settings=SETTINGS, learners=("nb", "aode", "a2de",
                                                              "nb-gauss")):
    rows = []
    for i, dataset in enumerate(datasets):
        for j, learner in enumerate(learners):
            # every later learner has the lower loss on every data set
            rows.append({"dataset": dataset, "learner": learner, "protocol":
                         settings.split("-")[0], "settings": settings, "n_rows": 150,
                         "n_tasks": 3, "zero_one": 0.2 - 0.01 * j + 0.001 * i,
                         "rmse": 0.3 - 0.01 * j, "log_loss": 0.5 - 0.01 * j,
                         "bias": np.nan, "variance": np.nan, "auc": 0.9,
                         "train_time": 1e-5, "test_time": 1e-5})
    return pd.DataFrame(rows)


def test_one_set_says_what_it_can_and_cannot_show():
    text = findings.paper_findings(_summary())
    assert "Results on 1 data set (iris)" in text
    assert "cv 1x with 3 equal-frequency bins" in text
    assert "cannot reach p <= 0.05 on fewer than 6 sets" in text
    # AODE wins on the one set, yet the finding is neither reproduced nor refuted
    assert "AODE vs NB, zero_one: 1/0/0 (p=1)" in text
    assert "not reproduced" not in text and "**reproduced**" not in text
    assert "Verdict: **undecided** (1 data set: a sign test needs 6 or more)" in text
    assert "1 data sets" not in text and "the protocol of the results" not in text
    assert f"Results of the run `{SETTINGS}` on 1 data set." in text


def test_six_sets_decide():
    text = findings.paper_findings(_summary(datasets=[f"d{i}" for i in range(6)]))
    assert "undecided" not in text and "Verdict: **reproduced**." in text
    assert "6/0/0 (p=0.0312)*" in text


def test_pairs_that_ran_under_another_protocol_are_named():
    comparison = next(c for c in comparisons.PAPER_COMPARISONS if c.key == "webb2005-aode")
    text = "\n".join(comparisons.render_comparison(_summary(), comparison))
    assert "none of these pairs is in the results" not in text
    assert "AODE vs NB ran, but with the protocol `cv`" in text
    assert "--protocol biasvar" in text


def test_the_discretiser_stated_is_the_one_used():
    comparison = next(c for c in comparisons.PAPER_COMPARISONS
                      if "{discretiser}" in c.note)
    text = "\n".join(comparisons.render_comparison(_summary(), comparison))
    assert "(3 equal-frequency bins here)" in text and "(MDL here)" not in text
    mdl = _summary(settings="biasvar-seed0-mdl3-folds2-repeats2")
    text = "\n".join(comparisons.render_comparison(mdl, comparison))
    assert "(MDL here)" in text and "NB-G vs NB" in text
