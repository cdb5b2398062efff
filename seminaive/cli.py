"""Command line: ``seminaive demo``."""

import argparse
import sys
import time

import numpy as np
from sklearn.model_selection import StratifiedKFold

from . import A2DE, AODE, NaiveBayes
from .metrics import log_loss, rmse, zero_one_loss


def _cross_validate(make_model, X, y, folds, seed):
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    rows = []
    for train, test in splitter.split(X, y):
        model = make_model()
        t0 = time.perf_counter()
        model.fit(X.iloc[train], y.iloc[train])
        t1 = time.perf_counter()
        proba = model.predict_proba(X.iloc[test])
        t2 = time.perf_counter()
        y_test = y.iloc[test].to_numpy()
        pred = model.classes_[np.argmax(proba, axis=1)]
        rows.append((zero_one_loss(y_test, pred), rmse(y_test, proba, model.classes_),
                     log_loss(y_test, proba, model.classes_), t1 - t0, t2 - t1))
    return np.array(rows)


def demo(args):
    """10-fold cross-validation of NB, AODE and A2DE on a bundled UCI data set."""
    from .datasets import load_kr_vs_kp

    X, y = load_kr_vs_kp()
    print(f"Data: UCI Chess (King-Rook vs. King-Pawn), {X.shape[0]} rows, {X.shape[1]} nominal "
          f"attributes, {y.nunique()} classes (CC BY 4.0; see seminaive/datasets/data/README.md)")
    print(f"Protocol: stratified {args.folds}-fold cross-validation, seed {args.seed}; "
          "m-estimation (m = 1)\n")
    learners = {"NB": NaiveBayes, "AODE": AODE, "A2DE": A2DE}
    # compile the numba kernels once so the timings measure learning, not compilation
    for cls in learners.values():
        cls().fit(X.iloc[:50], y.iloc[:50]).predict_proba(X.iloc[:5])
    header = (f"{'learner':<8}{'0-1 loss':>10}{'RMSE':>9}{'log loss':>10}"
              f"{'fit (s)':>10}{'predict (s)':>13}")
    print(header)
    print("-" * len(header))
    for name, cls in learners.items():
        res = _cross_validate(cls, X, y, args.folds, args.seed)
        mean = res.mean(axis=0)
        print(f"{name:<8}{mean[0]:>10.4f}{mean[1]:>9.4f}{mean[2]:>10.4f}"
              f"{mean[3]:>10.4f}{mean[4]:>13.4f}")
    print("\nMeans over folds; fit / predict times are per fold. RMSE = sqrt(mean (1 - P(true "
          "class))^2), as in Webb et al. (2012).")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="seminaive",
                                     description="Semi-naive Bayesian classification (AnDE).")
    sub = parser.add_subparsers(dest="command", required=True)
    p_demo = sub.add_parser("demo", help="cross-validate NB, AODE and A2DE on bundled data")
    p_demo.add_argument("--folds", type=int, default=10)
    p_demo.add_argument("--seed", type=int, default=0)
    p_demo.set_defaults(func=demo)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
