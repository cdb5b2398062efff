"""Scale: fit and predict streamed from Parquet, 1 against 2 threads, a local Dask cluster,
and scikit-learn ensembles on the same data.  Prints every figure and writes
docs/performance.md.

    python benchmarks/bench_scale.py --quick    # small run, a couple of minutes
    python benchmarks/bench_scale.py            # 10^5 .. 10^7 rows and the 2*10^7-row demo

Data: rows sampled from a random Bayesian network (seminaive.datasets.RandomBayesianNetwork,
20 attributes of 4 values, 2 classes), written to Parquet by a streaming writer (1 million
rows per row group; the writer never holds more than one row group).  Every fit_stream run is
a separate process, so that its peak resident memory (VmHWM, reset after a warm-up that
loads the compiled kernels) belongs to that run alone.  The memory demonstration runs
fit_stream under a hard address-space limit (RLIMIT_AS) set just above the warmed-up process.
"""

import argparse
import math
import os
import platform
import re
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
from _sections import reset_peak, run_worker, serve_worker

N_ATTRIBUTES = 20
LEARNERS = ("NaiveBayes", "AODE", "A2DE")
ROW_GROUP = 500_000
ROOT = Path(__file__).resolve().parent.parent


# --------------------------------------------------------------------------------------------
# measurement helpers (also used in the worker processes)
# --------------------------------------------------------------------------------------------


def vm_status():
    """Resident and virtual memory of this process in MiB (from /proc/self/status)."""
    out = {}
    try:
        with open("/proc/self/status") as status:
            for line in status:
                key, _, value = line.partition(":")
                if key in ("VmHWM", "VmRSS", "VmSize", "VmPeak"):
                    out[key] = int(value.split()[0]) / 1024
    except OSError:
        out["VmHWM"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        out["VmRSS"] = out["VmHWM"]
    return out


def network():
    from seminaive.datasets import RandomBayesianNetwork

    return RandomBayesianNetwork(n_attributes=N_ATTRIBUTES, n_values=4, n_classes=2,
                                 max_parents=2, concentration=5.0, random_state=0)


def write_parquet(path, n_rows, seed):
    """Sample ``n_rows`` rows and write them row group by row group (streaming writer)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    net = network()
    rng = np.random.default_rng(seed)
    writer = None
    try:
        for start in range(0, n_rows, ROW_GROUP):
            X, y = net.sample(min(ROW_GROUP, n_rows - start), random_state=rng)
            table = pa.table({**{f"x{i:02d}": X[:, i] for i in range(N_ATTRIBUTES)}, "y": y})
            del X, y
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table, row_group_size=ROW_GROUP)
            del table
    finally:
        if writer is not None:
            writer.close()


def read_arrays(path):
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    y = table.column("y").to_numpy()
    X = np.empty((table.num_rows, N_ATTRIBUTES), dtype=np.uint8)
    for i in range(N_ATTRIBUTES):
        X[:, i] = table.column(f"x{i:02d}").to_numpy()
    return X, y


def learner(name):
    import seminaive

    return getattr(seminaive, name)(categorical_features="all")


def zero_one_loss_of_file(pred_path, y):
    import pyarrow.parquet as pq

    pred = pq.read_table(pred_path, columns=["prediction"]).column("prediction").to_numpy()
    return float(np.mean(pred != y))


# --------------------------------------------------------------------------------------------
# worker tasks (each run in its own process)
# --------------------------------------------------------------------------------------------


def task_stream(spec):
    """fit_stream a learner on a Parquet file; peak memory of the fit; predict_stream."""
    _, y_test = read_arrays(spec["test"])
    warm = learner(spec["learner"]).fit_stream(spec["test"], target="y", sample_rows=1000)
    warm.predict_stream(spec["test"], spec["pred"])
    del warm
    reset_ok = reset_peak()
    base = vm_status()
    t0 = time.perf_counter()
    model = learner(spec["learner"]).fit_stream(spec["path"], target="y")
    fit_s = time.perf_counter() - t0
    peak = vm_status()["VmHWM"]
    t0 = time.perf_counter()
    model.predict_stream(spec["test"], spec["pred"])
    predict_s = time.perf_counter() - t0
    return {"fit_s": fit_s, "peak_mb": peak, "base_mb": base["VmRSS"], "reset": reset_ok,
            "predict_s": predict_s, "n_test": int(y_test.size),
            "loss": zero_one_loss_of_file(spec["pred"], y_test),
            "table_mb": model.table_.counts.nbytes / 2**20}


def task_in_memory(spec):
    """Read the whole file into memory and fit: the peak memory of the ordinary route."""
    X, y = read_arrays(spec["test"])
    learner(spec["learner"]).fit(X[:1000], y[:1000])
    del X, y
    reset_peak()
    base = vm_status()["VmRSS"]
    t0 = time.perf_counter()
    X, y = read_arrays(spec["path"])
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    learner(spec["learner"]).fit(X, y)
    fit_s = time.perf_counter() - t0
    return {"load_s": load_s, "fit_s": fit_s, "peak_mb": vm_status()["VmHWM"], "base_mb": base,
            "data_mb": (X.nbytes + y.nbytes) / 2**20}


def task_sklearn(spec):
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier

    X_test, y_test = read_arrays(spec["test"])
    X, y = read_arrays(spec["path"])
    if spec["model"] == "RandomForest(100)":
        model = RandomForestClassifier(n_estimators=100, n_jobs=2, random_state=0)
    else:  # native categorical splits: the attributes are nominal
        model = HistGradientBoostingClassifier(categorical_features=np.ones(N_ATTRIBUTES, bool),
                                               random_state=0)
    reset_peak()
    t0 = time.perf_counter()
    model.fit(X, y)
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    loss = float(np.mean(model.predict(X_test) != y_test))
    return {"fit_s": fit_s, "predict_s": time.perf_counter() - t0, "loss": loss,
            "peak_mb": vm_status()["VmHWM"]}


def task_threads(spec):
    """1 against 2 numba threads: in-memory fit (counting kernels), predict (classification
    kernels) and fit_stream (reading + encoding + counting)."""
    import numba

    X, y = read_arrays(spec["path"])
    X_test, _ = read_arrays(spec["test"])
    X_test = X_test[: spec["n_predict"]]
    out = {"max_threads": numba.config.NUMBA_NUM_THREADS}
    calibration = _calibration_kernel()
    calibration(10)
    for threads in (1, 2):
        if threads <= numba.config.NUMBA_NUM_THREADS:
            numba.set_num_threads(threads)
            out[f"calibration/{threads}"] = min(_timed(lambda: calibration(2000))
                                               for _ in range(spec["repeats"]))
    for name in ("NaiveBayes", "AODE", "A2DE"):
        learner(name).fit(X[:1000], y[:1000]).predict(X_test[:10])
        for threads in (1, 2):
            if threads > numba.config.NUMBA_NUM_THREADS:
                continue
            numba.set_num_threads(threads)
            model = learner(name)
            fit_s = min(_timed(lambda m=model: m.fit(X, y)) for _ in range(spec["repeats"]))
            predict_s = min(_timed(lambda m=model: m.predict(X_test))
                            for _ in range(spec["repeats"]))
            stream_s = _timed(lambda n=name: learner(n).fit_stream(spec["path"], target="y"))
            out[f"{name}/{threads}"] = {"fit_s": fit_s, "predict_s": predict_s,
                                        "stream_s": stream_s}
    return out


def _calibration_kernel():
    """An embarrassingly parallel numba loop: the speed-up the machine offers right now."""
    from numba import njit, prange

    @njit(parallel=True)
    def burn(n):
        out = np.zeros(n)
        for i in prange(n):
            acc = 0.0
            for j in range(20_000):
                acc += math.sin(i + j)
            out[i] = acc
        return out.sum()

    return burn


def _timed(func):
    t0 = time.perf_counter()
    func()
    return time.perf_counter() - t0


def task_demo(spec):
    """fit_stream under a hard address-space limit just above the warmed-up process; the
    ordinary route (read the file, fit) under the same limit."""
    import pandas as pd
    import pyarrow.parquet as pq

    X_test, y_test = read_arrays(spec["test"])
    for name in spec["learners"]:
        warm = learner(name).fit_stream(spec["test"], target="y", sample_rows=1000,
                                        chunk_rows=spec["chunk_rows"])
        warm.predict_stream(spec["test"], spec["pred"], chunk_rows=spec["chunk_rows"])
    del warm

    del X_test
    reset_peak()
    before = vm_status()
    limit = int((before["VmSize"] + spec["budget_mb"]) * 2**20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    out = {"base_rss_mb": before["VmRSS"], "base_vsize_mb": before["VmSize"],
           "budget_mb": spec["budget_mb"], "limit_mb": limit / 2**20,
           "rows": pq.ParquetFile(spec["path"]).metadata.num_rows}
    for name in spec["learners"]:
        t0 = time.perf_counter()
        try:
            model = learner(name).fit_stream(spec["path"], target="y",
                                             chunk_rows=spec["chunk_rows"])
            out[name] = {"fit_s": time.perf_counter() - t0, "n_rows": model.table_.n_rows}
            t0 = time.perf_counter()
            model.predict_stream(spec["test"], spec["pred"], chunk_rows=spec["chunk_rows"])
            out[name]["predict_s"] = time.perf_counter() - t0
            out[name]["loss"] = zero_one_loss_of_file(spec["pred"], y_test)
        except MemoryError as err:
            out[name] = {"error": f"MemoryError: {err}"[:200]}
        out[name]["peak_rss_mb"] = vm_status()["VmHWM"]
    out["peak_rss_mb"] = vm_status()["VmHWM"]
    try:
        frame = pd.read_parquet(spec["path"])
        learner("AODE").fit(frame.drop(columns="y"), frame["y"])
        out["in_memory"] = "fitted (the limit did not bite)"
    except MemoryError as err:
        out["in_memory"] = f"MemoryError: {str(err)[:120]}"
    return out


TASKS = {"stream": task_stream, "in_memory": task_in_memory, "sklearn": task_sklearn,
         "threads": task_threads, "demo": task_demo}


def run_task(spec, timeout=3600, attempts=2):
    """Run a task in a fresh process; its JSON result (or an error description).  A failed
    task is run once more (e.g. a source file caught mid-edit in a shared checkout)."""
    return run_worker(__file__, spec, timeout, attempts)


# --------------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------------


class Report:
    def __init__(self):
        self.lines = []

    def __call__(self, text=""):
        print(text, flush=True)
        self.lines.append(text)

    def table(self, header, rows):
        self("| " + " | ".join(header) + " |")
        self("|" + "|".join("---:" if i else "---" for i in range(len(header))) + "|")
        for row in rows:
            self("| " + " | ".join(str(v) for v in row) + " |")
        self()


def slope(rows, times):
    """Exponent b of time ~ rows^b (least squares in log-log)."""
    if len(rows) < 2:
        return float("nan")
    return float(np.polyfit(np.log(rows), np.log(times), 1)[0])


def fmt(v, digits=2):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.{digits}f}"


def human(n):
    exponent = int(math.floor(math.log10(n)))
    mantissa = n / 10**exponent
    return f"10^{exponent}" if mantissa == 1 else f"{mantissa:g}x10^{exponent}"


DASK_DOC = """## Running on a Dask cluster

`seminaive.dask.fit(estimator, ddf, target=...)` counts every partition into a table of its
own on the workers and adds the count arrays up in a tree (`split_every` partial results per
task); the estimator on the client ends with exactly the counts of a single-machine fit.  The
value sets of nominal columns come from a distributed scan of the whole data and the cut
points of numeric columns from a uniform sample of at most `sample_rows` = 100,000 rows
(Chen et al. 2014).  Learners with extra passes (structure, weights, selection) run them on the
workers through `DaskSource.map_reduce`.  Predictions are lazy `map_partitions`:

```python
from dask.distributed import Client
import dask.dataframe as dd
import seminaive, seminaive.dask

client = Client("tcp://scheduler:8786")               # the cluster's scheduler
train = dd.read_parquet("s3://bucket/train/")           # storage every worker can read
model = seminaive.dask.fit(seminaive.A2DE(), train, target="class")
new = dd.read_parquet("s3://bucket/new/")
seminaive.dask.predict(model, new).to_frame().to_parquet("s3://bucket/predictions/")
proba = seminaive.dask.predict_proba(model, new)        # columns proba_<class>
```

* The data must be readable from every worker (a shared file system or an object store);
  files on the client's disk are not visible to the workers.
* Memory per worker: one partition with its codes (keep partitions around 10^6 rows), plus
  the tables (`seminaive.estimate_table_bytes(n_values, n_classes, n + 1)`) times
  `split_every` while reducing.  The client holds the tables and the 100,000-row sample.
* Each worker's numba kernels use all the cores the process sees; with several worker
  processes per machine set `NUMBA_NUM_THREADS` to cores / workers.
* A Dask Array with labels works too: `seminaive.dask.fit(model, X, y)`.
"""

STREAM_DOC = """## Streaming: `fit_stream` and `predict_stream`

`estimator.fit_stream(source, target="class")` learns from a Parquet file or directory, a
CSV file, a list of files, or an iterable of DataFrames, in two passes of one chunk at a time:

1. **scan**: class labels, the value set of every nominal column (of the whole data, so the
   table extents are fixed before counting) and a uniform random sample of at most
   100,000 rows (`sample_rows`) for the cut points of numeric columns (Chen et al. 2014);
2. **count**: every chunk is encoded and added to the tables.

Peak memory is the tables plus one chunk (about 8 million values; `chunk_rows`) plus the
sample.  Row weights come from a column: `fit_stream(path, target="class",
sample_weight="w")` (and `seminaive.dask.fit(..., sample_weight="w")`) gives the counts and
cut points of `fit(X, y, sample_weight=w)`.
`estimator.predict_stream(source, out="preds.parquet")` writes `prediction` and
`proba_<class>` columns with a Parquet writer, chunk by chunk.  A one-shot iterator (a
generator) is read once: the encoder is fitted on its first chunk as `partial_fit` does, and
a learner that needs an extra pass raises an error; pass a list of DataFrames or a callable
returning a fresh iterator instead.
"""


# --------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small run (validation)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "performance.md"))
    parser.add_argument("--data-dir", default=None, help="where the Parquet files go "
                        "(default: a temporary directory, removed at the end)")
    parser.add_argument("--demo-rows", type=float, default=None)
    parser.add_argument("--budget-mb", type=float, default=50.0)
    parser.add_argument("--skip", nargs="*", default=[],
                        choices=["scaling", "in_memory", "threads", "dask", "sklearn", "demo"])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if serve_worker(args.worker, TASKS):
        return

    quick = args.quick
    sizes = [10**4, 3 * 10**4, 10**5] if quick else [10**5, 3 * 10**5, 10**6, 3 * 10**6, 10**7]
    slope_from = sizes[0] if quick else 10**6
    caps = {"RandomForest(100)": 10**4 if quick else 10**5,
            "HistGradientBoosting": 10**4 if quick else 10**6}
    demo_rows = int(args.demo_rows or (10**6 if quick else 2 * 10**7))
    n_test = 10**4 if quick else 10**5
    threads_rows = 10**5 if quick else 10**6
    dask_sizes = [10**5] if quick else [10**6, 10**7]

    tmp = tempfile.TemporaryDirectory(prefix="bench_scale_") if args.data_dir is None else None
    data_dir = Path(args.data_dir or tmp.name)
    data_dir.mkdir(parents=True, exist_ok=True)
    report = Report()
    report("# Performance at scale")
    report()
    report(f"Written by `benchmarks/bench_scale.py{' --quick' if quick else ''}` on "
           f"{time.strftime('%Y-%m-%d')}: {platform.processor() or platform.machine()}, "
           f"{os.cpu_count()} cores, Python {platform.python_version()}.  Load average at "
           f"the start: {', '.join(f'{v:.1f}' for v in os.getloadavg())} (load from other "
           "jobs makes timings noisy; the calibration loop in the threads section measures the "
           "parallelism the machine actually offered).")
    report()
    report(f"Data: random Bayesian network, {N_ATTRIBUTES} attributes x 4 values, 2 classes "
           f"(max 2 attribute parents, Dirichlet 5); test set {n_test:,} rows.  Parquet "
           f"written in row groups of {ROW_GROUP:,} rows by a streaming writer.")
    report()

    t_start = time.perf_counter()
    test_path = data_dir / "test.parquet"
    write_parquet(test_path, n_test, seed=99)
    paths = {}
    for n in sorted(set(sizes) | set(dask_sizes) | {threads_rows}
                    | {c for c in caps.values()}):
        paths[n] = data_dir / f"train_{n}.parquet"
        t0 = time.perf_counter()
        write_parquet(paths[n], n, seed=1)
        print(f"# wrote {n:,} rows in {time.perf_counter() - t0:.1f} s "
              f"({paths[n].stat().st_size / 2**20:.1f} MiB on disk)", flush=True)
    from seminaive.datasets import RandomBayesianNetwork  # noqa: F401

    X_test, y_test = read_arrays(test_path)
    bayes = network().bayes_error(X_test, y_test)
    report(f"Bayes error of the network on the test set: {bayes[0]:.4f} (expected), "
           f"{bayes[1]:.4f} (of the Bayes-optimal predictions).")
    report()

    # -- 1. streamed fit: time and peak memory per size ------------------------------------
    stream = {}
    if "scaling" not in args.skip:
        report("## fit_stream from Parquet: time and peak memory")
        report()
        report("Each cell is a separate process: `fit_stream(path, target='y')` with the "
               "default chunks, after a warm-up that loads the compiled kernels.  Peak RSS is "
               "the process's high-water mark during the fit; `base` is the warmed-up "
               "process (interpreter, NumPy, pandas, pyarrow, numba and the compiled "
               "kernels).  Data in memory = rows x 28 bytes (20 uint8 attributes and an "
               "int64 class).")
        report()
        rows_out = []
        for name in LEARNERS:
            for n in sizes:
                spec = {"task": "stream", "learner": name, "path": str(paths[n]),
                        "test": str(test_path), "pred": str(data_dir / f"pred_{name}.parquet")}
                result = run_task(spec)
                stream[name, n] = result
                if "error" in result:
                    rows_out.append([name, f"{n:,}", "error", *["-"] * 6,
                                     str(result["error"])[:60]])
                    continue
                rows_out.append([
                    name, f"{n:,}", fmt(result["fit_s"]), f"{n / result['fit_s']:,.0f}",
                    fmt(n * 28 / 2**20, 1), fmt(result["peak_mb"], 0),
                    fmt(result["peak_mb"] - result["base_mb"], 0), fmt(result["table_mb"], 2),
                    fmt(result["loss"], 4), f"{result['n_test'] / result['predict_s']:,.0f}"])
                print(f"#   {rows_out[-1]}", flush=True)
        report.table(["learner", "rows", "fit s", "rows/s", "data MiB", "peak RSS MiB",
                      "peak - base MiB", "tables MiB", "0-1 loss", "predict_stream rows/s"],
                     rows_out)
        slopes = []
        for name in LEARNERS:
            ok = [n for n in sizes if n >= slope_from and "fit_s" in stream.get((name, n), {})]
            peaks = [stream[name, n]["peak_mb"] for n in ok]
            slopes.append([name, fmt(slope(ok, [stream[name, n]["fit_s"] for n in ok])),
                           f"{human(ok[0])}..{human(ok[-1])}" if ok else "-",
                           f"{min(peaks):.0f}..{max(peaks):.0f}" if peaks else "-"])
        report("Fit time ~ rows^b (b = 1 is linear) and the range of peak RSS over the same "
               "sizes (flat memory: the peak does not grow with the rows):")
        report()
        report.table(["learner", "b", "sizes", "peak RSS MiB"], slopes)

    # -- 2. in-memory fit for comparison ----------------------------------------------------
    if "in_memory" not in args.skip:
        report("## The ordinary route for comparison: read the whole file, then fit (AODE)")
        report()
        rows_out = []
        for n in sizes:
            result = run_task({"task": "in_memory", "learner": "AODE", "path": str(paths[n]),
                               "test": str(test_path)})
            if "error" in result:
                rows_out.append([f"{n:,}", "error", "-", "-", "-", str(result["error"])[:60]])
                continue
            rows_out.append([f"{n:,}", fmt(result["load_s"]), fmt(result["fit_s"]),
                             fmt(result["data_mb"], 1), fmt(result["peak_mb"], 0),
                             fmt(result["peak_mb"] - result["base_mb"], 0)])
            print(f"#   {rows_out[-1]}", flush=True)
        report.table(["rows", "read s", "fit s", "data MiB", "peak RSS MiB", "peak - base MiB"],
                     rows_out)

    # -- 3. threads ---------------------------------------------------------------------------
    if "threads" not in args.skip:
        report(f"## 1 against 2 threads ({threads_rows:,} rows)")
        report()
        report("numba.set_num_threads(1) then (2) in one process: in-memory `fit` (counting "
               f"kernels, best of 3), `predict` of {min(n_test, 10**5):,} rows "
               "(classification kernels, best of 3) and `fit_stream` of the Parquet file "
               "(reading, encoding and counting, one run).")
        report()
        result = run_task({"task": "threads", "path": str(paths[threads_rows]),
                           "test": str(test_path), "n_predict": min(n_test, 10**5),
                           "repeats": 3})
        rows_out = []
        if "error" in result:
            report(f"threads benchmark failed: {result['error']}")
        if "calibration/2" in result:
            one, two = result["calibration/1"], result["calibration/2"]
            report(f"Calibration: an embarrassingly parallel numba loop takes {one:.3f} s on 1 "
                   f"thread and {two:.3f} s on 2 (speed-up {one / two:.2f}): the parallelism "
                   "the machine offered during this run (load average now "
                   f"{os.getloadavg()[0]:.1f}).")
            report()
        for name in LEARNERS:
            one, two = result.get(f"{name}/1"), result.get(f"{name}/2")
            if not one or not two:
                continue
            rows_out.append([name, fmt(one["fit_s"], 3), fmt(two["fit_s"], 3),
                             fmt(one["fit_s"] / two["fit_s"]), fmt(one["predict_s"], 3),
                             fmt(two["predict_s"], 3), fmt(one["predict_s"] / two["predict_s"]),
                             fmt(one["stream_s"]), fmt(two["stream_s"]),
                             fmt(one["stream_s"] / two["stream_s"])])
        report.table(["learner", "fit 1T s", "fit 2T s", "speed-up", "predict 1T s",
                      "predict 2T s", "speed-up", "fit_stream 1T s", "fit_stream 2T s",
                      "speed-up"], rows_out)

    # -- 4. Dask ------------------------------------------------------------------------------
    if "dask" not in args.skip:
        report("## Local Dask cluster (2 worker processes x 1 thread) against in-process")
        report()
        rows_out = dask_benchmark(dask_sizes, paths, test_path)
        report("`seminaive.dask.fit(AODE(), dd.read_parquet(path), target='y')` (one "
               "partition per row group) against `AODE().fit_stream(path)` in this process; "
               "the counts are checked equal.  Cluster start-up is not included.")
        report()
        report.table(["rows", "partitions", "in-process fit_stream s", "Dask fit s",
                      "counts equal", "Dask predict rows/s", "predictions equal"], rows_out)

    # -- 5. scikit-learn ----------------------------------------------------------------------
    if "sklearn" not in args.skip:
        report("## scikit-learn ensembles on the same data (in memory)")
        report()
        report(f"RandomForest(100 trees, n_jobs=2) is capped at {caps['RandomForest(100)']:,} "
               "rows: 100 fully grown trees cost O(n log n) time each and O(n) nodes each in "
               "memory, so 10x the rows takes well over 10x the time (minutes at 10^6 rows "
               "on 2 cores) and gigabytes.  HistGradientBoosting (native categorical splits, "
               f"early stopping) is capped at {caps['HistGradientBoosting']:,} rows: it runs "
               "up to 100 boosting iterations over all rows and needs the whole data in "
               "memory.")
        report()
        rows_out = []
        for model_name, cap in caps.items():
            for n in sorted({s for s in sizes if s <= cap} | {cap}):
                if n not in paths:
                    continue
                result = run_task({"task": "sklearn", "model": model_name,
                                   "path": str(paths[n]), "test": str(test_path)})
                if "error" in result:
                    rows_out.append([model_name, f"{n:,}", "error", "-", "-",
                                     str(result["error"])[:60]])
                    continue
                ours = stream.get(("AODE", n), {})
                a2 = stream.get(("A2DE", n), {})
                rows_out.append([model_name, f"{n:,}", fmt(result["fit_s"]),
                                 fmt(result["loss"], 4), fmt(result["peak_mb"], 0),
                                 fmt(ours.get("fit_s")), fmt(ours.get("loss"), 4),
                                 fmt(a2.get("fit_s")), fmt(a2.get("loss"), 4)])
                print(f"#   {rows_out[-1]}", flush=True)
        report.table(["model", "rows", "fit s", "0-1 loss", "peak RSS MiB", "AODE fit_stream s",
                      "AODE 0-1 loss", "A2DE fit_stream s", "A2DE 0-1 loss"], rows_out)

    # -- 6. memory demonstration --------------------------------------------------------------
    if "demo" not in args.skip:
        demo_memory(report, data_dir, demo_rows, args.budget_mb, test_path)

    report(STREAM_DOC)
    report(DASK_DOC)
    report(f"Total benchmark time: {(time.perf_counter() - t_start) / 60:.1f} min.")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    # sections other benchmarks own (between <!-- name --> and <!-- /name --> markers) stay
    sections = [m.group(0) for m in re.finditer(r"<!-- (\w+) -->.*?<!-- /\1 -->",
                                                  out.read_text(), re.S)] \
        if out.exists() else []
    out.write_text("\n".join(report.lines) + "\n" + "".join(f"\n{s}\n" for s in sections))
    print(f"# wrote {out}")
    if tmp is not None:
        tmp.cleanup()


def dask_benchmark(sizes, paths, test_path):
    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client, LocalCluster

    import seminaive.dask as sdask

    rows_out = []
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                      dashboard_address=":0") as cluster, Client(cluster):
        test = dd.read_parquet(str(test_path), split_row_groups=True)
        test_frame = pd.read_parquet(test_path)
        # warm-up: load the compiled kernels in this process and in the workers
        small = dd.read_parquet(str(paths[min(paths)]), split_row_groups=True)
        sdask.fit(learner("AODE"), small, target="y")
        learner("AODE").fit_stream(paths[min(paths)], target="y")
        for n in sizes:
            ddf = dd.read_parquet(str(paths[n]), split_row_groups=True)
            t0 = time.perf_counter()
            local = learner("AODE").fit_stream(paths[n], target="y")
            local_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            model = sdask.fit(learner("AODE"), ddf, target="y")
            dask_s = time.perf_counter() - t0
            equal = bool(np.array_equal(model.table_.counts, local.table_.counts))
            t0 = time.perf_counter()
            pred = sdask.predict(model, test).compute()
            pred_s = time.perf_counter() - t0
            same = bool(np.array_equal(pred.to_numpy(),
                                       local.predict(test_frame.drop(columns="y"))))
            rows_out.append([f"{n:,}", ddf.npartitions, fmt(local_s), fmt(dask_s), equal,
                             f"{len(test_frame) / pred_s:,.0f}", same])
            print(f"#   {rows_out[-1]}", flush=True)
    return rows_out


def demo_memory(report, data_dir, n_rows, budget_mb, test_path):
    path = data_dir / f"demo_{n_rows}.parquet"
    t0 = time.perf_counter()
    write_parquet(path, n_rows, seed=5)
    write_s = time.perf_counter() - t0
    data_mb = n_rows * 28 / 2**20
    fit_need_mb = n_rows * (28 + 4 * N_ATTRIBUTES + N_ATTRIBUTES) / 2**20
    result = run_task({"task": "demo", "path": str(path), "test": str(test_path),
                       "pred": str(data_dir / "demo_pred.parquet"), "budget_mb": budget_mb,
                       "learners": ["NaiveBayes", "AODE"], "chunk_rows": 1 << 16})
    report("## fit_stream under a hard memory limit")
    report()
    report(f"{n_rows:,} rows x {N_ATTRIBUTES} attributes written to Parquet by the streaming "
           f"writer in {write_s:.0f} s ({path.stat().st_size / 2**20:.0f} MiB on disk, "
           f"compressed).  In memory the data take {data_mb:,.0f} MiB (uint8 attributes, "
           f"int64 class); the ordinary `fit` also materialises int32 and uint8 codes, about "
           f"{fit_need_mb:,.0f} MiB.")
    report()
    report("How the limit is enforced: a fresh process imports everything and warms up (loads "
           "the compiled kernels), then sets a hard address-space limit with "
           "`resource.setrlimit(RLIMIT_AS, VmSize + budget)` -- any allocation beyond it "
           f"fails -- with a budget of {budget_mb:.0f} MiB, then runs `fit_stream` "
           "(chunks of 65,536 rows) and `predict_stream`, then tries the ordinary route "
           "(`pd.read_parquet` + `fit`) under the same limit.  RLIMIT_AS works with numba "
           "and pyarrow once they are loaded (their large virtual reservations happen at "
           "import, before the limit).  Not usable here: cgroup limits via `systemd-run "
           "--scope -p MemoryMax=` (no systemd bus in this container); RLIMIT_RSS (not "
           "enforced by Linux); RLIMIT_AS from process start (`prlimit --as`), which counts "
           "~2 GiB of virtual reservations of LLVM, thread stacks and allocators.")
    report()
    if "error" in result:
        report(f"The demonstration failed: {result['error']}")
        report()
        return
    report(f"* warmed-up process: {result['base_rss_mb']:.0f} MiB resident, "
           f"{result['base_vsize_mb']:.0f} MiB virtual; limit {result['limit_mb']:.0f} MiB "
           f"virtual (budget {budget_mb:.0f} MiB, {data_mb / budget_mb:.0f}x smaller than the "
           "data)")
    for name in ("NaiveBayes", "AODE"):
        r = result.get(name, {})
        if "error" in r:
            report(f"* {name}: {r['error']}")
        else:
            report(f"* {name}.fit_stream: {int(r['n_rows']):,} rows counted in "
                   f"{r['fit_s']:.1f} s ({r['n_rows'] / r['fit_s']:,.0f} rows/s); "
                   f"predict_stream {r['predict_s']:.2f} s; 0-1 loss {r['loss']:.4f}")
    growth = result["peak_rss_mb"] - result["base_rss_mb"]
    report(f"* peak resident memory of the streamed fits and predictions: "
           f"{result['peak_rss_mb']:.0f} MiB, {growth:.0f} MiB above the warmed-up process "
           f"({data_mb / max(growth, 1):.0f}x less than the data)")
    report(f"* ordinary route under the same limit: {result['in_memory']}")
    report()


if __name__ == "__main__":
    main()
