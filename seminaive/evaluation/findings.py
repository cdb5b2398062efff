"""Checks of the source papers' headline findings against a summary of results.

Each check states the published claim, computes the same statistic on our results and says
whether it reproduces.  Checks whose learners or protocol are absent from the results are
skipped with a note.
"""

import numpy as np

from . import statistics
from ._format import data_sets, discretiser_label, settings_label
from ._format import learner_label as _label
from .comparisons import auto_n_section, render_comparisons

LARGE_ROWS = 8000

#: the fewest data sets on which a two-tailed sign test can reach p <= 0.05 (all won:
#: p = 2 / 2**6 = 0.031; five sets give 0.0625 at best)
MIN_SETS = 6


def _pair(summary, a, b, metric, datasets=None):
    data = summary[summary["learner"].isin([a, b])]
    if datasets is not None:
        data = data[data["dataset"].isin(datasets)]
    wide = data.pivot_table(index="dataset", columns="learner", values=metric).dropna()
    if a not in wide or b not in wide:
        return None
    return statistics.win_draw_loss(wide[a].to_numpy(), wide[b].to_numpy(), decimals=4)


def _wdl_text(res):
    star = "*" if res["p"] <= 0.05 else ""
    return f"{res['win']}/{res['draw']}/{res['loss']} (p={res['p']:.3g}){star}"


def _verdict(ok):
    return "**reproduced**" if ok else "**not reproduced**"


def paper_findings(summary, curve=None, raw=None):
    """Markdown: the findings of the papers checked on the results present.

    The headline checks of Webb et al. (2012), then every paper comparison table
    (:mod:`.comparisons`) and the ``n="auto"`` choices.

    Parameters
    ----------
    summary : pandas.DataFrame
        Output of :func:`seminaive.evaluation.report.summarise`.
    curve : pandas.DataFrame, optional
        Learning-curve rows (:func:`seminaive.evaluation.report.curves`).
    raw : pandas.DataFrame, optional
        Per-task rows (:func:`seminaive.evaluation.runner.collect`).

    Returns
    -------
    str
        Markdown.
    """

    parts = [scope_section(summary), webb2012_findings(summary, curve),
             render_comparisons(summary), auto_n_section(raw, summary)]
    return "\n".join(p.strip() + "\n" for p in parts if p)


def scope_section(summary):
    """Markdown: what the results can show -- the data sets, protocols and discretisers
    they come from, and, on fewer than :data:`MIN_SETS` data sets, what such a corpus cannot
    decide.

    Parameters
    ----------
    summary : pandas.DataFrame
        Output of :func:`seminaive.evaluation.report.summarise`.

    Returns
    -------
    str
        Markdown.

    Examples
    --------
    >>> import pandas as pd
    >>> summary = pd.DataFrame({"dataset": ["iris", "iris"], "learner": ["nb", "aode"],
    ...                         "protocol": ["cv", "cv"],
    ...                         "settings": ["cv-seed0-equal_frequency3-folds3-repeats1"] * 2})
    >>> text = scope_section(summary)
    >>> "1 data set (iris)" in text and "3 equal-frequency bins" in text
    True
    >>> "undecided" in text
    True
    """
    names = sorted(map(str, summary["dataset"].unique()))
    n = len(names)
    runs = ", ".join(f"{settings_label(k)} with {discretiser_label(k) or 'its discretiser'}"
                     for k in sorted(summary["settings"].unique()))
    shown = ", ".join(names[:12]) + (", ..." if n > 12 else "")
    lines = ["## What these results can show", "",
             f"Results on {data_sets(n)} ({shown}); runs: {runs} (numeric attributes "
             "discretised as stated)."]
    if n < MIN_SETS:
        lines += ["", f"{'One data set shows' if n == 1 else f'{n} data sets show'} how the "
                  "learners compare on that data (its values, and which learner wins "
                  "there), not how they compare over data sets, which is what the papers' "
                  "findings state: a two-tailed sign test over data sets cannot reach p <= "
                  f"0.05 on fewer than {MIN_SETS} sets, even when one learner wins on all of "
                  "them. Findings stated over data sets are marked **undecided** here, and "
                  "the W/D/L records show the direction on these sets only; run seminaive "
                  "compare on more data sets to decide them (Webb et al. 2012 use 62)."]
    return "\n".join(lines) + "\n"


def _where(summary):
    keys = sorted(summary["settings"].unique()) if "settings" in summary else []
    if not keys:
        return "these results"
    return ("the run " if len(keys) == 1 else "the runs ") + ", ".join(
        f"`{k}`" for k in keys)


def webb2012_findings(summary, curve=None, raw=None):
    """Markdown: the claims of Webb et al. 2012 (Tables 3, 4, 10, 11, Fig. 2) checked here.

    Parameters
    ----------
    summary : pandas.DataFrame
        Output of :func:`seminaive.evaluation.report.summarise` (the bias/variance protocol
        if present, else any).
    curve : pandas.DataFrame, optional
        Learning-curve rows (:func:`seminaive.evaluation.report.curves`).
    raw : pandas.DataFrame, optional
        Unused; accepted so that all finding functions take the same arguments.

    Returns
    -------
    str
        Markdown.
    """
    lines = ["## Headline findings of Webb et al. (2012), checked", ""]
    if "protocol" in summary and (summary["protocol"] == "biasvar").any():
        summary = summary[summary["protocol"] == "biasvar"]
        # several bias/variance runs (e.g. 50 and 10 repeats): the one with the most results
        settings = summary.groupby("settings")["n_tasks"].sum().idxmax()
        summary = summary[summary["settings"] == settings]
        where = ("repeated 2-fold cross-validation (the bias/variance protocol, "
                 f"`{settings}`)")
    else:
        where = _where(summary)
    learners = set(summary["learner"])
    n_sets = summary["dataset"].nunique()
    few = n_sets < MIN_SETS
    undecided = f"**undecided** ({data_sets(n_sets)}: a sign test needs {MIN_SETS} or more)"
    lines += [f"Results of {where} on {data_sets(n_sets)}. W/D/L counts wins/draws/losses of "
              "the first learner; p is the two-tailed sign test; * marks p <= 0.05.", ""]

    # 1. AODE and A2DE beat NB significantly often (Table 3)
    lines += ["**1. AODE and A2DE have lower zero-one loss and RMSE than NB significantly "
              "often (Table 3).**", ""]
    ok_all = True
    found = False
    for a in ("aode", "a2de"):
        for metric in ("zero_one", "rmse"):
            res = _pair(summary, a, "nb", metric)
            if res is None:
                continue
            found = True
            ok = res["win"] > res["loss"] and res["p"] <= 0.05
            ok_all &= ok
            lines.append(f"- {_label(a)} vs NB, {metric}: {_wdl_text(res)}")
    verdict = (undecided if few else _verdict(ok_all)) if found else "not run"
    lines += ["", f"Verdict: {verdict}.", ""]

    # 2. A2DE beats AODE on every large data set (Table 4)
    lines += [f"**2. A2DE beats AODE on every data set with >= {LARGE_ROWS:,} rows "
              "(Table 4).**", ""]
    if {"a2de", "aode"} <= learners:
        large = sorted(summary.loc[summary["n_rows"] >= LARGE_ROWS, "dataset"].unique())
        if large:
            wide = summary[summary["dataset"].isin(large)].pivot_table(
                index="dataset", columns="learner", values="zero_one")
            rows = []
            all_win = True
            for d in large:
                a2, a1 = wide.loc[d, "a2de"], wide.loc[d, "aode"]
                win = round(a2, 4) < round(a1, 4)
                all_win &= win
                rows.append(f"- {d}: A2DE {a2:.4f} vs AODE {a1:.4f} "
                            f"({'A2DE wins' if win else 'A2DE does not win'})")
            lines += rows + ["", f"Verdict: {_verdict(all_win)} on {len(large)} large sets.",
                             ""]
        else:
            lines += ["No data set with that many rows in these results.", ""]
    else:
        lines += ["Not run (needs a2de and aode).", ""]

    # 3. bias falls and variance rises with n (Table 3)
    lines += ["**3. Bias falls and variance rises from NB to AODE to A2DE (Table 3).**", ""]
    if summary["bias"].notna().any():
        ok_all, found = True, False
        for a, b in (("aode", "nb"), ("a2de", "aode"), ("a2de", "nb")):
            bias = _pair(summary, a, b, "bias")
            var = _pair(summary, a, b, "variance")
            if bias is None or var is None:
                continue
            found = True
            ok = bias["win"] > bias["loss"] and var["loss"] > var["win"]
            ok_all &= ok
            lines.append(f"- {_label(a)} vs {_label(b)}: bias {_wdl_text(bias)}, "
                         f"variance {_wdl_text(var)}")
        means = summary.groupby("learner")[["bias", "variance"]].mean()
        for key in ("nb", "aode", "a2de"):
            if key in means.index:
                lines.append(f"- mean over data sets, {_label(key)}: bias "
                             f"{means.loc[key, 'bias']:.4f}, variance "
                             f"{means.loc[key, 'variance']:.4f}")
        verdict = (undecided if few else _verdict(ok_all)) if found else "not run"
        lines += ["", f"Verdict: {verdict} (lower bias wins more often, higher variance "
                  "loses more often).", ""]
    else:
        lines += ["Not run (needs the biasvar protocol).", ""]

    # 4. learning-curve crossover (Fig. 2)
    lines += ["**4. Learning-curve crossover: NB best at the smallest training sizes, the "
              "largest n best at the largest (Fig. 2).**", ""]
    if curve is not None and len(curve):
        # several curve runs: per data set the one with the most repeats
        curve = curve[curve["learner"].isin(["nb", "aode", "a2de", "a3de"])]
        depth = curve.groupby(["dataset", "settings"])["repeat"].nunique().reset_index()
        keep = depth.sort_values("repeat").groupby("dataset").tail(1)
        curve = curve.merge(keep[["dataset", "settings"]], on=["dataset", "settings"])
        for dataset in sorted(curve["dataset"].unique()):
            part = curve[curve["dataset"] == dataset]
            table = part.pivot_table(index="train_size", columns="learner", values="zero_one")
            order = [k for k in ("nb", "aode", "a2de", "a3de") if k in table.columns]
            if len(order) < 2:
                continue
            table = table[order]
            smallest, largest = table.index.min(), table.index.max()
            best_small = table.loc[smallest].idxmin()
            best_large = table.loc[largest].idxmin()
            ok = best_small == "nb" and best_large == order[-1]
            lines.append(f"- {dataset}: best at {smallest} rows {_label(best_small)}, best "
                         f"at {largest:,} rows {_label(best_large)} — {_verdict(ok)}")
            cross = _crossings(table)
            if cross:
                lines.append("  (zero-one loss of NB first exceeded by: " + ", ".join(
                    f"{_label(k)} at {v:,} rows" for k, v in cross.items()) + ")")
        lines.append("")
    else:
        lines += ["Not run (needs the curve protocol).", ""]

    # 5. AnDE vs random forests (Tables 10-11)
    lines += ["**5. AnDE against Random Forests (Tables 10-11): AnDE has higher bias and "
              "lower variance; RF100 has lower zero-one loss on the large data sets.**", ""]
    found = False
    for rf in ("rf10", "rf100"):
        if rf not in learners:
            continue
        for a in ("nb", "aode", "a2de"):
            if a not in learners:
                continue
            found = True
            cells = []
            for metric in ("zero_one", "rmse", "bias", "variance"):
                res = _pair(summary, a, rf, metric)
                if res is not None and summary[metric].notna().any():
                    cells.append(f"{metric} {_wdl_text(res)}")
            large = sorted(summary.loc[summary["n_rows"] >= LARGE_ROWS, "dataset"].unique())
            res_large = _pair(summary, a, rf, "zero_one", large) if large else None
            if res_large is not None:
                cells.append(f"zero_one on the {len(large)} large sets "
                             f"{_wdl_text(res_large)}")
            lines.append(f"- {_label(a)} vs {_label(rf)}: " + "; ".join(cells))
    if not found:
        lines.append("Not run (needs rf10/rf100).")
    lines.append("")
    return "\n".join(lines)


def _crossings(table):
    """For each learner, the smallest training size from which it beats NB at every size."""
    out = {}
    if "nb" not in table:
        return out
    for key in table.columns:
        if key == "nb":
            continue
        better = (table[key] < table["nb"]).to_numpy()
        idx = np.flatnonzero(~better)
        first = 0 if idx.size == 0 else idx[-1] + 1
        if first < len(table):
            out[key] = int(table.index[first])
    return out

