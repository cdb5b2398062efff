"""Warm fit and predict times of every training route, against the library at a reference
commit, in the same run.

The training protocol (one reset, sources, the drivers on public methods) and the kernels'
threads replaced private hooks and numba's parallel loops; this checks that no learner and
no route became slower.  Each (version, learner) cell runs in a fresh process with the
library of that version on PYTHONPATH: data made there (mixed nominal and numeric columns
with missing values, from a seeded generator), a first round of every route that compiles
(left out), then the median of ``--repeats`` timings of ``fit``, ``predict_proba``,
``partial_fit`` in 4 chunks and ``fit_stream`` from a Parquet file.  The two versions
alternate, cell by cell; the table gives the medians and the ratio reference / this tree
(above 1: faster now).

    python benchmarks/bench_routes.py                      # against 6b2f433
    python benchmarks/bench_routes.py --reference HEAD~5 --rows 20000 --repeats 5
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _sections import (  # noqa: E402
    export_library,
    parse_or_serve,
    run_library,
    scratch_dir,
    write_table_section,
)

ROOT = Path(__file__).resolve().parents[1]
LEARNERS = {
    "NB": ("NaiveBayes", {}),
    "AODE": ("AODE", {}),
    "A2DE": ("A2DE", {}),
    "TAN": ("TAN", {}),
    "KDB2": ("KDB", {"k": 2}),
    "SKDB": ("SKDB", {}),
    "WAODE": ("WAODE", {}),
    "AODE-gauss": ("AODE", {"numeric": "gaussian"}),
}
#: run only when named in --learners: the selection learners
SELECTION_LEARNERS = {
    "SAODE": ("SAODE", {}),
    "ASAODE": ("ASAODE", {}),
    "SelectiveAnDE": ("SelectiveAnDE", {}),
    "AnDE-auto": ("AnDE", {"n": "auto"}),
    "FSSAODE": ("FSSAODE", {}),
    "BSEAODE": ("BSEAODE", {}),
}
ROUTES = ("fit", "predict", "partial_fit", "fit_stream")
MARKS = ("<!-- bench_routes: start -->", "<!-- bench_routes: end -->")


def make_data(rows, seed=0):
    """Rows of 6 nominal columns (3-6 values) and 4 numeric ones, 3 classes, about 3% missing
    values per column, chains of dependence so that structures have something to find."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, rows)
    cols, last = {}, y
    for j, size in enumerate((3, 4, 5, 6, 3, 4)):
        keep = rng.random(rows) < 0.6
        last = np.where(keep, (last + j) % size, rng.integers(0, size, rows))
        cols[f"n{j}"] = pd.Series(np.array([f"v{v}" for v in range(size)])[last], dtype=object)
    prev = y.astype(float)
    for j in range(4):
        prev = 0.7 * prev + rng.normal(0, 0.8, rows) + 0.3 * y
        cols[f"x{j}"] = prev
    X = pd.DataFrame(cols)
    for c in X.columns:
        X.loc[rng.random(rows) < 0.03, c] = np.nan
    return X, pd.Series(np.array(["a", "b", "c"])[y])


def worker(spec):
    """One (version, learner) cell, in this process: the medians of every route."""
    import warnings

    import seminaive

    warnings.simplefilter("ignore")
    name, params = {**LEARNERS, **SELECTION_LEARNERS}[spec["learner"]]
    cls = getattr(seminaive, name)
    X, y = make_data(spec["rows"])
    classes = np.unique(y)
    path = Path(scratch_dir("bench-routes-")) / "train.parquet"
    X.assign(target=y).to_parquet(path, row_group_size=max(1, spec["rows"] // 4))
    bounds = np.array_split(np.arange(len(y)), 4)
    times = {r: [] for r in ROUTES}
    model = None
    for _ in range(spec["repeats"] + 1):  # the first round compiles: left out
        t = time.perf_counter()
        model = cls(**params).fit(X, y)
        times["fit"].append(time.perf_counter() - t)
        t = time.perf_counter()
        model.predict_proba(X)
        times["predict"].append(time.perf_counter() - t)
        t = time.perf_counter()
        inc = cls(**params)
        for b in bounds:
            inc.partial_fit(X.iloc[b], y.iloc[b], classes=classes)
        times["partial_fit"].append(time.perf_counter() - t)
        t = time.perf_counter()
        cls(**params).fit_stream(path, target="target", sample_rows=None, progress=False)
        times["fit_stream"].append(time.perf_counter() - t)
    result = {r: statistics.median(v[1:]) for r, v in times.items()}
    print(json.dumps(result), flush=True)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", default="6b2f433", help="commit to compare with")
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--learners", nargs="*", default=list(LEARNERS),
                        help=f"among {', '.join([*LEARNERS, *SELECTION_LEARNERS])}")
    args = parse_or_serve(parser, worker, ROOT)
    if args is None:  # a worker: measured and printed
        return
    ref_dir = export_library(ROOT, args.reference, scratch_dir("bench-ref-"))
    rows = []
    for learner in args.learners:
        spec = {"learner": learner, "rows": args.rows, "repeats": args.repeats}
        now = run_library(__file__, ROOT, spec, timeout=1800)
        ref = run_library(__file__, ref_dir, spec, timeout=1800)
        for route in ROUTES:
            if "error" in now or "error" in ref:
                rows.append([learner, route, "-", "-", now.get("error") or ref.get("error")])
                continue
            rows.append([learner, route, f"{ref[route]:.3f}", f"{now[route]:.3f}",
                         f"{ref[route] / now[route]:.2f}"])
        print(json.dumps({"learner": learner, "now": now, "reference": ref}), flush=True)
    lines = [
        MARKS[0],
        "## Training routes against the library before the training protocol",
        "",
        f"`python benchmarks/bench_routes.py --reference {args.reference} --rows {args.rows} "
        f"--repeats {args.repeats}`: warm medians of "
        f"{args.repeats} timings, {args.rows:,} rows (6 nominal and 4 numeric columns with "
        "missing values, 3 classes), each version in fresh processes, alternated cell by "
        "cell; the ratio is reference / this tree (above 1: faster now).",
        "",
        "| learner | route | reference s | this tree s | ratio |",
        "|---|---|---:|---:|---:|",
    ]
    write_table_section(args.out, MARKS, lines, rows)
    for row in rows:
        print(" | ".join(str(v) for v in row))


if __name__ == "__main__":
    main()
