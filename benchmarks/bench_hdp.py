"""Fit time of the HDP learners (``smoothing="hdp"``, ESKDB) against the library before the
sampler was made faster, same data, same run.

The reference is the library at commit ``--reference`` (default f8440f9, the sampler before
this change), exported with ``git archive`` into a temporary directory.  Every fit runs in a
fresh process with the machine's threads, after a warm-up fit on 300 rows (compilation), on
a random half of the data (seed 0, MDL discretisation); the reference and this version
alternate, ``--repeats`` times each, and the table gives the medians.  The two versions must
give the same model: the class probabilities on the other half are compared with
``np.array_equal`` (column "identical").  Printed and written to ``docs/performance.md`` (its
section between the ``bench_hdp`` markers).

    python benchmarks/bench_hdp.py [--quick] [--repeats N] [--out PATH]
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARK = ("<!-- bench_hdp -->", "<!-- /bench_hdp -->")

LEARNERS = {
    "KDB(k=5, hdp)": ("KDB", {"k": 5, "smoothing": "hdp", "random_state": 0}),
    "ESKDB()": ("ESKDB", {"random_state": 0}),
    # --quick
    "KDB(k=3, hdp, 100 it.)": ("KDB", {"k": 3, "smoothing": "hdp", "n_iter": 100,
                                       "random_state": 0}),
    "ESKDB(2 members, k=3, 100 it.)": ("ESKDB", {"n_estimators": 2, "k": 3, "n_iter": 100,
                                                 "random_state": 0}),
}
FULL = [("magic", None, ["KDB(k=5, hdp)", "ESKDB()"]),
        ("letter", None, ["KDB(k=5, hdp)", "ESKDB()"])]
QUICK = [("magic", 4000, ["KDB(k=3, hdp, 100 it.)", "ESKDB(2 members, k=3, 100 it.)"])]


def worker(spec):
    """Fit one learner in this process (the library on PYTHONPATH), save its class
    probabilities on the test half to ``spec["proba"]`` and print JSON."""
    import warnings

    import numpy as np

    seminaive, X, y, train, test, model = _sections().warmed_learner(spec, LEARNERS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        model.fit(X.iloc[train], y[train])
        fit = time.perf_counter() - t0
        proba = model.predict_proba(X.iloc[test])
    np.save(spec["proba"], proba)
    print(json.dumps({"fit": fit, "zero_one": float(np.mean(
        model.classes_[proba.argmax(axis=1)] != y[test])), "library": seminaive.__file__}))


def _sections():
    """benchmarks/_sections.py, imported only by the main process (a worker runs another
    version of the library)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _sections

    return _sections


def measure(ref_dir, spec, repeats, timeout, tmp):
    """Alternate the reference and this version ``repeats`` times; the fit times of each,
    whether every pair of runs gave the same probabilities, and the last results."""
    import numpy as np

    run_library = _sections().run_library
    times = {"ref": [], "new": []}
    identical, last = True, {}
    for r in range(repeats):
        probas = {}
        for label, code in (("ref", ref_dir), ("new", ROOT)):
            path = str(Path(tmp) / f"{label}-{r}.npy")
            result = run_library(__file__, code, dict(spec, proba=path), timeout)
            last[label] = result
            if "error" in result:
                print(f"# {label} {spec['data']} {spec['learner']}: {result['error']}")
                return times, False, last
            times[label].append(result["fit"])
            probas[label] = np.load(path)
        identical &= bool(np.array_equal(probas["ref"], probas["new"]))
    return times, identical, last


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="magic at 4,000 rows, k = 3, 100 iterations, one repeat")
    parser.add_argument("--reference", default="f8440f9",
                        help="commit of the sampler before the change (the reference)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="fits of each version, alternated (default 3; --quick 1)")
    parser.add_argument("--timeout", type=int, default=3600)
    args = _sections().parse_or_serve(parser, worker, ROOT)
    if args is None:
        return
    repeats = args.repeats or (1 if args.quick else 3)
    header = ("| data | rows (train) | learner | reference fit s | this version fit s | "
              "fit time ratio (reference / this) | identical | 0-1 loss |")
    print(header)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        ref_dir = _sections().export_library(ROOT, args.reference, Path(tmp) / "ref")
        for data, n_rows, learners in (QUICK if args.quick else FULL):
            for learner in learners:
                spec = {"data": data, "rows": n_rows, "learner": learner}
                times, identical, last = measure(ref_dir, spec, repeats, args.timeout, tmp)
                if not times["new"] or len(times["ref"]) != len(times["new"]):
                    row = [data, "-", learner, "error", "error", "-", "-", "-"]
                else:
                    ref, new = statistics.median(times["ref"]), statistics.median(times["new"])
                    train = "all / 2" if n_rows is None else f"{n_rows} / 2"
                    row = [data, train, learner, f"{ref:.2f}", f"{new:.2f}", f"{ref / new:.2f}",
                           "yes" if identical else "**no**", f"{last['new']['zero_one']:.4f}"]
                rows.append(row)
                print("| " + " | ".join(str(v) for v in row) + " |", flush=True)
    write(args, repeats, header, rows)


def write(args, repeats, header, rows):
    import numba

    load1 = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    lines = [MARK[0], "## The HDP sampler", "",
             f"Written by `benchmarks/bench_hdp.py` on {datetime.date.today().isoformat()}: "
             f"{platform.machine()}, {os.cpu_count()} cores ({numba.get_num_threads()} numba "
             f"threads), Python {platform.python_version()}; load average {load1}.", "",
             f"Reference: the library at commit {args.reference} (before the sampler was made "
             "faster); this version: the sampler visiting only the leaf values with 2 or more "
             "rows, reading the exact Stirling table directly, remembering the log Stirling "
             "numbers beyond it and the window's lgamma and log terms by their exact "
             "arguments, and giving the trees to the threads largest first (Graham 1969).  "
             "Each fit in a fresh process after a warm-up fit on 300 rows, on a random half "
             "of the data (seed 0), MDL discretisation; the two versions alternate, median of "
             f"{repeats} fits each.  Identical: the class probabilities on the other half "
             "are bit-identical (`np.array_equal`) in every pair of runs.", "",
             header, "|---|---|---|---:|---:|---:|---|---:|"]
    _sections().write_table_section(args.out, MARK, lines, rows)


if __name__ == "__main__":
    main()
