"""KDB / SKDB / ESKDB with families stored only where the data reach, against the dense
families of the previous version, same data, same run.

The reference is the library at commit ``--reference`` (default 210d488, the last commit
with dense family tables and dense HDP trees), and for the learners with Gaussian children
(``numeric="gaussian"``) the library at ``--gaussian-reference`` (default f8440f9, the last
commit with dense moment blocks: sparse families, dense moments), each exported with
``git archive`` into a temporary directory; every fit runs in a fresh single-threaded process
(``NUMBA_NUM_THREADS=1``) after a warm-up fit on 300 rows (compilation), on a random half of
the data (seed 0), scored by zero-one loss on the other half.  Both versions discretise
numeric attributes by MDL, as ``seminaive compare --discretizer mdl`` does, and keep the
default 4 GiB ``max_table_bytes``: where the dense layout is refused the row says so.
Printed and written to ``docs/performance.md`` (its section between the
``bench_sparse_families`` markers).

    python benchmarks/bench_sparse_families.py [--quick] [--out PATH]
"""

import argparse
import datetime
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import _sections

ROOT = Path(__file__).resolve().parents[1]
MARK = ("<!-- bench_sparse_families -->", "<!-- /bench_sparse_families -->")

LEARNERS = {
    "KDB(k=2)": ("KDB", {"k": 2}),
    "KDB(k=5)": ("KDB", {"k": 5}),
    "KDB(k=5, hdp)": ("KDB", {"k": 5, "smoothing": "hdp", "random_state": 0}),
    "SKDB(k=5)": ("SKDB", {"k": 5}),
    "ESKDB()": ("ESKDB", {"random_state": 0}),
    "KDB(k=5, gaussian)": ("KDB", {"k": 5, "numeric": "gaussian"}),
    "SKDB(k=5, gaussian)": ("SKDB", {"k": 5, "numeric": "gaussian"}),
    # --quick
    "KDB(k=3)": ("KDB", {"k": 3}),
    "KDB(k=3, hdp, 100 it.)": ("KDB", {"k": 3, "smoothing": "hdp", "n_iter": 100,
                                       "random_state": 0}),
    "ESKDB(2 members, k=3, 100 it.)": ("ESKDB", {"n_estimators": 2, "k": 3, "n_iter": 100,
                                                 "random_state": 0}),
    "KDB(k=4, gaussian)": ("KDB", {"k": 4, "numeric": "gaussian"}),
}
FULL = [("magic", None, ["KDB(k=2)", "KDB(k=5)", "KDB(k=5, hdp)", "SKDB(k=5)", "ESKDB()"]),
        ("letter", None, ["KDB(k=5)", "KDB(k=5, hdp)", "ESKDB()", "KDB(k=5, gaussian)",
                          "SKDB(k=5, gaussian)"])]
QUICK = [("magic", 4000, ["KDB(k=3)", "KDB(k=3, hdp, 100 it.)",
                          "ESKDB(2 members, k=3, 100 it.)"]),
         ("letter", 4000, ["KDB(k=4, gaussian)"])]


def gaussian(learner):
    """Whether a learner has Gaussian children (its reference: the dense moments)."""
    return LEARNERS[learner][1].get("numeric") == "gaussian"


def worker(spec):
    """Fit one learner in this process (the library on PYTHONPATH) and print JSON."""
    import resource
    import warnings

    import numpy as np

    seminaive, X, y, train, test, model = _sections.warmed_learner(spec, LEARNERS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        try:
            model.fit(X.iloc[train], y[train])
        except seminaive.TableTooLargeError as err:
            print(json.dumps({"refused": str(err)[:160]}))
            return
        fit = time.perf_counter() - t0
        t0 = time.perf_counter()
        pred = model.predict(X.iloc[test])
        predict = time.perf_counter() - t0
    print(json.dumps({"fit": fit, "predict": predict,
                      "zero_one": float(np.mean(pred != y[test])),
                      "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "library": seminaive.__file__}))


def run(code_dir, spec, timeout):
    return _sections.run_library(__file__, code_dir, spec, timeout, threads=1)


def cell(result, key, fmt):
    if "refused" in result:
        return "refused"
    if "error" in result:
        return "error"
    return fmt.format(result[key])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="magic at 4,000 rows, k = 3")
    parser.add_argument("--reference", default="210d488",
                        help="commit of the dense families (the reference)")
    parser.add_argument("--gaussian-reference", default="f8440f9",
                        help="commit of the dense moments of Gaussian children (the "
                             "reference of the numeric='gaussian' rows)")
    parser.add_argument("--timeout", type=int, default=3600)
    args = _sections.parse_or_serve(parser, worker, ROOT)
    if args is None:
        return
    header = ("| data | rows (train) | learner | dense fit s | sparse fit s | fit time ratio "
              "(dense / sparse) | dense 0-1 | sparse 0-1 | dense peak MiB | sparse peak MiB |")
    print(header)
    rows = []
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as tmp_g:
        ref_dir = _sections.export_library(ROOT, args.reference, tmp)
        ref_gaussian = _sections.export_library(ROOT, args.gaussian_reference, tmp_g)
        for data, n_rows, learners in (QUICK if args.quick else FULL):
            for learner in learners:
                spec = {"data": data, "rows": n_rows, "learner": learner}
                dense = run(ref_gaussian if gaussian(learner) else ref_dir, spec,
                            args.timeout)
                sparse = run(ROOT, spec, args.timeout)
                for label, result in (("dense", dense), ("sparse", sparse)):
                    if "error" in result or "refused" in result:
                        print(f"# {label} {data} {learner}: {result}")
                ratio = (f"{dense['fit'] / sparse['fit']:.2f}"
                         if "fit" in dense and "fit" in sparse else "-")
                train = "all / 2" if n_rows is None else f"{n_rows} / 2"
                row = [data, train, learner, cell(dense, "fit", "{:.2f}"),
                       cell(sparse, "fit", "{:.2f}"), ratio,
                       cell(dense, "zero_one", "{:.4f}"), cell(sparse, "zero_one", "{:.4f}"),
                       cell(dense, "peak_mib", "{:.0f}"), cell(sparse, "peak_mib", "{:.0f}")]
                rows.append(row)
                print("| " + " | ".join(str(v) for v in row) + " |", flush=True)
    write(args, header, rows)


def write(args, header, rows):
    load1 = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    lines = [MARK[0], "## KDB / SKDB / ESKDB families where the data reach", "",
             f"Written by `benchmarks/bench_sparse_families.py` on "
             f"{datetime.date.today().isoformat()}: {platform.machine()}, "
             f"{os.cpu_count()} cores, Python {platform.python_version()}; load average "
             f"{load1}.", "",
             f"Dense: the library at commit {args.reference} (dense family tables, dense "
             "HDP trees); sparse: this version (count trees of the occurring prefixes, HDP "
             "trees of the occurring nodes).  Each fit in a fresh single-threaded process "
             "after a warm-up fit on 300 rows, on a random half of the data (seed 0), MDL "
             "discretisation, the default 4 GiB `max_table_bytes` (refused: the dense layout "
             "needs more); zero-one loss on the other half; peak: the process's resident "
             "high-water mark.  The two versions give bit-identical models where both fit "
             "(`tests/structure/test_sparse_families.py`), so their losses agree.", "",
             f"Rows with `gaussian` (numeric attributes as Gaussian children given their "
             f"discretised parents): dense is the library at commit "
             f"{args.gaussian_reference} (sparse families, dense moment blocks per chain "
             "prefix), sparse this version (moments of the occurring (class, parent prefix) "
             "cells only); the models are bit-identical where both fit "
             "(`tests/structure/test_sparse_moments.py`).", "",
             header, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    _sections.write_table_section(args.out, MARK, lines, rows)


if __name__ == "__main__":
    main()
