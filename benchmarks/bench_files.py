"""``fit_stream`` of string CSV and Parquet files against the time pyarrow takes to parse or
read the same file, and against the library at a reference commit, in the same run.

The files hold nominal attributes whose values are strings ``v0``, ``v1``, ... and a class
column ``c0``, ``c1``, ... (the layout of the file Petal reads, with a header), written as
CSV and as Parquet.  For every shape, format and learner, fresh worker processes of this tree
and of the reference alternate ``--repeats`` times; each worker compiles on a small frame,
then times ``pyarrow.csv.read_csv`` (or ``pyarrow.parquet.read_table``) of the file and
``fit_stream`` of it, alternated ``PARSES`` times (the best of each: a single parse timing
moved twofold between processes on a shared machine), wall clock and CPU time of the
process (all its threads: less sensitive to the other processes of a loaded machine).  The
table gives the best of the repeats: the machine is shared, and the best run is the least
disturbed one.  The ratio to the parse time
is taken within the same worker.

Run from the repository root::

    python benchmarks/bench_files.py                       # 1M x 20 and two other shapes
    python benchmarks/bench_files.py --quick               # small shapes, a smoke run
    python benchmarks/bench_files.py --reference d7a5673 --repeats 5
    python benchmarks/bench_files.py --shapes 0 --parts 4  # 1M x 20, also in 4 files
"""

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from _sections import (
    export_library,
    parse_or_serve,
    run_library,
    scratch_dir,
    write_table_section,
)

ROOT = Path(__file__).resolve().parents[1]
MARKS = ("<!-- bench_files -->", "<!-- /bench_files -->")
LEARNERS = {"NB": "NaiveBayes", "AODE": "AODE"}
#: (rows, attributes, values per attribute, classes)
SHAPES = [(1_000_000, 20, 5, 2), (500_000, 10, 8, 5), (200_000, 50, 8, 3)]
QUICK_SHAPES = [(50_000, 20, 5, 2), (20_000, 10, 3, 5)]
#: parses and fits of a file, alternated, in each worker process (the best of each)
PARSES = 3


def write_files(shape, into, parts=0):
    """The shape's data as ``<into>/<name>.csv`` and ``.parquet``, and (``parts`` > 1) the
    CSV file's rows in ``parts`` files ``<name>-<k>.csv`` of the same header; returns the
    two paths and the list of the parts."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    rows, attributes, values, classes = shape
    rng = np.random.default_rng(0)
    y = rng.integers(0, classes, rows)
    names = np.array([f"v{v}" for v in range(values)])
    columns = {}
    for j in range(attributes):  # each attribute follows the class in 30% of the rows
        x = np.where(rng.random(rows) < 0.3, (y + j) % values, rng.integers(0, values, rows))
        columns[f"a{j}"] = pa.array(names[x])
    columns["class"] = pa.array(np.array([f"c{k}" for k in range(classes)])[y])
    table = pa.table(columns)
    base = Path(into) / f"s{rows}x{attributes}v{values}k{classes}"
    pa_csv.write_csv(table, f"{base}.csv", pa_csv.WriteOptions(quoting_style="none"))
    pq.write_table(table, f"{base}.parquet")
    pieces = []
    if parts > 1:
        for k, start in enumerate(range(0, rows, -(-rows // parts))):
            pieces.append(f"{base}-{k}.csv")
            pa_csv.write_csv(table.slice(start, -(-rows // parts)), pieces[-1],
                             pa_csv.WriteOptions(quoting_style="none"))
    return f"{base}.csv", f"{base}.parquet", pieces


def worker(spec):
    """One timing in this process: the parse of the file, then fit_stream of it."""
    import warnings

    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    import seminaive

    warnings.simplefilter("ignore")
    if spec.get("keep_bytes") is not None:  # the budget of fit_stream (both trees read it)
        os.environ["SEMINAIVE_KEEP_BYTES"] = str(spec["keep_bytes"])
    cls = getattr(seminaive, LEARNERS[spec["learner"]])
    path = spec["path"]
    small = pq.read_table(spec["parquet"]).slice(0, 2000).to_pandas()
    cls().fit_stream(small, "class", progress=False)  # compiles (or loads the cache)
    # the parse and the fit alternate PARSES times in this process (the same conditions for
    # both): the best of each, wall clock and the CPU time of all threads of the process
    parse, parse_cpu, fit, fit_cpu = (np.inf,) * 4
    for _ in range(PARSES):
        w, c = time.perf_counter(), time.process_time()
        if isinstance(path, list):  # a CSV file in parts: each parsed in turn
            for part in path:
                pa_csv.read_csv(part)
        elif path.endswith(".csv"):
            pa_csv.read_csv(path)
        else:
            pq.read_table(path)
        parse = min(parse, time.perf_counter() - w)
        parse_cpu = min(parse_cpu, time.process_time() - c)
        w, c = time.perf_counter(), time.process_time()
        model = cls().fit_stream(path, "class", progress=False)
        fit = min(fit, time.perf_counter() - w)
        fit_cpu = min(fit_cpu, time.process_time() - c)
        del model
    result = {"parse": parse, "fit": fit, "parse_cpu": parse_cpu, "fit_cpu": fit_cpu}
    print(json.dumps(result), flush=True)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", default="d7a5673", help="commit to compare with")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--commit", default=None,
                        help="time this commit as 'this tree' (default: the working tree)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--learners", nargs="*", default=list(LEARNERS))
    parser.add_argument("--shapes", nargs="*", type=int, default=None,
                        help="indices of the shapes to time (default: all)")
    parser.add_argument("--keep-bytes", type=int, default=None,
                        help="the keep budget of fit_stream, SEMINAIVE_KEEP_BYTES in the "
                        "workers (default: its default)")
    parser.add_argument("--parts", type=int, default=4,
                        help="also time the CSV file split into this many files (0: not)")
    args = parse_or_serve(parser, worker, ROOT)
    if args is None:
        return
    ref_dir = export_library(ROOT, args.reference, scratch_dir("bench-ref-"))
    now_dir = ROOT if args.commit is None else export_library(
        ROOT, args.commit, scratch_dir("bench-now-"))
    data_dir = scratch_dir("bench-files-")
    load_start = os.getloadavg()[0]
    rows = []
    shapes = QUICK_SHAPES if args.quick else SHAPES
    if args.shapes is not None:
        shapes = [shapes[i] for i in args.shapes]
    for shape in shapes:
        csv_path, parquet_path, pieces = write_files(shape, data_dir, args.parts)
        for path in [csv_path, parquet_path] + ([pieces] if pieces else []):
            for learner in args.learners:
                spec = {"learner": learner, "path": path, "parquet": parquet_path,
                        "keep_bytes": args.keep_bytes}
                best = {"now": None, "ref": None}
                for _ in range(args.repeats):  # the two versions alternate
                    for key, code in (("now", now_dir), ("ref", ref_dir)):
                        got = run_library(__file__, code, spec, timeout=1800)
                        if "error" in got:
                            best[key] = got
                        elif best[key] is None or (
                                "error" not in best[key] and got["fit"] < best[key]["fit"]):
                            best[key] = got
                now, ref = best["now"], best["ref"]
                label = (f"CSV in {len(path)} files" if isinstance(path, list) else
                         "CSV" if path.endswith(".csv") else "Parquet")
                n, a, v, k = shape
                cell = [f"{n:,} x {a}, {v} values, {k} classes", label, learner]
                if "error" in now or "error" in ref:
                    rows.append([*cell, "-", "-", "-", "-", "-", "-",
                                 now.get("error") or ref.get("error")])
                else:
                    rows.append([*cell, f"{now['parse']:.2f}", f"{ref['fit']:.2f}",
                                 f"{now['fit']:.2f}", f"{now['fit'] / now['parse']:.2f}",
                                 f"{now['fit_cpu'] / now['parse_cpu']:.2f}",
                                 f"{ref['fit'] / now['fit']:.2f}", ""])
                print(" | ".join(str(c) for c in rows[-1]), flush=True)
    lines = [
        MARKS[0],
        "## Training from string files, against parsing them",
        "",
        f"`python benchmarks/bench_files.py --reference {args.reference} --repeats "
        f"{args.repeats}"
        + ("" if args.shapes is None else " --shapes " + " ".join(map(str, args.shapes)))
        + ("" if args.parts == 4 else f" --parts {args.parts}")
        + ("" if args.keep_bytes is None else f" --keep-bytes {args.keep_bytes}")
        + "`: nominal attributes of string values `v0`, `v1`, ... and a class "
        "column `c0`, `c1`, ..., as CSV (with a header) and as Parquet, and the CSV file's "
        "rows in several CSV files of the same header (*CSV in k files*: `fit_stream` of "
        "the list, *parse* the parse of each file in turn).  Each cell is the "
        "best of the repeats of fresh processes, this tree and the reference alternated; "
        "*parse* is `pyarrow.csv.read_csv` (or `pyarrow.parquet.read_table`) of the file "
        "with its defaults (all cores), timed in the same process as `fit_stream`, the two "
        f"alternated {PARSES} times (the best of each).  *x parse* is this tree's "
        "`fit_stream` over the parse time; *x parse CPU* the same ratio of the CPU time of "
        "the process (all threads), which a loaded machine disturbs less; *speed-up* is "
        "the reference's `fit_stream` over this tree's.  Petal on the same kind of string "
        "files is in the section on peers (`benchmarks/bench_peers.py --petal PATH`).  "
        f"{os.cpu_count()} cores; load average {load_start:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end.",
        "",
        "| data | file | learner | parse s | reference s | this tree s | x parse "
        "| x parse CPU | speed-up | note |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    write_table_section(args.out, MARKS, lines, rows)


if __name__ == "__main__":
    main()
