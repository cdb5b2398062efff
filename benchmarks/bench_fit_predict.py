"""Fit and predict throughput of NB, AODE and A2DE against scikit-learn's CategoricalNB.

Data: categorical rows sampled from a random Bayesian network (seminaive.datasets), 4 values
per attribute, 2 classes.  Every figure is measured in this run; the ratio column divides our
fit time by CategoricalNB's fit time on the same data, measured just before.  The slope is
the exponent b of time ~ rows^b fitted on the sizes >= 10^5 (1.0 = linear).

    python benchmarks/bench_fit_predict.py            # full run (several minutes)
    python benchmarks/bench_fit_predict.py --quick    # 10^4 .. 10^5 rows, 20 attributes

Targets, on 2 cores for 1,000,000 x 20: NB fit <= 0.2 x CategoricalNB, AODE
<= 0.5 x, A2DE <= 2 x; A2DE predicts 100,000 rows in under 2 s.
"""

import argparse
import os
import time

import _sections  # noqa: F401  (puts this checkout's library first on sys.path)
import numpy as np
from sklearn.naive_bayes import CategoricalNB

from seminaive import A2DE, AODE, NaiveBayes
from seminaive.datasets import RandomBayesianNetwork

LEARNERS = {"NB": NaiveBayes, "AODE": AODE, "A2DE": A2DE}
TARGETS = {"NB": 0.2, "AODE": 0.5, "A2DE": 2.0}


def best_time(func, repeats):
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--attributes", type=int, nargs="*", default=None)
    parser.add_argument("--max-rows-a2de", type=float, default=1e6)
    parser.add_argument("--max-rows", type=float, default=1e7)
    args = parser.parse_args()
    attributes = args.attributes or ([20] if args.quick else [20, 50])
    sizes = [10**4, 10**5] if args.quick else [10**4, 10**5, 10**6, 10**7]
    sizes = [s for s in sizes if s <= args.max_rows]
    print(f"# cores: {os.cpu_count()}, numba threads: {os.environ.get('NUMBA_NUM_THREADS', 'all')}")
    print("# time = best of 3 for < 10^6 rows, one run above; predict on min(rows, 100,000)")
    summary = []
    for a in attributes:
        net = RandomBayesianNetwork(n_attributes=a, n_values=4, n_classes=2, max_parents=2,
                                    concentration=5.0, random_state=0)
        X_test, y_test = net.sample(100_000, random_state=1)
        # compile every kernel once, outside the timings
        for cls in LEARNERS.values():
            cls(categorical_features="all").fit(X_test[:500], y_test[:500]).predict(X_test[:10])
        print(f"\n## {a} attributes, 4 values, 2 classes")
        print(f"{'rows':>10} {'learner':>8} {'fit s':>9} {'rows/s':>11} {'vs CatNB':>9} "
              f"{'predict s':>10} {'pred rows/s':>12} {'0-1 loss':>9}")
        times = {name: [] for name in LEARNERS}
        rows_used = {name: [] for name in LEARNERS}
        for rows in sizes:
            X, y = net.sample(rows, random_state=2)
            repeats = 3 if rows < 10**6 else 1
            ref = best_time(lambda X=X, y=y: CategoricalNB().fit(X, y), repeats)
            print(f"{rows:>10} {'CatNB':>8} {ref:>9.3f} {rows / ref:>11.0f} {1.0:>9.2f}")
            for name, cls in LEARNERS.items():
                if name == "A2DE" and rows > args.max_rows_a2de:
                    continue
                model = cls(categorical_features="all")
                fit = best_time(lambda m=model, X=X, y=y: m.fit(X, y), repeats)
                n_pred = min(rows, 100_000)
                t0 = time.perf_counter()
                pred = model.predict(X_test[:n_pred])
                predict = time.perf_counter() - t0
                loss = np.mean(pred != y_test[:n_pred])
                times[name].append(fit)
                rows_used[name].append(rows)
                print(f"{rows:>10} {name:>8} {fit:>9.3f} {rows / fit:>11.0f} {fit / ref:>9.2f} "
                      f"{predict:>10.3f} {n_pred / predict:>12.0f} {loss:>9.4f}")
                if rows == 10**6 and a == 20:
                    summary.append((name, fit / ref, predict))
            del X, y
        print("\nslope of fit time against rows (log-log, sizes >= 10^5):")
        for name in LEARNERS:
            r = np.array(rows_used[name], dtype=float)
            t = np.array(times[name])
            keep = r >= 1e5
            if keep.sum() >= 2:
                slope = np.polyfit(np.log(r[keep]), np.log(t[keep]), 1)[0]
                print(f"  {name:>5}: {slope:.2f}")
        print(f"bayes-optimal 0-1 loss of the test set: {net.bayes_error(X_test):.4f}")
    if summary:
        print("\n## targets at 1,000,000 x 20 (2 cores)")
        for name, ratio, predict in summary:
            ok = "met" if ratio <= TARGETS[name] else "NOT met"
            print(f"  {name:>5} fit = {ratio:.2f} x CategoricalNB (target <= {TARGETS[name]}): "
                  f"{ok}; predict 100,000 rows: {predict:.2f} s")


if __name__ == "__main__":
    main()
