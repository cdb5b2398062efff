"""Input encoding speed: values per second of :class:`~seminaive.AttributeEncoder` per input kind.

For each kind of input (NumPy integer and float matrices, pandas categorical and string
frames, pyarrow Tables) and each shape (1,000,000 x 20 and a wide 100,000 x 200; five values
per column, about 1% missing), the same run measures

Integer matrices and float matrices of codes are declared nominal
(``categorical_features="all"``); numeric floats are binned by five equal-frequency bins.

* **fit**: ``AttributeEncoder().fit(X, y).transform(X)``, learning the value sets (or cut
  points) and coding the training data, as an estimator's ``fit`` does;
* **transform**: ``transform(X)`` of a fitted encoder;
* **reference**: the plain library primitive that codes the same columns one by one
  (``np.unique(return_inverse=True)`` for integers and float codes, ``np.searchsorted``
  against the same cut points for numeric floats, ``Series.cat.codes`` for categoricals,
  ``pd.factorize`` for pandas strings, ``pyarrow.compute.dictionary_encode`` for Arrow
  strings, the conversion ``to_pandas()`` of an Arrow dictionary column to a Categorical);
* **NaiveBayes().fit**, end to end.

The target is 1e8 values/s for transform; every row says whether it is met.  For Python
object strings, which no routine codes at that rate, the run also measures the fastest
compiled routines of the installed libraries on one column (the ceiling any code
reaches).  Printed and written to ``docs/performance.md`` (its section between the
``bench_encoding`` markers).  With ``--kinds``, only those rows are measured again and the
section keeps the other rows of its previous run.  With ``--reference COMMIT``, every row
is measured twice more, in fresh processes, alternated: with the library at ``COMMIT`` and
with this tree's, and a second table gives both and their ratio.

    python benchmarks/bench_encoding.py [--quick] [--kinds K1,K2] [--reference COMMIT]
        [--out FILE]
"""

import argparse
import datetime
import json
import os
import platform
import re
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from _sections import export_library, run_library, scratch_dir, write_section

from seminaive import AttributeEncoder, NaiveBayes

ROOT = Path(__file__).resolve().parents[1]
MARK = ("<!-- bench_encoding -->", "<!-- /bench_encoding -->")
TARGET = 1e8
N_VALUES = 5


def _codes(n, a, seed):
    """Codes 0..4 and a mask of about 1% missing values."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, N_VALUES, size=(n, a)), rng.random((n, a)) < 0.01


def make(kind, n, a, seed=0):
    """The data of one input kind and the encoder parameters it is fitted with."""
    codes, missing = _codes(n, a, seed)
    names = [f"x{j}" for j in range(a)]
    nominal = {"categorical_features": "all"}
    if kind == "int64 matrix":
        return np.ascontiguousarray(codes, dtype=np.int64), nominal
    if kind == "int64 matrix, column-major":
        return np.asfortranarray(codes, dtype=np.int64), nominal
    if kind == "int8 matrix":
        return codes.astype(np.int8), nominal
    if kind == "float64 codes (NaN missing)":
        return np.where(missing, np.nan, codes.astype(np.float64)), {"categorical_features":
                                                                    "all"}
    if kind == "float64 numeric (binned)":
        rng = np.random.default_rng(seed + 1)
        x = rng.normal(size=(n, a)) + codes
        x[missing] = np.nan
        return x, {"discretizer": "equal_frequency", "n_bins": N_VALUES}
    if kind == "float32 numeric (binned)":
        rng = np.random.default_rng(seed + 1)
        x = (rng.normal(size=(n, a)) + codes).astype(np.float32)
        x[missing] = np.nan
        return x, {"discretizer": "equal_frequency", "n_bins": N_VALUES}
    labels = np.array([f"value{v}" for v in range(N_VALUES)], dtype=object)
    if kind == "pandas categorical":
        cats = pd.Index(labels)
        return pd.DataFrame({c: pd.Categorical.from_codes(np.where(missing[:, j], -1,
                                                                   codes[:, j]), cats)
                             for j, c in enumerate(names)}), {}
    if kind in ("pandas object strings", "pandas object strings (a new object per row)",
                "pandas string[pyarrow]", "pyarrow strings", "pyarrow dictionary"):
        strings = {c: np.where(missing[:, j], None, labels[codes[:, j]])
                   for j, c in enumerate(names)}
        if kind == "pandas object strings":
            return pd.DataFrame({c: pd.Series(v, dtype=object) for c, v in strings.items()}), {}
        if kind == "pandas object strings (a new object per row)":
            return pd.DataFrame({c: pd.Series(_fresh(v), dtype=object)
                                 for c, v in strings.items()}), {}
        if kind == "pandas string[pyarrow]":
            return pd.DataFrame({c: pd.array(v, dtype="string[pyarrow]")
                                 for c, v in strings.items()}), {}
        table = pa.table({c: pa.array(v, type=pa.string()) for c, v in strings.items()})
        if kind == "pyarrow dictionary":
            table = pa.table({c: pc.dictionary_encode(table[c]) for c in names})
        return table, {}
    raise ValueError(kind)


def _fresh(values):
    """The same values, every string a new object (no two rows share one)."""
    return np.array([v if v is None else (v + "!")[:-1] for v in values], dtype=object)


KINDS = ["int64 matrix", "int64 matrix, column-major", "int8 matrix",
         "float64 codes (NaN missing)", "float64 numeric (binned)", "float32 numeric (binned)",
         "pandas categorical", "pandas object strings",
         "pandas object strings (a new object per row)", "pandas string[pyarrow]",
         "pyarrow strings", "pyarrow dictionary"]


def reference(kind, X, enc):
    """The library primitive coding the same columns one at a time."""
    if kind.startswith("int") or kind.startswith("float64 codes"):
        for j in range(X.shape[1]):
            np.unique(X[:, j], return_inverse=True)
    elif "numeric" in kind:
        for j, cuts in enumerate(enc.cut_points()):
            np.searchsorted(cuts, X[:, j])
    elif kind == "pandas categorical":
        for c in X.columns:
            X[c].cat.codes.to_numpy()
    elif kind.startswith("pandas"):
        for c in X.columns:
            pd.factorize(X[c])
    elif kind == "pyarrow dictionary":
        for c in X.column_names:
            X[c].to_pandas()
    else:
        for c in X.column_names:
            pc.dictionary_encode(X[c])


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def measure(kind, n, a, repeat):
    X, params = make(kind, n, a)
    y = np.random.default_rng(7).integers(0, 2, size=n)
    enc = AttributeEncoder(**params).fit(X, y)
    enc.transform(X)  # compile the kernels
    values = n * a
    fit = best(lambda: AttributeEncoder(**params).fit(X, y).transform(X), repeat)
    transform = best(lambda: enc.transform(X), repeat)
    ref = best(lambda: reference(kind, X, enc), repeat)
    nb_params = {k: v for k, v in params.items() if k != "categorical_features"}
    if params.get("categorical_features") == "all":
        nb_params["categorical_features"] = "all"
    NaiveBayes(**nb_params).fit(X, y)  # compile (or load) its kernels
    nb = best(lambda: NaiveBayes(**nb_params).fit(X, y), repeat)
    return {"kind": kind, "shape": f"{n:,} x {a}", "fit": values / fit,
            "transform": values / transform, "reference": values / ref, "nb": nb,
            "met": values / transform >= TARGET}


def object_ceiling(n, repeat):
    """Values/s of the fastest compiled routines that read one column of ``n`` Python
    ``str`` objects (five distinct labels, about 1% ``None``), and of our transform of it:
    what any code can reach on object strings, whose every value is a separate CPython heap
    object reached through a pointer."""
    X, _ = make("pandas object strings", n, 1)
    col = X.iloc[:, 0]
    values = col.to_numpy()
    enc = AttributeEncoder().fit(X, np.zeros(n, dtype=np.int64))
    enc.transform(X)
    routines = {
        "`pd.factorize` (hash table in C)": lambda: pd.factorize(values),
        "`pa.array(type=pa.string())` (C++ conversion)": lambda: pa.array(values,
                                                                           type=pa.string()),
        "`pd.Series.astype('category')`": lambda: col.astype("category"),
        "`np.asarray(values, dtype='U')` (copy to fixed-width)": lambda: values.astype("U"),
        "**ours**: `AttributeEncoder.transform`": lambda: enc.transform(X),
    }
    return [(name, n / best(fn, repeat)) for name, fn in routines.items()]


def worker(spec):
    """A measurement in a fresh process (``--worker``), with the library on PYTHONPATH."""
    r = measure(spec["kind"], spec["n"], spec["a"], spec["repeat"])
    print(json.dumps({k: v for k, v in r.items() if k != "met"}), flush=True)


def against_reference(args, shapes, kinds):
    """Every row measured with the library at ``args.reference`` and with this tree's, each
    in a fresh process, alternated: table rows (values/s, seconds, ratios)."""
    ref_dir = export_library(ROOT, args.reference, scratch_dir("bench-ref-"))
    rows = []
    for n, a in shapes:
        for kind in kinds:
            spec = {"kind": kind, "n": n, "a": a, "repeat": args.repeat}
            ref = run_library(__file__, ref_dir, spec, timeout=3600)
            now = run_library(__file__, ROOT, spec, timeout=3600)
            if "error" in ref or "error" in now:
                rows.append(f"| {kind} | {n:,} x {a} | {ref.get('error') or now.get('error')} "
                            "| | | | | | | |")
            else:
                rows.append(
                    f"| {kind} | {n:,} x {a} | {ref['fit']:.3g} | {now['fit']:.3g} | "
                    f"{now['fit'] / ref['fit']:.2f} | {ref['transform']:.3g} | "
                    f"{now['transform']:.3g} | {now['transform'] / ref['transform']:.2f} | "
                    f"{ref['nb']:.3f} | {now['nb']:.3f} |")
            print(rows[-1], flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="100,000 x 20 and 10,000 x 200")
    parser.add_argument("--kinds", default=None, help="comma-separated subset of the kinds "
                        "(the section keeps the other rows of its previous run)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reference", default=None,
                        help="a commit to measure every row against, in fresh processes")
    parser.add_argument("--out", default=str(ROOT / "docs" / "performance.md"))
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(json.loads(args.worker))
        return
    shapes = [(100_000, 20), (10_000, 200)] if args.quick else [(1_000_000, 20),
                                                                (100_000, 200)]
    kinds = KINDS if args.kinds is None else [k.strip() for k in args.kinds.split(",")]
    args.load = os.getloadavg()[0]
    header = ("| input | shape | fit (values/s) | transform (values/s) | reference "
              "(values/s) | transform / reference | 1e8 met | NaiveBayes fit (s) |")
    print(header)
    rows = []
    for n, a in shapes:
        for kind in kinds:
            r = measure(kind, n, a, args.repeat)
            row = (f"| {r['kind']} | {r['shape']} | {r['fit']:.3g} | {r['transform']:.3g} | "
                   f"{r['reference']:.3g} | {r['transform'] / r['reference']:.2f} | "
                   f"{'yes' if r['met'] else 'no'} | {r['nb']:.3f} |")
            rows.append(row)
            print(row, flush=True)
    ceiling = []
    if "pandas object strings" in kinds:
        ceiling = object_ceiling(shapes[0][0], args.repeat)
        for name, rate in ceiling:
            print(f"object strings, one column of {shapes[0][0]:,}: {name}: {rate:.3g} values/s")
    compared = against_reference(args, shapes, kinds) if args.reference else []
    write(args, header, rows, ceiling, shapes[0][0], kinds, compared)


def _previous(out):
    """``(date line, rows by (input, shape), reference lines)`` of the section's previous
    run in the file ``out`` (empty if there is none)."""
    text = Path(out).read_text() if Path(out).exists() else ""
    match = re.search(re.escape(MARK[0]) + "(.*?)" + re.escape(MARK[1]), text, re.S)
    if not match:
        return "", {}, []
    lines = match.group(1).splitlines()
    date = next((line for line in lines if re.match(r"\d{4}-\d\d-\d\d, ", line)), "")
    rows, compared, in_main, in_reference = {}, [], False, False
    for line in lines:
        if line.startswith("| input | shape | fit (values/s) | transform (values/s) | ref"):
            in_main, in_reference = True, False
        elif line.startswith("| input | shape | reference fit"):
            in_main, in_reference = False, True
        elif not line.startswith("|"):
            in_main = in_reference = False
        elif not line.startswith("|---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if in_main:
                rows[(cells[0], cells[1])] = line
            elif in_reference:
                compared.append(line)
    return date.split(";")[0], rows, compared


def _merged(rows, previous, shapes_kinds):
    """This run's rows, and the previous run's rows of the inputs not measured again, in
    the order of :data:`KINDS` within each shape."""
    by_key = dict(previous)
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        by_key[(cells[0], cells[1])] = row
    shapes = list(dict.fromkeys(shape for _, shape in by_key))
    order = {kind: i for i, kind in enumerate(KINDS)}
    return [by_key[key] for shape in shapes for key in sorted(
        (key for key in by_key if key[1] == shape), key=lambda key: order.get(key[0], 99))]


def write(args, header, rows, ceiling=(), n_ceiling=0, kinds=KINDS, compared=()):
    date, previous, _ = _previous(args.out) if list(kinds) != KINDS else ("", {}, [])
    measured = (f"{datetime.date.today()}, {platform.processor() or platform.machine()}, "
                f"{os.cpu_count()} cores (load average {args.load:.1f} at the start, "
                f"{os.getloadavg()[0]:.1f} at the end); best of {args.repeat}.  ")
    if previous:
        measured = (f"{date}; the rows of {', '.join(kinds)} measured again on "
                    + measured + "Compare rows of the same run only (the load differed).  ")
    lines = [MARK[0], "## Input encoding", "",
             measured + "Values/s = rows x columns / seconds.  *fit*: "
             "`AttributeEncoder().fit(X, y).transform(X)`; *transform*: a fitted encoder's "
             "`transform(X)`; *reference*: the library primitive coding "
             "the same columns one by one (`np.unique(return_inverse=True)` for integer and "
             "float codes, `np.searchsorted` against the same cut points for numeric floats, "
             "`Series.cat.codes`, `pd.factorize` for pandas strings, "
             "`pyarrow.compute.dictionary_encode` for Arrow strings, `to_pandas()` of an Arrow "
             "dictionary column).  Target: 1e8 values/s at "
             "transform.", "", header,
             "|---|---|---:|---:|---:|---:|---|---:|"]
    lines += _merged(rows, previous, kinds)
    if ceiling:
        fastest = max(rate for name, rate in ceiling if "ours" not in name)
        ours = dict(ceiling)["**ours**: `AttributeEncoder.transform`"]
        lines += ["", "**Python object strings: what limits them.** One column of "
                  f"{n_ceiling:,} `str` objects (five labels, each row pointing to one of "
                  "five objects), the fastest compiled routines of the libraries installed "
                  "here, same run:", "",
                  "| routine | values/s |", "|---|---:|"]
        lines += [f"| {name} | {rate:.3g} |" for name, rate in ceiling]
        lines += ["", f"The fastest routine codes {fastest:.3g} values/s and ours "
                  f"{ours:.3g} ({ours / fastest:.2f} times the fastest).  Each value is a "
                  "separate CPython object reached through a pointer: a routine that hashes "
                  "every value (`pd.factorize`, the conversion to Arrow) follows every "
                  "pointer and reads the object's hash and bytes, which caps it at a few "
                  "times 1e7 per core.  The encoder groups the rows by the object they point "
                  "to instead (an integer pass over the pointers, without the GIL, the "
                  "columns on the threads) and hashes only the distinct objects: rows that "
                  "share an object share its value.  Columns built from a list of labels "
                  "share their objects, and so do the columns of `pd.read_csv(..., "
                  "dtype=object)` (its parser makes one object per distinct string of each "
                  "block it reads); a column with a new object in every row (the row *a new "
                  "object per row*) is hashed value by value, at `pd.factorize`'s rate, "
                  "once per fit and once per prediction.  Read strings as Arrow "
                  "(`pd.read_csv`'s default `str` columns of pandas 3, "
                  "`dtype_backend=\"pyarrow\"`, `pyarrow.csv`, Parquet) or as categoricals "
                  "to get the rates of the other rows."]
    if compared:
        lines += ["", f"**Against the library at {args.reference}**, same run, each version "
                  "in a fresh process, alternated row by row (`python "
                  f"benchmarks/bench_encoding.py --kinds '{','.join(kinds)}' --reference "
                  f"{args.reference}`); ratios above 1: faster now.", "",
                  "| input | shape | reference fit (values/s) | fit (values/s) | ratio | "
                  "reference transform (values/s) | transform (values/s) | ratio | "
                  "reference NaiveBayes fit (s) | NaiveBayes fit (s) |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        lines += list(compared)
    lines += ["", MARK[1]]
    section = "\n".join(lines)
    write_section(args.out, MARK, section)


if __name__ == "__main__":
    main()
