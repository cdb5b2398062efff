"""Figures of experiment results, written as PNG files.

Figures are built on :class:`matplotlib.figure.Figure` objects rendered with the Agg canvas,
never through ``pyplot``: nothing is registered with a GUI backend, nothing stays open, and
plotting works on headless machines whatever backend is configured.

Input tables are tidy DataFrames (one row per observation):

* learning curves: ``dataset, learner, train_size, repeat, <metric>``
* bias/variance: ``dataset, learner, bias, variance``
* times: ``dataset, learner, train_time, test_time`` (seconds per instance)
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .._atomic import atomic_path
from ..exceptions import InputError

__all__ = [
    "plot_learning_curves",
    "plot_bias_variance",
    "plot_times",
    "plot_cd_diagram",
    "cd_groups",
]


def _check_columns(frame, columns, what):
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"{what} must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{what} lacks columns {missing}; it needs {list(columns)} "
                         f"(has {list(frame.columns)})")
    if frame.empty:
        raise InputError(f"{what} is empty: nothing to plot")


def _select_dataset(frame, dataset, what):
    if dataset is None:
        return frame
    rows = frame[frame["dataset"] == dataset]
    if rows.empty:
        raise InputError(f"{what} has no rows for dataset {dataset!r}; datasets are "
                         f"{sorted(map(str, frame['dataset'].unique()))}")
    return rows


def _save(fig, path):
    FigureCanvasAgg(fig)
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight")
    return path


def _learners(frame):
    return list(pd.unique(frame["learner"]))


def plot_learning_curves(curves, path, metric="zero_one", dataset=None):
    """Learning curves: mean ``metric`` against training set size, one line per learner.

    Error bars are the standard error of the mean over repeats; the x axis is log2-scaled.
    With several data sets (and ``dataset=None``) each data set gets its own panel.

    Parameters
    ----------
    curves : DataFrame
        Columns ``dataset, learner, train_size, repeat`` and ``metric``.
    path : str or Path
        PNG file to write.
    metric : str, default="zero_one"
    dataset : str, optional
        Plot only this data set.

    Returns
    -------
    path
    """
    _check_columns(curves, ["dataset", "learner", "train_size", "repeat", metric], "curves")
    curves = _select_dataset(curves, dataset, "curves")
    datasets = list(pd.unique(curves["dataset"]))
    n_cols = min(3, len(datasets))
    n_rows = math.ceil(len(datasets) / n_cols)
    fig = Figure(figsize=(4.8 * n_cols, 3.6 * n_rows), layout="constrained")
    axes = fig.subplots(n_rows, n_cols, squeeze=False).ravel()
    learners = _learners(curves)
    for ax, name in zip(axes, datasets, strict=False):
        rows = curves[curves["dataset"] == name]
        for learner in learners:
            points = rows[rows["learner"] == learner]
            if points.empty:
                continue
            stats = points.groupby("train_size")[metric].agg(["mean", "std", "count"])
            se = (stats["std"] / np.sqrt(stats["count"])).fillna(0.0)
            ax.errorbar(stats.index.to_numpy(dtype=float), stats["mean"], yerr=se,
                        marker="o", markersize=3, capsize=3, label=str(learner))
        ax.set_xscale("log", base=2)
        ax.set_xlabel("training set size")
        ax.set_ylabel(metric)
        ax.set_title(str(name))
        ax.grid(True, alpha=0.3)
    for ax in axes[len(datasets):]:
        ax.set_visible(False)
    axes[0].legend(fontsize="small")
    fig.suptitle(f"Learning curves ({metric}; error bars: standard error over repeats)",
                 fontsize="medium")
    return _save(fig, path)


def plot_bias_variance(summary, path, dataset=None):
    """Stacked bars of bias and variance per learner (bias + variance = zero-one error).

    With several data sets and ``dataset=None`` the bars show the mean over the data sets on
    which every learner has a value, and the title says how many.

    Parameters
    ----------
    summary : DataFrame
        Columns ``dataset, learner, bias, variance``.
    path : str or Path
    dataset : str, optional

    Returns
    -------
    path
    """
    _check_columns(summary, ["dataset", "learner", "bias", "variance"], "summary")
    summary = _select_dataset(summary, dataset, "summary")
    learners = _learners(summary)
    table = summary.pivot_table(index="dataset", columns="learner",
                                values=["bias", "variance"], aggfunc="mean")
    complete = table.dropna()
    if complete.empty:
        raise InputError("no data set has bias and variance for every learner")
    bias = complete["bias"].mean().reindex(learners).to_numpy()
    variance = complete["variance"].mean().reindex(learners).to_numpy()
    n = len(complete)
    fig = Figure(figsize=(max(4.0, 0.9 * len(learners) + 2), 4.0))
    ax = fig.subplots()
    x = np.arange(len(learners))
    ax.bar(x, bias, label="bias", color="tab:blue")
    ax.bar(x, variance, bottom=bias, label="variance", color="tab:orange")
    for xi, total in zip(x, bias + variance, strict=True):
        ax.text(xi, total, f"{total:.3f}", ha="center", va="bottom", fontsize="small")
    ax.set_xticks(x, [str(name) for name in learners], rotation=30, ha="right")
    ax.set_ylabel("zero-one loss = bias + variance")
    if n == 1:
        title = f"Bias/variance on {complete.index[0]}"
    else:
        title = f"Bias/variance, mean over {n} data sets"
    ax.set_title(title)
    ax.legend(fontsize="small")
    ax.grid(True, axis="y", alpha=0.3)
    return _save(fig, path)


def _geometric_mean(values):
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values) & (values > 0)]
    return float(np.exp(np.mean(np.log(values)))) if values.size else np.nan


def plot_times(summary, path):
    """Training and classification time per instance of each learner, log scale.

    Bars are geometric means over data sets (times differ by orders of magnitude between
    data sets); zero or missing times are left out of the mean.

    Parameters
    ----------
    summary : DataFrame
        Columns ``dataset, learner, train_time, test_time`` in seconds per instance.
    path : str or Path

    Returns
    -------
    path
    """
    _check_columns(summary, ["dataset", "learner", "train_time", "test_time"], "summary")
    learners = _learners(summary)
    train = [_geometric_mean(summary.loc[summary["learner"] == name, "train_time"])
             for name in learners]
    test = [_geometric_mean(summary.loc[summary["learner"] == name, "test_time"])
            for name in learners]
    if not np.isfinite(train + test).any():
        raise InputError("no positive time to plot")
    n = summary["dataset"].nunique()
    fig = Figure(figsize=(max(4.0, 0.9 * len(learners) + 2), 4.0))
    ax = fig.subplots()
    x = np.arange(len(learners))
    width = 0.38
    ax.bar(x - width / 2, train, width, label="training")
    ax.bar(x + width / 2, test, width, label="classification")
    ax.set_yscale("log")
    ax.set_xticks(x, [str(name) for name in learners], rotation=30, ha="right")
    ax.set_ylabel("seconds per instance")
    ax.set_title(f"Time per instance, geometric mean over {n} data set{'s' * (n != 1)}")
    ax.legend(fontsize="small")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    return _save(fig, path)


def cd_groups(average_ranks, critical_difference):
    """Groups of learners whose average ranks are not significantly different.

    Learners are sorted by average rank; each group is a maximal run of consecutive learners
    whose ranks span less than ``critical_difference`` (Demsar 2006: two learners differ
    significantly when their ranks differ by at least the critical difference).  Groups of a
    single learner and groups contained in another are left out.

    Parameters
    ----------
    average_ranks : Series or mapping
        Learner name -> average rank.
    critical_difference : float

    Returns
    -------
    list of list of str
        In order of their best learner.
    """
    ranks = pd.Series(average_ranks, dtype=np.float64).sort_values(kind="stable")
    names, values = list(ranks.index), ranks.to_numpy()
    groups, last_end = [], -1
    for i in range(len(values)):
        end = i
        while end + 1 < len(values) and values[end + 1] - values[i] < critical_difference:
            end += 1
        if end > i and end > last_end:
            groups.append(names[i:end + 1])
            last_end = end
    return groups


def plot_cd_diagram(average_ranks, critical_difference, path, title=None):
    """Critical-difference diagram (Demsar 2006, Fig. 1).

    An axis of average ranks (1 = best, on the left), every learner joined to its rank,
    the better half labelled on the left and the others on the right, and thick bars joining
    learners not significantly different (:func:`cd_groups`).  The critical difference is
    drawn as an interval above the axis.

    Parameters
    ----------
    average_ranks : Series or mapping
        Learner name -> average rank, e.g. ``friedman(...)["average_ranks"]``.
    critical_difference : float
        E.g. :func:`~seminaive.evaluation.statistics.nemenyi_critical_difference`.
    path : str or Path
    title : str, optional

    Returns
    -------
    path
    """
    ranks = pd.Series(average_ranks, dtype=np.float64).sort_values(kind="stable")
    if ranks.empty or ranks.isna().any():
        raise InputError("average_ranks must hold a finite rank for every learner")
    if not critical_difference >= 0:
        raise InputError(f"critical_difference must be >= 0, got {critical_difference}")
    k = len(ranks)
    low = min(1, math.floor(ranks.min()))
    high = max(k, math.ceil(ranks.max()))
    groups = cd_groups(ranks, critical_difference)
    n_left = math.ceil(k / 2)
    group_y = [0.35 + 0.18 * g for g in range(len(groups))]
    first_label = (group_y[-1] if groups else 0.2) + 0.4
    label_y = [first_label + 0.35 * i for i in range(max(n_left, k - n_left))]
    height = label_y[-1] + 0.4
    fig = Figure(figsize=(7.0, 1.2 + 0.45 * height))
    ax = fig.subplots()
    ax.set_xlim(low - 0.5, high + 0.5)
    ax.set_ylim(height, -1.2)
    ax.axis("off")
    # rank axis with ticks
    ax.plot([low, high], [0, 0], color="black", linewidth=1)
    for tick in range(low, high + 1):
        ax.plot([tick, tick], [0, -0.15], color="black", linewidth=1)
        ax.text(tick, -0.25, str(tick), ha="center", va="bottom", fontsize="small")
    # critical difference interval
    ax.plot([low, low + critical_difference], [-0.85, -0.85], color="black", linewidth=1.5)
    for end in (low, low + critical_difference):
        ax.plot([end, end], [-0.95, -0.75], color="black", linewidth=1)
    ax.text(low + critical_difference / 2, -0.95, f"CD = {critical_difference:.3f}",
            ha="center", va="bottom", fontsize="small")
    # learners: better half to the left, the rest to the right
    for i, (name, rank) in enumerate(ranks.items()):
        left = i < n_left
        y = label_y[i] if left else label_y[k - 1 - i]
        x_end = low - 0.2 if left else high + 0.2
        ax.plot([rank, rank, x_end], [0, y, y], color="black", linewidth=0.8)
        ax.text(x_end - 0.05 if left else x_end + 0.05, y, f"{name} ({rank:.2f})",
                ha="right" if left else "left", va="center", fontsize="small")
    # groups of learners not significantly different
    for y, members in zip(group_y, groups, strict=True):
        ax.plot([ranks[members[0]] - 0.04, ranks[members[-1]] + 0.04], [y, y],
                color="black", linewidth=4, solid_capstyle="butt")
    if title:
        ax.set_title(title, fontsize="medium")
    return _save(fig, path)
