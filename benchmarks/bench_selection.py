"""Selection by leave-one-out against an A2DE fit, same data, same run.

``AnDE(n="auto")`` (nested selection over parent orders 0-2 by leave-one-out) and
:class:`~seminaive.SPTAN` (super-parent search by leave-one-out accuracy) on the splice shape
(``seminaive.datasets.load("splice")``: 3,190 rows x 60 nominal attributes, 3 classes; 1,600
rows drawn at random (seed 0), or every row with ``--full``), each fit timed against an
``AnDE(n=2)`` fit of the same rows in the same process.  Target: each
within 10 times the A2DE fit.  With ``--before`` the nested leave-one-out pass of
``n="auto"`` is also run with the log-space kernel (the one before the linear-space kernel;
still the kernel of Gaussian children) on the same rows, and the largest relative difference
of the two passes' losses is printed.

Then ``AnDE(n="auto")`` against the library at commit ``--reference`` (default 81d2a0b, the
nested pass before it took every row of a tile, a branch-free loop for rows that left block 0
and a float32 copy of the counts), exported with ``git archive``: each version fits the same
rows in a fresh process after a warm-up fit on 100 rows and times its fit and its nested
leave-one-out pass alone, the two alternated ``--ref-repeats`` times (medians); the two must
give the same ``loo_loss_`` (``np.array_equal``, column "identical").  ``--reference ''``
skips it.

Printed and written to ``docs/performance.md`` (its section between the ``bench_selection``
markers).

With ``--grid``, instead: ``AnDE(n="auto")`` against ``AnDE(n=2)`` on random nominal data of
1,600 rows x 60 attributes (uniform values and classes, seed 0) with 2, 4 and 8 values and
2 to 5 classes, the two fits alternated ``--repeats`` times in one process for every shape
(best wall time and best CPU time of each); the whole grid of ratios is printed and written
to the section between the ``bench_selection_grid`` markers.  Target: every ratio <= 10.
With ``--grid --reference COMMIT`` every shape is also fitted by the library at ``COMMIT``
(exported with ``git archive``): each version runs the shape in a fresh process (the
``--repeats`` alternated A2DE and ``n="auto"`` fits after a warm-up), the two versions
alternated ``--ref-repeats`` times; per shape the best CPU time of ``n="auto"`` of each
version, their ratio (reference / this: a same-run speed-up of this version) and whether the
two gave the same ``loo_loss_`` (``np.array_equal``).  Without ``--reference`` the grid runs
in this process only.

    python benchmarks/bench_selection.py [--quick] [--full] [--before] [--reference COMMIT]
                                         [--grid] [--repeats N] [--ref-repeats N]
                                         [--out PATH]
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _sections import export_library, parse_or_serve, run_library, write_section
from numba import get_num_threads

from seminaive import SPTAN, AnDE
from seminaive.datasets import load
from seminaive.preprocessing.validation import encode_labels
from seminaive.selection import _structure as st
from seminaive.sources import ArraySource

ROOT = Path(__file__).resolve().parents[1]
MARK = ("<!-- bench_selection -->", "<!-- /bench_selection -->")
GRID_MARK = ("<!-- bench_selection_grid -->", "<!-- /bench_selection_grid -->")
GRID_VALUES = (2, 4, 8)
GRID_CLASSES = (2, 3, 4, 5)
TARGET = 10.0

MODELS = {
    "A2DE": lambda: AnDE(n=2),
    'AnDE(n="auto")': lambda: AnDE(n="auto"),
    "SPTAN": lambda: SPTAN(),
}


def sample(full=False, quick=False):
    """The rows of splice this benchmark fits: 1,600 drawn at random (seed 0; 400 with
    ``quick``, all with ``full``)."""
    X, y = load("splice")
    n_rows = 400 if quick else (len(y) if full else 1600)
    # a random sample (the file is sorted by class: its first rows hold one class)
    rows = np.random.default_rng(0).permutation(len(y))[:n_rows]
    return X.iloc[rows].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)


def worker(spec):
    """In a fresh process with one version of the library on PYTHONPATH: fit
    ``AnDE(n="auto")`` once after a warm-up, time its nested leave-one-out pass alone, save
    ``loo_loss_`` to ``spec["losses"]`` and print JSON."""
    import seminaive

    if spec.get("grid"):
        grid_worker(spec)
        return
    X, y = sample(spec["full"], spec["quick"])
    AnDE(n="auto").fit(X.iloc[:100], y.iloc[:100])  # warm-up: compilation
    t0 = time.perf_counter()
    model = AnDE(n="auto").fit(X, y)
    fit = time.perf_counter() - t0
    codes = np.asarray(model._storage_codes(X))
    y_idx = np.asarray(encode_labels(y, model.classes_), dtype=np.int64)
    t0 = time.perf_counter()
    st.nested_losses(model.table_, ArraySource(codes, y_idx), model.ranking_, 2,
                     np.ones(model.table_.n_attributes), model.smoothing, model.m,
                     model.min_count, "rmse", squares=True)
    loo_pass = time.perf_counter() - t0
    np.save(spec["losses"], model.loo_loss_)
    print(json.dumps({"fit": fit, "pass": loo_pass, "library": seminaive.__file__}))


def against_reference(args):
    """Fit and pass times of this version and of ``args.reference``, alternated in fresh
    processes: (reference fit, this fit, reference pass, this pass, identical) medians."""
    times = {"ref": {"fit": [], "pass": []}, "new": {"fit": [], "pass": []}}
    identical = True
    with tempfile.TemporaryDirectory() as tmp:
        ref_dir = export_library(ROOT, args.reference, Path(tmp) / "ref")
        for r in range(args.ref_repeats):
            losses = {}
            for label, code in (("ref", ref_dir), ("new", ROOT)):
                path = str(Path(tmp) / f"{label}-{r}.npy")
                spec = {"full": args.full, "quick": args.quick, "losses": path}
                result = run_library(__file__, code, spec, 3600)
                if "error" in result:
                    print(f"# {label}: {result['error']}")
                    return None
                times[label]["fit"].append(result["fit"])
                times[label]["pass"].append(result["pass"])
                losses[label] = np.load(path)
            identical &= bool(np.array_equal(losses["ref"], losses["new"], equal_nan=True))
    med = {label: {kind: statistics.median(v) for kind, v in d.items()}
           for label, d in times.items()}
    return (med["ref"]["fit"], med["new"]["fit"], med["ref"]["pass"], med["new"]["pass"],
            identical)


def random_nominal(n_values, n_classes, n_rows=1600, n_attributes=60, seed=0):
    """Uniform random nominal data: ``n_rows`` x ``n_attributes`` categorical columns of
    ``n_values`` values and ``n_classes`` classes (seed ``seed``)."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_values, (n_rows, n_attributes))
    X = pd.DataFrame(codes, columns=[f"a{i}" for i in range(n_attributes)]).astype("category")
    y = pd.Series(rng.integers(0, n_classes, n_rows)).astype("category")
    return X, y


def grid_cell(n_values, n_classes, repeats, with_losses=False):
    """Best wall and CPU times of ``AnDE(n=2)`` and ``AnDE(n="auto")`` fits on one shape,
    the two alternated ``repeats`` times after a warm-up fit on 100 rows, and the model
    ``n="auto"`` chose: ``(a2de wall, auto wall, a2de cpu, auto cpu, selected)``, and with
    ``with_losses`` also the last ``n="auto"`` fit's ``loo_loss_``."""
    X, y = random_nominal(n_values, n_classes)
    for make in (lambda: AnDE(n=2), lambda: AnDE(n="auto")):
        make().fit(X.iloc[:100], y.iloc[:100])
    wall = {"a2de": [], "auto": []}
    cpu = {"a2de": [], "auto": []}
    for _ in range(repeats):
        for name, make in (("a2de", lambda: AnDE(n=2)), ("auto", lambda: AnDE(n="auto"))):
            t0, c0 = time.perf_counter(), time.process_time()
            model = make().fit(X, y)
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
    selected = f"n={model.n_}, r={model.n_parents_}, s={model.n_children_}"
    cell = (min(wall["a2de"]), min(wall["auto"]), min(cpu["a2de"]), min(cpu["auto"]),
            selected)
    return (*cell, np.asarray(model.loo_loss_)) if with_losses else cell


def grid_worker(spec):
    """In a fresh process with one version of the library on PYTHONPATH: :func:`grid_cell`
    of one shape; save the last ``n="auto"`` fit's ``loo_loss_`` to ``spec["losses"]`` and
    print JSON."""
    a2de, auto, a2de_cpu, auto_cpu, selected, losses = grid_cell(
        spec["values"], spec["classes"], spec["repeats"], with_losses=True)
    np.save(spec["losses"], losses)
    print(json.dumps({"a2de": a2de, "auto": auto, "a2de_cpu": a2de_cpu, "auto_cpu": auto_cpu,
                      "selected": selected}))


def grid_against_reference(args):
    """Per shape, :func:`grid_worker` of ``args.reference`` and of this version alternated
    ``args.ref_repeats`` times in fresh processes: ``{(values, classes): (reference auto
    CPU, this auto CPU, reference auto/A2DE CPU ratio, this ratio, identical)}`` (best CPU
    times over the processes), or None if a worker failed."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        ref_dir = export_library(ROOT, args.reference, Path(tmp) / "ref")
        for n_values in GRID_VALUES:
            for n_classes in GRID_CLASSES:
                best = {"ref": [np.inf, np.inf], "new": [np.inf, np.inf]}
                identical = True
                for r in range(args.ref_repeats):
                    losses = {}
                    for label, code in (("ref", ref_dir), ("new", ROOT)):
                        path = str(Path(tmp) / f"{label}-{n_values}-{n_classes}-{r}.npy")
                        spec = {"grid": True, "values": n_values, "classes": n_classes,
                                "repeats": args.repeats, "losses": path}
                        result = run_library(__file__, code, spec, 3600)
                        if "error" in result:
                            print(f"# {label}: {result['error']}")
                            return None
                        best[label][0] = min(best[label][0], result["auto_cpu"])
                        best[label][1] = min(best[label][1], result["a2de_cpu"])
                        losses[label] = np.load(path)
                    identical &= bool(np.array_equal(losses["ref"], losses["new"],
                                                     equal_nan=True))
                cell = (best["ref"][0], best["new"][0], best["ref"][0] / best["ref"][1],
                        best["new"][0] / best["new"][1], identical)
                out[n_values, n_classes] = cell
                print(f"# {n_values} values, {n_classes} classes, against {args.reference}: "
                      f"n='auto' CPU {cell[0]:.3f} -> {cell[1]:.3f} s "
                      f"({cell[0] / cell[1]:.2f}x), CPU ratio to A2DE {cell[2]:.1f} -> "
                      f"{cell[3]:.1f}, identical {identical}; load average "
                      f"{os.getloadavg()[0]:.1f}", flush=True)
    return out


def run_grid(args):
    """The whole grid (:func:`grid_cell` for every shape), printed and written."""
    cells = {}
    for n_values in GRID_VALUES:
        for n_classes in GRID_CLASSES:
            cell = grid_cell(n_values, n_classes, args.repeats)
            cells[n_values, n_classes] = cell
            print(f"# {n_values} values, {n_classes} classes: A2DE {cell[0]:.3f} s, "
                  f"n='auto' {cell[1]:.3f} s ({cell[1] / cell[0]:.1f}x wall, "
                  f"{cell[3] / cell[2]:.1f}x CPU), {cell[4]}; load average "
                  f"{os.getloadavg()[0]:.1f}", flush=True)
    load_avg = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    header = "| values | " + " | ".join(f"{k} classes" for k in GRID_CLASSES) + " |"
    rule = "|---|" + "---:|" * len(GRID_CLASSES)
    rows = []
    for n_values in GRID_VALUES:
        row = []
        for n_classes in GRID_CLASSES:
            a2de, auto, a2de_cpu, auto_cpu, _ = cells[n_values, n_classes]
            row.append(f"{auto / a2de:.1f} ({auto_cpu / a2de_cpu:.1f})")
        rows.append(f"| {n_values} | " + " | ".join(row) + " |")
    worst = max(c[1] / c[0] for c in cells.values())
    lines = [GRID_MARK[0], "## n=\"auto\" against A2DE across shapes", "",
             f"Written by `benchmarks/bench_selection.py --grid` on "
             f"{datetime.date.today().isoformat()}: {platform.machine()}, "
             f"{os.cpu_count()} cores ({get_num_threads()} numba threads), Python "
             f"{platform.python_version()}; load average {load_avg}.", "",
             "Random nominal data, 1,600 rows x 60 attributes (uniform values and classes, "
             "seed 0).  Fit time of `AnDE(n=\"auto\")` over the fit time of `AnDE(n=2)` "
             f"(A2DE) on the same data in the same process, best of {args.repeats} fits "
             "each, the two alternated, after a warm-up fit on 100 rows; in brackets the "
             "same ratio of CPU times (this process, every thread).  Target: <= 10 "
             f"everywhere; worst wall ratio here {worst:.1f}.", "", header, rule, *rows, "",
             "| values | classes | A2DE s | n=\"auto\" s | selected |", "|---:|---:|---:|---:|---|"]
    for (n_values, n_classes), cell in cells.items():
        lines.append(f"| {n_values} | {n_classes} | {cell[0]:.3f} | {cell[1]:.3f} | "
                     f"{cell[4]} |")
    if args.reference:
        reference = grid_against_reference(args)
        if reference is None:
            lines += ["", f"Against {args.reference}: a worker failed (see the output)."]
        else:
            lines += ["", f"Against the library at {args.reference} (exported with `git "
                      "archive`): each version fits each shape in a fresh process (the "
                      f"{args.repeats} alternated fits above), the two versions alternated "
                      f"{args.ref_repeats} time(s); best CPU seconds of `n=\"auto\"`; load "
                      "average at the end "
                      + ", ".join(f"{v:.1f}" for v in os.getloadavg()) + ".", "",
                      "| values | classes | reference CPU s | this CPU s | reference / this "
                      "| CPU ratio to A2DE, reference | this | identical `loo_loss_` |",
                      "|---:|---:|---:|---:|---:|---:|---:|---|"]
            for (n_values, n_classes), c in reference.items():
                lines.append(f"| {n_values} | {n_classes} | {c[0]:.3f} | {c[1]:.3f} | "
                             f"{c[0] / c[1]:.2f} | {c[2]:.1f} | {c[3]:.1f} | "
                             f"{'yes' if c[4] else 'NO'} |")
    lines += ["", GRID_MARK[1]]
    for row in rows:
        print(row)
    write_section(args.out, GRID_MARK, "\n".join(lines))


def median_fit_times(X, y, repeats):
    """Median wall time and median CPU time (this process, every thread) of every model's
    fit over ``repeats`` fits, the models alternated in each repeat (so that every model
    meets the same load; the median, not the best, as the A2DE reference itself varies from
    run to run).  The CPU time counts the work done, not the waits for a core that other
    processes hold, so its ratio moves less with the machine's load."""
    for make in MODELS.values():  # compile the kernels
        make().fit(X.iloc[:100], y.iloc[:100])
    times = {name: [] for name in MODELS}
    cpu = {name: [] for name in MODELS}
    fitted = {}
    for _ in range(repeats):
        for name, make in MODELS.items():
            t0, c0 = time.perf_counter(), time.process_time()
            fitted[name] = make().fit(X, y)
            times[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
    return ({name: float(np.median(t)) for name, t in times.items()},
            {name: float(np.median(t)) for name, t in cpu.items()}, fitted)


def loo_passes(model, X, y):
    """Time of the nested leave-one-out pass of ``model`` (a fitted n="auto") with the
    linear-space and with the log-space kernel, and the largest relative difference of
    their losses."""
    codes = np.asarray(model._storage_codes(X))
    y_idx = np.asarray(encode_labels(y, model.classes_), dtype=np.int64)
    source = ArraySource(codes, y_idx)
    out = {}
    for name, linear in (("linear", True), ("log", False)):
        t0 = time.perf_counter()
        losses, _, _ = st.nested_losses(model.table_, source, model.ranking_, 2,
                                        np.ones(model.table_.n_attributes), model.smoothing,
                                        model.m, model.min_count, "rmse", squares=True,
                                        linear=linear)
        out[name] = (time.perf_counter() - t0, losses)
    ok = np.isfinite(out["log"][1])
    diff = (np.abs(out["linear"][1][ok] - out["log"][1][ok])
            / np.maximum(np.abs(out["log"][1][ok]), 1e-300))
    return out["linear"][0], out["log"][0], float(diff.max())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="400 rows, one repeat")
    parser.add_argument("--full", action="store_true", help="all 3,190 rows")
    parser.add_argument("--before", action="store_true",
                        help="also time the log-space leave-one-out pass (slow)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="fits of each model (default 5; 3 with --grid)")
    parser.add_argument("--grid", action="store_true",
                        help="n='auto' against A2DE on random data of 2, 4, 8 values and "
                             "2-5 classes (the --repeats fits of each, default 3 here)")
    parser.add_argument("--reference", default=None,
                        help="commit of the library to compare with ('' to skip; default "
                             "81d2a0b, none with --grid)")
    parser.add_argument("--ref-repeats", type=int, default=5,
                        help="fresh-process fits of each version, alternated")
    args = parse_or_serve(parser, worker, ROOT)
    if args is None:
        return
    if args.repeats is None:
        args.repeats = 3 if args.grid else 5
    if args.reference is None:
        args.reference = "" if args.grid else "81d2a0b"
    if args.grid:
        run_grid(args)
        return
    X, y = sample(args.full, args.quick)
    n_rows = len(y)
    repeats = 1 if args.quick else args.repeats
    times, cpu, fitted = median_fit_times(X, y, repeats)
    base = times["A2DE"]
    print(f"# median wall time of {repeats} fit(s) per model, the models alternated "
          f"(same run); load average {os.getloadavg()[0]:.1f}", flush=True)
    header = ("| model | fit (s) | ratio to A2DE | target <= 10x | CPU (s) | CPU ratio to A2DE "
              "| selected |")
    rows = []
    for name, t in times.items():
        model = fitted[name]
        if name == "A2DE":
            selected, verdict = "", ""
        elif name == "SPTAN":
            selected = f"{len(model.search_history_)} arcs"
            verdict = "met" if t <= TARGET * base else "NOT met"
        else:
            selected = f"n={model.n_}, r={model.n_parents_}, s={model.n_children_}"
            verdict = "met" if t <= TARGET * base else "NOT met"
        rows.append((name, f"{t:.3f}", f"{t / base:.1f}x", verdict, f"{cpu[name]:.3f}",
                     f"{cpu[name] / cpu['A2DE']:.1f}x", selected))
        print("| " + " | ".join(rows[-1]) + " |", flush=True)
    before = None
    if args.before:
        before = loo_passes(fitted['AnDE(n="auto")'], X, y)
        print(f"# n='auto' leave-one-out pass: linear {before[0]:.3f} s, log {before[1]:.3f} s "
              f"({before[1] / before[0]:.1f}x), largest relative loss difference "
              f"{before[2]:.1e}", flush=True)
    reference = None
    if args.reference:
        reference = against_reference(args)
        if reference is not None:
            ref_fit, fit, ref_pass, new_pass, identical = reference
            print(f"# against {args.reference}: fit {ref_fit:.3f} -> {fit:.3f} s "
                  f"({ref_fit / fit:.2f}x), pass {ref_pass:.3f} -> {new_pass:.3f} s "
                  f"({ref_pass / new_pass:.2f}x), identical loo_loss_: {identical}", flush=True)
    write(args, n_rows, repeats, header, rows, before, reference)


def write(args, n_rows, repeats, header, rows, before, reference):
    load_avg = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    lines = [MARK[0], "## Selection by leave-one-out: n=\"auto\" and SP-TAN against A2DE", "",
             f"Written by `benchmarks/bench_selection.py` on "
             f"{datetime.date.today().isoformat()}: {platform.machine()}, "
             f"{os.cpu_count()} cores ({get_num_threads()} numba threads), Python "
             f"{platform.python_version()}; load average {load_avg}.", "",
             f"splice (60 nominal attributes, 3 classes), {n_rows:,} rows drawn at random "
             f"(seed 0); median "
             f"wall time of {repeats} fit(s) per model, the models alternated, every model "
             "fitted once on 100 rows before (compilation).  Target: "
             "`AnDE(n=\"auto\")` and `SPTAN` within 10x the A2DE fit of the same rows in "
             "the same run (wall time).  CPU: the median CPU time of the same fits, every "
             "thread of this process (the work done; it moves less than the wall time with "
             "the machine's load).", "", header, "|---|---:|---:|---|---:|---:|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    if before is not None:
        lines += ["", f"The nested leave-one-out pass of `n=\"auto\"` alone: {before[0]:.3f} s "
                  f"with the linear-space kernel, {before[1]:.3f} s with the log-space kernel "
                  f"it replaces ({before[1] / before[0]:.1f}x); largest relative difference "
                  f"of their losses {before[2]:.1e}."]
    if reference is not None:
        ref_fit, fit, ref_pass, new_pass, identical = reference
        lines += ["", f"`AnDE(n=\"auto\")` against the library at {args.reference} (the nested "
                  "pass before it took every row of a tile, a branch-free loop for rows whose "
                  "products left block 0 and a float32 copy of the counts), the same rows, each "
                  "version in a fresh process after a warm-up fit, alternated, median of "
                  f"{args.ref_repeats}:", "",
                  "| | reference s | this version s | ratio (reference / this) |",
                  "|---|---:|---:|---:|",
                  f"| fit | {ref_fit:.3f} | {fit:.3f} | {ref_fit / fit:.2f}x |",
                  f"| nested leave-one-out pass | {ref_pass:.3f} | {new_pass:.3f} | "
                  f"{ref_pass / new_pass:.2f}x |", "",
                  "The two versions' `loo_loss_` are "
                  + ("identical (`np.array_equal`)." if identical else "**not identical**.")]
    lines += ["", MARK[1]]
    section = "\n".join(lines)
    write_section(args.out, MARK, section)


if __name__ == "__main__":
    main()
