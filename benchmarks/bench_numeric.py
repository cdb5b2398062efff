"""Numeric attributes on small numeric sets: MDL discretisation, equal-frequency bins, the
plug-in Gaussian, the Student-t posterior predictive and the kernel-smoothed binned
children, log loss and zero-one loss, same run.

For every data set and seed, 300 training rows (half the rows of a smaller set; with
``--full``, half of every set) are drawn at random (stratified), and up to 2,000 of the
others are the test rows.  NaiveBayes, AODE, TAN, KDB(k=1), KDB(k=2) and SKDB (its
defaults: K = 3, leave-one-out RMSE) are fitted with every variant:
``numeric="discretize"`` with MDL (the default), with 5 and with 10 equal-frequency bins,
``numeric="gaussian", density="plugin"``, ``numeric="gaussian", density="student"``
(the default density of the learners that cannot score kde) and
``numeric="gaussian", density="kde"``.  The table gives each set's mean losses over
the seeds; the summary, per learner, the geometric means over the sets of every variant's
log-loss ratio to MDL, and how many sets it is no worse on.  Printed and written to
``docs/results.md`` (its section between the ``bench_numeric`` markers).

    python benchmarks/bench_numeric.py [--seeds N] [--full] [--sets ...] [--out PATH]
"""

import argparse
import os
import statistics
import time
import warnings
from pathlib import Path

import _sections
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SETS = ["pima", "bupa", "ionosphere", "sonar", "wdbc", "vehicle", "segment", "phoneme",
        "magic", "spambase", "banana", "twonorm"]
#: numeric sets that played no part in choosing kde's bandwidth rule (``--held-out``)
HELD_OUT = ["bands", "ring", "satimage", "texture", "optdigits", "penbased", "wine",
            "wisconsin", "saheart", "vowel", "iris", "heart", "movement_libras"]
VARIANTS = {
    "MDL": {"numeric": "discretize"},
    "EF5": {"numeric": "discretize", "discretizer": "equal_frequency", "n_bins": 5},
    "EF10": {"numeric": "discretize", "discretizer": "equal_frequency", "n_bins": 10},
    "plug-in": {"numeric": "gaussian", "density": "plugin"},
    "Student-t": {"numeric": "gaussian", "density": "student"},
    "KDE": {"numeric": "gaussian", "density": "kde"},
}
LEARNERS = {"NB": ("NaiveBayes", {}), "AODE": ("AODE", {}), "TAN": ("TAN", {}),
            "KDB1": ("KDB", {"k": 1}), "KDB2": ("KDB", {"k": 2}), "SKDB": ("SKDB", {})}
TRAIN_ROWS = 300
TEST_ROWS = 2000


def _fmt(value, digits=4):
    return "n/a" if np.isnan(value) else f"{value:.{digits}f}"


def losses(data, seeds, full):
    """``{(learner, variant): (mean log loss, mean zero-one loss)}`` over the seeds."""
    from sklearn.metrics import log_loss
    from sklearn.model_selection import train_test_split

    import seminaive
    from seminaive.datasets import load

    X, y = load(data)[:2]
    y = np.asarray(y)
    out = {}
    n_train = len(y) // 2 if full else min(TRAIN_ROWS, len(y) // 2)
    for seed in range(seeds):
        train, rest = train_test_split(np.arange(len(y)), train_size=n_train,
                                       random_state=seed, stratify=y)
        test = rest[:TEST_ROWS]
        for learner, (cls, base) in LEARNERS.items():
            for variant, params in VARIANTS.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        model = getattr(seminaive, cls)(**base, **params).fit(
                            X.iloc[train], y[train])
                    except ValueError:  # a learner that refuses the variant
                        out.setdefault((learner, variant), []).append((np.nan, np.nan))
                        continue
                    proba = np.clip(model.predict_proba(X.iloc[test]), 1e-15, 1.0)
                ll = log_loss(y[test], proba, labels=model.classes_)
                zo = float(np.mean(model.classes_[np.argmax(proba, axis=1)] != y[test]))
                out.setdefault((learner, variant), []).append((ll, zo))
    return {key: tuple(np.mean(v, axis=0)) for key, v in out.items()}, n_train


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--full", action="store_true",
                        help="train on half of every set rather than on 300 rows")
    parser.add_argument("--sets", nargs="*", default=None)
    parser.add_argument("--held-out", action="store_true",
                        help="the numeric sets not used to choose kde's bandwidth rule "
                        "(their own section)")
    args = _sections.parse_or_serve(parser, None, ROOT)
    if args.out == str(ROOT / "docs" / "performance.md"):
        args.out = str(ROOT / "docs" / "results.md")
    if args.sets is None:
        args.sets = HELD_OUT if args.held_out else SETS
    tag = ("_heldout" if args.held_out else "") + ("_full" if args.full else "")
    mark = (f"<!-- bench_numeric{tag} -->", f"<!-- /bench_numeric{tag} -->")
    load_before = os.getloadavg()[0]
    start = time.time()
    results = {}
    rows = []
    for data in args.sets:
        results[data], n_train = losses(data, args.seeds, args.full)
        for learner in LEARNERS:
            mdl = results[data][(learner, "MDL")][0]
            row = [data, n_train, learner]
            row += [_fmt(results[data][(learner, v)][0]) for v in VARIANTS]
            row += [_fmt(results[data][(learner, v)][1]) for v in VARIANTS]
            row += [_fmt(results[data][(learner, v)][0] / mdl, 3) for v in ("Student-t", "KDE")]
            rows.append(row)
            print(" | ".join(str(c) for c in row), flush=True)
    summary = []
    for learner in LEARNERS:
        parts = []
        for v in VARIANTS:
            if v == "MDL":
                continue
            ratios = [results[d][(learner, v)][0] / results[d][(learner, "MDL")][0]
                      for d in args.sets]
            if any(np.isnan(ratios)):
                parts.append(f"{v} n/a (refused)")
                continue
            parts.append(f"{v} {statistics.geometric_mean(ratios):.3f} (no worse on "
                         f"{sum(r <= 1 for r in ratios)} of {len(ratios)})")
        zo = {v: np.mean([results[d][(learner, v)][1] for d in args.sets]) for v in VARIANTS}
        summary.append(f"{learner}: log loss against MDL, geometric mean of the ratios: "
                       + "; ".join(parts) + ".  Mean zero-one loss: "
                       + ", ".join(f"{v} {z:.4f}" for v, z in zo.items() if not np.isnan(z))
                       + ".")
        print(summary[-1], flush=True)
    ratios = [results[d][(learner, "Student-t")][0] / results[d][(learner, "plug-in")][0]
              for d in args.sets for learner in LEARNERS]
    summary.append(f"Student-t against the plug-in Gaussian, all learners: geometric-mean "
                   f"log-loss ratio {statistics.geometric_mean(ratios):.3f} (no worse on "
                   f"{sum(r <= 1 for r in ratios)} of {len(ratios)} set-learner pairs).")
    print(summary[-1], flush=True)
    for other in ("plug-in", "Student-t"):
        ratios = [results[d][(learner, "KDE")][0] / results[d][(learner, other)][0]
                  for d in args.sets for learner in LEARNERS
                  if not np.isnan(results[d][(learner, "KDE")][0])]
        summary.append(f"KDE against {other}, all learners: geometric-mean log-loss ratio "
                       f"{statistics.geometric_mean(ratios):.3f} (no worse on "
                       f"{sum(r <= 1 for r in ratios)} of {len(ratios)} set-learner pairs).")
        print(summary[-1], flush=True)
    size = "half of every set" if args.full else (f"{TRAIN_ROWS} training rows (half of a "
                                                  "smaller set)")
    lines = [
        mark[0],
        "## Numeric attributes on small numeric sets: MDL, equal-frequency bins, plug-in "
        "Gaussian, Student-t and kernel-smoothed binned children"
        + (" (half of every set)" if args.full else "")
        + (": sets not used to choose kde's bandwidth" if args.held_out else ""),
        "",
        f"`python benchmarks/bench_numeric.py --seeds {args.seeds}"
        + (" --full" if args.full else "") + (" --held-out" if args.held_out else "")
        + f"` ({time.strftime('%Y-%m-%d')}, load "
        f"average {load_before:.1f} before and {os.getloadavg()[0]:.1f} after, "
        f"{time.time() - start:.0f} s): {size} drawn at random (stratified, seeds "
        f"0..{args.seeds - 1}), up to {TEST_ROWS} of the other rows to test; mean losses "
        "over the seeds.  MDL: `numeric=\"discretize\"` (the default); EF5 / EF10: 5 / 10 "
        "equal-frequency bins; plug-in: `numeric=\"gaussian\", density=\"plugin\"`; "
        "Student-t: `numeric=\"gaussian\", density=\"student\"`; "
        "KDE: `numeric=\"gaussian\", density=\"kde\"` (binned kernel-smoothed children; "
        "see each learner's `density` for its default).  Learners: NB NaiveBayes, AODE, "
        "TAN, KDB1 / KDB2 KDB(k=1) / KDB(k=2), SKDB its defaults (K = 3, leave-one-out "
        "RMSE, which scores the density it predicts with).  Ratios below 1: better than "
        "MDL.",
        "",
        *[f"- {s}" for s in summary],
        "",
        "| data | train rows | learner | " + " | ".join(f"log loss {v}" for v in VARIANTS)
        + " | " + " | ".join(f"0-1 {v}" for v in VARIANTS) + " | Student-t / MDL | KDE / MDL |",
        "|" + "---|" * (5 + 2 * len(VARIANTS)),
    ]
    _sections.write_table_section(args.out, mark, lines, rows)


if __name__ == "__main__":
    main()
