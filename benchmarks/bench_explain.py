"""The cost of explaining predictions: 10,000 rows of a 50-attribute A2DE.

A2DE, KDB (k = 2) and naive Bayes are trained on 20,000 rows x 50 attributes (3 values,
2 classes) sampled from a random Bayesian network
(:func:`seminaive.datasets.make_random_bn`), then explain held-out rows
(:meth:`seminaive.base.Learner.explain`).  With 50 attributes A2DE is
explained by antithetic permutation sampling (``n_permutations * 49 + 2`` predictions per
row, plus the additivity check on eight rows); KDB exactly through its structure (the
subsets of every attribute's family, plus the check); naive Bayes by its additive form
(d + 1 predictions per row, plus the check).  The reference, in the same run and on the same
rows, is the model's own ``predict_proba``: the ratio says how many predictions an
explanation costs.  Best of ``--repeats`` runs for each timing, alternating explanation and
prediction (the machine is shared; ratios are what to read).  Also reported: the largest
deviation from additivity (base + sum of contributions against ``predict_log_proba``, up to
the normaliser) and the size of the sampling error (median standard error against median
|contribution|), from which the permutations needed for a target error follow (the error
falls as one over the square root of the permutations).  Printed and written to
``docs/performance.md`` (its section between the ``bench_explain`` markers).

    python benchmarks/bench_explain.py [--rows 10000] [--n-permutations 4] [--out FILE]
"""

import argparse
import datetime
import os
import platform
import time
from pathlib import Path

import numba
import numpy as np
import pandas as pd
from _sections import write_table_section

from seminaive import A2DE, KDB, NaiveBayes
from seminaive.datasets import make_random_bn

ROOT = Path(__file__).resolve().parents[1]
MARK = ("<!-- bench_explain -->", "<!-- /bench_explain -->")


def best_of(fns, repeats):
    """Best wall time of every function, the functions alternated ``repeats`` times."""
    best = [np.inf] * len(fns)
    results = [None] * len(fns)
    for _ in range(repeats):
        for j, fn in enumerate(fns):
            start = time.perf_counter()
            results[j] = fn()
            best[j] = min(best[j], time.perf_counter() - start)
    return results, best


def centred(a):
    return a - a.mean(axis=-1, keepdims=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--n-permutations", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--out", default=str(ROOT / "docs" / "performance.md"))
    args = parser.parse_args()
    n_train, d = 20_000, 50
    X, y, _ = make_random_bn(n_train + args.rows, n_attributes=d, n_values=3, n_classes=2,
                             random_state=0)
    frame = pd.DataFrame(X, columns=[f"a{j}" for j in range(d)]).astype(str)
    train, rows = frame.iloc[:n_train], frame.iloc[n_train:]
    load_before = os.getloadavg()[0]
    lines_out = []
    for name, model in (("A2DE", A2DE(categorical_features="all")),
                        ("KDB k=2", KDB(k=2, categorical_features="all")),
                        ("NaiveBayes", NaiveBayes(categorical_features="all"))):
        model.fit(train, y[:n_train])
        model.explain(rows.iloc[:10], n_permutations=4, random_state=0)  # compile, warm
        (ex, proba), (t_explain, t_predict) = best_of(
            [lambda m=model: m.explain(rows, n_permutations=args.n_permutations,
                                       random_state=0),
             lambda m=model: m.predict_log_proba(rows)], args.repeats)
        err = float(np.abs(centred(ex.base_values + ex.values.sum(axis=1))
                           - centred(proba)).max())
        per_row = ex.n_predictions / len(ex)
        if ex.standard_errors is not None:
            noise = (f"{np.median(ex.standard_errors):.3g} / "
                     f"{np.median(np.abs(ex.values)):.3g}")
        else:
            noise = "exact"
        row = [f"{name} on {n_train:,} x {d}", f"{len(ex):,}", ex.method,
               ex.n_permutations or "-", f"{per_row:.0f}", f"{t_explain:.1f}",
               f"{len(ex) / t_explain:,.0f}", f"{t_predict:.2f}",
               f"{t_explain / t_predict:,.0f}x", f"{err:.0e}", noise]
        print(" | ".join(map(str, row)))
        lines_out.append(row)
    load_after = os.getloadavg()[0]
    header = [
        MARK[0],
        "## Explaining predictions: 10,000 rows of a 50-attribute A2DE",
        "",
        f"Written by `benchmarks/bench_explain.py` on {datetime.date.today()}: "
        f"{platform.machine()}, {os.cpu_count()} cores, {numba.get_num_threads()} numba "
        f"threads, Python {platform.python_version()}; load average {load_before:.1f} before, "
        f"{load_after:.1f} after (the machine was shared: read the ratios).",
        "",
        "Data from a random Bayesian network (3 values, 2 classes), explained rows held "
        "out.  `explain` against the same model's `predict_log_proba` on the same rows, in "
        f"the same run (best of {args.repeats}, alternated).  Predictions per row: the "
        "coalitions scored (A2DE: antithetic permutation sampling, "
        f"{args.n_permutations} permutations x 49 + 2, and the additivity check on 8 rows; "
        "KDB: the subsets of every attribute's family, at most 8d, and the check, d + 1; "
        "naive Bayes: the additive form, d + 1 and the check, 2d + 2 in all).  "
        "Additivity: max |(base + sum of contributions) - log P(y|x)| after centring over "
        "the classes.  Noise: median standard error / median |contribution| (nats); it "
        "halves with four times the permutations, at four times the cost.",
        "",
        "| model | rows | method | permutations | predictions / row | explain s | rows/s "
        "| predict s | explain / predict | additivity | noise |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    write_table_section(args.out, MARK, header, lines_out)


if __name__ == "__main__":
    main()
