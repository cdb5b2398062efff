"""Hierarchical linear smoothing (``smoothing="hls"``) against the hierarchical Dirichlet
process (``smoothing="hdp"``, the reference) and m-estimates: log loss and fit time, same
data, same run.

Every data set is split in halves (seed 0, :func:`_sections.half_split`); each learner is fitted
on one half with the HDP (default sampler settings: 1000 iterations) and with HLS, and the
log loss is measured on the other half.  Fit times are the best of ``--repeats`` fits, HDP
and HLS alternating in one process after a warm-up fit of each on 300 rows (compilation);
the machine is shared, so only the same-run ratios are meaningful.  The estimates alone
(the HDP sampler against the HLS fit on the fitted HDP model's trees, alternating, best of
``--repeats`` for the sampler and of ``HLS_RUNS`` x ``--repeats`` for HLS) are timed too: the
rest of a fit (counting, structure, and the trees both kernels take, made once before the
timings) is the same for both.  The HLS estimates are also timed against the library at
commit ``--reference`` (default 9e1dc86, before the fit's fixed costs were cut) on the same
trees: each version in a fresh process, the two alternating ``--repeats`` times, CPU
seconds, best of ``HLS_RUNS`` x ``--repeats`` fits per process (the load of a shared machine
weighs less on CPU seconds than on wall time).
Printed and written to ``docs/performance.md`` (its section between the ``bench_hls``
markers).

    python benchmarks/bench_hls.py [--quick] [--repeats N] [--reference COMMIT] [--out PATH]

``--eskdb SET ...`` times instead the HLS estimates of the forest ESKDB fits on each set
(``smoothing="hls"``, its defaults: 20 members; fitted on the set's first half, seed 0, its
trees caught on their way to :func:`seminaive.kernels.hls.sparse_hls_forest`) against
``--reference``, one thread, in the same alternating fresh processes (CPU seconds, best of
``HLS_RUNS`` x ``--repeats`` fits per process), and writes its own section (between the
``bench_hls_eskdb`` markers):

    python benchmarks/bench_hls.py --eskdb letter penbased --reference 29bc5f3 [--repeats 3]
"""

import argparse
import datetime
import json
import os
import pickle
import platform
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import _sections

ROOT = Path(__file__).resolve().parents[1]
MARK = ("<!-- bench_hls -->", "<!-- /bench_hls -->")
ESKDB_MARK = ("<!-- bench_hls_eskdb -->", "<!-- /bench_hls_eskdb -->")

LEARNERS = {
    "KDB(k=3)": ("KDB", {"k": 3}),
    "AnDE(n=1)": ("AnDE", {"n": 1}),
}
SETS = ["kr-vs-kp", "splice", "tic-tac-toe", "housevotes", "contraceptive", "german",
        "vowel", "segment"]
QUICK_SETS = ["tic-tac-toe", "housevotes"]
#: timings of the HLS estimates per round of the sampler's (best of all of them)
HLS_RUNS = 3
#: the estimates are to be this many times faster than the sampler's
GOAL = 20
#: a load average above this: the summary says the ratios are not a quiet machine's
BUSY = 4
#: the library the HLS estimates are timed against
REFERENCE = "9e1dc86"


def _fit(cls, params, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(**params)
        t0 = time.perf_counter()
        model.fit(X, y)
        return model, time.perf_counter() - t0


def measure(data, learner, repeats):
    """Log losses (m-estimate, HDP, HLS) and best fit times (HDP, HLS) of one learner."""
    import numpy as np
    from sklearn.metrics import log_loss

    import seminaive
    from seminaive.kernels.hdp import hdp_forest, sparse_hdp_forest
    from seminaive.parts import HierarchicalEstimates

    X, y, train, test = _sections.half_split({"data": data, "rows": None})
    name, base = LEARNERS[learner]
    cls = getattr(seminaive, name)
    params = {mode: {**base, "smoothing": mode, "random_state": 0}
              for mode in ("m_estimate", "hdp", "hls")}
    for mode in ("hdp", "hls"):  # compilation
        _fit(cls, params[mode], X.iloc[train[:300]], y[train[:300]])
    times = {"hdp": [], "hls": []}
    models = {}
    for _ in range(repeats):
        for mode in ("hdp", "hls"):
            models[mode], seconds = _fit(cls, params[mode], X.iloc[train], y[train])
            times[mode].append(seconds)
    models["m_estimate"], _ = _fit(cls, params["m_estimate"], X.iloc[train], y[train])
    # the estimates alone, on the fitted HDP model's trees (made once, before the timings:
    # both kernels take them): sampler against HLS fit
    est = {"hdp": [], "hls": []}
    model = models["hdp"]
    part = HierarchicalEstimates()
    if hasattr(model, "_hdp_sampler_trees"):  # KDB, TAN, SKDB: trees of occurring nodes
        _, trees, _ = model._hdp_sampler_trees()
        kind = "sparse"
    else:  # AnDE: the table's dense trees
        trees, _ = model.table_._conditional_trees(None)
        kind = "dense"
    seeds = part.seeds(model, len(trees))
    for _ in range(repeats):
        # the HLS fit takes milliseconds, where a pause of the shared machine weighs most:
        # it is timed HLS_RUNS times per round (the sampler's seconds average the pauses out)
        for mode in ("hdp",) + ("hls",) * HLS_RUNS:
            t0 = time.perf_counter()
            if mode == "hls":
                _hls_estimates(kind, trees)
            elif kind == "sparse":
                sparse_hdp_forest(trees, n_iter=int(model.n_iter), burn_in=part.burn_in(model),
                                  tying=model.tying, seeds=seeds)
            else:
                hdp_forest(trees, n_iter=int(model.n_iter), burn_in=part.burn_in(model),
                           tying=model.tying, seeds=seeds)
            est[mode].append(time.perf_counter() - t0)
    loss = {}
    for mode, model in models.items():
        proba = np.clip(model.predict_proba(X.iloc[test]), 1e-15, 1.0)
        loss[mode] = log_loss(y[test], proba, labels=model.classes_)
    best = {mode: min(t) for mode, t in times.items()}
    best.update({f"{mode} estimates": min(t) for mode, t in est.items()})
    return loss, best, len(train), (kind, trees)


def _hls_estimates(kind, trees):
    """The HLS fit of the trees of one case (the library on the path: this one or the
    reference)."""
    from seminaive.kernels.hls import hls_forest, sparse_hls_forest

    return sparse_hls_forest(trees) if kind == "sparse" else hls_forest(trees)


def _worker(spec):
    """In a fresh process with one version of the library: every case's HLS estimates
    (``spec["path"]``: a pickled list of (kind, trees)), after one warm-up fit, timed
    ``spec["runs"]`` times; prints the best CPU and wall seconds of each as JSON."""
    with open(spec["path"], "rb") as f:
        cases = pickle.load(f)
    cpu, wall = [], []
    for kind, trees in cases:
        _hls_estimates(kind, trees)
        best_cpu = best_wall = float("inf")
        for _ in range(spec["runs"]):
            t0, c0 = time.perf_counter(), time.process_time()
            _hls_estimates(kind, trees)
            best_cpu = min(best_cpu, time.process_time() - c0)
            best_wall = min(best_wall, time.perf_counter() - t0)
        cpu.append(best_cpu)
        wall.append(best_wall)
    print(json.dumps({"cpu": cpu, "wall": wall}))


def against_reference(cases, commit, repeats, threads=None):
    """The HLS estimates of every case, the library at ``commit`` against this one: fresh
    processes (``threads``: numba's threads, default the machine's), alternating,
    ``repeats`` rounds; the best CPU seconds of each (lists)."""
    sections = _sections
    best = {"reference": [float("inf")] * len(cases), "this": [float("inf")] * len(cases)}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cases.pkl"
        with open(path, "wb") as f:
            pickle.dump(cases, f)
        code = {"reference": sections.export_library(ROOT, commit, Path(tmp) / "ref"),
                "this": ROOT}
        spec = {"path": str(path), "runs": HLS_RUNS * repeats}
        for _ in range(repeats):
            for version in ("reference", "this"):
                got = sections.run_library(__file__, code[version], spec, timeout=3600,
                                           threads=threads)
                if "error" in got:
                    raise RuntimeError(f"{version}: {got['error']}")
                best[version] = [min(a, b) for a, b in zip(best[version], got["cpu"],
                                                           strict=True)]
    return best["reference"], best["this"]


def eskdb_trees(data):
    """The trees whose HLS estimates ESKDB (``smoothing="hls"``, its defaults,
    ``random_state=0``) fits on the first half of ``data``: caught on their way to the
    kernel (one forest, every member's trees)."""
    import seminaive
    import seminaive.structure.eskdb as eskdb

    X, y, train, _ = _sections.half_split({"data": data, "rows": None})
    caught = []
    kernel = eskdb.sparse_hls_forest

    def catch(trees, **kwargs):
        caught.append(list(trees))
        return kernel(trees, **kwargs)

    eskdb.sparse_hls_forest = catch
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            seminaive.ESKDB(smoothing="hls", random_state=0).fit(X.iloc[train], y[train])
    finally:
        eskdb.sparse_hls_forest = kernel
    return caught[0]


def eskdb_main(args):
    """``--eskdb``: the HLS estimates of ESKDB's forests against ``--reference``, one
    thread; writes the ``bench_hls_eskdb`` section."""
    load_start = os.getloadavg()
    cases = [("sparse", eskdb_trees(data)) for data in args.eskdb]
    ref, this = against_reference(cases, args.reference, args.repeats, threads=1)
    load_end = os.getloadavg()
    rows = []
    for data, (_, trees), r, t in zip(args.eskdb, cases, ref, this, strict=True):
        cells = sum(int(p.size) * int(c.shape[1]) for p, _, c in trees)
        rows.append([data, len(trees), cells, f"{r:.3f}", f"{t:.3f}", f"{t / r:.2f}"])
        print(" | ".join(str(v) for v in rows[-1]), flush=True)
    loads = (", ".join(f"{v:.1f}" for v in load_start) + " before and "
             + ", ".join(f"{v:.1f}" for v in load_end) + " after")
    lines = [
        ESKDB_MARK[0],
        "## Hierarchical linear smoothing of ESKDB's forests against an earlier version",
        "",
        f"`python benchmarks/bench_hls.py --eskdb {' '.join(args.eskdb)} --reference "
        f"{args.reference} --repeats {args.repeats}` ({datetime.date.today().isoformat()}, "
        f"{platform.machine()}, {os.cpu_count()} cores shared with other jobs; load averages "
        f"(1, 5, 15 min) {loads}).  The trees of ESKDB's 20 members (`smoothing=\"hls\"`, "
        "fitted on the set's first half, seed 0), one forest per set; their HLS estimates "
        "(`sparse_hls_forest`, penalties chosen by the evidence) in one thread, each version "
        f"in a fresh process, the two alternating {args.repeats} times, best of "
        f"{HLS_RUNS * args.repeats} fits per process, CPU seconds.",
        "",
        f"| data | trees | cells (nodes x values) | HLS {args.reference} (CPU s) | this "
        "version (CPU s) | ratio (this / reference) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    _sections.write_section(args.out, ESKDB_MARK, "\n".join(
        [*lines, *_sections.table_lines(rows), "", ESKDB_MARK[1]]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two small sets")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reference", default=REFERENCE,
                        help=f"commit the HLS estimates are timed against (default "
                             f"{REFERENCE}; 'none': not timed)")
    parser.add_argument("--eskdb", nargs="+", metavar="SET",
                        help="time the HLS estimates of ESKDB's forests on these sets "
                             "against --reference instead")
    args = _sections.parse_or_serve(parser, _worker, ROOT)
    if args is None:  # a worker's run
        return
    if args.eskdb:
        eskdb_main(args)
        return
    sets = QUICK_SETS if args.quick else SETS
    load_start = os.getloadavg()[0]
    rows, wins, ratios, est_ratios, worse, cases, names = [], 0, [], [], [], [], []
    for data in sets:
        for learner in LEARNERS:
            loss, best, n_train, case = measure(data, learner, args.repeats)
            cases.append(case)
            names.append((data, learner))
            ratio = best["hdp"] / best["hls"]
            ratios.append(ratio)
            est_ratio = best["hdp estimates"] / best["hls estimates"]
            est_ratios.append(est_ratio)
            wins += loss["hls"] <= loss["hdp"]
            if loss["hls"] > loss["hdp"]:
                worse.append(f"{data} {learner} ({loss['hls']:.4f} against {loss['hdp']:.4f})")
            row = [data, n_train, learner, f"{loss['m_estimate']:.4f}", f"{loss['hdp']:.4f}",
                   f"{loss['hls']:.4f}", f"{best['hdp']:.2f}", f"{best['hls']:.3f}",
                   f"{ratio:.0f}x", f"{best['hdp estimates']:.2f}",
                   f"{best['hls estimates']:.3f}", f"{est_ratio:.0f}x"]
            rows.append(row)
            print(" | ".join(str(v) for v in row), flush=True)
    geo = statistics.geometric_mean(ratios)
    summary = (f"HLS's log loss is no worse than the HDP's in {wins} of {len(rows)} cases; "
               f"its fit is {min(ratios):.0f}x to {max(ratios):.0f}x faster (geometric "
               f"mean {geo:.0f}x), and its estimates alone (on the same trees) "
               f"{min(est_ratios):.0f}x to {max(est_ratios):.0f}x faster than the sampler's "
               f"(geometric mean {statistics.geometric_mean(est_ratios):.0f}x); the estimates "
               f"are at least {GOAL}x faster in {sum(r >= GOAL for r in est_ratios)} of "
               f"{len(rows)} cases.")
    if worse:
        summary += " HLS is worse on: " + "; ".join(worse) + "."
    ref_lines, ref_rows = [], []
    if args.reference.lower() != "none":
        load_ref = os.getloadavg()[0]
        ref, this = against_reference(cases, args.reference, args.repeats)
        speedups = [r / t for r, t in zip(ref, this, strict=True)]
        for (data, learner), r, t, x in zip(names, ref, this, speedups, strict=True):
            ref_rows.append([data, learner, f"{r * 1e3:.2f}", f"{t * 1e3:.2f}", f"{x:.2f}x"])
            print(" | ".join(ref_rows[-1]), flush=True)
        ref_summary = (
            f"Against the library at commit {args.reference} (the same trees; each version "
            f"in a fresh process, the two alternating {args.repeats} times, best of "
            f"{HLS_RUNS * args.repeats} fits per process, CPU seconds; load average "
            f"{load_ref:.1f} at the start of these timings, {os.getloadavg()[0]:.1f} at "
            f"the end): this version's HLS estimates take {min(speedups):.2f}x to "
            f"{max(speedups):.2f}x fewer CPU seconds (geometric mean "
            f"{statistics.geometric_mean(speedups):.2f}x).")
        print(ref_summary)
        ref_lines = ["", ref_summary, "",
                     f"| data | learner | HLS estimates {args.reference} (CPU ms) | this "
                     "version (CPU ms) | ratio |", "|---|---|---|---|---|",
                     *_sections.table_lines(ref_rows)]
    load_end = os.getloadavg()[0]
    if max(load_start, load_end) > BUSY:
        summary += (f" The machine was busy (load above {BUSY} on {os.cpu_count()} cores): the "
                    "sampler's fits of seconds take the load's pauses, where HLS's best of "
                    f"{HLS_RUNS} x {args.repeats} fits of milliseconds can miss them, so the "
                    "ratios run higher than on a quiet machine; re-run it there to compare "
                    "with the goal.")
    print(summary)
    load = f"load average {load_start:.1f} at the start, {load_end:.1f} at the end"
    lines = [
        MARK[0],
        "## Hierarchical linear smoothing against the HDP",
        "",
        f"`python benchmarks/bench_hls.py{' --quick' if args.quick else ''} --repeats "
        f"{args.repeats}` ({datetime.date.today().isoformat()}, {platform.machine()}, "
        f"{os.cpu_count()} cores shared with other jobs, {load}: only the same-run ratio is "
        "meaningful).  Each set is split in halves (seed 0): fit on one, log loss on the "
        "other.  `smoothing=\"hdp\"` runs the sampler's defaults (1000 iterations); "
        "`smoothing=\"hls\"` the ridge fit of Cooper, Webb & Schmidt (2025) with the penalty "
        "of every level chosen by the evidence (`seminaive.kernels.hls`); fit times are the "
        "best of the repeats, HDP and HLS alternating in one process after a warm-up.  The "
        "estimates alone: the sampler against the HLS fit on the trees of the fitted HDP "
        f"model (the rest of a fit, and the trees both kernels take, made once before the "
        "timings, are the same for both), alternating, best of the repeats "
        f"for the sampler and of {HLS_RUNS} runs per repeat for HLS (milliseconds, where a "
        "pause of the shared machine weighs most).",
        "",
        summary,
        "",
        "| data | train rows | learner | log loss m-estimate | log loss HDP | log loss HLS "
        "| fit HDP (s) | fit HLS (s) | HDP / HLS fit | estimates HDP (s) | estimates HLS (s) "
        "| HDP / HLS estimates |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    table = [*lines, *_sections.table_lines(rows), *ref_lines]
    _sections.write_section(args.out, MARK, "\n".join([*table, "", MARK[1]]))


if __name__ == "__main__":
    main()
