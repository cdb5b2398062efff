"""Training cost of MAPLMG / MAPLMD against data size: linear per optimiser iteration.

Webb et al. 2012 (Fig. 5, §4.3) reports MAPLMG's per-instance training time growing with the data
(super-linear training).  Here every optimiser iteration is one streamed pass over the data
computing the leave-one-out joints on the fly (``loo_cache_bytes=0``: nothing of size
O(rows) is kept), so time per iteration per row should be flat across sizes.

Data: rows sampled from a random Bayesian network (seminaive.datasets), 20 attributes with 4
values, 2 classes.  Printed per size: counting time (AODE fit), MAPLMG fit time, optimiser
iterations and passes, time per pass, time per pass per row; then the same per-pass figure
for MAPLMD (EM) and for MAPLMG over A2DE's sub-models, and the slope b of time-per-pass ~
rows^b (1.0 = linear).

    python benchmarks/bench_weighting.py            # 10^4, 10^5, 10^6 rows (A2DE: <= 10^5)
    python benchmarks/bench_weighting.py --quick    # 10^4, 10^5 rows
"""

import argparse
import os
import time

import _sections  # noqa: F401  (puts this checkout's library first on sys.path)
import numpy as np

from seminaive import AODE, MAPLMD, MAPLMG
from seminaive.datasets import RandomBayesianNetwork
from seminaive.sources import ArraySource
from seminaive.weighting._kernels import STAT_LMG
from seminaive.weighting.loo import Evaluator, LeaveOneOut


def timed(func):
    t0 = time.perf_counter()
    result = func()
    return result, time.perf_counter() - t0


def pass_time(model, X, y, repeats=3):
    """Best time of one MAPLMG objective+gradient pass over the data (streamed)."""
    codes, y_idx = model._storage_codes(X), model._encode_target(y)
    loo = LeaveOneOut(model.table_, model.n, model.smoothing, model.m, model.min_count)
    evaluate = Evaluator(loo, ArraySource(codes, y_idx), STAT_LMG)
    log_alpha = np.log(model.weights_)
    evaluate(log_alpha)  # warm-up (compilation)
    return min(timed(lambda: evaluate(log_alpha))[1] for _ in range(repeats))


def slope(sizes, times):
    return float(np.polyfit(np.log(sizes), np.log(times), 1)[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--attributes", type=int, default=20)
    parser.add_argument("--max-rows-a2de", type=float, default=1e5,
                        help="largest size for MAPLMG over A2DE's sub-models")
    args = parser.parse_args()
    sizes = [10**4, 10**5] if args.quick else [10**4, 10**5, 10**6]
    a = args.attributes
    bn = RandomBayesianNetwork(n_attributes=a, n_values=4, n_classes=2, random_state=0)
    X_all, y_all = bn.sample(max(sizes), random_state=1)
    print(f"# cores: {os.cpu_count()}, {a} attributes x 4 values, 2 classes; "
          "loo_cache_bytes=0 (every pass streams the data)")
    # compile every kernel once on a small sample
    for cls, n in ((MAPLMG, 1), (MAPLMD, 1), (MAPLMG, 2)):
        cls(n, categorical_features="all", max_iter=2).fit(X_all[:2000], y_all[:2000])
    header = (f"{'learner':<10}{'rows':>9}{'count s':>9}{'fit s':>9}{'iters':>7}{'passes':>7}"
              f"{'s/pass':>9}{'ns/pass/row':>13}{'fit us/row':>12}")
    print(header)
    # MAPLMD's EM converges slowly (hits max_iter): capped at 20 iterations here, the figure
    # of interest being the time per pass
    for name, cls, n, max_iter in (("MAPLMG", MAPLMG, 1, 100), ("MAPLMD", MAPLMD, 1, 20),
                                   ("MAPLMG-2", MAPLMG, 2, 100)):
        per_pass = []
        used = [s for s in sizes if n == 1 or s <= args.max_rows_a2de]
        for rows in used:
            X, y = X_all[:rows], y_all[:rows]
            _, t_count = timed(lambda X=X, y=y: AODE(categorical_features="all").fit(X, y))
            model = cls(n, categorical_features="all", loo_cache_bytes=0, max_iter=max_iter)
            _, t_fit = timed(lambda X=X, y=y, model=model: model.fit(X, y))
            t_pass = pass_time(model, X, y)
            per_pass.append(t_pass)
            print(f"{name:<10}{rows:>9}{t_count:>9.3f}{t_fit:>9.2f}{model.n_iter_:>7}"
                  f"{model.n_passes_:>7}{t_pass:>9.3f}{1e9 * t_pass / rows:>13.0f}"
                  f"{1e6 * t_fit / rows:>12.2f}")
        if len(used) > 1:
            print(f"{name:<10} slope of time per pass vs rows: {slope(used, per_pass):.3f}")


if __name__ == "__main__":
    main()
