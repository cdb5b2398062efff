"""Statistics for comparing learners over many data sets.

* Win/draw/loss records with a two-tailed binomial sign test, as Webb et al. 2012 (section 4.1),
  Webb et al. 2005 and Chen et al. 2014 (section 4.1) report them: a "win" for A against B is
  a data set on which A has the lower (better) value.
* Geometric mean of error ratios (as in Webb et al. 2005).
* Friedman test with average ranks and the Nemenyi critical difference (Demsar 2006).
* For two learners on one data set: the corrected resampled t-test (Nadeau & Bengio 2003),
  as Weka's Experimenter uses it.

``summary`` arguments are tidy DataFrames with one row per (dataset, learner) and a column per
metric.
"""

import numpy as np
import pandas as pd
from scipy import stats

from ..exceptions import InputError

__all__ = [
    "sign_test",
    "win_draw_loss",
    "wdl_matrix",
    "geometric_mean_ratio",
    "friedman",
    "nemenyi_q",
    "nemenyi_critical_difference",
    "corrected_resampled_ttest",
]


def sign_test(wins, losses, alternative="two-sided"):
    """Binomial sign test p-value of ``wins`` against ``losses`` (draws ignored).

    ``scipy.stats.binomtest(wins, wins + losses, 0.5, alternative).pvalue``; 1.0 when there
    are neither wins nor losses.  The default two-tailed test is what Chen et al. 2014 (section 4.1)
    reports; ``alternative="greater"`` (A wins more often) or ``"less"`` gives the one-tailed
    values some entries of Webb et al.'s (2005) tables show (e.g. 22/7/8, p = 0.008).

    Parameters
    ----------
    wins : int
        Data sets on which A is better.
    losses : int
        Data sets on which A is worse.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative hypothesis of ``scipy.stats.binomtest``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(sign_test(22, 8), 4)
    0.0161
    """
    wins, losses = int(wins), int(losses)
    if wins < 0 or losses < 0:
        raise InputError(f"wins and losses must be >= 0, got {wins} and {losses}")
    if wins + losses == 0:
        return 1.0
    return float(stats.binomtest(wins, wins + losses, 0.5, alternative=alternative).pvalue)


def win_draw_loss(a, b, tol=0.0, decimals=None):
    """Win/draw/loss record of A against B over data sets, where LOWER values are better.

    Parameters
    ----------
    a, b : array-like of float, same length
        Per-data-set values of A and B (error, RMSE, log loss, bias, variance, time...).
        Pairs where either value is NaN are left out.
    tol : float, default=0.0
        A wins when ``a < b - tol``, loses when ``a > b + tol``, draws otherwise.
    decimals : int or None, default=None
        Round both values to this many decimals first (the papers count exact ties of the
        rounded values they print, e.g. 4 decimals).

    Returns
    -------
    dict
        ``win``, ``draw``, ``loss`` (ints) and ``p``, the two-tailed sign-test p-value.

    Examples
    --------
    >>> wdl = win_draw_loss([0.1, 0.2, 0.3, 0.4], [0.2, 0.2, 0.1, 0.5])
    >>> wdl["win"], wdl["draw"], wdl["loss"]
    (2, 1, 1)
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise InputError(f"a and b must be 1-d and of the same length, got shapes "
                         f"{a.shape} and {b.shape}")
    if tol < 0:
        raise InputError(f"tol must be >= 0, got {tol}")
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    if decimals is not None:
        a, b = np.round(a, decimals), np.round(b, decimals)
    win = int(np.sum(a < b - tol))
    loss = int(np.sum(a > b + tol))
    draw = len(a) - win - loss
    return {"win": win, "draw": draw, "loss": loss, "p": sign_test(win, loss)}


def _pivot(summary, metric, learners, higher_is_better):
    """(dataset x learner) table of ``metric`` where lower is better."""
    for column in ("dataset", "learner", metric):
        if column not in summary.columns:
            raise InputError(f"summary has no column {column!r}; it needs 'dataset', "
                             f"'learner' and the metric column (has {list(summary.columns)})")
    learners = list(learners)
    missing = [name for name in learners if name not in set(summary["learner"])]
    if missing:
        raise InputError(f"learners {missing} do not occur in summary['learner']")
    rows = summary[summary["learner"].isin(learners)]
    duplicated = rows.duplicated(["dataset", "learner"])
    if duplicated.any():
        first = rows.loc[duplicated, ["dataset", "learner"]].iloc[0].tolist()
        raise InputError(f"summary must have one row per (dataset, learner); {first} repeats "
                         "(aggregate the repeats first, e.g. groupby(...).mean())")
    table = rows.pivot(index="dataset", columns="learner", values=metric)
    table = table.reindex(columns=learners).astype(np.float64)
    return -table if higher_is_better else table


def wdl_matrix(summary, metric, learners, higher_is_better=False, decimals=4, tol=0.0):
    """Pairwise win/draw/loss records of every learner against every other.

    Cell ``[A, B]`` is A's record against B as ``"w/d/l"`` over the data sets on which both
    have a value (Chen et al. 2014, Table 2: "cell [i, j] compares the algorithm in row i
    against the algorithm in column j").

    Parameters
    ----------
    summary : DataFrame
        Columns ``dataset``, ``learner`` and ``metric``; one row per (dataset, learner).
    metric : str
    learners : sequence of str
        Row and column order.
    higher_is_better : bool, default=False
        True for accuracy or AUC: then a win is a higher value.
    decimals : int or None, default=4
        Values are rounded first, so that ties of the printed values are draws.
    tol : float, default=0.0
        See :func:`win_draw_loss`.

    Returns
    -------
    records : DataFrame of str
        ``"w/d/l"``; ``""`` on the diagonal.
    p_values : DataFrame of float
        Two-tailed sign-test p-values; NaN on the diagonal.
    """
    table = _pivot(summary, metric, learners, higher_is_better)
    learners = list(learners)
    records = pd.DataFrame("", index=learners, columns=learners, dtype=object)
    p_values = pd.DataFrame(np.nan, index=learners, columns=learners)
    for a in learners:
        for b in learners:
            if a == b:
                continue
            r = win_draw_loss(table[a].to_numpy(), table[b].to_numpy(), tol=tol,
                              decimals=decimals)
            records.loc[a, b] = f"{r['win']}/{r['draw']}/{r['loss']}"
            p_values.loc[a, b] = r["p"]
    records.index.name = p_values.index.name = "learner"
    return records, p_values


def geometric_mean_ratio(a, b):
    """Geometric mean over data sets of the ratio ``a / b`` (as in Webb et al. 2005).

    ``exp(mean(log(a / b)))``: below 1 means A has the lower (better) value on average.
    Data sets where both values are 0 count as ratio 1; data sets where exactly one is 0
    (ratio 0 or infinite) or either is NaN are skipped.

    Parameters
    ----------
    a : array-like of float
        Per-data-set values of A.
    b : array-like of float
        Per-data-set values of B, in the same order.

    Returns
    -------
    ratio : float
        NaN when no data set is usable.
    n_used : int
        Number of data sets used; ``len(a) - n_used`` were skipped.

    Examples
    --------
    >>> ratio, n_used = geometric_mean_ratio([0.1, 0.4], [0.2, 0.2])
    >>> round(ratio, 6), n_used
    (1.0, 2)
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise InputError(f"a and b must be 1-d and of the same length, got shapes "
                         f"{a.shape} and {b.shape}")
    if np.any(a < 0) or np.any(b < 0):
        raise InputError("geometric_mean_ratio needs non-negative values (errors, times...)")
    both_zero = (a == 0) & (b == 0)
    usable = ((a > 0) & (b > 0)) | both_zero
    n_used = int(usable.sum())
    if n_used == 0:
        return float("nan"), 0
    log_ratio = np.zeros(len(a))
    positive = (a > 0) & (b > 0)
    log_ratio[positive] = np.log(a[positive] / b[positive])
    return float(np.exp(log_ratio[usable].mean())), n_used


def friedman(summary, metric, learners, higher_is_better=False, decimals=None):
    """Friedman test over data sets with the average rank of each learner (Demsar 2006).

    Only data sets on which every learner has a value are used.  Rank 1 is the best learner
    on a data set; ties get the average rank.

    Parameters
    ----------
    summary : DataFrame
        Columns ``dataset``, ``learner`` and ``metric``; one row per (dataset, learner).
    metric : str
        Column of ``summary`` to rank on.
    learners : sequence of str
        At least three (for two learners use :func:`win_draw_loss`).
    higher_is_better : bool, default=False
        Whether larger values are better (e.g. AUC); by default smaller are (losses).
    decimals : int or None, default=None
        Round values first so that ties of the printed values are tied ranks.

    Returns
    -------
    dict
        ``statistic`` (Friedman chi-square, ``scipy.stats.friedmanchisquare``), ``p``,
        ``average_ranks`` (Series indexed by learner, in ``learners`` order) and
        ``n_datasets``.

    Examples
    --------
    >>> import pandas as pd
    >>> summary = pd.DataFrame({"dataset": ["d1"] * 3 + ["d2"] * 3 + ["d3"] * 3,
    ...                         "learner": ["nb", "aode", "a2de"] * 3,
    ...                         "zero_one": [0.3, 0.2, 0.1, 0.4, 0.3, 0.2, 0.5, 0.2, 0.3]})
    >>> result = friedman(summary, "zero_one", ["nb", "aode", "a2de"])
    >>> [round(float(r), 4) for r in result["average_ranks"]]
    [3.0, 1.6667, 1.3333]
    """
    learners = list(learners)
    if len(learners) < 3:
        raise InputError("the Friedman test needs at least 3 learners; compare two learners "
                         "with win_draw_loss / sign_test")
    table = _pivot(summary, metric, learners, higher_is_better).dropna()
    if decimals is not None:
        table = table.round(decimals)
    if len(table) < 2:
        raise InputError(f"the Friedman test needs at least 2 data sets on which all "
                         f"learners have a {metric!r} value; found {len(table)}")
    values = table.to_numpy()
    ranks = stats.rankdata(values, axis=1)
    statistic, p = stats.friedmanchisquare(*values.T)
    return {"statistic": float(statistic), "p": float(p),
            "average_ranks": pd.Series(ranks.mean(axis=0), index=learners, name="rank"),
            "n_datasets": len(table)}


def nemenyi_q(n_learners, alpha=0.05):
    """Critical value q_alpha of the Nemenyi test (Demsar 2006, Table 5(a)).

    The studentized range statistic for ``n_learners`` groups and infinite degrees of
    freedom divided by sqrt(2).

    Parameters
    ----------
    n_learners : int
        Number of learners compared, at least 2.
    alpha : float, default=0.05
        Significance level.

    Returns
    -------
    float
    """
    k = int(n_learners)
    if k < 2:
        raise InputError(f"n_learners must be >= 2, got {k}")
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1), got {alpha}")
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def nemenyi_critical_difference(n_learners, n_datasets, alpha=0.05):
    """Nemenyi critical difference of average ranks, ``q_alpha sqrt(k (k + 1) / (6 N))``.

    Demsar (2006), section 3.2.2: two learners differ significantly when their average ranks
    differ by at least this much.

    Parameters
    ----------
    n_learners : int
        Number of learners compared (at least 2).
    n_datasets : int
        Number of data sets.
    alpha : {0.05, 0.10}, default=0.05
        Significance level.

    Returns
    -------
    float

    References
    ----------
    Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets.
    *Journal of Machine Learning Research* 7, 1-30.

    Examples
    --------
    >>> round(nemenyi_critical_difference(3, 30), 4)
    0.6051
    """
    k = int(n_learners)
    n = int(n_datasets)
    if n < 1:
        raise InputError(f"n_datasets must be >= 1, got {n}")
    return nemenyi_q(k, alpha) * float(np.sqrt(k * (k + 1) / (6.0 * n)))


def corrected_resampled_ttest(a, b, n_train, n_test):
    """Corrected resampled t-test of two learners on one data set (Nadeau & Bengio 2003).

    With ``a`` and ``b`` the learners' values on the same J train/test splits (folds and
    repeats of a cross-validation), d = a - b and s^2 the sample variance of d,

        t = mean(d) / sqrt((1 / J + n_test / n_train) s^2),   J - 1 degrees of freedom.

    The n_test / n_train term corrects the variance for the overlap of the training sets
    (the plain paired t-test's 1 / J alone makes far too many differences significant);
    Weka's Experimenter uses the same test (Bouckaert & Frank 2004).

    Parameters
    ----------
    a, b : array-like of shape (J,)
        Per-split values of the two learners, aligned (J >= 2).
    n_train, n_test : float
        Training and test rows per split.

    Returns
    -------
    dict
        ``mean_difference``, ``t``, ``p`` (two-sided) and ``df``.  When every difference is
        equal, t is 0 (all zero) or infinite, and p is 1 or 0.

    Examples
    --------
    >>> r = corrected_resampled_ttest([0.10, 0.12, 0.11, 0.13], [0.20, 0.21, 0.19, 0.22],
    ...                               n_train=90, n_test=10)
    >>> round(r["mean_difference"], 4), r["df"], bool(r["p"] < 0.01)
    (-0.09, 3, True)
    """
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if d.ndim != 1 or d.size < 2:
        raise InputError("the corrected resampled t-test needs at least two paired splits")
    if n_train <= 0 or n_test <= 0:
        raise InputError("n_train and n_test must be positive")
    J = d.size
    mean = float(d.mean())
    var = float(d.var(ddof=1))
    if var == 0.0:
        t = 0.0 if mean == 0.0 else float(np.sign(mean) * np.inf)
        p = 1.0 if mean == 0.0 else 0.0
    else:
        t = mean / np.sqrt((1.0 / J + n_test / n_train) * var)
        p = float(2.0 * stats.t.sf(abs(t), J - 1))
    return {"mean_difference": mean, "t": float(t), "p": p, "df": J - 1}
