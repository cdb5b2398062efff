"""Summaries, markdown tables and plots from the raw results of :mod:`.runner`.

``summarise`` turns the per-task rows into one row per (settings, data set, learner) -- the
mean of every metric over the tasks, plus Kohavi & Wolpert's bias and variance for the
bias/variance protocols -- and ``curves`` into one row per (data set, learner, training size,
repeat) for learning curves.  ``render`` writes the markdown report (per-data-set tables,
win/draw/loss matrices with sign-test p-values, geometric-mean ratios, Friedman test) and the
PNG plots; it only reads the cache, so ``seminaive report`` can rebuild everything.
"""

import os
import re

import numpy as np
import pandas as pd

from .. import metrics
from .._atomic import atomic_write_text
from ..exceptions import InputError
from . import plots, statistics
from ._format import learner_label as _label
from ._format import markdown_table as _markdown_table
from ._format import settings_label
from .learners import LEARNERS
from .runner import METRICS, PREDICTION_PROTOCOLS, collect, predictions

#: metrics reported, whether higher is better, and their labels
METRIC_INFO = {
    "zero_one": (False, "zero-one loss"),
    "rmse": (False, "RMSE (true class only, as in Webb et al. 2012)"),
    "rmse_all": (False, "RMSE over all classes"),
    "log_loss": (False, "log loss"),
    "auc": (True, "AUC (Hand & Till for >2 classes)"),
    "bias": (False, "bias (Kohavi-Wolpert)"),
    "variance": (False, "variance (Kohavi-Wolpert)"),
    "train_time": (False, "training time per instance (s)"),
    "test_time": (False, "classification time per instance (s)"),
}

LARGE_ROWS = 8000


def _learner_order(keys):
    order = {k: i for i, k in enumerate(LEARNERS)}
    return sorted(set(keys), key=lambda k: (order.get(k, len(order)), k))


def summarise(out, raw=None):
    """One row per (settings, protocol, dataset, learner) of the results.

    Parameters
    ----------
    out : str
        A result directory written by :func:`seminaive.evaluation.runner.run`.
    raw : pandas.DataFrame, optional
        Its per-task rows (:func:`seminaive.evaluation.runner.collect`), if already read.

    Returns
    -------
    pandas.DataFrame
        Metric means over tasks, their standard deviations over tasks (``<metric>_sd``;
        the tasks are the folds and repeats), ``n_tasks``, ``n_failed``, ``n_rows`` (the data
        set's rows seen by the protocol), and for bias/variance protocols ``bias``,
        ``variance`` and ``kw_error``.
    """
    raw = collect(out) if raw is None else raw
    if raw.empty:
        return raw
    ok = raw[raw["error"] == ""]
    if (raw["protocol"] == "curve").any():
        ok = ok[ok["protocol"] != "curve"]
    cols = [c for c in (*METRICS, "train_time", "test_time") if c in ok]
    keys = ["settings", "protocol", "dataset", "learner"]
    summary = ok.groupby(keys)[cols].mean()
    metric_cols = [c for c in METRICS if c in ok]
    if metric_cols:  # spread over the tasks (folds and repeats), shown as mean ± sd
        spread = ok.groupby(keys)[metric_cols].std(ddof=1)
        summary = summary.join(spread.add_suffix("_sd"))
    summary["n_tasks"] = ok.groupby(keys).size()
    failed = raw[raw["error"] != ""].groupby(keys).size()
    summary["n_failed"] = failed.reindex(summary.index).fillna(0).astype(int)
    sizes = ok.assign(n=ok["train_size"] + ok["test_size"]).groupby(keys)["n"].max()
    summary["n_rows"] = sizes
    summary = summary.reset_index()
    bias, variance, kw_error = [], [], []
    for row in summary.itertuples():
        value = (np.nan, np.nan, np.nan)
        # the decomposition needs every repeat's predictions: none when a task failed
        if row.protocol in PREDICTION_PROTOCOLS and row.n_failed == 0:
            found = predictions(out, row.settings, row.dataset, row.learner)
            if found is not None:
                matrix, truth = found
                use = truth >= 0
                n_classes = int(max(matrix.max(), truth.max())) + 1
                kw = metrics.kohavi_wolpert(truth[use], matrix[use], n_classes)
                value = (kw["bias"], kw["variance"], kw["error"])
        bias.append(value[0])
        variance.append(value[1])
        kw_error.append(value[2])
    summary["bias"], summary["variance"], summary["kw_error"] = bias, variance, kw_error
    return summary


def curves(out, raw=None):
    """Learning-curve rows of the results.

    Parameters
    ----------
    out : str
        A result directory written by :func:`seminaive.evaluation.runner.run`.
    raw : pandas.DataFrame, optional
        Its per-task rows, if already read.

    Returns
    -------
    pandas.DataFrame
        Columns settings, dataset, learner, repeat, train_size and the metrics; empty
        without curve results.
    """
    raw = collect(out) if raw is None else raw
    if raw.empty or not (raw["protocol"] == "curve").any():
        return pd.DataFrame()
    rows = raw[(raw["protocol"] == "curve") & (raw["error"] == "")]
    return rows[["settings", "dataset", "learner", "repeat", "train_size",
                 *[m for m in METRICS if m in rows]]].reset_index(drop=True)


# ------------------------------------------------------------------------------- markdown
def _fmt(value, metric):
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "–"
    if metric in ("train_time", "test_time"):
        return f"{value:.2e}"
    return f"{value:.4f}"


def metric_table(summary, metric, learners):
    """Data sets x learners table of one metric: mean ± standard deviation over the tasks
    (folds and repeats) where there are several; the best mean of each row in bold.

    Parameters
    ----------
    summary : pandas.DataFrame
        Output of :func:`summarise`.
    metric : str
        A key of ``METRIC_INFO``.
    learners : list of str
        Learner keys, in column order.

    Returns
    -------
    str
        A markdown table.
    """
    higher, _ = METRIC_INFO[metric]
    wide = summary.pivot_table(index="dataset", columns="learner", values=metric)
    wide = wide.reindex(columns=[lr for lr in learners if lr in wide.columns])
    spread = None
    if f"{metric}_sd" in summary and summary[f"{metric}_sd"].notna().any():
        spread = summary.pivot_table(index="dataset", columns="learner",
                                     values=f"{metric}_sd", dropna=False)
    rows_info = summary.groupby("dataset")["n_rows"].max()
    out = []
    for dataset, values in wide.iterrows():
        best = values.max() if higher else values.min()
        cells = []
        for lr in wide.columns:
            text = _fmt(values[lr], metric)
            if metric not in ("train_time", "test_time") and values[lr] == best:
                text = f"**{text}**"
            if spread is not None and lr in spread and dataset in spread.index \
                    and not pd.isna(spread.loc[dataset, lr]):
                text += f" ± {spread.loc[dataset, lr]:.4f}"
            cells.append(text)
        out.append([dataset, int(rows_info.get(dataset, 0)), *cells])
    mean = wide.mean(axis=0)
    if metric in ("train_time", "test_time"):
        mean = np.exp(np.log(wide.clip(lower=1e-12)).mean(axis=0))
        label = "geometric mean"
    else:
        label = "mean"
    out.append([f"*{label}*", "", *[_fmt(mean[lr], metric) for lr in wide.columns]])
    frame = pd.DataFrame(out, columns=["data set", "rows", *[_label(c) for c in wide.columns]])
    return _markdown_table(frame)


def wdl_section(summary, metric, learners, decimals=4):
    """Win/draw/loss matrix (row learner vs column learner) with sign-test p-values.

    Parameters
    ----------
    summary : pandas.DataFrame
        Output of :func:`summarise`.
    metric : str
        A key of ``METRIC_INFO``.
    learners : list of str
        Learner keys, in row and column order.
    decimals : int, default=4
        Values equal to this many decimals are a draw.

    Returns
    -------
    str
        A markdown table.
    """
    higher, _ = METRIC_INFO[metric]
    present = [lr for lr in learners if lr in set(summary["learner"])]
    data = summary[["dataset", "learner", metric]].dropna()
    wdl, pvals = statistics.wdl_matrix(data, metric, present, higher_is_better=higher,
                                       decimals=decimals)
    rows = []
    for a in present:
        cells = []
        for b in present:
            if a == b:
                cells.append("")
                continue
            text = str(wdl.loc[a, b])
            p = pvals.loc[a, b]
            if p is not None and not pd.isna(p):
                text += f" (p={p:.3g}){'*' if p <= 0.05 else ''}"
            cells.append(text)
        rows.append([_label(a), *cells])
    frame = pd.DataFrame(rows, columns=["W/D/L of row vs column", *[_label(b) for b in present]])
    return _markdown_table(frame)


def ratio_section(summary, metric, learners):
    """Geometric mean over data sets of metric(row) / metric(column) (as in Webb et al. 2005).

    Parameters
    ----------
    summary : pandas.DataFrame
        Output of :func:`summarise`.
    metric : str
        A key of ``METRIC_INFO``.
    learners : list of str
        Learner keys, in row and column order.

    Returns
    -------
    str
        A markdown table.
    """
    wide = summary.pivot_table(index="dataset", columns="learner", values=metric)
    present = [lr for lr in learners if lr in wide.columns]
    rows = []
    for a in present:
        cells = []
        for b in present:
            if a == b:
                cells.append("")
                continue
            both = wide[[a, b]].dropna()
            ratio, n_used = statistics.geometric_mean_ratio(both[a].to_numpy(),
                                                             both[b].to_numpy())
            cells.append(f"{ratio:.3f}" if n_used else "–")
        rows.append([_label(a), *cells])
    frame = pd.DataFrame(rows, columns=["ratio row / column", *[_label(b) for b in present]])
    return _markdown_table(frame)


def _settings_title(settings):
    protocol = settings.split("-")[0]
    titles = {
        "cv": "Stratified cross-validation",
        "biasvar": ("Bias/variance: repeated 2-fold cross-validation (Webb et al. 2012 use 50 "
                    "repeats)"),
        "biasvar1000": "Bias/variance: 1,000 training / 1,000 test rows (Chen et al. 2014)",
        "holdout": "Holdout",
        "curve": "Learning curves (Webb et al. 2012)",
    }
    return f"{titles.get(protocol, protocol)}: {settings_label(settings)}"


def render(out_dirs, markdown_path=None, plots_dir=None, title="Results", preamble=None,
           findings=None, section=None):
    """Write the markdown report and PNG plots of one or more result directories.

    Parameters
    ----------
    out_dirs : str or list of str
        Directories written by :func:`seminaive.evaluation.runner.run`.
    markdown_path : str, optional
        Where to write the report (default ``<first dir>/report.md``).
    plots_dir : str, optional
        Where to write the plots (default ``<directory of the report>/plots``, or
        ``plots/<section>`` for a section); the report links them relative to itself.
    title : str, default="Results"
        The report's first heading.
    preamble : str, optional
        Markdown placed after the title (e.g. the reading of the findings).
    findings : callable, optional
        ``findings(summary, curves, raw) -> markdown``: checks of published claims
        (see ``seminaive.evaluation.findings``).
    section : str, optional
        Write the report as the section ``section`` of ``markdown_path`` (between the lines
        ``<!-- section -->`` and ``<!-- /section -->``, replaced if present, appended
        otherwise; headings one level down) instead of the whole file.

    Returns
    -------
    str
        The markdown text (also written to ``markdown_path``).

    Raises
    ------
    InputError
        A result directory does not exist (nothing is created), or the report path cannot
        be written.

    Examples
    --------
    A directory without results gives a report with the title only:

    >>> import os, tempfile
    >>> from seminaive.evaluation.report import render
    >>> from seminaive.evaluation.runner import RunConfig, run
    >>> out = tempfile.mkdtemp()
    >>> render(out, title="No results yet")
    '# No results yet\\n'
    >>> os.path.exists(os.path.join(out, "report.md"))
    True

    After a run, the report has tables and plots (drawing them takes a few seconds):

    >>> config = RunConfig(["kr-vs-kp"], ["nb", "aode"], protocol_params={"folds": 2})
    >>> _ = run(config, out, progress=False)  # doctest: +SKIP
    >>> text = render(out)  # doctest: +SKIP
    >>> "AODE" in text, os.path.isdir(os.path.join(out, "plots"))  # doctest: +SKIP
    (True, True)
    """
    if isinstance(out_dirs, (str, os.PathLike)):
        out_dirs = [out_dirs]
    for out in out_dirs:
        if not os.path.isdir(out):
            raise InputError(f"no result folder {out}: give folders written by seminaive "
                             "compare (seminaive.evaluation.runner.run)")
    markdown_path = markdown_path or os.path.join(out_dirs[0], "report.md")
    base = os.path.dirname(os.path.abspath(markdown_path))
    # a section's plots go to a folder of their own: they never overwrite the page's
    plots_dir = plots_dir or os.path.join(base, "plots", *([section] if section else []))
    os.makedirs(plots_dir, exist_ok=True)
    summaries, curve_frames, raws = [], [], []
    for out in out_dirs:
        raw = collect(out)
        if raw.empty:
            continue
        raws.append(raw)
        summaries.append(summarise(out, raw))
        curve_frames.append(curves(out, raw))
    raw = pd.concat(raws, ignore_index=True) if raws else pd.DataFrame()
    summary = pd.concat(summaries, ignore_index=True) if summaries else pd.DataFrame()
    curve = pd.concat(curve_frames, ignore_index=True) if curve_frames else pd.DataFrame()
    parts = [f"# {title}", ""]
    if preamble:
        parts += [preamble.strip(), ""]
    if findings is not None and not summary.empty:
        parts += [findings(summary, curve, raw).strip(), ""]
    for settings in (sorted(summary["settings"].unique()) if not summary.empty else []):
        parts += _settings_section(summary[summary["settings"] == settings], settings,
                                   plots_dir, base,
                                   raw[raw["settings"] == settings] if not raw.empty else None)
    if not curve.empty:
        for settings in sorted(curve["settings"].unique()):
            parts += _curve_section(curve[curve["settings"] == settings], plots_dir, base)
    text = "\n".join(parts).rstrip() + "\n"
    if section is not None:
        text = _as_section(text, section, markdown_path)
    atomic_write_text(markdown_path, text)
    return text


def _as_section(text, name, path):
    """The file at ``path`` with ``text`` (headings one level down) as section ``name``."""
    if not re.fullmatch(r"[\w-]+", name):
        raise ValueError(f"section names are letters, digits, - and _: got {name!r}")
    lines, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        lines.append("#" + line if line.startswith("#") and not fenced else line)
    body = "\n".join(lines)
    block = f"<!-- {name} -->\n{body}\n<!-- /{name} -->"
    old = ""
    if os.path.exists(path):
        with open(path) as fh:
            old = fh.read()
    pattern = re.compile(rf"<!-- {re.escape(name)} -->.*?<!-- /{re.escape(name)} -->", re.S)
    if pattern.search(old):
        return pattern.sub(lambda _: block, old)
    return old.rstrip("\n") + ("\n\n" if old else "") + block + "\n"




def _rel(path, base):
    return os.path.relpath(path, base).replace(os.sep, "/")


#: with more learners than this, the W/D/L matrices cover only these (the paper comparison
#: tables cover the rest) and the per-data-set tables are split into groups of this size
MAX_MATRIX_LEARNERS = 8
MATRIX_LEARNERS = ("nb", "aode", "a2de", "a3de", "tan", "kdb1", "rf10", "rf100")


def _chunks(items, size):
    return [items[i:i + size] for i in range(0, len(items), size)]


def ttest_section(raw, metric, learners):
    """Corrected resampled t-tests (Nadeau & Bengio 2003) of every pair of learners on one
    data set: mean difference (row - column) and p-value over the paired splits.

    Parameters
    ----------
    raw : pandas.DataFrame
        Per-task rows of one data set and settings (:func:`seminaive.evaluation.runner.collect`).
    metric : str
        A key of ``METRIC_INFO``.
    learners : list of str
        Learner keys, in row and column order.

    Returns
    -------
    str
        A markdown table (empty when fewer than two splits are paired).
    """
    ok = raw[raw["error"] == ""]
    wide = ok.pivot_table(index=["repeat", "fold"], columns="learner", values=metric)
    present = [lr for lr in learners if lr in wide.columns]
    wide = wide[present].dropna()
    if len(wide) < 2 or len(present) < 2:
        return ""
    n_train, n_test = float(ok["train_size"].mean()), float(ok["test_size"].mean())
    rows = []
    for a in present:
        cells = []
        for b in present:
            if a == b:
                cells.append("")
                continue
            r = statistics.corrected_resampled_ttest(wide[a], wide[b], n_train, n_test)
            cells.append(f"{r['mean_difference']:+.4f} (p={r['p']:.3g})"
                         f"{'*' if r['p'] <= 0.05 else ''}")
        rows.append([_label(a), *cells])
    frame = pd.DataFrame(rows, columns=["row - column", *[_label(b) for b in present]])
    return _markdown_table(frame)


def _settings_section(summary, settings, plots_dir, base, raw=None):
    all_learners = _learner_order(summary["learner"])
    learners = all_learners
    if len(all_learners) > MAX_MATRIX_LEARNERS:
        learners = [lr for lr in all_learners if lr in MATRIX_LEARNERS]
    slug = settings.replace("/", "_")
    parts = [f"## {_settings_title(settings)}", "",
             f"Settings `{settings}`: {summary['dataset'].nunique()} data sets, learners "
             + ", ".join(f"{_label(lr)} (`{lr}`)" for lr in all_learners) + ".", ""]
    if learners != all_learners:
        parts += ["With this many learners the W/D/L matrices and ratio tables below cover "
                  + ", ".join(_label(lr) for lr in learners) + "; the paper comparison "
                  "tables above cover the others.", ""]
    failed = summary[summary["n_failed"] > 0]
    if not failed.empty:
        parts += ["Failed tasks (left out of the means): " + ", ".join(
            f"{_label(r.learner)} on {r.dataset} ({r.n_failed})" for r in failed.itertuples())
            + ".", ""]
    metric_list = ["zero_one", "rmse"]
    if summary["bias"].notna().any():
        metric_list += ["bias", "variance"]
    metric_list += ["log_loss", "auc", "rmse_all", "train_time", "test_time"]
    one_set = summary["dataset"].nunique() == 1
    if one_set and raw is not None and len(learners) > 1:
        parts += ["### Corrected resampled t-test", "",
                  "One data set: each cell is the mean difference of the row learner minus "
                  "the column learner over the paired folds and repeats, and the two-sided "
                  "p-value of the corrected resampled t-test (Nadeau & Bengio 2003, as "
                  "Weka's Experimenter), `*` when p <= 0.05.", ""]
        for metric in metric_list:
            if metric in raw and summary[metric].notna().any():
                table = ttest_section(raw, metric, learners)
                if table:
                    parts += [f"**{METRIC_INFO[metric][1]}**", "", table, ""]
    elif not one_set:
        parts += ["### Win/draw/loss", "",
                  "Each cell: wins/draws/losses of the row learner against the column "
                  "learner over data sets (lower is better except AUC; values rounded to 4 "
                  "decimals before comparing), two-tailed binomial sign test p-value, `*` "
                  "when p <= 0.05.", ""]
        for metric in metric_list:
            if summary[metric].notna().any() and len(learners) > 1:
                parts += [f"**{METRIC_INFO[metric][1]}**", "",
                          wdl_section(summary, metric, learners), ""]
    if len(learners) > 1 and not one_set:
        parts += ["### Geometric mean of error ratios (as in Webb et al. 2005)", "",
                  "Geometric mean over data sets of row / column: below 1 means the row "
                  "learner has the lower value.", ""]
        for metric in ("zero_one", "rmse"):
            parts += [f"**{METRIC_INFO[metric][1]}**", "",
                      ratio_section(summary, metric, learners), ""]
        wide = summary.pivot_table(index="dataset", columns="learner", values="zero_one")
        # the Friedman test needs every learner on every data set: leave out learners run on
        # a subset (LBR on the small sets)
        ranked = [lr for lr in all_learners if lr in wide and wide[lr].notna().all()]
        complete = wide[ranked].dropna()
        if len(complete) >= 2 and len(ranked) >= 3:
            fr = statistics.friedman(summary[summary["dataset"].isin(complete.index)],
                                     "zero_one", ranked)
            cd = statistics.nemenyi_critical_difference(len(ranked), fr["n_datasets"])
            png = os.path.join(plots_dir, f"cd-{slug}.png")
            ranks = fr["average_ranks"].rename(index=_label)
            plots.plot_cd_diagram(ranks, cd, png, title="zero-one loss")
            parts += ["### Friedman test and critical difference (zero-one loss)", "",
                      f"Friedman chi-square {fr['statistic']:.2f}, p = {fr['p']:.3g} over "
                      f"{fr['n_datasets']} data sets; Nemenyi critical difference {cd:.2f} "
                      "(alpha 0.05). Average ranks: " + ", ".join(
                          f"{k} {v:.2f}" for k, v in ranks.sort_values().items()) + ".", "",
                      f"![critical difference diagram]({_rel(png, base)})", ""]
    labelled = summary.assign(learner=summary["learner"].map(_label))
    if summary["bias"].notna().any():
        png = os.path.join(plots_dir, f"biasvar-{slug}.png")
        plots.plot_bias_variance(labelled, png)
        parts += [f"![bias and variance]({_rel(png, base)})", ""]
    png = os.path.join(plots_dir, f"times-{slug}.png")
    plots.plot_times(labelled, png)
    parts += [f"![training and classification time per instance]({_rel(png, base)})", ""]
    parts += ["### Per data set", ""]
    for metric in metric_list:
        if summary[metric].notna().any():
            for group in _chunks(all_learners, MAX_MATRIX_LEARNERS):
                parts += [f"**{METRIC_INFO[metric][1]}**", "",
                          metric_table(summary, metric, group), ""]
    return parts


def _curve_section(curve, plots_dir, base):
    settings = curve["settings"].iloc[0]
    n_repeats = curve["repeat"].nunique()
    tag = f"-r{n_repeats}"
    parts = [f"## Learning curves (Webb et al. 2012, §4.1), {n_repeats} repeats", "",
             f"Settings `{settings}`. Per repeat 1,000 random test rows; nested training sets "
             "of 23, 46, 92, ... rows drawn from the rest. Points are means over repeats, "
             "error bars standard errors.", ""]
    labelled = curve.assign(learner=curve["learner"].map(_label))
    for dataset in sorted(curve["dataset"].unique()):
        for metric in ("zero_one", "rmse"):
            png = os.path.join(plots_dir, f"curve-{dataset}-{metric}{tag}.png")
            plots.plot_learning_curves(labelled[labelled["dataset"] == dataset], png,
                                       metric=metric, dataset=dataset)
            parts += [f"![{dataset} {metric}]({_rel(png, base)})", ""]
        table = curve[curve["dataset"] == dataset].pivot_table(
            index="train_size", columns="learner", values="zero_one")
        table = table.reindex(columns=_learner_order(table.columns))
        rows = [[size, *[_fmt(v, "zero_one") for v in values]]
                for size, values in table.iterrows()]
        parts += [f"**{dataset}: mean zero-one loss by training size**", "",
                  _markdown_table(pd.DataFrame(
                      rows, columns=["training rows", *[_label(c) for c in table.columns]])),
                  ""]
    return parts
