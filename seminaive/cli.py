"""Command line: ``seminaive demo``, ``seminaive compare`` and ``seminaive report``."""

import argparse
import sys

import numpy as np

from .ande import A2DE, AODE, NaiveBayes
from .datasets import load_kr_vs_kp
from .evaluation import comparisons, findings, report, runner
from .evaluation.learners import get_learner
from .evaluation.protocols import PROTOCOLS, make_tasks
from .exceptions import InputError


def _cross_validate(learner, X, y, folds, seed):
    """Per-fold (zero-one, RMSE, log loss, fit s, predict s) of a registered learner."""
    config = runner.RunConfig(datasets=["kr-vs-kp"], learners=[learner], seed=seed,
                       discretizer="mdl")
    classes = np.unique(y.to_numpy())
    rows = []
    for task in make_tasks("cv", "kr-vs-kp", y.to_numpy(), seed, folds=folds):
        result = runner.evaluate_task(learner, task, X, y, classes, config)[0]
        rows.append((result["zero_one"], result["rmse"], result["log_loss"],
                     result["train_time"] * result["train_size"],
                     result["test_time"] * result["test_size"]))
    return np.array(rows)


def demo(args):
    """10-fold cross-validation of NB, AODE and A2DE on a bundled UCI data set.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``seminaive demo`` (``folds``, ``seed``).

    Returns
    -------
    int
        The exit status, 0.
    """
    X, y = load_kr_vs_kp()
    print(f"Data: UCI Chess (King-Rook vs. King-Pawn), {X.shape[0]} rows, {X.shape[1]} nominal "
          f"attributes, {y.nunique()} classes (CC BY 4.0; see seminaive/datasets/data/README.md)")
    print(f"Protocol: stratified {args.folds}-fold cross-validation, seed {args.seed}; "
          "m-estimation (m = 1)\n")
    learners = {"NB": (NaiveBayes, "nb"), "AODE": (AODE, "aode"), "A2DE": (A2DE, "a2de")}
    # compile the numba kernels once so the timings measure learning, not compilation
    for cls, _ in learners.values():
        cls().fit(X.iloc[:50], y.iloc[:50]).predict_proba(X.iloc[:5])
    header = (f"{'learner':<8}{'0-1 loss':>10}{'RMSE':>9}{'log loss':>10}"
              f"{'fit (s)':>10}{'predict (s)':>13}")
    print(header)
    print("-" * len(header))
    for name, (_, key) in learners.items():
        res = _cross_validate(key, X, y, args.folds, args.seed)
        mean = res.mean(axis=0)
        print(f"{name:<8}{mean[0]:>10.4f}{mean[1]:>9.4f}{mean[2]:>10.4f}"
              f"{mean[3]:>10.4f}{mean[4]:>13.4f}")
    print("\nMeans over folds; fit / predict times are per fold. RMSE = sqrt(mean (1 - P(true "
          "class))^2), as in Webb et al. (2012).")
    return 0


def _split(text):
    return [t.strip() for t in text.split(",") if t.strip()]


def compare(args):
    """Run a comparison (cached, resumable) and write its report.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``seminaive compare``.

    Returns
    -------
    int
        The exit status: 0, or 2 for an unknown learner key or data that cannot be read (a
        missing file, an unknown data set or target column).
    """
    try:
        for key in _split(args.learners):
            get_learner(key)
    except KeyError as err:
        print(f"seminaive compare: {err.args[0]}", file=sys.stderr)
        return 2
    overrides = {"folds": args.folds, "repeats": args.repeats}
    params = runner.protocol_parameters(args.protocol)
    overrides = {k: v for k, v in overrides.items() if k in params and v is not None}
    config = runner.RunConfig(datasets=_split(args.data), learners=_split(args.learners),
                              protocol=args.protocol, seed=args.seed,
                              discretizer=args.discretizer, n_bins=args.bins,
                              protocol_params=overrides, max_rows=args.max_rows,
                              target=args.target)
    try:
        raw = runner.run(config, args.out, n_jobs=args.jobs, progress=not args.quiet,
                         retry_failed=args.retry_failed)
    except (InputError, FileNotFoundError) as err:
        print(f"seminaive compare: {err}", file=sys.stderr)
        return 2
    raw.to_csv(f"{args.out}/raw.csv", index=False)
    failed = raw[raw["error"] != ""]
    if len(failed):
        print(f"{len(failed)} task(s) failed; see the 'error' column of {args.out}/raw.csv",
              file=sys.stderr)
    report.render([args.out], title=f"seminaive compare: {args.protocol}")
    report.summarise(args.out, raw).to_csv(f"{args.out}/summary.csv", index=False)
    print(f"results: {args.out}/raw.csv, {args.out}/summary.csv, {args.out}/report.md, "
          f"{args.out}/plots/")
    return 0


def report_command(args):
    """Render the report again from cached raw results.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``seminaive report``.

    Returns
    -------
    int
        The exit status, 0.
    """
    preamble = None
    if args.preamble:
        with open(args.preamble) as fh:
            preamble = fh.read()
    check = findings.paper_findings if args.findings else None
    if args.comparisons:
        keys = [k for k in args.comparisons.split(",") if k]
        known = {c.key for c in comparisons.PAPER_COMPARISONS}
        unknown = sorted(set(keys) - known)
        if unknown:
            raise SystemExit(f"seminaive report: unknown comparison(s) {unknown}; known: "
                             f"{sorted(known)}")
        chosen = [c for c in comparisons.PAPER_COMPARISONS if c.key in keys]

        def check(summary, curve, raw):
            return comparisons.render_comparisons(summary, chosen)
    text = report.render(args.dirs, markdown_path=args.markdown, title=args.title,
                         preamble=preamble, findings=check, section=args.section)
    target = args.markdown or f"{args.dirs[0]}/report.md"
    print(f"wrote {target} ({len(text.splitlines())} lines)")
    return 0


def main(argv=None):
    """Entry point of the ``seminaive`` command.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status of the subcommand.
    """
    parser = argparse.ArgumentParser(prog="seminaive",
                                     description="Semi-naive Bayesian classification (AnDE).")
    sub = parser.add_subparsers(dest="command", required=True)
    p_demo = sub.add_parser("demo", help="cross-validate NB, AODE and A2DE on bundled data")
    p_demo.add_argument("--folds", type=int, default=10)
    p_demo.add_argument("--seed", type=int, default=0)
    p_demo.set_defaults(func=demo)

    p_cmp = sub.add_parser(
        "compare", help="compare learners on data sets with the papers' protocols",
        description="Evaluate learners on data sets; raw results are cached per task in "
                    "OUT/raw so an interrupted run resumes where it stopped.")
    p_cmp.add_argument("--data", required=True,
                       help="comma-separated data set names (seminaive.datasets.available()) "
                            "or .arff/.csv/.parquet paths")
    p_cmp.add_argument("--target", default=None,
                       help="target column of data files (default: the last column)")
    p_cmp.add_argument("--learners", required=True,
                       help="comma-separated learner keys, e.g. nb,aode,a2de,rf100")
    p_cmp.add_argument("--protocol", choices=PROTOCOLS, default="cv")
    p_cmp.add_argument("--out", required=True, help="output directory")
    p_cmp.add_argument("--folds", type=int, default=None, help="folds (cv, biasvar)")
    p_cmp.add_argument("--repeats", type=int, default=None, help="repeats of the protocol")
    p_cmp.add_argument("--seed", type=int, default=0)
    p_cmp.add_argument("--discretizer", choices=("equal_frequency", "mdl"),
                       default="equal_frequency",
                       help="discretiser of numeric attributes (Webb et al. 2012: three-bin equal "
                            "frequency; Chen et al. 2014: MDL)")
    p_cmp.add_argument("--bins", type=int, default=3, help="bins for equal_frequency")
    p_cmp.add_argument("--max-rows", type=int, default=None,
                       help="use a seeded random sample of at most this many rows")
    p_cmp.add_argument("--jobs", type=int, default=1, help="parallel worker processes")
    p_cmp.add_argument("--quiet", action="store_true", help="no progress bar")
    p_cmp.add_argument("--retry-failed", action="store_true",
                       help="run again the tasks recorded as failed")
    p_cmp.set_defaults(func=compare)

    p_rep = sub.add_parser("report", help="render the report from cached raw results")
    p_rep.add_argument("dirs", nargs="+", help="result directories of seminaive compare")
    p_rep.add_argument("--markdown", default=None, help="report path (default DIR/report.md)")
    p_rep.add_argument("--title", default="Results")
    p_rep.add_argument("--preamble", default=None, help="markdown file placed after the title")
    p_rep.add_argument("--findings", action="store_true",
                       help="check the papers' findings and comparison tables against the results")
    p_rep.add_argument("--comparisons", default=None,
                       help="only these comparison tables (comma-separated keys of "
                            "seminaive.evaluation.comparisons.PAPER_COMPARISONS)")
    p_rep.add_argument("--section", default=None,
                       help="write the report as this named section of --markdown (between "
                            "<!-- NAME --> markers), keeping the rest of the file")
    p_rep.set_defaults(func=report_command)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
