"""Gaussian numeric children on small numeric sets: the plug-in Gaussian, the Student-t
posterior predictive (``density="student"``) and MDL discretisation, log loss, same run.

For every data set and seed, 300 training rows (half the rows of a smaller set) are drawn
at random (stratified), and up to 2,000 of the others are the test rows.  NaiveBayes and
AODE are fitted with ``numeric="discretize"`` (MDL), ``numeric="gaussian"`` (plug-in) and
``numeric="gaussian", density="student"``; the table gives each set's mean log loss over
the seeds and the summary the geometric means of the per-set ratios (Student-t against MDL
and against the plug-in Gaussian).  Printed and written to ``docs/results.md`` (its
section between the ``bench_numeric`` markers).

    python benchmarks/bench_numeric.py [--seeds N] [--out PATH]
"""

import argparse
import statistics
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MARK = ("<!-- bench_numeric -->", "<!-- /bench_numeric -->")
SETS = ["pima", "bupa", "ionosphere", "sonar", "wdbc", "vehicle", "segment", "phoneme",
        "magic", "spambase", "banana", "twonorm"]
VARIANTS = {
    "MDL": {"numeric": "discretize"},
    "plug-in": {"numeric": "gaussian", "density": "plugin"},
    "Student-t": {"numeric": "gaussian", "density": "student"},
}
TRAIN_ROWS = 300
TEST_ROWS = 2000


def _sections():
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _sections

    return _sections


def losses(data, learner, seeds):
    """Mean log loss of every variant over the seeds."""
    from sklearn.metrics import log_loss
    from sklearn.model_selection import train_test_split

    import seminaive
    from seminaive.datasets import load

    X, y = load(data)[:2]
    y = np.asarray(y)
    out = {v: [] for v in VARIANTS}
    for seed in range(seeds):
        train, rest = train_test_split(np.arange(len(y)),
                                       train_size=min(TRAIN_ROWS, len(y) // 2),
                                       random_state=seed, stratify=y)
        test = rest[:TEST_ROWS]
        for variant, params in VARIANTS.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = getattr(seminaive, learner)(**params).fit(X.iloc[train], y[train])
                proba = np.clip(model.predict_proba(X.iloc[test]), 1e-15, 1.0)
            out[variant].append(log_loss(y[test], proba, labels=model.classes_))
    return {v: float(np.mean(x)) for v, x in out.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--sets", nargs="*", default=SETS)
    args = _sections().parse_or_serve(parser, None, ROOT)
    if args.out == str(ROOT / "docs" / "performance.md"):
        args.out = str(ROOT / "docs" / "results.md")
    rows, summary = [], []
    for learner in ("NaiveBayes", "AODE"):
        vs_mdl, vs_plugin, wins_mdl, wins_plugin = [], [], 0, 0
        for data in args.sets:
            loss = losses(data, learner, args.seeds)
            r_mdl = loss["Student-t"] / loss["MDL"]
            r_plugin = loss["Student-t"] / loss["plug-in"]
            vs_mdl.append(r_mdl)
            vs_plugin.append(r_plugin)
            wins_mdl += r_mdl <= 1
            wins_plugin += r_plugin <= 1
            row = [data, learner, f"{loss['MDL']:.4f}", f"{loss['plug-in']:.4f}",
                   f"{loss['Student-t']:.4f}", f"{r_mdl:.3f}", f"{r_plugin:.3f}"]
            rows.append(row)
            print(" | ".join(row), flush=True)
        line = (f"{learner}: Student-t against MDL, geometric-mean log-loss ratio "
                f"{statistics.geometric_mean(vs_mdl):.3f} (no worse on {wins_mdl} of "
                f"{len(vs_mdl)} sets); against the plug-in Gaussian "
                f"{statistics.geometric_mean(vs_plugin):.3f} (no worse on {wins_plugin} of "
                f"{len(vs_plugin)}).")
        summary.append(line)
        print(line, flush=True)
    lines = [
        MARK[0],
        "## Gaussian children on small numeric sets: plug-in, Student-t and MDL",
        "",
        f"`python benchmarks/bench_numeric.py --seeds {args.seeds}`: {TRAIN_ROWS} training "
        f"rows (half of a smaller set) drawn at random (stratified, seeds "
        f"0..{args.seeds - 1}), up to {TEST_ROWS} of the other rows to test; mean log loss "
        "over the seeds.  Ratios below 1: the Student-t children "
        "(`numeric=\"gaussian\", density=\"student\"`) do better.",
        "",
        *[f"- {s}" for s in summary],
        "",
        "| data | learner | MDL | plug-in Gaussian | Student-t | Student-t / MDL "
        "| Student-t / plug-in |",
        "|---|---|---|---|---|---|---|",
    ]
    _sections().write_table_section(args.out, MARK, lines, rows)


if __name__ == "__main__":
    main()
