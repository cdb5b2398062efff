"""seminaive against its peers on the same data in the same run: scikit-bayes, and Petal.

For NB, AODE and A2DE on random Bayesian-network data at 20 and 50 attributes (5 values,
2 classes), every cell runs in a fresh process and reports fit time, predict time, the
peak resident memory the fit added and the zero-one loss on a held-out sample:

- **scikit-bayes** (PyPI ``scikit-bayes``, ``skbn.AnDE(n_dependence=n)`` with every column
  categorical, Laplace ``alpha=1``) against ours (``NaiveBayes`` / ``AODE`` / ``A2DE`` with
  ``categorical_features="all"``, ``smoothing="laplace"``), both from the same in-memory
  integer matrix;
- **Petal**, the C++ research code of Webb et al., only when a built binary is passed with
  ``--petal PATH`` (not required): the rows are written as Petal's metadata and data text
  files, Petal is timed end to end (reading its files, learning, classifying the test file)
  and so are we, by three routes: the rows integer-coded as CSV (``pandas.read_csv``, fit,
  predict), and Petal's own string files (values ``v0`` ... and classes ``c0`` ...) with a
  header, as CSV and as Parquet (``fit_stream`` of the training file, ``predict_stream`` of
  the test file to a Parquet file of the predicted classes, read back for the 0-1 loss):
  the median of ``--repeats`` runs of each (default 3), the four alternated.

Printed and written to ``docs/performance.md`` (its section between the
``<!-- bench_peers -->`` markers; the other sections are kept).  Run from the repository
root::

    python benchmarks/bench_peers.py                 # the full run (a few minutes)
    python benchmarks/bench_peers.py --quick         # small shapes, a smoke run
    python benchmarks/bench_peers.py --petal ~/petal/petal
    python benchmarks/bench_peers.py --petal ~/petal/petal --petal-only  # Petal's part only
"""

import argparse
import datetime
import os
import platform
import re
import shlex
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from _sections import (
    current_rss_mib,
    export_library,
    peak_rss_mib,
    reset_peak,
    run_library,
    run_worker,
    scratch_dir,
    serve_worker,
    write_section,
)

ROOT = Path(__file__).resolve().parents[1]
MARK = ("<!-- bench_peers -->", "<!-- /bench_peers -->")
LEARNERS = {"NB": 0, "AODE": 1, "A2DE": 2}
#: Petal's learner names for the three models (override with --petal-learners)
PETAL_LEARNERS = {"NB": "nb", "AODE": "aode", "A2DE": "a2de"}


# --------------------------------------------------------------------------------------------
# data and measurement (inside a worker process)
# --------------------------------------------------------------------------------------------


def make_data(n_attributes, n_rows, n_test, seed=0):
    """Training and test rows of one random Bayesian network (5 values, 2 classes)."""
    from seminaive.datasets import RandomBayesianNetwork

    net = RandomBayesianNetwork(n_attributes=n_attributes, n_values=5, n_classes=2,
                                max_parents=2, concentration=5.0, random_state=seed)
    X, y = net.sample(n_rows + n_test, random_state=seed + 1)
    return X[:n_rows], y[:n_rows], X[n_rows:], y[n_rows:]


def model(library, learner, n_attributes):
    """scikit-bayes's or our AnDE; ``"seminaive"`` uses Laplace smoothing as scikit-bayes
    does, ``"seminaive-m"`` our default m-estimates (those of Petal)."""
    n = LEARNERS[learner]
    if library == "scikit-bayes":
        import skbn

        return skbn.AnDE(n_dependence=n, alpha=1.0,
                         categorical_features=list(range(n_attributes)))
    from seminaive import AnDE

    smoothing = "m_estimate" if library == "seminaive-m" else "laplace"
    return AnDE(n=n, smoothing=smoothing, categorical_features="all")


def task_memory(spec):
    """One library, one learner, one shape: warm up, then fit / predict / loss / memory."""
    X, y, X_te, y_te = make_data(spec["attributes"], spec["rows"], spec["test"])
    warm = model(spec["library"], spec["learner"], spec["attributes"])
    warm.fit(X[:500], y[:500])
    warm.predict(X_te[:100])
    del warm
    reset_peak()
    base = current_rss_mib()
    est = model(spec["library"], spec["learner"], spec["attributes"])
    t0 = time.perf_counter()
    est.fit(X, y)
    fit_s = time.perf_counter() - t0
    fit_peak = peak_rss_mib()
    t0 = time.perf_counter()
    pred = est.predict(X_te)
    predict_s = time.perf_counter() - t0
    return {"fit_s": fit_s, "predict_s": predict_s, "fit_peak_mib": fit_peak - base,
            "loss": float(np.mean(pred != y_te))}


def write_petal_files(directory, X, y, X_te, y_te):
    """Petal's metadata (``name: v0, v1, ...`` per attribute, ``:class:name: ...``) and
    comma-separated data files (values by name, class last); returns their paths."""
    directory = Path(directory)
    a = X.shape[1]
    n_values = int(max(X.max(), X_te.max())) + 1
    classes = int(max(y.max(), y_te.max())) + 1
    meta = directory / "data.pmeta"
    lines = [f"a{i}: " + ", ".join(f"v{v}" for v in range(n_values)) for i in range(a)]
    lines.append(":class:y: " + ", ".join(f"c{c}" for c in range(classes)))
    meta.write_text("\n".join(lines) + "\n")
    paths = []
    for name, rows, labels in (("train", X, y), ("test", X_te, y_te)):
        path = directory / f"{name}.pdata"
        cells = np.char.add("v", rows.astype(str))
        body = np.column_stack([cells, np.char.add("c", labels.astype(str))])
        np.savetxt(path, body, fmt="%s", delimiter=",")
        paths.append(path)
    csvs = []
    header = ",".join([f"a{i}" for i in range(a)] + ["y"])
    for name, rows, labels in (("train", X, y), ("test", X_te, y_te)):
        path = directory / f"{name}.csv"
        np.savetxt(path, np.column_stack([rows, labels]), fmt="%d", delimiter=",",
                   header=header, comments="")
        csvs.append(path)
    return meta, paths[0], paths[1], csvs[0], csvs[1]


def convert_petal_files(directory, train, test):
    """Petal's string data files with a header (``a0, ..., y``), as CSV and as Parquet:
    ``{"csv": (train, test), "parquet": (train, test)}``."""
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    directory = Path(directory)
    out = {"csv": [], "parquet": []}
    for name, path in (("train", train), ("test", test)):
        first = Path(path).read_text().split("\n", 1)[0]
        names = [f"a{i}" for i in range(first.count(","))] + ["y"]
        table = pa_csv.read_csv(path, read_options=pa_csv.ReadOptions(column_names=names))
        csv_path = directory / f"{name}_strings.csv"
        with open(csv_path, "w") as handle:
            handle.write(",".join(names) + "\n")
            handle.write(Path(path).read_text())
        parquet_path = directory / f"{name}_strings.parquet"
        pq.write_table(table, parquet_path)
        out["csv"].append(csv_path)
        out["parquet"].append(parquet_path)
    return out


def ours_on_strings(learner, attributes, train, test, out):
    """Ours end to end on a string file: fit_stream of ``train``, predict_stream of ``test``
    to ``out``; the predictions."""
    import pyarrow.parquet as pq

    est = model("seminaive-m", learner, attributes)
    est.fit_stream(train, "y", progress=False)
    # the predicted classes only: Petal reports the 0-1 loss, and computes no probabilities
    est.predict_stream(test, out=out, proba=False, progress=False)
    return pq.read_table(out, columns=["prediction"]).column(0).to_numpy(zero_copy_only=False)


def parse_petal_loss(text):
    """Petal's zero-one loss from its report, or None."""
    match = re.search(r"0-1 loss[^0-9]*([0-9]*\.?[0-9]+)", text, re.I)
    return float(match.group(1)) if match else None


def task_petal(spec):
    """Petal end to end on its own files against ours end to end on the same rows as CSV."""
    import pandas as pd

    X, y, X_te, y_te = make_data(spec["attributes"], spec["rows"], spec["test"])
    with tempfile.TemporaryDirectory() as tmp:
        meta, train, test, train_csv, test_csv = write_petal_files(tmp, X, y, X_te, y_te)
        del X, y, X_te
        strings = convert_petal_files(tmp, train, test)
        labels = np.char.add("c", y_te.astype(str))
        string_times = {"csv": [], "parquet": []}
        string_loss = {}
        command = [spec["petal"], str(meta), str(train), f"-t{test}",
                   f"-l{spec['petal_learner']}", *spec["petal_args"]]
        # through a shell that forks Petal (not exec): a process started straight from this
        # one would inherit its peak resident size (Linux keeps maxrss across exec), and
        # Petal reports that figure as its own peak
        shell = ["/bin/sh", "-c", shlex.join(command) + "; exit $?"]
        # warm-up on our route (compilation, imports, caches)
        warm_frame = pd.read_csv(train_csv, nrows=500)
        warm = model("seminaive-m", spec["learner"], spec["attributes"])
        warm.fit(warm_frame.drop(columns="y"), warm_frame["y"])
        warm.predict(warm_frame.drop(columns="y"))
        del warm, warm_frame
        for train_s, test_s in strings.values():  # warm-up of the file routes
            ours_on_strings(spec["learner"], spec["attributes"], train_s, test_s,
                            Path(tmp) / "warm.parquet")
        petal_times, ours_times, ours_peak = [], [], 0.0
        for _ in range(spec["repeats"]):  # the two routes alternated: the same load
            t0 = time.perf_counter()
            done = subprocess.run(shell, capture_output=True, text=True, cwd=tmp)
            petal_times.append(time.perf_counter() - t0)
            reset_peak()
            base = current_rss_mib()
            t0 = time.perf_counter()
            frame = pd.read_csv(train_csv)
            est = model("seminaive-m", spec["learner"], spec["attributes"])
            est.fit(frame.drop(columns="y"), frame["y"])
            del frame
            test_frame = pd.read_csv(test_csv)
            pred = est.predict(test_frame.drop(columns="y"))
            ours_times.append(time.perf_counter() - t0)
            ours_peak = max(ours_peak, peak_rss_mib() - base)
            del est
            for kind, (train_s, test_s) in strings.items():
                t0 = time.perf_counter()
                got = ours_on_strings(spec["learner"], spec["attributes"], train_s, test_s,
                                      Path(tmp) / "predictions.parquet")
                string_times[kind].append(time.perf_counter() - t0)
                string_loss[kind] = float(np.mean(got != labels))
        petal_s, ours_s = float(np.median(petal_times)), float(np.median(ours_times))
        petal_loss = parse_petal_loss(done.stdout + done.stderr)
        petal_peak = parse_petal_memory(done.stdout + done.stderr)
    out = {"petal_s": petal_s, "petal_peak_mib": petal_peak, "petal_loss": petal_loss,
           "ours_s": ours_s, "ours_peak_mib": ours_peak,
           "ours_loss": float(np.mean(pred != test_frame["y"].to_numpy())),
           "csv_s": float(np.median(string_times["csv"])), "csv_loss": string_loss["csv"],
           "parquet_s": float(np.median(string_times["parquet"])),
           "parquet_loss": string_loss["parquet"]}
    if done.returncode != 0 or petal_loss is None:
        out["petal_error"] = f"exit {done.returncode}: " + " | ".join(
            (done.stderr or done.stdout).strip().splitlines()[-3:])
    return out


def parse_petal_memory(text):
    """The peak memory Petal reports of itself (``maximum memory: N Kb``), in MiB, or None."""
    match = re.search(r"maximum memory:\s*([0-9]+)\s*Kb", text, re.I)
    return int(match.group(1)) / 1024 if match else None


TASKS = {"memory": task_memory, "petal": task_petal}
PETAL_HEADER = ("| attributes | rows | learner | Petal s | ours, integer CSV s | x | "
                "ours, string CSV s | x | ours, string Parquet s | x | peak MiB (ours) | "
                "peak MiB (Petal) | 0-1 loss (ours) | 0-1 loss (ours, strings) | "
                "0-1 loss (Petal) |")
#: the columns of the reference's string routes (``--reference``), added to PETAL_HEADER
REFERENCE_HEADER = " reference: Petal s | string CSV s | x | string Parquet s | x |"


def run_task(spec, timeout):
    """Run one cell in a fresh process; its JSON result or an error description."""
    return run_worker(__file__, spec, timeout)


# --------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------


def fmt(value, digits=3):
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "-"
    return f"{value:.{digits}f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small shapes (a smoke run)")
    parser.add_argument("--rows", type=int, nargs=2, default=(100_000, 50_000),
                        metavar=("ROWS20", "ROWS50"),
                        help="training rows at 20 and at 50 attributes")
    parser.add_argument("--test", type=int, default=20_000, help="held-out rows")
    parser.add_argument("--petal", default=None, help="path of a built Petal binary")
    parser.add_argument("--petal-learners", default=",".join(
        f"{k}={v}" for k, v in PETAL_LEARNERS.items()),
        help="Petal's learner names, e.g. NB=nb,AODE=aode,A2DE=a2de")
    parser.add_argument("--petal-args", default="", help="extra arguments for Petal")
    parser.add_argument("--repeats", type=int, default=3,
                        help="end-to-end runs of Petal and of ours per cell (median)")
    parser.add_argument("--timeout", type=int, default=3600)
    parser.add_argument("--out", default=str(ROOT / "docs" / "performance.md"))
    parser.add_argument("--reference", default=None,
                        help="also run the Petal cells with the library at this commit, "
                             "alternated with this tree (the reference's string routes)")
    parser.add_argument("--learners", nargs="*", default=list(LEARNERS),
                        help="learners of the Petal part (with --petal-only, the rows of "
                             "the others are kept from the section as it is)")
    parser.add_argument("--petal-only", action="store_true",
                        help="run only the Petal part (needs --petal); the scikit-bayes part "
                             "of the section is kept as it is")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if serve_worker(args.worker, TASKS):
        return
    if args.petal_only and not args.petal:
        parser.error("--petal-only needs --petal PATH")
    skbn = None
    if not args.petal_only:
        import skbn

    if args.quick:
        shapes = [(20, 5_000), (50, 2_000)]
        args.test = min(args.test, 2_000)
    else:
        shapes = [(20, args.rows[0]), (50, args.rows[1])]
    header = ("| attributes | rows | learner | fit s (ours) | fit s (scikit-bayes) | fit ratio | "
              "predict s (ours) | predict s (scikit-bayes) | predict ratio | "
              "fit peak MiB (ours) | fit peak MiB (scikit-bayes) | 0-1 loss (ours) | "
              "0-1 loss (scikit-bayes) |")
    print(header, flush=True)
    rows = []
    for attributes, n_rows in [] if args.petal_only else shapes:
        for learner in LEARNERS:
            cell = {}
            for library in ("seminaive", "scikit-bayes"):
                spec = {"task": "memory", "library": library, "learner": learner,
                        "attributes": attributes, "rows": n_rows, "test": args.test}
                cell[library] = run_task(spec, args.timeout)
            ours, theirs = cell["seminaive"], cell["scikit-bayes"]
            row = [attributes, f"{n_rows:,}", learner]
            if "error" in ours or "error" in theirs:
                row += [ours.get("error", "-"), theirs.get("error", "-")] + ["-"] * 9
            else:
                row += [fmt(ours["fit_s"]), fmt(theirs["fit_s"]),
                        f"{theirs['fit_s'] / ours['fit_s']:.1f}x", fmt(ours["predict_s"]),
                        fmt(theirs["predict_s"]),
                        f"{theirs['predict_s'] / ours['predict_s']:.1f}x",
                        fmt(ours["fit_peak_mib"], 0), fmt(theirs["fit_peak_mib"], 0),
                        fmt(ours["loss"], 4), fmt(theirs["loss"], 4)]
            rows.append(row)
            print("| " + " | ".join(str(v) for v in row) + " |", flush=True)
    petal_rows = []
    if args.petal:
        names = dict(item.split("=", 1) for item in args.petal_learners.split(",") if item)
        ref_dir = None if args.reference is None else export_library(
            ROOT, args.reference, scratch_dir("bench-ref-"))
        petal_header = PETAL_HEADER + (REFERENCE_HEADER if ref_dir else "")
        print(petal_header, flush=True)
        for attributes, n_rows in shapes:
            for learner in [name for name in LEARNERS if name in args.learners]:
                spec = {"task": "petal", "learner": learner, "attributes": attributes,
                        "rows": n_rows, "test": args.test, "repeats": args.repeats,
                        "petal": str(Path(args.petal).expanduser().resolve()),
                        "petal_learner": names[learner], "petal_args": args.petal_args.split()}
                res = run_task(spec, args.timeout)
                ref = None if ref_dir is None else run_library(__file__, ref_dir, spec,
                                                               args.timeout)
                row = [attributes, f"{n_rows:,}", learner]
                if "error" in res:
                    row += [res["error"]] + ["-"] * 12
                else:
                    row += [fmt(res["petal_s"]), fmt(res["ours_s"]),
                            f"{res['petal_s'] / res['ours_s']:.1f}x", fmt(res["csv_s"]),
                            f"{res['petal_s'] / res['csv_s']:.1f}x", fmt(res["parquet_s"]),
                            f"{res['petal_s'] / res['parquet_s']:.1f}x",
                            fmt(res["ours_peak_mib"], 0), fmt(res["petal_peak_mib"], 0),
                            fmt(res["ours_loss"], 4), fmt(res["csv_loss"], 4),
                            fmt(res["petal_loss"], 4)]
                    if "petal_error" in res:
                        print(f"# Petal: {res['petal_error']}", flush=True)
                if ref is not None and "error" not in res:
                    row += ["-"] * 5 if "error" in ref else [
                        fmt(ref["petal_s"]), fmt(ref["csv_s"]),
                        f"{ref['petal_s'] / ref['csv_s']:.1f}x", fmt(ref["parquet_s"]),
                        f"{ref['petal_s'] / ref['parquet_s']:.1f}x"]
                petal_rows.append(row)
                print("| " + " | ".join(str(v) for v in row) + " |", flush=True)
    write(args, header, rows, petal_rows, skbn)


def _kept_scikit_bayes_part(path):
    """The lines of the section now in ``path`` before its Petal part (``--petal-only``)."""
    text = Path(path).read_text()
    start, end = text.index(MARK[0]), text.index(MARK[1])
    lines = text[start:end].split("\n")
    for i, line in enumerate(lines):
        if line.startswith(("Petal (`--petal`", "Petal is not built", "Petal part written")):
            return lines[:i]
    return lines


def _with_kept_rows(args, petal_rows):
    """``petal_rows`` and, for the learners not run (``--learners``), their rows of the
    Petal table of the section as it is, marked as from an earlier run (in the order of
    the shapes and the learners)."""
    skipped = [name for name in LEARNERS if name not in args.learners]
    if not skipped or not Path(args.out).exists():
        return petal_rows
    text = Path(args.out).read_text()
    lines = text[text.index(MARK[0]):text.index(MARK[1])].split("\n")
    start = next((i for i, line in enumerate(lines)
                  if line.startswith(PETAL_HEADER[:40])), len(lines))
    width = len(PETAL_HEADER.split("|")) - 2 + (5 if args.reference else 0)
    kept = []
    for line in lines[start + 2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = cells[2].split()[0] if len(cells) > 3 and cells[2] else ""
        if cells[0].isdigit() and name in skipped:  # kept once already: marked once
            row = [*cells[:2], name + " (earlier run)", *cells[3:]]
            kept.append((row + ["-"] * width)[:width])
    order = {name: i for i, name in enumerate(LEARNERS)}
    return sorted(petal_rows + kept, key=lambda row: (int(row[0]),
                                                      order[str(row[2]).split()[0]]))


def write(args, header, rows, petal_rows, skbn):
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    if args.petal_only:
        petal_rows = _with_kept_rows(args, petal_rows)
        lines = _kept_scikit_bayes_part(args.out)
        command = "--petal PATH --petal-only"
        if [name for name in LEARNERS if name not in args.learners]:
            command += " --learners " + " ".join(args.learners)
        if args.reference:
            command += f" --reference {args.reference}"
        lines += [f"Petal part written on {datetime.date.today().isoformat()} by `python "
                  f"benchmarks/bench_peers.py {command}` (the scikit-bayes table above, and "
                  "the rows marked as such, from an earlier run); load average at the end "
                  f"{load}.", ""]
        return _write_petal(args, lines, petal_rows)
    lines = [MARK[0], "## Peers on the same data: scikit-bayes and Petal", "",
             f"Written by `benchmarks/bench_peers.py` on {datetime.date.today().isoformat()}: "
             f"{platform.machine()}, {os.cpu_count()} cores, Python "
             f"{platform.python_version()}, scikit-bayes "
             f"{getattr(skbn, '__version__', '?')}; load average at the end {load}.", "",
             "Random Bayesian-network data (5 values, 2 classes, at most 2 attribute parents, "
             f"Dirichlet 5), {args.test:,} held-out rows.  Both libraries get the same integer "
             "matrix with every column categorical and Laplace smoothing (scikit-bayes "
             "`AnDE(n_dependence=n, alpha=1)`, ours `AnDE(n, smoothing=\"laplace\")`).  "
             "Each cell is a fresh process, warmed up on 500 rows (compilation, imports); "
             "fit peak MiB is the resident memory the fit added to the warmed-up process.  "
             "Ratios are scikit-bayes's time over ours, same run.", "",
             header, "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in rows]
    lines.append("")
    _write_petal(args, lines, petal_rows)


def _write_petal(args, lines, petal_rows):
    if petal_rows:
        lines += ["Petal (`--petal`, a binary built with its own makefile, g++ -O3, from a "
                  "public copy of its GPL source): end to end on its own text files (read, "
                  "learn, classify the test file) against ours end to end on the same rows: "
                  "integer-coded as CSV (`pandas.read_csv`, fit, predict), and Petal's string "
                  "files themselves with a header, as CSV and as Parquet (`fit_stream` of the "
                  "training file, `predict_stream(proba=False)` of the test file to Parquet, "
                  "read back for the 0-1 loss); Petal's time is its whole process (start, "
                  "parse, learn, classify, report), ours that of a process that has imported "
                  "the library and compiled its kernels; each warmed "
                  f"up on the same files, the median of {args.repeats} runs of each, the four "
                  "alternated; with `--reference`, the reference commit's string routes in "
                  "their own processes, alternated cell by cell with this tree's (each with "
                  "its own Petal runs); peak MiB is the maximum memory Petal reports of "
                  "itself and the "
                  "memory our integer route added to the warmed-up process; all with "
                  "m-estimates (our default, which reproduces Petal's).  Each x: Petal's time "
                  "over ours on that route.", "",
                  PETAL_HEADER + (REFERENCE_HEADER if args.reference else ""),
                  "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
                  + ("---:|" * 5 if args.reference else "")]
        lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in petal_rows]
    else:
        lines.append("Petal is not built on this machine (pass `--petal PATH` to add its "
                     "rows).")
    lines += ["", MARK[1]]
    section = "\n".join(lines)
    write_section(args.out, MARK, section)


if __name__ == "__main__":
    main()
