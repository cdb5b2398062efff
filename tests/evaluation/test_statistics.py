"""Statistics for comparing learners: sign test, win/draw/loss, Friedman, Nemenyi."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from seminaive.evaluation.statistics import (
    friedman,
    geometric_mean_ratio,
    nemenyi_critical_difference,
    nemenyi_q,
    sign_test,
    wdl_matrix,
    win_draw_loss,
)
from seminaive.exceptions import InputError


@pytest.mark.parametrize("wins,losses", [(22, 8), (6, 16), (19, 12), (10, 0), (3, 3)])
def test_sign_test_matches_scipy(wins, losses):
    assert sign_test(wins, losses) == pytest.approx(
        stats.binomtest(wins, wins + losses, 0.5).pvalue)


def test_sign_test_reproduces_seed_001_table():
    # Webb et al. 2005 (AODE vs alternatives): most p-values are two-tailed ...
    assert round(sign_test(19, 12), 3) == 0.281  # error vs LBR
    assert round(sign_test(23, 11), 3) == 0.058  # error vs SP-TAN
    assert round(sign_test(25, 12), 3) == 0.047  # error vs J48
    assert round(sign_test(27, 8), 3) == 0.002  # error vs TAN
    # ... some one-tailed: 22/7/8 vs NB p = 0.008; variance 6/15/16 p = 0.026 ("a two-tailed
    # test would give 0.052")
    assert round(sign_test(22, 8, alternative="greater"), 3) == 0.008
    assert round(sign_test(6, 16, alternative="less"), 3) == 0.026
    assert round(sign_test(6, 16), 3) == 0.052
    assert sign_test(0, 0) == 1.0


def test_win_draw_loss_counts():
    a = [0.10, 0.20, 0.30, 0.40, np.nan]
    b = [0.20, 0.20, 0.25, 0.40001, 0.1]
    r = win_draw_loss(a, b)
    assert (r["win"], r["draw"], r["loss"]) == (2, 1, 1)
    assert r["p"] == pytest.approx(stats.binomtest(2, 3, 0.5).pvalue)
    r = win_draw_loss(a, b, decimals=4)  # 0.4 vs 0.40001 ties after rounding
    assert (r["win"], r["draw"], r["loss"]) == (1, 2, 1)
    r = win_draw_loss(a, b, tol=0.06)
    assert (r["win"], r["draw"], r["loss"]) == (1, 3, 0)
    with pytest.raises(InputError):
        win_draw_loss([1, 2], [1])


def _summary():
    rows = []
    values = {"d1": {"A": 0.1, "B": 0.2, "C": 0.3},
              "d2": {"A": 0.2, "B": 0.2, "C": 0.1},
              "d3": {"A": 0.05, "B": 0.3, "C": 0.31},
              "d4": {"A": 0.4, "C": 0.5}}  # B missing on d4
    for dataset, by_learner in values.items():
        for learner, v in by_learner.items():
            rows.append({"dataset": dataset, "learner": learner, "error": v})
    return pd.DataFrame(rows)


def test_wdl_matrix():
    records, p = wdl_matrix(_summary(), "error", ["A", "B", "C"])
    assert records.loc["A", "B"] == "2/1/0"  # d4 not shared
    assert records.loc["B", "A"] == "0/1/2"
    assert records.loc["A", "C"] == "3/0/1"
    assert records.loc["A", "A"] == ""
    assert p.loc["A", "C"] == pytest.approx(stats.binomtest(3, 4, 0.5).pvalue)
    assert np.isnan(p.loc["B", "B"])
    flipped, _ = wdl_matrix(_summary(), "error", ["A", "B"], higher_is_better=True)
    assert flipped.loc["A", "B"] == "0/1/2"


def test_wdl_matrix_bad_summary():
    s = _summary()
    with pytest.raises(InputError, match="one row per"):
        wdl_matrix(pd.concat([s, s]), "error", ["A", "B"])
    with pytest.raises(InputError, match="no column"):
        wdl_matrix(s, "rmse", ["A", "B"])
    with pytest.raises(InputError, match="do not occur"):
        wdl_matrix(s, "error", ["A", "Z"])


def test_geometric_mean_ratio():
    ratio, n = geometric_mean_ratio([0.1, 0.4, 0.0, 0.0], [0.2, 0.1, 0.0, 0.3])
    # ratios 0.5, 4, 1 (both zero); the last pair (0 vs 0.3) is skipped
    assert n == 3
    assert ratio == pytest.approx((0.5 * 4 * 1) ** (1 / 3))
    assert np.isnan(geometric_mean_ratio([0.0], [1.0])[0])
    with pytest.raises(InputError):
        geometric_mean_ratio([-1.0], [1.0])


def test_friedman_against_scipy_and_hand_ranks():
    rng = np.random.default_rng(0)
    learners = ["A", "B", "C", "D"]
    values = rng.random((12, 4))
    values[0] = [0.1, 0.1, 0.2, 0.3]  # a tie -> average ranks 1.5, 1.5
    s = pd.DataFrame([{"dataset": f"d{i}", "learner": name, "error": values[i, j]}
                      for i in range(12) for j, name in enumerate(learners)])
    out = friedman(s, "error", learners)
    stat, p = stats.friedmanchisquare(*values.T)
    assert out["statistic"] == pytest.approx(stat)
    assert out["p"] == pytest.approx(p)
    assert out["n_datasets"] == 12
    expected = np.mean([stats.rankdata(row) for row in values], axis=0)
    np.testing.assert_allclose(out["average_ranks"].to_numpy(), expected)
    assert list(out["average_ranks"].index) == learners
    # higher is better reverses the ranks
    rev = friedman(s, "error", learners, higher_is_better=True)
    np.testing.assert_allclose(rev["average_ranks"].to_numpy(), 5 - expected)


def test_friedman_uses_complete_datasets_only():
    out = friedman(_summary(), "error", ["A", "B", "C"])
    assert out["n_datasets"] == 3
    # ranks: d1 A1 B2 C3; d2 A2.5 B2.5 C1; d3 A1 B2 C3
    np.testing.assert_allclose(out["average_ranks"].to_numpy(), [4.5 / 3, 6.5 / 3, 7 / 3])
    with pytest.raises(InputError, match="at least 3"):
        friedman(_summary(), "error", ["A", "B"])


@pytest.mark.parametrize("k,q05,q10", [(2, 1.960, 1.645), (3, 2.343, 2.052), (4, 2.569, 2.291),
                                       (5, 2.728, 2.459), (10, 3.164, 2.920)])
def test_nemenyi_q_matches_demsar_table(k, q05, q10):
    # Demsar's table truncates (2.3437 is printed 2.343)
    assert nemenyi_q(k, 0.05) == pytest.approx(q05, abs=1e-3)
    assert nemenyi_q(k, 0.10) == pytest.approx(q10, abs=1e-3)


def test_nemenyi_critical_difference():
    # Demsar (2006) section 3.2.2 example: k = 4, N = 14, CD = 2.569 sqrt(4*5 / (6*14)) = 1.25
    cd = nemenyi_critical_difference(4, 14)
    assert cd == pytest.approx(nemenyi_q(4) * np.sqrt(20 / 84))
    assert round(cd, 2) == 1.25
