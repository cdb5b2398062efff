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

    python benchmarks/bench_hdp.py --fits [--quick] [--repeats N] [--out PATH]

Without ``--fits``: the sampler alone, against ``--reference`` (default c0a4c45, the
sampler on numba's parallel loop) in the same run.  Iterations per second: ESKDB's forests
(20 members, all their trees as one forest, the trees its default fit on a random half of
the data would sample; captured once with this version) of letter, magic and penbased, each
version timing :func:`~seminaive.kernels.hdp.sparse_hdp_forest` on the same forest in a
fresh process after a warm-up on two of its trees, ``--iterations`` iterations (burn-in
10), alternating, best of ``--repeats``; identical: the estimates' bytes hash equal.
Compile seconds: a fresh process with an empty compile cache samples a small forest; the
CPU seconds of every kernel of the sampler's module from numba's compile events (exclusive
of the kernels it compiles on the way), median of ``--repeats`` alternated runs.  Written
between the ``bench_hdp_sampler`` markers.

    python benchmarks/bench_hdp.py [--quick] [--repeats N] [--iterations N] [--out PATH]
"""

import argparse
import datetime
import hashlib
import json
import os
import pickle
import platform
import statistics
import tempfile
import time
from pathlib import Path

import _sections

ROOT = Path(__file__).resolve().parents[1]
MARK = ("<!-- bench_hdp -->", "<!-- /bench_hdp -->")
SAMPLER_MARK = ("<!-- bench_hdp_sampler -->", "<!-- /bench_hdp_sampler -->")
SAMPLER_DATA = ["letter", "magic", "penbased"]

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
    """A measurement in this fresh process (the library on PYTHONPATH), by ``spec["kind"]``:
    capture ESKDB's forest, time the sampler, count compile seconds, or (default) a fit."""
    kind = spec.get("kind", "fit")
    if kind == "capture":
        return capture_worker(spec)
    if kind == "speed":
        return speed_worker(spec)
    if kind == "compile":
        return compile_worker(spec)
    return fit_worker(spec)


def capture_worker(spec):
    """Fit ESKDB (defaults, random_state 0) on a random half of ``spec["data"]`` with the
    sampler replaced by a recorder (2 iterations), and pickle the forests it was given to
    ``spec["path"]``: ``[(trees, keyword arguments), ...]``."""
    import warnings

    import numpy as np

    import seminaive
    from seminaive.structure import eskdb

    X, y, train, _ = _sections.half_split({"data": spec["data"], "rows": None})
    calls = []
    sample = eskdb.sparse_hdp_forest

    def record(trees, **kwargs):
        calls.append(([tuple(np.asarray(a) for a in tree) for tree in trees],
                      {k: v for k, v in kwargs.items() if k != "iterations"}))
        return sample(trees, **dict(kwargs, n_iter=2, burn_in=1))

    eskdb.sparse_hdp_forest = record
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seminaive.ESKDB(random_state=0).fit(X.iloc[train], y[train])
    with open(spec["path"], "wb") as f:
        pickle.dump(calls, f)
    print(json.dumps({"calls": len(calls), "trees": sum(len(t) for t, _ in calls)}))


def speed_worker(spec):
    """Time :func:`sparse_hdp_forest` on the captured forests of ``spec["path"]`` at
    ``spec["iterations"]`` iterations, after a warm-up on two trees; print the seconds and a
    hash of the estimates."""
    import numpy as np

    from seminaive.kernels import hdp

    with open(spec["path"], "rb") as f:
        calls = pickle.load(f)
    trees, kwargs = calls[0]
    hdp.sparse_hdp_forest(trees[:2], **dict(kwargs, n_iter=3, burn_in=1,
                                             seeds=np.asarray(kwargs["seeds"])[:2]))
    digest = hashlib.sha256()
    t0 = time.perf_counter()
    for trees, kwargs in calls:
        for est in hdp.sparse_hdp_forest(trees, **dict(kwargs, n_iter=spec["iterations"],
                                                        burn_in=10)):
            digest.update(est.tobytes())
    seconds = time.perf_counter() - t0
    print(json.dumps({"seconds": seconds, "hash": digest.hexdigest()[:16],
                      "cells": int(sum(np.size(p) * np.shape(c)[1]
                                       for trees, _ in calls for p, _, c in trees))}))


def compile_worker(spec):
    """With an empty compile cache (the caller's environment): sample a small forest and
    print the CPU seconds of every kernel of the sampler's module that compiled
    (exclusive of the kernels compiled while it compiled) and of the whole first call."""
    import numpy as np
    from numba.core import event

    stack, own = [], {}

    class Listener(event.Listener):
        def on_start(self, ev):
            stack.append([ev.data["dispatcher"].py_func, time.process_time(), 0.0])

        def on_end(self, ev):
            fn, t0, inner = stack.pop()
            spent = time.process_time() - t0
            if fn.__module__ == "seminaive.kernels.hdp":
                own[fn.__qualname__] = own.get(fn.__qualname__, 0.0) + spent - inner
            if stack:
                stack[-1][2] += spent

    from seminaive.kernels import hdp

    rng = np.random.default_rng(0)
    trees = [hdp.sparse_from_dense(rng.poisson(lam, size=(6, 3)), np.array([2, 3]), 2)[1:]
             for lam in (0.5, 9.0, 2.0)]  # (compiled before the counting starts)
    event.register("numba:compile", Listener())
    c0 = time.process_time()
    hdp.sparse_hdp_forest(trees, n_iter=30, burn_in=3, seeds=[4, 5, 6])
    print(json.dumps({"total": time.process_time() - c0, "own": own}))


def fit_worker(spec):
    """Fit one learner in this process (the library on PYTHONPATH), save its class
    probabilities on the test half to ``spec["proba"]`` and print JSON."""
    import warnings

    import numpy as np

    seminaive, X, y, train, test, model = _sections.warmed_learner(spec, LEARNERS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        model.fit(X.iloc[train], y[train])
        fit = time.perf_counter() - t0
        proba = model.predict_proba(X.iloc[test])
    np.save(spec["proba"], proba)
    print(json.dumps({"fit": fit, "zero_one": float(np.mean(
        model.classes_[proba.argmax(axis=1)] != y[test])), "library": seminaive.__file__}))


def measure(ref_dir, spec, repeats, timeout, tmp):
    """Alternate the reference and this version ``repeats`` times; the fit times of each,
    whether every pair of runs gave the same probabilities, and the last results."""
    import numpy as np

    run_library = _sections.run_library
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
                        help="fits: magic at 4,000 rows, k = 3, 100 iterations, one repeat; "
                             "sampler: magic only, one repeat")
    parser.add_argument("--fits", action="store_true",
                        help="the learners' fit times (the earlier table) instead of the "
                             "sampler alone")
    parser.add_argument("--reference", default=None,
                        help="commit of the reference (default f8440f9 with --fits, "
                             "else c0a4c45)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="runs of each version, alternated (default 3; --quick 1)")
    parser.add_argument("--iterations", type=int, default=100,
                        help="sampler iterations per timed run (default 100)")
    parser.add_argument("--timeout", type=int, default=3600)
    args = _sections.parse_or_serve(parser, worker, ROOT)
    if args is None:
        return
    if args.reference is None:
        args.reference = "f8440f9" if args.fits else "c0a4c45"
    if not args.fits:
        return sampler_main(args)
    repeats = args.repeats or (1 if args.quick else 3)
    header = ("| data | rows (train) | learner | reference fit s | this version fit s | "
              "fit time ratio (reference / this) | identical | 0-1 loss |")
    print(header)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        ref_dir = _sections.export_library(ROOT, args.reference, Path(tmp) / "ref")
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
    _sections.write_table_section(args.out, MARK, lines, rows)


def _empty_cache_env(cache):
    """os.environ with the compile cache of either version in the directory ``cache``."""
    return {"SEMINAIVE_CACHE_DIR": cache, "NUMBA_CACHE_DIR": cache}


def sampler_main(args):
    """Iterations per second on ESKDB's forests and compile seconds, reference against this
    version in the same run."""
    repeats = args.repeats or (1 if args.quick else 3)
    run_library = _sections.run_library
    load_start = os.getloadavg()
    speed_header = ("| data | trees | cells | iterations | reference it/s | this version it/s "
                    "| ratio (this / reference) | identical |")
    print(speed_header)
    speed_rows = []
    with tempfile.TemporaryDirectory() as tmp:
        ref_dir = _sections.export_library(ROOT, args.reference, Path(tmp) / "ref")
        for data in (["magic"] if args.quick else SAMPLER_DATA):
            path = str(Path(tmp) / f"{data}.pkl")
            got = run_library(__file__, ROOT, {"kind": "capture", "data": data, "path": path},
                              args.timeout)
            if "error" in got:
                print(f"# capture {data}: {got['error']}")
                continue
            best, hashes, cells = {"ref": [], "new": []}, {"ref": set(), "new": set()}, 0
            for _ in range(repeats):
                for label, code in (("ref", ref_dir), ("new", ROOT)):
                    res = run_library(__file__, code, {"kind": "speed", "path": path,
                                                       "iterations": args.iterations},
                                      args.timeout)
                    if "error" in res:
                        print(f"# {label} {data}: {res['error']}")
                        continue
                    best[label].append(res["seconds"])
                    hashes[label].add(res["hash"])
                    cells = res["cells"]
            if not (best["ref"] and best["new"]):
                continue
            ref, new = (args.iterations / min(best[k]) for k in ("ref", "new"))
            same = len(hashes["ref"] | hashes["new"]) == 1
            row = [data, got["trees"], cells, args.iterations, f"{ref:.1f}", f"{new:.1f}",
                   f"{new / ref:.2f}", "yes" if same else "**no**"]
            speed_rows.append(row)
            print("| " + " | ".join(str(v) for v in row) + " |", flush=True)
        runs = {"ref": [], "new": []}
        for _ in range(repeats):
            for label, code in (("ref", ref_dir), ("new", ROOT)):
                cache = tempfile.mkdtemp(dir=tmp)
                saved = {k: os.environ.get(k) for k in _empty_cache_env(cache)}
                os.environ.update(_empty_cache_env(cache))
                try:
                    res = run_library(__file__, code, {"kind": "compile"}, args.timeout)
                finally:
                    for k, v in saved.items():
                        if v is None:
                            os.environ.pop(k, None)
                        else:
                            os.environ[k] = v
                if "error" in res:
                    print(f"# compile {label}: {res['error']}")
                else:
                    runs[label].append(res)
    compile_rows = compile_table(runs)
    for row in compile_rows:
        print("| " + " | ".join(str(v) for v in row) + " |")
    write_sampler(args, repeats, speed_header, speed_rows, compile_rows, load_start)


def compile_table(runs):
    """Rows (kernel, reference CPU-s, this version's CPU-s): medians over the runs, the
    kernels by the reference's seconds, then the first call's total."""
    def med(label, name):
        values = [r["own"].get(name, 0.0) for r in runs[label]]
        return statistics.median(values) if values else float("nan")

    names = sorted({n for label in runs for r in runs[label] for n in r["own"]},
                   key=lambda n: -max(med("ref", n), med("new", n)))
    rows = [[f"`{n}`", f"{med('ref', n):.2f}" if med("ref", n) else "-",
             f"{med('new', n):.2f}" if med("new", n) else "-"] for n in names]
    totals = [statistics.median([r["total"] for r in runs[k]]) if runs[k] else float("nan")
              for k in ("ref", "new")]
    rows.append(["**first call, in all**", f"**{totals[0]:.2f}**", f"**{totals[1]:.2f}**"])
    return rows


def write_sampler(args, repeats, speed_header, speed_rows, compile_rows, load_start):
    import numba

    loads = [", ".join(f"{v:.1f}" for v in load) for load in (load_start, os.getloadavg())]
    lines = [SAMPLER_MARK[0], "## The HDP sampler alone: iterations per second and compile "
             "seconds", "",
             f"`python benchmarks/bench_hdp.py --repeats {repeats} --iterations "
             f"{args.iterations}` on {datetime.date.today().isoformat()}: "
             f"{platform.machine()}, {os.cpu_count()} cores ({numba.get_num_threads()} numba "
             f"threads) shared with other jobs, Python {platform.python_version()}; load "
             f"average {loads[0]} at the start, {loads[1]} at the end (only the same-run "
             "ratios are meaningful).", "",
             f"Reference: the library at commit {args.reference} (the trees sampled by a "
             "`prange` loop); this version: one GIL-free kernel per thread share run by "
             "Python threads, a small forest in the calling thread.  ESKDB's forest (its 20 "
             "members' trees, default settings, on a random half of the data, seed 0) "
             f"sampled for {args.iterations} iterations (burn-in 10) in a fresh process after "
             f"a warm-up, the versions alternating, best of {repeats}.  Identical: the "
             "estimates' bytes are the same in every run of both versions.", "",
             speed_header, "|---|---:|---:|---:|---:|---:|---:|---|"]
    lines += _sections.table_lines(speed_rows)
    lines += ["", "Compile CPU seconds of the sampler's kernels (a fresh process, an empty "
              "compile cache, a small forest sampled; numba's compile events, each kernel "
              "without the kernels it compiled on the way; the library's other kernels "
              f"and numba's own helpers left out), median of {repeats} alternated runs:", "",
              "| kernel | reference CPU-s | this version CPU-s |", "|---|---:|---:|"]
    _sections.write_table_section(args.out, SAMPLER_MARK, lines, compile_rows)


if __name__ == "__main__":
    main()
