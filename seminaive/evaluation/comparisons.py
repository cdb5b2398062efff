"""The source papers' comparison tables, recomputed on our results.

Each :class:`Comparison` names pairs of learners (``learner`` against ``reference``), the
metrics the paper compares them on, and which results it uses (protocol, minimum data-set
size).  :func:`render_comparisons` writes one markdown table per comparison: for every pair
and metric the win/draw/loss record with the two-tailed sign test, the geometric mean of the
ratio learner / reference (the summary statistic of Webb et al. 2005), and the two
learners' training and classification times per instance.  Pairs whose learners are missing
from the results are left out with a note, so the same report works on partial results.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import statistics
from ._format import discretiser_label, settings_label
from ._format import learner_label as _label
from ._format import markdown_table as _markdown

#: metrics where a higher value is better
HIGHER_IS_BETTER = {"auc"}
METRIC_NAMES = {"zero_one": "zero-one loss", "rmse": "RMSE", "rmse_all": "RMSE (all classes)",
                "log_loss": "log loss", "auc": "AUC", "bias": "bias", "variance": "variance"}


@dataclass(frozen=True)
class Comparison:
    """One paper table: pairs ``(learner, reference)`` compared on ``metrics``.

    Parameters
    ----------
    key : str
        Identifier naming the paper and table, e.g. ``"webb2012-table5"``.
    title : str
        What is compared, e.g. ``"AODE and A2DE against TAN"``.
    source : str
        The author-year citation of the table, e.g. ``"Webb et al. 2012, Table 5"``.
    pairs : tuple of (str, str)
        Learner keys ``(learner, reference)``.
    metrics : tuple of str, default=("zero_one", "rmse")
        Metrics compared.
    protocol : str, optional
        The results used; ``None``: the first protocol present of biasvar, cv, holdout.
    min_rows : int, default=0
        Only data sets with at least that many rows.
    variance_protocol : str, optional
        Take bias and variance from this protocol instead (Chen et al. 2014 computes them on
        1,000/1,000 samples of the larger sets).
    variance_min_rows : int, default=0
        ``min_rows`` of ``variance_protocol``.
    note : str, default=""
        What the paper published, printed above the table.
    """

    key: str
    title: str
    source: str
    pairs: tuple
    metrics: tuple = ("zero_one", "rmse")
    protocol: str = None
    min_rows: int = 0
    variance_protocol: str = None
    variance_min_rows: int = 0
    note: str = ""


PAPER_COMPARISONS = (
    Comparison(
        "webb2012-table5", "AODE and A2DE against TAN", "Webb et al. 2012, Table 5",
        pairs=(("aode", "tan"), ("a2de", "tan")),
        metrics=("bias", "variance", "zero_one", "rmse"), protocol="biasvar",
        note="Published (62 sets): TAN has lower bias but higher variance than AODE, and "
             "AODE the lower error more often; against A2DE, TAN loses its bias advantage "
             "and A2DE's error advantage is more consistent still."),
    Comparison(
        "webb2005-aode", "AODE against NB, LBR, TAN and SP-TAN", "Webb et al. 2005 "
        "(the AODE paper's tables)",
        pairs=(("aode", "nb"), ("aode", "lbr"), ("aode", "tan"), ("aode", "sptan")),
        metrics=("zero_one", "bias", "variance", "rmse"), protocol="biasvar",
        note="Published: AODE has lower error than NB significantly often and is comparable "
             "to LBR and SP-TAN (W/D/L not significant) at a fraction of their training "
             "(SP-TAN) or classification (LBR) time. LBR is run on the data sets of at most "
             "3,000 rows only (it is lazy: a greedy search per test row)."),
    Comparison(
        "webb2012-kdb-hnb", "AODE against KDB(1) and HNB", "structure learners Weka ships",
        pairs=(("aode", "kdb1"), ("aode", "hnb"), ("a2de", "kdb1"), ("a2de", "hnb")),
        metrics=("zero_one", "rmse", "bias", "variance"), protocol="biasvar"),
    Comparison(
        "cerquides2005", "MAPLMG, MAPLMD and BMAAODE against AODE",
        "Cerquides & de Màntaras 2005, §6",
        pairs=(("maplmg", "aode"), ("maplmd", "aode"), ("aode", "bmaaode")),
        metrics=("zero_one", "log_loss", "auc", "rmse"), protocol="biasvar",
        note="Published (W/D/L of per-data-set t-tests at 95%, not sign tests): MAPLMG and "
             "MAPLMD improve on AODE significantly in error, log loss and AUC (except MAPLMD's "
             "AUC on the UCI sets); AODE beats BMAAODE (UCI sets: AUC 26/11/1, error 25/8/5, "
             "log loss 29/4/5), because exact model averaging concentrates on one ODE."),
    Comparison(
        "webb2012-table6", "A2DE and AODE against MAPLMG, all data sets",
        "Webb et al. 2012, Table 6",
        pairs=(("a2de", "maplmg"), ("aode", "maplmg")),
        metrics=("zero_one", "rmse", "bias", "variance"), protocol="biasvar",
        note="Published (62 sets): MAPLMG has lower bias and higher variance than AODE; A2DE "
             "has lower bias and higher variance than MAPLMG; the zero-one loss differences "
             "are not significant over all sets."),
    Comparison(
        "webb2012-table7", "A2DE and AODE against MAPLMG, data sets with >= 8,000 rows",
        "Webb et al. 2012, Table 7",
        pairs=(("a2de", "maplmg"), ("aode", "maplmg")),
        metrics=("zero_one", "rmse", "bias", "variance"), protocol="biasvar", min_rows=8000,
        note="Published (the ten largest of 62 sets): A2DE has lower zero-one loss and RMSE "
             "than MAPLMG on every one (p = 0.001)."),
    Comparison(
        "swaode2024-waode", "WAODE-MI and WAODE-KL against AODE",
        "the SWAODE paper (2024), Tables 5-7",
        pairs=(("waode-mi", "aode"), ("waode-kl", "aode"), ("waode-kl", "waode-mi")),
        metrics=("zero_one", "log_loss", "rmse"), protocol="biasvar"),
    Comparison(
        "chen2014-table2", "ASAODE against AODE, WAODE, AODE-SR, BSE-AODE and A2DE",
        "Chen et al. 2014, Table 2",
        pairs=(("asaode", "aode"), ("asaode", "waode-mi"), ("asaode", "aodesr"),
               ("asaode", "bseaode-ce"), ("asaode", "a2de"), ("bseaode-ce", "aode"),
               ("aodesr", "aode"), ("a2de", "aode")),
        metrics=("rmse", "zero_one", "bias", "variance"), protocol="biasvar",
        variance_protocol="biasvar1000", variance_min_rows=2000,
        note="Chen et al. (2014) measured RMSE by 10-fold cross-validation and bias/variance on "
             "1,000 training and 1,000 test rows (10 repeats) of the sets with >= 2,000 rows; here "
             "RMSE and zero-one loss come from repeated 2-fold cross-validation and bias and "
             "variance from the 1,000/1,000 protocol (when it was run; the bracket after a "
             "record names its run). Published: ASAODE has lower RMSE than "
             "AODE, WAODE and AODE-SR significantly often, is level with BSE-AODE, and "
             "loses to A2DE (not significantly)."),
    Comparison(
        "chen2014-table2-large", "ASAODE against the same, data sets with >= 8,000 rows",
        "Chen et al. 2014, Table 2, largest sets",
        pairs=(("asaode", "aode"), ("asaode", "waode-mi"), ("asaode", "aodesr"),
               ("asaode", "bseaode-ce"), ("asaode", "a2de")),
        metrics=("rmse", "zero_one"), protocol="biasvar", min_rows=8000),
    Comparison(
        "swaode2024-swaode", "SWAODE against NB, KDB(1), AODE, WAODE-MI, WAODE-KL and SAODE",
        "the SWAODE paper (2024), Tables 5-7",
        pairs=(("swaode", "nb"), ("swaode", "kdb1"), ("swaode", "aode"),
               ("swaode", "waode-mi"), ("swaode", "waode-kl"), ("swaode", "saode"),
               ("saode", "aode")),
        metrics=("zero_one", "log_loss", "rmse"), protocol="biasvar",
        note="Published (70 sets): SWAODE beats AODE on zero-one loss 39/8/23 and log loss "
             "48/1/21, WAODE-MI 34/12/24 and 42/7/21, SAODE 27/22/21 and 40/4/26, and NB, "
             "KDB(1) and WAODE-KL significantly often."),
    Comparison(
        "gaussian-children", "Gaussian children against discretisation (MDL, three "
        "equal-frequency bins)", "Flores, Gámez, Martínez & Puerta 2009; Webb et al. 2012, §5",
        pairs=(("nb-gauss", "nb"), ("nb-gauss", "nb-ef3"), ("aode-gauss", "aode"),
               ("aode-gauss", "aode-ef3"), ("a2de-gauss", "a2de"), ("a2de-gauss", "a2de-ef3"),
               ("aode", "aode-ef3"), ("a2de", "a2de-ef3")),
        metrics=("zero_one", "rmse", "log_loss", "bias", "variance"), protocol="biasvar",
        note="`-G`: numeric children Gaussian given the class and the parents' (discretised) "
             "values; `-EF3`: three equal-frequency bins; the plain keys use the run's "
             "discretiser ({discretiser} here). Webb et al. (2012, §5) leave numeric "
             "attributes in AnDE as open work; Flores et al. (2009) report that Gaussian "
             "children (HAODE) improve on discretised AODE on the UCI numeric sets."),
    Comparison(
        "martinez2016-skdb", "Selective KDB against KDB, AODE and A2DE",
        "Martínez, Webb, Chen & Zaidi 2016",
        pairs=(("skdb5", "kdb5"), ("skdb5", "kdb1"), ("skdb5", "aode"), ("skdb5", "a2de"),
               ("kdb5", "kdb1")),
        metrics=("zero_one", "rmse", "log_loss", "bias", "variance"), protocol="biasvar",
        note="SKDB(K) selects k <= K and the number of attributes by leave-one-out RMSE. "
             "Martínez et al. (2016) evaluate it on large data (up to millions of rows), "
             "where higher k pays off; this corpus has three sets of 8,000 rows or more."),
    Comparison(
        "petitjean2018-hdp", "KDB(k) with HDP estimates against m-estimates",
        "Petitjean, Buntine, Webb & Zaidi 2018",
        pairs=(*((f"kdb{k}-hdp", f"kdb{k}") for k in range(1, 6)), ("kdb5", "kdb1"),
               ("kdb5-hdp", "kdb1-hdp")),
        metrics=("zero_one", "rmse", "log_loss"), protocol="cv",
        note="HDP: every P(x_i | y, parents) a hierarchical Dirichlet process conditioning on "
             "the class then on each parent, 1,000 Gibbs iterations (100 burn-in), "
             "concentrations tied per level. Petitjean et al. (2018) report that HDP "
             "estimates make larger k a win where m-estimates make it a loss."),
    Comparison(
        "zhang2020-eskdb", "ESKDB against random forest, gradient boosting, A2DE and SKDB",
        "Zhang, Petitjean & Buntine 2020",
        pairs=(("eskdb", "rf100"), ("eskdb", "hgb-raw"), ("eskdb", "a2de"),
               ("eskdb", "skdb5"), ("eskdb", "skdb5-hdp"), ("eskdb", "kdb5-hdp"),
               ("eskdb", "eskdb-shared"), ("skdb5-hdp", "skdb5")),
        metrics=("zero_one", "rmse", "log_loss"), protocol="cv",
        note="ESKDB: 5 selective KDBs (k <= 5), each on its own randomised MDL "
             "discretisation and MI-sampled attribute order, HDP estimates, probabilities "
             "averaged (eskdb-shared: one MDL discretisation shared by the members). "
             "Zhang et al. (2020) report ESKDB more accurate than random forest and close to "
             "XGBoost on large data."),
    Comparison(
        "zhang2020-eskdb-large", "ESKDB against the same learners, sets of 3,000 rows or more",
        "Zhang, Petitjean & Buntine 2020",
        pairs=(("eskdb", "rf100"), ("eskdb", "hgb-raw"), ("eskdb", "a2de"),
               ("eskdb", "skdb5"), ("eskdb", "skdb5-hdp"), ("eskdb", "kdb5-hdp")),
        metrics=("zero_one", "rmse", "log_loss"), protocol="cv", min_rows=3000,
        note="The largest sets of the corpus (at most 5,000 rows used each in this run)."),
    Comparison(
        "petitjean2018-hdp-biasvar", "KDB(k) with HDP estimates against m-estimates, large data, "
        "bias and variance",
        "Petitjean, Buntine, Webb & Zaidi 2018",
        pairs=(("kdb1-hdp", "kdb1"), ("kdb5-hdp", "kdb5"), ("kdb5", "kdb1"),
               ("kdb5-hdp", "kdb1-hdp")),
        metrics=("zero_one", "rmse", "log_loss", "bias", "variance"), protocol="biasvar",
        note="Three repeats of 2-fold cross-validation on the largest sets, all rows. "
             "Petitjean et al. (2018) report that HDP estimates make larger k a win where "
             "m-estimates make it a loss, the more so the larger the data."),
    Comparison(
        "zhang2020-eskdb-biasvar", "ESKDB against random forest, gradient boosting, A2DE, "
        "SKDB and KDB5-HDP, large data, bias and variance",
        "Zhang, Petitjean & Buntine 2020",
        pairs=(("eskdb", "rf100"), ("eskdb", "hgb-raw"), ("eskdb", "a2de"),
               ("eskdb", "skdb5"), ("eskdb", "skdb5-hdp"), ("eskdb", "kdb5-hdp"),
               ("eskdb", "eskdb-shared"), ("rf100", "hgb-raw")),
        metrics=("zero_one", "rmse", "log_loss", "bias", "variance"), protocol="biasvar",
        note="ESKDB: 5 selective KDBs (k <= 5), each on its own randomised MDL "
             "discretisation and MI-sampled order, HDP estimates. Zhang et al. (2020) report "
             "ESKDB more accurate than random forest and close to XGBoost on large data."),
    Comparison(
        "petitjean2018-hdp-cv-large", "KDB(k) with HDP estimates against m-estimates, "
        "sets of 5,000 rows or more, uncapped",
        "Petitjean, Buntine, Webb & Zaidi 2018",
        pairs=(("kdb1-hdp", "kdb1"), ("kdb5-hdp", "kdb5"), ("kdb5", "kdb1"),
               ("kdb5-hdp", "kdb1-hdp")),
        metrics=("zero_one", "rmse", "log_loss"), protocol="cv",
        note="One 5-fold cross-validation per set, every row."),
    Comparison(
        "zhang2020-eskdb-cv-large", "ESKDB against the same learners, sets of 5,000 rows or "
        "more, uncapped",
        "Zhang, Petitjean & Buntine 2020",
        pairs=(("eskdb", "rf100"), ("eskdb", "hgb-raw"), ("eskdb", "a2de"),
               ("eskdb", "skdb5"), ("eskdb", "skdb5-hdp"), ("eskdb", "kdb5-hdp"),
               ("eskdb", "eskdb-shared")),
        metrics=("zero_one", "rmse", "log_loss"), protocol="cv",
        note="One 5-fold cross-validation per set, every row."),
    Comparison(
        "zaidi-discriminative", "WANBIA-C and ALR against the generative models",
        "Zaidi et al. 2013, 2016, 2017",
        pairs=(("wanbiac", "nb"), ("wanbiac-p", "nb"), ("wanbiac-p", "wanbiac"),
               ("alr1-model", "aode"), ("alr1-parentvalueclass", "aode"),
               ("alr1-parentvalueclass", "a2de"), ("wanbiac-p", "aode")),
        metrics=("zero_one", "rmse", "log_loss", "bias", "variance"), protocol="biasvar",
        note="Weights learnt by minimising the L2-regularised conditional log loss (l2 = 1, "
             "towards the generative model). Zaidi et al. report that discriminative "
             "parameters lower bias, and error on large data, while raising variance."),
)


def _choose_protocol(summary, wanted):
    present = set(summary["protocol"])
    if wanted is not None:
        return wanted if wanted in present else None
    for protocol in ("biasvar", "cv", "holdout", "biasvar1000"):
        if protocol in present:
            return protocol
    return None


def _wide(summary, protocol, metric, min_rows, pair):
    """Data sets x pair table of one metric, from the settings of ``protocol`` that has the
    pair on the most data sets (ties: the most tasks, i.e. the most repeats); with the
    settings key used."""
    part = summary[(summary["protocol"] == protocol) & (summary["n_rows"] >= min_rows)
                   & summary["learner"].isin(pair)]
    if metric not in part or part.empty or not part[metric].notna().any():
        return None, None
    best, best_rank = None, None
    for settings, rows in part.groupby("settings"):
        wide = rows.pivot_table(index="dataset", columns="learner", values=metric).dropna()
        if any(k not in wide.columns for k in pair) or wide.empty:
            continue
        rank = (len(wide), int(rows["n_tasks"].sum()) if "n_tasks" in rows else 0)
        if best_rank is None or rank > best_rank:
            best, best_rank = (wide, settings), rank
    return best if best is not None else (None, None)


def _geomean_time(summary, settings, learner, datasets, column):
    part = summary[(summary["settings"] == settings) & (summary["learner"] == learner)
                   & summary["dataset"].isin(datasets)]
    values = part[column].dropna().to_numpy()
    if values.size == 0:
        return np.nan
    return float(np.exp(np.mean(np.log(np.clip(values, 1e-12, None)))))


def _us(seconds):
    if not np.isfinite(seconds):
        return "–"
    micro = seconds * 1e6
    return f"{micro:,.0f}" if micro >= 100 else f"{micro:.3g}"


def comparison_rows(summary, comparison):
    """The records of one comparison's pairs on a summary of results.

    Parameters
    ----------
    summary : pandas.DataFrame
        Output of :func:`seminaive.evaluation.report.summarise`.
    comparison : Comparison
        The paper table.

    Returns
    -------
    rows : list of dict
        Per pair the data sets and settings used, and per metric the W/D/L record, sign-test
        p-value and geometric mean ratio (``None`` where the results are missing).
    protocol : str or None
        The protocol used.
    """
    protocol = _choose_protocol(summary, comparison.protocol)
    rows = []
    if protocol is None:
        return rows, protocol
    for learner, reference in comparison.pairs:
        row = {"learner": learner, "reference": reference, "metrics": {}, "datasets": set(),
               "settings": None}
        for metric in comparison.metrics:
            use_protocol, min_rows = protocol, comparison.min_rows
            if metric in ("bias", "variance") and comparison.variance_protocol and (
                    comparison.variance_protocol in set(summary["protocol"])):
                use_protocol = comparison.variance_protocol
                min_rows = max(min_rows, comparison.variance_min_rows)
            wide, settings = _wide(summary, use_protocol, metric, min_rows,
                                   (learner, reference))
            if wide is None:
                row["metrics"][metric] = None
                continue
            a, b = wide[learner].to_numpy(), wide[reference].to_numpy()
            if metric in HIGHER_IS_BETTER:
                a, b = -a, -b
            res = statistics.win_draw_loss(a, b, decimals=4)
            ratio, used = statistics.geometric_mean_ratio(np.abs(a), np.abs(b))
            res.update(ratio=ratio if used else np.nan, n=len(wide), protocol=use_protocol,
                       settings=settings)
            row["metrics"][metric] = res
            if use_protocol == protocol and len(wide) > len(row["datasets"]):
                row["datasets"], row["settings"] = set(wide.index), settings
        if row["datasets"]:
            for kind in ("train", "test"):
                row[kind] = tuple(_geomean_time(summary, row["settings"], key,
                                                row["datasets"], f"{kind}_time")
                                  for key in (learner, reference))
        rows.append(row)
    return rows, protocol


def render_comparison(summary, comparison):
    """Markdown section of one comparison.

    Parameters
    ----------
    summary : pandas.DataFrame
        Output of :func:`seminaive.evaluation.report.summarise`.
    comparison : Comparison
        The paper table.

    Returns
    -------
    list of str
        The lines of the section.
    """
    rows, protocol = comparison_rows(summary, comparison)
    size = f", data sets with >= {comparison.min_rows:,} rows" if comparison.min_rows else ""
    parts = [f"### {comparison.title} — {comparison.source}", ""]
    present = [r for r in rows if r["datasets"]]
    if comparison.note:
        parts += [comparison.note.replace("{discretiser}", _discretisers(
            summary, [r["settings"] for r in present])), ""]
    if not present:
        parts += [_why_not_run(summary, comparison, protocol), ""]
        return parts
    header = ["pair", "sets"]
    for metric in comparison.metrics:
        header += [f"{METRIC_NAMES[metric]} W/D/L", "ratio"]
    header += ["train µs/row", "test µs/row"]
    body = []
    for row in present:
        cells = [f"{_label(row['learner'])} vs {_label(row['reference'])}",
                 f"{len(row['datasets'])} ({settings_label(row['settings'])})"]
        for metric in comparison.metrics:
            res = row["metrics"][metric]
            if res is None:
                cells += ["–", "–"]
                continue
            star = "*" if res["p"] <= 0.05 else ""
            where = ("" if res["settings"] == row["settings"]
                     else f" [{res['n']} sets, {settings_label(res['settings'])}]")
            cells += [f"{res['win']}/{res['draw']}/{res['loss']} (p={res['p']:.3g}){star}"
                      f"{where}",
                      f"{res['ratio']:.3f}" if np.isfinite(res["ratio"]) else "–"]
        cells += [f"{_us(row['train'][0])} / {_us(row['train'][1])}",
                  f"{_us(row['test'][0])} / {_us(row['test'][1])}"]
        body.append(cells)
    table = pd.DataFrame(body, columns=header)
    missing = [f"{_label(r['learner'])} vs {_label(r['reference'])}" for r in rows
               if not r["datasets"]]
    parts += [f"Protocol `{protocol}`{size}; the sets column names the run (repeats x folds) "
              "each pair comes from. W/D/L: wins/draws/losses of the first learner "
              "(values rounded to 4 decimals; for AUC higher wins); p: two-tailed sign test, "
              "`*` p <= 0.05; ratio: geometric mean over data sets of first / second "
              "(below 1 favours the first; AUC ratio of the values). Times: geometric mean "
              "over the data sets of the per-instance training and classification time, "
              "first / second.", "", _markdown(table), ""]
    if missing:
        parts += ["Not in the results yet: " + ", ".join(missing) + ".", ""]
    return parts


def _discretisers(summary, settings):
    """The discretiser(s) of the runs a table uses (of every run when it uses none)."""
    keys = [k for k in settings if k]
    if not keys and len(summary):
        keys = sorted(set(summary["settings"]))
    labels = sorted({label for k in keys if (label := discretiser_label(k))})
    return " and ".join(labels) if labels else "the run's"


def _why_not_run(summary, comparison, protocol):
    """Why a table is empty: its pairs are absent, or they ran under another protocol, or on
    smaller data sets than the table takes."""
    learners = set(summary["learner"]) if len(summary) else set()
    ran = [f"{_label(a)} vs {_label(b)}" for a, b in comparison.pairs
           if a in learners and b in learners]
    if not ran:
        return "Not run yet: none of these pairs is in the results."
    if protocol is None:
        present = ", ".join(f"`{p}`" for p in sorted(set(summary["protocol"])))
        return (f"Not filled: {', '.join(ran)} ran, but with the protocol {present}, and "
                f"this table uses `{comparison.protocol}` (the paper's): run seminaive "
                f"compare with --protocol {comparison.protocol} to fill it.")
    return (f"Not filled: {', '.join(ran)} ran, but on no data set with >= "
            f"{comparison.min_rows:,} rows under `{protocol}`.")


def render_comparisons(summary, comparisons=PAPER_COMPARISONS):
    """Markdown of all paper comparisons present in ``summary``.

    Parameters
    ----------
    summary : pandas.DataFrame
        Output of :func:`seminaive.evaluation.report.summarise`.
    comparisons : sequence of Comparison, default=PAPER_COMPARISONS
        The paper tables.

    Returns
    -------
    str
        Markdown.
    """
    parts = ["## The papers' comparison tables", "",
             "Each table recomputes one published comparison on our results (same learners, "
             "same metrics).", ""]
    for comparison in comparisons:
        parts += render_comparison(summary, comparison)
    return "\n".join(parts)


def _pick_shares(frame, by):
    """Rows of ``by`` value, fits, and the share of fits choosing n = 0, 1, 2."""
    table = frame.groupby([by, "chosen_n"], observed=True).size().unstack(fill_value=0)
    rows = []
    for key, values in table.iterrows():
        total = values.sum()
        rows.append([key, int(total),
                     *[f"{100 * values.get(n, 0) / total:.0f}%" for n in (0, 1, 2)]])
    return rows


def auto_n_section(raw, summary):
    """Markdown: how often ``AnDE(n="auto")`` picked each n, against data size.

    By data-set size (across the corpus) and by training size (along learning curves).

    Parameters
    ----------
    raw : pandas.DataFrame
        Per-task rows (:func:`seminaive.evaluation.runner.collect`), with ``chosen_n``.
    summary : pandas.DataFrame
        Output of :func:`seminaive.evaluation.report.summarise`.

    Returns
    -------
    str
        Markdown; empty without ``ande-auto`` results.
    """
    if raw is None or raw.empty or "chosen_n" not in raw:
        return ""
    picks = raw[(raw["learner"] == "ande-auto") & (raw["error"] == "")
                & raw["chosen_n"].notna()]
    if picks.empty:
        return ""
    picks = picks.assign(chosen_n=picks["chosen_n"].astype(int))
    parts = ['### How often `AnDE(n="auto")` picks each n, against data size', "",
             "Every fit (one per fold and repeat) chooses n in {0, 1, 2} by leave-one-out "
             "RMSE on its training rows (one-standard-error rule across orders).", ""]
    corpus = picks[picks["protocol"] != "curve"]
    if not corpus.empty:
        sizes = summary.groupby("dataset")["n_rows"].max()
        corpus = corpus.assign(train_rows=corpus["train_size"])
        bins = [0, 250, 500, 1000, 2500, 5000, np.inf]
        names = ["< 250", "250-499", "500-999", "1,000-2,499", "2,500-4,999", ">= 5,000"]
        corpus = corpus.assign(size=pd.cut(corpus["train_rows"], bins, right=False,
                                           labels=names))
        rows = _pick_shares(corpus, "size")
        n_sets = corpus.groupby("size", observed=True)["dataset"].nunique()
        rows = [[r[0], int(n_sets[r[0]]), *r[1:]] for r in rows]
        frame = pd.DataFrame(rows, columns=["training rows", "data sets", "fits", "n = 0",
                                            "n = 1", "n = 2"])
        per_set = corpus.groupby("dataset")["chosen_n"].agg(lambda v: v.mode().iloc[0])
        parts += ["Across the corpus, by training-set size:", "", _markdown(frame), "",
                  "Most frequent choice per data set (by size): " + ", ".join(
                      f"{d} ({int(sizes[d]):,} rows) n={int(n)}"
                      for d, n in sorted(per_set.items(), key=lambda kv: sizes[kv[0]]))
                  + ".", ""]
    along = picks[picks["protocol"] == "curve"]
    for dataset in sorted(along["dataset"].unique()):
        rows = _pick_shares(along[along["dataset"] == dataset], "train_size")
        frame = pd.DataFrame(rows, columns=["training rows", "fits", "n = 0", "n = 1",
                                            "n = 2"])
        parts += [f"Along the learning curve of {dataset}:", "", _markdown(frame), ""]
    return "\n".join(parts)
